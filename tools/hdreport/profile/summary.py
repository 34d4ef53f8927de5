"""The summary of a report's `profile` section: does a program (hdbench_profile -- COMMAND)
move data well on this machine?

The first section answers it: the findings that would each save at least 2% of the
program's span (what all of them save together; each one's saving alone, what it adds to
those above it, what was seen, the advice in the tutorials' words, the assumption its price
rests on, the evidence), or "nothing worth fixing"; or, when nothing was recorded, why.
Then where the copy time went (the copy classes that make up most of it, timed from their
calls, each against the machine's ceiling for that kind of copy), where the GPU's idle time
went (by what the feeding thread was doing), a step as the fixes were priced (profile
schema 2), what the copies cost (time not overlapped,
the host blocked, small copies, blocking reads) and how the program was profiled (the
baseline report it was judged against, its processes, the trace, its exit). A section is
shown only for reports that have a profile (hdreport/registry.py, SECTIONS).
"""

from __future__ import annotations

from pathlib import Path

from hdreport.core.markdown import table
from hdreport.profile.analysis import BLOCKING_READ, SMALL_COPY, published_classes
from hdreport.profile.model import PACE_SPREAD_SAID, cut_into_steps, read_per_batch
from hdreport.profile.figures import (DIRECTIONS, bucket_text, ceiling_reason, class_text, command_text,
                                      figure_names, machine_of, percent_text, profiled)
from hdreport.core.units import binary_unit, digits3, gbps_text

WORTH_FIXING = 0.02  # a finding that saves less of the span is listed, not recommended
MOST_OF_THE_TIME = 0.9  # the copy-class table shows the classes that make up this share of the copy time
MIN_ROWS, MAX_ROWS = 3, 12
TITLES = {
    "pageable_to_pinned": "Copy from pinned memory, not pageable",
    "overlap_copies": "Overlap copies with compute",
    "pack_small_copies": "Pack small copies into fewer large ones",
    "drop_blocking_reads": "Drop blocking reads of device results",
    "drop_step_synchronizes": "Drop the synchronize at the end of every step",
    "move_once": "Move data to the device once",
    "input_pipeline": "Build batches off the training thread",
    "per_sample_batches": "Gather each batch whole, not sample by sample",
    "pin_thread_gil": "Gather on the training thread: the pin thread takes its GIL",
    "launch_bound": "Capture the step in a CUDA graph",
    "full_collections": "Freeze set-up's objects out of Python's collector",
}
CAUSES = {
    "input_pipeline": "the host's input pipeline (building batches in the training thread)",
    "python_gc": "Python's garbage collections on the feeding thread",
    "host": "other host work (Python, the CPU side of the program)",
    "copy_call": "inside copy calls (staging pageable memory)",
    "blocked": "blocked in a CUDA call (a synchronisation with nothing left to run)",
    "launching": "inside kernel launch calls",
    "cuda_other": "inside other CUDA calls (allocation, pinning, memset)",
    "outside_steps": "outside the steps (set-up before the first, such as loading data; the end)",
    "unattributed": "no thread to charge (the GPU work after the gap was not issued by a recorded call)",
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


def micro(us: float) -> str:
    """Microseconds, to one decimal under 10 (a read's wait shared over 82 batches: 0.1 µs)."""
    return f"{us:,.1f} µs" if us < 10 else f"{us:,.0f} µs"


def sentence(text: str) -> str:
    """A report's text on one line, ending in a full stop."""
    text = one_line(text)
    return text if not text or text[-1] in ".!?" or text.endswith(".)") else text + "."


def capital(text: str) -> str:
    """`text` with its first letter a capital, for a reason that starts a sentence."""
    return text[:1].upper() + text[1:]


def share(part: float, whole: float) -> str:
    """`part` as a percentage of `whole`, or '' when there is no whole."""
    return f"{100 * part / whole:.1f}%" if whole > 0 else ""


def gib(n: float) -> str:
    """Bytes in GiB, MiB or KiB (`64 KiB`, `9.85 GiB`)."""
    value, unit = binary_unit(n)
    if unit == "GiB":
        return f"{value:,.2f} GiB"
    return f"{digits3(value)} {unit}" if unit != "B" else f"{n:,.0f} B"


def one_line(text: str) -> str:
    """A report's text on one line (a line break would end a Markdown list item or a cell)."""
    return " ".join(str(text).split())


def exit_text(profile: dict) -> str:
    ex = profile["exit"]
    if ex.get("signal"):
        code = f", exit code {ex['code']}" if ex.get("code") is not None else ""
        return f"killed by {one_line(ex['signal'])}{code}"
    return f"exit code {ex['code']}" if ex.get("code") is not None else "exit code unknown"


def alone_s(finding: dict) -> float:
    """What a finding's fix saves alone (schema 1 reports: their only saving)."""
    return finding.get("saving_alone_s", finding["saving_s"])


def idle_lines(report: dict) -> list[str]:
    """The GPU's idle time by what the thread feeding it was doing, largest first."""
    idle = report["profile"]["idle"]
    causes = dict(idle["by_cause_s"], unattributed=idle.get("unattributed_s", 0.0))
    total = idle["gpu_idle_s"]
    rows = [[CAUSES.get(c, one_line(c)), duration(v), share(v, total)]
            for c, v in sorted(causes.items(), key=lambda kv: -kv[1]) if v > 0]
    if not rows:
        return ["The GPU was never idle between its first and last record."]
    span = report["profile"]["totals"]["span_s"]
    lines = [f"The GPU sat idle {duration(total)} ({share(total, span)} of the span) in {idle['gaps']:,} gaps; "
             "each gap is charged to what the thread that fed the GPU next was doing:", ""]
    return lines + table(["the feeding thread was", "GPU idle", "share"], rows)


def model_lines(report: dict) -> list[str]:
    """A step of the feeding thread, as the fixes were priced."""
    m = report["profile"]["model"]
    if not m["steps"]:
        return ["No feeding thread was recorded (no CUDA calls): the fixes could not be priced."]
    per = m["per_step_ms"]
    cut_at = m.get("steps_cut_at", "reads" if m["per_step_reads"] else "")  # absent from reports made before it
    # Steps of many batches (a loop that reads every 100 turns, or one stretch) read per batch:
    # 155,519 µs "a step" of 82 batches told a reader nothing about one turn of the loop, and
    # "11 steps" of a 1000-turn loop read as 11 of its turns: such steps are called stretches.
    batches = m.get("batches", 0) / m["steps"]
    per_batch = read_per_batch(m.get("batches", 0), m["steps"])
    noun = "stretches" if per_batch else "steps"
    how = (f"{m['steps']:,} {noun}, cut at the blocking read that ends each" if m["per_step_reads"] else
           f"{m['steps']:,} {noun}, cut at the synchronize (no copy in it) that ends each"
           if cut_at == "synchronizes" else
           f"{m['steps']:,} {noun}, cut where the NVTX ranges that mark its iterations start "
           f"(`{cut_at.split(', ')[0].removeprefix('range ')}`)" if cut_at.startswith("range ") else
           "one stretch (no per-step blocking read or synchronize, or NVTX range marking its iterations, to cut "
           "steps at)")
    parts = [("building batches (input pipeline)", "B"), ("pageable copies: calls and waits", "L_pg"),
             ("waiting for pinned copies", "L_pin"), ("extra copies of a batch", "S"),
             ("waiting in the step's " + ("synchronize" if cut_at == "synchronizes" else "read"), "R"),
             ("the rest: launches, Python", "O"),
             ("of it, first launch to last: what a CUDA graph replaces", "X"), ("GPU busy (a bound)", "G")]
    unit = "a batch" if per_batch else "a step"
    each = batches if per_batch else 1.0
    rows = [[name, micro(per[key] / each * 1e3), share(per[key], per["T"]) if key != "G" else ""]
            for name, key in parts if per.get(key, 0) > 0 and (key != "X" or cut_at)]
    text = f"The thread that feeds the GPU, {how}: {per['T'] * 1e3:,.0f} µs a step on average."
    if per_batch and m["steps"] == 1:
        text = (f"The thread that feeds the GPU, {how}, {batches:,.0f} batches: {micro(per['T'] / batches * 1e3)} "
                f"a batch ({duration(per['T'] / 1e3)} in all).")
    elif per_batch:
        text = (f"The thread that feeds the GPU, {how}, {batches:,.{0 if batches >= 10 else 1}f} batches a stretch "
                f"on average: {micro(per['T'] / batches * 1e3)} a batch ({duration(per['T'] / 1e3)} a stretch).")
    if m.get("pin_thread"):  # absent from reports made before it
        text += (" Its batches came from a pin thread (another thread of its process pinned their memory and "
                 "launched nothing: PyTorch's pin_memory thread), whose share of the GIL its time here includes.")
    spread = m.get("step_spread") or {}  # absent from reports made before it
    if spread.get("stalls") and cut_at:
        text += (f" Half the {noun} took under {spread['median_ms'] * 1e3:,.0f} µs; {spread['stalls']:,} took over "
                 f"{spread['stall_factor']}x that (the longest {spread['max_ms']:,.1f} ms), "
                 f"{duration(spread['stall_excess_s'])} beyond the median, "
                 f"{share(spread['stall_excess_s'], m['seconds']['T'])} of the steps' time: stalls of the program, "
                 "the machine or the recording, which every price below includes.")
        if spread.get("stalls_with_gc") == 0:
            text += f" None of them held a Python garbage collection ({duration(spread['gc_s'])} in all the steps)."
        elif "stalls_with_gc" in spread:
            text += (f" {spread['stalls_with_gc']:,} of them held a Python garbage collection "
                     f"({duration(spread['stall_gc_s'])} of collections in them; "
                     f"{duration(spread['gc_s'])} in all the steps).")
    text += pace_text(spread)
    return [text, ""] + table([unit, "time", "share"], rows)


def pace_text(spread: dict) -> str:
    """A sentence on the steps' pace over the run where it changed by PACE_SPREAD_SAID or more
    ("" otherwise, and for reports made before `pace_median_ms`)."""
    pace, waits = spread.get("pace_median_ms") or [], spread.get("pace_batch_wait_ms") or []
    if not pace or min(pace) <= 0 or max(pace) < PACE_SPREAD_SAID * min(pace):
        return ""
    text = (f" The pace changed over the run: cut into {len(pace)} stretches in order, their median steps took "
            f"{duration(min(pace) / 1e3)} to {duration(max(pace) / 1e3)} ({max(pace) / min(pace):.2f}x)")
    if waits and min(waits) > 0 and max(waits) >= PACE_SPREAD_SAID * min(waits):
        text += (f", the batch wait {duration(min(waits) / 1e3)} to {duration(max(waits) / 1e3)} "
                 f"({max(waits) / min(waits):.2f}x), which makes no CUDA call")
    return text + (": the host ran slower in some stretches than in others, so a saving measured as the "
                   "difference of two whole runs carries that spread.")


def _label(path: str, several: bool) -> str:
    return f" (`{Path(path).name}`)" if several else ""


def loop_share(model: dict, saving: float) -> str:
    """Where the model cut the program's loop into steps, `saving` as a share of the steps' time:
    the span holds set-up too (loading data, starting workers), so a run of more steps saves a
    share nearer this one. '' where the loop is not known."""
    T = (model.get("seconds") or {}).get("T")
    steps = model.get("steps")
    if not cut_into_steps(model) or not isinstance(T, (int, float)) or T <= 0 or not isinstance(steps, int) or steps < 2:
        return ""
    noun = "stretches" if read_per_batch(model.get("batches", 0), steps) else "steps"  # as model_lines says
    return f" ({share(saving, T)} of its {steps:,} {noun}' {duration(T)}, the share a longer run would save)"


def answer(path: str, report: dict, several: bool) -> tuple[str, list[str]]:
    """The heading (the question) and the answer lines."""
    p = report["profile"]
    question = f"Does `{command_text(p, 60)}` move data well on this machine?{_label(path, several)}"
    lines = []
    if p.get("synthetic"):
        lines += ["**Synthetic**: this profile was made by the test generator, not recorded from a program; its "
                  "numbers show the format only.", ""]
    if not p["recorded"]:
        reason = capital(sentence(p.get("not_recorded_reason") or "no reason given"))
        lines += [f"**Cannot tell: nothing was recorded.** {reason}", "",
                  f"The program ran {duration(p['wall_s'])} ({exit_text(p)}); see how it was profiled below."]
        return question, lines
    totals = p["totals"]
    span = totals["span_s"]
    findings = sorted(p["findings"], key=lambda f: -alone_s(f))
    worth = [f for f in findings if max(alone_s(f), f["saving_s"]) >= WORTH_FIXING * span]
    if worth:
        top = max(worth, key=alone_s)
        largest = TITLES.get(top["id"], one_line(top["id"]))
        changes = f"{len(worth)} change{'s' if len(worth) > 1 else ''}"
        if "model" in p:  # schema 2: the savings add up to what the fixes save together
            together = p["model"]["saving_together_s"]
            lines.append(f"**No, not as well as it could**: {changes} would save **{ms(together)} "
                         f"({share(together, span)})** of the program's {duration(span)} span"
                         f"{' together' if len(worth) > 1 else ''}{loop_share(p['model'], together)}; the largest "
                         f"alone, “{largest}”, saves **{ms(alone_s(top))} ({share(alone_s(top), span)})**.")
        else:  # schema 1: each finding priced alone, not to be added up
            lines.append(f"**No, not as well as it could**: {changes} would {'each ' if len(worth) > 1 else ''}"
                         f"save at least {100 * WORTH_FIXING:.0f}% of the program's {duration(span)} span; the "
                         f"largest, “{largest}”, saves **{ms(top['saving_s'])} "
                         f"({100 * top['saving_fraction_of_span']:.1f}%)**.")
        lines.append("")
        for rank, f in enumerate(worth, 1):
            alone = alone_s(f)
            if "saving_alone_s" not in f or abs(alone - f["saving_s"]) < 1e-9:
                saves = f"**{ms(alone)}, {share(alone, span)} of the span**"
            elif f["saving_s"] > alone:  # kept for what it adds once the changes above it are made
                saves = (f"**{ms(f['saving_s'])}, {share(f['saving_s'], span)} of the span, once the changes above "
                         f"it are made** ({ms(alone)} alone)")
            else:
                saves = f"**{ms(alone)}, {share(alone, span)} of the span** ({ms(f['saving_s'])} added to the changes above it)"
            assumption = f" Assumes: {one_line(f['assumption'])}" if f.get("assumption") else ""
            lines.append(f"- **{rank}. {TITLES.get(f['id'], one_line(f['id']))}** (`{one_line(f['id'])}`): saves "
                         f"{saves}. "
                         f"{one_line(f['what'])} **Advice:** {one_line(f['advice'])}{assumption} "
                         f"Evidence: {one_line(f['evidence'])}")
        # verify priced the workers at 219 ms in a plain run's time where this page said 604 (an
        # H100's tutorial, 2026-11-28): a reader must know whose seconds these are
        lines += ["", "The prices are in this recorded run's seconds. The recording lengthens the steps, so a run "
                      "without it saves less: by the recording's overhead, and more where a price sets the recorded "
                      "wait against a hand-over the probe measured (DataLoader workers, the pin thread). "
                      "`hdbench_report.py verify` holds them against runs without it."]
    else:
        lines.append(f"**Yes: nothing worth fixing** (no finding saves ≥ {100 * WORTH_FIXING:.0f}% of the "
                     f"{duration(span)} span).")
    left = p.get("findings_left_out") or []
    if left:
        lines += ["", "Not advised beside these, though worth it alone: " +
                  "; ".join(f"`{one_line(f['id'])}` saves {ms(f['saving_alone_s'])} alone, "
                            + (f"only {ms(f['saving_added_s'])} more with them" if f["saving_added_s"] >= 0 else
                               f"but made with them it would give back {ms(-f['saving_added_s'])} of what they save")
                            for f in left) + "."]
    costly = p.get("would_cost") or []
    if costly:
        lines += ["", "Would cost, not save: " +
                  "; ".join(f"`{one_line(f['id'])}` would make the steps {ms(f['cost_s'])} longer "
                            f"({100 * f['cost_fraction_of_span']:.1f}% of the span): {one_line(f['why'])}"
                            for f in costly) + "."]
    minor = [f for f in findings if f not in worth]
    if minor:
        lines += ["", f"Under {100 * WORTH_FIXING:.0f}% of the span each, not worth fixing on their own: " +
                  ", ".join(f"`{one_line(f['id'])}` ({ms(f['saving_s'])}, "
                            f"{100 * f['saving_fraction_of_span']:.1f}%)" for f in minor) + "."]
    cost = (f", {duration(totals['copy_cost_s'])} timed from their calls" if "copy_cost_s" in totals and
            totals["copy_cost_s"] > totals["copy_s"] * 1.001 else "")
    dma = " of DMA" if cost else ""
    # the share beside the number it is of: "20.7 ms of DMA (0.2% of the span), 142 ms timed from their calls"
    copies = (f"Copies took {duration(totals['copy_s'])}{dma}" +
              (f" ({share(totals['copy_s'], span)} of the span)" if span > 0 else "") + cost +
              f": {totals['copies']:,} copies moving {gib(totals['copy_bytes'])}. The GPU was busy "
              f"{duration(totals['gpu_busy_s'])} (kernels {duration(totals['kernel_s'])}) and idle "
              f"{duration(totals['gpu_idle_s'])}; the host waited in CUDA calls {duration(totals['host_blocked_s'])}. "
              f"The program ran {duration(p['wall_s'])} ({exit_text(p)}).")
    return question, lines + ["", copies]


def copy_table(path: str, report: dict) -> list[str]:
    """The copy classes that make up most of the copy time, each against its ceiling."""
    p = report["profile"]
    classes = sorted(published_classes(p), key=lambda c: -c["time_s"])
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
            ceiling = gbps_text(c['ceiling_GB/s'])
            fraction = percent_text(c["fraction_of_ceiling"]) if c["fraction_of_ceiling"] is not None else \
                "above it: see below" if c.get("ceiling_problem") else "–"
        rows.append([DIRECTIONS.get(c["direction"], one_line(c["direction"])), f"{one_line(c['src'])} → "
                     f"{one_line(c['dst'])}", "blocking" if c["blocking"] else "async",
                     one_line(bucket_text(c["size_bucket"])), f"{c['count']:,}", ms(c["time_s"]),
                     gbps_text(c['achieved_GB/s']), ceiling, fraction])
    lines = [f"{len(classes)} classes of copy took {duration(total)}; the {len(shown)} that took the most time "
             f"({share(running, total) or 'all'} of it):", ""]
    # the rates carry their units: a 4-byte read's 0.000233 GB/s reads 0.233 MB/s
    lines += table(["direction", "src → dst", "blocking", "size", "count", "time", "achieved",
                    "ceiling", "of ceiling"], rows)
    left = classes[len(shown):]
    if left:
        lines += ["", f"{len(left)} more class{'es' if len(left) > 1 else ''} "
                      f"({share(sum(c['time_s'] for c in left), total) or duration(sum(c['time_s'] for c in left))} "
                      f"of the copy time) left out; `profile.copy_classes` in the report lists them all."]
    lines += ["", "The machine's ceiling for each, the rate of the same kind and size of copy in the baseline:", ""]
    for c in shown:
        source = ceiling_reason(c, p) if c["ceiling_GB/s"] is None else c["ceiling_source"] or "?"
        if c.get("ceiling_problem"):
            source = f"{source}; no fraction published: {c['ceiling_problem']}"
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
              f"- Small copies (H2D and D2H of {gib(SMALL_COPY)} or less): {small['count']:,} took " +
              (f"{duration(small['cost_s'])} from their calls ({duration(small['time_s'])} of DMA), "
               f"{duration(small['overhead_s'])} of it the fixed cost of a copy."
               if "cost_s" in small and small["overhead_s"] is not None else
               # a report without the calls' time: the fixed cost, a call's, is not a part of the DMA time
               f"{duration(small['time_s'])} of DMA; their calls' fixed cost, about "
               f"{duration(small['overhead_s'])} ({duration(small['overhead_s'] / small['count'])} a copy), "
               "comes on top." if small["overhead_s"] is not None and small["count"] else
               f"{duration(small['time_s'])} of DMA, the fixed cost of a copy unknown (no baseline to price it)."),
              f"- Blocking reads (D2H copies of {gib(BLOCKING_READ)} or less the host waits for, e.g. `.item()`): "
              f"{reads['count']:,}" +
              (f", the host blocked {duration(reads['host_blocked_s'])} in them" if "host_blocked_s" in reads else "") +
              (f"; the GPU sat idle {duration(reads['gpu_idle_after_s'])} after them." if "idle" not in p else
               "; what the GPU idled after them for is charged by cause above.")]
    return lines


def run_lines(report: dict) -> list[str]:
    p = report["profile"]
    b = p["baseline"]
    how = HOW.get(b["how"], one_line(b["how"]))
    note = capital(sentence(b["note"])) if b.get("note") else ""
    if b["how"] == "none" or not b.get("path"):
        # the note says why there is none (no copies to judge, or what measuring one ran into)
        judged = f"- Baseline: none. {note}" if note else (
            "- Baseline: none (no report of this machine was given or found, and none was measured): the copies "
            "have no ceiling to be judged against.")
    else:
        judged = (f"- Baseline: `{one_line(b['path'])}` ({how}), {one_line(b.get('machine') or 'machine unknown')}, "
                  f"run {one_line(b.get('started_at') or '?')}.") + (f" {note}" if note else "")
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
        if p["recorded"] and "idle" in p:
            out.append((f"{key}-idle", f"Where the GPU's idle time goes{label}", idle_lines(report), ()))
        if p["recorded"] and "model" in p:
            out.append((f"{key}-steps", f"A step, as the fixes were priced{label}", model_lines(report), ()))
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
