"""Bar figures: where the x axis is a category, the comparisons a reader asks for.

- `mlp_vs_pytorch--…`: hdbench's training step against PyTorch's for the same model,
  processor, optimizer, dtype, mode and batch; the ratio (PyTorch's time over
  hdbench's: above 1, hdbench is faster) is written on PyTorch's bar.
- `mlp_gpu_vs_cpu--…`: the fastest GPU step against the fastest CPU step per batch.
- `mlp_batch_copy--…`: a GPU step whose batch is first copied from pinned or pageable
  memory, against the step with the batch already on the device.
- `streams_overlap--…`: the time per buffer of sync, async, the best pipeline and
  the best graph (the report's derived `stream_overlap` rows), per memory kind.

Each figure carries `fig.hdbench["bars"]` = [(panel, group, series, value,
[benchmarks])] for the tests.
"""

from __future__ import annotations

from collections import defaultdict

import report_style as style
from report_facets import ok_runs

Panel = dict  # {group: {series: (value, text, [benchmarks])}}


def draw(plt, title: str, machine: str, panels: dict, series_order: list, colours: dict, ylabel: str,
         log: bool = False, note: str = ""):
    """panels: {(row label, col label): Panel}; one bar per series in each group."""
    rows = sorted({r for r, _ in panels}, key=style.natural)
    cols = sorted({c for _, c in panels}, key=style.natural)
    fig, axes = plt.subplots(len(rows), len(cols), figsize=(max(3.6 * len(cols), 5.5) + 0.6, 3.4 * len(rows) + 1.6),
                             squeeze=False)
    bars, handles = [], {}
    for i, row in enumerate(rows):
        for j, col in enumerate(cols):
            ax = axes[i][j]
            panel = panels.get((row, col), {})
            groups = sorted(panel, key=style.natural)
            present = [s for s in series_order if any(s in panel[g] for g in groups)]
            width = 0.8 / max(len(present), 1)
            for k, s in enumerate(present):
                xs = [g_i + (k - (len(present) - 1) / 2) * width for g_i, g in enumerate(groups) if s in panel[g]]
                vals = [panel[g][s][0] for g in groups if s in panel[g]]
                container = ax.bar(xs, vals, width * 0.92, color=colours[s], label=str(s), gid="bar")
                handles.setdefault(str(s), container)
                for x, g in zip(xs, [g for g in groups if s in panel[g]]):
                    value, text, names = panel[g][s]
                    bars.append(((row, col), g, s, value, names))
                    if text:
                        ax.annotate(text, (x, value), xytext=(0, 2), textcoords="offset points", ha="center",
                                    va="bottom", fontsize=7.5, fontweight="bold", gid="ratio",
                                    rotation=90 if len(present) * len(groups) > 6 else 0)
            ax.set_xticks(range(len(groups)), [str(g) for g in groups])
            if log:
                ax.set_yscale("log")
                style.plain_log_axis(ax.yaxis)
            ax.margins(y=0.18 if not log else 0.3)
            ax.set_title(" · ".join(str(t) for t in (row, col) if t), fontsize=10)
            if j == 0:
                ax.set_ylabel(ylabel)
            ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle(f"{title}\n{machine}" + (f"\n{note}" if note else ""), fontsize=11)
    style.finish(fig, handles, min(len(handles), 4), 3 if note else 2)
    fig.hdbench = {"bars": bars}
    return fig


def _steps(reports):
    """[(params, step_us, benchmark name)] of every successful step, the first report first."""
    out = []
    for path, report, _ in reports:
        for b in ok_runs(report):
            p = b.get("params", {})
            if p.get("family") == "mlp" and p.get("variant") == "step" and "step_us" in b.get("counters", {}):
                out.append((p, b["counters"]["step_us"], f"{b['name']} ({path.rsplit('/', 1)[-1]})"))
    return out


def _models(keys):
    return sorted(keys, key=lambda m: [int(w) for w in str(m).split("x") if w.isdigit()])


def mlp_vs_pytorch(plt, reports, machine) -> dict:
    match = ("model", "processor", "optimizer", "dtype", "mode", "data", "batch")
    by = defaultdict(dict)
    for p, us, name in _steps(reports):
        key = tuple(p.get(k) for k in match)
        by[key].setdefault(p.get("implementation", "hdbench"), (us, name))  # the first report's run
    figures = defaultdict(lambda: defaultdict(dict))
    for key, impls in by.items():
        if "hdbench" not in impls or "pytorch" not in impls:
            continue
        model, processor, optimizer, dtype, mode, data, batch = key
        (hd, hd_name), (pt, pt_name) = impls["hdbench"], impls["pytorch"]
        fig_key = (model, processor, optimizer, data)
        panel = figures[fig_key][(f"{mode}", f"batch {batch}")]
        panel[dtype] = {"hdbench": (hd, "", [hd_name]), "PyTorch": (pt, f"{pt / hd:.2f}×", [pt_name])}
    out = {}
    for (model, processor, optimizer, data), panels in figures.items():
        name = f"mlp_vs_pytorch--model-{model}_processor-{processor}_optimizer-{optimizer}"
        if data not in ("device", "host"):
            name += f"_data-{data}"
        out[name] = draw(plt, f"Training step, hdbench vs PyTorch: {model} on the {processor.upper()}, "
                              f"{optimizer}", machine, dict(panels), ["hdbench", "PyTorch"],
                         {"hdbench": style.COLOURS["implementation"]["hdbench"],
                          "PyTorch": style.COLOURS["implementation"]["pytorch"]}, "step time (µs)",
                         note="on PyTorch's bar: PyTorch's time ÷ hdbench's (above 1: hdbench is faster)")
    return out


def fastest(steps, keep):
    best = {}
    for p, us, name in steps:
        if keep(p):
            key = (p["model"], p["batch"])
            if key not in best or us < best[key][0]:
                best[key] = (us, name, p)
    return best


def mlp_gpu_vs_cpu(plt, reports, machine) -> dict:
    steps = [s for s in _steps(reports) if s[0].get("implementation", "hdbench") == "hdbench"]
    cpu = fastest(steps, lambda p: p.get("processor") == "cpu")
    gpu = fastest(steps, lambda p: p.get("processor") == "gpu" and p.get("data") == "device")
    panels = defaultdict(dict)
    for key in set(cpu) & set(gpu):
        model, batch = key
        (c, c_name, _), (g, g_name, gp) = cpu[key], gpu[key]
        panels[("", model)][f"batch {batch}"] = {"CPU": (c, "", [c_name]),
                                                 "GPU": (g, f"{c / g:.1f}×", [g_name])}
    if not panels:
        return {}
    colours = {"CPU": style.COLOURS["processor"]["cpu"], "GPU": style.COLOURS["processor"]["gpu"]}
    return {"mlp_gpu_vs_cpu": draw(plt, "Training step, GPU vs CPU (the fastest of each; hdbench)", machine,
                                   dict(panels), ["CPU", "GPU"], colours, "step time (µs, log scale)",
                                   log=True, note="on the GPU's bar: the CPU's time ÷ the GPU's")}


def mlp_batch_copy(plt, reports, machine) -> dict:
    steps = [s for s in _steps(reports) if s[0].get("processor") == "gpu"
             and s[0].get("implementation", "hdbench") == "hdbench" and s[0].get("mode") == "eager"]
    datas = {p.get("data") for p, _, _ in steps}
    if not datas & {"pinned", "pageable"}:
        return {}
    by = defaultdict(dict)
    for p, us, name in steps:
        by[(p["model"], p["dtype"], p["optimizer"], p["batch"])].setdefault(p["data"], (us, name))
    out = {}
    for model in _models({k[0] for k in by}):
        panels = defaultdict(dict)
        for (m, dtype, optimizer, batch), cells in by.items():
            if m != model or "device" not in cells or len(cells) < 2:
                continue
            base = cells["device"][0]
            panels[(optimizer, dtype)][f"batch {batch}"] = {
                d: (us, "" if d == "device" else f"{us / base:.2f}×", [name]) for d, (us, name) in cells.items()}
        if panels:
            out[f"mlp_batch_copy--model-{model}"] = draw(
                plt, f"What copying the batch in costs a GPU step: {model}, eager", machine, dict(panels),
                ["device", "pinned", "pageable"], style.COLOURS["data"], "step time (µs)",
                note="on a copied step's bar: its time ÷ the step with the batch already on the device")
    return out


VARIANTS = ["sync", "async", "pipelined", "graph"]


def streams_overlap(plt, reports, machine) -> dict:
    by_bytes = defaultdict(lambda: defaultdict(dict))
    for path, report, _ in reports:
        for row in report.get("derived", {}).get("stream_overlap", []):
            if "sync" not in row:
                continue
            sync = row["sync"]["latency_us"]
            cell = {}
            for v in VARIANTS:
                if v in row:
                    ms = row[v]["latency_us"] / 1e3
                    change = f"{100 * (row[v]['latency_us'] / sync - 1):+.0f}%".replace("-", "−")
                    change = "±0%" if change in ("+0%", "−0%") else change
                    cell[v] = (ms, "" if v == "sync" else change, [row[v]["benchmark"]])
            by_bytes[row["bytes"]][("", f"kernel {row['compute_ratio']:g}× the copy")][row["memory"]] = cell
    return {f"streams_overlap--bytes-{size}": draw(
        plt, f"Time per {style.size_text(size)} buffer: copy in, kernel, copy back (lower is better)", machine,
        dict(panels), VARIANTS, style.COLOURS["variant"], "time per buffer (ms)",
        note="above a bar: its time against sync (−: shorter); pipelined and graph: the fastest streams × chunks")
        for size, panels in sorted(by_bytes.items())}


def build(plt, reports, machine: str) -> dict:
    figures = {}
    for make in (mlp_vs_pytorch, mlp_gpu_vs_cpu, mlp_batch_copy, streams_overlap):
        figures.update(make(plt, reports, machine))
    return figures
