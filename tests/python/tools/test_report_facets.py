"""The small multiples' layout rules (hdreport/core/facets.py) on reports made up for the tests
(not measured): how far a log axis spans, which figures are drawn at all, what a figure of
one x value shows, and where a reference line's label goes."""

from __future__ import annotations

import math

import pytest

import hdbench_report
from hdreport.core import facets, style
from report_figure_checks import check_figure, close, panels, series


def report(*runs) -> dict:
    """No GPU in its system: no link rate, so no reference line."""
    return {"context": {"host_name": "box", "hdbench": {"started_at": "2026-11-20T00:00:00", "system": {"gpus": []}}},
            "benchmarks": list(runs)}


def run(family: str, gbps: float, **params) -> dict:
    return {"name": f"{family}/{gbps}/{sorted(params.items())}", "run_type": "iteration", "status": "ok",
            "params": {"family": family, **params}, "counters": {"bandwidth_GB/s": gbps}}


def copy(direction: str, memory: str, size: int, gbps: float) -> dict:
    return run("transfer", gbps, direction=direction, memory=memory, engine="copy", variant="per_copy", bytes=size)


def figures_of(*runs) -> dict:
    figures, _ = hdbench_report.build_figures([("r.json", report(*runs))])
    return figures


def close_all(figures: dict) -> None:
    for fig in figures.values():
        close(fig)


def draw(spec: facets.Spec, runs: list[dict]):
    """The one figure of `spec` drawn from `runs`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = facets.points_of(spec, [("r.json", report(), runs)])
    return facets.draw(plt, spec, spec.name, facets.layout(spec, points)[spec.name], [], "box")


def labelled_y_ticks(ax) -> list[str]:
    ax.figure.canvas.draw()
    low, high = ax.get_ylim()
    return [t.get_text() for t in ax.get_yticklabels() if t.get_text() and low <= t.get_position()[1] <= high]


def test_a_few_percent_on_a_log_axis_spans_a_factor_of_three_about_the_data():
    """A CPU step's 1.55 to 1.68 M samples/s (8%) was drawn full height and read as a large change."""
    figures = figures_of(run("host_memcpy", 1.55, threads=1, bytes=4096),
                         run("host_memcpy", 1.68, threads=1, bytes=1 << 20))
    try:
        ax = figures["host_memcpy"].axes[0]
        low, high = ax.get_ylim()
        assert high / low == pytest.approx(3.0)
        assert math.sqrt(low * high) == pytest.approx(math.sqrt(1.55 * 1.68))  # the data in the middle
        assert len(labelled_y_ticks(ax)) >= 3, labelled_y_ticks(ax)
        check_figure("host_memcpy", figures["host_memcpy"])
    finally:
        close_all(figures)


def test_a_log_axis_spanning_more_is_left_as_autoscale_draws_it():
    figures = figures_of(run("host_memcpy", 1.0, threads=1, bytes=4096),
                         run("host_memcpy", 100.0, threads=1, bytes=1 << 20))
    try:
        # matplotlib's own margins: 5% of the two decades either side
        assert figures["host_memcpy"].axes[0].get_ylim() == pytest.approx((10 ** -0.1, 10 ** 2.1))
    finally:
        close_all(figures)


def test_panels_sharing_a_y_axis_are_widened_alike_about_all_their_data():
    figures = figures_of(copy("h2d", "pinned", 4096, 50.0), copy("h2d", "pinned", 1 << 20, 52.0),
                         copy("d2h", "pinned", 4096, 40.0), copy("d2h", "pinned", 1 << 20, 41.0))
    try:
        grid = panels(figures["transfer"])
        h2d, d2h = grid["copy engine, host → device"], grid["copy engine, device → host"]
        assert h2d.get_ylim() == d2h.get_ylim()
        low, high = h2d.get_ylim()
        assert high / low == pytest.approx(3.0) and low < 40.0 and 52.0 < high
    finally:
        close_all(figures)


def test_a_figure_with_its_own_y_limits_keeps_them():
    spec = facets.Spec("t", "T", "bytes", "bandwidth_GB/s", where={"family": "host_memcpy"}, ylim=(1.0, 2.0))
    fig = draw(spec, [run("host_memcpy", 1.5, bytes=4096), run("host_memcpy", 1.6, bytes=8192)])
    try:
        assert fig.axes[0].get_ylim() == (1.0, 2.0)
    finally:
        close(fig)


def all_gpus(direction: str, device_count: int, gbps: float) -> dict:
    return run("transfer", gbps, direction=direction, memory="pinned", engine="copy", variant="concurrent",
               bytes=1 << 28, device_count=device_count, devices=list(range(device_count)), numa="near")


def test_every_gpu_copying_at_once_is_drawn_only_where_two_or_more_did():
    """With one GPU the all-GPU copy is the pinned copy of the `transfer` figure again: an H200's
    figure of its own held one point a panel (2026-11-26)."""
    one = figures_of(copy("h2d", "pinned", 1 << 28, 55.0), all_gpus("host_to_all", 1, 55.0),
                     all_gpus("all_to_host", 1, 55.0))
    two = figures_of(all_gpus("host_to_all", 2, 110.0), all_gpus("all_to_host", 2, 108.0))
    try:
        assert "transfer" in one and "transfer_all_gpus" not in one
        assert list(series(panels(two["transfer_all_gpus"])["host → every GPU"]).values()) == [[(1 << 28, 110.0)]]
    finally:
        close_all(one)
        close_all(two)


def test_companions_at_a_lone_x_are_markers_with_their_values_beside_the_series():
    """The quick preset's staged copies (one size): the pinned and pageable copies beside them were
    lines through one x, which draw nothing, though the legend named them."""
    staged = run("staged", 11.3, direction="h2d", memory="pageable", engine="copy", threads=1,
                 chunk_bytes=1 << 20, slots=2, bytes=1 << 20)
    figures = figures_of(staged, copy("h2d", "pinned", 1 << 20, 42.7), copy("h2d", "pageable", 1 << 20, 13.0))
    try:
        ax = figures["staged"].axes[0]
        lines = [line for line in ax.get_lines() if line.get_gid() == "series"]
        assert len(lines) == 3 and all(line.get_marker() not in (None, "None", "") for line in lines)  # each seen
        values = sorted(t.get_text() for t in ax.texts if t.get_gid() == "value")
        assert values == ["11.3", "13", "42.7"]
        places = {tuple(line.get_transform().transform((line.get_xdata()[0], 1.0))) for line in lines}
        assert len(places) == 3  # side by side, not on one spot
        # the series by the title without its companions: the legend names them beside it
        assert {line.get_label() for line in lines} == {"Pageable memory through a pinned staging ring",
                                                        "pinned copy (transfer)", "pageable copy (transfer)"}
        # the ring in a colour of its own, not pinned memory's blue nor pageable memory's red
        from matplotlib.colors import to_hex

        colours = {line.get_label(): to_hex(line.get_color()) for line in lines}
        ring = colours.pop("Pageable memory through a pinned staging ring")
        assert ring not in {style.COLOURS["memory"]["pinned"], style.COLOURS["memory"]["pageable"]}
        check_figure("staged", figures["staged"])
    finally:
        close_all(figures)


def covered(ax, box) -> list[str]:
    """The series whose line or markers lie under `box` (display units)."""
    out = []
    for line in (line for line in ax.get_lines() if line.get_gid() == "series"):
        xy = line.get_transform().transform(line.get_xydata())
        samples = [a + f / 20 * (b - a) for a, b in zip(xy, xy[1:]) for f in range(21)] + list(xy)
        if any(box.x0 <= x <= box.x1 and box.y0 <= y <= box.y1 for x, y in samples):
            out.append(line.get_label())
    return out


def test_a_reference_label_goes_where_it_covers_no_series():
    """An H200's batch copies over the packed copy's floor: the floor's label, at the left end
    above its line, printed over the lines read against it (2026-11-26)."""
    spec = facets.Spec("t", "T", "bytes", "bandwidth_GB/s", where={"family": "host_memcpy"}, series=("threads",),
                       references=facets.one_line(10.0, "a reference line, labelled at some length"))
    runs = [run("host_memcpy", 10.4, threads=1, bytes=1 << 10), run("host_memcpy", 10.6, threads=1, bytes=1 << 14),
            run("host_memcpy", 100.0, threads=1, bytes=1 << 20), run("host_memcpy", 200.0, threads=2, bytes=1 << 20),
            run("host_memcpy", 20.0, threads=2, bytes=1 << 10)]
    fig = draw(spec, runs)
    try:
        ax = fig.axes[0]
        fig.canvas.draw()
        (label,) = [t for t in ax.texts if t.get_text().startswith("a reference line")]
        box = label.get_window_extent(fig.canvas.get_renderer())
        assert not covered(ax, box), covered(ax, box)
        assert ax.bbox.y0 <= box.y0 and box.y1 <= ax.bbox.y1  # inside its panel
    finally:
        close(fig)


def test_a_reference_label_with_no_room_in_one_panel_is_said_in_the_panel_that_has_room():
    """The loader's "no difference" at 1: printed over the 20 µs/sample panel's lines, which lie
    on it from end to end (H100 2026-11-23b). The panel beside it has room, and shares the line."""
    spec = facets.Spec("t", "T", "bytes", "bandwidth_GB/s", where={"family": "host_memcpy"}, series=("threads",),
                       cols="work", linear_y=True, references=facets.one_line(1.0, "no difference"))
    sizes = [1 << k for k in range(10, 21)]
    runs = [run("host_memcpy", 1.0, threads=t, work="on the line", bytes=b) for t in (1, 2) for b in sizes]
    runs += [run("host_memcpy", 2.0 + t + b / (1 << 20), threads=t, work="above it", bytes=b) for t in (1, 2)
             for b in sizes]
    fig = draw(spec, runs)
    try:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        labels = {ax.get_title(): [t for t in ax.texts if t.get_text() == "no difference"] for ax in fig.axes
                  if ax.get_title()}
        assert not labels["on the line"] and len(labels["above it"]) == 1, labels
        (ax,) = [ax for ax in fig.axes if ax.get_title() == "above it"]
        box = labels["above it"][0].get_window_extent(renderer)
        assert not covered(ax, box), covered(ax, box)
    finally:
        close(fig)


def test_a_reference_label_with_no_room_anywhere_is_still_said_once():
    """Where every panel's lines lie on the reference, it is labelled once, not left unnamed."""
    spec = facets.Spec("t", "T", "bytes", "bandwidth_GB/s", where={"family": "host_memcpy"}, series=("threads",),
                       cols="work", linear_y=True, references=facets.one_line(1.0, "no difference"))
    runs = [run("host_memcpy", 1.0, threads=t, work=w, bytes=1 << k) for t in (1, 2) for w in ("a", "b")
            for k in range(10, 21)]
    fig = draw(spec, runs)
    try:
        fig.canvas.draw()
        assert sum(t.get_text() == "no difference" for ax in fig.axes for t in ax.texts) == 1
    finally:
        close(fig)


@pytest.mark.parametrize("low, high", [(1.5, 2.1), (1.02, 1.1), (3.1, 3.4), (0.31, 0.33), (7.0, 9.0)])
def test_a_log_axis_widened_to_a_factor_of_three_reads_at_three_labels_at_least(low, high):
    """An H200's device copies, 1.5k to 2.1k GB/s: the widened axis was labelled 2k and 3k only."""
    figures = figures_of(run("host_memcpy", low * 1000, threads=1, bytes=4096),
                         run("host_memcpy", high * 1000, threads=1, bytes=1 << 20))
    try:
        ticks = labelled_y_ticks(figures["host_memcpy"].axes[0])
        assert len(ticks) >= 3, ticks
    finally:
        close_all(figures)
