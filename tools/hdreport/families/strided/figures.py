"""The strided family's figure (a bar figure, MAKERS): GB/s of a strided slice moved to the
GPU, a group of bars per slice kind (every other row, half the columns) with a bar per method
(`cudaMemcpy2DAsync`, a host pack then one copy, a gather kernel over mapped memory, and the
same bytes already contiguous: the reference), a panel per matrix (at most three a figure),
each bar marked with its share of contiguous."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from hdreport.core import bars, style
from hdreport.core.bandwidth import BANDWIDTH
from hdreport.core.schema import ok_run

# Its ways of moving a slice: the same bytes already contiguous (the floor) dark grey, packing
# on the host blue, a kernel over mapped memory brown (as mapped memory).
style.register_look(
    colours={"method": {"memcpy2d": "#f28e2b", "pack_then_copy": "#4e79a7", "mapped_kernel": "#8c564b",
                        "contiguous": "#3b3b3b"}},
    order=("mapped_kernel", "memcpy2d", "pack_then_copy", "contiguous", "every_other_row", "column_block"))

METHODS = ["memcpy2d", "pack_then_copy", "mapped_kernel", "contiguous"]
PANELS_PER_FIGURE = 3


def _label(method: str) -> str:
    return style.value_text("method", method)


def strided_bars(plt, reports, machine: str) -> dict:
    """{`strided` (or `strided--part-N`): Figure}: the reports' successful strided runs."""
    found = [(path, b) for path, _, benchmarks in reports for b in benchmarks
             if ok_run(b) and b.get("params", {}).get("family") == "strided"
             and "bandwidth_GB/s" in b.get("counters", {})]
    if not found:
        return {}
    several = len({path for path, _ in found}) > 1
    devices = {b["params"].get("device") for _, b in found}
    floors = {}
    for path, b in found:
        p = b["params"]
        if p.get("method") == "contiguous":
            floors.setdefault((path, p.get("device"), p["matrix"], p["slice"]), b["counters"]["bandwidth_GB/s"])
    panels: dict[tuple, dict] = defaultdict(lambda: defaultdict(dict))
    for path, b in found:
        p = b["params"]
        row = ", ".join(t for t in (Path(path).stem if several else "",
                                    f"GPU {p.get('device')}" if len(devices) > 1 else "") if t)
        gbps = b["counters"]["bandwidth_GB/s"]
        floor = floors.get((path, p.get("device"), p["matrix"], p["slice"]))
        text = f"{gbps / floor:.2f}×" if floor and p["method"] != "contiguous" else ""
        group = style.value_text("slice", p["slice"])
        panel = panels[(row, f"{p['matrix']} fp32 matrix")]
        panel[group].setdefault(_label(p["method"]), (gbps, text, [b.get("name")]))
    methods = [m for m in METHODS if any(_label(m) in g for panel in panels.values() for g in panel.values())]
    methods += sorted({p["method"] for _, b in found for p in [b["params"]]} - set(METHODS))
    colours = {_label(m): style.COLOURS["method"].get(m, "#7f7f7f") for m in methods}
    matrices = sorted({col for _, col in panels}, key=style.natural)
    out = {}
    for part in range(0, len(matrices), PANELS_PER_FIGURE):
        chosen = set(matrices[part:part + PANELS_PER_FIGURE])
        name = "strided" if part == 0 else f"strided--part-{part // PANELS_PER_FIGURE + 1}"
        out[name] = bars.draw(plt, "A strided slice of a pinned fp32 matrix moved to the GPU: GB/s by method",
                              machine, {k: v for k, v in panels.items() if k[1] in chosen},
                              [_label(m) for m in methods], colours, BANDWIDTH,
                              note="above a bar: its GB/s as a share of the same bytes already contiguous")
    return out


SPECS = []
MAKERS = (strided_bars,)
ALSO_DRAWN = ({"family": "strided"},)  # skipped and failed ones are listed as left out of the figures


def expand(benchmarks: list[dict]) -> list[dict]:
    return benchmarks
