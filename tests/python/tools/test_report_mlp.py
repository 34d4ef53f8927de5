"""The MLP family's figures in tools/hdbench_report.py: step time and TFLOP/s against
batch (hdbench's CPU and GPU steps beside the PyTorch baseline's), the GEMM peaks
drawn on the TFLOP/s figure, and the GPU busy % of epochs. All reports here are
synthetic (made up in the test, not measured); the numbers are only distinct so that
a mix-up shows."""

from __future__ import annotations

import json

import pytest

import hdbench_report
from conftest import run_report_tool
from report_figure_checks import check_figure, panels, references, series

MODEL = "784x32x10"
STEP_US = f"mlp_step_us--variant-step_model-{MODEL}"
TFLOPS = f"mlp_TFLOP_per_s--variant-step_model-{MODEL}"
SAMPLES = f"mlp--variant-step_model-{MODEL}"
BUSY = "mlp_gpu_busy_percent--variant-epoch"

# Labels name what varies: implementation and processor (threads and data follow the processor).
CPU_HD, GPU_HD, CPU_PT, GPU_PT = "hdbench, CPU", "hdbench, GPU", "PyTorch, CPU", "PyTorch, GPU"


def step(implementation, processor, batch, step_us, tflops=None, status="ok"):
    """A step run as bench/mlp.cpp and baselines/pytorch/pytorch_baseline.py write it (params and counters)."""
    params = {"family": "mlp", "variant": "step", "implementation": implementation, "processor": processor,
              "model": MODEL, "dtype": "fp32", "optimizer": "sgd", "mode": "eager",
              "data": "host" if processor == "cpu" else "device", "batch": batch}
    params.update({"threads": 2} if processor == "cpu" else {"device": 0})
    counters = {"step_us": step_us, "samples/s": batch / (step_us * 1e-6)}
    if tflops is not None:
        counters["TFLOP/s"] = tflops
    entry = {"name": f"mlp/step/{implementation}/{processor}/batch:{batch}", "run_type": "iteration",
             "status": status, "params": params, "counters": counters if status == "ok" else {}}
    if status == "skipped":
        entry["skip_reason"] = "no usable GPU"
    return entry


def gemm(implementation, processor, dtype, tflops, threads=None, status="ok"):
    params = {"family": "mlp", "variant": "gemm", "implementation": implementation, "processor": processor,
              "dtype": dtype, "m": 2048, "n": 2048, "k": 2048}
    params.update({"threads": threads} if threads else {"device": 0})
    name = f"mlp/gemm/{implementation}/{processor}/{dtype}" + (f"/threads:{threads}" if threads else "")
    entry = {"name": name, "run_type": "iteration",
             "status": status, "params": params, "counters": {"TFLOP/s": tflops} if status == "ok" else {}}
    if status == "skipped":
        entry["skip_reason"] = "no usable GPU"
    return entry


def epoch(processor, batch, workers, pinning, busy=None, status="ok"):
    """An epoch run as bench/mlp_epoch.cpp writes it: only GPU epochs carry gpu_busy_percent."""
    params = {"family": "mlp", "variant": "epoch", "implementation": "hdbench", "processor": processor,
              "model": MODEL, "dtype": "fp32", "optimizer": "sgd", "mode": "eager", "batch": batch,
              "workers": workers, "pinning": pinning, "prefetch_depth": 2, "dataset": "synthetic"}
    params.update({"threads": 2} if processor == "cpu" else {"device": 0})
    counters = {"samples/s": 1000.0 * batch + workers, "epoch_ms": 50.0}
    if busy is not None:
        counters["gpu_busy_percent"] = busy
    return {"name": f"mlp/epoch/{processor}/{pinning}/workers:{workers}/batch:{batch}", "run_type": "iteration",
            "status": status, "params": params, "counters": counters if status == "ok" else {}}


def report(benchmarks, host="synthetic") -> dict:
    return {"context": {"host_name": host, "hdbench": {"started_at": "2026-11-20T10:00:00",
                                                       "system": {"gpus": [{"name": "GPU"}]}}},
            "benchmarks": benchmarks}


def steps_and_gemms() -> list[dict]:
    return [
        step("hdbench", "cpu", 32, 400.0, 0.01), step("hdbench", "cpu", 128, 1200.0, 0.03),
        step("hdbench", "gpu", 32, 20.0, 0.2), step("hdbench", "gpu", 128, 22.0, 0.7),
        step("pytorch", "cpu", 32, 500.0, 0.008), step("pytorch", "cpu", 128, 1500.0, 0.025),
        # The baseline's GPU step at batch 32 lacks TFLOP/s: absent from that figure only.
        step("pytorch", "gpu", 32, 60.0), step("pytorch", "gpu", 128, 65.0, 0.25),
        step("hdbench", "gpu", 1024, 1.0, status="skipped"),
        gemm("hdbench", "cpu", "fp32", 0.15, threads=1), gemm("hdbench", "cpu", "fp32", 0.32, threads=2),
        gemm("pytorch", "cpu", "fp32", 0.30, threads=2),
        gemm("hdbench", "gpu", "fp32", 50.0), gemm("pytorch", "gpu", "fp32", 55.0),  # PyTorch's is the peak here
        gemm("hdbench", "gpu", "bf16", 1234.5),
        gemm("hdbench", "gpu", "tf32", 0.0, status="skipped"),  # skipped: no reference line
    ]


@pytest.fixture
def figures():
    figs, left_out = hdbench_report.build_figures([("synthetic.json", report(steps_and_gemms()))])
    yield figs, left_out
    close(figs)


def close(figs: dict) -> None:
    import matplotlib.pyplot as plt

    for fig in figs.values():
        plt.close(fig)


def lines_of(fig, panel="fp32") -> dict:
    return series(panels(fig)[panel])


def test_step_time_figure_has_a_line_per_implementation_and_processor(figures):
    figs, left_out = figures
    assert {STEP_US, TFLOPS, SAMPLES} <= set(figs)
    for name, fig in figs.items():
        check_figure(name, fig)
    ax = panels(figs[STEP_US])["fp32"]  # a panel per dtype
    lines = lines_of(figs[STEP_US])
    assert set(lines) == {CPU_HD, GPU_HD, CPU_PT, GPU_PT} and not references(ax)  # no reference lines on time
    assert lines[CPU_HD] == [(32, 400.0), (128, 1200.0)]
    assert lines[GPU_HD] == [(32, 20.0), (128, 22.0)]  # the skipped batch-1024 step is not drawn
    assert lines[GPU_PT] == [(32, 60.0), (128, 65.0)]
    assert ax.get_yscale() == "log" and ax.get_xscale() == "log"
    assert ax.get_xlabel() == "batch size" and ax.get_ylabel() == "step time (µs)"
    # The machine by its GPU and CPU (the report names neither CPU nor GPU model), not by its host name.
    assert "GPU + unknown CPU, 2026-11-20" in figs[STEP_US]._suptitle.get_text()
    assert any(line.startswith("mlp/step/hdbench/gpu/batch:1024: skipped") for line in left_out)
    # The fixed colours: hdbench's and PyTorch's, the same in every figure.
    colours = {line.get_label(): line.get_color() for line in ax.get_lines()}
    assert colours[CPU_HD] != colours[GPU_HD] and colours[GPU_PT] != colours[CPU_PT]


def test_tflops_figure_leaves_out_a_line_without_the_counter(figures):
    figs, _ = figures
    ax = panels(figs[TFLOPS])["fp32"]
    lines = lines_of(figs[TFLOPS])
    assert set(lines) == {CPU_HD, GPU_HD, CPU_PT, GPU_PT}
    assert lines[CPU_PT] == [(32, 0.008), (128, 0.025)]
    assert lines[GPU_PT] == [(128, 0.25)]  # batch 32 has no TFLOP/s counter
    assert lines_of(figs[SAMPLES])[GPU_PT][0] == (32, 32 / 60e-6)  # but it is on the samples/s figure
    assert ax.get_yscale() == "log" and ax.get_ylabel() == "TFLOP/s"


def test_tflops_figure_draws_the_best_gemm_rate_of_each_processor_in_the_panels_dtype(figures):
    figs, left_out = figures
    # The fp32 panel: the fp32 peaks only (bf16's is another dtype's).
    assert references(panels(figs[TFLOPS])["fp32"]) == {
        "cpu fp32 GEMM peak 0.32 TFLOP/s (threads=2)": 0.32,  # the best thread count
        "gpu fp32 GEMM peak 55 TFLOP/s (pytorch)": 55.0}  # the best of either implementation
    assert any(line.startswith("mlp/gemm/hdbench/gpu/tf32") for line in left_out)


def test_gemm_peaks_are_each_reports_own():
    reports = [("a.json", report(steps_and_gemms(), host="box-a")),
               ("b.json", report([step("hdbench", "cpu", 32, 300.0, 0.02), gemm("hdbench", "cpu", "fp32", 0.9, 4)],
                                 host="box-b"))]
    figs, _ = hdbench_report.build_figures(reports)
    refs = references(panels(figs[TFLOPS])["fp32"])
    assert refs["cpu fp32 GEMM peak 0.9 TFLOP/s (threads=4)"] == 0.9
    assert refs["cpu fp32 GEMM peak 0.32 TFLOP/s (threads=2)"] == 0.32
    # box-b's step is a line of its own (told apart by its report).
    assert any(label.endswith(", b") for label in lines_of(figs[TFLOPS]))
    close(figs)


def test_the_gemm_peak_is_the_fastest_sample_the_steps_are_rated_against():
    """A GEMM run's best_TFLOP/s (its fastest sample) is what a step's fraction_of_gemm_rate is
    taken against: the peak line draws it, not the median (an H100's tf32 GEMM, 2026-11-28: the
    median 375 TFLOP/s, the fastest sample 405)."""
    from hdreport.families.mlp.figures import gemm_peaks
    fast = gemm("hdbench", "gpu", "tf32", 375.0)
    fast["counters"]["best_TFLOP/s"] = 405.0
    assert gemm_peaks([fast]) == [(405.0, "gpu tf32 GEMM peak 405 TFLOP/s")]
    del fast["counters"]["best_TFLOP/s"]  # a report without it (PyTorch's, or older): its median
    assert gemm_peaks([fast]) == [(375.0, "gpu tf32 GEMM peak 375 TFLOP/s")]


def test_a_figure_of_one_batch_size_draws_series_that_coincide_apart():
    """One batch size in the whole figure: each series is one marker, and two that measured
    alike would draw on one spot (an H100's eager and graph steps, 2026-11-28). They stand side
    by side, each with its value written above it; a figure of several batch sizes keeps its lines."""
    one = report([step("hdbench", "gpu", 8192, 3144.0), step("pytorch", "gpu", 8192, 3150.0)])
    figs, _ = hdbench_report.build_figures([("one.json", one)])
    fig = figs[STEP_US]
    check_figure(STEP_US, fig)
    ax = fig.axes[0]
    lines = [ln for ln in ax.get_lines() if ln.get_gid() == "series"]
    assert [ln.get_label() for ln in lines] == ["hdbench", "PyTorch"]
    shown = [ln.get_transform().transform((8192, ln.get_ydata()[0]))[0] for ln in lines]
    inch = fig.dpi
    assert shown[1] - shown[0] > 0.25 * inch  # apart by a quarter inch at least, though 0.2% apart in value
    assert sorted(t.get_text() for t in ax.texts if t.get_gid() == "value") == ["3.14k", "3.15k"]
    assert ax.get_ylim()[0] < 3144.0 and ax.get_ylim()[1] > 3150.0  # both inside the axes
    close(figs)
    several = report([step("hdbench", "gpu", b, 100.0 + b) for b in (128, 1024)])
    figs, _ = hdbench_report.build_figures([("two.json", several)])
    (line,) = [ln for ln in figs[STEP_US].axes[0].get_lines() if ln.get_gid() == "series"]
    assert list(line.get_xdata()) == [128, 1024] and line.get_markersize() == 5
    assert not [t for t in figs[STEP_US].axes[0].texts if t.get_gid() == "value"]
    close(figs)


def test_cpu_and_gpu_steps_a_decade_apart_get_figures_of_their_own():
    """On one log axis a CPU step 50 times the GPU's squeezed the GPU's lines into one (an
    H200's four GPU steps under the CPU's, 2026-11-27): they are split by processor, and each
    TFLOP/s figure draws its own processor's GEMM peak. Steps within a decade share a figure."""
    far = [step("hdbench", "cpu", 128, 20000.0, 0.7), step("hdbench", "cpu", 1024, 130000.0, 0.9),
           step("hdbench", "gpu", 128, 550.0, 27.0), step("hdbench", "gpu", 1024, 3000.0, 40.0),
           gemm("hdbench", "cpu", "fp32", 1.2, threads=16), gemm("hdbench", "gpu", "fp32", 51.7)]
    figs, _ = hdbench_report.build_figures([("far.json", report(far))])
    assert STEP_US not in figs
    for processor, ys in (("cpu", [20000.0, 130000.0]), ("gpu", [550.0, 3000.0])):
        name = f"{STEP_US}_processor-{processor}"
        check_figure(name, figs[name])
        (only,) = lines_of(figs[name]).values()  # one series: its processor is in the subtitle
        assert [y for _, y in only] == ys
        # and its colour is its processor's, not matplotlib's first blue (pinned memory's)
        from hdreport.core import style
        (line,) = [ln for ln in figs[name].axes[0].get_lines() if ln.get_gid() == "series"]
        assert line.get_color() == style.COLOURS["processor"][processor]
    assert references(panels(figs[f"{TFLOPS}_processor-cpu"])["fp32"]) == {
        "cpu fp32 GEMM peak 1.2 TFLOP/s (threads=16)": 1.2}
    assert references(panels(figs[f"{TFLOPS}_processor-gpu"])["fp32"]) == {"gpu fp32 GEMM peak 51.7 TFLOP/s": 51.7}
    close(figs)
    # One batch where the two are within a decade (batch 128: 9x) keeps them together.
    near = far[:2] + [step("hdbench", "gpu", 128, 2300.0, 27.0), far[3]]
    figs, _ = hdbench_report.build_figures([("near.json", report(near))])
    assert STEP_US in figs and set(lines_of(figs[STEP_US])) == {"CPU", "GPU"}
    close(figs)


def test_gpu_busy_figure_draws_gpu_epochs_only():
    runs = [epoch("cpu", 128, 2, "pageable"), epoch("cpu", 1024, 2, "pageable"),
            epoch("gpu", 128, 0, "direct", busy=35.0), epoch("gpu", 1024, 0, "direct", busy=80.0),
            epoch("gpu", 128, 2, "direct", busy=60.0), epoch("gpu", 1024, 2, "direct", busy=92.5),
            epoch("gpu", 128, 2, "pin_thread", status="skipped")]
    figs, left_out = hdbench_report.build_figures([("synthetic.json", report(runs))])
    assert BUSY in figs and f"mlp--variant-epoch_model-{MODEL}" in figs
    ax = panels(figs[BUSY])["direct"]  # a panel per pinning mode
    assert series(ax) == {"0 workers": [(128, 35.0), (1024, 80.0)], "2 workers": [(128, 60.0), (1024, 92.5)]}
    assert ax.get_yscale() == "linear" and ax.get_ylim() == (0, 100)
    assert ax.get_xlabel() == "batch size" and ax.get_ylabel() == "GPU busy (% of the epoch)"
    assert len(left_out) == 1 and "pin_thread" in left_out[0]
    close(figs)


def test_no_data_draws_no_figure():
    # Steps with samples/s only, GEMMs but no TFLOP/s from any step, CPU epochs only and
    # a skipped GPU epoch: only the samples/s figures are drawn.
    only_rate = step("hdbench", "cpu", 32, 400.0)
    del only_rate["counters"]["step_us"]
    runs = [only_rate, gemm("hdbench", "cpu", "fp32", 0.3, threads=2), epoch("cpu", 128, 2, "pageable"),
            epoch("gpu", 128, 2, "direct", status="skipped")]
    figs, left_out = hdbench_report.build_figures([("synthetic.json", report(runs))])
    assert set(figs) == {SAMPLES, f"mlp--variant-epoch_model-{MODEL}"}
    assert len(left_out) == 1  # the skipped epoch, listed once though three figures could draw it
    close(figs)


def test_hdbench_vs_pytorch_bars_write_the_ratio_on_pytorchs_bar(figures):
    figs, _ = figures
    fig = figs[f"mlp_vs_pytorch--model-{MODEL}_processor-gpu_optimizer-sgd"]
    check_figure("mlp_vs_pytorch", fig)
    bars = {(panel, group, s): value for panel, group, s, value, _ in fig.hdbench["bars"]}
    assert bars[(("eager", "batch 32"), "fp32", "hdbench")] == 20.0
    assert bars[(("eager", "batch 32"), "fp32", "PyTorch")] == 60.0
    texts = [t.get_text() for ax in fig.axes for t in ax.texts if t.get_gid() == "ratio"]
    assert sorted(texts) == ["2.95×", "3.00×"]  # 60/20 at batch 32, 65/22 at batch 128


def test_plot_writes_png_and_svg_of_the_new_figures(tmp_path):
    runs = steps_and_gemms() + [epoch("gpu", 128, 2, "direct", busy=60.0)]
    path = tmp_path / "synthetic.json"
    path.write_text(json.dumps(report(runs)))
    result = run_report_tool("plot", path, "-o", tmp_path / "fig")
    assert result.returncode == 0, result.stderr
    for name in (STEP_US, TFLOPS, BUSY, SAMPLES):
        for ext in ("png", "svg"):
            out = tmp_path / "fig" / f"{name}.{ext}"
            assert out.stat().st_size > 0 and str(out) in result.stdout.splitlines()
    assert "left out of the figures (2)" in result.stderr  # the skipped step and GEMM


def test_gpu_vs_cpu_pairs_steps_of_one_run_as_the_summary_does():
    """Two runs: the first has a slow CPU step and the faster GPU step, the second the faster CPU
    step. Each bar pair comes from one run (the first report's where both paired), never the
    fastest CPU of one run against the fastest GPU of another (300 / 100 = 3.0x)."""
    first = report([step("hdbench", "cpu", 128, 1200.0), step("hdbench", "gpu", 128, 100.0)])
    second = report([step("hdbench", "cpu", 128, 300.0), step("hdbench", "gpu", 128, 200.0),
                     step("hdbench", "cpu", 32, 400.0)], host="other")
    figs, _ = hdbench_report.build_figures([("first.json", first), ("second.json", second)])
    try:
        fig = figs["mlp_gpu_vs_cpu"]
        labels = [t.get_text() for ax in fig.axes for t in ax.texts]
        assert "100 µs\n12.0×" in labels  # the GPU's time, and 1200 / 100, both from the first run
        assert not any(t.endswith(("3.0×", "1.5×")) for t in labels)
        # A bar's length is its time: on a log axis a GPU bar 50 times shorter looked 3 times shorter.
        assert all(ax.get_yscale() == "linear" and ax.get_ylim()[0] == 0 for ax in fig.axes if ax.patches)
    finally:
        close(figs)


def test_the_gpu_steps_data_sources_take_their_own_colours():
    """Four GPU steps (pageable, pinned and device data, eager and graph) and the CPU step: coloured
    by processor they were four shades of one green (the H200 default run of 2026-11-27); the
    data source's colours tell them apart, the CPU's host data keeps the CPU's colour, and the
    two device-data steps differ by mode's line style."""
    from hdreport.core import style
    from hdreport.families.mlp.figures import MLP_SERIES

    runs = [("cpu", "eager", "host"), ("gpu", "eager", "pageable"), ("gpu", "eager", "pinned"),
            ("gpu", "eager", "device"), ("gpu", "graph", "device")]
    params = [{"implementation": "hdbench", "processor": p, "mode": m, "data": d} for p, m, d in runs]
    assert style.colour_key_of(MLP_SERIES, [tuple(p.get(k) for k in MLP_SERIES) for p in params]) == "data"
    styles = style.assign_styles(MLP_SERIES, params)
    look = {(p, m, d): styles[("hdbench", p, m, d, None)] for p, m, d in runs}
    assert look[("cpu", "eager", "host")]["color"] == style.COLOURS["processor"]["cpu"]
    assert look[("gpu", "eager", "pageable")]["color"] == style.COLOURS["memory"]["pageable"]
    assert look[("gpu", "eager", "pinned")]["color"] == style.COLOURS["memory"]["pinned"]
    assert look[("gpu", "eager", "device")]["color"] == style.COLOURS["memory"]["device"]
    assert look[("gpu", "graph", "device")]["linestyle"] == "--"
    assert look[("gpu", "eager", "device")]["linestyle"] == "-"
    # Where the processor tells the series apart as well as any key, it keeps colouring them.
    both = [{"implementation": "hdbench", "processor": p, "mode": "eager", "data": d} for p, d in (("cpu", "host"),
                                                                                                   ("gpu", "device"))]
    assert style.colour_key_of(MLP_SERIES, [tuple(p.get(k) for k in MLP_SERIES) for p in both]) == "processor"


def test_gemm_peaks_close_together_label_without_overprinting():
    """Two reports' GPU GEMM peaks 4% apart (hdbench's and PyTorch's on an H100, 2026-11-22):
    each label set just above its line printed over the other. The lower line's label goes
    below it; lines far apart keep theirs above."""
    import matplotlib

    reports = [("a.json", report([step("hdbench", "gpu", 128, 20.0, 0.7), gemm("hdbench", "gpu", "fp32", 51.6),
                                  gemm("hdbench", "cpu", "fp32", 0.3, threads=2)], host="box-a")),
               ("b.json", report([step("pytorch", "gpu", 128, 30.0, 0.5), gemm("pytorch", "gpu", "fp32", 49.6)],
                                 host="box-b"))]
    figs, _ = hdbench_report.build_figures(reports)
    fig = figs[TFLOPS]
    ax = panels(fig)["fp32"]
    fig.canvas.draw()
    labels = {t.get_text(): t for t in ax.texts if "GEMM peak" in t.get_text()}
    high, low = labels["gpu fp32 GEMM peak 51.6 TFLOP/s"], labels["gpu fp32 GEMM peak 49.6 TFLOP/s (pytorch)"]
    assert high.get_va() == "bottom" and low.get_va() == "top"
    # a figure of GPU steps alone draws no CPU peak: it squeezed the data and read as a CPU roof
    assert not any(t.startswith("cpu ") for t in labels)
    renderer = fig.canvas.get_renderer()
    a, b = high.get_window_extent(renderer), low.get_window_extent(renderer)
    assert not matplotlib.transforms.Bbox.intersection(a, b) or a.y0 >= b.y1
    close(figs)


def test_a_reference_line_is_drawn_unlike_any_series():
    """The GEMM peak was a dashed grey line, as a CUDA graph's step from the device is (dark grey,
    dashed): in the H200's TFLOP/s figure the two read alike. References are dash-dot."""
    runs = [step("hdbench", "gpu", b, 20.0 + b / 100, 0.7) for b in (128, 1024)] + [gemm("hdbench", "gpu", "fp32", 51.6)]
    figs, _ = hdbench_report.build_figures([("r.json", report(runs))])
    lines = figs[TFLOPS].axes[0].get_lines()
    references = [ln.get_linestyle() for ln in lines if ln.get_gid() == "reference"]
    drawn = {ln.get_linestyle() for ln in lines if ln.get_gid() == "series"}
    assert references == ["-."] and "-." not in drawn
    close(figs)


def test_a_graph_step_is_dashed_where_its_mode_alone_tells_the_series_apart():
    """The H200's large steps (2026-11-26): eager and graph were the only series, coloured apart
    but both solid, where every other figure dashes the graph step; where they measured alike the
    graph line hid the eager one."""
    from hdreport.core import style

    looks = style.assign_styles(("mode",), [{"mode": "eager"}, {"mode": "graph"}])
    assert looks[("eager",)]["linestyle"] == "-" and looks[("graph",)]["linestyle"] == "--"
