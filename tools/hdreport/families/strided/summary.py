"""The strided family's question of `summarize` (see hdreport/summary.py): what does a strided slice
cost to move? A slice of a row-major fp32 matrix in pinned memory (every other row, or the
first half of the columns) moved to the GPU packed, by `cudaMemcpy2DAsync`, by a host pack
(what `tensor.contiguous()` does) and one copy, and by a kernel reading the rows over mapped
memory; each method's GB/s as a share of one copy of the same bytes already contiguous, for
the same slice and matrix."""

from __future__ import annotations

from hdreport.core import movement
from hdreport.core.markdown import sources, table
from hdreport.core.units import size_text

FAMILY = "strided"
METHODS = ["memcpy2d", "pack_then_copy", "mapped_kernel"]
WORDS = {"memcpy2d": "`cudaMemcpy2DAsync`", "pack_then_copy": "a host pack, then one copy",
         "mapped_kernel": "a gather kernel over mapped memory"}
SLICES = {"every_other_row": "every other row", "column_block": "half the columns"}


def _gbps(b: dict) -> float:
    return b["counters"]["bandwidth_GB/s"]


def _matrix_key(matrix: str):
    rows, _, cols = str(matrix).partition("x")
    return (int(rows), int(cols)) if rows.isdigit() and cols.isdigit() else (0, 0)


def slice_cost(report: dict) -> list[str]:
    found = movement.runs(report, FAMILY)
    runs = movement.first_by(found, "matrix", "slice", "method")
    cases = sorted({(m, s) for m, s, _ in runs}, key=lambda c: (_matrix_key(c[0]), list(SLICES).index(c[1])
                                                                if c[1] in SLICES else 9, c[1]))
    shares: dict[str, list[tuple[float, tuple]]] = {}
    rows = []
    for matrix, slice_ in cases:
        floor = runs.get((matrix, slice_, "contiguous"))
        any_run = next(b for (m, s, _), b in runs.items() if (m, s) == (matrix, slice_))
        p = any_run["params"]
        shape = (f"{size_text(p['bytes'])}: {p['rows']} rows of {size_text(p['row_bytes'])}"
                 if "rows" in p and "row_bytes" in p else size_text(p["bytes"]))
        cells = []
        for method in METHODS:
            b = runs.get((matrix, slice_, method))
            if b is None:
                cells.append("–")
            elif floor is None:
                cells.append(f"{_gbps(b):.1f}")
            else:
                share = _gbps(b) / _gbps(floor)
                shares.setdefault(method, []).append((share, (matrix, slice_)))
                pack = f", pack {movement.us(b['counters']['pack_us'])} µs" if "pack_us" in b["counters"] else ""
                cells.append(f"{_gbps(b):.1f} (**{share:.2f}×**{pack})")
        rows.append([f"`{matrix}`", SLICES.get(slice_, slice_), shape,
                     f"{_gbps(floor):.1f}" if floor is not None else "–"] + cells)
    lines = []
    for method in METHODS:
        if method not in shares:
            continue
        values = shares[method]
        lo, hi = min(values), max(values)
        where = lambda v: f"{v[1][0]}, {SLICES.get(v[1][1], v[1][1])}"  # noqa: E731
        span = (f"**{lo[0]:.2f}×** ({where(lo)})" if len(values) == 1 else
                f"**{lo[0]:.2f}×** ({where(lo)}) to **{hi[0]:.2f}×** ({where(hi)})")
        lines.append(f"- {WORDS[method][0].upper() + WORDS[method][1:]}: {span} the GB/s of the same bytes "
                     "already contiguous.")
    if shares:
        best = max(shares, key=lambda m: min(v for v, _ in shares[m]))
        worst = min(v for v, _ in shares[best])
        lines.append(f"- Cheapest here: {WORDS[best]}, never below {worst:.2f}× contiguous: a slice moved this way "
                     f"takes at most {1 / worst:.2f}× the time of the same bytes in one piece.")
    elif cases:
        lines.append("- No `contiguous` run to set the methods against: run `--hdbench_strided_methods` with "
                     "`contiguous`.")
    if rows:
        lines += ["", "GB/s by method (1e9 bytes/s of the slice; in brackets the share of contiguous):", ""]
        lines += table(["matrix", "slice", "bytes", "contiguous"] + [m.replace("_", " ") for m in METHODS], rows,
                       keys=3)
        lines += ["", f"From the `strided/<slice>/<method>/<matrix>` runs ({sources(report, found)})."]
    return movement.close(report, FAMILY, found, lines, "method")


ASKED_WHERE_RUN = (FAMILY,)
QUESTIONS = [
    ("strided-slice", "What does a strided slice cost to move?", slice_cost, "the `strided` family on a GPU",
     ("strided",)),
]
