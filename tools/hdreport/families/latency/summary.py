"""The latency family's question of `summarize` (see hdreport/summary.py): how long does the smallest
move take? One small copy (`latency/copy/<direction>/<memory>/<size>`: the host's time from
`cudaMemcpyAsync` to the stream's end, what a program waiting for it sees), and one load's
round trip (`latency/pointer_chase/<memory>`: a GPU thread following a chain through mapped
host memory, each load over the link, beside the same chase in device memory)."""

from __future__ import annotations

from hdreport.core import movement, noise
from hdreport.core.markdown import name, sources, table
from hdreport.core.units import size_text

FAMILY = "latency"
MEMORY_ORDER = ["pinned", "pageable", "registered", "pinned_wc", "mapped"]


def _latency(b: dict) -> float:
    return b["counters"]["latency_us"]


def _memories(copies: dict) -> list[str]:
    found = {m for _, m, _ in copies}
    return [m for m in MEMORY_ORDER if m in found] + sorted(found - set(MEMORY_ORDER))


def smallest_move(report: dict) -> list[str]:
    found = movement.runs(report, FAMILY)
    copies = movement.first_by([b for b in found if b["params"]["method"] == "copy"], "direction", "memory", "bytes")
    chases = movement.first_by([b for b in found if b["params"]["method"] == "pointer_chase"], "memory")
    lines = []
    memories = _memories(copies)
    pinned_at = {}
    for memory in memories:
        sizes = sorted({s for (d, m, s) in copies if m == memory})
        size = sizes[0] if sizes else None
        both = [(d, copies[(d, memory, size)]) for d in ("h2d", "d2h") if (d, memory, size) in copies]
        if not both:
            continue
        if not pinned_at:
            pinned_at = {d: b for d, b in both}
            text = ", ".join(f"{d.upper()} **{movement.us(_latency(b))} µs**" for d, b in both)
            lines.append(f"- One {size_text(size)} copy from {memory} memory: {text} (the host's time from "
                         f"`cudaMemcpyAsync` to the stream's end, median; {' and '.join(name(b) for _, b in both)})"
                         f"{noise.noise_note([b for _, b in both])}.")
            continue
        parts = []
        for d, b in both:
            ref = pinned_at.get(d)
            # a time over a time, said as one: "0.97× pinned" read as a speed beside the speed ratios
            versus = f", {_latency(b) / _latency(ref):.2f}× the time from {pinned_memory(pinned_at)}" \
                if ref is not None and ref["params"]["bytes"] == size else ""
            parts.append(f"{d.upper()} {movement.us(_latency(b))} µs{versus}")
        lines.append(f"- From {memory} memory ({size_text(size)}): {'; '.join(parts)}.")
    over, local = chases.get(("mapped_host",)), chases.get(("device",))
    if over is not None:
        text = (f"- One load over the link (a pointer chase through mapped host memory, each load waiting for the "
                f"one before): **{movement.us(_latency(over))} µs** ({name(over)})")
        if local is not None:
            text += (f", against **{movement.us(_latency(local))} µs** for a load from device memory "
                     f"({_latency(over) / _latency(local):.2f}× as long; {name(local)})")
        lines.append(text + f"{noise.noise_note([b for b in (over, local) if b is not None])}.")
        if pinned_at:
            first = next(iter(pinned_at.values()))
            lines.append(f"  The smallest copy takes {_latency(first) / _latency(over):.1f} such round trips: "
                         "most of it is the call and the wait, not the link.")
    elif local is not None:
        lines.append(f"- One load from device memory (a pointer chase): **{movement.us(_latency(local))} µs** "
                     f"({name(local)}){noise.noise_note([local])}.")
    sizes = sorted({s for _, _, s in copies})
    columns = [(d, m) for d in ("h2d", "d2h") for m in memories if any((d, m, s) in copies for s in sizes)]
    if len(sizes) > 1 and columns:
        rows = [[size_text(s)] + [movement.us(_latency(copies[(d, m, s)])) if (d, m, s) in copies else "–"
                                  for d, m in columns] for s in sizes]
        lines += ["", "Time of one copy (µs, median):", ""]
        lines += table(["size"] + [f"{d.upper()} {m}" for d, m in columns], rows)
        lines += ["", f"From the `latency/copy/<direction>/<memory>/<size>` runs ({sources(report, copies.values())})."]
    return movement.close(report, FAMILY, found, lines, "memory")


def pinned_memory(pinned_at: dict) -> str:
    """The memory the first line quoted (pinned where it ran)."""
    return next(iter(pinned_at.values()))["params"]["memory"]


ASKED_WHERE_RUN = (FAMILY,)
QUESTIONS = [
    ("smallest-move", "How long does the smallest move take?", smallest_move, "the `latency` family on a GPU",
     ("latency",)),
]
