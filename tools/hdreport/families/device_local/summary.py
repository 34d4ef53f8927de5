"""The device_local family's question of `summarize` (see hdreport/summary.py): what is this GPU's
memory roof? The fastest copy between two buffers in one GPU's memory, by the copy engine or
an SM kernel; its GB/s counts the bytes copied (each read once and written once, so the
memory moved twice as many), as nvbandwidth's device_local_copy does. The other GPU-side
figures read against it, the PCIe copies of the transfer family first."""

from __future__ import annotations

from hdreport.core import movement, noise
from hdreport.core.markdown import name, sources, table
from hdreport.core.movement import per_copy
from hdreport.core.units import size_text

FAMILY = "device_local"
ENGINES = {"copy": "the copy engine (`cudaMemcpyAsync` device to device)", "sm": "an SM copy kernel"}
SHORT = {"copy": "copy engine", "sm": "SM kernel"}


def _bandwidth(b: dict) -> float:
    return b["counters"]["bandwidth_GB/s"]


def memory_roof(report: dict) -> list[str]:
    found = movement.runs(report, FAMILY)
    lines = []
    devices = sorted({b["params"].get("device", 0) for b in found})
    roofs = []
    for device in devices:
        mine = [b for b in found if b["params"].get("device", 0) == device]
        best = max(mine, key=_bandwidth)
        roofs.append(best)
        engine, gbps = best["params"]["engine"], _bandwidth(best)
        who = f"GPU {device}: " if len(devices) > 1 else ""
        lines.append(f"- {who}**{movement.rate(gbps)} GB/s** by {ENGINES.get(engine, f'`{engine}`')} at "
                     f"{size_text(best['params']['bytes'])} ({name(best)}){noise.noise_note([best])}: the best copy "
                     f"within device memory. GB/s counts the bytes copied; each is read once and written once, so "
                     f"the memory moved {movement.rate(2 * gbps)} GB/s.")
        others = [b for b in mine if b["params"]["engine"] != engine]
        if others:
            other = max(others, key=_bandwidth)
            lines.append(f"  The {SHORT.get(other['params']['engine'], other['params']['engine'])}'s best: "
                         f"{movement.rate(_bandwidth(other))} GB/s at {size_text(other['params']['bytes'])}, "
                         f"{100 * _bandwidth(other) / gbps:.0f}% of it ({name(other)}).")
    if roofs:
        roof = max(roofs, key=_bandwidth)
        links = []
        copies = per_copy(report)
        for direction in ("h2d", "d2h"):
            pinned = [b for (d, m, _), b in copies.items() if d == direction and m == "pinned"]
            if pinned:
                best = max(pinned, key=_bandwidth)
                links.append(f"{direction.upper()} **{100 * _bandwidth(best) / _bandwidth(roof):.1f}%** "
                             f"({_bandwidth(best):.1f} GB/s at {size_text(best['params']['bytes'])}, {name(best)})")
        if links:
            lines.append("- Read the other GPU-side figures against it: the best pinned copy over PCIe is "
                         + ", ".join(links) + " of it.")
    sizes = sorted({b["params"]["bytes"] for b in found})
    by_key = movement.first_by(found, "device", "engine", "bytes")
    engines = [e for e in ("copy", "sm") if any(k[1] == e for k in by_key)]
    rows = []
    for device in devices:
        for size in sizes:
            cells = [movement.rate(_bandwidth(by_key[(device, e, size)])) if (device, e, size) in by_key else "–"
                     for e in engines]
            rows.append(([str(device)] if len(devices) > 1 else []) + [size_text(size)] + cells)
    if len(rows) > 1:
        lines += ["", "Copy bandwidth within device memory (GB/s, bytes copied):", ""]
        lines += table((["GPU"] if len(devices) > 1 else []) + ["size"] + [SHORT.get(e, e) for e in engines], rows,
                       keys=1 + (len(devices) > 1))
        lines += ["", f"From the `device_local/<engine>/<size>` runs ({sources(report, found)})."]
    return movement.close(report, FAMILY, found, lines, "engine", "Not in these figures:")


# Asked only of reports with device_local entries (hdreport/registry.py).
ASKED_WHERE_RUN = (FAMILY,)
QUESTIONS = [
    ("memory-roof", "What is this GPU's memory roof?", memory_roof, "the `device_local` family on a GPU",
     ("device_local",)),
]
