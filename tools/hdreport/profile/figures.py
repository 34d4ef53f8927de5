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


def _has_share(r: dict) -> bool:
    """Whether a drawn class has a share of its ceiling to draw: a fraction and the ceiling it is of."""
    return r["kind"] != "other" and r["fraction"] is not None and r["ceiling"] is not None


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
    """Time per class (left); the rate each reached as a share of its ceiling (right), a bar to
    100% on a linear axis with the rate and the ceiling written beside it (copies of 4 KiB and of
    256 MiB differ by decades in GB/s, but not in their shares)."""
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
    # The rates as shares of their ceilings, on a linear axis to 100%: a bar's length is the share
    # (rate bars on a log axis started at an arbitrary 0.0001 GB/s, so their lengths meant nothing).
    # "other" mixes directions and kinds, so it has no rate; a class with no fraction has no bar.
    shares = [(y, r) for y, r in zip(ys, rows) if _has_share(r)]
    right.barh([y for y, _ in shares], [100 * min(max(_finite(r["fraction"]), 0.0), 1.0) for _, r in shares], 0.7,
               color=[r["colour"] for _, r in shares], label="share of the ceiling", gid="bar")
    right.set_xlim(0, 100)
    ceiling = right.axvline(100, color=CEILING_COLOUR, linewidth=2.5, gid="reference",
                            label="the machine's ceiling for the class (baseline)")
    handles = {}
    for kind in dict.fromkeys(r["kind"] for r in rows):
        colour = OTHER_COLOUR if kind == "other" else MEMORY_COLOURS.get(kind, OTHER_COLOUR)
        label = {"other": "the other classes together", "device": "device to device"}.get(kind, f"host memory: {kind}")
        handles[label] = Patch(color=colour)
    if shares:
        handles["the machine's ceiling for the class (baseline)"] = ceiling
    for y, r in zip(ys, rows):
        share = 100 * min(max(_finite(r["fraction"]), 0.0), 1.0) if _has_share(r) else None
        if r["kind"] == "other":
            text = f"{gbps_text(r['rate'])}: several kinds, no one ceiling"
        elif share is not None:
            text = f"{gbps_text(r['rate'])}, {percent_text(r['fraction'])} of {gbps_text(r['ceiling'])}"
        elif r["ceiling"] is not None and r["class"].get("ceiling_problem"):
            # above the ceiling: one of the two figures is wrong (the summary says which)
            text = f"{gbps_text(r['rate'])}, above {gbps_text(r['ceiling'])}: a figure is off"
        else:
            reason = ceiling_reason(r["class"], profile, short=True)
            text = f"{gbps_text(r['rate'])}, " + {"no baseline": "no baseline",
                                                   "managed memory": "no ceiling: managed memory"}.get(
                reason, "no ceiling in the baseline")
        if share is not None and share >= 50:  # inside its bar, ending at its end: it fits there
            right.annotate(text, (share, y), xytext=(-6, 0), textcoords="offset points", va="center", ha="right",
                           fontsize=8, color="white", fontweight="bold")
        else:  # beside its bar, or where it has none, why (a note, not a series)
            right.annotate(text, (share or 0, y), xytext=(6, 0), textcoords="offset points", va="center",
                           fontsize=8, gid=None if share is not None else "null_note")
    right.set_xlabel("share of the machine's ceiling (%)")
    right.set_title("Rate achieved, as a share of the machine's ceiling", fontsize=10)
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
    fig.hdbench = {"bars": [(r["label"], r["time_s"], r["rate"], r["ceiling"]) for r in rows]}
    return fig


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
