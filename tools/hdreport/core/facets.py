"""Small multiples: the engine behind `hdbench_report.py plot`'s line figures.

A `Spec` names which runs a figure draws (params `where`, x param, y counter) and how
they are laid out: one figure per value of `figure_by`, a grid of panels by `rows` x
`cols`, and within a panel one series per value of `series`. Keys that tell two
points at the same place apart but have no role (a second optimizer, two reports
measuring the same configuration) become series keys, so no line mixes runs. Keys
that do not vary within a figure are left out of the labels and named once, under
the title. A panel never holds more than `style.MAX_SERIES` series: the
`overflow` keys move to the figure level first, and what is still too many is split
into numbered parts.

Every figure carries `fig.hdbench` = {"points": [(benchmark, report, x, y)], ...},
so tests can check that what is drawn is what was measured.
"""

from __future__ import annotations

import hashlib
import math
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from hdreport.core import style
from hdreport.core.schema import ok_run

# Params that never make a series of their own.
# (`dataset_dir`: a path, said by `dataset_name` in words.)
IGNORED = {"family", "device", "run_name", "samples", "dataset", "dataset_dir", "m", "n", "k", "slots", "memory_kind"}
# A reference line's label sits just above it; where another line runs closer above than
# the label is tall (hdbench's GEMM peak and PyTorch's, 4% apart), it goes below instead.
REFERENCE_FONT_PT = 7.5
LABEL_ROOM_PT = 2 + 1.3 * REFERENCE_FONT_PT  # the offset and a line of text
# Groups of series (CPU and GPU steps) further apart than this on a log axis are drawn in
# figures of their own: a decade between them squeezes each group's lines into one.
SCALE_APART = 10.0
# A log y axis spans at least this factor, so a change of a few percent looks small.
MIN_LOG_SPAN = 3.0


@dataclass
class Spec:
    name: str
    title: str
    x: str
    y: str
    where: dict = field(default_factory=dict)
    derived: str | None = None  # draw the report's derived rows of this name instead of benchmarks
    figure_by: tuple = ()
    rows: str | None = None
    cols: str | None = None
    series: tuple = ()
    overflow: tuple = ()
    split_if_varying: tuple = ()  # also one figure per value of these, when they take several
    ylabel: str = ""
    linear_y: bool = False
    ylim: tuple | None = None
    # (where, keys): runs of another kind drawn in every panel whose `cols` value they share.
    companions: tuple = ()
    references: object = None  # (spec, panel params, reports) -> [(y, label)]
    row_keys: tuple = ()  # derived rows: the fields that place a row (the rest are its measurements)
    null_note: str = ""  # derived rows whose y is null are marked with this at the foot of their panel
    min_xs: int = 1  # draw a figure only where its points have at least this many x values
    when: object = None  # (points) -> bool: draw a figure only where its points say so (None: always)
    # The title where none of `companions` is drawn (none ran at the figure's x values): the
    # title must not promise lines the figure lacks; '' keeps `title`.
    title_alone: str = ""
    missing_companions: str = ""  # said under the title then (why none is drawn)


@dataclass
class Point:
    params: dict
    x: float
    y: float
    benchmark: str
    source: str


def one_line(y: float, text: str):
    """A `references` function drawing one fixed line."""
    return lambda spec, panel, reports: [(y, text)]


def _matches(params: dict, where: dict) -> bool:
    return all((params.get(k) in v) if isinstance(v, (set, frozenset)) else params.get(k) == v
               for k, v in where.items())


def points_of(spec: Spec, reports: list[tuple[str, dict, list[dict]]], where=None, keep_x=True) -> list[Point]:
    """The points `spec` draws from `reports` ((path, report, benchmarks to read))."""
    where = spec.where if where is None else where
    out = []
    for path, report, benchmarks in reports:
        source = Path(path).stem
        if spec.derived and where is spec.where:
            for row in report.get("derived", {}).get(spec.derived, []):
                y = row.get(spec.y)
                if y is None and spec.null_note and spec.x in row:
                    out.append(Point({**row, "source": source}, row[spec.x], None, f"derived.{spec.derived}", path))
                elif isinstance(y, (int, float)) and spec.x in row:
                    out.append(Point({**row, "source": source}, row[spec.x], y, f"derived.{spec.derived}", path))
            continue
        for b in benchmarks:
            if not ok_run(b):
                continue
            p = b.get("params", {})
            y = b.get("counters", {}).get(spec.y)
            if not _matches(p, where) or y is None or spec.x not in p:
                continue
            out.append(Point({**p, "source": source}, p[spec.x], y, b.get("name", "?"), path))
    return out


def _varying(points: list[Point], key: str) -> bool:
    return len({repr(p.params.get(key)) for p in points}) > 1


def _hidden_keys(spec: Spec, points: list[Point], roles: tuple) -> list[str]:
    """Keys that tell apart points sharing every role key and x: they must become series."""
    groups = defaultdict(list)
    for p in points:
        groups[(tuple(repr(p.params.get(k)) for k in roles), p.x)].append(p)
    keys = set(spec.row_keys) if spec.derived else {k for p in points for k in p.params}
    # whose run it is first: a key after it that follows from it (PyTorch's synthetic data set)
    # is left out of the labels, and the implementation must not be (an H100's loader lines of
    # hdbench and PyTorch, told apart only by a data set's folder, 2026-11-23)
    keys = sorted(keys - set(roles) - IGNORED - {spec.x, "source"}, key=lambda k: (k != "implementation", k))
    hidden = [k for k in keys if any(_varying(g, k) for g in groups.values() if len(g) > 1)]
    if any(len(g) > 1 and _varying(g, "source") for g in groups.values()):
        hidden.append("source")
    # Keys that follow another hidden key (threads with processor) are left out.
    return hidden


def layout(spec: Spec, points: list[Point]) -> dict[str, dict]:
    """{figure name: {"points", "series", "figure_values"}}: figure splits, with each
    panel holding at most MAX_SERIES series; those whose points `spec.when` turns down left out."""
    panel_keys = tuple(k for k in (spec.rows, spec.cols) if k)
    series = tuple(spec.series)
    series += tuple(k for k in _hidden_keys(spec, points, spec.figure_by + panel_keys + series)
                    if k not in series)
    figure_by = list(spec.figure_by) + [k for k in spec.split_if_varying if _varying(points, k)]
    series = tuple(k for k in series if k not in figure_by)
    figures = {}
    pending = [(tuple(figure_by), series, points)]
    while pending:
        fby, sers, pts = pending.pop(0)
        groups = defaultdict(list)
        for p in pts:
            groups[tuple(p.params.get(k) for k in fby)].append(p)
        for fvals, gpts in groups.items():
            live = _independent(gpts, tuple(k for k in sers if _varying(gpts, k)))
            apart = next((k for k in spec.overflow if k in live and _scales_apart(spec, gpts, panel_keys, k)),
                         None)
            if apart:
                pending.append((fby + (apart,), tuple(k for k in sers if k != apart), gpts))
                continue
            if _max_series(gpts, panel_keys, live, spec) <= style.MAX_SERIES:
                figures[_figure_name(spec.name, fby, fvals)] = {"points": gpts, "series": live,
                                                                "figure_values": dict(zip(fby, fvals))}
                continue
            movable = [k for k in spec.overflow if k in live]
            if movable:
                pending.append((fby + (movable[0],), tuple(k for k in sers if k != movable[0]), gpts))
                continue
            # Still too many: parts of at most MAX_SERIES series each.
            values = sorted({tuple(p.params.get(k) for k in live) for p in gpts}, key=style._order)
            for part in range(0, len(values), style.MAX_SERIES):
                chunk = set(values[part:part + style.MAX_SERIES])
                ppts = [p for p in gpts if tuple(p.params.get(k) for k in live) in chunk]
                name = _figure_name(spec.name, fby, fvals) + f"_part-{part // style.MAX_SERIES + 1}"
                figures[name] = {"points": ppts, "series": live, "figure_values": dict(zip(fby, fvals))}
    return {name: f for name, f in figures.items() if spec.when is None or spec.when(f["points"])}


def _scales_apart(spec: Spec, points: list[Point], panel_keys: tuple, key: str) -> bool:
    """Whether the values of `key` (the processor) measure more than SCALE_APART apart at
    every x they share in a panel: on one log axis the lower group's lines would merge
    (an H200's four GPU steps under the CPU's, 2026-11-27), so they get figures of their own."""
    if spec.linear_y:
        return False
    at = defaultdict(lambda: defaultdict(list))
    for p in points:
        if isinstance(p.y, (int, float)) and p.y > 0:
            at[(tuple(p.params.get(k) for k in panel_keys), p.x)][repr(p.params.get(key))].append(p.y)
    shared = [groups for groups in at.values() if len(groups) > 1]
    for groups in shared:
        spans = sorted((min(ys), max(ys)) for ys in groups.values())
        if any(upper[0] <= SCALE_APART * lower[1] for lower, upper in zip(spans, spans[1:])):
            return False
    return bool(shared)


LONE_STEP_IN = 0.32  # the space between two lone markers side by side, in inches


def _side_by_side(fig, ax, x, y, n: int, count: int, label: str, look: dict):
    """Series `n` of `count` at the figure's one x value: its marker moved sideways to a place
    of its own, its value written above it."""
    from matplotlib.transforms import ScaledTranslation

    shift = (n - (count - 1) / 2) * LONE_STEP_IN
    moved = ax.transData + ScaledTranslation(shift, 0, fig.dpi_scale_trans)
    line, = ax.plot([x], [y], label=label, gid="series", linewidth=1.8, markersize=7, transform=moved, **look)
    ax.update_datalim([(x, y)])  # a line drawn in moved coordinates does not widen the axes' limits itself
    ax.autoscale_view()
    ax.annotate(style.short_number(y), (x, y), xytext=(shift * 72, 6), textcoords="offset points", ha="center",
                va="bottom", fontsize=7.5, gid="value")
    return line


def _shared_params(points: list[Point]) -> dict:
    """The params every point has, with one value."""
    if not points:
        return {}
    first = points[0].params
    return {k: v for k, v in first.items() if all(repr(p.params.get(k)) == repr(v) for p in points)}


def _independent(points: list[Point], keys: tuple) -> tuple:
    """`keys` without those whose value follows from the keys before them (a CPU step's
    threads and host data follow from its processor): they would only lengthen labels."""
    kept = []
    for k in keys:
        seen = {}
        if kept and all(seen.setdefault(tuple(repr(p.params.get(c)) for c in kept), repr(p.params.get(k)))
                        == repr(p.params.get(k)) for p in points):
            continue
        kept.append(k)
    return tuple(kept)


def _max_series(points, panel_keys, series_keys, spec) -> int:
    panels = defaultdict(set)
    for p in (p for p in points if p.y is not None):
        panels[tuple(p.params.get(k) for k in panel_keys)].add(tuple(p.params.get(k) for k in series_keys))
    return max((len(s) for s in panels.values()), default=0) + _companion_series(spec)


def _companion_series(spec) -> int:
    """How many companion series a panel may draw: one per memory kind its companions name."""
    return sum(len(where["memory"]) if isinstance(where.get("memory"), (set, frozenset)) else 1
               for where in spec.companions)


def _figure_name(base: str, keys, values) -> str:
    """The figure's file name, from its family and the values it stands for: each value that
    holds more than letters, digits and ._+- (a "/" named a folder that is not there), or runs
    long (a name over the file system's 255 bytes), in those characters and cut short, with a
    hash of the value as given, so two values never share a file."""
    def safe(text: str) -> str:
        kept = re.sub(r"[^A-Za-z0-9._+-]", "_", text)[:40]
        return text if kept == text else f"{kept}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"

    parts = [f"{safe(str(k))}-{safe(str(v))}" for k, v in zip(keys, values) if v is not None]
    name = base + ("--" + "_".join(parts) if parts else "")
    # room left for "_part-N" and ".svg" within 255 bytes
    return name if len(name) <= 200 else f"{name[:190]}-{hashlib.sha1(name.encode()).hexdigest()[:8]}"


def draw(plt, spec: Spec, name: str, fig_layout: dict, reports, machine: str, companion_points=()):
    """One figure of small multiples."""
    pts = fig_layout["points"]
    series_keys = fig_layout["series"]
    rows = _values(pts, spec.rows)
    cols = _values(pts, spec.cols)
    styles = style.assign_styles(series_keys, [p.params for p in pts])
    comp_styles = {}
    for cp in companion_points:
        key = cp.params.get("memory")
        if key not in comp_styles:
            comp_styles[key] = {"color": style.mix(style.COLOURS["memory"].get(key, "#7f7f7f"), "#ffffff", 0.15),
                                "linestyle": "-", "marker": None}
    fig, axes = plt.subplots(len(rows), len(cols), figsize=(4.4 * len(cols) + 0.6, 3.3 * len(rows) + 1.6),
                             squeeze=False, sharex=True, sharey="row" if spec.cols else False)
    drawn, tops, labelled = [], [], []
    legend = {}
    # One x value in the whole figure (one batch size, say): each series is a lone marker, and
    # series that measured alike drew on one spot (an H100's eager and graph steps, 2026-11-28;
    # hollow markers of falling sizes on one spot still left the values to be guessed from a log
    # axis). Side by side, each with its value, they read as a labelled dot plot.
    lone = len({p.x for p in pts}) == 1
    shared = _shared_params(pts)  # what every point has: a reference line is drawn for it alone
    for i, row in enumerate(rows):
        for j, col in enumerate(cols):
            ax = axes[i][j]
            panel = {k: v for k, v in ((spec.rows, row), (spec.cols, col)) if k}
            ppts = [p for p in pts if all(p.params.get(k) == v for k, v in panel.items())]
            by_series = defaultdict(lambda: defaultdict(list))
            nulls = defaultdict(list)  # x: the series with no value there
            for p in ppts:
                if p.y is None:
                    label = style.label_of(series_keys, p.params)
                    if label not in nulls[p.x]:
                        nulls[p.x].append(label)
                    continue
                by_series[tuple(p.params.get(k) for k in series_keys)][p.x].append(p)
            for x, labels in nulls.items():
                # one note an x: two series' notes at one x printed over each other (an H100's
                # 4 KiB H2D, where neither pinning method pays off, 2026-11-22)
                named = "; ".join(sorted(t for t in labels if t))  # a label may hold a comma
                ax.annotate(f"{named}: {spec.null_note}" if named else spec.null_note, (x, 0.02),
                            xycoords=("data", "axes fraction"), rotation=90, fontsize=7.5, color="#555555",
                            ha="center", va="bottom", gid="null_note")
            # at a lone x, the companions measured there (a figure split by a param may not share their x)
            comps = [c for c in _companions_for(companion_points, spec, col) if not lone or pts[0].x in c[1]]
            for n, key in enumerate(sorted(by_series, key=style._order)):
                xs = sorted(by_series[key])
                ys = [statistics.median(q.y for q in by_series[key][x]) for x in xs]
                # a value whose words are none (a transfer's `per_copy`, read as the plain copy beside
                # another variant) by its name: the figure's title in the legend named no series. A lone
                # series by the title without its companions: the legend names them beside it.
                label = style.label_of(series_keys, dict(zip(series_keys, key))) or \
                    ", ".join(str(v).replace("_", " ") for v in key if v is not None) or spec.title_alone or spec.title
                if lone:
                    line = _side_by_side(fig, ax, xs[0], ys[0], n, len(by_series) + len(comps), label, styles[key])
                else:
                    line, = ax.plot(xs, ys, label=label, gid="series", linewidth=1.8, markersize=5, **styles[key])
                legend.setdefault(label, line)
                drawn += [(q.benchmark, q.source, x, q.y) for x in xs for q in by_series[key][x]]
            for n, (label, xy, memory) in enumerate(comps, start=len(by_series)):
                if lone:
                    # a line through one x draws nothing (an H200's quick staged copies, 2026-11-26):
                    # a pale marker beside the series' instead, with its value
                    x = pts[0].x
                    look = {**comp_styles[memory], "marker": "o", "alpha": 0.5}
                    line = _side_by_side(fig, ax, x, xy[x], n, len(by_series) + len(comps), label, look)
                else:
                    xs = sorted(xy)
                    line, = ax.plot(xs, [xy[x] for x in xs], label=label, gid="series", linewidth=3.5, alpha=0.35,
                                    **comp_styles[memory])
                legend.setdefault(label, line)
            if not ppts and not comps:
                # A grid cell nothing ran in (e.g. the SM engine of the all-GPU copies,
                # which use the copy engine only): say so instead of drawing empty axes.
                ax.axis("off")
                ax.text(0.5, 0.5, "no runs: " + ", ".join(style.value_text(k, v) for k, v in panel.items()),
                        transform=ax.transAxes, ha="center", va="center", fontsize=9, color="#777777",
                        gid="empty_panel")
                continue
            # a figure of one processor's steps, split or alone: that processor's GEMM peak only
            params = {**shared, **fig_layout["figure_values"], **panel}
            refs = spec.references(spec, params, reports) if spec.references else []
            for (y, text), grey in zip(refs, style.REFERENCE_GREYS):
                # dash-dot: a series of its own may be dark grey and dashed (a CUDA graph's step from
                # the device), which a dashed grey reference looked like
                ax.axhline(y, color=grey, linestyle="-.", linewidth=1.1, label=text, gid="reference")
            if refs:
                labelled.append((ax, refs))
            _scales(ax, spec, pts)  # the figure's points: its panels share one x axis
            if refs and not spec.ylim:
                tops.append((ax, max(y for y, _ in refs)))
            if panel:
                ax.set_title(", ".join(style.value_text(k, v) for k, v in panel.items()), fontsize=10)
            if i == len(rows) - 1:
                ax.set_xlabel(_xlabel(spec.x))
            if j == 0:
                ax.set_ylabel(spec.ylabel or spec.y.replace("_", " "))
            ax.grid(True, which="major", alpha=0.3)
    if not spec.linear_y and not spec.ylim:  # after every panel is drawn: shared axes know all their data by now
        for ax in (ax for row in axes for ax in row if ax.axison):
            _at_least_a_factor(ax, MIN_LOG_SPAN)
    for ax, top in tops:
        low, high = ax.get_ylim()
        ax.set_ylim(low, max(high, top * (1.6 if not spec.linear_y else 1.08)))
    constant = _constant_text(pts, series_keys, spec, fig_layout["figure_values"])
    subtitle = machine + (f" · {constant}" if constant else "")
    title = spec.title
    if spec.companions and not companion_points and spec.title_alone:
        title = spec.title_alone
        subtitle += f" · {spec.missing_companions}" if spec.missing_companions else ""
    fig.suptitle(f"{title}\n{subtitle}", fontsize=11)
    shown = legend if (series_keys or companion_points) else {}
    style.finish(fig, shown, min(len(shown), 3) or 1, 2)
    _label_references(labelled)  # once the y limits and the layout are final: where the lines fall on the page
    fig.hdbench = {"points": drawn, "spec": spec.name, "series_keys": series_keys}
    return fig


def _companions_for(points, spec, col):
    series = defaultdict(dict)
    for p in points:
        if spec.cols is None or p.params.get(spec.cols) == col:
            series[(style.value_text("memory", p.params.get("memory")) + " copy (transfer)",
                    p.params.get("memory"))][p.x] = p.y
    return [(label, xy, memory) for (label, memory), xy in sorted(series.items())]


def _values(points, key):
    if key is None:
        return [None]
    return sorted({p.params.get(key) for p in points}, key=style._order_one)


def _label_references(labelled: list) -> None:
    """Each panel's reference lines labelled where a label covers nothing. A line whose label has
    no free spot in a panel is left unlabelled there where another panel labels it (the same
    words at the same height): the loader's "no difference" at 1, printed over the 20 µs/sample
    panel's lines that lie on it (H100 2026-11-23b). Where no panel has room, the first panel
    labels it at its first spot."""
    crowded = []
    placed = set()
    for ax, refs in labelled:
        heights = [_points_up(ax, y) for y, _ in refs]
        for k, ((y, text), grey) in enumerate(zip(refs, style.REFERENCE_GREYS)):
            others = [other for m, (other, _) in enumerate(refs) if m != k]
            spots = _spots(_label_below(k, heights))
            if _label_reference(ax, y, text, grey, spots, others):
                placed.add((y, text))
            else:
                crowded.append((ax, y, text, grey, spots[0]))
    for ax, y, text, grey, spot in crowded:
        if (y, text) not in placed:
            _reference_label_at(ax, y, text, grey, *spot)
            placed.add((y, text))


def _spots(below: bool) -> list:
    """Where a reference label may go, in order: the line's left end above it (below where
    `below`), the other side, then the right end."""
    return [(x, low) for x in (0.01, 0.99) for low in (below, not below)]


def _label_reference(ax, y: float, text: str, grey: str, spots: list, others: list) -> bool:
    """The label of the reference line at height y at the first free spot of `spots`, and whether
    one was: free is inside the axes, over no series, text or other reference line (`others`,
    their heights). A label printed over the lines it is read against (an H200's batch copies
    on the floor they are divided by, 2026-11-26)."""
    renderer = ax.figure.canvas.get_renderer()
    taken = _taken(ax, renderer, others)
    for x, low in spots:
        label = _reference_label_at(ax, y, text, grey, x, low)
        box = label.get_window_extent(renderer)
        if ax.bbox.y0 <= box.y0 and box.y1 <= ax.bbox.y1 and not any(box.overlaps(t) for t in taken):
            return True
        label.remove()
    return False


def _reference_label_at(ax, y, text, grey, x, low):
    return ax.annotate(text, (x, y), xycoords=("axes fraction", "data"), xytext=(0, -2 if low else 2),
                       textcoords="offset points", fontsize=REFERENCE_FONT_PT, color=grey,
                       ha="left" if x < 0.5 else "right", va="top" if low else "bottom")


def _taken(ax, renderer, others: list) -> list:
    """Boxes (display units) a reference label must not cover: each series' line and markers,
    sampled along its segments; the texts in the axes (values, notes, labels placed before); the
    other reference lines at heights `others`."""
    from matplotlib.transforms import Bbox

    boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_visible() and t.get_text()]
    for line in (line for line in ax.get_lines() if line.get_gid() == "series"):
        marker = line.get_markersize() if line.get_marker() not in (None, "None", "") else 0
        r = max(marker, line.get_linewidth()) * ax.figure.dpi / 72 / 2
        xy = [q for q in line.get_transform().transform(line.get_xydata()) if math.isfinite(q[0] + q[1])]
        for (x0, y0), (x1, y1) in zip(xy, xy[1:] or xy):
            for f in (i / 20 for i in range(21)):
                x, y = x0 + f * (x1 - x0), y0 + f * (y1 - y0)
                boxes.append(Bbox.from_extents(x - r, y - r, x + r, y + r))
    for y in (ax.transData.transform((0, other))[1] for other in others):
        boxes.append(Bbox.from_extents(ax.bbox.x0, y - 1, ax.bbox.x1, y + 1))
    return boxes


def _points_up(ax, y: float) -> float:
    """How far up the figure the height y of ax's data lies, in points."""
    return float(ax.transData.transform((0, y))[1]) * 72 / ax.figure.dpi


def _label_below(k: int, heights: list) -> bool:
    """Whether reference k's label goes below its line: where another line lies above it
    closer than a label is tall (or at the same height, drawn first), so that the label
    set above this line would print over that one's."""
    h = heights[k]
    return any((0 < other - h < LABEL_ROOM_PT or (other == h and m < k)) for m, other in enumerate(heights) if m != k)


def _at_least_a_factor(ax, factor: float) -> None:
    """A log y axis whose view spans less than `factor` widened to it, about the data's geometric
    centre: autoscale drew an 8% change (a CPU step's 1.55 to 1.68 M samples/s) full height, where
    it read as a large one. Axes sharing y share the limits, so setting them once sets the row's."""
    low, high = ax.get_ylim()
    if not 0 < low < high or high / low >= factor:
        return
    centre, half = math.sqrt(low * high), math.sqrt(factor)
    ax.set_ylim(centre / half, centre * half)


def _scales(ax, spec, points):
    """Scales and ticks from `points`, all of the figure's: its panels share the x axis, so
    its ticks (and whether their labels are crowded) are the figure's, not one panel's."""
    xs = [p.x for p in points]
    if spec.x == "workers":
        ax.set_xscale("symlog", base=2, linthresh=1)
        style.count_axis(ax.xaxis, xs)
    else:
        ax.set_xscale("log", base=2)
        if spec.x in style.SIZE_KEYS:
            style.size_axis(ax.xaxis, xs)
        else:
            style.count_axis(ax.xaxis, xs)
    if len(set(xs)) == 1:
        x = xs[0]
        ax.set_xlim(x / 2, x * 2) if spec.x != "workers" else ax.set_xlim(-1, x + 1)
        ax.margins(y=0.15)  # room above the highest marker for its value
    if not spec.linear_y:
        ax.set_yscale("log")
        style.plain_log_axis(ax.yaxis)
    if spec.ylim:
        ax.set_ylim(*spec.ylim)
    if spec.x in style.SIZE_KEYS and style.crowded_log2_ticks(xs):
        for t in ax.get_xticklabels():  # slanted, each ending under its tick, they no longer print over each other
            t.set_rotation(45)
            t.set_horizontalalignment("right")
            t.set_rotation_mode("anchor")


def _xlabel(x: str) -> str:
    return {"bytes": "size", "workers": "loader workers", "batch": "batch size",
            "tensors": "tensors per batch (K)"}.get(x, x.replace("_", " "))


def _constant_text(points, series_keys, spec, figure_values) -> str:
    """The params every point of a figure shares, in words (what the labels leave out; `method`:
    pinning_break_even's one, cudaMallocHost, was in no label and no legend)."""
    shown = set(series_keys) | {spec.rows, spec.cols, spec.x} | IGNORED | {"source", "variant"}
    keys = [k for k in ("model", "optimizer", "consumer", "processor", "implementation", "dtype", "mode", "data",
                        "threads", "batch", "prefetch_depth", "sample_cost_us", "pinning", "build", "workers",
                        "memory", "engine", "slots", "method", "device_count")
            if k not in shown]
    shared = _shared_params(points)
    parts = []
    for k in keys:
        # hdbench's own runs go unsaid; PyTorch's alone (a baseline's report) read as hdbench's
        if shared.get(k) is not None and (k, shared[k]) != ("implementation", "hdbench"):
            text = style.value_text(k, shared[k]) if k != "model" else f"model {shared[k]}"
            text = {"pinning": "pinning: {}", "build": "{} build"}.get(k, "{}").format(text)  # alone, said what
            if text not in parts:  # latency's method and engine both read "copy engine"
                parts.append(text)
    return ", ".join(parts)
