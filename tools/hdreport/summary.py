"""`summarize REPORT...`: a Markdown page that answers the tutorials' questions for the
machine the reports came from, each answer with its numbers and the benchmarks they
came from: a line where the answer is a number, a table where it is a table (pinning
cost and break-even per size and method, stream variants, the loader's samples/s by
workers x pinning, hdbench's GPU step against PyTorch's...). A question the reports
cannot answer says so and what to run. Several reports (one machine's transfer,
loader and MLP runs, and the PyTorch baseline's) are read as one: a benchmark is named
with its report's file when there are several, and where two reports ran the same
configuration the first report given is quoted. Each family's questions are in its
families/<family>/summary.py (listed in registry.py), the Markdown helpers in
core/markdown.py.
"""

from __future__ import annotations

import re
from pathlib import Path

from hdreport.core import movement, noise
from hdreport.core.markdown import machine_name, made_by, named, runs_named, slug, table
from hdreport.core.schema import ok_runs
from hdreport.core.units import size_text
from hdreport.families import loader, mlp, transfer
from hdreport.families.mlp import versus_pytorch
from hdreport.registry import FAMILIES, SECTIONS


def merge(reports: list[tuple[str, dict]]) -> dict:
    """One report holding every report's benchmarks and derived rows, each tagged with
    the file it came from (`_source`) and how to name it (`_label`)."""
    several = len(reports) > 1
    merged = {"context": reports[0][1]["context"], "benchmarks": [], "derived": {}, "sources": [p for p, _ in reports],
              "contexts": {Path(p).name: r.get("context", {}) for p, r in reports}}
    for path, report in reports:
        file = Path(path).name
        for b in report["benchmarks"]:
            label = f"`{b.get('name', '?')}` ({file})" if several else f"`{b.get('name', '?')}`"
            merged["benchmarks"].append({**b, "_source": file, "_label": label})
        for key, rows in report.get("derived", {}).items():
            merged["derived"].setdefault(key, []).extend({**row, "_source": file} for row in rows)
    return merged


# (anchor, question, how to answer it, what to run when the reports cannot, figure name prefixes),
# family by family in the order of FAMILIES: the questions asked of every report.
QUESTIONS = [question for _, family_summary in FAMILIES if not getattr(family_summary, "ASKED_WHERE_RUN", ())
             for question in family_summary.QUESTIONS]
# The questions asked only of reports with entries of their families (registry.py).
QUESTIONS_WHERE_RUN = [question for _, family_summary in FAMILIES if getattr(family_summary, "ASKED_WHERE_RUN", ())
                       for question in family_summary.QUESTIONS]


def asked(report: dict, family_summary) -> bool:
    """Whether a family's questions are asked of a (merged) report: always, or, for a family
    named in ASKED_WHERE_RUN, where the report has entries of it."""
    only = getattr(family_summary, "ASKED_WHERE_RUN", ())
    return not only or any(b.get("params", {}).get("family") in only for b in report["benchmarks"])


def sections(reports: list[tuple[str, dict]]) -> list[tuple[str, str, list[str], tuple]]:
    """[(anchor, heading, Markdown lines, figure names)] of the sections the reports carry
    besides their benchmarks (a `profile`), shown before the questions; [] for most reports."""
    return [section for _, module in SECTIONS for section in module.sections(reports)]


def sections_only_title(reports: list[tuple[str, dict]]) -> str:
    """The title of reports that hold sections and no benchmark (hdbench_profile's), whose
    page is those sections alone; '' for every other set of reports."""
    if any(report["benchmarks"] for _, report in reports):
        return ""
    return next((t for _, module in SECTIONS for t in [module.title(reports)] if t), "")


def answers(report: dict) -> list[tuple[str, str, list[str], tuple]]:
    """[(anchor, question, Markdown lines, figure prefixes)] of a (merged) report: the questions
    it answers first, in the families' order, then those it cannot (a report of one family, such
    as the large step beside PyTorch, put its one answer under seven that said it had none)."""
    answered, not_answered = [], []
    for _, family_summary in FAMILIES:
        if not asked(report, family_summary):
            continue
        for anchor, question, answer, needs, figures in family_summary.QUESTIONS:
            lines = answer(report)
            if lines:
                answered.append((anchor, question, lines, figures))
            else:
                not_answered.append((anchor, question, [f"{CANNOT_ANSWER}{needs}."], figures))
    return answered + not_answered


CANNOT_ANSWER = "This report cannot answer it: it has no successful runs of "


def _unanswered(lines: list[str]) -> str | None:
    """Why an answer's lines answer nothing (no runs of what it needs, or all of them skipped:
    the count of each, the reasons left to "Not measured"), None where they answer it."""
    if lines[0].startswith(CANNOT_ANSWER):
        return f"No successful runs of {lines[0][len(CANNOT_ANSWER):]}"
    if all(line.startswith(movement.NOT_MEASURED_HERE) and " skipped: " in line for line in lines):
        counts = [line[len(movement.NOT_MEASURED_HERE):].split(" skipped: ", 1)[0] for line in lines]
        return f"Its runs were skipped: {'; '.join(counts)} (why: see Not measured)."
    return None


def folded(answers_: list, several: bool) -> tuple[list, list[str]]:
    """(the answered questions, one section for those the reports cannot answer): three sections
    of a heading and "cannot answer" each closed the H200's quick page before its skips, and a
    GPU-less run opened with five sections saying one skip reason of some 300 characters."""
    answered = [a for a in answers_ if _unanswered(a[2]) is None]
    lines = [f"- **{question}** {why}" for _, question, lines, _ in answers_
             if (why := _unanswered(lines)) is not None]
    if not lines:
        return answered, []
    return answered, [f"## What {'these reports' if several else 'this report'} cannot answer", "", *lines, ""]


# The four questions every tutorial raises, and hdbench beside PyTorch, answered in the page's first lines.
def _pinning_headline(report: dict):
    runs = movement.per_copy(report)
    for direction in ("h2d", "d2h"):
        sizes = [s for (d, m, s) in runs if d == direction and m == "pinned" and (d, "pageable", s) in runs]
        if sizes:
            size = max(sizes)
            pinned, pageable = runs[(direction, "pinned", size)], runs[(direction, "pageable", size)]
            gp, gq = pinned["counters"]["bandwidth_GB/s"], pageable["counters"]["bandwidth_GB/s"]
            return (f"pinned **{gp / gq:.2f}×** pageable: {direction.upper()} {size_text(size)}, {gp:.1f} vs {gq:.1f} "
                    "GB/s", [pinned, pageable])
    return None


def _overlap_headline(report: dict):
    rows = [r for r in report.get("derived", {}).get("stream_overlap", []) if "pipelined" in r and "sync" in r]
    if not rows:
        return None
    pairs = [(r, p) for r in rows for p in [transfer.figures.multi_stream_pipeline(report, r)] if p is not None]
    if not pairs:  # one stream runs copy, kernel, copy back in order: it cannot overlap
        return (f"**not measured**: no pipeline of {transfer.figures.MIN_PIPELINE_STREAMS} or more streams ran "
                "(one stream cannot overlap); run `--hdbench_stream_counts=2,4`", [])
    best, pipe = max(pairs, key=lambda t: t[1]["saving_vs_sync_percent"])
    return (f"pipelining saves **{pipe['saving_vs_sync_percent']:.0f}%** against synchronous copies "
            f"({size_text(best['bytes'])}, {best['memory']}, {pipe['streams']} streams × {pipe['chunks']} chunks, "
            f"kernel ≈ {best['compute_ratio']:g}× the copy)",
            runs_named(report, [best["sync"].get("benchmark"), pipe.get("benchmark")]))


def _batch_workers_headline(report: dict):
    epochs = [b for b in ok_runs(report, "mlp") if b["params"].get("variant") == "epoch" and
              b["params"].get("processor") == "gpu" and "gpu_busy_percent" in b.get("counters", {})]
    if epochs:
        best = max(epochs, key=lambda b: b["counters"]["samples/s"])
        p, k = best["params"], best["counters"]
        missing = mlp.summary.epochs_not_measured(report, p["model"])
        if missing:  # the fastest point may be one that did not run: no answer
            return ("training-busy", f"**not answered**: {len(missing)} GPU epoch{'s' if len(missing) != 1 else ''} "
                    f"of {p['model']} not measured ({missing[0]}{'; …' if len(missing) > 1 else ''})", [])
        busiest = max(epochs, key=lambda b: b["counters"]["gpu_busy_percent"])
        # the fastest is not the busiest: where none kept the GPU busy, the answer says so first
        none_busy = ("" if busiest["counters"]["gpu_busy_percent"] >= mlp.summary.BUSY_PERCENT else
                     f"; no setting kept the GPU {mlp.summary.BUSY_PERCENT:.0f}% busy (the most: "
                     f"{busiest['counters']['gpu_busy_percent']:.0f}%, batch {busiest['params']['batch']}, "
                     f"{busiest['params']['workers']} workers)")
        return ("training-busy", f"batch {p['batch']} with **{p['workers']}** loader workers: "
                f"{noise.rate(k['samples/s'], [best])} samples/s, GPU busy {k['gpu_busy_percent']:.0f}% "
                f"({p['model']} epochs, {p['pinning']}){none_busy}",
                [best])
    rows = loader.summary.best_scaling_rows(report)
    if not rows:
        return None
    (consumer, cost), row = min(rows.items(), key=lambda item: (item[0][0] != "gpu", item[0][1]))
    missing = loader.summary.unmeasured(report, consumer, cost)
    if missing:  # the best point may be one that did not run: no answer
        return ("loader-workers", f"**not answered**: {loader.summary.unmeasured_text(missing, 1)} ({consumer} "
                f"consumer, {cost:g} µs/sample): the best may be one of them", [])
    workers = row["best_workers"]
    speedup = row["by_workers"][str(workers)].get("speedup_vs_0_workers")
    versus = f", {speedup:.2f}× 0 workers" if speedup and workers else ""
    run = loader.summary.loader_run(report, row, row["pinning"], workers)
    return ("loader-workers", f"batch {row['batch']} with **{workers}** loader workers: "
            f"{noise.rate(row['best_samples/s'], [run])} samples/s{versus} ({consumer} consumer, {cost:g} µs/sample)",
            [run])


def _gpu_cpu_headline(report: dict):
    pairs = mlp.summary.gpu_vs_cpu_pairs(report)
    if not pairs:
        return None
    speedup = lambda t: t[1]["counters"]["step_us"] / t[2]["counters"]["step_us"]  # noqa: E731
    low, high = min(pairs, key=speedup), max(pairs, key=speedup)
    like = f"{low[2]['params'].get('dtype')} {low[2]['params'].get('mode')} on both"
    where = lambda t: f"{t[0][0]} batch {t[0][1]}"  # noqa: E731
    text = (f"**{speedup(low):.2f}×** ({where(low)})" if low is high else
            f"**{speedup(low):.2f}×** ({where(low)}) to **{speedup(high):.1f}×** ({where(high)})")
    # a speed ratio, said as one: "0.93×" alone read as the time, the GPU faster, where it was slower
    return (f"the GPU's step {text} as fast as the CPU's, {like}",
            [b for _, c, g, _ in pairs for b in (c, g)])


def headlines(report: dict) -> list[str]:
    """One row per tutorial question, and one for hdbench's step beside PyTorch's (the suite's
    own claim): its answer, how sure it is, a link to the detail."""
    question = {anchor: q for anchor, q, *_ in QUESTIONS}
    rows = []
    for label, anchor, headline in (("Pinned vs pageable memory", "pinning", _pinning_headline),
                                    ("Async copy/compute overlap", "overlap", _overlap_headline),
                                    ("Batch size and loader workers", None, _batch_workers_headline),
                                    ("GPU vs CPU training step", "gpu-vs-cpu", _gpu_cpu_headline),
                                    ("hdbench vs PyTorch training step", "vs-pytorch",
                                     versus_pytorch.versus_pytorch_headline)):
        found = headline(report)
        if found and anchor is None:
            anchor, found = found[0], found[1:]
        if not found:
            rows.append([label, "not measured in these reports", "–", "–"])
            continue
        text, runs = found
        rows.append([label, text, noise.how_sure(runs) if runs else "–", f"[detail](#{slug(question[anchor])})"])
    return table(["question", "answer", "how sure (noise)", "where"], rows)


def runs_line(report: dict) -> str:
    """Where and when the (merged) report's runs ran: one run's host, start and version; for
    several, that the page is drawn from them all, each with its own."""
    contexts = report.get("contexts") or {"?": report["context"]}

    def run(ctx: dict) -> str:
        hd = ctx.get("hdbench", {})
        what = f"PyTorch {hd['torch_version']}" if hd.get("implementation") == "pytorch" and "torch_version" in hd \
            else made_by(hd, "hdbench")
        return f"host `{ctx.get('host_name', '?')}`, run {hd.get('started_at', '?')}, {what}"

    if len(contexts) < 2:
        ctx = report["context"]
        hd = ctx["hdbench"]
        return f"Host `{ctx.get('host_name', '?')}`, run {hd.get('started_at', '?')}, {made_by(hd, 'hdbench')}."
    return (f"**Drawn from {len(contexts)} runs**, read as one (where two ran the same configuration, the first "
            f"given is quoted): " + "; ".join(f"`{name}` ({run(ctx)})" for name, ctx in contexts.items()) + ".")


def reanalysed_text(hd: dict) -> str:
    """A profile made again from its kept records says by which revision: its findings and
    prices are that code's, not the recording's."""
    again = hd.get("reanalysed") or {}
    if not again:
        return ""
    return f", analysed again by revision {again.get('git_revision') or '(not recorded)'} at {again.get('at', '?')}"


def header(report: dict) -> list[str]:
    """The title (the machine by its GPU and CPU), the answers, then where and when it ran
    (each run, where the page is drawn from several)."""
    ctx = report["context"]
    hd = ctx["hdbench"]
    system = hd.get("system", {})
    files = ", ".join(f"`{s}`" for s in report.get("sources", [])) or "?"
    gpu = "" if system.get("gpus") else \
        f" No usable GPU ({system.get('gpu_unavailable_reason', 'unknown reason')})."
    made_up = [name for name, c in report.get("contexts", {}).items() if c.get("hdbench", {}).get("synthetic")]
    synthetic = f" **Synthetic**: {', '.join(f'`{n}`' for n in made_up)} made by a test generator, not measured." \
        if made_up else ""
    return [f"# hdbench: {machine_name(ctx)}", "", *headlines(report), "",
            f"{runs_line(report)}{gpu} Source: {files}. GB/s means 1e9 bytes per second.{synthetic}"]


def not_measured(report: dict) -> list[str]:
    skipped = [b for b in report["benchmarks"] if b.get("status") == "skipped"]
    failed = [b for b in report["benchmarks"] if b.get("status") == "error"]
    if not skipped and not failed:
        return []
    reasons: dict[str, int] = {}
    for b in skipped:
        reasons[b.get("skip_reason", "?")] = reasons.get(b.get("skip_reason", "?"), 0) + 1
    return [f"- {n} skipped: {reason}" for reason, n in sorted(reasons.items())] + \
        [f"- failed: {named(b)}: {b.get('error_message', '')}" for b in failed]


# (what the page says that uses the term, the term's line): the terms a reader meets on the page
# without a definition beside them, each said at the end only where the page uses it.
GLOSSARY = (
    (r"\bnoise\b|±",
     "**noise** (±): how far a run's median may be off, the half-width of its ~95% confidence interval in percent "
     "of the median; a run samples until it is under its target, or stops at the timeout (**noisy**)."),
    (r"\bCV\b",
     "**CV**: how much a run's samples themselves vary, their standard deviation over their mean; more samples "
     "narrow the noise, not the CV."),
    (r"\bspan\b",
     "**span**: a profiled program's time from its first GPU record to its last; savings are shares of it."),
    (r"GPU busy [\d(%]|GPU was busy \d",  # a measure, not the question "…keep the GPU busy…"
     "**GPU busy**: the time the GPU was working, or its share of the whole; for a training epoch, the steps' "
     "CUDA-event time over the epoch's."),
    (r"\bof ideal\b|ideal beaten",
     "**of ideal**: a pipeline's ideal time (its stages, each timed alone, fully overlapped) over its measured "
     "time, at most 100%; \"beaten\" where it ran faster, so that ideal was no bound."),
    (r"\bof ceiling\b|of the ceiling",
     "**of ceiling**: a copy's rate over this machine's ceiling, the rate of the same kind and size of copy in the "
     "benchmark report, at most 100%."),
)


def glossary(lines: list[str]) -> list[str]:
    """The closing section: a line for each term of GLOSSARY the page uses; [] where it uses none."""
    text = "\n".join(lines)
    used = [f"- {meaning}" for pattern, meaning in GLOSSARY if re.search(pattern, text)]
    return ["## Glossary", "", *used, ""] if used else []


def summarize_reports(reports: list[tuple[str, dict]]) -> str:
    report = merge(reports)
    extra = [line for _, heading, lines, _ in sections(reports) for line in (f"## {heading}", "", *lines, "")]
    title = sections_only_title(reports)
    if title:  # a profile alone: no benchmark questions to ask of it
        ctx = report["context"]
        hd = ctx["hdbench"]
        files = ", ".join(f"`{s}`" for s in report.get("sources", [])) or "?"
        page = [f"# {title}", "", *extra,
                f"Host `{ctx.get('host_name', '?')}`, run {hd.get('started_at', '?')}, {made_by(hd)}"
                f"{reanalysed_text(hd)}. Source: {files}. GB/s means 1e9 bytes per second.", ""]
        return "\n".join(page + glossary(page))
    out = header(report) + [""] + extra
    throttled = mlp.summary.gpu_throttling(report)
    if throttled:
        out += throttled + [""]
    noise_table = noise.by_family(report)
    if noise_table:
        out += ["## How sure the figures are", "", *noise_table, ""]
    answered, unanswerable = folded(answers(report), len(reports) > 1)
    for _, question, lines, _ in answered:
        out += [f"## {question}", "", *lines, ""]
    out += unanswerable
    missing = not_measured(report)
    if missing:
        out += ["## Not measured", "", *missing, ""]
    return "\n".join(out + glossary(out))


def summarize(report: dict, source: str) -> str:
    """The page for one report (kept for callers of the one-report form)."""
    return summarize_reports([(source, report)])
