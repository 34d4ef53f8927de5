"""The loader family's figures.

Line figures (SPECS): samples/s against workers, and the derived `loader_pinning`
figure (direct collation over a pin thread). What is particular to the family:

- `zero_workers_at_every_depth`: with no workers nothing is built ahead, so the
  binary runs 0 workers at one prefetch depth only. Like the report's derived
  `loader_scaling` rows, the figures count that run at every depth its grid point
  was run at with workers, so each depth's figure starts at 0 workers.
- `few_workers_in_every_build`: with fewer than two workers a batch has nobody to be
  shared with, so those runs build whole batches; like `loader_scaling`, the figures
  count them as the first points of every build run with more workers. Where whole
  and split builds meet in one figure, the build tells their lines apart.
- `heatmaps` (MAKERS): per (consumer, prefetch depth, shuffle, augment, build) one figure of small
  multiples, a panel per pinning mode (columns) and sample cost (rows), each
  samples/s over batch size × worker count on one shared colour scale, each cell
  annotated. A heat map cannot overlay machines: they are drawn from the first
  report with loader runs only.
"""

from __future__ import annotations

import statistics
from collections import defaultdict

from hdreport.core.facets import Spec, one_line
from hdreport.core.feeding import PINNING_ORDER
from hdreport.core.markdown import machine_label, several_hosts
from hdreport.core.schema import ok_run
from hdreport.core.units import short_number

# A loader run's place in the grid without its worker count and depth (as in lib/derivations.cpp).
GRID_KEY = ("consumer", "pinning", "batch", "sample_cost_us", "shuffle", "augment")
# How workers built the batches: reports from before split builds built whole ones.
WHOLE, SPLIT = "whole", "split"


def build_of(params: dict) -> str:
    return params.get("build", WHOLE)


# One figure per value of these; a panel per pinning mode and sample cost; batch and workers its axes.
HEATMAP_BY = ("consumer", "prefetch_depth", "shuffle", "augment")
PANEL_BY = ("sample_cost_us", "pinning")
COUNTER = "samples/s"

SPECS = [
    Spec("loader", "Loader samples/s against worker threads", "workers", "samples/s",
         where={"family": "loader"}, figure_by=("consumer", "prefetch_depth", "shuffle", "augment"),
         rows=None, cols="sample_cost_us", series=("pinning", "batch"), overflow=("pinning",),
         ylabel="samples/s"),
    Spec("loader_pinning", "Direct collation into pinned slots over a pin thread's extra copy (>1: the pin thread "
         "costs throughput)", "workers", "direct_over_pin_thread", derived="loader_pinning",
         cols="sample_cost_us", series=("batch",), linear_y=True, ylabel="direct ÷ pin thread (samples/s)",
         row_keys=("consumer", "batch", "sample_cost_us", "shuffle", "augment", "workers", "prefetch_depth"),
         references=one_line(1.0, "no difference")),
    Spec("loader_build", "Workers sharing each batch in parts over a worker a batch (>1: splitting helps)",
         "workers", "split_over_whole", derived="loader_build", cols="sample_cost_us", series=("batch",),
         linear_y=True, ylabel="split ÷ whole (samples/s)",
         row_keys=("consumer", "pinning", "batch", "sample_cost_us", "shuffle", "augment", "workers",
                   "prefetch_depth"),
         references=one_line(1.0, "no difference")),
]


def _is_ok_loader_run(b: dict) -> bool:
    return ok_run(b) and b.get("params", {}).get("family") == "loader"


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


def few_workers_in_every_build(benchmarks: list[dict]) -> list[dict]:
    """The benchmarks (one report's), with each successful loader run of fewer than two
    workers (which builds whole batches) counted in every build its grid point and depth
    were run in with more workers: as it is for whole, as a copy with `build` split for
    split. Other entries are passed through once."""
    builds = defaultdict(set)
    for b in benchmarks:
        p = b.get("params", {})
        if _is_ok_loader_run(b) and p.get("workers", 0) >= 2:
            builds[tuple(p.get(k) for k in GRID_KEY + ("prefetch_depth",))].add(build_of(p))
    out = []
    for b in benchmarks:
        p = b.get("params", {})
        point = builds.get(tuple(p.get(k) for k in GRID_KEY + ("prefetch_depth",)))
        if not _is_ok_loader_run(b) or p.get("workers", 0) >= 2 or not point:
            out.append(b)
            continue
        out += [b if build == build_of(p) else {**b, "params": {**p, "build": build}} for build in sorted(point)]
    return out


def expand(benchmarks: list[dict]) -> list[dict]:
    """The loader runs as the figures count them: 0 workers at every depth, fewer than two
    workers in every build."""
    return few_workers_in_every_build(zero_workers_at_every_depth(benchmarks))


def split_name(prefix: str, params: dict, keys: tuple[str, ...]) -> str:
    """`prefix--k1-v1_k2-v2`: the naming of split figures."""
    return prefix + "--" + "_".join(f"{k}-{params.get(k)}" for k in keys)


def heatmap_cells(benchmarks: list[dict]) -> dict[str, dict[tuple, dict[tuple[int, int], float]]]:
    """{figure name: {(sample cost, pinning): {(batch, workers): samples/s}}} from the
    successful loader runs; repetitions of one grid point give their median."""
    values = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for b in expand(benchmarks):
        p = b["params"]
        y = b.get("counters", {}).get(COUNTER)
        if not _is_ok_loader_run(b) or y is None or "batch" not in p or "workers" not in p:
            continue
        panel = tuple(p.get(k) for k in PANEL_BY)
        values[heatmap_name(p)][panel][(p["batch"], p["workers"])].append(y)
    return {name: {panel: {cell: statistics.median(ys) for cell, ys in cells.items()}
                   for panel, cells in panels.items()} for name, panels in values.items()}


def heatmap_name(params: dict) -> str:
    """A heat map's figure name; split builds add `_build-split` (whole ones keep the name
    they had before batches could be split)."""
    name = split_name("loader_heatmap", params, HEATMAP_BY)
    return name + "_build-split" if build_of(params) == SPLIT else name


def draw_heatmaps(plt, panels: dict[tuple, dict[tuple[int, int], float]], title: str):
    """Batch sizes up the y axes, worker counts along x, colour = samples/s on one log
    scale for every panel (so panels compare by colour); missing cells stay blank."""
    import numpy as np
    from matplotlib.colors import LogNorm, Normalize

    costs = sorted({c for c, _ in panels})
    pinnings = sorted({p for _, p in panels}, key=lambda p: (PINNING_ORDER.get(p, 9), str(p)))
    batches = sorted({b for cells in panels.values() for b, _ in cells})
    workers = sorted({w for cells in panels.values() for _, w in cells})
    every = [v for cells in panels.values() for v in cells.values()]
    lo, hi = min(every), max(every)
    norm = LogNorm(lo, hi) if lo > 0 and hi > lo else Normalize(lo, hi if hi > lo else lo + 1)
    fig, axes = plt.subplots(len(costs), len(pinnings), squeeze=False,
                             figsize=(0.9 * len(workers) * len(pinnings) + 2.6, 0.55 * len(batches) * len(costs)
                                      + 1.2 * len(costs) + 1.2))
    image = None
    for i, cost in enumerate(costs):
        for j, pinning in enumerate(pinnings):
            ax = axes[i][j]
            cells = panels.get((cost, pinning), {})
            grid = np.full((len(batches), len(workers)), np.nan)
            for (batch, w), v in cells.items():
                grid[batches.index(batch), workers.index(w)] = v
            image = ax.imshow(np.ma.masked_invalid(grid), origin="lower", aspect="auto", cmap="viridis", norm=norm)
            if not cells:  # a pinning not run at this cost (the default preset's costed runs): said, not blank
                ax.text(0.5, 0.5, "not run", transform=ax.transAxes, ha="center", va="center", fontsize=9,
                        color="#777777", gid="empty_panel")
            for (batch, w), v in sorted(cells.items()):
                # Dark text on the bright end of viridis, light text on the dark end.
                ax.text(workers.index(w), batches.index(batch), short_number(v), ha="center", va="center",
                        fontsize="small", color="black" if norm(v) > 0.6 else "white")
            ax.set_xticks(range(len(workers)), [str(w) for w in workers])
            ax.set_yticks(range(len(batches)), [str(b) for b in batches])
            ax.set_title(f"{pinning.replace('_', ' ')}, {cost:g} µs/sample", fontsize=10)
            if i == len(costs) - 1:
                ax.set_xlabel("workers")
            if j == 0:
                ax.set_ylabel("batch")
    fig.suptitle(title, fontsize=11)
    fig.tight_layout(rect=(0, 0, 0.9, 1))
    cax = fig.add_axes((0.915, 0.15, 0.018, 0.7), label="<colorbar>")
    fig.colorbar(image, cax=cax, label=COUNTER)
    fig.hdbench = {"cells": panels}
    return fig


def is_grid(panels: dict[tuple, dict[tuple[int, int], float]]) -> bool:
    """Whether a heat map's cells span two batches or more and two worker counts or more: a
    heat map of one row (the H200 quick preset's batch 128 at 0 and 2 workers) only draws the
    line figure of samples/s against workers again, in colours that are harder to read."""
    cells = [cell for panel in panels.values() for cell in panel]
    return len({b for b, _ in cells}) >= 2 and len({w for _, w in cells}) >= 2


def heatmap_source(reports):
    """The first (path, report, …) with successful loader runs: the heat maps' source."""
    return next((r for r in reports if heatmap_cells(r[1]["benchmarks"])), None)


def notes(reports, names) -> list[str]:
    """What `plot` says beside the figures `names` drawn from `reports` ((path, report)):
    where several reports were given, which one the heat maps come from."""
    if len(reports) > 1 and any(name.startswith("loader_heatmap--") for name in names):
        return [f"loader heat maps drawn from the first report with loader runs only ({heatmap_source(reports)[0]})"]
    return []


def heatmaps(plt, reports, machine: str) -> dict:
    """{`loader_heatmap--…` name: Figure} from the first report with loader runs."""
    first = heatmap_source(reports)
    if first is None:
        return {}
    benchmarks = first[1]["benchmarks"]
    machine = machine_label(first[1], several_hosts(reports))
    by_name = heatmap_cells(benchmarks)
    params_of = {}  # heat map name → the params of its first run
    for b in expand(benchmarks):
        if _is_ok_loader_run(b):
            params_of.setdefault(heatmap_name(b["params"]), b["params"])
    out = {}
    for name in sorted(by_name):
        if not is_grid(by_name[name]):
            continue  # one batch (or one worker count): the line figure beside it says the same
        first = params_of[name]
        built = ", split batches" if build_of(first) == SPLIT else ""
        out[name] = draw_heatmaps(plt, by_name[name], f"Loader samples/s by batch × workers: {first['consumer']} "
                                                      f"consumer, prefetch depth {first['prefetch_depth']}{built}"
                                                      f"\n{machine}")
    return out


MAKERS = (heatmaps,)
