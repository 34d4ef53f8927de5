"""Every figure of `plot` and the page, built family by family (registry.py), then
section by section (a report's `profile`: registry.py, SECTIONS).

Each family's figures module gives its line figures (`SPECS`, drawn by core/facets.py),
its other figures (`MAKERS`: bars, heat maps) and `expand`, the runs as its figures
read them (e.g. a 0-worker loader run counted at every prefetch depth); it may give
`notes`, the lines `plot` says beside the figures (the loader's: which report its heat
maps come from), so the command line knows no family. Figures read only `params`,
counters and `derived` rows, never names; skipped and failed runs are left out and listed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from hdreport.core import facets
from hdreport.core.markdown import machines
from hdreport.core.schema import ReportError
from hdreport.registry import FAMILIES, SECTIONS

FIGURE_MODULES = [figures for figures, _ in FAMILIES + SECTIONS]
SPECS = [spec for family in FIGURE_MODULES for spec in family.SPECS]


def line_figures(plt, reports, machine: str) -> dict:
    """{figure name: Figure} for every spec with data in `reports` ((path, report, benchmarks))."""
    figures = {}
    for spec in SPECS:
        points = facets.points_of(spec, reports)
        if len({p.x for p in points}) < max(spec.min_xs, 1):
            continue
        xs = {p.x for p in points}
        companions = [p for where in spec.companions for p in facets.points_of(spec, reports, where=where)
                      if p.x in xs]
        for name, fig_layout in sorted(facets.layout(spec, points).items()):
            if len({p.x for p in fig_layout["points"]}) < spec.min_xs:
                continue  # one point a line: a table says it better (the summary's)
            figures[name] = facets.draw(plt, spec, name, fig_layout, reports, machine,
                                        companion_points=companions)
    return figures


# Runs drawn other than as a line of SPECS (a figures module's ALSO_DRAWN: bars, reference lines).
ALSO_DRAWN = [where for family in FIGURE_MODULES for where in getattr(family, "ALSO_DRAWN", ())]


def drawable(params: dict) -> bool:
    """Whether a run with these params is drawn on some line figure (when it succeeds); a
    GEMM is drawn as the TFLOP/s figure's reference line."""
    if params.get("family") == "mlp" and params.get("variant") == "gemm":
        return True
    return any(not spec.derived and facets._matches(params, spec.where) for spec in SPECS) or \
        any(facets._matches(params, where) for where in ALSO_DRAWN)


def left_out_runs(reports: list[tuple[str, dict]]) -> list[str]:
    """`name: status (reason)` of every run a figure would draw had it succeeded."""
    out = []
    for path, report in reports:
        for b in report["benchmarks"]:
            if b.get("run_type", "iteration") != "iteration" or b.get("status") == "ok":
                continue
            if drawable(b.get("params", {})):
                reason = b.get("skip_reason") or b.get("error_message", "")
                out.append(f"{b.get('name')}: {b.get('status')} ({reason})")
    return out


def notes(reports: list[tuple[str, dict]], names) -> list[str]:
    """The lines `plot` says beside the figures `names` it drew from `reports`: each figures
    module's `notes` (the loader's: which report its heat maps come from)."""
    return [line for family in FIGURE_MODULES if hasattr(family, "notes") for line in family.notes(reports, names)]


def build_figures(reports: list[tuple[str, dict]]):
    """{figure name: matplotlib Figure} and the left-out runs. No data, no figure."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["figure.max_open_warning"] = 0
    import matplotlib.pyplot as plt

    expanded = []
    for path, report in reports:
        benchmarks = report["benchmarks"]
        for family in FIGURE_MODULES:
            benchmarks = family.expand(benchmarks)
        expanded.append((path, report, benchmarks))
    machine = machines(reports)
    figures = line_figures(plt, expanded, machine)
    for family in FIGURE_MODULES:
        for make in family.MAKERS:
            figures.update(make(plt, expanded, machine))
    return dict(sorted(figures.items())), left_out_runs(reports)


def write(figures: dict, out_dir: str) -> list[Path]:
    """Each figure as PNG and SVG under `out_dir`, all closed at the end; the paths written. All
    are drawn into a folder beside it first and moved in only when every one was: a figure that
    fails leaves `out_dir` as it was, not half of a new set among an old one."""
    import matplotlib
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    written = []
    staging = None
    try:
        out.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=out.resolve().parent, prefix=f".{out.resolve().name}.drawing-"))
        for name, fig in figures.items():
            # The same reports give the same files (no date, element ids salted by the
            # figure's name), so committed figures change only when their data does.
            matplotlib.rcParams["svg.hashsalt"] = name
            for ext in ("png", "svg"):
                fig.savefig(staging / f"{name}.{ext}", bbox_inches="tight", dpi=110,
                            metadata={"Date": None} if ext == "svg" else None)
                written.append(out / f"{name}.{ext}")
        for path in written:
            os.replace(staging / path.name, path)
    except OSError as e:
        raise ReportError(f"{e.filename or out_dir}: cannot write: {e.strerror or e}") from None
    finally:
        for fig in figures.values():
            plt.close(fig)
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    return written
