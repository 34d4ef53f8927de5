"""The report `hdbench_profile` writes: an hdbench report (context, no benchmarks) with a
`profile` section, the recorded program's data movement judged against a baseline.

    "profile": {"schema": 2, "synthetic", "command", "exit": {"code", "signal"}, "wall_s",
                "recorded", "not_recorded_reason", "processes": [...], "baseline": {...},
                "trace", "totals": {...}, "copy_classes": [...], "costs": {...},
                "idle": {...}, "model": {..., "handover": {...}}, "findings": [...]}

Schema 2 (this one): copy classes timed end to end from their calls (`time_s`, with
`dma_time_s` beside it), the GPU's idle time by cause (`idle`, host.py), the step
model the fixes are priced with (`model`, model.py), and findings with
`saving_alone_s` and an `assumption`. Schema 1 reports read the same, without those.

Times are seconds, sizes bytes, GB/s 1e9 bytes per second. The analysis is in
analysis.py and findings.py; this module only assembles and writes.
"""

from __future__ import annotations

import copy
import json

from hdreport.core import writer
from hdreport.profile.analysis import analyse
from hdreport.profile.baseline import Ceilings, describe_machine
from hdreport.profile.findings import findings, left_out, saving_together_s, workers_needed, would_cost
from hdreport.profile.handover import handover_of
from hdreport.profile.host import feeding_threads, idle_by_cause, threads_of
from hdreport.profile.steps import build as build_model
from hdreport.profile.records import Recording

SCHEMA = 2
NO_CUDA = "the command made no CUDA calls (no process loaded the CUDA runtime)"
UNREADABLE = "no records file could be read"
# A baseline's note that says none was wanted (no copies to judge), not that one is missing.
NO_BASELINE_NEEDED = "no baseline needed"


def not_recorded_reason(recording: Recording) -> str:
    """Why the recording holds nothing to analyse ("" when it does)."""
    if not recording.processes:
        return NO_CUDA
    if not any(p.readable for p in recording.processes):
        problems = [x for p in recording.processes for x in p.problems[:1]]
        return f"{UNREADABLE}: " + "; ".join(problems[:3])
    if all(p.error for p in recording.processes):
        errors = list(dict.fromkeys(p.error for p in recording.processes))
        return "CUPTI could not start: " + "; ".join(errors)
    return ""


def baseline_section(path: str, how: str, report: dict | None, note: str, this_host: str) -> dict:
    """Where the ceilings came from: `how` is given, newest, measured or none."""
    if report is None:
        return {"path": path, "how": "none", "machine": "", "started_at": "",
                "note": note if note.endswith(NO_BASELINE_NEEDED) else
                "; ".join(x for x in (note, "no baseline: fractions and savings need one") if x)}
    host = report["context"].get("host_name", "")
    if host and this_host and host != this_host:
        note = "; ".join(x for x in (note, f"measured on host {host}, not this one ({this_host})") if x)
    return {"path": path, "how": how, "machine": describe_machine(report),
            "started_at": report["context"]["hdbench"].get("started_at", ""), "note": note}


def processes_section(recording: Recording) -> list[dict]:
    return [{"pid": p.pid, "command": p.command, "gpus": p.gpus, "complete": p.complete, "records": p.records,
             "over_budget": p.over_budget, "cupti_dropped": p.cupti_dropped, "note": p.note()}
            for p in recording.processes]


def analyse_all(recording: Recording, ceilings: Ceilings, handover_for=None):
    """(analysis, GPU idle by cause, step model, findings) of a recording. `handover_for`
    (batch shape, workers advised, the program's footprint in bytes or None -> Handover), where
    given, measures what a batch from a worker costs on this machine and what starting the
    workers the input_pipeline finding would advise costs from a process of the program's
    size, asked only when the program built batches on its feeding thread."""
    a = analyse(recording, ceilings)
    threads = threads_of(recording, a.copies)
    model = build_model(a, threads, ceilings)
    feeding = [p.forked for p in recording.processes if p.pid in feeding_threads(threads)]
    model.forked = sum(feeding) if feeding and None not in feeding else None
    if handover_for is not None and model.batch_shape and model.total("B") > 0:
        footprint = recording.footprint(model.window)
        model.handover = handover_for(model.batch_shape, workers_needed(model), footprint[0] if footprint else None)
    idle = idle_by_cause(recording, a.copies, a.busy, threads, model.window)
    return a, idle, model, findings(a, model, idle)


def profile_section(command: list[str], exit_code: int, signal_name: str | None, wall_s: float,
                    recording: Recording, baseline: dict, baseline_report: dict | None,
                    trace: str | None, reason: str = "", handover_for=None) -> dict:
    """The `profile` section. `reason` says why nothing was recorded when the launcher knows
    (the injection library missing); otherwise the recording says. `handover_for`: as
    analyse_all's."""
    reason = reason or not_recorded_reason(recording)
    ceilings = Ceilings(baseline_report)
    # Nothing recorded: the same keys over an empty recording, so readers need no special case.
    a, idle, model, found = analyse_all(recording if not reason else Recording(), ceilings, handover_for)
    return {
        "schema": SCHEMA, "synthetic": recording.synthetic, "command": list(command),
        "exit": {"code": exit_code, "signal": signal_name}, "wall_s": wall_s,
        "recorded": not reason, "not_recorded_reason": reason,
        "processes": processes_section(recording), "baseline": baseline, "trace": trace,
        "totals": a.totals, "copy_classes": a.classes, "costs": a.costs, "idle": idle,
        "model": {**model.summary(), "saving_together_s": saving_together_s(model, found)},
        "findings": found,
        # fixes worth the floor alone that a finding makes pointless: why they are not advised
        "findings_left_out": left_out(model, found, a.totals["span_s"]),
        # fixes that would make the steps longer by the floor or more: what each would cost, and why
        "would_cost": would_cost(model, a.totals["span_s"]),
    }


def report(section: dict, baseline_report: dict | None, arguments: list[str], started_at: str,
           executable: str) -> dict:
    """The whole report: context (the machine from the baseline's context when there is one:
    its ceilings were measured there), no benchmarks, the profile."""
    if baseline_report is not None:
        system = copy.deepcopy(baseline_report["context"]["hdbench"].get("system", {}))
    else:
        gpus = list(dict.fromkeys(g for p in section["processes"] for g in p["gpus"]))
        system = {"host": writer.host_info(), "gpus": [{"index": i, "name": n} for i, n in enumerate(gpus)]}
    hdbench = {"program": "hdbench_profile", "schema_version": 2, "version": writer.suite_version(),
               "git_revision": writer.git_revision(), "started_at": started_at, "finished_at": writer.now(),
               "options": {"arguments": list(arguments)}, "system": system}
    return {"context": writer.context(hdbench, executable), "benchmarks": [], "profile": section}


def reanalysed(report: dict, recording: Recording, baseline_report: dict | None) -> dict:
    """`report` (a profile report) with its analysis made again from the records it was made
    from (hdbench_profile --hdbench_records=DIR kept them) by this revision's model: what was
    run, its exit, wall time, baseline, trace and the hand-over measured with it stay as they
    were."""
    old = report["profile"]
    kept = handover_of(old.get("model", {}).get("handover"))
    section = profile_section(old["command"], old["exit"]["code"], old["exit"]["signal"], old["wall_s"], recording,
                              old["baseline"], baseline_report, old.get("trace"), handover_for=lambda *_: kept)
    whole = copy.deepcopy(report)
    whole["profile"] = section
    whole["context"]["hdbench"]["reanalysed"] = {"git_revision": writer.git_revision(), "at": writer.now()}
    return whole


def write(path: str, whole: dict) -> None:
    """Strict JSON (no NaN), atomically: a reader never sees half a report."""
    writer.write_atomically(path, json.dumps(whole, indent=2, allow_nan=False) + "\n")
