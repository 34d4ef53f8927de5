"""The figure of a report's `profile` section (hdbench_profile: another program's CUDA
work, judged against this machine's hdbench report), and the words the profile's summary
shares with it.

`profile_copy_classes`: where the program's copy time went, per class of copy (direction,
memory at each end, blocking, size bucket): the six classes that took the most time and the
rest summed as "other". Left, the time each took; right, the rate it achieved beside the
machine's ceiling for that kind of copy (from the baseline report; a class without one says
why). A bar's colour is the memory at its host end (style.COLOURS["memory"]), so pageable
copies read red in it as in every hdbench figure. With several profiled reports each gets
its own figure, `profile_copy_classes--<n>-<file>`.

The section is not a family of benchmarks: no SPECS, nothing to expand (hdreport/registry.py,
SECTIONS).
"""

from __future__ import annotations

import math
import re
import shlex
from pathlib import Path

from hdreport.core import style
from hdreport.core.markdown import machine_name
from hdreport.core.units import gbps_text
from hdreport.profile.analysis import published_classes

NAME = "profile_copy_classes"
TOP = 6  # classes drawn one by one; the rest are one "other" bar
SPECS = ()
DIRECTIONS = {"h2d": "H2D", "d2h": "D2H", "d2d": "D2D", "h2h": "H2H", "p2p": "P2P"}
MEMORY_COLOURS = {**style.COLOURS["memory"], "array": "#7f7f7f", "unknown": "#c7c7c7"}
OTHER_COLOUR = "#bdbdbd"
CEILING_COLOUR = "#2f2f2f"


def expand(benchmarks: list[dict]) -> list[dict]:
    return benchmarks


def profiled(reports) -> list:
    """The (path, report, …) entries that carry a profile section."""
    return [r for r in reports if isinstance(r[1].get("profile"), dict)]


def command_text(profile: dict, limit: int | None = None) -> str:
    """The profiled command as a shell would read it, fit for Markdown code (no backticks, one
    line); with `limit`, where it is longer, its paths cut to their file names (a title names
    `python3 train.py --steps 1000`, not `python3 /tmp/bundle/examples/fashion_mnist/tra…`)
    and then the whole cut to `limit` characters."""
    def shown(args: list) -> str:
        return " ".join(shlex.join(args).replace("`", "'").split()) or "(no command)"

    command = [str(a) for a in profile.get("command", [])]
    text = shown(command)
    if limit is None or len(text) <= limit:
        return text
    text = shown([a.rstrip("/").rsplit("/", 1)[-1] if "/" in a.rstrip("/") and not a.startswith("-") else a
                  for a in command])
    return text if len(text) <= limit else text[:limit - 1] + "…"


def machine_of(report: dict) -> str:
    """The machine the program ran on: the report's own (context), else the baseline's, else
    the GPUs its processes named."""
    context = report.get("context", {})
    system = context.get("hdbench", {}).get("system", {})
    if system.get("gpus") or system.get("host", {}).get("cpu_model"):
        return machine_name(context)
    profile = report.get("profile", {})
    if profile.get("baseline", {}).get("machine"):
        return profile["baseline"]["machine"]
    gpus = sorted({g for p in profile.get("processes", []) for g in p.get("gpus", [])})
    return ", ".join(gpus) or "an unknown machine"


def host_kind(c: dict) -> str:
    """The memory at a copy's host end (device memory for copies between devices)."""
    if c["direction"] == "d2h":
        return c["dst"]
    if c["direction"] in ("d2d", "p2p"):
        return "device"
    return c["src"]


def bucket_text(bucket: str) -> str:
    return bucket.replace("<=", "≤ ").replace(">", "> ").replace("  ", " ")


def class_text(c: dict) -> str:
    """`H2D pageable → device`: a class's direction and its two ends."""
    return f"{DIRECTIONS.get(c['direction'], c['direction'])} {c['src']} → {c['dst']}"


def figure_names(reports) -> dict[str, str]:
    """{report path: its figure's name} for the profiled reports with copy classes."""
    drawn = [r for r in profiled(reports) if r[1]["profile"].get("recorded") and r[1]["profile"].get("copy_classes")]
    if len(drawn) == 1:
        return {drawn[0][0]: NAME}
    return {r[0]: f"{NAME}--{i}-{re.sub(r'[^A-Za-z0-9_.-]', '-', Path(r[0]).stem)[:40]}"
            for i, r in enumerate(drawn, 1)}


def bars_of(classes: list[dict]) -> list[dict]:
    """The classes drawn: the TOP that took the most time, then the rest as one "other" bar
    (its rate the bytes over the time; no ceiling)."""
    ranked = sorted(classes, key=lambda c: -c["time_s"])
    out = [{"label": f"{class_text(c)}\n{'blocking' if c['blocking'] else 'async'} · {bucket_text(c['size_bucket'])}",
            "time_s": c["time_s"], "rate": c["achieved_GB/s"], "ceiling": c["ceiling_GB/s"],
            "fraction": c["fraction_of_ceiling"], "colour": MEMORY_COLOURS.get(host_kind(c), OTHER_COLOUR),
            "kind": host_kind(c), "class": c} for c in ranked[:TOP]]
    rest = ranked[TOP:]
    if rest:
        time_s, nbytes = sum(c["time_s"] for c in rest), sum(c["bytes"] for c in rest)
        out.append({"label": f"other ({len(rest)} classes)", "time_s": time_s,
                    "rate": nbytes / time_s / 1e9 if time_s > 0 else 0.0, "ceiling": None, "fraction": None,
                    "colour": OTHER_COLOUR, "kind": "other", "class": None})
    return out


def _finite(v: float) -> float:
    """A value matplotlib can place (a report's 1e308 would overflow the axis margins)."""
    return max(min(v, 1e200), -1e200) if math.isfinite(v) else 0.0


def _time_text(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:,.0f} ms" if abs(ms) >= 10 else f"{ms:.2g} ms"


def _share_text(part: float, whole: float) -> str:
    if whole <= 0:
        return ""
    percent = 100 * part / whole
    return f" ({percent:.0f}%)" if percent >= 1 or percent <= 0 else " (<1%)"


def percent_text(fraction: float) -> str:
    """A fraction as a whole percentage, `<1%` for a small one that is not 0."""
    return "<1%" if 0 < fraction < 0.005 else f"{100 * fraction:.0f}%"


def draw(plt, report: dict, name: str):
    """Time per class (left), rate against the ceiling on a log axis (right: copies of 4 KiB
    and of 256 MiB differ by decades, and a bar's distance to its ceiling reads as a ratio)."""
    from matplotlib.patches import Patch

    profile = report["profile"]
    rows = bars_of(published_classes(profile))
    n = len(rows)
    fig, (left, right) = plt.subplots(1, 2, sharey=True, figsize=(11.5, 0.62 * n + 2.9))
    ys = list(range(n))
    total = sum(r["time_s"] for r in rows)
    colours = [r["colour"] for r in rows]
    left.barh(ys, [_finite(r["time_s"] * 1e3) for r in rows], 0.7, color=colours, label="copy time", gid="bar")
    for y, r in zip(ys, rows):
        left.annotate(_time_text(r["time_s"]) + _share_text(r["time_s"], total), (_finite(r["time_s"] * 1e3), y),
                      xytext=(3, 0), textcoords="offset points", va="center", fontsize=8)
    left.set_yticks(ys, [r["label"] for r in rows], fontsize=8.5)
    left.invert_yaxis()
    left.set_xlabel("copy time (ms)")
    left.set_title("Time spent copying", fontsize=10)
    left.margins(x=0.3)
    left.set_xlim(left=0)
    # The rates: "other" mixes directions and kinds, so it has none; non-positive ones cannot sit on a log axis.
    rated = [(y, r) for y, r in zip(ys, rows) if r["kind"] != "other"]
    placed = [_finite(v) for _, r in rated for v in (r["rate"], r["ceiling"]) if v is not None and _finite(v) > 0]
    lo = max(10.0 ** math.floor(math.log10(min(placed))), 1e-300) if placed else 0.1
    # Room right of the largest rate for its label: 2.4 decades to start with; fit_labels widens
    # the axis once the labels' widths are known.
    hi = 10.0 ** math.ceil(math.log10(max(placed)) + 2.4) if placed else 100.0
    right.set_xscale("log")
    style.plain_log_axis(right.xaxis)
    right.set_xlim(lo, hi)
    right.barh([y for y, _ in rated], [max(_finite(r["rate"]), lo) - lo for _, r in rated], 0.7, left=lo,
               color=[r["colour"] for _, r in rated], label="achieved GB/s", gid="bar")
    marked = [(y, _finite(r["ceiling"])) for y, r in rated if r["ceiling"] is not None and _finite(r["ceiling"]) > 0]
    handles = {}
    labels = []  # (where each rate label starts, the label)
    for kind in dict.fromkeys(r["kind"] for r in rows):
        colour = OTHER_COLOUR if kind == "other" else MEMORY_COLOURS.get(kind, OTHER_COLOUR)
        label = {"other": "the other classes together", "device": "device to device"}.get(kind, f"host memory: {kind}")
        handles[label] = Patch(color=colour)
    if marked:
        line, = right.plot([c for _, c in marked], [y for y, _ in marked], linestyle="none", marker="|",
                           markersize=20, markeredgewidth=2.5, color=CEILING_COLOUR, gid="reference",
                           label="the machine's ceiling (baseline)")
        handles["the machine's ceiling for the class (baseline)"] = line
    for y, r in zip(ys, rows):
        if r["kind"] == "other":
            text, at = "several kinds: no one rate", lo
        else:
            at = max([lo, _finite(r["rate"])] + ([_finite(r["ceiling"])] if r["ceiling"] is not None else []))
            if r["ceiling"] is not None and r["fraction"] is not None:
                text = f"{gbps_text(r['rate'])}, {percent_text(r['fraction'])} of {gbps_text(r['ceiling'])}"
            elif r["ceiling"] is not None and r["class"].get("ceiling_problem"):
                # above the ceiling: one of the two figures is wrong (the summary says which)
                text = f"{gbps_text(r['rate'])}, above {gbps_text(r['ceiling'])}: a figure is off"
            else:
                reason = ceiling_reason(r["class"], profile, short=True)
                text = f"{gbps_text(r['rate'])}, " + {"no baseline": "no baseline",
                                                       "managed memory": "no ceiling: managed memory"}.get(
                    reason, "no ceiling in the baseline")
        labels.append((at, right.annotate(text, (at, y), xytext=(8, 0), textcoords="offset points", va="center",
                                          fontsize=8)))
    right.set_xlabel("GB/s (1e9 bytes/s, log scale)")
    right.set_title("Rate achieved, against the machine's ceiling", fontsize=10)
    for ax in (left, right):
        ax.grid(True, axis="x", alpha=0.3)
        ax.tick_params(axis="y", length=0)
    baseline = profile.get("baseline", {})
    # the file's name: its folder is often a temporary one of the machine that recorded it
    judged = (f"judged against {Path(baseline['path']).name} ({baseline.get('started_at', '')[:10]})"
              if baseline.get("path") and baseline.get("how") != "none" else "no baseline to judge it against")
    synthetic = "\nsynthetic: made by the test generator, not measured" if profile.get("synthetic") else ""
    fig.suptitle(f"Where the copy time of “{command_text(profile, 70)}” goes\n{machine_of(report)}, "
                 f"{report['context']['hdbench'].get('started_at', '')[:10]}; {judged}{synthetic}", fontsize=11)
    style.finish(fig, handles, min(len(handles), 3), 3 + bool(synthetic))
    fit_labels(fig, right, labels, lo, hi)
    fig.hdbench = {"bars": [(r["label"], r["time_s"], r["rate"], r["ceiling"]) for r in rows]}
    return fig


def fit_labels(fig, ax, labels: list, lo: float, hi: float) -> None:
    """Widens the log axis `ax` (lo to hi) until every label, printed 8 points right of its
    value, ends inside it: a label such as "46.8 GB/s, above 11.6 GB/s: a figure is off" beside
    the fastest class ran past the panel, and off the figure. Where a label needs more than
    four fifths of the panel it gets that (and 12 decades at most): the axis is not widened
    without end."""
    renderer = fig.canvas.get_renderer()
    width = ax.get_window_extent(renderer).width
    if width <= 0 or not labels:
        return
    offset = 8 * fig.dpi / 72 + 4  # the labels' offset, and a little air
    decades = math.log10(hi) - math.log10(lo)
    for at, label in labels:
        room = max(width - label.get_window_extent(renderer).width - offset, 0.2 * width)
        decades = max(decades, (math.log10(max(at, lo)) - math.log10(lo)) * width / room)
    ax.set_xlim(lo, 10.0 ** (math.log10(lo) + min(decades, math.log10(max(hi, lo)) - math.log10(lo) + 12)))


def ceiling_reason(c: dict, profile: dict, short: bool = False) -> str:
    """Why a class has no ceiling: in a few words (`short`), or in full: what the profiler
    said (`ceiling_source`), else no baseline, managed memory, or a kind the baseline lacks."""
    baseline = profile.get("baseline", {})
    if baseline.get("how") == "none" or not baseline.get("path"):
        kind = "no baseline"
    elif "managed" in (c["src"], c["dst"]):
        kind = "managed memory"
    else:
        kind = "none in the baseline"
    if short:
        return kind
    return c.get("ceiling_source") or {"no baseline": "no baseline report to judge it against",
                                       "managed memory": "managed memory has no copy ceiling in the baseline"}.get(
        kind, "the baseline has no copy of this kind")


def copy_classes(plt, reports, machine: str) -> dict:
    """{profile_copy_classes…: Figure} for each profiled report that recorded copies."""
    names = figure_names(reports)
    return {names[r[0]]: draw(plt, r[1], names[r[0]]) for r in reports if r[0] in names}


MAKERS = (copy_classes,)
