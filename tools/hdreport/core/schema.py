"""Reading an hdbench report safely: bytes -> UTF-8 -> strict JSON -> the types the tools read.

`load(path)` returns the report or raises `ReportError` with one line that names the file
and the problem, e.g. `r.json: benchmarks[3].params: expected an object, got a list`.
After it, the report tools may trust every field below to have its type where it is
present (and the required ones to be there); they still use `.get` for optional ones.

The schema covers the fields the tools read (docs/report-format.md documents them all), not
every field a report has: fields it does not name are accepted as they are (readers ignore
fields they do not know), except that unknown `params` must be scalars (figures group runs
by every param) and unknown counters and `derived` tables must have a counter's and a
table's shape (the summary reads every counter as a number and merges every table).
JSON itself is read strictly: no NaN or Infinity (hdbench writes neither; a NaN counter
is written as null), no number beyond 64 bits or the range of a double, no unpaired
surrogate in a string (it could not be printed).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path

from hdreport.core import described, writer


class ReportError(Exception):
    """A report that cannot be used; the message is one line and names the file."""


# --- the schema language ------------------------------------------------------------

def _kind(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


class SchemaError(Exception):
    def __init__(self, path: str, problem: str):
        super().__init__(f"{path or '(top level)'}: {problem}")


def _key_path(path: str, key: str) -> str:
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key)}]"


class Leaf:
    def __init__(self, name: str, test):
        self.name, self.test = name, test

    def check(self, value, path: str) -> None:
        if not self.test(value):
            raise SchemaError(path, f"expected {self.name}, got {_kind(value)}")


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


NUM = Leaf("a number", _is_number)
INT = Leaf("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool))
# A duration or a count: a negative one is a damaged report (compare printed -240%).
AMOUNT = Leaf("a number >= 0", lambda v: _is_number(v) and v >= 0)
COUNT = Leaf("an integer >= 0", lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0)
STR = Leaf("a string", lambda v: isinstance(v, str))
BOOL = Leaf("true or false", lambda v: isinstance(v, bool))
SCALAR = Leaf("a string, number, true/false or null",
              lambda v: v is None or isinstance(v, (str, bool)) or _is_number(v))


class Either:
    def __init__(self, *options):
        self.options = options
        self.name = " or ".join(o.name for o in options)

    def check(self, value, path: str) -> None:
        for option in self.options:
            try:
                option.check(value, path)
                return
            except SchemaError:
                pass
        raise SchemaError(path, f"expected {self.name}, got {_kind(value)}")


NULL = Leaf("null", lambda v: v is None)


def opt(spec):
    """`spec` or null."""
    return Either(spec, NULL)


class List:
    def __init__(self, item):
        self.item = item
        self.name = "a list"

    def check(self, value, path: str) -> None:
        if not isinstance(value, list):
            raise SchemaError(path, f"expected a list, got {_kind(value)}")
        for i, v in enumerate(value):
            self.item.check(v, f"{path}[{i}]")


class Obj:
    """An object: `fields` typed where present, `required` present, keys matching a
    pattern typed by it, and `rest` for every other key (None: anything)."""

    name = "an object"

    def __init__(self, fields: dict | None = None, required=(), patterns=(), rest=None, rule=None):
        self.fields, self.required, self.rest, self.rule = fields or {}, tuple(required), rest, rule
        self.patterns = [(re.compile(p), s) for p, s in patterns]

    def check(self, value, path: str) -> None:
        if not isinstance(value, dict):
            raise SchemaError(path, f"expected an object, got {_kind(value)}")
        for key in self.required:
            if key not in value:
                raise SchemaError(path, f"missing field {json.dumps(key)}")
        for key, v in value.items():
            spec = self.fields.get(key)
            if spec is None:
                spec = next((s for p, s in self.patterns if p.fullmatch(key)), self.rest)
            if spec is not None:
                spec.check(v, _key_path(path, key))
        if self.rule is not None:
            self.rule(value, path)


# --- the report ---------------------------------------------------------------------

PCIE_LINK = Obj({"generation": INT, "width": INT})
GPU = Obj({"index": INT, "name": STR, "compute_capability_major": INT, "compute_capability_minor": INT,
           "sm_count": INT, "total_memory_bytes": NUM, "pcie_link_current": PCIE_LINK, "pcie_link_max": PCIE_LINK,
           "pcie_link_max_gbps": NUM, "copy_engines": INT}, required=("name",))
SYSTEM = Obj({
    "host": Obj({"cpu_model": STR, "logical_cores": INT, "memory_total_bytes": NUM, "numa_nodes": INT,
                 "kernel": STR}),
    "gpus": List(GPU),
    "driver_version_string": STR, "runtime_version_string": STR, "gpu_unavailable_reason": STR})
GPU_CONDITION = Obj({"family": STR, "when": STR, "device": INT, "throttle_reasons": List(STR), "benchmark": STR,
                     "busy_samples": INT},
                    patterns=[(r".*_(MHz|W|C)", NUM)])


def _pytorch_has_version(hd: dict, path: str) -> None:
    if hd.get("implementation") == "pytorch" and "torch_version" not in hd:
        raise SchemaError(path, 'missing field "torch_version" (a PyTorch baseline report has it)')


_DESCRIBED_PARAM = Obj({"key": STR, "type": STR, "meaning": STR, "required": List(STR),
                        "values": List(Obj({"value": STR, "label": STR}, required=("value", "label")))},
                       required=("key", "type"))
_DESCRIBED_COUNTER = Obj({"name": STR, "meaning": STR, "better": STR, "required": List(STR)}, required=("name",))
FAMILY_DESCRIPTION = Obj({"kind_param": STR, "params_note": STR, "noise_groups": List(STR),
                          "nvtx": Obj({"category": INT, "name": STR, "colour": STR}),
                          "params": List(_DESCRIBED_PARAM), "counters": List(_DESCRIBED_COUNTER)},
                         required=("params", "counters"))
HDBENCH = Obj({
    "version": STR, "git_revision": STR, "build_type": STR, "started_at": STR, "implementation": STR,
    "torch_version": STR, "synthetic": BOOL,  # made by a test generator, not measured: the summary says so
    "options": Obj({"arguments": List(STR)}),
    "system": SYSTEM,
    "cpu_blas": Obj({"library": STR, "core_in_use": STR}),
    "gpu_conditions": Either(List(GPU_CONDITION), Obj({"unavailable": STR})),
    "families": Obj(rest=FAMILY_DESCRIPTION),  # described.py
}, rule=_pytorch_has_version)
CONTEXT = Obj({"host_name": STR, "hdbench": HDBENCH}, required=("hdbench",))

# Params: any scalar, or a list of integers (the all-GPU copies' `devices`); each family's
# description (described.py) types its own and says which are required (_check_runs).
PARAMS = Obj({"family": STR}, rest=Either(SCALAR, List(INT)))


def _params_rule(p: dict, path: str) -> None:
    # A model is its layers' widths (784x32x10): the summaries and figures order models by them.
    if "model" in p and not (isinstance(p["model"], str) and re.fullmatch(r"[0-9]{1,9}(x[0-9]{1,9})+", p["model"])):
        got = f'"{p["model"][:40]}"' if isinstance(p["model"], str) else _kind(p["model"])
        raise SchemaError(_key_path(path, "model"), f"expected layer widths such as 784x32x10, got {got}")
    # A list belongs to the all-GPU copies only; anywhere else figures would try to group by it.
    if isinstance(p.get("numa_node_requested"), list) and p.get("direction") not in ("all_to_host", "host_to_all"):
        raise SchemaError(_key_path(path, "numa_node_requested"),
                          "a list, but only all_to_host and host_to_all copies have one per GPU")


PARAMS.rule = _params_rule
# A rate is measured work over measured time: never negative (a 1-rank all-reduce moves 0 GB/s
# over the bus), never past 1e15 of its unit (1e308 GB/s drew no axis). A run's copy rate is
# above 0 too (_check_run), or every ratio against it divides by zero.
RATE = Leaf("a rate from 0 to 1e15", lambda v: _is_number(v) and 0 <= v < 1e15)
COUNTERS = Obj(patterns=[(r"sweep_step_us/threads:[0-9]+", NUM),
                         (r"sweep_step_us/threads:.*", Leaf("a counter named …/threads:<number>", lambda v: False)),
                         (r".*/s(/.*)?", RATE)],
               rest=NUM)
# What each family's runs have, and their params' types: the report's descriptions of its
# families (described.py), the legacy snapshot for reports from before them.
_TYPES = {"string": STR, "integer": INT, "number": NUM, "boolean": BOOL, "integer or string": Either(INT, STR),
          "list of integers": List(INT), "integer or list of integers": Either(INT, List(INT))}


def _check_run(b: dict, path: str, family: dict, name: str) -> None:
    """One run against its family's description: described params typed (an undescribed one
    must be a scalar: figures group runs by every param), and a successful run has the params
    and counters its family, or its kind, requires."""
    params = b["params"]
    described = {p["key"]: p for p in family.get("params", [])}
    for key, value in params.items():
        spec = _TYPES.get(described[key]["type"], SCALAR) if key in described else (SCALAR if key != "family" else STR)
        spec.check(value, _key_path(_key_path(path, "params"), key))
    if b["status"] != "ok":
        return  # a skipped or failed run is listed by name and reason only
    copied = b.get("counters", {}).get("bandwidth_GB/s")
    if copied is not None and b.get("run_type", "iteration") == "iteration" and not copied > 0:
        raise SchemaError(_key_path(_key_path(path, "counters"), "bandwidth_GB/s"),
                          f"expected a rate above 0 (the run copied its bytes), got {copied}")
    kind = params.get(family.get("kind_param", "variant"))
    for field, entries, key_of in (("params", family.get("params", []), "key"),
                                   ("counters", family.get("counters", []), "name")):
        if field == "counters" and b.get("run_type", "iteration") != "iteration":
            break  # an aggregate's counters are Google's statistics of them
        have = b.get(field, {})
        for needs_in, label in (("*", name), (kind, f"{name}/{kind}")):
            for entry in entries:
                if needs_in in entry.get("required", ()) and entry[key_of] not in have:
                    raise SchemaError(_key_path(path, field),
                                      f"missing field {json.dumps(entry[key_of])} (every successful {label} run has it)")


def _check_runs(report: dict) -> None:
    families = described.families_of(report)
    for i, b in enumerate(report["benchmarks"]):
        name = b["params"].get("family")
        if isinstance(name, str) and name in families:
            _check_run(b, f"benchmarks[{i}]", families[name], name)


BENCHMARK = Obj({
    "name": STR, "run_name": STR, "run_type": STR, "status": STR, "skip_reason": STR, "error_message": STR,
    "error_occurred": BOOL, "label": STR, "time_unit": STR, "aggregate_name": STR, "aggregate_unit": STR,
    "family_index": INT, "per_family_instance_index": INT, "repetitions": INT, "repetition_index": INT,
    "threads": NUM, "iterations": NUM, "real_time": opt(NUM), "cpu_time": opt(NUM),
    "params": PARAMS, "counters": COUNTERS, "notes": List(STR),
    "checks": Obj({"ranks_identical": BOOL, "matches_one_rank": BOOL, "tolerance": NUM}),  # dataparallel
}, required=("name", "status", "params"))

# derived: every table is a list of rows (the summary merges them all); the documented
# rows typed by their field names, with the fields that place a row and its headline
# figures required (hdbench writes them in every row; the summary indexes them).
_VARIANT = Obj({"benchmark": STR, "latency_us": NUM, "streams": INT, "chunks": INT, "issue_order": STR,
                "fraction_of_ideal": NUM}, required=("latency_us",))
_PIPELINED = Obj(_VARIANT.fields, required=("latency_us", "benchmark", "streams", "chunks"))
_GRID = {"consumer": STR, "pinning": STR, "batch": INT, "workers": INT, "prefetch_depth": INT,
         "sample_cost_us": NUM, "shuffle": BOOL, "augment": STR, "device": INT, "build": STR}
_GRID_REQUIRED = ("consumer", "batch", "prefetch_depth", "sample_cost_us", "shuffle", "augment")
_BOUND = {"host_memcpy_GB/s_at_threads": opt(NUM), "bound": STR, "bound_GB/s": NUM, "fraction_of_bound": NUM}


def _best_workers_measured(row: dict, path: str) -> None:
    if str(row["best_workers"]) not in row["by_workers"]:
        raise SchemaError(_key_path(path, "best_workers"), f"{row['best_workers']} is not a key of by_workers")


def _pipelined_saving(row: dict, path: str) -> None:
    if "pipelined" in row and "sync" in row and "pipelined_saving_vs_sync_percent" not in row:
        raise SchemaError(path, 'missing field "pipelined_saving_vs_sync_percent" (the row has sync and pipelined)')


DERIVED_ROWS = {
    "pinning_break_even": Obj({"bytes": INT, "direction": STR, "method": STR, "device": INT, "pin_unpin_us": NUM,
                               "pageable_copy_us": NUM, "pinned_copy_us": NUM,
                               "transfers_to_break_even": opt(NUM)},
                              required=("bytes", "direction", "method", "pin_unpin_us")),
    "staged_vs_pinned": Obj({
        "direction": STR, "bytes": INT, "device": INT, "best_staged_GB/s": NUM, "best_staged_benchmark": STR,
        "best_staged_threads": INT, "best_staged_chunk_bytes": INT, "pinned_GB/s": NUM, "fraction_of_pinned": NUM,
        "speedup_over_pageable": NUM, **_BOUND,
        "by_threads": List(Obj({"threads": INT, "staged_GB/s": NUM, "chunk_bytes": INT, "benchmark": STR,
                                **_BOUND}, required=("threads", "staged_GB/s")))},
        # pinned_GB/s, fraction_of_pinned and speedup_over_pageable are left out where no pinned
        # (pageable) copy of that direction and size ran (lib/transfer/transfer_derivations.cpp)
        required=("direction", "bytes", "best_staged_GB/s", "best_staged_benchmark")),
    "per_copy_vs_reference_loop": Obj({"direction": STR, "bytes": INT, "device": INT, "per_copy_GB/s": NUM,
                                       "reference_loop_GB/s": NUM, "ratio": NUM},
                                      required=("direction", "bytes", "per_copy_GB/s", "reference_loop_GB/s",
                                                "ratio")),
    "gpu_activity": Obj({"benchmark": STR, "measured_over": STR, "sample": STR, "sampled": BOOL,
                         "cupti_copy_GB/s": Obj(rest=NUM), "event_timed_GB/s": NUM,
                         "top_kernels": List(Obj({"name": STR, "launches": INT, "total_us": NUM, "mean_us": NUM,
                                                  "per_step_us": NUM}, required=("name", "launches", "total_us")))},
                        patterns=[(r".*(_percent|_us|_ranges|_kept|_dropped)|copies|kernels", NUM)],
                        required=("benchmark",)),
    "loader_scaling": Obj({**_GRID, "best_workers": INT, "best_samples/s": NUM,
                           "by_workers": Obj(patterns=[(r"[0-9]+", Obj({"samples/s": NUM}, required=("samples/s",),
                                                                      rest=NUM))],
                                             rest=Leaf("a worker count as key", lambda v: False))},
                          required=_GRID_REQUIRED + ("pinning", "by_workers", "best_workers", "best_samples/s"),
                          rule=_best_workers_measured),
    "loader_pinning": Obj({**_GRID}, patterns=[(r".*samples/s|direct_over_pin_thread", NUM)],
                          required=_GRID_REQUIRED + ("workers", "direct_samples/s", "pin_thread_samples/s",
                                                     "direct_over_pin_thread")),
    "loader_build": Obj({**_GRID}, patterns=[(r".*samples/s|split_over_whole", NUM)],
                        required=_GRID_REQUIRED + ("pinning", "workers", "split_samples/s", "whole_samples/s",
                                                   "split_over_whole")),
    "stream_overlap": Obj({"bytes": INT, "compute_ratio": NUM, "memory": STR, "device": INT,
                           "sync": _VARIANT, "async": _VARIANT, "pipelined": _PIPELINED, "graph": _VARIANT},
                          patterns=[(r"default_stream/.*", _VARIANT), (r".*_percent|.*_slowdown", NUM)],
                          required=("bytes", "compute_ratio", "memory"), rule=_pipelined_saving),
}
DERIVED = Obj({k: List(v) for k, v in DERIVED_ROWS.items()}, rest=List(Obj()))

# profile: what hdbench_profile recorded of another program's CUDA work, judged against a
# report of this machine (docs/report-format.md, "profile"). Its report has no benchmarks.
# Values the tools show as words (direction, memory kinds, size bucket, how, finding id) are
# strings of any value: a newer profiler's value is shown as it is.
_COPY_CLASS_KEYS = ("direction", "src", "dst", "blocking", "size_bucket", "count", "bytes", "time_s",
                    "achieved_GB/s", "ceiling_GB/s", "ceiling_source", "fraction_of_ceiling", "overlapped_s")
COPY_CLASS = Obj({"direction": STR, "src": STR, "dst": STR, "blocking": BOOL, "size_bucket": STR, "count": INT,
                  "bytes": NUM, "time_s": NUM, "achieved_GB/s": NUM, "ceiling_GB/s": opt(NUM),
                  "ceiling_source": STR, "fraction_of_ceiling": opt(NUM), "overlapped_s": NUM},
                 required=_COPY_CLASS_KEYS)
FINDING = Obj({"id": STR, "saving_s": NUM, "saving_fraction_of_span": NUM, "what": STR, "advice": STR,
               "evidence": STR, "fix": STR, "saving_alone_s": NUM, "saving_alone_fraction_of_span": NUM,
               "assumption": STR}, required=("id", "saving_s", "saving_fraction_of_span", "what", "advice", "evidence"))
_TOTALS_KEYS = ("span_s", "gpu_busy_s", "kernel_s", "copy_s", "copies", "copy_bytes", "host_blocked_s", "gpu_idle_s")
COSTS = Obj({"copies_not_overlapped_s": NUM, "gpu_idle_while_copying_s": NUM, "host_blocked_on_copies_s": NUM,
             "host_blocked_on_sync_s": NUM,
             # overhead_s: null where small copies have no baseline to price a copy's fixed cost
             "small_copies": Obj({"count": INT, "time_s": NUM, "cost_s": AMOUNT, "overhead_s": opt(NUM)},
                                 required=("count", "time_s", "overhead_s")),
             "blocking_reads": Obj({"count": INT, "gpu_idle_after_s": NUM, "time_s": NUM, "host_blocked_s": NUM},
                                   required=("count", "gpu_idle_after_s"))},
            required=("copies_not_overlapped_s", "host_blocked_on_copies_s", "host_blocked_on_sync_s", "small_copies",
                      "blocking_reads"))


def _measured_has_times(handover: dict, path: str) -> None:
    # what profile/handover.py's handover_of reads of a measured hand-over without a check
    if handover.get("measured"):
        for key in ("batch_s", "packed_batch_s"):
            if handover.get(key) is None:
                raise SchemaError(path, f"missing field {json.dumps(key)} (a measured hand-over has it)")


# what a batch from a DataLoader worker costs the training thread: null where not measured
HANDOVER = Obj({**{k: opt(AMOUNT) for k in (
    "batch_s", "packed_batch_s", "pinned_batch_s", "pin_thread_batch_s", "packed_pin_thread_batch_s",
    "gather_batch_s", "pin_cycle_batch_s", "packed_pin_cycle_batch_s", "pin_here_batch_s", "batch_take_s",
    "workers_start_s", "graph_replay_batch_s")},
    **{k: opt(COUNT) for k in ("gather_rows", "start_workers", "start_footprint_bytes")},
    "measured": BOOL, "start_footprint_measure": STR, "tensor_bytes": List(COUNT), "source": STR},
    rule=_measured_has_times)

# the steps' spread: {} where there were no steps, else each group whole
_SPREAD_KEYS = ("median_ms", "p90_ms", "p99_ms", "max_ms", "stalls", "stall_excess_s", "stall_factor")
_SPREAD_GC_KEYS = ("stalls_with_gc", "stall_gc_s", "gc_s")  # where the collections were timed


def _spread_complete(spread: dict, path: str) -> None:
    """A spread that has one field of a group has the group (a spread of no steps is {})."""
    for keys in (_SPREAD_KEYS, _SPREAD_GC_KEYS):
        present = [k for k in keys if k in spread]
        if present and len(present) < len(keys):
            missing = next(k for k in keys if k not in spread)
            raise SchemaError(path, f"missing field {json.dumps(missing)} (it has {json.dumps(present[0])})")


_STEP_SPREAD = Obj({"median_ms": AMOUNT, "p90_ms": AMOUNT, "p99_ms": AMOUNT, "max_ms": AMOUNT, "stalls": COUNT,
                    "stall_excess_s": AMOUNT, "stall_factor": NUM, "stalls_with_gc": COUNT, "stall_gc_s": AMOUNT,
                    "gc_s": AMOUNT, "pace_median_ms": List(AMOUNT), "pace_batch_wait_ms": List(AMOUNT)},
                   rule=_spread_complete)
# the model of the feeding thread's steps (profile/model.py, Model.summary()): the required
# fields are in every report that has a model (reports before schema 2 have none); the rest
# came later and are read only where present.
MODEL = Obj({"steps": COUNT, "per_step_reads": BOOL, "steps_cut_at": STR, "pin_thread": BOOL,
             "saving_together_s": NUM, "batches": COUNT, "tensors": COUNT,
             "saving_alone_s": Obj(rest=NUM), "saving_with_s": Obj(rest=NUM),
             "batch_wait_with_s": Obj(rest=NUM), "unslowed_with_s": Obj(rest=List(NUM)),
             "own_batch_wait_with_s": Obj(rest=List(NUM)), "start_with_s": Obj(rest=NUM),
             "seconds": Obj(rest=NUM, required=("T",)), "per_step_ms": Obj(rest=NUM, required=("T",)),
             "step_spread": _STEP_SPREAD, "collections_timed": BOOL, "pin_rate_source": STR,
             "handover": HANDOVER},
            required=("steps", "per_step_reads", "seconds", "per_step_ms", "saving_together_s"))
# the GPU's idle gaps by what the feeding thread was doing (profile/intervals.py)
IDLE = Obj({"gpu_idle_s": AMOUNT, "gaps": COUNT, "by_cause_s": Obj(rest=AMOUNT), "unattributed_s": AMOUNT},
           required=("gpu_idle_s", "gaps", "by_cause_s"))


def _recorded_has_results(profile: dict, path: str) -> None:
    # A profile that recorded has what the summary reads; one that did not may lack them (it says why).
    if profile["recorded"]:
        for key in ("totals", "copy_classes", "costs", "findings"):
            if key not in profile:
                raise SchemaError(path, f"missing field {json.dumps(key)} (a profile that recorded has it)")


PROFILE = Obj({
    "schema": INT, "synthetic": BOOL, "command": List(STR),
    "exit": Obj({"code": opt(INT), "signal": opt(STR)}, required=("code", "signal")),
    "wall_s": NUM, "recorded": BOOL, "not_recorded_reason": STR,
    "processes": List(Obj({"pid": INT, "command": STR, "gpus": List(STR), "complete": BOOL, "records": INT,
                           "over_budget": INT, "cupti_dropped": INT, "note": STR},
                          required=("pid", "command", "complete"))),
    "baseline": Obj({"path": opt(STR), "how": STR, "machine": STR, "started_at": STR, "note": STR},
                    required=("how",)),
    "trace": opt(STR),
    "totals": Obj({**{k: COUNT if k in ("copies", "copy_bytes") else AMOUNT for k in _TOTALS_KEYS}, "devices": INT,
                   "copy_cost_s": AMOUNT},
                  required=_TOTALS_KEYS),
    "copy_classes": List(COPY_CLASS),
    "costs": COSTS,
    "findings": List(FINDING),
    # the summary reads every field of these
    "would_cost": List(Obj({"id": STR, "fix": STR, "cost_s": NUM, "cost_fraction_of_span": NUM, "why": STR},
                           required=("id", "cost_s", "cost_fraction_of_span", "why"))),
    "model": MODEL,
    "idle": IDLE,
    # a habit worth fixing alone that the findings make pointless (verify holds its price alone)
    "findings_left_out": List(Obj({"id": STR, "fix": STR, "saving_alone_s": NUM, "saving_added_s": NUM},
                                  required=("id", "fix", "saving_alone_s", "saving_added_s"))),
}, required=("schema", "command", "exit", "wall_s", "recorded", "processes", "baseline", "trace"),
    rule=_recorded_has_results)

REPORT = Obj({"context": CONTEXT, "benchmarks": List(BENCHMARK), "derived": DERIVED, "profile": PROFILE})


# --- reading ------------------------------------------------------------------------

_LIMIT = 2 ** 64  # hdbench's largest integers are 64-bit (byte counts; seeds before 2026-11-29)


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > 20 or abs(int(text)) >= _LIMIT:
        raise ValueError(f"the integer {text[:24]}{'…' if len(text) > 24 else ''} is beyond 64 bits")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:24]}{'…' if len(text) > 24 else ''} is beyond a double's range")
    return value


def _parse_constant(text: str):
    raise ValueError(f"{text} is not a JSON number")


# Characters that move a terminal's cursor, recolour it, break a line or reorder the text around
# them (C0/C1 controls, Unicode's line separators, bidirectional overrides): a report's strings
# are shown in terminals, Markdown and figures, and one holding them could rewrite what is
# shown around it.
_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def _shown(text: str) -> str:
    """`text` with every character of _HIDDEN escaped as writer.one_line escapes it (\\x1b, \\n)."""
    return _HIDDEN.sub(lambda m: writer.escaped(m[0]), text)


def check_strings(value, show: bool, path: str = ""):
    """`value`, changed in place with `show` so that every string and key is shown (_shown);
    SchemaError where one does not encode as UTF-8 (JSON's \\ud800 escapes can make ones that
    do not). No report hdbench writes holds _HIDDEN characters; a profile's command line or
    thread names may."""
    def shown(text: str, where: str, what: str) -> str:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise SchemaError(where, f"{what} with an unpaired surrogate escape (not text)") from None
        return _shown(text) if show and _HIDDEN.search(text) else text

    root = [value]
    stack = [(root, 0, path)]
    while stack:
        holder, at, p = stack.pop()
        v = holder[at]
        if isinstance(v, str):
            holder[at] = shown(v, p, "a string")
        elif isinstance(v, dict):
            if show and any(_HIDDEN.search(k) for k in v):
                v = holder[at] = {shown(k, p, "a key"): x for k, x in v.items()}
            for k in v:
                shown(k, p, "a key")
                stack.append((v, k, _key_path(p, k)))
        elif isinstance(v, list):
            stack.extend((v, i, f"{p}[{i}]") for i in range(len(v)))
    return root[0]


def parse(data: bytes, name: str):
    """The JSON value of a file's bytes, or ReportError naming `name`."""
    if not data.strip():
        raise ReportError(f"{name}: the file is empty")
    if data[:2] == b"\x1f\x8b":
        raise ReportError(f"{name}: gzip-compressed, not a JSON report (gunzip it first)")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise ReportError(f"{name}: UTF-16 text; a report is UTF-8 (iconv -f UTF-16 -t UTF-8 converts it)")
    if data.startswith(b"\xef\xbb\xbf"):  # a byte-order mark some editors add: harmless
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ReportError(f"{name}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}); "
                          "not a JSON report") from None
    try:
        return json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
    except json.JSONDecodeError as e:
        raise ReportError(f"{name}: not valid JSON (line {e.lineno} column {e.colno}: {e.msg}); truncated?") from None
    except ValueError as e:  # raised by the hooks above
        raise ReportError(f"{name}: not valid JSON for a report: {e}") from None
    except RecursionError:
        raise ReportError(f"{name}: not a report: JSON nested too deeply") from None


def validate(report, name: str, shown: bool = True) -> dict:
    """`report` if it has the shape of an hdbench report, else ReportError naming `name`; with
    `shown`, its strings as they can be shown (check_strings), else as the file has them."""
    if not isinstance(report, dict):
        raise ReportError(f"{name}: not an hdbench report (the JSON is {_kind(report)}, not an object)")
    context = report.get("context")
    if not isinstance(context, dict) or "hdbench" not in context or "benchmarks" not in report:
        raise ReportError(f"{name}: not an hdbench report (no context.hdbench or benchmarks)")
    try:
        report = check_strings(report, shown)
        REPORT.check(report, "")
        _check_runs(report)
    except SchemaError as e:
        raise ReportError(f"{name}: {e}") from None
    described.learn(report)
    return report


# Far above any report (the largest under reports/reference, a 2-vCPU VM's default run, is 2 MB):
# a file this size is not one, and reading it whole would hold its bytes several times over.
MAX_REPORT_BYTES = 1 << 30


def read_input_bytes(path: str, limit: int = MAX_REPORT_BYTES) -> bytes:
    """The bytes of the file at `path`: a regular file or a pipe (`<(zcat r.json.gz)`), at most
    `limit` of them; ReportError for anything else (/dev/zero: a read that never ends) or more.
    Opened without waiting for a writer: a named pipe nobody writes to reads as empty."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise ReportError(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise ReportError(f"{path}: cannot read: Is a directory")
        if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
            raise ReportError(f"{path}: not a file or a pipe (a device?): give a report's path")
        os.set_blocking(fd, True)  # a pipe's writer may be slower than this reader
        with open(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise ReportError(f"{path}: cannot read: {e.strerror or e}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise ReportError(f"{path}: more than {limit:,} bytes, more than any report: not one")
    return data


def load(path: str, shown: bool = True) -> dict:
    """The report at `path`, checked; ReportError (one line naming the file) when it cannot be used.
    Its strings are as they can be shown (check_strings) unless `shown` is False: a tool
    that writes them into a report again (reanalyse) keeps them as they were."""
    return validate(parse(read_input_bytes(path), path), path, shown)


# --- the runs a figure or an answer reads -------------------------------------------

def ok_run(b: dict) -> bool:
    """A run that succeeded, not one of Google's aggregates over repetitions."""
    return b.get("status") == "ok" and b.get("run_type", "iteration") == "iteration"


def ok_runs(report: dict, family: str | None = None):
    """The successful runs of a report (of one family, when given)."""
    for b in report["benchmarks"]:
        if ok_run(b) and (family is None or b.get("params", {}).get("family") == family):
            yield b
