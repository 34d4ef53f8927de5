"""The data-parallel question of `summarize` (see hdreport/summary.py): the step over N ranks
against one rank (scaling efficiency), whether the ranks agreed, how much of the gradient
all-reduce the GPU step's bucketed overlap hides against one all-reduce after the backward
pass, and NCCL's all-reduce time and bus bandwidth by size. With one rank the scaling
efficiency (1) and the bus bandwidth (0) are true by definition: they are not shown as
findings, and the section says how to run N ranks."""

from __future__ import annotations

import statistics

from hdreport.core.markdown import name, sources, table
from hdreport.core.schema import ok_runs
from hdreport.core.units import size_text

FAMILY = "dataparallel"
RUN_N_RANKS = "one rank: baseline only; run `hdbench_mpi` under `mpirun` for N ranks"
KINDS = {"cpu_step": "CPU step", "gpu_step": "GPU step"}


def _runs(report: dict, variant: str) -> list[dict]:
    return [b for b in ok_runs(report, FAMILY) if b["params"].get("variant") == variant and b.get("counters")]


def _key(b: dict) -> tuple:
    """Where a step run sits: model, batch, ranks, and the GPU of a one-rank run."""
    p = b["params"]
    device = p.get("device") if p.get("processor") == "gpu" and p.get("ranks") == 1 else None
    return (p.get("model", "?"), p.get("batch", 0), p.get("ranks", 1), device)


def _order(key: tuple) -> tuple:
    model = key[0]
    return ([int(w) for w in str(model).split("x") if w.isdigit()], key[1], key[2], key[3] or 0)


def _first(runs: list[dict], key) -> dict:
    """{key(run): run}, the first report's run where two reports ran the same point."""
    out: dict = {}
    for b in runs:
        out.setdefault(key(b), b)
    return out


def _us(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.1f}"


def _span(values: list[float], text, unit: str = "") -> str:
    lo, hi = text(min(values)), text(max(values))
    return f"**{lo}{unit}**" if lo == hi else f"**{lo}–{hi}{unit}**"


def _checks(b: dict) -> str:
    """The checks of an ok run (a failed check makes an error entry, never an ok one)."""
    if b["params"].get("ranks", 1) == 1:
        return "trivial (1 rank)"
    c = b.get("checks", {})
    if c and c.get("ranks_identical") and c.get("matches_one_rank"):
        return f"held (Δ {b['counters'].get('params_max_abs_diff_vs_one_rank', 0):.1e})"
    return "held" if not c else "**failed**"


def efficiency(b: dict) -> tuple[float, str]:
    """(the efficiency to quote, a note): never above 1. Efficiency is the one-rank step over N
    times the N-rank step; above 1 the N-rank step (or, with one rank, the step with the exchange)
    ran faster than its reference, which adds work, never removes it. Within the run's noise
    that is noise ('1.00*', noise); beyond it the one-rank reference is wrong."""
    c = b["counters"]
    eff = c["scaling_efficiency"]
    if eff <= 1:
        return eff, ""
    noise = c.get("noise_percent")
    if noise is not None and 100 * (eff - 1) <= noise:
        return 1.0, f"measured {eff:.2f}, within the step's noise (±{noise:.1f}%): noise, not a gain"
    return 1.0, (f"measured {eff:.2f}: the step ran faster than its one-rank reference (`one_rank_step_us`) by more "
                 f"than its noise{f' (±{noise:.1f}%)' if noise is not None else ''}: the reference is wrong, not a gain")


def efficiency_text(b: dict) -> str:
    """The efficiency as a table shows it: capped at 1 with its note."""
    eff, note = efficiency(b)
    return f"{eff:.2f}" if not note else f"≤ 1.00 ({note})"


def one_rank_above_one(report: dict) -> list[str]:
    """One line where a one-rank step reads faster with the exchange than without (its scaling
    efficiency above 1, which the report holds but the summary does not show): noise, not a gain."""
    above = [b for b in ok_runs(report, FAMILY) if b["params"].get("variant") in KINDS
             and b["params"].get("ranks", 1) == 1 and b.get("counters", {}).get("scaling_efficiency", 0) > 1]
    if not above:
        return []
    effs = [b["counters"]["scaling_efficiency"] for b in above]
    noise = [b["counters"]["noise_percent"] for b in above if "noise_percent" in b["counters"]]
    within = len(noise) == len(above) and all(100 * (e - 1) <= b["counters"]["noise_percent"]
                                              for e, b in zip(effs, above))
    noise_text = f"{'within' if within else 'beyond'} their noise, ±{_span(noise, lambda v: f'{v:.1f}', '%')}" \
        if noise else "noise not recorded"
    verdict = ("noise, not a gain" if within else
               "an exchange adds work, so the one-rank reference (`one_rank_step_us`, timed apart) is wrong, not "
               "the step a gain")
    many = len(above) != 1
    return [f"- {len(above)} one-rank step{'s' if many else ''} ran faster than {'their' if many else 'its'} one-rank "
            f"reference (`scaling_efficiency` {_span(effs, lambda v: f'{v:.2f}')} in the report, {noise_text}; "
            f"{', '.join(name(b) for b in above[:2])}{', …' if len(above) > 2 else ''}): {verdict}; read as 1 and "
            "not shown."]


def _point(key: tuple) -> str:
    gpu = f", GPU {key[3]}" if key[3] is not None else ""
    return f"{key[0]} batch {key[1]}{gpu}"


def cpu_steps(report: dict) -> tuple[list[str], list[str]]:
    """(answer lines, table lines) of the CPU step."""
    runs = _first(_runs(report, "cpu_step"), _key)
    many = {k: b for k, b in runs.items() if k[2] > 1}
    if not runs:
        return [], []
    if not many:
        by_model: dict = {}
        for k in sorted(runs, key=_order):
            by_model.setdefault(k[0], []).append(runs[k])
        lines = [f"- CPU step, one rank: {model} " +
                 ", ".join(f"batch {b['params']['batch']} {_us(b['counters']['step_us'])} µs" for b in bs) +
                 f" ({', '.join(name(b) for b in bs)})." for model, bs in by_model.items()]
        return lines, []
    lines = []
    for ranks in sorted({k[2] for k in many}):
        rows = [many[k] for k in sorted(many, key=_order) if k[2] == ranks]
        eff = [efficiency(b)[0] for b in rows]
        best = max(rows, key=lambda b: b["counters"]["scaling_efficiency"])
        bc = best["counters"]
        share = [b["counters"]["allreduce_us"] / b["counters"]["step_us"] for b in rows if b["counters"]["step_us"]]
        via = best["params"].get("communicator", "?").upper()
        lines.append(f"- CPU step over {ranks} ranks ({via}): scaling efficiency {_span(eff, lambda v: f'{v:.2f}')} "
                     f"over {len(rows)} model × batch point"
                     f"{'s' if len(rows) > 1 else ''}{' (capped at 1: ' + efficiency(best)[1] + ')' if efficiency(best)[1] else ''} "
                     f"(best {_point(_key(best))}: {_us(bc['step_us'])} µs on "
                     f"{ranks} ranks vs {_us(bc['one_rank_step_us'])} µs on one; {name(best)}); the all-reduce is "
                     f"{_span([100 * s for s in share], lambda v: f'{v:.0f}', '%')} of the step.")
    body = [[k[0], str(k[1]), str(k[2]), _us(b["counters"]["step_us"]), _us(b["counters"]["one_rank_step_us"]),
             f"**{efficiency_text(b)}**", _us(b["counters"]["allreduce_us"]),
             f"{b['counters']['allreduce_busbw_GB/s']:.2f}", _checks(b)]
            for k, b in sorted(many.items(), key=lambda i: _order(i[0]))]
    tab = ["", "CPU step (µs; one rank: rank 0 on the whole batch):", ""] + \
        table(["model", "batch", "ranks", "step", "one rank", "scaling efficiency", "all-reduce", "bus GB/s",
               "checks"], body, keys=3)
    return lines, tab + ["", f"From the `dataparallel/cpu/<communicator>/<model>/batch:<B>/ranks:<N>` runs "
                             f"({sources(report, many.values())})."]


def _hidden(runs: dict, k) -> float | None:
    """The share of the after-backward exchange's cost (its exposed time) that bucketing removed; None where
    nothing can overlap (one bucket: the all-reduce starts after the whole backward pass, so the two entries
    differ by noise alone; the H100's 784x32x10 read -37%)."""
    bucketed, none = runs.get((k, "bucketed")), runs.get((k, "none"))
    if not bucketed or not none or none["counters"].get("allreduce_exposed_us", 0) <= 0:
        return None
    if bucketed["counters"].get("buckets") == 1:
        return None
    return 1 - bucketed["counters"]["allreduce_exposed_us"] / none["counters"]["allreduce_exposed_us"]


def _verdict(hidden: float) -> str:
    return "mostly" if hidden >= 0.75 else "partly" if hidden >= 0.25 else "barely"


def gpu_steps(report: dict) -> tuple[list[str], list[str]]:
    """(answer lines, table lines) of the GPU step: bucketed overlap against one all-reduce after backward."""
    runs = _first(_runs(report, "gpu_step"), lambda b: (_key(b), b["params"].get("overlap")))
    points = sorted({k for k, _ in runs}, key=_order)
    if not points:
        return [], []
    many = any(k[2] > 1 for k in points)
    if many:  # each N-rank run carries its own one-rank time: the one-rank runs add nothing
        points = [k for k in points if k[2] > 1]
    lines, body = [], []
    for ranks in sorted({k[2] for k in points}):
        here = [k for k in points if k[2] == ranks and (k, "bucketed") in runs]
        if ranks == 1:
            reduce = [runs[(k, o)]["counters"]["allreduce_us"] for k in points for o in ("bucketed", "none")
                      if (k, o) in runs]
            lines.append(f"- GPU step, one rank: NCCL's mean over one rank moves no data (one in-place scaling "
                         f"pass over the gradients, {_span(reduce, _us, ' µs')}), so what the overlap hides of it "
                         "checks the mechanism, not a network.")
            continue
        if not here:
            continue
        one_bucket = [k for k in here if runs[(k, "bucketed")]["counters"].get("buckets") == 1]
        one_bucket_line = (f"  One bucket at {', '.join(_point(k) for k in one_bucket)}: the gradients fit "
                           f"`--hdbench_dp_bucket_bytes`, so the all-reduce starts after the whole backward pass "
                           "and nothing can overlap it.")
        hidden = [h for h in (_hidden(runs, k) for k in here) if h is not None]
        if not hidden:
            lines += [f"- GPU step over {ranks} ranks: nothing to hide."] + ([one_bucket_line] if one_bucket else [])
            continue
        saved = [(k, runs[(k, "none")]["counters"]["allreduce_exposed_us"] -
                  runs[(k, "bucketed")]["counters"]["allreduce_exposed_us"]) for k in here if (k, "none") in runs]
        median = statistics.median(hidden)
        line = (f"- GPU step over {ranks} ranks: bucketed overlap (as DDP) **{_verdict(median)}** hides the gradient "
                f"all-reduce: it removes {_span([100 * h for h in hidden], lambda v: f'{v:.0f}', '%')} of what one "
                f"all-reduce after backward adds to the step, over "
                f"{len(here)} model × batch point{'s' if len(here) > 1 else ''}")
        if saved:
            k, s = max(saved, key=lambda t: t[1])
            b, n = runs[(k, "bucketed")]["counters"], runs[(k, "none")]["counters"]
            line += (f"; at {_point(k)} it exposes {_us(b['allreduce_exposed_us'])} of "
                     f"{_us(b['allreduce_us'])} µs against {_us(n['allreduce_exposed_us'])} µs with one all-reduce "
                     f"after backward, a step {100 * (1 - b['step_us'] / n['step_us']):.0f}% shorter "
                     f"({name(runs[(k, 'bucketed')])})")
        lines.append(line + ".")
        if one_bucket:
            lines.append(one_bucket_line)
    for k in points:
        bkt, none = runs.get((k, "bucketed")), runs.get((k, "none"))
        any_run = bkt or none
        c = lambda b, f, text=_us: text(b["counters"][f]) if b and f in b["counters"] else "–"  # noqa: E731
        bold = "**" if many else ""  # one rank's hidden share is of NCCL's floor: no finding
        body.append([k[0], str(k[1]), str(k[2]) + (f" (GPU {k[3]})" if k[3] is not None else ""),
                     c(any_run, "step_no_exchange_us"), c(none, "step_us"), c(bkt, "step_us"),
                     c(none, "allreduce_us"), c(bkt, "allreduce_us"), _exposed(none), _exposed(bkt),
                     "–" if _hidden(runs, k) is None else f"{bold}{100 * _hidden(runs, k):.0f}%{bold}",
                     c(bkt, "buckets", lambda v: f"{v:g}")] +
                    ([c(none, "allreduce_busbw_GB/s", lambda v: f"{v:.1f}"),
                      efficiency_text(bkt) if bkt and "scaling_efficiency" in bkt["counters"] else "–"] if many else [])
                    + [_checks(any_run)])
    tab = ["", "GPU step (µs): no all-reduce (the bucketed run's; each run measures its own), one all-reduce "
               "after backward (`none`), bucketed and overlapped; exposed = a run's step − its own no-all-reduce "
               "step; hidden = 1 − exposed bucketed / exposed none:", ""] + \
        table(["model", "batch", "ranks", "no all-reduce", "step none", "step bucketed", "all-reduce none",
               "all-reduce bucketed", "exposed none", "exposed bucketed", "hidden bucketed", "buckets"] +
              (["bus GB/s (none)", "scaling efficiency (bucketed)"] if many else []) + ["checks"], body, keys=3)
    used = [b for (k, _), b in runs.items() if k in points]
    return lines, tab + ["", f"From the `dataparallel/gpu/nccl/<model>/batch:<B>/ranks:<N>/overlap:<overlap>` runs "
                             f"({sources(report, used)})."]


def _exposed(run: dict | None) -> str:
    """A run's exposed all-reduce time; where its step beat its own no-all-reduce step the
    counter is clamped to 0, which read as the exchange wholly hidden (an H200, 2026-11-27)."""
    c = run["counters"] if run else {}
    if "allreduce_exposed_us" not in c:
        return "–"
    if c.get("step_us", 0) < c.get("step_no_exchange_us", 0):
        return "none: the step beat its reference"
    return _us(c["allreduce_exposed_us"])


def nccl(report: dict) -> tuple[list[str], list[str]]:
    """(answer lines, table lines) of the NCCL all-reduce alone, by size and buckets."""
    runs = _first(_runs(report, "nccl_allreduce"),
                  lambda b: (b["params"].get("ranks", 1), b["params"].get("device"), b["params"].get("bytes", 0),
                             b["params"].get("buckets", 1)))
    if not runs:
        return [], []
    one = all(k[0] == 1 for k in runs)
    keys = sorted(runs, key=lambda k: (k[0], k[1] or 0, k[2], k[3]))
    if one:
        big = max(keys, key=lambda k: (k[2], -k[3]))
        floor = runs[big]["counters"]["allreduce_us"]
        lines = [f"- NCCL all-reduce, one rank per GPU: NCCL's floor, {_us(floor)} µs at "
                 f"{size_text(big[2])} ({name(runs[big])}); with one rank the all-reduce crosses no link, so no "
                 "bandwidth is reported: `hdbench_mpi`'s GPU steps give it at the gradients' size."]
    else:
        top = max((k for k in keys if k[0] > 1), key=lambda k: runs[k]["counters"]["allreduce_busbw_GB/s"])
        lines = [f"- NCCL all-reduce: bus bandwidth up to **{runs[top]['counters']['allreduce_busbw_GB/s']:.1f} GB/s** "
                 f"({size_text(top[2])}, {top[3]} bucket{'s' if top[3] != 1 else ''}, {top[0]} ranks; "
                 f"{name(runs[top])}): "
                 "hold it beside nccl-tests' `all_reduce_perf` on the same machine."]
    # One rank crosses no link: no rates (schema 2 reports none; schema 1's would restate the floor).
    rate = lambda k, f, bold="": (f"{bold}{runs[k]['counters'][f]:.1f}{bold}"  # noqa: E731
                                  if k[0] > 1 and f in runs[k]["counters"] else "–")
    rates = lambda k: [] if one else [rate(k, "allreduce_algbw_GB/s"), rate(k, "allreduce_busbw_GB/s", "**")]  # noqa: E731
    body = [[size_text(k[2]), str(k[3]), str(k[0]) + (f" (GPU {k[1]})" if k[1] is not None and k[0] == 1 else ""),
             _us(runs[k]["counters"]["allreduce_us"])] + rates(k) for k in keys]
    tab = ["", "NCCL all-reduce time (µs) by size:", ""] + \
        table(["size", "buckets", "ranks", "µs"] + ([] if one else ["algbw GB/s", "busbw GB/s"]), body, keys=3)
    return lines, tab + ["", f"From the `dataparallel/nccl_allreduce/…` runs ({sources(report, runs.values())})."]


def one_rank_banner(report: dict) -> list[str]:
    """The first line when a step ran with one rank only: what it is, and how to run N."""
    ranks: dict = {}
    for b in ok_runs(report, FAMILY):
        if b["params"].get("variant") in KINDS:
            ranks.setdefault(KINDS[b["params"]["variant"]], set()).add(b["params"].get("ranks", 1))
    alone = [kind for kind, r in ranks.items() if r == {1}]
    if not alone:
        return []
    which = "" if len(alone) == len(ranks) else f"{' and '.join(alone)}: "
    return [f"- **{which}{RUN_N_RANKS[0].upper() if not which else RUN_N_RANKS[0]}{RUN_N_RANKS[1:]}.** Scaling "
            "efficiency (1) and bus bandwidth (0) are trivial with one rank and not shown."]


def checks(report: dict) -> list[str]:
    """One line: whether the N-rank runs' checks held (a failed one is an error entry, listed apart)."""
    runs = [b for b in ok_runs(report, FAMILY) if b["params"].get("ranks", 1) > 1 and "checks" in b]
    if not runs:
        return []
    held = [b for b in runs if b["checks"].get("ranks_identical") and b["checks"].get("matches_one_rank")]
    diff = max(b["counters"].get("params_max_abs_diff_vs_one_rank", 0.0) for b in runs)
    tolerance = max(b["checks"].get("tolerance", 0.0) for b in runs)
    return [f"- Checks held in **{len(held)} of {len(runs)}** N-rank runs: every rank's parameters equal rank 0's "
            f"bit for bit, and within {tolerance:g} of one process trained on the whole batch (largest difference "
            f"{diff:.1e})."]


def failures(report: dict) -> list[str]:
    out = []
    entries = [b for b in report["benchmarks"] if b.get("params", {}).get("family") == FAMILY]
    for b in entries:
        if b.get("status") == "error":
            out.append(f"- **Failed**: {name(b)}: {b.get('error_message', '?')}")
    skipped: dict = {}
    for b in entries:
        if b.get("status") == "skipped":
            variant = {"gpu_step": "GPU steps", "nccl_allreduce": "NCCL all-reduces"}.get(b["params"].get("variant"),
                                                                                         "CPU steps")
            skipped[variant] = skipped.get(variant, 0) + 1
    if skipped:
        out.append("- Skipped: " + ", ".join(f"{n} {v}" for v, n in skipped.items()) + " (why: see Not measured).")
    return out


def data_parallel(report: dict) -> list[str]:
    """Answers first (one line each), then the tables."""
    parts = [cpu_steps(report), gpu_steps(report), nccl(report)]
    lines = one_rank_banner(report) + [line for answer, _ in parts for line in answer] + one_rank_above_one(report)
    lines += checks(report)
    if not lines and not any(b.get("status") == "error" for b in report["benchmarks"]
                             if b.get("params", {}).get("family") == FAMILY):
        return []
    lines += failures(report)
    for _, tab in parts:
        lines += tab
    return lines


QUESTIONS = [
    ("dataparallel", "Does the data-parallel step scale over ranks, and does DDP-style overlap hide the gradient "
     "all-reduce?", data_parallel,
     "the `dataparallel` family (`hdbench` for one rank, `hdbench_mpi` under `mpirun` for N)", ("dataparallel",)),
]
