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

MODEL = "784x32x10"
STEP_US = f"mlp_step_us--variant-step_model-{MODEL}"
TFLOPS = f"mlp_TFLOP_per_s--variant-step_model-{MODEL}"
SAMPLES = f"mlp--variant-step_model-{MODEL}"
BUSY = "mlp_gpu_busy_percent--variant-epoch"

CPU_HD = "implementation=hdbench processor=cpu dtype=fp32 optimizer=sgd mode=eager data=host threads=2"
GPU_HD = "implementation=hdbench processor=gpu dtype=fp32 optimizer=sgd mode=eager data=device"
CPU_PT = "implementation=pytorch processor=cpu dtype=fp32 optimizer=sgd mode=eager data=host threads=2"
GPU_PT = "implementation=pytorch processor=gpu dtype=fp32 optimizer=sgd mode=eager data=device"


def step(implementation, processor, batch, step_us, tflops=None, status="ok"):
    """A step run as bench/mlp.cpp and tools/pytorch_baseline.py write it (params and counters)."""
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


def lines_of(fig) -> dict:
    return {line.get_label(): line for line in fig.axes[0].get_lines()}


def data(line) -> list[tuple[float, float]]:
    return list(zip(line.get_xdata(), line.get_ydata()))


def test_step_time_figure_has_a_line_per_implementation_and_processor(figures):
    figs, left_out = figures
    assert {STEP_US, TFLOPS, SAMPLES} <= set(figs)
    ax = figs[STEP_US].axes[0]
    lines = lines_of(figs[STEP_US])
    assert set(lines) == {CPU_HD, GPU_HD, CPU_PT, GPU_PT}  # no reference lines on the time figure
    assert data(lines[CPU_HD]) == [(32, 400.0), (128, 1200.0)]
    assert data(lines[GPU_HD]) == [(32, 20.0), (128, 22.0)]  # the skipped batch-1024 step is not drawn
    assert data(lines[GPU_PT]) == [(32, 60.0), (128, 65.0)]
    assert ax.get_yscale() == "log" and ax.get_xscale() == "log"
    assert ax.get_xlabel() == "batch" and ax.get_ylabel() == "step time (µs)"
    assert ax.get_title() == f"{STEP_US}: synthetic (GPU), 2026-11-20"
    assert any(line.startswith("mlp/step/hdbench/gpu/batch:1024: skipped") for line in left_out)


def test_tflops_figure_leaves_out_a_line_without_the_counter(figures):
    figs, _ = figures
    ax = figs[TFLOPS].axes[0]
    lines = {label: line for label, line in lines_of(figs[TFLOPS]).items() if "GEMM peak" not in label}
    assert set(lines) == {CPU_HD, GPU_HD, CPU_PT, GPU_PT}
    assert data(lines[CPU_PT]) == [(32, 0.008), (128, 0.025)]
    assert data(lines[GPU_PT]) == [(128, 0.25)]  # batch 32 has no TFLOP/s counter
    assert data(lines_of(figs[SAMPLES])[GPU_PT])[0] == (32, 32 / 60e-6)  # but it is on the samples/s figure
    assert ax.get_yscale() == "log" and ax.get_ylabel() == "TFLOP/s"
    assert "synthetic (GPU), 2026-11-20" in ax.get_title()


def test_tflops_figure_draws_the_best_gemm_rate_of_each_processor_and_dtype(figures):
    figs, left_out = figures
    peaks = {label: line for label, line in lines_of(figs[TFLOPS]).items() if "GEMM peak" in label}
    assert set(peaks) == {"cpu fp32 GEMM peak 0.32 TFLOP/s (threads=2)",  # the best thread count
                          "gpu fp32 GEMM peak 55 TFLOP/s (pytorch)",  # the best of either implementation
                          "gpu bf16 GEMM peak 1234 TFLOP/s"}  # no exponent; tf32 was skipped
    for label, y in (("cpu fp32 GEMM peak 0.32 TFLOP/s (threads=2)", 0.32),
                     ("gpu fp32 GEMM peak 55 TFLOP/s (pytorch)", 55.0), ("gpu bf16 GEMM peak 1234 TFLOP/s", 1234.5)):
        line = peaks[label]
        assert list(line.get_ydata()) == [y, y] and line.get_linestyle() == "--"  # horizontal, dashed
    assert len({str(line.get_color()) for line in peaks.values()}) == 3  # told apart by colour
    assert any(line.startswith("mlp/gemm/hdbench/gpu/tf32") for line in left_out)


def test_gemm_peaks_name_the_machine_when_reports_share_a_figure():
    reports = [("a.json", report(steps_and_gemms(), host="box-a")),
               ("b.json", report([step("hdbench", "cpu", 32, 300.0, 0.02), gemm("hdbench", "cpu", "fp32", 0.9, 4)],
                                 host="box-b"))]
    figs, _ = hdbench_report.build_figures(reports)
    labels = set(lines_of(figs[TFLOPS]))
    assert "box-a (GPU), 2026-11-20: cpu fp32 GEMM peak 0.32 TFLOP/s (threads=2)" in labels
    assert "box-b (GPU), 2026-11-20: cpu fp32 GEMM peak 0.9 TFLOP/s (threads=4)" in labels  # each machine's own
    close(figs)


def test_gpu_busy_figure_draws_gpu_epochs_only():
    runs = [epoch("cpu", 128, 2, "pageable"), epoch("cpu", 1024, 2, "pageable"),
            epoch("gpu", 128, 0, "direct", busy=35.0), epoch("gpu", 1024, 0, "direct", busy=80.0),
            epoch("gpu", 128, 2, "direct", busy=60.0), epoch("gpu", 1024, 2, "direct", busy=92.5),
            epoch("gpu", 128, 2, "pin_thread", status="skipped")]
    figs, left_out = hdbench_report.build_figures([("synthetic.json", report(runs))])
    assert BUSY in figs and f"mlp--variant-epoch_model-{MODEL}" in figs
    ax = figs[BUSY].axes[0]
    lines = lines_of(figs[BUSY])
    assert set(lines) == {f"processor=gpu model={MODEL} workers=0 pinning=direct",
                          f"processor=gpu model={MODEL} workers=2 pinning=direct"}
    assert data(lines[f"processor=gpu model={MODEL} workers=2 pinning=direct"]) == [(128, 60.0), (1024, 92.5)]
    assert ax.get_yscale() == "linear" and ax.get_ylim() == (0, 100)
    assert ax.get_xlabel() == "batch" and ax.get_ylabel() == "GPU busy (% of the epoch)"
    assert "synthetic (GPU), 2026-11-20" in ax.get_title()
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
