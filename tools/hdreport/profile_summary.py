"""The summary of a report's `profile` section: does a program (hdbench_profile -- COMMAND)
move data well on this machine?

The first section answers it: the findings that would each save at least 2% of the
program's span (saving in ms and as a share of the span, what was seen, the advice in the
tutorials' words, the evidence), or "nothing worth fixing"; or, when nothing was recorded,
why. Then where the copy time went (the copy classes that make up most of it, each against
the machine's ceiling for that kind of copy), what the copies cost (time not overlapped,
the host blocked, small copies, blocking reads) and how the program was profiled (the
baseline report it was judged against, its processes, the trace, its exit). A section is
shown only for reports that have a profile (families.py, SECTIONS).
"""

from __future__ import annotations

from pathlib import Path

from hdreport.markdown import table
from hdreport.profile_analysis import BLOCKING_READ, SMALL_COPY
from hdreport.profile_figures import (DIRECTIONS, bucket_text, ceiling_reason, class_text, command_text,
                                      figure_names, machine_of, percent_text, profiled)
from hdreport.units import binary_unit

WORTH_FIXING = 0.02  # a finding that saves less of the span is listed, not recommended
MOST_OF_THE_TIME = 0.9  # the copy-class table shows the classes that make up this share of the copy time
MIN_ROWS, MAX_ROWS = 3, 12
TITLES = {
    "pageable_to_pinned": "Copy from pinned memory, not pageable",
    "overlap_copies": "Overlap copies with compute",
    "pack_small_copies": "Pack small copies into fewer large ones",
    "drop_blocking_reads": "Drop blocking reads of device results",
    "move_once": "Move data to the device once",
}
HOW = {
    "given": "given with `--hdbench_baseline`",
    "newest": "the newest report under `reports/` with transfer copies",
    "measured": "measured on the spot (a short transfer run, saved)",
    "none": "none",
}


def ms(seconds: float) -> str:
    """A duration in ms, three significant digits at most below 100 ms."""
    v = seconds * 1e3
    return f"{v:,.0f} ms" if abs(v) >= 100 else f"{v:.3g} ms"


def duration(seconds: float) -> str:
    """s from 1 s, ms from 1 ms, else µs."""
    if abs(seconds) >= 1:
        return f"{seconds:,.2f} s"
    return ms(seconds) if abs(seconds) >= 1e-3 or seconds == 0 else f"{seconds * 1e6:.3g} µs"


def sentence(text: str) -> str:
    """A report's text on one line, ending in a full stop."""
    text = one_line(text)
    return text if not text or text[-1] in ".!?)" else text + "."


def share(part: float, whole: float) -> str:
    """`part` as a percentage of `whole`, or '' when there is no whole."""
    return f"{100 * part / whole:.1f}%" if whole > 0 else ""


def gib(n: float) -> str:
    """Bytes in GiB, MiB or KiB (`64 KiB`, `9.85 GiB`)."""
    value, unit = binary_unit(n)
    if unit == "GiB":
        return f"{value:,.2f} GiB"
    return f"{value:,.3g} {unit}" if unit != "B" else f"{n:,.0f} B"


def one_line(text: str) -> str:
    """A report's text on one line (a line break would end a Markdown list item or a cell)."""
    return " ".join(str(text).split())


def exit_text(profile: dict) -> str:
    ex = profile["exit"]
    if ex.get("signal"):
        code = f", exit code {ex['code']}" if ex.get("code") is not None else ""
        return f"killed by {one_line(ex['signal'])}{code}"
    return f"exit code {ex['code']}" if ex.get("code") is not None else "exit code unknown"


def _label(path: str, several: bool) -> str:
    return f" (`{Path(path).name}`)" if several else ""


def answer(path: str, report: dict, several: bool) -> tuple[str, list[str]]:
    """The heading (the question) and the answer lines."""
    p = report["profile"]
    question = f"Does `{command_text(p, 60)}` move data well on this machine?{_label(path, several)}"
    lines = []
    if p.get("synthetic"):
        lines += ["**Synthetic**: this profile was made by the test generator, not recorded from a program; its "
                  "numbers show the format only.", ""]
    if not p["recorded"]:
        reason = sentence(p.get("not_recorded_reason") or "no reason given")
        lines += [f"**Cannot tell: nothing was recorded.** {reason}", "",
                  f"The program ran {duration(p['wall_s'])} ({exit_text(p)}); see how it was profiled below."]
        return question, lines
    totals = p["totals"]
    span = totals["span_s"]
    findings = sorted(p["findings"], key=lambda f: -f["saving_s"])
    worth = [f for f in findings if f["saving_fraction_of_span"] >= WORTH_FIXING]
    if worth:
        top = worth[0]
        changes = f"{len(worth)} change{'s' if len(worth) > 1 else ''} would {'each ' if len(worth) > 1 else ''}"
        largest = TITLES.get(top["id"], one_line(top["id"]))
        lines.append(f"**No, not as well as it could**: {changes}save at least {100 * WORTH_FIXING:.0f}% of the "
                     f"program's {duration(span)} span; the largest, “{largest}”, "
                     f"saves **{ms(top['saving_s'])} ({100 * top['saving_fraction_of_span']:.1f}%)**.")
        lines.append("")
        for rank, f in enumerate(worth, 1):
            lines.append(f"- **{rank}. {TITLES.get(f['id'], one_line(f['id']))}** (`{one_line(f['id'])}`): saves "
                         f"**{ms(f['saving_s'])}, {100 * f['saving_fraction_of_span']:.1f}% of the span**. "
                         f"{one_line(f['what'])} **Advice:** {one_line(f['advice'])} "
                         f"Evidence: {one_line(f['evidence'])}")
    else:
        lines.append(f"**Yes: nothing worth fixing** (no finding saves ≥ {100 * WORTH_FIXING:.0f}% of the "
                     f"{duration(span)} span).")
    minor = [f for f in findings if f not in worth]
    if minor:
        lines += ["", f"Under {100 * WORTH_FIXING:.0f}% of the span each, not worth fixing on their own: " +
                  ", ".join(f"`{one_line(f['id'])}` ({ms(f['saving_s'])}, "
                            f"{100 * f['saving_fraction_of_span']:.1f}%)" for f in minor) + "."]
    copies = (f"Copies took {duration(totals['copy_s'])}" +
              (f" ({share(totals['copy_s'], span)} of the span)" if span > 0 else "") +
              f": {totals['copies']:,} copies moving {gib(totals['copy_bytes'])}. The GPU was busy "
              f"{duration(totals['gpu_busy_s'])} (kernels {duration(totals['kernel_s'])}) and idle "
              f"{duration(totals['gpu_idle_s'])}; the host waited in CUDA calls {duration(totals['host_blocked_s'])}. "
              f"The program ran {duration(p['wall_s'])} ({exit_text(p)}).")
    return question, lines + ["", copies]


def copy_table(path: str, report: dict) -> list[str]:
    """The copy classes that make up most of the copy time, each against its ceiling."""
    p = report["profile"]
    classes = sorted(p["copy_classes"], key=lambda c: -c["time_s"])
    if not classes:
        return ["No copies between host and device were recorded."]
    total = sum(c["time_s"] for c in classes)
    shown, running = [], 0.0
    for c in classes:
        if len(shown) >= MAX_ROWS or (len(shown) >= MIN_ROWS and total > 0 and running >= MOST_OF_THE_TIME * total):
            break
        shown.append(c)
        running += c["time_s"]
    rows = []
    for c in shown:
        if c["ceiling_GB/s"] is None:
            ceiling, fraction = f"– ({ceiling_reason(c, p, short=True)})", "–"
        else:
            ceiling = f"{c['ceiling_GB/s']:.3g}"
            fraction = percent_text(c["fraction_of_ceiling"]) if c["fraction_of_ceiling"] is not None else "–"
        rows.append([DIRECTIONS.get(c["direction"], one_line(c["direction"])), f"{one_line(c['src'])} → "
                     f"{one_line(c['dst'])}", "blocking" if c["blocking"] else "async",
                     one_line(bucket_text(c["size_bucket"])), f"{c['count']:,}", ms(c["time_s"]),
                     f"{c['achieved_GB/s']:.3g}", ceiling, fraction])
    lines = [f"{len(classes)} classes of copy took {duration(total)}; the {len(shown)} that took the most time "
             f"({share(running, total) or 'all'} of it):", ""]
    lines += table(["direction", "src → dst", "blocking", "size", "count", "time", "achieved GB/s",
                    "ceiling GB/s", "of ceiling"], rows)
    left = classes[len(shown):]
    if left:
        lines += ["", f"{len(left)} more class{'es' if len(left) > 1 else ''} "
                      f"({share(sum(c['time_s'] for c in left), total) or duration(sum(c['time_s'] for c in left))} "
                      f"of the copy time) left out; `profile.copy_classes` in the report lists them all."]
    lines += ["", "The machine's ceiling for each, the rate of the same kind and size of copy in the baseline:", ""]
    for c in shown:
        source = ceiling_reason(c, p) if c["ceiling_GB/s"] is None else c["ceiling_source"] or "?"
        lines.append(f"- {class_text(c)}, {'blocking' if c['blocking'] else 'async'}, "
                     f"{one_line(bucket_text(c['size_bucket']))}: {sentence(source)}")
    return lines


def cost_lines(report: dict) -> list[str]:
    p = report["profile"]
    c, span = p["costs"], p["totals"]["span_s"]

    def of_span(seconds: float) -> str:
        return f"{duration(seconds)}" + (f" ({share(seconds, span)} of the span)" if span > 0 else "")

    lines = [f"- Copies not overlapped with any kernel: {of_span(c['copies_not_overlapped_s'])}."]
    if "gpu_idle_while_copying_s" in c:
        lines.append(f"- GPU idle (no kernel) while copying: {of_span(c['gpu_idle_while_copying_s'])}.")
    small, reads = c["small_copies"], c["blocking_reads"]
    lines += [f"- Host blocked in CUDA calls while the copies it waited for ran: "
              f"{of_span(c['host_blocked_on_copies_s'])}; blocked the rest of the time, waiting for kernels "
              f"(a synchronisation, a `.item()` waiting for its step): {of_span(c['host_blocked_on_sync_s'])}.",
              f"- Small copies (H2D and D2H of {gib(SMALL_COPY)} or less): {small['count']:,} took "
              f"{duration(small['time_s'])}, " +
              (f"{duration(small['overhead_s'])} of it the fixed cost of a copy." if small["overhead_s"] is not None
               else "the fixed cost of a copy unknown (no baseline to price it)."),
              f"- Blocking reads (D2H copies of {gib(BLOCKING_READ)} or less the host waits for, e.g. `.item()`): "
              f"{reads['count']:,}" +
              (f", the host blocked {duration(reads['host_blocked_s'])} in them" if "host_blocked_s" in reads else "") +
              f"; the GPU sat idle {duration(reads['gpu_idle_after_s'])} after them."]
    return lines


def run_lines(report: dict) -> list[str]:
    p = report["profile"]
    b = p["baseline"]
    how = HOW.get(b["how"], one_line(b["how"]))
    if b["how"] == "none" or not b.get("path"):
        judged = "- Baseline: none (no report of this machine was given or found, and none was measured): the copies " \
                 "have no ceiling to be judged against."
    else:
        judged = (f"- Baseline: `{one_line(b['path'])}` ({how}), {one_line(b.get('machine') or 'machine unknown')}, "
                  f"run {one_line(b.get('started_at') or '?')}.")
    if b.get("note"):
        judged += f" {sentence(b['note'])}"
    trace = (f"- Trace: `{one_line(p['trace'])}` (Chrome trace with Kineto's names: Perfetto and Holistic Trace "
             "Analysis read it)." if p.get("trace") else "- Trace: none written.")
    lines = [judged, trace, f"- The command: `{command_text(p)}`; ran {duration(p['wall_s'])}, {exit_text(p)} "
                            "(passed through)."]
    processes = p["processes"]
    if not processes:
        return lines + ["- No process used CUDA: nothing to record."]
    incomplete = [q for q in processes if not q["complete"]]
    if incomplete:
        lines.append(f"- **{len(incomplete)} of {len(processes)} process{'es' if len(processes) > 1 else ''} "
                     f"did not finish recording**: what {'they' if len(incomplete) > 1 else 'it'} did after "
                     f"{'their' if len(incomplete) > 1 else 'its'} last flush is missing above.")
    rows = [[str(q["pid"]), f"`{one_line(q['command']).replace('`', chr(39))[:80]}`",
             one_line(", ".join(q.get("gpus", [])) or "–"), f"{q['records']:,}" if "records" in q else "–",
             "yes" if q["complete"] else "**no**", f"{q.get('over_budget', 0):,}", f"{q.get('cupti_dropped', 0):,}",
             one_line(q.get("note") or "")] for q in processes[:20]]
    lines += ["", "Processes that used CUDA (child processes inherit the injection):", ""]
    lines += table(["pid", "command", "GPUs", "records", "complete", "over trace budget", "dropped by CUPTI", "note"],
                   rows)
    if len(processes) > 20:
        lines += ["", f"… and {len(processes) - 20} more (`profile.processes`)."]
    return lines


def sections(reports) -> list[tuple[str, str, list[str], tuple]]:
    """[(anchor, heading, Markdown lines, figure names)] for every report with a profile."""
    chosen = profiled(reports)
    several = len(chosen) > 1
    names = figure_names(reports)
    out = []
    for i, (path, report, *_) in enumerate(chosen):
        key = "profile" if not several else f"profile-{i + 1}"
        question, lines = answer(path, report, several)
        out.append((key, question, lines, ()))
        p = report["profile"]
        label = _label(path, several)
        if p["recorded"] and "copy_classes" in p:
            out.append((f"{key}-copies", f"Where the copy time goes{label}", copy_table(path, report),
                        (names[path],) if path in names else ()))
        if p["recorded"] and "costs" in p and "totals" in p:
            out.append((f"{key}-costs", f"What the copies cost{label}", cost_lines(report), ()))
        out.append((f"{key}-run", f"How it was profiled{label}", run_lines(report), ()))
    return out


def title(reports) -> str:
    """`hdbench_profile: <command> on <machine>` of the first profiled report."""
    chosen = profiled(reports)
    if not chosen:
        return ""
    report = chosen[0][1]
    more = f" and {len(chosen) - 1} more" if len(chosen) > 1 else ""
    return f"hdbench_profile: `{command_text(report['profile'], 60)}`{more} on {machine_of(report)}"
