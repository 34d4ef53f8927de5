"""What the report tools' tests read off a drawn figure: series per panel, their
colours, reference lines, bars; and the rules every figure keeps."""

from __future__ import annotations

import math
import re

from matplotlib.colors import to_hex

MAX_SERIES = 6
SIZE_TICK = re.compile(r"^\d+(\.\d+)? (B|KiB|MiB|GiB)$")


def panels(fig) -> dict:
    """{panel title: axes} of a figure's panels (colour bars left out)."""
    return {ax.get_title(): ax for ax in fig.axes if ax.get_label() != "<colorbar>" and ax.get_title() != ""} or \
        {"": fig.axes[0]}


def series(ax) -> dict:
    """{label: [(x, y)]} of the data lines of one axes."""
    return {line.get_label(): list(zip(line.get_xdata(), line.get_ydata()))
            for line in ax.get_lines() if line.get_gid() == "series"}


def references(ax) -> dict:
    """{label: y} of an axes' horizontal reference lines."""
    return {line.get_label(): line.get_ydata()[0] for line in ax.get_lines() if line.get_gid() == "reference"}


def bars(ax) -> dict:
    """{series label: colour} of an axes' bar series."""
    return {c.get_label(): to_hex(c.patches[0].get_facecolor()) for c in ax.containers if c.patches}


def colours(ax) -> list[str]:
    """The colour of every series and reference line of an axes (a bar series counts once)."""
    lines = [to_hex(line.get_color()) for line in ax.get_lines() if line.get_gid() in ("series", "reference")]
    return lines + list(bars(ax).values())


def check_figure(name: str, fig) -> None:
    """The rules of every figure: at most MAX_SERIES series an axes, no colour twice in an
    axes (none only where a note says why), sizes ticked in KiB/MiB/GiB, no tick label
    printed over its neighbour, no text cut by the figure's edge."""
    fig.canvas.draw()
    cut = texts_off_the_figure(fig)
    assert not cut, f"{name}: text cut by the figure's edge: {cut}"
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>" or ax.images:
            continue
        n = len([line for line in ax.get_lines() if line.get_gid() == "series"]) + len(bars(ax))
        notes = [t for t in ax.texts if t.get_gid() in ("null_note", "empty_panel")]
        assert n <= MAX_SERIES and (n > 0 or notes), f"{name} / {ax.get_title()}: {n} series"
        used = colours(ax)
        assert len(used) == len(set(used)), f"{name} / {ax.get_title()}: a colour is used twice: {used}"
        if ax.get_xlabel() == "size":
            labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
            assert labels and all(SIZE_TICK.match(t) for t in labels), f"{name}: {labels}"
        if ax.axison:
            clash = crowded_tick_labels(fig, ax)
            assert not clash, f"{name} / {ax.get_title()}: tick labels {clash} print over each other"


def texts_off_the_figure(fig) -> list:
    """The axes' texts (bar labels, notes) that reach past the figure's left or right edge:
    a label such as "3.06 GB/s, 24% of 12.5 GB/s" printed beside a bar near the panel's end
    came out cut at "12.5 GB/s"."""
    renderer = fig.canvas.get_renderer()
    width = fig.bbox.width
    out = []
    for ax in fig.axes:
        for t in ax.texts:
            if not t.get_visible() or not t.get_text():
                continue
            box = t.get_window_extent(renderer)
            if box.x0 < -1 or box.x1 > width + 1:
                out.append(t.get_text())
    return out


def crowded_tick_labels(fig, ax) -> list:
    """Neighbouring x tick labels that print over each other (64 MiB and 256 MiB did): level
    ones whose boxes meet; slanted ones whose baselines lie closer, across the slant, than
    the text is high (their upright boxes may meet where the letters do not)."""
    renderer = fig.canvas.get_renderer()
    labels = [t for t in ax.get_xticklabels() if t.get_text() and t.get_visible()]
    clash = []
    for a, b in zip(labels, labels[1:]):
        slant = math.radians(a.get_rotation() % 180)
        if slant == 0:
            meet = a.get_window_extent(renderer).overlaps(b.get_window_extent(renderer))
        else:
            xa = ax.transData.transform((a.get_position()[0], 1))[0]
            xb = ax.transData.transform((b.get_position()[0], 1))[0]
            meet = abs(xb - xa) * math.sin(slant) < a.get_fontsize() * fig.dpi / 72
        if meet:
            clash.append((a.get_text(), b.get_text()))
    return clash


def close(fig) -> None:
    import matplotlib.pyplot as plt

    plt.close(fig)
