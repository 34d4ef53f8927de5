"""The MLP questions of `summarize` (see hdreport/summary.py): GPU against CPU, hdbench
against PyTorch (versus_pytorch.py), what copying the batch costs, and what keeps the GPU
busy in training."""

from __future__ import annotations

from hdreport.core import movement
from hdreport.core.feeding import FED_FRACTION, PINNING_ORDER
from hdreport.core.markdown import name, provenance, sources, table
from hdreport.core.noise import noise_note, rate
from hdreport.core.schema import ok_runs
from hdreport.families.mlp.versus_pytorch import DTYPE_ORDER, share_of, step_us, versus_pytorch

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
    return min(pool, key=step_us) if pool else None


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
        cpu = min(cpus, key=step_us)
        like = _like_for_like(cpu, gpus or [])
        if like:
            out.append(((model, batch), cpu, like, min(gpus, key=step_us)))
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
        line = (f"- {model}, batch {batch}: GPU {step_us(g):,.1f} µs ({_gpu_label(g)}) vs CPU {step_us(c):,.1f} µs "
                f"({c['params'].get('dtype', '?')}, {_cpu_label(report, c)}): "
                f"the GPU **{_times(step_us(c) / step_us(g))}** as fast "
                f"({name(g)} vs {name(c)}){noise_note([c, g])}.{_in_step(g, moved)}")
        if fastest is not g:
            line += (f" The fastest GPU step, {_gpu_label(fastest)}, {step_us(fastest):.1f} µs, is "
                     f"{_times(step_us(c) / step_us(fastest))} as fast as the CPU's "
                     f"(not like for like: {_unlike(fastest, g)}; "
                     f"{name(fastest)}).")
        if key in pt_pairs:
            pc, pg = pt_pairs[key]
            apart = provenance(report, pg, pc)
            when = "; ".join(filter(None, [f"CPU step from {provenance(report, pc, c)}" if provenance(report, pc, c)
                                           else "", f"its GPU step from {apart}" if apart else ""]))
            line += (f" PyTorch{f' ({when})' if when else ''}: GPU {step_us(pg):,.1f} µs ({_gpu_label(pg)}) vs CPU "
                     f"{step_us(pc):,.1f} µs ({_cpu_threads(pc)}): the GPU **{_times(step_us(pc) / step_us(pg))}** "
                     f"as fast ({name(pg)} vs {name(pc)}).")
        lines.append(line)
    paired = {key for key, *_ in pairs}
    alone = {}
    for processor in ("cpu", "gpu"):
        for (_, model, batch), runs in _steps(report, "hdbench", processor).items():
            if (model, batch) not in paired:
                alone.setdefault((model, batch), min(runs, key=step_us))
    for key in sorted(alone, key=_model_order):
        b = alone[key]
        model, batch = key
        gemm = b["counters"].get("fraction_of_gemm_rate")
        share = f", {100 * gemm:.0f}% of the GEMM rate" if gemm is not None else ""
        # Schema 2: against the CPU's measured FMA roof at the step's threads. Schema 1's
        # fraction_of_fp32_peak (a nominal peak: 133% of it on a 2-core EPYC) is not quoted.
        share += _roof_share(b["counters"])
        where = b["params"]["processor"].upper()
        lines.append(f"- {model}, batch {batch}: {where} only, {step_us(b):,.1f} µs per step "
                     f"({rate(b['counters']['samples/s'], [b])} samples/s{share}; {name(b)}).{_in_step(b, moved)}")
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
    reads as longer than the step it is part of. The GEMMs' share is of the step, as in the table beside
    PyTorch's (of the parts' sum it was a second share for one step: 92% and 96%)."""
    c = run.get("counters", {})
    if c.get("in_step_us", 0) <= 0:
        return ""
    rate = ""
    if "update_GB/s" in c:
        rate = f" at {c['update_GB/s']:,.0f} GB/s read and written"
        if moved_gbps:
            rate += f" ({100 * c['update_GB/s'] / moved_gbps:.0f}% of the {moved_gbps:,.0f} GB/s the device copy moved)"
    step = step_us(run)
    apart = (f"; timed between CUDA events, the parts add up to {c['in_step_us']:,.1f} µs against the step's "
             f"{step:,.1f} µs" if step > 0 and abs(c["in_step_us"] / step - 1) > 0.05 else "")
    return (f" Where its time goes, timed in the step: GEMMs {c['in_step_gemm_us']:,.1f} µs"
            f"{share_of(c['in_step_gemm_us'], step)}, the update {c['in_step_update_us']:,.1f} µs{rate}, "
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


def _copy_pairs(report: dict) -> dict:
    """{(dtype, mode): [(data, (model, batch), step copying its batch in, step with it already there)]}: per
    dtype and mode, the fastest GPU step that copies from pinned or pageable memory, against the fastest with the
    same dtype, mode and optimizer whose batch is on the device."""
    kinds = {(b["params"].get("dtype"), b["params"].get("mode")) for b in ok_runs(report, "mlp")
             if b["params"].get("processor") == "gpu" and b["params"].get("data") in ("pinned", "pageable")}
    out: dict = {}
    for dtype, mode in kinds:
        for data in ("pinned", "pageable"):
            moved = _fastest_steps(report, lambda p, d=data: p["processor"] == "gpu" and p.get("data") == d
                                   and p.get("dtype") == dtype and p.get("mode") == mode)
            for key in sorted(moved, key=_model_order):
                m = moved[key]
                here = _fastest_steps(report, lambda p, mp=m["params"]: p["processor"] == "gpu"
                                      and p["data"] == "device" and p["dtype"] == mp["dtype"]
                                      and p["mode"] == mp["mode"] and p["optimizer"] == mp["optimizer"]).get(key)
                if here:
                    out.setdefault((dtype, mode), []).append((data, key, m, here))
    return out


def batch_movement(report: dict) -> list[str]:
    """The GPU step that first copies its batch in, against the one whose batch is already there, in one dtype and
    mode for the whole list: those with the most such pairs (fp32 and eager first on a tie). A list whose items
    switched dtype (the fastest step of each point: bf16, then fp32 at one batch) read a dtype's shorter step as a
    costlier copy; the other dtypes and modes measured are said in one line after it."""
    pairs = _copy_pairs(report)
    if not pairs:
        return []
    order = lambda kind: (-len(pairs[kind]), DTYPE_ORDER.get(kind[0], 9), kind[1] != "eager", str(kind))  # noqa: E731
    kinds = sorted(pairs, key=order)
    dtype, mode = kinds[0]
    lines = [f"Every step below is {dtype}, {mode}: a step's dtype and mode set its length, and so the share a copy "
             "adds to it.", ""]
    for data, (model, batch), m, here in pairs[kinds[0]]:
        lines.append(
            f"- {model}, batch {batch}: copying the batch from {data} memory makes a step "
            f"**{step_us(m) / step_us(here):.2f}×** as long ({step_us(m):.1f} vs {step_us(here):.1f} µs; {name(m)}).")
    others = []
    for kind in kinds[1:]:
        ratios = [step_us(m) / step_us(here) for _, _, m, here in pairs[kind]]
        others.append(f"{kind[0]}, {kind[1]}: {min(ratios):.2f}×–{max(ratios):.2f}× as long "
                      f"({len(ratios)} step{'s' if len(ratios) != 1 else ''})")
    if others:
        lines.append(f"- Also measured, not listed: {'; '.join(others)}.")
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
                         f"{p['batch']} with {p['workers']} workers ({p['pinning']}), "
                         f"{rate(k['samples/s'], [best])} samples/s ({name(best)}).")
            continue
        line = (f"- {model}: fastest epoch at batch {p['batch']} with **{p['workers']}** loader workers "
                f"({p['pinning']}): {rate(k['samples/s'], [best])} samples/s, GPU busy {k['gpu_busy_percent']:.0f}% "
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
                       f"{rate(b['counters']['samples/s'], [b])} ({b['counters']['gpu_busy_percent']:.0f}%)")
        rows.append(row)
    return ["", f"Training epochs of {model}: samples/s (GPU busy %) by batch × pinning and loader workers:", ""] + \
        table(["batch", "pinning"] + [f"{w} workers" for w in workers], rows, keys=2) + \
        ["", f"From the `mlp/epoch/gpu/{model}/…/pinning:<pinning>/workers:<workers>/batch:<batch>` runs "
             f"({sources(None, runs)})."]


QUESTIONS = [
    ("training-busy", "Which batch size and loader workers keep the GPU busy in training?", training_gpu_busy,
     "the `mlp` family's epochs on a GPU", ("mlp_gpu_busy_percent", "mlp--variant-epoch")),
    ("gpu-vs-cpu", "How much faster is a training step on the GPU than on the CPU?", gpu_over_cpu,
     "the `mlp` family's training steps", ("mlp_gpu_vs_cpu", "mlp_step_us", "mlp--variant-step")),
    ("vs-pytorch", "How does hdbench's training step compare with PyTorch's?", versus_pytorch,
     "PyTorch's steps (no report of `baselines/pytorch/pytorch_baseline.py`, run on the same machine, was given "
     "with these)",
     ("mlp_vs_pytorch", "mlp_TFLOP_per_s")),
    ("batch-copy", "What does moving the batch to the GPU cost each step?", batch_movement,
     "the `mlp` family on a GPU with `--hdbench_mlp_data=device,pinned,pageable`", ("mlp_batch_copy",)),
]
