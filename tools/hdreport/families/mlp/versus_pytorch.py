"""The mlp family's question "How does hdbench's training step compare with PyTorch's?":
hdbench's step against PyTorch's at every point both ran, graph replays, eager GPU steps and
CPU steps apart; where each GPU step's time goes (its GEMMs' share) and the CPU steps' phases
side by side; and the one line of the summary's top table."""

from __future__ import annotations

import statistics

from hdreport.core.markdown import name, provenance, sources, table
from hdreport.core.schema import ok_runs


def step_us(b: dict) -> float:
    return b["counters"]["step_us"]


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
    return min(runs.values(), key=step_us) if runs else None


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


def threads_text(b: dict) -> str:
    """The threads one CPU step ran with, as its report records them: the count (hdbench's sweep's
    pick for `threads:auto`, in its counters, marked "auto"), else the count it was given, else
    "not recorded"."""
    counted, given = b.get("counters", {}).get("threads"), b.get("params", {}).get("threads")
    if isinstance(counted, (int, float)):
        return f"{counted:g}" + (f" ({given})" if isinstance(given, str) else "")
    if isinstance(given, (int, float)):
        return f"{given:g}"
    return str(given) if given else "not recorded"


THREADS = "threads (hdbench / PyTorch)"  # a CPU pair's column: both sides' counts


def _threads_pair(hd: dict, pt: dict) -> str:
    return f"{threads_text(hd)} / {threads_text(pt)}"


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
                extra["pytorch"].append(step_us(pt) - step_us(pt_graph))
                extra["hdbench"].append(step_us(hd) - step_us(hd_graph))
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
    return step_us(pair[2]) / step_us(pair[1])


def _by_kind(pairs: list) -> dict:
    """{(order, label): pairs} of each kind of step (`_pair_group`), in the pairs' order."""
    groups: dict = {}
    for pair in pairs:
        groups.setdefault(_pair_group(pair[0]), []).append(pair)
    return groups


def spread_percent(b: dict) -> float | None:
    """A step's spread in percent: hdbench's noise (the median's), else the CV of its samples
    (PyTorch's baseline records no more); None where neither was recorded."""
    c = b.get("counters", {})
    for key in ("noise_percent", "cv_percent"):
        if isinstance(c.get(key), (int, float)) and c[key] >= 0:
            return float(c[key])
    return None


def within_noise(pair: tuple) -> bool:
    """Whether the two steps are closer than their spreads together: neither is faster beyond
    them (a 0.90× pair at ±12% and ±6%, a 2-vCPU VM, 2026-11-29)."""
    spreads = [spread_percent(pair[1]), spread_percent(pair[2])]
    return None not in spreads and abs(pytorch_ratio(pair) - 1) * 100 < sum(spreads)


def _counted(pairs: list) -> str:
    """'faster in 7 of 8' and, where any are, the pairs within noise by their ratios: neither
    step is faster beyond the two runs' spread there."""
    close = [f"{pytorch_ratio(p):.2f}×" for p in pairs if within_noise(p)]
    shown = ", ".join(close[:3]) + (", …" if len(close) > 3 else "")
    return (f"faster in **{sum(pytorch_ratio(p) > 1 for p in pairs)}** of {len(pairs)}" +
            (f" ({len(close)} within noise: {shown})" if close else ""))


def versus_pytorch_headline(report: dict):
    """(the top table's answer, its runs), or None where no point has both: each kind of step
    apart (a CPU step PyTorch wins hid among 32 GPU ones as "33 of 36")."""
    pairs = pytorch_pairs(report)
    if not pairs:
        return None
    parts = []
    for (_, label), members in _by_kind(pairs).items():
        ratios = [pytorch_ratio(p) for p in members]
        span = f"{min(ratios):.2f}×" if len(ratios) == 1 else f"{min(ratios):.2f}×–{max(ratios):.2f}×"
        parts.append(f"{label}: hdbench {_counted(members)}, {span}")
    return ("; ".join(parts) + " (PyTorch's time ÷ hdbench's)", [b for _, hd, pt in pairs for b in (hd, pt)])


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
    lines = []
    for (_, label), members in _by_kind(pairs).items():
        ratios = [ratio(pair) for pair in members]
        weakest = min(members, key=ratio)
        note = _group_note(label, members, by)
        spread = (f"median **{statistics.median(ratios):.2f}×**, range {min(ratios):.2f}×–{max(ratios):.2f}×"
                  if len(ratios) > 1 else f"**{ratios[0]:.2f}×**")
        lines.append(f"- **{label}**{f' ({note})' if note else ''}: hdbench {_counted(members)}; PyTorch ÷ hdbench "
                     f"{spread}" +
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
    # A CPU step's time hangs on its thread count: each row says both sides' (the fastest of a sweep
    # is one count, and PyTorch's may be another).
    on_cpu = any(key[1] == "cpu" for key, _, _ in pairs)
    for pair in pairs:
        (model, processor, optimizer, dtype, mode, data, batch), hd, pt = pair
        bench = f"`{hd['name']}`" if hd["name"] == pt["name"] else f"`{hd['name']}` vs `{pt['name']}`"
        threads = [_threads_pair(hd, pt) if processor == "cpu" else "–"] if on_cpu else []
        rows.append([model, processor.upper(), optimizer, dtype, mode, data, str(batch), *threads,
                     f"{hd['counters']['step_us']:,.1f}", f"{pt['counters']['step_us']:,.1f}",
                     f"**{ratio(pair):.2f}×**" + (" (within noise)" if within_noise(pair) else ""), bench])
    lines += table(["model", "processor", "optimizer", "dtype", "mode", "data", "batch"] +
                   ([THREADS] if on_cpu else []) +
                   ["hdbench µs", "PyTorch µs", "PyTorch ÷ hdbench",
                    "benchmark (hdbench's; PyTorch's after `vs` where named otherwise)"], rows, keys=7 + on_cpu)
    used = [hd for _, hd, _ in pairs] + [pt for _, _, pt in pairs]
    lines += ["", f"From the `mlp/step/…` runs of {sources(report, used)}, paired by model, processor, optimizer, "
                  "dtype, mode, data and batch (where one side ran several, e.g. CPU thread counts, its fastest)." +
              (" Within noise: the two differ by less than their spreads together, hdbench's noise (of its median) "
               "and PyTorch's CV (the spread of its samples; its baseline records no more), so neither is faster "
               "beyond them." if any(within_noise(pair) for pair in pairs) else "")]
    return lines + cpu_phases_side_by_side([pair for pair in pairs if pair[0][1] == "cpu"]) + \
        gpu_gemm_shares([pair for pair in pairs if pair[0][1] == "gpu"])


GEMM_PHASES = ("forward_gemm", "backward_input_gemm", "weight_gradient_gemm")


def share_of(part: float, whole: float) -> str:
    """A part's share of its whole as " (67%)"; nothing where it is not within it (never above 1)."""
    return f" ({part / whole:.0%})" if 0 < part <= whole else ""


def gpu_gemm_shares(pairs: list) -> list[str]:
    """Where each eager GPU step's time goes: hdbench's GEMMs and its other parts as one step ran them between CUDA
    events (`in_step_gemm_us`, `in_step_update_us` + `in_step_other_us`), or in a report without that step its GEMMs
    as its plan timed each alone (`planned_gemm_us`); PyTorch's GEMM kernels as its profile timed them in the step
    (`kernel_us/<phase>`); each against its step. The rest of PyTorch's step is its other kernels and the time
    between kernels (launches, Python, gaps)."""
    rows = []
    for (model, _, optimizer, dtype, mode, _, batch), hd, pt in pairs:
        mine, theirs = hd.get("counters", {}), pt.get("counters", {})
        in_step = "in_step_gemm_us" in mine
        if not (in_step or "planned_gemm_us" in mine) or "kernel_us" not in theirs:
            continue
        my_gemm = mine["in_step_gemm_us"] if in_step else mine["planned_gemm_us"]
        my_other = mine.get("in_step_update_us", 0.0) + mine.get("in_step_other_us", 0.0)
        gemm = sum(theirs.get(f"kernel_us/{p}", 0.0) for p in GEMM_PHASES)
        between = theirs["step_us"] - theirs["kernel_us"]
        rows.append([model, optimizer, dtype, mode, str(batch), f"{mine['step_us']:,.1f}",
                     f"{my_gemm:,.1f}{share_of(my_gemm, mine['step_us'])}" + ("" if in_step else " alone"),
                     f"{my_other:,.1f}" if in_step else "–",
                     f"{theirs['step_us']:,.1f}", f"{gemm:,.1f}{share_of(gemm, theirs['step_us'])}",
                     f"{theirs['kernel_us'] - gemm:,.1f}", f"{between:,.1f}" if between > 0 else "–"])
    if not rows:
        return []
    header = ["model", "optimizer", "dtype", "mode", "batch", "hdbench step", "its GEMMs", "its other parts",
              "PyTorch step", "its GEMM kernels", "its other kernels", "between kernels"]
    return ["", "Where each GPU step's time goes (µs a step): hdbench's GEMMs (each with its epilogue) and its other "
                "parts (the update, the loss, the input's cast) as one step ran them between CUDA events, or marked "
                "\"alone\", its GEMMs as its plan timed each by itself; PyTorch's GEMM kernels as its profile timed "
                "them in the step, each with its share of the step; the rest of PyTorch's step is its other kernels "
                "and the time between kernels (launches, Python, gaps):", ""] + table(header, rows, keys=5)


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
    rows = []
    for (model, _, optimizer, _, _, _, batch), hd, pt in pairs:
        mine, theirs = _phase_groups(hd), _phase_groups(pt)
        if mine is None or theirs is None:
            continue
        lead = max(range(len(PHASE_GROUPS)), key=lambda i: mine[i] - theirs[i])
        gained = mine[lead] - theirs[lead]
        rows.append([model, optimizer, str(batch), _threads_pair(hd, pt)] +
                    [f"{m:,.0f} / {t:,.0f}" for m, t in zip(mine, theirs)] +
                    [f"{PHASE_GROUPS[lead][0]} ({gained:,.0f} µs less)" if gained > 0 else "none"])
    if not rows:
        return []
    header = ["model", "optimizer", "batch", THREADS] + [label for label, _ in PHASE_GROUPS] + \
        ["where PyTorch gains most"]
    return ["", "Where each CPU step's time goes (µs a step, hdbench / PyTorch, each from steps profiled after its "
                "timed ones; hdbench updates its weights inside its weight-gradient GEMMs, PyTorch after them, so the "
                "two are one column):", ""] + table(header, rows, keys=4)
