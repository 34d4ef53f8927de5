"""The batch_copy family's figure: the time to move a batch of K tensors to the GPU against K,
one line per method (one copy per tensor, gather + one copy, cudaMemcpyBatchAsync, the
mapped gather kernel, and one copy of a buffer already packed: the floor), log-log."""

from __future__ import annotations

from hdreport.core.facets import Spec

SPECS = [
    Spec("batch_copy", "Moving a batch of K tensors (256 B to 4 MiB each) to the GPU: time per batch by method",
         "tensors", "batch_us", where={"family": "batch_copy"}, series=("method",),
         ylabel="time per batch (µs, lower is better)"),
]
MAKERS = ()


def expand(benchmarks: list[dict]) -> list[dict]:
    return benchmarks
