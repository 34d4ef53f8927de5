"""The batch_copy family's question of `summarize` (see hdreport/summary.py): should I move my batch as
one buffer? A batch of K tensors (256 B to 4 MiB, the stated mix), each in its own pinned
buffer, moved to the GPU: one `cudaMemcpyAsync` per tensor (`per_tensor`), gathered on the
host into one pinned buffer and copied once (`packed`, the gather timed with it),
`cudaMemcpyBatchAsync` (`batch_api`), one kernel gathering over mapped memory
(`mapped_kernel`), and, as the floor, one copy of a buffer already packed (`one_copy`).
Every time is the host's, from the first call to the stream's end, per batch."""

from __future__ import annotations

from hdreport.core import movement, noise
from hdreport.core.markdown import name, sources, table

FAMILY = "batch_copy"
METHODS = ["per_tensor", "packed", "batch_api", "mapped_kernel", "one_copy"]
WORDS = {"batch_api": "`cudaMemcpyBatchAsync`", "mapped_kernel": "The mapped gather kernel"}
TARGET_K = 32  # where the packed copy is set against the floor
TARGET = 1.2  # the packed batch (gather + copy) within 1.2x one copy of a buffer already packed


def _us(b: dict, counter: str = "batch_us") -> float:
    return b["counters"][counter]


def _ks(ks: list[int]) -> str:
    return ", ".join(str(k) for k in ks)


def one_buffer(report: dict) -> list[str]:
    found = movement.runs(report, FAMILY)
    runs = movement.first_by(found, "method", "tensors")
    ks = sorted({k for _, k in runs})
    lines = []
    both = [k for k in ks if ("per_tensor", k) in runs and ("packed", k) in runs]
    if both:
        faster = [k for k in both if _us(runs[("packed", k)]) < _us(runs[("per_tensor", k)])]
        if faster:
            k = faster[0]
            packed, each = runs[("packed", k)], runs[("per_tensor", k)]
            line = (f"- Packing (a host gather into one pinned buffer, then one copy; the gather timed with it) beats "
                    f"one copy per tensor from **K = {k}**: {movement.us(_us(packed))} µs against "
                    f"{movement.us(_us(each))} µs a batch ({name(packed)} vs {name(each)})"
                    f"{noise.noise_note([packed, each])}.")
            slower = [j for j in both if j > k and j not in faster]
            if slower:
                j = slower[0]
                p, e = runs[("packed", j)], runs[("per_tensor", j)]
                gather = p["counters"].get("gather_us")
                why = (f": the gather of {movement.size(p['params']['bytes'])} alone takes {movement.us(gather)} µs"
                       if gather is not None else "")
                line += (f" It is slower again from K = {j} ({movement.us(_us(p))} against {movement.us(_us(e))} µs"
                         f"{why}).")
            lines.append(line)
        else:
            lines.append(f"- Packing (a host gather into one pinned buffer, then one copy) never beats one copy per "
                         f"tensor, up to K = {both[-1]}: {movement.us(_us(runs[('packed', both[-1])]))} against "
                         f"{movement.us(_us(runs[('per_tensor', both[-1])]))} µs a batch there.")
    at = TARGET_K if ("packed", TARGET_K) in runs and ("one_copy", TARGET_K) in runs else \
        max((k for k in ks if ("packed", k) in runs and ("one_copy", k) in runs), default=None)
    if at is not None:
        packed, floor = runs[("packed", at)], runs[("one_copy", at)]
        # The question is moving the batch: the packed batch costs its host gather and its copy
        # (batch_us), not the copy alone, which moves a buffer someone already packed.
        whole = _us(packed)
        ratio = whole / _us(floor)
        verdict = "met" if ratio <= TARGET else "missed"
        where = "" if at == TARGET_K else f" (K = {TARGET_K} did not run)"
        copy, gather = packed["counters"].get("copy_us"), packed["counters"].get("gather_us")
        parts = (f" ({movement.us(gather)} µs of host gather + {movement.us(copy)} µs of copy; the copy alone is "
                 f"{copy / _us(floor):.2f}× one copy, but a batch is not moved until it is gathered)"
                 if copy is not None and gather is not None else "")
        lines.append(f"- At K = {at}{where} ({movement.size(packed['params']['bytes'])}), moving the batch packed "
                     f"takes {movement.us(whole)} µs{parts} against {movement.us(_us(floor))} µs for one copy of a "
                     f"buffer already packed: **{ratio:.2f}×** (the target, within {TARGET:g}×: {verdict}; "
                     f"{name(packed)} vs {name(floor)}).")
    for method in ("batch_api", "mapped_kernel"):
        mine = [k for k in ks if (method, k) in runs]
        if not mine:
            continue
        rivals = [k for k in mine if ("per_tensor", k) in runs and ("packed", k) in runs]
        wins = [k for k in rivals if _us(runs[(method, k)]) < min(_us(runs[("per_tensor", k)]),
                                                                  _us(runs[("packed", k)]))]
        show = TARGET_K if TARGET_K in rivals else (rivals[-1] if rivals else None)
        if show is None:
            continue
        b = runs[(method, show)]
        where = (f"at K = {show}: {movement.us(_us(b))} µs against {movement.us(_us(runs[('per_tensor', show)]))} "
                 f"(per tensor) and {movement.us(_us(runs[('packed', show)]))} (packed)")
        losses = [k for k in rivals if k not in wins]
        if not wins:
            verdict = f"beats both at no K measured (K = {_ks(rivals)})"
        elif not losses:
            verdict = f"beats both at every K measured (K = {_ks(wins)})"
        else:
            verdict = f"beats both at K = {_ks(wins)}, not at K = {_ks(losses)}"
        lines.append(f"- {WORDS[method]} {verdict}; {where} ({name(b)}).")
    columns = [m for m in METHODS if any((m, k) in runs for k in ks)]
    if ks and columns:
        rows = []
        for k in ks:
            payload = next(runs[(m, k)]["params"]["bytes"] for m in columns if (m, k) in runs)
            cells = []
            for m in columns:
                b = runs.get((m, k))
                if b is None:
                    cells.append("–")
                elif m == "packed" and "gather_us" in b["counters"]:
                    cells.append(f"{movement.us(_us(b))} ({movement.us(b['counters']['gather_us'])} + "
                                 f"{movement.us(b['counters']['copy_us'])})")
                else:
                    cells.append(movement.us(_us(b)))
            rows.append([str(k), movement.size(payload)] + cells)
        lines += ["", "Time per batch (µs, median; packed: gather + copy):", ""]
        lines += table(["K", "payload"] + [m.replace("_", " ") for m in columns], rows, keys=2)
        lines += ["", f"From the `batch_copy/<method>/tensors:<K>` runs ({sources(report, found)})."]
    return movement.close(report, FAMILY, found, lines, "method")


ASKED_WHERE_RUN = (FAMILY,)
QUESTIONS = [
    ("batch-one-buffer", "Should I move my batch as one buffer?", one_buffer, "the `batch_copy` family on a GPU",
     ("batch_copy",)),
]
