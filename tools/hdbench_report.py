#!/usr/bin/env python3
"""Figures and comparisons from hdbench reports.

    hdbench_report.py plot REPORT... -o DIR
    hdbench_report.py compare BASE NEW [--threshold PERCENT] [--alpha P]
    hdbench_report.py summarize REPORT [-o FILE.md]

Draws, per family present in the reports, bandwidth against size (log axes) with
one line per configuration, and the PCIe link's theoretical rate where known. The
data loader family gets samples/s against worker count (a symlog x axis, so 0
workers shows), heat maps of samples/s over batch size x workers (from the first
report only), and the direct-over-pin-thread ratio from the report's derived rows
(see report_loader_figures.py). MLP training steps get samples/s, step time and
TFLOP/s against batch size, one figure of each per model, with PyTorch baseline lines
(tools/pytorch_baseline.py, params `implementation=pytorch`) beside hdbench's and, on
the TFLOP/s figure, the best GEMM rate of each processor and dtype as a reference line
(see report_mlp_figures.py). MLP epochs get samples/s against batch size and, for GPU
epochs, the share of the epoch the GPU was busy. Reads only `params` and counters,
never names. A counter no run carries draws no figure. Skipped and failed benchmarks
are left out and listed. `compare` prints each
benchmark's new/base time ratio (with a Mann-Whitney U test when the runs had
repetitions) and their geometric mean, and exits 1 when a benchmark got slower by
more than the threshold. Exit code 2 for a missing or malformed report.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import report_loader_figures  # noqa: E402  (found through the path above)
import report_mlp_figures  # noqa: E402


class ReportError(Exception):
    """A report that cannot be used; the message names the file."""


def load_report(path: str) -> dict:
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise ReportError(f"{path}: cannot read: {e.strerror}") from None
    if not text.strip():
        raise ReportError(f"{path}: the file is empty")
    try:
        report = json.loads(text)
    except json.JSONDecodeError as e:
        raise ReportError(f"{path}: not valid JSON (line {e.lineno}: {e.msg}); truncated?") from None
    if not isinstance(report, dict) or not isinstance(report.get("benchmarks"), list) or \
            "hdbench" not in report.get("context", {}):
        raise ReportError(f"{path}: not an hdbench report (no context.hdbench or benchmarks)")
    return report


def machine_label(report: dict) -> str:
    hd = report["context"]["hdbench"]
    gpus = hd.get("system", {}).get("gpus", [])
    gpu = gpus[0]["name"] if gpus else "no GPU"
    return f"{report['context'].get('host_name', '?')} ({gpu}), {hd.get('started_at', '')[:10]}"


# The params that tell an MLP run's lines apart; epochs add the loader's workers and pinning.
MLP_LINES = ("implementation", "processor", "dtype", "optimizer", "mode", "data", "threads", "workers", "pinning")
# figure -> (series key from params, x param, y counter). A figure named after a family
# draws all its runs; the others draw the runs WHERE names.
FIGURES = {
    "transfer": (("direction", "memory", "engine", "variant"), "bytes", "bandwidth_GB/s"),
    "staged": (("direction", "chunk_bytes", "threads"), "bytes", "bandwidth_GB/s"),
    "host_memcpy": (("threads",), "bytes", "bandwidth_GB/s"),
    "pinning": (("method",), "bytes", "pin_rate_GB/s"),
    # How close each stream variant gets to the ideal pipeline, against its chunk count.
    "streams": (("variant", "default_stream_mode", "memory", "streams", "issue_order"), "chunks", "fraction_of_ideal"),
    # How a data loader's throughput grows with its worker threads.
    "loader": (("consumer", "pinning", "batch"), "workers", "samples/s"),
    # MLP training steps against batch size; `implementation` (pytorch for
    # tools/pytorch_baseline.py's reports) tells a baseline's lines from hdbench's.
    # Epochs (variant=epoch) are figures of their own.
    "mlp": (MLP_LINES, "batch", "samples/s"),
    "mlp_step_us": (MLP_LINES, "batch", "step_us"),
    # Log y (the default): CPU and GPU steps, small and large batches, and the GEMM
    # peaks drawn with them lie orders of magnitude apart (~0.001 to ~1000 TFLOP/s).
    "mlp_TFLOP_per_s": (MLP_LINES, "batch", "TFLOP/s"),
    # Only GPU epochs carry the counter; the model is a line, not a figure, as epochs run few models.
    "mlp_gpu_busy_percent": (("processor", "model", "workers", "pinning"), "batch", "gpu_busy_percent"),
}
# The runs a figure not named after its family draws: those whose params hold these values.
WHERE = {"mlp_step_us": {"family": "mlp", "variant": "step"},
         "mlp_TFLOP_per_s": {"family": "mlp", "variant": "step"},
         "mlp_gpu_busy_percent": {"family": "mlp", "variant": "epoch"}}
# Figures drawn as one figure per value of a param (too many lines for one).
SPLIT_BY = {"streams": ("bytes", "compute_ratio"),
            "loader": ("sample_cost_us", "prefetch_depth", "shuffle", "augment"),
            "mlp": ("variant", "model"),
            "mlp_step_us": ("variant", "model"),
            "mlp_TFLOP_per_s": ("variant", "model"),
            "mlp_gpu_busy_percent": ("variant",)}
# Counters that are ratios or shares, drawn on a linear axis.
LINEAR_Y = {"fraction_of_ideal", "direct_over_pin_thread", "gpu_busy_percent"}
# Fixed y ranges: a share of time is read against the whole.
Y_LIMITS = {"gpu_busy_percent": (0, 100)}
# y axis labels where the counter's name does not carry its unit plainly (default: the
# counter with spaces for underscores).
Y_LABELS = {"step_us": "step time (µs)", "gpu_busy_percent": "GPU busy (% of the epoch)"}
# x quantities that include 0, which a log axis cannot show: symlog (linear up to 1,
# base 2 beyond), ticked at the values drawn.
SYMLOG_X = {"workers"}
# Figures from the report's `derived` rows: name -> (row list, series keys, x, y).
DERIVED_FIGURES = {
    "pinning_break_even": ("pinning_break_even", ("method", "direction"), "bytes", "transfers_to_break_even"),
    # Direct collation into pinned slots over PyTorch-style pin thread: above 1, the pin thread costs throughput.
    "loader_pinning": ("loader_pinning", ("batch", "sample_cost_us"), "workers", "direct_over_pin_thread"),
}
# Row fields added to a derived figure's labels when they take more than one value in
# its rows (else two grid points would share a line).
LABEL_IF_VARYING = {"loader_pinning": ("consumer", "prefetch_depth", "shuffle", "augment")}
# Horizontal reference lines by figure family: (y, label).
REFERENCE_Y = {"streams": (1.0, "ideal pipeline"), "loader_pinning": (1.0, "no difference")}


def line_prefix(reports: list[tuple[str, dict]], report: dict) -> str:
    """What a line's label starts with when several reports share a figure: the machine
    when each report comes from a different one, else (before and after on one
    machine, or hdbench and its PyTorch baseline) the report's file name."""
    if len(reports) < 2:
        return ""
    if len({machine_label(r) for _, r in reports}) == len(reports):
        return f"{machine_label(report)}: "
    path = next(p for p, r in reports if r is report)
    stems = [Path(p).stem for p, _ in reports]
    return f"{Path(path).stem if len(set(stems)) == len(stems) else path}: "


def figures_of(params: dict) -> list[str]:
    """The FIGURES entries that draw a run with these params."""
    return [f for f in FIGURES if all(params.get(k) == v for k, v in WHERE.get(f, {"family": f}).items())]


def collect(reports: list[tuple[str, dict]]):
    """{figure: {series label: [(x, y)]}}, the left-out benchmarks, and link rates."""
    series: dict = defaultdict(lambda: defaultdict(list))
    left_out: list[str] = []
    links: set[float] = set()
    for path, report in reports:
        prefix = line_prefix(reports, report)
        for gpu in report["context"]["hdbench"].get("system", {}).get("gpus", []):
            if gpu.get("pcie_link_max_gbps"):
                links.add(gpu["pcie_link_max_gbps"])
        for b in report_loader_figures.zero_workers_at_every_depth(report["benchmarks"]):
            params = b.get("params", {})
            drawn_on = figures_of(params)
            if not drawn_on or b.get("run_type", "iteration") != "iteration":
                continue
            if b.get("status") != "ok":
                left_out.append(f"{b.get('name')}: {b.get('status')} ({b.get('skip_reason') or b.get('error_message', '')})")
                continue
            for name in drawn_on:
                keys, x_param, counter = FIGURES[name]
                y = b.get("counters", {}).get(counter)
                if y is None or x_param not in params:
                    continue
                label = prefix + " ".join(f"{k}={params[k]}" for k in keys if k in params)
                figure = name
                if name in SPLIT_BY:
                    figure += "--" + "_".join(f"{k}-{params.get(k)}" for k in SPLIT_BY[name])
                series[figure][label].append((params[x_param], y))
        for figure, (rows_key, keys, x_key, y_key) in DERIVED_FIGURES.items():
            rows = report.get("derived", {}).get(rows_key, [])
            keys = keys + varying(rows, LABEL_IF_VARYING.get(figure, ()))
            for row in rows:
                if isinstance(row.get(y_key), (int, float)) and x_key in row:  # null: pinning never pays off
                    label = prefix + " ".join(f"{k}={row[k]}" for k in keys if k in row)
                    series[figure][label].append((row[x_key], row[y_key]))
    return series, left_out, links


def varying(rows: list[dict], keys: tuple[str, ...]) -> tuple[str, ...]:
    """Those of `keys` that take more than one value in `rows`."""
    return tuple(k for k in keys if len({json.dumps(r.get(k)) for r in rows}) > 1)


def axes_of(figure: str) -> tuple[str, str]:
    """(x, y) quantities a figure draws."""
    if figure in DERIVED_FIGURES:
        return DERIVED_FIGURES[figure][2], DERIVED_FIGURES[figure][3]
    _, x, y = FIGURES[figure.split("--")[0]]
    return x, y


def reference_lines(reports: list[tuple[str, dict]], links: set[float]) -> dict[str, list[tuple[float, str]]]:
    """{figure family: [(y, label)]}: the horizontal lines a family's figures are read against."""
    references = defaultdict(list, {family: [ref] for family, ref in REFERENCE_Y.items()})
    for family in ("transfer", "staged"):
        references[family] += [(rate, f"PCIe link {rate:.1f} GB/s") for rate in sorted(links)]
    for _, report in reports:
        references["mlp_TFLOP_per_s"] += report_mlp_figures.gemm_peaks(report["benchmarks"],
                                                                       line_prefix(reports, report))
    return references


def natural_order(label: str) -> list:
    """Sort key that puts batch=128 before batch=1024: digit runs compare as numbers."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", label)]


def draw_lines(plt, figure: str, lines: dict, references: list[tuple[float, str]], title_machine: str):
    """One figure: a line per series, the figure's reference lines, and its axes' scales."""
    x_name, counter = axes_of(figure)
    fig, ax = plt.subplots(figsize=(10, 6))
    for label, points in sorted(lines.items(), key=lambda item: natural_order(item[0])):
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
    # A lone reference line is gray; several (GEMM peaks, links of several machines) need
    # colours of their own to be told apart (axhline does not take the next colour itself).
    colors = ["gray"] if len(references) == 1 else plt.colormaps["Dark2"].colors
    for (y, label), color in zip(references, itertools.cycle(colors)):
        ax.axhline(y, linestyle="--", color=color, label=label)
    if x_name in SYMLOG_X:
        ax.set_xscale("symlog", base=2, linthresh=1)
        ticks = sorted({p[0] for points in lines.values() for p in points})
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    else:
        ax.set_xscale("log", base=2)
    if counter not in LINEAR_Y:
        ax.set_yscale("log")
    if counter in Y_LIMITS:
        ax.set_ylim(*Y_LIMITS[counter])
    ax.set_xlabel(x_name)
    ax.set_ylabel(Y_LABELS.get(counter, counter.replace("_", " ")))
    ax.set_title(f"{figure}: {title_machine}")
    ax.grid(True, which="both", alpha=0.3)
    # Below the axes: labels are long (every param that tells lines apart), and a
    # legend inside would hide the lines.
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(0.0, -0.12), ncol=1)
    return fig


def build_figures(reports: list[tuple[str, dict]]):
    """{figure name: matplotlib Figure}, one per family (or split) with data, and the
    left-out benchmarks. No data, no figure."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series, left_out, links = collect(reports)
    references = reference_lines(reports, links)
    title_machine = "; ".join(sorted({machine_label(r) for _, r in reports}))
    figures = {figure: draw_lines(plt, figure, lines, references[figure.split("--")[0]], title_machine)
               for figure, lines in sorted(series.items())}
    if reports:
        # A heat map cannot overlay machines: with several reports the loader heat maps
        # come from the first one only (its machine is in their titles); the line
        # figures compare the reports.
        first = reports[0][1]
        figures.update(report_loader_figures.heatmaps(plt, first["benchmarks"], machine_label(first)))
    return figures, left_out


def plot(paths: list[str], out_dir: str) -> list[Path]:
    import matplotlib
    import matplotlib.pyplot as plt

    # The same reports give the same files (no date, fixed element ids), so committed
    # figures change only when their data does.
    matplotlib.rcParams["svg.hashsalt"] = "hdbench"

    reports = [(p, load_report(p)) for p in paths]
    figures, left_out = build_figures(reports)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, fig in figures.items():
        for ext in ("png", "svg"):
            path = out / f"{name}.{ext}"
            fig.savefig(path, bbox_inches="tight", metadata={"Date": None} if ext == "svg" else None)
            written.append(path)
        plt.close(fig)
    if len(reports) > 1 and any(name.startswith("loader_heatmap--") for name in figures):
        print(f"loader heat maps drawn from the first report only ({paths[0]})", file=sys.stderr)
    if left_out:
        print(f"left out of the figures ({len(left_out)}):", file=sys.stderr)
        for line in left_out[:20]:
            print(f"  {line}", file=sys.stderr)
        if len(left_out) > 20:
            print(f"  … and {len(left_out) - 20} more", file=sys.stderr)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hdbench_report.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_plot = sub.add_parser("plot", help="draw figures from reports (loader heat maps from the first one)")
    p_plot.add_argument("reports", nargs="+")
    p_plot.add_argument("-o", "--out", required=True, help="folder for the PNG and SVG figures")
    p_compare = sub.add_parser("compare", help="per-benchmark time ratios of NEW over BASE; exit 1 on a regression")
    p_compare.add_argument("base")
    p_compare.add_argument("new")
    p_compare.add_argument("--threshold", type=float, default=5.0,
                           help="percent slower that counts as a regression (default 5)")
    p_compare.add_argument("--alpha", type=float, default=0.05,
                           help="significance level of the U test when there are repetitions (default 0.05)")
    p_summary = sub.add_parser("summarize", help="a Markdown page answering the tutorials' questions")
    p_summary.add_argument("report")
    p_summary.add_argument("-o", "--out", help="write here instead of standard output")
    args = parser.parse_args(argv)
    try:
        if args.command == "compare":
            return run_compare(args)
        if args.command == "summarize":
            return run_summarize(args)
        written = plot(args.reports, args.out)
    except ReportError as e:
        print(f"hdbench_report.py: {e}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


def run_summarize(args) -> int:
    import report_summary

    text = report_summary.summarize(load_report(args.report), args.report)
    if not args.out:
        print(text)
        return 0
    out = Path(args.out)
    tmp = out.with_name(out.name + ".tmp")
    try:
        tmp.write_text(text)
        tmp.replace(out)  # atomic: readers never see half a page
    except OSError as e:
        print(f"hdbench_report.py: {args.out}: cannot write: {e.strerror}", file=sys.stderr)
        return 2
    print(out)
    return 0


def run_compare(args) -> int:
    import report_compare

    if args.threshold < 0 or not 0 < args.alpha < 1:
        print("hdbench_report.py: --threshold must be >= 0 and --alpha between 0 and 1", file=sys.stderr)
        return 2
    base, new = load_report(args.base), load_report(args.new)
    rows, only_base, only_new = report_compare.compare(base, new, args.threshold, args.alpha)
    print(report_compare.format_report(rows, only_base, only_new, base, new, args.threshold, args.alpha))
    return 1 if any(r.regressed for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
