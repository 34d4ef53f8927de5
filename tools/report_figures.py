"""Which line figures `hdbench_report.py plot` draws, and what each is read against.

Each `Spec` (see report_facets.py) answers one question of the summary; the panels
split what one axes cannot hold. Bar figures (categories on the x axis) are in
report_bars.py, the loader's heat maps in report_loader_figures.py.
"""

from __future__ import annotations

import report_facets as facets
import report_mlp_figures
from report_facets import Spec


def link_rates(spec, panel: dict, reports) -> list[tuple[float, str]]:
    """The PCIe link's theoretical rate of each GPU in the reports; twice it where a
    panel shows both directions at once."""
    rates = sorted({g["pcie_link_max_gbps"] for _, r, _ in reports
                    for g in r["context"]["hdbench"].get("system", {}).get("gpus", []) if g.get("pcie_link_max_gbps")})
    if panel.get("direction") == "bidir":
        return [(2 * r, f"PCIe link ×2 (both directions) {2 * r:.1f} GB/s") for r in rates]
    return [(r, f"PCIe link {r:.1f} GB/s") for r in rates]


def gemm_peaks(spec, panel: dict, reports) -> list[tuple[float, str]]:
    """The best GEMM rate of each processor in the panel's dtype."""
    out = []
    for path, report, _ in reports:
        for rate, label in report_mlp_figures.gemm_peaks(report["benchmarks"]):
            if "dtype" not in panel or f" {panel['dtype']} GEMM" in label:
                out.append((rate, label))
    return sorted(set(out), reverse=True)


def one_line(y: float, text: str):
    return lambda spec, panel, reports: [(y, text)]


BANDWIDTH = "GB/s (1e9 bytes/s)"
MLP_SERIES = ("implementation", "processor", "mode", "data", "threads")
MLP_OVERFLOW = ("processor", "data", "mode")

SPECS = [
    Spec("transfer", "Copy bandwidth by memory kind and engine", "bytes",
         "bandwidth_GB/s", where={"family": "transfer"}, rows="engine", cols="direction",
         series=("memory", "variant"), overflow=("variant",), ylabel=BANDWIDTH, references=link_rates),
    Spec("staged", "Pageable memory through a pinned staging ring, beside plain pageable and pinned copies",
         "bytes", "bandwidth_GB/s", where={"family": "staged"}, rows="chunk_bytes", cols="direction",
         series=("threads",), ylabel=BANDWIDTH, references=link_rates,
         companions=({"family": "transfer", "engine": "copy", "variant": "per_copy",
                      "memory": frozenset({"pinned", "pageable"})},)),
    Spec("host_memcpy", "Host memcpy bandwidth by thread count (the ceiling of pageable and staged copies)",
         "bytes", "bandwidth_GB/s", where={"family": "host_memcpy"}, series=("threads",), ylabel=BANDWIDTH),
    Spec("pinning", "What pinning costs: pin + unpin time by method", "bytes", "pin_unpin_us",
         where={"family": "pinning"}, series=("method",), ylabel="pin + unpin (µs)"),
    Spec("pinning_break_even", "Transfers before pinning pays off (pinned copy saving vs pin + unpin cost)",
         "bytes", "transfers_to_break_even", derived="pinning_break_even", cols="direction", series=("method",),
         ylabel="transfers to break even", null_note="never pays off", row_keys=("direction", "method", "bytes")),
    Spec("loader", "Loader samples/s against worker threads", "workers", "samples/s",
         where={"family": "loader"}, figure_by=("consumer", "prefetch_depth", "shuffle", "augment"),
         rows=None, cols="sample_cost_us", series=("pinning", "batch"), overflow=("pinning",),
         ylabel="samples/s"),
    Spec("loader_pinning", "Direct collation into pinned slots over a pin thread's extra copy (>1: the pin thread "
         "costs throughput)", "workers", "direct_over_pin_thread", derived="loader_pinning",
         cols="sample_cost_us", series=("batch",), linear_y=True, ylabel="direct ÷ pin thread (samples/s)",
         row_keys=("consumer", "batch", "sample_cost_us", "shuffle", "augment", "workers", "prefetch_depth"),
         references=one_line(1.0, "no difference")),
    Spec("mlp_step_us", "MLP training step time against batch (lower is better)", "batch", "step_us",
         where={"family": "mlp", "variant": "step"}, figure_by=("variant", "model"), cols="dtype",
         series=MLP_SERIES, overflow=MLP_OVERFLOW, split_if_varying=("optimizer",), ylabel="step time (µs)"),
    Spec("mlp", "MLP training throughput against batch", "batch", "samples/s",
         where={"family": "mlp", "variant": "step"}, figure_by=("variant", "model"), cols="dtype",
         series=MLP_SERIES, overflow=MLP_OVERFLOW, split_if_varying=("optimizer",), ylabel="samples/s"),
    Spec("mlp_TFLOP_per_s", "MLP step TFLOP/s against batch, beside the GEMM peak of each processor", "batch",
         "TFLOP/s", where={"family": "mlp", "variant": "step"}, figure_by=("variant", "model"), cols="dtype",
         series=MLP_SERIES, overflow=MLP_OVERFLOW, split_if_varying=("optimizer",), ylabel="TFLOP/s", references=gemm_peaks),
    Spec("mlp", "Whole training epochs (loader → copy → step): samples/s against batch", "batch", "samples/s",
         where={"family": "mlp", "variant": "epoch"}, figure_by=("variant", "model"), cols="pinning",
         series=("workers", "processor"), overflow=("processor",), ylabel="samples/s"),
    Spec("dataparallel_step_us", "Data-parallel GPU step time against batch: gradients all-reduced in overlapped "
         "buckets, once after backward, or not at all", "batch", "step_us",
         where={"family": "dataparallel", "variant": "gpu_step"}, figure_by=("model",), cols="ranks",
         series=("overlap",), ylabel="step time (µs)", min_xs=2),
    Spec("mlp_gpu_busy_percent", "Share of each training epoch the GPU was busy", "batch", "gpu_busy_percent",
         where={"family": "mlp", "variant": "epoch"}, figure_by=("variant",), cols="pinning",
         series=("model", "workers"), linear_y=True, ylim=(0, 100), ylabel="GPU busy (% of the epoch)"),
]
# Specs whose points come from the same runs but split them differently need their own
# `figure_by` values to keep names apart: the mlp step and epoch specs differ by variant.


def build(plt, reports, machine: str) -> dict:
    """{figure name: Figure} for every spec with data in `reports` ((path, report, benchmarks))."""
    figures = {}
    for spec in SPECS:
        points = facets.points_of(spec, reports)
        if len({p.x for p in points}) < max(spec.min_xs, 1):
            continue
        xs = {p.x for p in points}
        companions = [p for where in spec.companions for p in facets.points_of(spec, reports, where=where)
                      if p.x in xs]
        for name, fig_layout in sorted(facets.layout(spec, points).items()):
            if len({p.x for p in fig_layout["points"]}) < spec.min_xs:
                continue  # one point a line: a table says it better (the summary's)
            figures[name] = facets.draw(plt, spec, name, fig_layout, reports, machine,
                                        companion_points=companions)
    return figures


def drawable(params: dict) -> bool:
    """Whether a run with these params is drawn on some line figure (when it succeeds); a
    GEMM is drawn as the TFLOP/s figure's reference line."""
    if params.get("family") == "mlp" and params.get("variant") == "gemm":
        return True
    return any(not spec.derived and facets._matches(params, spec.where) for spec in SPECS)
