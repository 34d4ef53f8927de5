"""The batch_copy family's figure: the time to move a batch of K tensors to the GPU against K,
one line per method (one copy per tensor, gather + one copy, cudaMemcpyBatchAsync, the
mapped gather kernel, and one copy of a buffer already packed: the floor), log-log."""

from __future__ import annotations

from hdreport.core import style
from hdreport.core.facets import Spec

# Its ways of moving a batch: one copy of the packed bytes (the floor) dark grey, packing on
# the host blue, a kernel over mapped memory brown (as mapped memory).
style.register_look(
    colours={"method": {"per_tensor": "#e15759", "packed": "#4e79a7", "batch_api": "#59a14f",
                        "mapped_kernel": "#8c564b", "one_copy": "#3b3b3b"}},
    order=("per_tensor", "packed", "batch_api", "mapped_kernel", "one_copy"))

SPECS = [
    Spec("batch_copy", "Moving a batch of K tensors (256 B to 4 MiB each) to the GPU: time per batch by method",
         "tensors", "batch_us", where={"family": "batch_copy"}, series=("method",),
         ylabel="time per batch (µs, lower is better)"),
]
MAKERS = ()


def expand(benchmarks: list[dict]) -> list[dict]:
    return benchmarks
