"""The MLP family's figures.

Line figures (SPECS): step time, samples/s, TFLOP/s and the GPU's busy share against
batch size, steps and whole epochs; the TFLOP/s figure is read against `gemm_peaks`,
the best rate of the report's large GEMM (params variant=gemm) for each processor and
dtype (a step does the same GEMMs on smaller matrices). Bar figures (MAKERS):

- `mlp_vs_pytorch--…`: hdbench's training step against PyTorch's for the same model,
  processor, optimizer, dtype, mode and batch; the ratio (PyTorch's time over
  hdbench's: above 1, hdbench is faster) is written on PyTorch's bar.
- `mlp_gpu_vs_cpu--…`: the fastest GPU step against the fastest CPU step per batch.
- `mlp_batch_copy--…`: a GPU step whose batch is first copied from pinned or pageable
  memory, against the step with the batch already on the device.
"""

from __future__ import annotations

from collections import defaultdict

from hdreport.core import bars, style
from hdreport.core.facets import Spec
from hdreport.core.schema import ok_run, ok_runs

# The data a GPU step starts from: already on the device, or copied from host memory (the
# memory kinds' colours); the CPU step's, in host memory, the CPU's colour, so that a figure
# coloured by data source still tells the CPU step from the GPU's.
style.register_look(
    colours={"data": {"device": "#3b3b3b", "host": style.COLOURS["processor"]["cpu"], "pinned": "#1f77b4",
                      "pageable": "#d62728"}},
    linestyles={"data": {"device": "-", "host": "-", "pinned": "--", "pageable": ":"}})

COUNTER = "TFLOP/s"


def rate_text(rate: float) -> str:
    """Three significant digits, without an exponent for the GPU's thousands."""
    return f"{rate:.3g}" if rate < 1000 else f"{rate:.0f}"


def gemm_peaks(benchmarks: list[dict], prefix: str = "") -> list[tuple[float, str]]:
    """[(TFLOP/s, label)]: per processor and dtype, the fastest successful GEMM run among
    `benchmarks` (over the CPU's thread counts, and hdbench's and PyTorch's GEMMs alike);
    the label says which run it was, e.g. `cpu fp32 GEMM peak 0.32 TFLOP/s (threads=2)`.
    A run's rate is its fastest sample's (`best_TFLOP/s`) where it has one: the rate the
    steps' `fraction_of_gemm_rate` is taken against, so the line and that share agree (an
    H100's tf32 line at the median 375 TFLOP/s beside steps rated against 405).
    `prefix` starts each label (the machine, when several reports share a figure)."""
    best: dict[tuple, tuple[float, dict]] = {}
    for b in benchmarks:
        p = b.get("params", {})
        counters = b.get("counters", {})
        rate = counters.get("best_" + COUNTER, counters.get(COUNTER))
        if p.get("family") != "mlp" or p.get("variant") != "gemm" or not ok_run(b) or rate is None:
            continue
        key = (p.get("processor"), p.get("dtype"))
        if key not in best or rate > best[key][0]:
            best[key] = (rate, p)
    peaks = []
    for (processor, dtype), (rate, p) in sorted(best.items(), key=lambda item: str(item[0])):
        by = [p["implementation"]] if p.get("implementation", "hdbench") != "hdbench" else []
        if "threads" in p:
            by.append(f"threads={p['threads']}")
        which = f" ({', '.join(by)})" if by else ""
        peaks.append((rate, f"{prefix}{processor} {dtype} GEMM peak {rate_text(rate)} {COUNTER}{which}"))
    return peaks


def gemm_peak_lines(spec, panel: dict, reports) -> list[tuple[float, str]]:
    """The best GEMM rate in the panel's dtype: of the figure's processor where its steps
    are split by processor, of each processor where they share the figure."""
    out = []
    for path, report, _ in reports:
        for rate, label in gemm_peaks(report["benchmarks"]):
            if "processor" in panel and not label.startswith(f"{panel['processor']} "):
                continue
            if "dtype" not in panel or f" {panel['dtype']} GEMM" in label:
                out.append((rate, label))
    return sorted(set(out), reverse=True)


MLP_SERIES = ("implementation", "processor", "mode", "data", "threads")
MLP_OVERFLOW = ("processor", "data", "mode")

SPECS = [
    Spec("mlp_step_us", "MLP training step time against batch (lower is better)", "batch", "step_us",
         where={"family": "mlp", "variant": "step"}, figure_by=("variant", "model"), cols="dtype",
         series=MLP_SERIES, overflow=MLP_OVERFLOW, split_if_varying=("optimizer",), ylabel="step time (µs)"),
    Spec("mlp", "MLP training throughput against batch", "batch", "samples/s",
         where={"family": "mlp", "variant": "step"}, figure_by=("variant", "model"), cols="dtype",
         series=MLP_SERIES, overflow=MLP_OVERFLOW, split_if_varying=("optimizer",), ylabel="samples/s"),
    Spec("mlp", "Whole training epochs (loader → copy → step): samples/s against batch", "batch", "samples/s",
         where={"family": "mlp", "variant": "epoch"}, figure_by=("variant", "model"), cols="pinning",
         series=("workers", "processor"), overflow=("processor",), ylabel="samples/s"),
    Spec("mlp_TFLOP_per_s", "MLP step TFLOP/s against batch, beside the GEMM peak of each processor", "batch",
         "TFLOP/s", where={"family": "mlp", "variant": "step"}, figure_by=("variant", "model"), cols="dtype",
         series=MLP_SERIES, overflow=MLP_OVERFLOW, split_if_varying=("optimizer",), ylabel="TFLOP/s",
         references=gemm_peak_lines),
    Spec("mlp_gpu_busy_percent", "Share of each training epoch the GPU was busy", "batch", "gpu_busy_percent",
         where={"family": "mlp", "variant": "epoch"}, figure_by=("variant",), cols="pinning",
         series=("model", "workers"), linear_y=True, ylim=(0, 100), ylabel="GPU busy (% of the epoch)"),
]
# The step and epoch specs read the same family but split it differently: their `figure_by`
# values (the variant) keep their names apart.


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
        out[name] = bars.draw(plt, f"Training step, hdbench vs PyTorch: {model} on the {processor.upper()}, "
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


def _time_text(us: float) -> str:
    return f"{us / 1e3:.3g} ms" if us >= 1e3 else f"{us:.3g} µs"


def mlp_gpu_vs_cpu(plt, reports, machine) -> dict:
    # Like for like, as the summary pairs them: the GPU's fp32 eager step against the CPU's fp32 step
    # (a bf16 CUDA-graph replay measures the dtype and the launches as much as the processor), both
    # from one run; where several reports ran a point, the first report's pair.
    panels = defaultdict(dict)
    for one in reports:
        steps = [s for s in _steps([one]) if s[0].get("implementation", "hdbench") == "hdbench"]
        cpu = fastest(steps, lambda p: p.get("processor") == "cpu")
        gpu = fastest(steps, lambda p: p.get("processor") == "gpu" and p.get("data") == "device"
                      and p.get("dtype") == "fp32" and p.get("mode") == "eager")
        for key in set(cpu) & set(gpu):
            model, batch = key
            (c, c_name, _), (g, g_name, _) = cpu[key], gpu[key]
            # the GPU's time in its label: on a linear axis a bar 50 times shorter is a sliver
            panels[("", model)].setdefault(f"batch {batch}", {"CPU": (c, "", [c_name]),
                                                               "GPU": (g, f"{_time_text(g)}\n{c / g:.1f}×",
                                                                       [g_name])})
    if not panels:
        return {}
    colours = {"CPU": style.COLOURS["processor"]["cpu"], "GPU": style.COLOURS["processor"]["gpu"]}
    return {"mlp_gpu_vs_cpu": bars.draw(plt, "Training step, GPU vs CPU (fp32 eager on both, the CPU's fastest threads; hdbench)", machine,
                                   dict(panels), ["CPU", "GPU"], colours, "step time (µs)",
                                   note="on the GPU's bar: its time, and the CPU's time ÷ the GPU's")}


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
            out[f"mlp_batch_copy--model-{model}"] = bars.draw(
                plt, f"What copying the batch in costs a GPU step: {model}, eager", machine, dict(panels),
                ["device", "pinned", "pageable"], style.COLOURS["data"], "step time (µs)",
                note="on a copied step's bar: its time ÷ the step with the batch already on the device")
    return out


MAKERS = (mlp_vs_pytorch, mlp_gpu_vs_cpu, mlp_batch_copy)


def expand(benchmarks: list[dict]) -> list[dict]:
    return benchmarks
