"""The MLP questions of `summarize` (see hdreport/summary.py): GPU against CPU, hdbench
against PyTorch, what copying the batch costs, and what keeps the GPU busy in training."""

from __future__ import annotations

import statistics

from hdreport.core import movement
from hdreport.core.feeding import FED_FRACTION, PINNING_ORDER
from hdreport.core.markdown import name, provenance, sources, table
from hdreport.core.noise import noise_note
from hdreport.core.schema import ok_runs

BUSY_PERCENT = 90.0  # a GPU busy this share of an epoch counts as kept busy


def _fastest_steps(report: dict, keep) -> dict:
    """The fastest ok hdbench step per (model, batch) among those `keep(params)` accepts."""
    best: dict = {}
    for b in ok_runs(report, "mlp"):
        p = b["params"]
        if p.get("variant") != "step" or p.get("implementation", "hdbench") != "hdbench" or not keep(p) or \
                "step_us" not in b.get("counters", {}):
            continue
        key = (p["model"], p["batch"])
        if key not in best or b["counters"]["step_us"] < best[key]["counters"]["step_us"]:
            best[key] = b
    return best


def _model_order(key: tuple) -> tuple:
    model, batch = key[0], key[1]
    return ([int(w) for w in model.split("x")], batch)


def _cpu_threads(b: dict) -> str:
    """The threads a CPU step ran with: the sweep's choice (counters) or the count given."""
    threads = b.get("counters", {}).get("threads", b["params"].get("threads", "?"))
    text = f"{threads:g} threads" if isinstance(threads, (int, float)) else f"{threads} threads"
    if text == "1 threads":
        text = "1 thread"
    swept = sorted(int(k.rsplit(":", 1)[1]) for k in b.get("counters", {}) if k.startswith("sweep_step_us/threads:"))
    if swept:
        text += f", the fastest of {', '.join(str(t) for t in swept)}"
    return text


def _cpu_label(report: dict, b: dict) -> str:
    """How a CPU step ran: its BLAS core (from its report's context) and threads."""
    blas = report.get("contexts", {}).get(b.get("_source"), report.get("context", {})).get("hdbench", {}) \
        .get("cpu_blas", {})
    core = f"{blas.get('library', 'BLAS')} {blas['core_in_use']}, " if blas.get("core_in_use") else ""
    return core + _cpu_threads(b)


def _times(x: float) -> str:
    """A speed-up: two decimals below 10 (1.08x is not 1.1x), one above."""
    return f"{x:.2f}×" if x < 10 else f"{x:.1f}×"


def _step_us(b: dict) -> float:
    return b["counters"]["step_us"]


def _steps(report: dict, implementation: str, processor: str, one_run: bool = True) -> dict:
    """{(source, model, batch): [ok steps]} of one implementation on one processor (on a GPU
    with the batch already there: copying it in is another question); source None when not
    `one_run`."""
    out: dict = {}
    for b in ok_runs(report, "mlp"):
        p = b["params"]
        if p.get("variant") == "step" and p.get("implementation", "hdbench") == implementation and \
                p.get("processor") == processor and "step_us" in b.get("counters", {}) and \
                (processor == "cpu" or p.get("data") == "device"):
            out.setdefault((b.get("_source") if one_run else None, p["model"], p["batch"]), []).append(b)
    return out


def _like_for_like(cpu: dict, gpu_runs: list[dict]):
    """The GPU step a CPU step is compared with: the same dtype and eager, as the CPU step
    runs (each op launched in turn), or the same dtype in another mode when no eager one ran.
    bf16 or a CUDA-graph replay against fp32 eager on the CPU measures the dtype and the
    launches as much as the processor (38x where fp32 eager against fp32 is 1.08x)."""
    same = [g for g in gpu_runs if g["params"].get("dtype") == cpu["params"].get("dtype")]
    pool = [g for g in same if g["params"].get("mode") == "eager"] or same
    return min(pool, key=_step_us) if pool else None


def _gpu_label(g: dict) -> str:
    p = g["params"]
    mode = {"graph": "CUDA graph"}.get(p.get("mode"), p.get("mode", "?"))
    return f"{p.get('dtype', '?')} {mode}"


def _unlike(step: dict, like: dict) -> str:
    """What sets a GPU step apart from the like-for-like one: 'bf16 and a CUDA-graph replay'."""
    p, q = step["params"], like["params"]
    diffs = ([p.get("dtype", "?")] if p.get("dtype") != q.get("dtype") else []) + \
        (["a CUDA-graph replay" if p.get("mode") == "graph" else f"{p.get('mode')} mode"]
         if p.get("mode") != q.get("mode") else [])
    return " and ".join(diffs) or "another run of the same step"


def gpu_vs_cpu_pairs(report: dict, implementation: str = "hdbench", one_run: bool = True) -> list[tuple]:
    """[((model, batch), CPU step, like-for-like GPU step, fastest GPU step)] of one
    implementation, the CPU's fastest thread count; both from one report (one run) when
    `one_run` (hdbench's: the GPU's and the CPU's steps ran together), else from any (the
    PyTorch baseline runs its processors apart; the summary says when its runs differ)."""
    cpu_by = _steps(report, implementation, "cpu", one_run)
    gpu_by = _steps(report, implementation, "gpu", one_run)
    out = []
    for (src, model, batch), cpus in cpu_by.items():
        gpus = gpu_by.get((src, model, batch))
        cpu = min(cpus, key=_step_us)
        like = _like_for_like(cpu, gpus or [])
        if like:
            out.append(((model, batch), cpu, like, min(gpus, key=_step_us)))
    return sorted(out, key=lambda t: _model_order(t[0]))


def gpu_over_cpu(report: dict) -> list[str]:
    """Per model and batch: hdbench's GPU step against its CPU step in the same dtype and eager
    mode, from one report (one run), the CPU's BLAS core and threads named; the fastest GPU step
    beside it, labelled as not like for like; PyTorch's pair likewise when its report is given,
    with when and where its run was made."""
    pairs = gpu_vs_cpu_pairs(report)
    pt_pairs = {key: (c, g) for key, c, g, _ in gpu_vs_cpu_pairs(report, "pytorch", one_run=False)}
    moved = _memory_moved_gbps(report)
    lines = []
    for key, c, g, fastest in pairs:
        model, batch = key
        line = (f"- {model}, batch {batch}: GPU {_step_us(g):,.1f} µs ({_gpu_label(g)}) vs CPU {_step_us(c):,.1f} µs "
                f"({c['params'].get('dtype', '?')}, {_cpu_label(report, c)}): "
                f"the GPU **{_times(_step_us(c) / _step_us(g))}** as fast "
                f"({name(g)} vs {name(c)}){noise_note([c, g])}.{_in_step(g, moved)}")
        if fastest is not g:
            line += (f" The fastest GPU step, {_gpu_label(fastest)}, {_step_us(fastest):.1f} µs, is "
                     f"{_times(_step_us(c) / _step_us(fastest))} as fast as the CPU's "
                     f"(not like for like: {_unlike(fastest, g)}; "
                     f"{name(fastest)}).")
        if key in pt_pairs:
            pc, pg = pt_pairs[key]
            apart = provenance(report, pg, pc)
            when = "; ".join(filter(None, [f"CPU step from {provenance(report, pc, c)}" if provenance(report, pc, c)
                                           else "", f"its GPU step from {apart}" if apart else ""]))
            line += (f" PyTorch{f' ({when})' if when else ''}: GPU {_step_us(pg):,.1f} µs ({_gpu_label(pg)}) vs CPU "
                     f"{_step_us(pc):,.1f} µs ({_cpu_threads(pc)}): the GPU **{_times(_step_us(pc) / _step_us(pg))}** "
                     f"as fast ({name(pg)} vs {name(pc)}).")
        lines.append(line)
    paired = {key for key, *_ in pairs}
    alone = {}
    for processor in ("cpu", "gpu"):
        for (_, model, batch), runs in _steps(report, "hdbench", processor).items():
            if (model, batch) not in paired:
                alone.setdefault((model, batch), min(runs, key=_step_us))
    for key in sorted(alone, key=_model_order):
        b = alone[key]
        model, batch = key
        share = b["counters"].get("fraction_of_gemm_rate")
        rate = f", {100 * share:.0f}% of the GEMM rate" if share is not None else ""
        # Schema 2: against the CPU's measured FMA roof at the step's threads. Schema 1's
        # fraction_of_fp32_peak (a nominal peak: 133% of it on a 2-core EPYC) is not quoted.
        rate += _roof_share(b["counters"])
        where = b["params"]["processor"].upper()
        lines.append(f"- {model}, batch {batch}: {where} only, {_step_us(b):,.1f} µs per step "
                     f"({b['counters']['samples/s']:,.0f} samples/s{rate}; {name(b)}).{_in_step(b, moved)}")
    return lines


def _roof_share(counters: dict) -> str:
    """", N% of the CPU's measured fp32 roof", or, where a report written before the roof was measured again when
    beaten holds a share above 1, what that says: the roof read low (a core was busy while it was measured); nothing
    fp32 beats it, so no share is quoted."""
    roof = counters.get("fraction_of_fp32_roof")
    if roof is None:
        return ""
    if roof > 1:
        return ", above the CPU's measured fp32 roof, which read low (a core busy while it was measured): no share"
    return f", {100 * roof:.0f}% of the CPU's measured fp32 roof"


def _memory_moved_gbps(report: dict) -> float | None:
    """What the fastest device-local copy moved (read and written: twice its GB/s, which counts
    bytes copied), the roof of the update's traffic; None without the device_local family."""
    copies = [b["counters"]["bandwidth_GB/s"] for b in movement.runs(report, "device_local")
              if "bandwidth_GB/s" in b.get("counters", {})]
    return 2 * max(copies) if copies else None


def _in_step(run: dict, moved_gbps: float | None = None) -> str:
    """" Where its time goes, timed in the step: …" from an eager GPU step's parts, timed in place between CUDA
    events (`in_step_*`); nothing for a run without them. The update's rate counts the bytes it reads and
    writes, so it is held against what the device copy moved (`moved_gbps`), not the copy's GB/s; where the
    events between the parts make their sum differ from the step by over 5%, the sum is named, so no part
    reads as longer than the step it is part of."""
    c = run.get("counters", {})
    if c.get("in_step_us", 0) <= 0:
        return ""
    rate = ""
    if "update_GB/s" in c:
        rate = f" at {c['update_GB/s']:,.0f} GB/s read and written"
        if moved_gbps:
            rate += f" ({100 * c['update_GB/s'] / moved_gbps:.0f}% of the {moved_gbps:,.0f} GB/s the device copy moved)"
    step = _step_us(run)
    apart = (f"; timed between CUDA events, the parts add up to {c['in_step_us']:,.1f} µs against the step's "
             f"{step:,.1f} µs" if step > 0 and abs(c["in_step_us"] / step - 1) > 0.05 else "")
    return (f" Where its time goes, timed in the step: GEMMs {c['in_step_gemm_us']:,.1f} µs"
            f"{_share(c['in_step_gemm_us'], c['in_step_us'])}, the update {c['in_step_update_us']:,.1f} µs{rate}, "
            f"the rest (loss, input cast) {c['in_step_other_us']:,.1f} µs{apart}.")


def gpu_throttling(report: dict) -> list[str]:
    """Warnings for every reading of context.hdbench.gpu_conditions with a throttle reason other than idle."""
    lines = []
    contexts = report.get("contexts") or {None: report.get("context", {})}
    for src, ctx in contexts.items():
        readings = ctx.get("hdbench", {}).get("gpu_conditions")
        if not isinstance(readings, list):
            continue
        where = f" ({src})" if src and len(contexts) > 1 else ""
        busy = []
        for r in readings:
            reasons = [n for n in r.get("throttle_reasons", []) if n != "gpu_idle"]
            if not reasons:
                continue
            if r.get("when") == "busy":
                busy.append((r, reasons))
                continue
            clocks = f", SM {r['sm_clock_MHz']} of {r['sm_clock_max_MHz']} MHz" \
                if "sm_clock_MHz" in r and "sm_clock_max_MHz" in r else ""
            temp = f", {r['temperature_C']} °C" if "temperature_C" in r else ""
            lines.append(f"- **Warning:** the GPU's clocks were throttled at the {r.get('when', '?')} of the "
                         f"`{r.get('family', '?')}` family{where}: {', '.join(reasons)}{clocks}{temp}. "
                         "Its figures may be low.")
        if busy:
            lines.append(_busy_throttling(busy, where))
    return lines


def _busy_throttling(busy: list[tuple[dict, list[str]]], where: str) -> str:
    """One warning for every benchmark whose GPU read throttled while it ran (the busy readings: one a
    benchmark, so a power-capped run would otherwise take a line per GEMM-heavy benchmark): how many,
    the reasons, and the one whose clock fell lowest."""
    reasons = sorted({n for _, rs in busy for n in rs})
    clocked = [r for r, _ in busy if "sm_clock_MHz" in r]
    lowest = ""
    if clocked:
        r = min(clocked, key=lambda r: r["sm_clock_MHz"])
        of = f" of {r['sm_clock_max_MHz']:,}" if "sm_clock_max_MHz" in r else ""
        mean = f", mean {r['sm_clock_mean_MHz']:,.0f}" if "sm_clock_mean_MHz" in r else ""
        lowest = (f"; the SM clock fell lowest in `{r.get('benchmark', '?')}`: {r['sm_clock_MHz']:,}{of} MHz"
                  f"{mean} over {r.get('busy_samples', '?')} readings")
    n = len(busy)
    return (f"- **Warning:** {n} benchmark{'s' if n != 1 else ''} ran with the GPU's clocks throttled{where} "
            f"({', '.join(reasons)}){lowest}. Their figures may be low: `context.hdbench.gpu_conditions`, "
            "`when: busy`, names each.")


MATCH = ("model", "processor", "optimizer", "dtype", "mode", "data", "batch")
DTYPE_ORDER = {"fp32": 0, "tf32": 1, "bf16": 2}
DATA_ORDER = {"device": 0, "host": 0, "pinned": 1, "pageable": 2}


def _steps_by_point(report: dict) -> dict:
    """{MATCH values: {implementation: {benchmark name: run}}} of the ok training steps; where two reports ran the
    same benchmark, the first report's."""
    by: dict = {}
    for b in ok_runs(report, "mlp"):
        p = b["params"]
        if p.get("variant") == "step" and "step_us" in b.get("counters", {}):
            by.setdefault(tuple(p.get(k) for k in MATCH), {}).setdefault(p.get("implementation", "hdbench"), {}) \
                .setdefault(b["name"], b)
    return by


def _fastest(runs: dict | None):
    """The fastest of the runs at one point (they differ in what MATCH leaves out: a CPU step's threads)."""
    return min(runs.values(), key=lambda b: b["counters"]["step_us"]) if runs else None


def _pair_group(key: tuple) -> tuple[int, str]:
    """(order, label) of a pair: graph replays first (both sides free of per-step Python and launches, the
    like-for-like comparison), then eager GPU steps, then CPU steps."""
    processor, mode = key[1], key[4]
    if processor == "cpu":
        return 2, "CPU"
    if mode == "eager":
        return 1, "GPU, eager"
    return 0, "GPU, CUDA graph" if mode == "graph" else f"GPU, {mode}"


def _with_mode(key: tuple, mode: str) -> tuple:
    return key[:4] + (mode,) + key[5:]


def _thread_counts(runs: list[dict]) -> str:
    counts = {b.get("counters", {}).get("threads", b["params"].get("threads")) for b in runs}
    return ", ".join(f"{t:g}" if isinstance(t, (int, float)) else str(t) for t in sorted(counts, key=str))


def _group_note(label: str, pairs: list, by: dict) -> str:
    """Why the group's ratios look the way they do, from the reports' own runs."""
    if label == "CPU":
        return (f"threads: hdbench {_thread_counts([hd for _, hd, _ in pairs])}, "
                f"PyTorch {_thread_counts([pt for _, _, pt in pairs])}")
    if label == "GPU, eager":
        # Over the same points for both (where each replayed a graph of the step too), so the
        # two medians describe one set of steps (24 PyTorch pairs against 8 of hdbench's read
        # as 777 µs against 41).
        extra: dict = {"pytorch": [], "hdbench": []}
        for key, hd, pt in pairs:
            graphs = by.get(_with_mode(key, "graph"), {})
            hd_graph, pt_graph = _fastest(graphs.get("hdbench")), _fastest(graphs.get("pytorch"))
            if hd_graph and pt_graph:
                extra["pytorch"].append(_step_us(pt) - _step_us(pt_graph))
                extra["hdbench"].append(_step_us(hd) - _step_us(hd_graph))
        if extra["pytorch"]:
            def longer(us: float) -> str:  # a replay no faster than the eager step: nothing to take off
                return f"{us:,.0f} µs longer" if us >= 0.5 else "not longer (its replay was no faster)"

            return (f"over the {len(extra['pytorch'])} points where both also replayed a CUDA graph, PyTorch's eager "
                    f"step takes a median {longer(statistics.median(extra['pytorch']))} than its graph replay, "
                    f"hdbench's {longer(statistics.median(extra['hdbench']))}: Python, dispatch and launches, every "
                    "step")
        return "PyTorch's eager step pays Python, dispatch and launches every step"
    if label == "GPU, CUDA graph":
        return "both replay one captured step, no per-step Python or launches: the like-for-like comparison"
    return ""


def _point(key: tuple) -> str:
    model, _, _, dtype, _, data, batch = key
    moved = f", {data} batch" if data not in ("device", "host") else ""
    return f"{model}, {dtype}{moved}, batch {batch}"


def _pair_names(hd: dict, pt: dict) -> str:
    if hd["name"] == pt["name"]:
        return f"`{hd['name']}` in both reports" if hd.get("_label") else f"`{hd['name']}`"
    return f"{name(hd)} vs {name(pt)}"


def pytorch_pairs(report: dict, by: dict | None = None) -> list[tuple]:
    """[(point, hdbench's step, PyTorch's)] at every point both ran (the fastest of each side there),
    graph pairs first, then eager GPU steps, then CPU steps."""
    by = _steps_by_point(report) if by is None else by
    pairs = [(key, _fastest(runs["hdbench"]), _fastest(runs["pytorch"])) for key, runs in by.items()
             if {"hdbench", "pytorch"} <= set(runs)]
    return sorted(pairs, key=lambda t: (_pair_group(t[0])[0], [int(w) for w in t[0][0].split("x")], t[0][6],
                                        DTYPE_ORDER.get(t[0][3], 9), t[0][2], DATA_ORDER.get(t[0][5], 9)))


def pytorch_ratio(pair: tuple) -> float:
    """PyTorch's step time over hdbench's: above 1, hdbench is faster."""
    return pair[2]["counters"]["step_us"] / pair[1]["counters"]["step_us"]


def versus_pytorch_headline(report: dict):
    """(the top table's answer, its runs), or None where no point has both."""
    pairs = pytorch_pairs(report)
    if not pairs:
        return None
    weakest, strongest = min(pairs, key=pytorch_ratio), max(pairs, key=pytorch_ratio)
    spread = (f"**{pytorch_ratio(weakest):.2f}×** ({_point(weakest[0])}, {_pair_group(weakest[0])[1]})"
              if weakest is strongest else
              f"**{pytorch_ratio(weakest):.2f}×** ({_point(weakest[0])}, {_pair_group(weakest[0])[1]}) to "
              f"**{pytorch_ratio(strongest):.2f}×** ({_point(strongest[0])}, {_pair_group(strongest[0])[1]})")
    return (f"hdbench's step faster in **{sum(pytorch_ratio(p) > 1 for p in pairs)} of {len(pairs)}** points; "
            f"PyTorch's time ÷ hdbench's {spread}", [b for _, hd, pt in pairs for b in (hd, pt)])


def versus_pytorch(report: dict) -> list[str]:
    """hdbench's step against PyTorch's for every configuration both ran: one line per kind of step (CUDA-graph
    GPU steps, eager GPU steps, CPU steps), each with its median PyTorch ÷ hdbench ratio and range, then the
    table. The kinds are not pooled: PyTorch's eager GPU step carries its Python overhead (about 1 ms on an H100)
    and eager pairs come in three per point (batch on the device, pinned, pageable), so a pooled median says
    how slow eager PyTorch is rather than how the two steps compare."""
    by = _steps_by_point(report)
    pairs = pytorch_pairs(report, by)
    if not pairs:
        return []
    ratio = pytorch_ratio
    groups: dict = {}
    for pair in pairs:
        groups.setdefault(_pair_group(pair[0]), []).append(pair)
    lines = []
    for (_, label), members in groups.items():
        ratios = [ratio(pair) for pair in members]
        weakest = min(members, key=ratio)
        note = _group_note(label, members, by)
        spread = (f"median **{statistics.median(ratios):.2f}×**, range {min(ratios):.2f}×–{max(ratios):.2f}×"
                  if len(ratios) > 1 else f"**{ratios[0]:.2f}×**")
        lines.append(f"- **{label}**{f' ({note})' if note else ''}: hdbench faster in **{sum(r > 1 for r in ratios)}** "
                     f"of {len(ratios)}; PyTorch ÷ hdbench {spread}" +
                     (f"; weakest {_point(weakest[0])}, {ratio(weakest):.2f}× ({_pair_names(weakest[1], weakest[2])})."
                      if len(ratios) > 1 else f" ({_point(weakest[0])}; {_pair_names(weakest[1], weakest[2])})."))
    runs_apart = {}
    for _, hd, pt in pairs:
        if pt.get("_source") not in runs_apart:
            runs_apart[pt.get("_source")] = provenance(report, pt, hd)
    apart = [f"`{src}` from {how}" for src, how in runs_apart.items() if how]
    if apart:
        lines.append(f"- The two did not run together: PyTorch's steps are from {'; '.join(apart)} "
                     f"(hdbench's {sources(report, [hd for _, hd, _ in pairs])}); a busy spell in one run moves "
                     "its side only.")
    lines += ["", "Step time (µs), graph pairs first; the ratio is PyTorch's time ÷ hdbench's (above 1: hdbench is "
                  "faster):", ""]
    rows = []
    for pair in pairs:
        (model, processor, optimizer, dtype, mode, data, batch), hd, pt = pair
        bench = f"`{hd['name']}`" if hd["name"] == pt["name"] else f"`{hd['name']}` vs `{pt['name']}`"
        rows.append([model, processor.upper(), optimizer, dtype, mode, data, str(batch),
                     f"{hd['counters']['step_us']:,.1f}", f"{pt['counters']['step_us']:,.1f}",
                     f"**{ratio(pair):.2f}×**", bench])
    lines += table(["model", "processor", "optimizer", "dtype", "mode", "data", "batch", "hdbench µs", "PyTorch µs",
                    "PyTorch ÷ hdbench", "benchmark (hdbench's; PyTorch's after `vs` where named otherwise)"], rows)
    used = [hd for _, hd, _ in pairs] + [pt for _, _, pt in pairs]
    lines += ["", f"From the `mlp/step/…` runs of {sources(report, used)}, paired by model, processor, optimizer, "
                  "dtype, mode, data and batch (where one side ran several, e.g. CPU thread counts, its fastest)."]
    return lines + cpu_phases_side_by_side([pair for pair in pairs if pair[0][1] == "cpu"]) + \
        gpu_gemm_shares([pair for pair in pairs if pair[0][1] == "gpu"])


GEMM_PHASES = ("forward_gemm", "backward_input_gemm", "weight_gradient_gemm")


def _share(part: float, whole: float) -> str:
    """A part's share of its whole as " (67%)"; nothing where it is not within it (never above 1)."""
    return f" ({part / whole:.0%})" if 0 < part <= whole else ""


def _optimizer_column(header: list[str], rows: list[list[str]], optimizers: list[str]) -> tuple[list, list]:
    """The header and rows with an "optimizer" column after the model where the rows ran more than one optimizer
    (two rows of one model and batch would otherwise read alike); unchanged where they all ran one."""
    if len(set(optimizers)) < 2:
        return header, rows
    return ([header[0], "optimizer"] + header[1:],
            [[row[0], optimizer] + row[1:] for row, optimizer in zip(rows, optimizers)])


def gpu_gemm_shares(pairs: list) -> list[str]:
    """Where each eager GPU step's time goes: hdbench's GEMMs and its other parts as one step ran them between CUDA
    events (`in_step_gemm_us`, `in_step_update_us` + `in_step_other_us`), or in a report without that step its GEMMs
    as its plan timed each alone (`planned_gemm_us`); PyTorch's GEMM kernels as its profile timed them in the step
    (`kernel_us/<phase>`); each against its step. The rest of PyTorch's step is its other kernels and the time
    between kernels (launches, Python, gaps)."""
    rows, optimizers = [], []
    for (model, _, optimizer, dtype, mode, _, batch), hd, pt in pairs:
        mine, theirs = hd.get("counters", {}), pt.get("counters", {})
        in_step = "in_step_gemm_us" in mine
        if not (in_step or "planned_gemm_us" in mine) or "kernel_us" not in theirs:
            continue
        my_gemm = mine["in_step_gemm_us"] if in_step else mine["planned_gemm_us"]
        my_other = mine.get("in_step_update_us", 0.0) + mine.get("in_step_other_us", 0.0)
        gemm = sum(theirs.get(f"kernel_us/{p}", 0.0) for p in GEMM_PHASES)
        between = theirs["step_us"] - theirs["kernel_us"]
        rows.append([model, dtype, mode, str(batch), f"{mine['step_us']:,.1f}",
                     f"{my_gemm:,.1f}{_share(my_gemm, mine['step_us'])}" + ("" if in_step else " alone"),
                     f"{my_other:,.1f}" if in_step else "–",
                     f"{theirs['step_us']:,.1f}", f"{gemm:,.1f}{_share(gemm, theirs['step_us'])}",
                     f"{theirs['kernel_us'] - gemm:,.1f}", f"{between:,.1f}" if between > 0 else "–"])
        optimizers.append(optimizer)
    if not rows:
        return []
    header, rows = _optimizer_column(["model", "dtype", "mode", "batch", "hdbench step", "its GEMMs",
                                      "its other parts", "PyTorch step", "its GEMM kernels", "its other kernels",
                                      "between kernels"], rows, optimizers)
    return ["", "Where each GPU step's time goes (µs a step): hdbench's GEMMs (each with its epilogue) and its other "
                "parts (the update, the loss, the input's cast) as one step ran them between CUDA events, or marked "
                "\"alone\", its GEMMs as its plan timed each by itself; PyTorch's GEMM kernels as its profile timed "
                "them in the step, each with its share of the step; the rest of PyTorch's step is its other kernels "
                "and the time between kernels (launches, Python, gaps):", ""] + table(header, rows)


# hdbench's CPU phases (`phase_us/<phase>`, lib/mlp/mlp_cpu.hpp) in the groups both steps can be set against:
# hdbench updates its weights inside its weight-gradient blocks, PyTorch after all of them.
PHASE_GROUPS = (
    ("forward GEMMs", ("forward_gemm",)),
    ("backward-input GEMMs", ("backward_input_gemm",)),
    ("weight gradients and the optimizer", ("weight_gradient_gemm", "optimizer")),
    ("element-wise passes and the loss", ("forward_elementwise", "backward_elementwise", "loss")),
)


def _phase_groups(b: dict) -> list[float] | None:
    c = b.get("counters", {})
    if not all(f"phase_us/{p}" in c for _, phases in PHASE_GROUPS for p in phases):
        return None
    return [sum(c[f"phase_us/{p}"] for p in phases) for _, phases in PHASE_GROUPS]


def cpu_phases_side_by_side(pairs: list) -> list[str]:
    """Where each CPU step's time goes, hdbench's phases beside PyTorch's (both from profiled steps after the
    timed ones), and the part of the step where PyTorch gains most on hdbench: where PyTorch wins a config,
    which part it wins."""
    rows, optimizers = [], []
    for (model, _, optimizer, _, _, _, batch), hd, pt in pairs:
        mine, theirs = _phase_groups(hd), _phase_groups(pt)
        if mine is None or theirs is None:
            continue
        optimizers.append(optimizer)
        lead = max(range(len(PHASE_GROUPS)), key=lambda i: mine[i] - theirs[i])
        gained = mine[lead] - theirs[lead]
        rows.append([model, str(batch)] + [f"{m:,.0f} / {t:,.0f}" for m, t in zip(mine, theirs)] +
                    [f"{PHASE_GROUPS[lead][0]} ({gained:,.0f} µs less)" if gained > 0 else "none"])
    if not rows:
        return []
    header, rows = _optimizer_column(["model", "batch"] + [label for label, _ in PHASE_GROUPS] +
                                     ["where PyTorch gains most"], rows, optimizers)
    return ["", "Where each CPU step's time goes (µs a step, hdbench / PyTorch, each from steps profiled after its "
                "timed ones; hdbench updates its weights inside its weight-gradient GEMMs, PyTorch after them, so the "
                "two are one column):", ""] + table(header, rows)


def batch_movement(report: dict) -> list[str]:
    """The GPU step that first copies its batch in, against the one whose batch is already there."""
    lines = []
    for data in ("pinned", "pageable"):
        moved = _fastest_steps(report, lambda p, d=data: p["processor"] == "gpu" and p.get("data") == d)
        for key in sorted(moved, key=_model_order):
            m = moved[key]
            here = _fastest_steps(report, lambda p, mp=m["params"]: p["processor"] == "gpu" and p["data"] == "device"
                                  and p["dtype"] == mp["dtype"] and p["mode"] == mp["mode"]
                                  and p["optimizer"] == mp["optimizer"]).get(key)
            if not here:
                continue
            model, batch = key
            lines.append(
                f"- {model}, batch {batch}, {m['params']['dtype']}: copying the batch from {data} memory makes a "
                f"step **{m['counters']['step_us'] / here['counters']['step_us']:.2f}×** as long "
                f"({m['counters']['step_us']:.1f} vs {here['counters']['step_us']:.1f} µs; {name(m)}).")
    return lines


def epochs_not_measured(report: dict, model: str) -> list[str]:
    """The GPU epochs of `model` that were skipped or failed, in words (batch, workers, why)."""
    out = []
    for b in report["benchmarks"]:
        p = b.get("params", {})
        if p.get("family") == "mlp" and p.get("variant") == "epoch" and p.get("processor") == "gpu" and \
                p.get("model") == model and b.get("status") in ("skipped", "error"):
            why = " ".join(str(b.get("skip_reason") or b.get("error_message") or "no reason given").split())
            out.append(f"batch {p.get('batch', '?')}, {p.get('workers', '?')} workers: {b.get('status')} ({why})")
    return out


def training_gpu_busy(report: dict) -> list[str]:
    """Per model, from the GPU training epochs (loader -> copy -> step): the fastest
    batch and worker count, the fewest workers that come close at that batch, and the
    smallest batch that kept the GPU busy (or the busiest run when none did); then a
    table of samples/s and GPU busy % by batch x pinning and workers."""
    by_model: dict = {}
    for b in ok_runs(report, "mlp"):
        p = b["params"]
        if p.get("variant") == "epoch" and p.get("processor") == "gpu" and "gpu_busy_percent" in b.get("counters", {}):
            by_model.setdefault(p["model"], []).append(b)
    lines = []
    for model in sorted(by_model, key=lambda m: [int(w) for w in m.split("x")]):
        runs = by_model[model]
        best = max(runs, key=lambda b: b["counters"]["samples/s"])
        p, k = best["params"], best["counters"]
        missing = epochs_not_measured(report, model)
        if missing:  # the fastest point may be one that did not run: no answer
            lines.append(f"- {model}: **not answered**: {len(missing)} GPU epoch{'s' if len(missing) != 1 else ''} of "
                         f"the grid not measured ({'; '.join(missing[:3])}{'; …' if len(missing) > 3 else ''}), so the "
                         f"best batch and worker count are not known. The fastest measured, not an answer: batch "
                         f"{p['batch']} with {p['workers']} workers ({p['pinning']}), {k['samples/s']:,.0f} samples/s "
                         f"({name(best)}).")
            continue
        line = (f"- {model}: fastest epoch at batch {p['batch']} with **{p['workers']}** loader workers "
                f"({p['pinning']}): {k['samples/s']:,.0f} samples/s, GPU busy {k['gpu_busy_percent']:.0f}% "
                f"({name(best)}){noise_note([best])}.")
        same_point = [b for b in runs if b["params"]["batch"] == p["batch"] and b["params"]["pinning"] == p["pinning"]
                      and b["counters"]["samples/s"] >= FED_FRACTION * k["samples/s"]]
        fewest = min(same_point, key=lambda b: b["params"]["workers"])
        if fewest["params"]["workers"] < p["workers"]:
            line += (f" {fewest['params']['workers']} workers already reach "
                     f"{100 * fewest['counters']['samples/s'] / k['samples/s']:.0f}% of it.")
        busy = [b for b in runs if b["counters"]["gpu_busy_percent"] >= BUSY_PERCENT]
        if busy:
            first = min(busy, key=lambda b: (b["params"]["batch"], b["params"]["workers"]))
            line += (f" The GPU was at least {BUSY_PERCENT:.0f}% busy from batch {first['params']['batch']} "
                     f"({first['params']['workers']} workers, {first['counters']['gpu_busy_percent']:.0f}%; "
                     f"{name(first)}).")
        else:
            busiest = max(runs, key=lambda b: b["counters"]["gpu_busy_percent"])
            line += (f" No run kept the GPU {BUSY_PERCENT:.0f}% busy: the busiest was "
                     f"{busiest['counters']['gpu_busy_percent']:.0f}% at batch {busiest['params']['batch']} with "
                     f"{busiest['params']['workers']} workers ({name(busiest)}); the loader, the copy or the "
                     "launches leave it waiting.")
        lines.append(line)
    for model in sorted(by_model, key=lambda m: [int(w) for w in m.split("x")]):
        lines += _epoch_table(model, by_model[model])
    return lines



def _epoch_table(model: str, runs: list[dict]) -> list[str]:
    workers = sorted({b["params"]["workers"] for b in runs})
    points = sorted({(b["params"]["batch"], b["params"]["pinning"]) for b in runs},
                    key=lambda t: (t[0], PINNING_ORDER.get(t[1], 9)))
    if len(runs) < 2:
        return []
    cells = {}
    for b in runs:  # the first report's run where two ran the same point
        cells.setdefault((b["params"]["batch"], b["params"]["pinning"], b["params"]["workers"]), b)
    rows = []
    for batch, pinning in points:
        row = [str(batch), pinning]
        for w in workers:
            b = cells.get((batch, pinning, w))
            row.append("–" if b is None else
                       f"{b['counters']['samples/s']:,.0f} ({b['counters']['gpu_busy_percent']:.0f}%)")
        rows.append(row)
    return ["", f"Training epochs of {model}: samples/s (GPU busy %) by batch × pinning and loader workers:", ""] + \
        table(["batch", "pinning"] + [f"{w} workers" for w in workers], rows) + \
        ["", f"From the `mlp/epoch/gpu/{model}/…/pinning:<pinning>/workers:<workers>/batch:<batch>` runs "
             f"({sources(None, runs)})."]


QUESTIONS = [
    ("training-busy", "Which batch size and loader workers keep the GPU busy in training?", training_gpu_busy,
     "the `mlp` family's epochs on a GPU", ("mlp_gpu_busy_percent", "mlp--variant-epoch")),
    ("gpu-vs-cpu", "How much faster is a training step on the GPU than on the CPU?", gpu_over_cpu,
     "the `mlp` family's training steps", ("mlp_gpu_vs_cpu", "mlp_step_us", "mlp--variant-step")),
    ("vs-pytorch", "How does hdbench's training step compare with PyTorch's?", versus_pytorch,
     "the `mlp` family and `baselines/pytorch/pytorch_baseline.py` on the same machine, the reports given together",
     ("mlp_vs_pytorch", "mlp_TFLOP_per_s")),
    ("batch-copy", "What does moving the batch to the GPU cost each step?", batch_movement,
     "the `mlp` family on a GPU with `--hdbench_mlp_data=device,pinned,pageable`", ("mlp_batch_copy",)),
]
