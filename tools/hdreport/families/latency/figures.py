"""The latency family's figure: the time of one small copy against its size, a panel per
direction and a line per host memory kind, with the pointer chase's two figures (one load
over the link from mapped host memory, one load from device memory) as marked horizontal
lines in every panel: what a copy costs beside what a load costs."""

from __future__ import annotations

import statistics

from hdreport.core.facets import Spec
from hdreport.core.schema import ok_run

CHASES = (("mapped_host", "one load over PCIe (pointer chase, mapped host memory)"),
          ("device", "one load from device memory (pointer chase)"))


def chase_lines(spec, panel: dict, reports) -> list[tuple[float, str]]:
    """The pointer chase's latency per load, of each place the chain lived, from the reports."""
    found: dict[str, list[float]] = {}
    for _, _, benchmarks in reports:
        for b in benchmarks:
            p = b.get("params", {})
            y = b.get("counters", {}).get("latency_us")
            if ok_run(b) and p.get("family") == "latency" and p.get("method") == "pointer_chase" and y is not None:
                found.setdefault(p.get("memory"), []).append(y)
    return [(statistics.median(found[m]), f"{text}: {statistics.median(found[m]):.2f} µs")
            for m, text in CHASES if m in found]


SPECS = [
    Spec("latency", "Time of one small copy (host time of cudaMemcpyAsync and the stream's end), beside one "
         "load's round trip", "bytes", "latency_us", where={"family": "latency", "method": "copy"},
         cols="direction", series=("memory",), ylabel="time (µs)", references=chase_lines),
]
MAKERS = ()
ALSO_DRAWN = ({"family": "latency", "method": "pointer_chase"},)  # the marked lines


def expand(benchmarks: list[dict]) -> list[dict]:
    return benchmarks
