"""Bar figures: where the x axis is a category (hdbench vs PyTorch, GPU vs CPU, sync vs
pipelined streams). The families' figure modules say what each bar is.

Each figure carries `fig.hdbench["bars"]` = [(panel, group, series, value,
[benchmarks])] for the tests.
"""

from __future__ import annotations

from hdreport.core import style

Panel = dict  # {group: {series: (value, text, [benchmarks])}}


def draw(plt, title: str, machine: str, panels: dict, series_order: list, colours: dict, ylabel: str,
         note: str = ""):
    """panels: {(row label, col label): Panel}; one bar per series in each group. The axis is
    linear: a bar's length is its value (on a log axis a bar 50 times shorter looked 3 times
    shorter, 2026-11-23's GPU against CPU steps)."""
    from matplotlib.ticker import FuncFormatter  # matplotlib is loaded only where a figure is drawn

    rows = sorted({r for r, _ in panels}, key=style.natural)
    cols = sorted({c for _, c in panels}, key=style.natural)
    fig, axes = plt.subplots(len(rows), len(cols), figsize=(max(3.6 * len(cols), 5.5) + 0.6, 3.4 * len(rows) + 1.6),
                             squeeze=False)
    bars, handles = [], {}
    for i, row in enumerate(rows):
        labelled = False  # the row's first drawn panel carries the y label
        for j, col in enumerate(cols):
            ax = axes[i][j]
            if (row, col) not in panels:  # a grid cell no report ran (two runs of other sizes): no empty axes
                ax.axis("off")
                ax.text(0.5, 0.5, f"{' · '.join(str(t) for t in (row, col) if t)}\nnot measured", ha="center",
                        va="center", fontsize=9, color="#7f7f7f", transform=ax.transAxes)
                continue
            panel = panels[(row, col)]
            groups = sorted(panel, key=style.natural)
            present = [s for s in series_order if any(s in panel[g] for g in groups)]
            width = 0.8 / max(len(present), 1)
            for k, s in enumerate(present):
                xs = [g_i + (k - (len(present) - 1) / 2) * width for g_i, g in enumerate(groups) if s in panel[g]]
                vals = [panel[g][s][0] for g in groups if s in panel[g]]
                container = ax.bar(xs, vals, width * 0.92, color=colours[s], label=str(s), gid="bar")
                handles.setdefault(str(s), container)
                for x, g in zip(xs, [g for g in groups if s in panel[g]]):
                    value, text, names = panel[g][s]
                    bars.append(((row, col), g, s, value, names))
                    if text:
                        ax.annotate(text, (x, value), xytext=(0, 2), textcoords="offset points", ha="center",
                                    va="bottom", fontsize=7.5, fontweight="bold", gid="ratio",
                                    rotation=90 if len(present) * len(groups) > 6 else 0)
            ax.set_xticks(range(len(groups)), [str(g) for g in groups])
            ax.margins(y=0.18)
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: style.short_number(v)))  # 140k, not 140000
            ax.set_title(" · ".join(str(t) for t in (row, col) if t), fontsize=10)
            if not labelled:
                ax.set_ylabel(ylabel)
                labelled = True
            ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle(f"{title}\n{machine}" + (f"\n{note}" if note else ""), fontsize=11)
    style.finish(fig, handles, min(len(handles), 4), 3 if note else 2)
    fig.hdbench = {"bars": bars}
    return fig
