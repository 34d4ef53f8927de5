"""The batch_copy family's figures: the time to move a batch of K tensors to the GPU against K,
one line per method (one copy per tensor, gather + one copy, cudaMemcpyBatchAsync, the
mapped gather kernel, and one copy of a buffer already packed: the floor), log-log; and
each method's time over the floor's at the same K, where the methods that come near the
floor part (on the log-log figure they draw as one line from K = 16, an H200, 2026-11-27)."""

from __future__ import annotations

from hdreport.core import style
from hdreport.core.facets import Spec, one_line
from hdreport.core.schema import ok_run

# Its ways of moving a batch: one copy of the packed bytes (the floor) dark grey, packing on
# the host blue, a kernel over mapped memory brown (as mapped memory).
style.register_look(
    colours={"method": {"per_tensor": "#e15759", "packed": "#4e79a7", "batch_api": "#59a14f",
                        "mapped_kernel": "#8c564b", "one_copy": "#3b3b3b"}},
    order=("per_tensor", "packed", "batch_api", "mapped_kernel", "one_copy"))

FLOOR = "one_copy"
OVER_FLOOR = "over_one_copy"  # a method's batch_us over the floor's, in the same report at the same K

SPECS = [
    Spec("batch_copy", "Moving a batch of K tensors (256 B to 4 MiB each) to the GPU: time per batch by method",
         "tensors", "batch_us", where={"family": "batch_copy"}, series=("method",),
         ylabel="time per batch (µs, lower is better)"),
    Spec("batch_copy_over_floor", "Moving a batch of K tensors to the GPU: each method's time over one copy "
         "of the same bytes already packed", "tensors", OVER_FLOOR,
         where={"family": "batch_copy", "method": frozenset({"per_tensor", "packed", "batch_api", "mapped_kernel"})},
         series=("method",), ylabel="time ÷ one packed copy's (lower is better)",
         references=one_line(1.0, "one copy, already packed (the floor)")),
]
MAKERS = ()


def _place(params: dict) -> tuple:
    """What a run shares with its floor: every param but the method."""
    return tuple(sorted((k, repr(v)) for k, v in params.items() if k != "method"))


def expand(benchmarks: list[dict]) -> list[dict]:
    """The runs with `over_one_copy` added to each batch_copy run that has a floor beside it
    (a copy of the run: the report itself is left as measured)."""
    floors = {_place(b["params"]): b["counters"]["batch_us"] for b in benchmarks
              if b.get("params", {}).get("family") == "batch_copy" and b["params"].get("method") == FLOOR
              and ok_run(b) and (b.get("counters") or {}).get("batch_us", 0) > 0}
    out = []
    for b in benchmarks:
        p = b.get("params", {})
        floor = floors.get(_place(p)) if p.get("family") == "batch_copy" and ok_run(b) else None
        us = (b.get("counters") or {}).get("batch_us") if floor else None
        if isinstance(us, (int, float)):
            b = {**b, "counters": {**b["counters"], OVER_FLOOR: us / floor}}
        out.append(b)
    return out
