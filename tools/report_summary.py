"""`summarize REPORT`: a Markdown page that answers the tutorials' questions for the
machine a report came from, each answer with its number and the benchmark it came
from. A question the report cannot answer says so and what to run. The loader answers
read the report's derived `loader_scaling` and `loader_pinning` rows and name the
runs those came from."""

from __future__ import annotations

import statistics


def _ok_runs(report: dict, family: str):
    for b in report["benchmarks"]:
        if b.get("status") == "ok" and b.get("run_type", "iteration") == "iteration" and \
                b.get("params", {}).get("family") == family:
            yield b


def _name(b: dict) -> str:
    return f"`{b.get('name', '?')}`"


def _size(n: int) -> str:
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def pinned_vs_pageable(report: dict) -> list[str]:
    runs = {}
    for b in _ok_runs(report, "transfer"):
        p = b["params"]
        if p.get("engine") == "copy" and p.get("variant") == "per_copy" and p.get("direction") in ("h2d", "d2h"):
            runs[(p["direction"], p["memory"], p["bytes"])] = b
    lines = []
    for direction in ("h2d", "d2h"):
        sizes = [s for (d, m, s) in runs if d == direction and m == "pinned" and (d, "pageable", s) in runs]
        if not sizes:
            continue
        size = max(sizes)
        pinned, pageable = runs[(direction, "pinned", size)], runs[(direction, "pageable", size)]
        gp, gq = pinned["counters"]["bandwidth_GB/s"], pageable["counters"]["bandwidth_GB/s"]
        lines.append(f"- {direction.upper()} at {_size(size)}: pinned {gp:.1f} GB/s vs pageable {gq:.1f} GB/s, "
                     f"**{gp / gq:.2f}×** ({_name(pinned)} vs {_name(pageable)}).")
    for row in report.get("derived", {}).get("pinning_break_even", []):
        n = row.get("transfers_to_break_even")
        verdict = "never pays off (pinned is not faster)" if n is None else f"pays off after **{n:g}** transfers"
        lines.append(f"- Pinning {_size(row['bytes'])} with `{row['method']}` costs {row['pin_unpin_us']:.0f} µs and "
                     f"{verdict} ({row['direction']}).")
    return lines


def overlap_savings(report: dict) -> list[str]:
    lines = []
    for row in report.get("derived", {}).get("stream_overlap", []):
        if "pipelined" not in row or "sync" not in row:
            continue
        best = row["pipelined"]
        lines.append(
            f"- {_size(row['bytes'])}, kernel ≈ {row['compute_ratio']:g}× the copy, {row['memory']} memory: sync "
            f"{row['sync']['latency_us']:.0f} µs, best pipeline {best['latency_us']:.0f} µs with {best['streams']} "
            f"streams × {best['chunks']} chunks ({100 * best.get('fraction_of_ideal', 0):.0f}% of ideal): "
            f"**saves {row['pipelined_saving_vs_sync_percent']:.0f}%** (`{best['benchmark']}`).")
        if "legacy_default_stream_slowdown" in row:
            lines.append(f"  A launch on the legacy default stream between chunks makes it "
                         f"**{row['legacy_default_stream_slowdown']:.2f}×** slower than on the per-thread default stream.")
    return lines


def link_efficiency(report: dict) -> list[str]:
    best = {}
    for b in _ok_runs(report, "transfer"):
        p = b["params"]
        if p.get("memory") == "pinned" and p.get("engine") == "copy" and "pcie_link_percent" in b.get("counters", {}):
            if p["direction"] not in best or b["counters"]["pcie_link_percent"] > best[p["direction"]]["counters"]["pcie_link_percent"]:
                best[p["direction"]] = b
    return [f"- {d.upper()}: {b['counters']['bandwidth_GB/s']:.1f} GB/s, **{b['counters']['pcie_link_percent']:.0f}%** "
            f"of the link's theoretical rate ({_name(b)})." for d, b in sorted(best.items())]


def staged(report: dict) -> list[str]:
    return [f"- {row['direction'].upper()} {_size(row['bytes'])}: the best staged copy reaches "
            f"{row['best_staged_GB/s']:.1f} GB/s, **{100 * row['fraction_of_pinned']:.0f}%** of pinned "
            f"(`{row['best_staged_benchmark']}`)."
            for row in report.get("derived", {}).get("staged_vs_pinned", []) if "fraction_of_pinned" in row]


def _loader_point(row: dict, workers: int) -> str:
    """The rest of a derived loader row's grid point, in words (no depth without workers)."""
    depth = f"prefetch depth {row['prefetch_depth']}, " if workers else ""
    return f"{depth}{'shuffled' if row['shuffle'] else 'sequential'}, augment {row['augment']}"


def _loader_run(report: dict, row: dict, pinning: str, workers: int) -> dict | None:
    """The successful loader run at a derived row's grid point. A 0-worker run has one depth
    only, and the derived rows count it at every depth, so its depth is not matched."""
    want = {k: row[k] for k in ("consumer", "batch", "sample_cost_us", "shuffle", "augment")}
    want.update(pinning=pinning, workers=workers)
    if workers:
        want["prefetch_depth"] = row["prefetch_depth"]
    return next((b for b in _ok_runs(report, "loader") if all(b["params"].get(k) == v for k, v in want.items())), None)


def _sources(report: dict, row: dict, pinnings: tuple[str, ...], workers: int, table: str) -> str:
    """The benchmarks a derived loader row came from, or the row's table when one is missing."""
    runs = [_loader_run(report, row, pinning, workers) for pinning in pinnings]
    return " vs ".join(map(_name, runs)) if all(runs) else f"`derived.{table}`"


# Fewer workers within this share of the best rate count as keeping the consumer fed too.
FED_FRACTION = 0.95


def _best_scaling_rows(report: dict) -> dict:
    """{(consumer, sample cost): the loader_scaling row with the highest samples/s}."""
    best = {}
    for row in report.get("derived", {}).get("loader_scaling", []):
        key = (row["consumer"], row["sample_cost_us"])
        if key not in best or row["best_samples/s"] > best[key]["best_samples/s"]:
            best[key] = row
    return best


def loader_workers(report: dict) -> list[str]:
    lines = []
    for (consumer, cost), row in sorted(_best_scaling_rows(report).items()):
        workers, best, cells = row["best_workers"], row["best_samples/s"], row["by_workers"]
        speedup = cells[str(workers)].get("speedup_vs_0_workers")
        if workers == 0:
            versus = "no worker count beat building batches on the consumer thread"
        elif speedup is None:
            versus = "no 0-worker run at that batch to compare with"
        else:
            versus = f"**{speedup:.2f}×** the rate with 0 workers at that batch"
        line = (f"- {consumer} consumer, {cost:g} µs/sample: best batch {row['batch']} with **{workers}** workers, "
                f"{best:,.0f} samples/s, {versus} ({row['pinning']}, {_loader_point(row, workers)}; "
                f"{_sources(report, row, (row['pinning'],), workers, 'loader_scaling')}).")
        enough = min(int(w) for w, cell in cells.items() if cell["samples/s"] >= FED_FRACTION * best)
        if enough < workers:
            line += f" {enough} workers already reach {100 * cells[str(enough)]['samples/s'] / best:.0f}% of it."
        lines.append(line)
    return lines


def pin_thread_cost(report: dict) -> list[str]:
    by_consumer: dict[str, list[dict]] = {}
    for row in report.get("derived", {}).get("loader_pinning", []):
        by_consumer.setdefault(row["consumer"], []).append(row)
    lines = []
    for consumer, rows in sorted(by_consumer.items()):
        median = statistics.median(r["direct_over_pin_thread"] for r in rows)
        best = max(rows, key=lambda r: r["direct_over_pin_thread"])
        verdict = ("the pin thread's extra copy costs throughput" if median > 1
                   else "the pin thread costs no throughput here")
        workers = best["workers"]
        lines.append(
            f"- {consumer} consumer, direct collation into pinned memory over a pin thread's extra copy: "
            f"median **{median:.2f}×** over {len(rows)} grid points ({verdict}); "
            f"best **{best['direct_over_pin_thread']:.2f}×** at batch {best['batch']}, {workers} workers, "
            f"{best['sample_cost_us']:g} µs/sample, {_loader_point(best, workers)}: "
            f"{best['direct_samples/s']:,.0f} vs {best['pin_thread_samples/s']:,.0f} samples/s "
            f"({_sources(report, best, ('direct', 'pin_thread'), workers, 'loader_pinning')}).")
        if "pageable_samples/s" in best:
            lines.append(f"  Pageable batches (no pinning) at that point: {best['pageable_samples/s']:,.0f} samples/s.")
    return lines


def _fastest_steps(report: dict, keep) -> dict:
    """The fastest ok mlp step per (model, batch) among those `keep(params)` accepts."""
    best: dict = {}
    for b in _ok_runs(report, "mlp"):
        p = b["params"]
        if p.get("variant") != "step" or not keep(p) or "step_us" not in b.get("counters", {}):
            continue
        key = (p["model"], p["batch"])
        if key not in best or b["counters"]["step_us"] < best[key]["counters"]["step_us"]:
            best[key] = b
    return best


def _model_order(key: tuple) -> tuple:
    model, batch = key
    return ([int(w) for w in model.split("x")], batch)


def gpu_over_cpu(report: dict) -> list[str]:
    cpu = _fastest_steps(report, lambda p: p["processor"] == "cpu")
    gpu = _fastest_steps(report, lambda p: p["processor"] == "gpu" and p.get("data") == "device")
    lines = []
    for key in sorted(set(cpu) | set(gpu), key=_model_order):
        model, batch = key
        c, g = cpu.get(key), gpu.get(key)
        if c and g:
            gp = g["params"]
            lines.append(
                f"- {model}, batch {batch}: GPU {g['counters']['step_us']:.1f} µs ({gp['dtype']}, {gp['mode']}) vs "
                f"CPU {c['counters']['step_us']:.1f} µs ({c['params'].get('threads', '?')} threads): "
                f"**{c['counters']['step_us'] / g['counters']['step_us']:.1f}×** ({_name(g)} vs {_name(c)}).")
            continue
        b = c or g
        where = "CPU" if c else "GPU"
        share = b["counters"].get("fraction_of_gemm_rate")
        rate = f", {100 * share:.0f}% of the GEMM rate" if share is not None else ""
        lines.append(f"- {model}, batch {batch}: {where} only, {b['counters']['step_us']:.1f} µs per step "
                     f"({b['counters']['samples/s']:,.0f} samples/s{rate}; {_name(b)}).")
    return lines


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
                f"({m['counters']['step_us']:.1f} vs {here['counters']['step_us']:.1f} µs; {_name(m)}).")
    return lines


BUSY_PERCENT = 90.0  # a GPU busy this share of an epoch counts as kept busy


def training_gpu_busy(report: dict) -> list[str]:
    """Per model, from the GPU training epochs (loader -> copy -> step): the fastest
    batch and worker count, the fewest workers that come close at that batch, and the
    smallest batch that kept the GPU busy (or the busiest run when none did)."""
    by_model: dict = {}
    for b in _ok_runs(report, "mlp"):
        p = b["params"]
        if p.get("variant") == "epoch" and p.get("processor") == "gpu" and "gpu_busy_percent" in b.get("counters", {}):
            by_model.setdefault(p["model"], []).append(b)
    lines = []
    for model in sorted(by_model, key=lambda m: [int(w) for w in m.split("x")]):
        runs = by_model[model]
        best = max(runs, key=lambda b: b["counters"]["samples/s"])
        p, k = best["params"], best["counters"]
        line = (f"- {model}: fastest epoch at batch {p['batch']} with **{p['workers']}** loader workers "
                f"({p['pinning']}): {k['samples/s']:,.0f} samples/s, GPU busy {k['gpu_busy_percent']:.0f}% "
                f"({_name(best)}).")
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
                     f"{_name(first)}).")
        else:
            busiest = max(runs, key=lambda b: b["counters"]["gpu_busy_percent"])
            line += (f" No run kept the GPU {BUSY_PERCENT:.0f}% busy: the busiest was "
                     f"{busiest['counters']['gpu_busy_percent']:.0f}% at batch {busiest['params']['batch']} with "
                     f"{busiest['params']['workers']} workers ({_name(busiest)}); the loader, the copy or the "
                     "launches leave it waiting.")
        lines.append(line)
    return lines


# (question, how to answer it, what to run when the report cannot)
QUESTIONS = [
    ("How much faster is pinned memory than pageable, and when does pinning pay off?", pinned_vs_pageable,
     "the `transfer` and `pinning` families with pageable and pinned memory"),
    ("How much does async copy/compute overlap save?", overlap_savings, "the `streams` family on a GPU"),
    ("How close do copies get to the PCIe link?", link_efficiency, "the `transfer` family on a GPU"),
    ("Can a pinned staging ring stand in for pinning everything?", staged, "the `staged` and `transfer` families"),
    ("How many loader workers keep the consumer fed?", loader_workers,
     "the `loader` family with 0 and more workers"),
    ("Does PyTorch's pin thread cost throughput?", pin_thread_cost,
     "the `loader` family on a GPU with `pin_thread` and `direct` pinning"),
    ("Which batch size and loader workers keep the GPU busy in training?", training_gpu_busy,
     "the `mlp` family's epochs on a GPU"),
    ("How much faster is a training step on the GPU than on the CPU?", gpu_over_cpu,
     "the `mlp` family's training steps"),
    ("What does moving the batch to the GPU cost each step?", batch_movement,
     "the `mlp` family on a GPU with `--hdbench_mlp_data=device,pinned,pageable`"),
]


def summarize(report: dict, source: str) -> str:
    ctx = report["context"]
    hd = ctx["hdbench"]
    system = hd.get("system", {})
    gpus = ", ".join(g.get("name", "?") for g in system.get("gpus", [])) or \
        f"no usable GPU ({system.get('gpu_unavailable_reason', 'unknown reason')})"
    out = [f"# hdbench on {ctx.get('host_name', '?')}", "",
           f"{system.get('host', {}).get('cpu_model', '?')}; {gpus}. Run {hd.get('started_at', '?')}, "
           f"hdbench {hd.get('version', '?')} ({hd.get('git_revision', '?')}). Source: `{source}`. "
           "GB/s means 1e9 bytes per second.", ""]
    for question, answer, needs in QUESTIONS:
        out += [f"## {question}", ""]
        lines = answer(report)
        out += lines if lines else [f"This report cannot answer it: it has no successful runs of {needs}."]
        out.append("")
    skipped = [b for b in report["benchmarks"] if b.get("status") == "skipped"]
    failed = [b for b in report["benchmarks"] if b.get("status") == "error"]
    if skipped or failed:
        out += ["## Not measured", ""]
        reasons: dict[str, int] = {}
        for b in skipped:
            reasons[b.get("skip_reason", "?")] = reasons.get(b.get("skip_reason", "?"), 0) + 1
        out += [f"- {n} skipped: {reason}" for reason, n in sorted(reasons.items())]
        out += [f"- failed: {_name(b)}: {b.get('error_message', '')}" for b in failed]
        out.append("")
    return "\n".join(out)
