"""`summarize REPORT...`: a Markdown page that answers the tutorials' questions for the
machine the reports came from, each answer with its numbers and the benchmarks they
came from: a line where the answer is a number, a table where it is a table (pinning
cost and break-even per size and method, stream variants, the loader's samples/s by
workers x pinning, hdbench's GPU step against PyTorch's...). A question the reports
cannot answer says so and what to run. Several reports (one machine's transfer,
loader and MLP runs, and the PyTorch baseline's) are read as one: a benchmark is named
with its report's file when there are several, and where two reports ran the same
configuration the first report given is quoted. The MLP questions are in
report_summary_mlp.py, the data-parallel one in report_summary_dataparallel.py, the
Markdown helpers in report_markdown.py.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import report_noise
import report_summary_dataparallel as dataparallel
import report_summary_mlp as mlp
from report_markdown import fmt_size, machine_name, name, named, ok_runs, slug, sources, table


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


def _per_copy(report: dict) -> dict:
    runs = {}
    for b in ok_runs(report, "transfer"):
        p = b["params"]
        if p.get("engine") == "copy" and p.get("variant") == "per_copy" and p.get("direction") in ("h2d", "d2h"):
            runs.setdefault((p["direction"], p["memory"], p["bytes"]), b)  # the first report's
    return runs


def pinned_vs_pageable(report: dict) -> list[str]:
    runs = _per_copy(report)
    lines, rows = [], []
    for direction in ("h2d", "d2h"):
        sizes = [s for (d, m, s) in runs if d == direction and m == "pinned" and (d, "pageable", s) in runs]
        if not sizes:
            continue
        size = max(sizes)
        pinned, pageable = runs[(direction, "pinned", size)], runs[(direction, "pageable", size)]
        gp, gq = pinned["counters"]["bandwidth_GB/s"], pageable["counters"]["bandwidth_GB/s"]
        lines.append(f"- {direction.upper()} at {fmt_size(size)}: pinned {gp:.1f} GB/s vs pageable {gq:.1f} GB/s, "
                     f"**{gp / gq:.2f}×** ({name(pinned)} vs {name(pageable)})"
                     f"{report_noise.noise_note([pinned, pageable])}.")
    sizes = sorted({s for (d, m, s) in runs if m in ("pinned", "pageable")})
    for size in sizes:
        cells = [fmt_size(size)]
        for direction in ("h2d", "d2h"):
            pin, page = runs.get((direction, "pinned", size)), runs.get((direction, "pageable", size))
            gp = pin["counters"]["bandwidth_GB/s"] if pin else None
            gq = page["counters"]["bandwidth_GB/s"] if page else None
            cells += [f"{gp:.1f}" if gp else "–", f"{gq:.1f}" if gq else "–",
                      f"**{gp / gq:.2f}×**" if gp and gq else "–"]
        rows.append(cells)
    if len(rows) > 1:
        lines += ["", "Copy bandwidth (GB/s) by size:", ""]
        lines += table(["size", "H2D pinned", "H2D pageable", "H2D pinned ÷ pageable", "D2H pinned", "D2H pageable",
                        "D2H pinned ÷ pageable"], rows)
        lines += ["", f"From the `transfer/<direction>/<memory>/copy/<size>` runs, copy engine ({sources(report, runs.values())})."]
    break_even = report.get("derived", {}).get("pinning_break_even", [])
    if break_even:
        by_key = {}
        for row in break_even:
            by_key.setdefault((row["bytes"], row["method"]), {})[row["direction"]] = row
        rows = []
        for (size, method), cells in sorted(by_key.items(), key=lambda item: (item[0][0], item[0][1] != "malloc_host")):
            any_row = next(iter(cells.values()))
            verdicts = []
            for direction in ("h2d", "d2h"):
                row = cells.get(direction)
                n = row.get("transfers_to_break_even") if row else None
                verdicts.append("–" if row is None else "never" if n is None else f"**{n:g}**")
            rows.append([fmt_size(size), f"`{method}`", f"{any_row['pin_unpin_us']:,.0f}", *verdicts])
        lines += ["", "What pinning costs and after how many transfers it pays off "
                      "(pin + unpin ÷ the time a pinned copy saves over a pageable one):", ""]
        lines += table(["size", "method", "pin + unpin (µs)", "H2D: transfers to break even",
                        "D2H: transfers to break even"], rows)
        lines += ["", f"From `derived.pinning_break_even` ({sources(report, break_even)}): the `pinning/<method>/<size>` "
                      "runs and the pageable and pinned copies of the same size."]
    return lines


def overlap_savings(report: dict) -> list[str]:
    rows, lines, best = [], [], None
    overlap = report.get("derived", {}).get("stream_overlap", [])
    for row in overlap:
        if "pipelined" not in row or "sync" not in row:
            continue
        pipe = row["pipelined"]
        rows.append([fmt_size(row["bytes"]), f"{row['compute_ratio']:g}×", row["memory"],
                     f"{row['sync']['latency_us']:,.0f}",
                     f"{row['async']['latency_us']:,.0f}" if "async" in row else "–",
                     f"{pipe['latency_us']:,.0f}", f"{pipe['streams']} × {pipe['chunks']}",
                     f"{100 * pipe.get('fraction_of_ideal', 0):.0f}%",
                     f"**{row['pipelined_saving_vs_sync_percent']:.0f}%**",
                     f"{row['graph']['latency_us']:,.0f}" if "graph" in row else "–",
                     f"{row['legacy_default_stream_slowdown']:.2f}×" if "legacy_default_stream_slowdown" in row else "–",
                     f"`{pipe['benchmark']}`"])
        if best is None or row["pipelined_saving_vs_sync_percent"] > best["pipelined_saving_vs_sync_percent"]:
            best = row
    if not rows:
        return []
    pipe = best["pipelined"]
    lines.append(f"- Best: {fmt_size(best['bytes'])}, kernel ≈ {best['compute_ratio']:g}× the copy, {best['memory']} "
                 f"memory: sync {best['sync']['latency_us']:,.0f} µs, pipeline {pipe['latency_us']:,.0f} µs with "
                 f"{pipe['streams']} streams × {pipe['chunks']} chunks ({100 * pipe.get('fraction_of_ideal', 0):.0f}% "
                 f"of ideal): **saves {best['pipelined_saving_vs_sync_percent']:.0f}%** (`{pipe['benchmark']}`)"
                 f"{report_noise.noise_note(_runs_named(report, [best['sync'].get('benchmark'), pipe['benchmark']]))}.")
    lines += ["", "Time per buffer (µs): copy in, kernel, copy back; pipelines and graphs are the fastest "
                  "streams × chunks run; the saving is the pipeline's against sync:", ""]
    lines += table(["buffer", "kernel ÷ copy", "memory", "sync", "async", "best pipeline", "streams × chunks",
                    "of ideal", "pipeline saves", "graph", "legacy default stream slowdown", "pipeline benchmark"], rows)
    lines += ["", f"From `derived.stream_overlap` ({sources(report, overlap)}): the `streams/<variant>/<memory>/…` runs."]
    beaten = [r for r in overlap if r.get("pipelined", {}).get("fraction_of_ideal", 0) > 1]
    if beaten:  # a bound that is beaten is a wrong bound: say so rather than let 105% stand as a result
        lines += ["", f"**Above 100% of ideal** ({len(beaten)} row{'s' if len(beaten) != 1 else ''}): the ideal these reports hold was fed the "
                      "chunked runs' stage times, slower than a whole buffer's (schema 1); reports of schema 2 "
                      "feed it the fastest of both, and no pipeline beats it."]
    return lines


def link_efficiency(report: dict) -> list[str]:
    best = {}
    for b in ok_runs(report, "transfer"):
        p = b["params"]
        if p.get("memory") == "pinned" and p.get("engine") == "copy" and "pcie_link_percent" in b.get("counters", {}):
            if p["direction"] not in best or \
                    b["counters"]["pcie_link_percent"] > best[p["direction"]]["counters"]["pcie_link_percent"]:
                best[p["direction"]] = b
    order = {"h2d": 0, "d2h": 1, "bidir": 2}
    out = []
    for d, b in sorted(best.items(), key=lambda item: order.get(item[0], 9)):
        of = "twice the link's theoretical rate (both directions)" if d == "bidir" else "the link's theoretical rate"
        out.append(f"- {'both directions at once' if d == 'bidir' else d.upper()}: "
                   f"{b['counters']['bandwidth_GB/s']:.1f} GB/s, **{b['counters']['pcie_link_percent']:.0f}%** "
                   f"of {of} ({name(b)}).")
    return out


def staged(report: dict) -> list[str]:
    rows_in = [r for r in report.get("derived", {}).get("staged_vs_pinned", []) if "fraction_of_pinned" in r]
    rows = [[row["direction"].upper(), fmt_size(row["bytes"]), f"{row['best_staged_GB/s']:.1f}",
             f"**{100 * row['fraction_of_pinned']:.0f}%**",
             f"{row['speedup_over_pageable']:.2f}×" if row.get("speedup_over_pageable") else "–",
             f"`{row['best_staged_benchmark']}`"] for row in rows_in]
    if not rows:
        return []
    return table(["direction", "size", "best staged GB/s", "of pinned", "over pageable", "benchmark"], rows) + \
        ["", f"From `derived.staged_vs_pinned` ({sources(report, rows_in)}): the fastest chunk size × thread count."]


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
    return next((b for b in ok_runs(report, "loader") if all(b["params"].get(k) == v for k, v in want.items())
                 and b.get("_source", row.get("_source")) == row.get("_source", b.get("_source"))), None)


def _sources(report: dict, row: dict, pinnings: tuple[str, ...], workers: int, table_name: str) -> str:
    """The benchmarks a derived loader row came from, or the row's table when one is missing."""
    runs = [_loader_run(report, row, pinning, workers) for pinning in pinnings]
    return " vs ".join(map(name, runs)) if all(runs) else f"`derived.{table_name}`"


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
        implementation = _loader_implementation(report, row)
        whose = "" if implementation == "hdbench" else f"{implementation}'s loader, "
        line = (f"- {consumer} consumer, {cost:g} µs/sample: best batch {row['batch']} with **{workers}** workers, "
                f"{best:,.0f} samples/s, {versus} ({whose}{row['pinning']}, {_loader_point(row, workers)}; "
                f"{_sources(report, row, (row['pinning'],), workers, 'loader_scaling')})"
                f"{report_noise.noise_note([_loader_run(report, row, row['pinning'], workers)])}.")
        enough = min(int(w) for w, cell in cells.items() if cell["samples/s"] >= FED_FRACTION * best)
        if enough < workers:
            line += f" {enough} workers already reach {100 * cells[str(enough)]['samples/s'] / best:.0f}% of it."
        lines.append(line)
    return lines + loader_tables(report)


def _loader_implementation(report: dict, row: dict) -> str:
    """Whose loader a derived row measured (hdbench's or the PyTorch baseline's), from the
    runs of the report it came from."""
    return next((b["params"].get("implementation", "hdbench") for b in ok_runs(report, "loader")
                 if b.get("_source") == row.get("_source")), "hdbench")


def loader_tables(report: dict) -> list[str]:
    """samples/s by batch x pinning (rows) and workers (columns), per consumer, cost and depth;
    with an implementation column when hdbench's and PyTorch's loaders are both there."""
    groups = {}
    for row in report.get("derived", {}).get("loader_scaling", []):
        key = (row["consumer"], row["sample_cost_us"], row["prefetch_depth"], row["shuffle"], row["augment"])
        groups.setdefault(key, []).append(row)
    order = {"pageable": 0, "pin_thread": 1, "direct": 2}
    lines = []
    for (consumer, cost, depth, shuffle, augment), rows in sorted(groups.items(), key=lambda item: str(item[0])):
        workers = sorted({int(w) for row in rows for w in row["by_workers"]})
        implementations = {id(row): _loader_implementation(report, row) for row in rows}
        mixed = len(set(implementations.values())) > 1
        body = []
        for row in sorted(rows, key=lambda r: (r["batch"], implementations[id(r)], order.get(r["pinning"], 9))):
            best = row["best_workers"]
            body.append([str(row["batch"])] + ([implementations[id(row)]] if mixed else []) + [row["pinning"]] + [
                ("–" if str(w) not in row["by_workers"] else
                 (f"**{row['by_workers'][str(w)]['samples/s']:,.0f}**" if w == best
                  else f"{row['by_workers'][str(w)]['samples/s']:,.0f}")) for w in workers])
        lines += ["", f"Samples/s, {consumer} consumer, {cost:g} µs/sample, prefetch depth {depth}, "
                      f"{'shuffled' if shuffle else 'sequential'}, augment {augment} (bold: the best worker count):", ""]
        lines += table(["batch"] + (["loader"] if mixed else []) + ["pinning"] + [f"{w} workers" for w in workers],
                       body)
        lines += ["", f"From `derived.loader_scaling` ({sources(report, rows)}): the "
                      f"`loader/{consumer}/<pinning>/batch:<batch>/workers:<workers>/…` runs."]
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
        if len(rows) > 1:
            body = [[f"{r['sample_cost_us']:g}", str(r["batch"]), str(r["workers"]), f"{r['direct_samples/s']:,.0f}",
                     f"{r['pin_thread_samples/s']:,.0f}",
                     f"{r['pageable_samples/s']:,.0f}" if "pageable_samples/s" in r else "–",
                     f"**{r['direct_over_pin_thread']:.2f}×**"]
                    for r in sorted(rows, key=lambda r: (r["sample_cost_us"], r["batch"], r["workers"]))]
            lines += ["", f"Samples/s of the {consumer} consumer by pinning mode:", ""]
            lines += table(["µs/sample", "batch", "workers", "direct", "pin thread", "pageable", "direct ÷ pin thread"],
                           body)
            lines += ["", f"From `derived.loader_pinning` ({sources(report, rows)}): the `loader/{consumer}/<pinning>/…` "
                          "runs."]
    return lines


# (anchor, question, how to answer it, what to run when the reports cannot, figure name prefixes)
QUESTIONS = [
    ("pinning", "How much faster is pinned memory than pageable, and when does pinning pay off?", pinned_vs_pageable,
     "the `transfer` and `pinning` families with pageable and pinned memory",
     ("transfer", "pinning", "pinning_break_even")),
    ("overlap", "How much does async copy/compute overlap save?", overlap_savings, "the `streams` family on a GPU",
     ("streams_overlap",)),
    ("link", "How close do copies get to the PCIe link?", link_efficiency, "the `transfer` family on a GPU",
     ("transfer",)),
    ("staged", "Can a pinned staging ring stand in for pinning everything?", staged,
     "the `staged` and `transfer` families", ("staged", "host_memcpy")),
    ("loader-workers", "How many loader workers keep the consumer fed?", loader_workers,
     "the `loader` family with 0 and more workers", ("loader--", "loader_heatmap")),
    ("pin-thread", "Does PyTorch's pin thread cost throughput?", pin_thread_cost,
     "the `loader` family on a GPU with `pin_thread` and `direct` pinning", ("loader_pinning",)),
    ("training-busy", "Which batch size and loader workers keep the GPU busy in training?", mlp.training_gpu_busy,
     "the `mlp` family's epochs on a GPU", ("mlp_gpu_busy_percent", "mlp--variant-epoch")),
    ("gpu-vs-cpu", "How much faster is a training step on the GPU than on the CPU?", mlp.gpu_over_cpu,
     "the `mlp` family's training steps", ("mlp_gpu_vs_cpu", "mlp_step_us", "mlp--variant-step")),
    ("vs-pytorch", "How does hdbench's training step compare with PyTorch's?", mlp.versus_pytorch,
     "the `mlp` family and `tools/pytorch_baseline.py` on the same machine, the reports given together",
     ("mlp_vs_pytorch", "mlp_TFLOP_per_s")),
    ("batch-copy", "What does moving the batch to the GPU cost each step?", mlp.batch_movement,
     "the `mlp` family on a GPU with `--hdbench_mlp_data=device,pinned,pageable`", ("mlp_batch_copy",)),
    ("dataparallel", "Does the data-parallel step scale over ranks, and does DDP-style overlap hide the gradient "
     "all-reduce?", dataparallel.data_parallel,
     "the `dataparallel` family (`hdbench` for one rank, `hdbench_mpi` under `mpirun` for N)", ("dataparallel",)),
]


def answers(report: dict) -> list[tuple[str, str, list[str], tuple]]:
    """[(anchor, question, Markdown lines, figure prefixes)] of a (merged) report."""
    out = []
    for anchor, question, answer, needs, figures in QUESTIONS:
        lines = answer(report)
        out.append((anchor, question, lines or [f"This report cannot answer it: it has no successful runs of {needs}."],
                    figures))
    return out


# The four questions every tutorial raises, answered in the page's first lines.
def _pinning_headline(report: dict):
    runs = _per_copy(report)
    for direction in ("h2d", "d2h"):
        sizes = [s for (d, m, s) in runs if d == direction and m == "pinned" and (d, "pageable", s) in runs]
        if sizes:
            size = max(sizes)
            pinned, pageable = runs[(direction, "pinned", size)], runs[(direction, "pageable", size)]
            gp, gq = pinned["counters"]["bandwidth_GB/s"], pageable["counters"]["bandwidth_GB/s"]
            return (f"pinned **{gp / gq:.2f}×** pageable: {direction.upper()} {fmt_size(size)}, {gp:.1f} vs {gq:.1f} "
                    "GB/s", [pinned, pageable])
    return None


def _runs_named(report: dict, names: list) -> list:
    """The runs of these names (the first report's where several ran one)."""
    by_name: dict = {}
    for b in report["benchmarks"]:
        by_name.setdefault(b.get("name"), b)
    return [by_name.get(n) for n in names if n]


def _overlap_headline(report: dict):
    rows = [r for r in report.get("derived", {}).get("stream_overlap", []) if "pipelined" in r and "sync" in r]
    if not rows:
        return None
    best = max(rows, key=lambda r: r["pipelined_saving_vs_sync_percent"])
    pipe = best["pipelined"]
    return (f"pipelining saves **{best['pipelined_saving_vs_sync_percent']:.0f}%** against synchronous copies "
            f"({fmt_size(best['bytes'])}, {best['memory']}, {pipe['streams']} streams × {pipe['chunks']} chunks, "
            f"kernel ≈ {best['compute_ratio']:g}× the copy)",
            _runs_named(report, [best["sync"].get("benchmark"), pipe.get("benchmark")]))


def _batch_workers_headline(report: dict):
    epochs = [b for b in ok_runs(report, "mlp") if b["params"].get("variant") == "epoch" and
              b["params"].get("processor") == "gpu" and "gpu_busy_percent" in b.get("counters", {})]
    if epochs:
        best = max(epochs, key=lambda b: b["counters"]["samples/s"])
        p, k = best["params"], best["counters"]
        return ("training-busy", f"batch {p['batch']} with **{p['workers']}** loader workers: {k['samples/s']:,.0f} "
                f"samples/s, GPU busy {k['gpu_busy_percent']:.0f}% ({p['model']} epochs, {p['pinning']})", [best])
    rows = _best_scaling_rows(report)
    if not rows:
        return None
    (consumer, cost), row = min(rows.items(), key=lambda item: (item[0][0] != "gpu", item[0][1]))
    workers = row["best_workers"]
    speedup = row["by_workers"][str(workers)].get("speedup_vs_0_workers")
    versus = f", {speedup:.2f}× 0 workers" if speedup and workers else ""
    return ("loader-workers", f"batch {row['batch']} with **{workers}** loader workers: {row['best_samples/s']:,.0f} "
            f"samples/s{versus} ({consumer} consumer, {cost:g} µs/sample)",
            [_loader_run(report, row, row["pinning"], workers)])


def _gpu_cpu_headline(report: dict):
    pairs = mlp.gpu_vs_cpu_pairs(report)
    if not pairs:
        return None
    speedup = lambda t: t[1]["counters"]["step_us"] / t[2]["counters"]["step_us"]  # noqa: E731
    low, high = min(pairs, key=speedup), max(pairs, key=speedup)
    like = f"{low[2]['params'].get('dtype')} {low[2]['params'].get('mode')} on both"
    where = lambda t: f"{t[0][0]} batch {t[0][1]}"  # noqa: E731
    text = (f"**{speedup(low):.2f}×** ({where(low)})" if low is high else
            f"**{speedup(low):.2f}×** ({where(low)}) to **{speedup(high):.1f}×** ({where(high)})")
    return f"the GPU's step {text}, {like}", [b for _, c, g, _ in pairs for b in (c, g)]


def headlines(report: dict) -> list[str]:
    """One row per tutorial question: its answer, how sure it is, a link to the detail."""
    question = {anchor: q for anchor, q, *_ in QUESTIONS}
    rows = []
    for label, anchor, headline in (("Pinned vs pageable memory", "pinning", _pinning_headline),
                                    ("Async copy/compute overlap", "overlap", _overlap_headline),
                                    ("Batch size and loader workers", None, _batch_workers_headline),
                                    ("GPU vs CPU training step", "gpu-vs-cpu", _gpu_cpu_headline)):
        found = headline(report)
        if found and anchor is None:
            anchor, found = found[0], found[1:]
        if not found:
            rows.append([label, "not measured in these reports", "–", "–"])
            continue
        text, runs = found
        rows.append([label, text, report_noise.how_sure(runs), f"[detail](#{slug(question[anchor])})"])
    return table(["question", "answer", "how sure (noise)", "where"], rows)


def header(report: dict) -> list[str]:
    """The title (the machine by its GPU and CPU), the answers, then where and when it ran."""
    ctx = report["context"]
    hd = ctx["hdbench"]
    system = hd.get("system", {})
    files = ", ".join(f"`{s}`" for s in report.get("sources", [])) or "?"
    gpu = "" if system.get("gpus") else \
        f" No usable GPU ({system.get('gpu_unavailable_reason', 'unknown reason')})."
    return [f"# hdbench: {machine_name(ctx)}", "", *headlines(report), "",
            f"Host `{ctx.get('host_name', '?')}`, run {hd.get('started_at', '?')}, hdbench {hd.get('version', '?')} "
            f"({hd.get('git_revision', '?')}).{gpu} Source: {files}. GB/s means 1e9 bytes per second."]


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


def summarize_reports(reports: list[tuple[str, dict]]) -> str:
    report = merge(reports)
    out = header(report) + [""]
    throttled = mlp.gpu_throttling(report)
    if throttled:
        out += throttled + [""]
    noise = report_noise.by_family(report)
    if noise:
        out += ["## How sure the figures are", "", *noise, ""]
    for _, question, lines, _ in answers(report):
        out += [f"## {question}", "", *lines, ""]
    missing = not_measured(report)
    if missing:
        out += ["## Not measured", "", *missing, ""]
    return "\n".join(out)


def summarize(report: dict, source: str) -> str:
    """The page for one report (kept for callers of the one-report form)."""
    return summarize_reports([(source, report)])
