"""The device_local family's figure: copies within one GPU's memory, GB/s against size, one
line per engine (the copy engine, an SM kernel), with the best pinned copies over PCIe from
the transfer family in the same reports as reference lines, so the roof reads against the
link."""

from __future__ import annotations

from hdreport.core.facets import Spec
from hdreport.core.schema import ok_run

BANDWIDTH = "GB/s (1e9 bytes/s) copied"


def best_pinned_copies(spec, panel: dict, reports) -> list[tuple[float, str]]:
    """The fastest pinned copy of each direction over PCIe (transfer, copy engine, one copy
    timed at a time) in the reports."""
    best: dict[str, float] = {}
    for _, _, benchmarks in reports:
        for b in benchmarks:
            p = b.get("params", {})
            if ok_run(b) and p.get("family") == "transfer" and p.get("memory") == "pinned" and \
                    p.get("engine") == "copy" and p.get("variant") == "per_copy" and \
                    p.get("direction") in ("h2d", "d2h"):
                gbps = b.get("counters", {}).get("bandwidth_GB/s")
                if gbps is not None and gbps > best.get(p["direction"], 0):
                    best[p["direction"]] = gbps
    return [(best[d], f"best pinned {d.upper()} copy over PCIe (transfer) {best[d]:.1f} GB/s")
            for d in ("h2d", "d2h") if d in best][:1]  # one line: the two lie within a few % of each other


SPECS = [
    Spec("device_local", "Copies within device memory: the GPU's memory roof, by engine", "bytes",
         "bandwidth_GB/s", where={"family": "device_local"}, series=("engine",),
         ylabel=BANDWIDTH, references=best_pinned_copies),
]
MAKERS = ()


def expand(benchmarks: list[dict]) -> list[dict]:
    return benchmarks
