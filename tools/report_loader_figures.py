"""The loader family's part of `hdbench_report.py plot`.

The loader's line figures (samples/s against workers) and its derived
`loader_pinning` figure are drawn by hdbench_report.py's generic code from its
FIGURES / SPLIT_BY / DERIVED_FIGURES tables; this module adds what is particular to
the family:

- `zero_workers_at_every_depth`: with no workers nothing is built ahead, so the
  binary runs 0 workers at one prefetch depth only. Like the report's derived
  `loader_scaling` rows, the figures count that run at every depth its grid point
  was run at with workers, so each depth's figure starts at 0 workers.
- `heatmaps`: per (consumer, pinning, sample cost, prefetch depth, shuffle,
  augment), samples/s over batch size × worker count, each cell annotated.
"""

from __future__ import annotations

import statistics
from collections import defaultdict

# A loader run's place in the grid without its worker count and depth (as in lib/derivations.cpp).
GRID_KEY = ("consumer", "pinning", "batch", "sample_cost_us", "shuffle", "augment")
# One heat map per value of these; batch and workers are its axes.
HEATMAP_BY = ("consumer", "pinning", "sample_cost_us", "prefetch_depth", "shuffle", "augment")
COUNTER = "samples/s"


def _is_ok_loader_run(b: dict) -> bool:
    return b.get("status") == "ok" and b.get("run_type", "iteration") == "iteration" and \
        b.get("params", {}).get("family") == "loader"


def zero_workers_at_every_depth(benchmarks: list[dict]) -> list[dict]:
    """The benchmarks, with each successful 0-worker loader run repeated (params copied,
    `prefetch_depth` changed) at every other depth its grid point has runs with workers at.
    Other entries, skipped and failed runs included, are passed through once."""
    depths = defaultdict(set)
    for b in benchmarks:
        p = b.get("params", {})
        if _is_ok_loader_run(b) and p.get("workers", 0) > 0:
            depths[tuple(p.get(k) for k in GRID_KEY)].add(p.get("prefetch_depth"))
    out = []
    for b in benchmarks:
        out.append(b)
        p = b.get("params", {})
        if not _is_ok_loader_run(b) or p.get("workers") != 0:
            continue
        for depth in sorted(depths[tuple(p.get(k) for k in GRID_KEY)] - {p.get("prefetch_depth")}):
            out.append({**b, "params": {**p, "prefetch_depth": depth}})
    return out


def split_name(prefix: str, params: dict, keys: tuple[str, ...]) -> str:
    """`prefix--k1-v1_k2-v2`: the naming of split figures."""
    return prefix + "--" + "_".join(f"{k}-{params.get(k)}" for k in keys)


def heatmap_cells(benchmarks: list[dict]) -> dict[str, dict[tuple[int, int], float]]:
    """{heat map name: {(batch, workers): samples/s}} from the successful loader runs;
    repetitions of one grid point give their median."""
    values = defaultdict(lambda: defaultdict(list))
    for b in zero_workers_at_every_depth(benchmarks):
        p = b["params"]
        y = b.get("counters", {}).get(COUNTER)
        if not _is_ok_loader_run(b) or y is None or "batch" not in p or "workers" not in p:
            continue
        values[split_name("loader_heatmap", p, HEATMAP_BY)][(p["batch"], p["workers"])].append(y)
    return {name: {cell: statistics.median(ys) for cell, ys in cells.items()} for name, cells in values.items()}


def short_number(v: float) -> str:
    """Three significant digits with a k/M/G suffix: 12345 -> 12.3k."""
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= scale:
            return f"{v / scale:.3g}{suffix}"
    return f"{v:.3g}"


def draw_heatmap(plt, cells: dict[tuple[int, int], float], title: str):
    """Batch sizes up the y axis, worker counts along x, colour = samples/s (log scale when
    all are positive); missing cells stay blank (NaN, masked)."""
    import numpy as np
    from matplotlib.colors import LogNorm

    batches = sorted({b for b, _ in cells})
    workers = sorted({w for _, w in cells})
    grid = np.full((len(batches), len(workers)), np.nan)
    for (batch, w), v in cells.items():
        grid[batches.index(batch), workers.index(w)] = v
    grid = np.ma.masked_invalid(grid)
    lo, hi = grid.min(), grid.max()
    norm = LogNorm(lo, hi) if lo > 0 and hi > lo else None
    fig, ax = plt.subplots(figsize=(1.2 * len(workers) + 3, 0.6 * len(batches) + 2.5))
    image = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis", norm=norm)
    for (batch, w), v in sorted(cells.items()):
        # Dark text on the bright end of viridis, light text on the dark end.
        bright = image.norm(v) > 0.6 if hi > lo else True
        ax.text(workers.index(w), batches.index(batch), short_number(v), ha="center", va="center",
                fontsize="small", color="black" if bright else "white")
    ax.set_xticks(range(len(workers)), [str(w) for w in workers])
    ax.set_yticks(range(len(batches)), [str(b) for b in batches])
    ax.set_xlabel("workers")
    ax.set_ylabel("batch")
    ax.set_title(title, fontsize="small")
    fig.colorbar(image, ax=ax, label=COUNTER)
    return fig


def heatmaps(plt, benchmarks: list[dict], machine: str) -> dict:
    """{`loader_heatmap--…` name: Figure} for one report's benchmarks."""
    cells_by_name = heatmap_cells(benchmarks)
    return {name: draw_heatmap(plt, cells_by_name[name], f"{name}: {machine}") for name in sorted(cells_by_name)}
