"""baselines/pytorch/pytorch_baseline.py's `loader` family (torch.utils.data.DataLoader in hdbench's
report format) and baselines/pytorch/pytorch_data.py (hdbench's synthetic set and initial
parameters in numpy). Tiny datasets and few epochs; no test looks at a time."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import hdbench_report
import pytorch_data
import pytorch_loader
from conftest import REPORT_TOOL, run_hdbench

SCRIPT = Path(__file__).resolve().parents[3] / "baselines" / "pytorch" / "pytorch_baseline.py"
SAMPLES = 100
BATCHES = (16, 64)
WORKERS = (0, 2)
LOADER_COUNTERS = {"samples/s", "batch_GB/s", "epoch_ms", "items_per_second", "stall_us_per_batch", "cv_percent",
                   "samples"}


# ---- the data port (numpy only) -------------------------------------------------------


def test_synthetic_set_is_a_prefix_balanced_and_mnist_like():
    pixels, labels = pytorch_data.make_synthetic_mnist(57, 5)
    more_pixels, more_labels = pytorch_data.make_synthetic_mnist(120, 5)
    assert pixels.shape == (57, 784) and pixels.dtype == np.uint8
    assert (more_pixels[:57] == pixels).all() and (more_labels[:57] == labels).all()
    for block in range(0, 120 - 9, 10):  # every block of ten is a shuffled 0..9
        assert sorted(more_labels[block:block + 10].tolist()) == list(range(10))
    other_pixels, _ = pytorch_data.make_synthetic_mnist(57, 6)
    assert not (other_pixels == pixels).all()
    # Noise of 0..47 everywhere, full ink on the strokes.
    assert pixels.min() == 0 and pixels.max() == 255 and (pixels <= 47).mean() > 0.6


def test_initial_parameters_follow_torch_s_distribution_and_hdbench_s_layout():
    layers = pytorch_data.initial_parameters([784, 32, 10], 3)
    assert [(w.shape, b.shape) for w, b in layers] == [((32, 784), (32,)), ((10, 32), (10,))]
    for (w, b), fan_in in zip(layers, (784, 32)):
        bound = 1 / np.sqrt(fan_in)
        assert w.dtype == np.float32 and np.abs(w).max() <= bound and np.abs(b).max() <= bound
        assert np.abs(w).max() > 0.9 * bound  # spread over the range, not squeezed
    again = pytorch_data.initial_parameters([784, 32, 10], 3)
    assert all((w == w2).all() and (b == b2).all() for (w, b), (w2, b2) in zip(layers, again))
    # A value is drawn by its index in the flat padded layout (and its layer's bound):
    # a wider second layer starts with the narrower one's rows.
    wider = pytorch_data.initial_parameters([784, 32, 64, 10], 3)
    assert (wider[0][0] == layers[0][0]).all() and (wider[0][1] == layers[0][1]).all()
    assert np.array_equal(wider[1][0][:10], layers[1][0]) and not np.array_equal(wider[1][1][:10], layers[1][1])


def test_normalise_is_hdbench_s_collate():
    x = pytorch_data.normalise(np.array([[0, 255]], dtype=np.uint8))
    assert x.dtype == np.float32
    assert x[0, 0] == pytest.approx(-0.1307 / 0.3081, rel=1e-6) and x[0, 1] == pytest.approx(0.8693 / 0.3081, rel=1e-6)


def test_idx_files_round_trip(tmp_path):
    pixels, labels = pytorch_data.make_synthetic_mnist(12, 1)
    images, label_file = pytorch_data.mnist_files(str(tmp_path))
    Path(images).write_bytes((0x803).to_bytes(4, "big") + b"".join(n.to_bytes(4, "big") for n in (12, 28, 28))
                             + pixels.tobytes())
    Path(label_file).write_bytes((0x801).to_bytes(4, "big") + (12).to_bytes(4, "big") + labels.tobytes())
    read_pixels, read_labels = pytorch_data.read_mnist_idx(images, label_file)
    assert (read_pixels == pixels).all() and (read_labels == labels).all()
    Path(label_file).write_bytes((0x801).to_bytes(4, "big") + (11).to_bytes(4, "big") + labels[:11].tobytes())
    with pytest.raises(ValueError, match="counts differ"):
        pytorch_data.read_mnist_idx(images, label_file)


# ---- names and derived rows (no PyTorch) ----------------------------------------------


def test_loader_names_params_and_grid_follow_hdbench():
    opts = argparse.Namespace(loader_consumers=["host", "gpu"], loader_pinning=["pageable", "pin_thread"],
                              loader_batches=[32], loader_workers=[0, 8], device=0, mnist_dir="",
                              loader_samples=60000)
    specs = pytorch_loader.loader_grid(opts)
    # The host consumer reads pageable batches only, as hdbench's.
    assert {(s["consumer"], s["pinning"], s["workers"]) for s in specs} == {
        ("host", "pageable", 0), ("host", "pageable", 8), ("gpu", "pageable", 0), ("gpu", "pageable", 8),
        ("gpu", "pin_thread", 0), ("gpu", "pin_thread", 8)}
    gpu = next(s for s in specs if s["consumer"] == "gpu" and s["pinning"] == "pin_thread" and s["workers"] == 8)
    assert pytorch_loader.loader_name(gpu) == \
        "loader/gpu/pin_thread/batch:32/workers:8/depth:2/cost_us:0/shuffle/none/manual_time"
    assert pytorch_loader.loader_params(gpu, opts) == {
        "family": "loader", "implementation": "pytorch", "consumer": "gpu", "pinning": "pin_thread", "batch": 32, "workers": 8, "prefetch_depth": 2, "sample_cost_us": 0.0, "shuffle": True,
        "augment": "none", "build": "whole", "dataset": "synthetic", "dataset_name": "synthetic", "device": 0,
        "samples": 60000}
    assert pytorch_loader.cost_text(0.0) == "0" and pytorch_loader.cost_text(2.5) == "2.5"


# ---- with PyTorch ---------------------------------------------------------------------


def run_baseline(*args, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


LOADER_ARGS = ["--families", "loader", "--loader-samples", SAMPLES, "--loader-batches", ",".join(map(str, BATCHES)),
               "--loader-workers", ",".join(map(str, WORKERS)), "--loader-min-epochs", "2", "--min-time", "0",
               "--seed", "3"]


@pytest.fixture(scope="module")
def loader_run(tmp_path_factory):
    torch = pytest.importorskip("torch")
    out = tmp_path_factory.mktemp("pytorch_loader") / "loader.json"
    result = run_baseline(*LOADER_ARGS, "--out", out)
    assert result.returncode == 0, result.stdout + result.stderr
    return torch, out, json.loads(out.read_text()), result


def test_the_build_bound_share_is_the_mean_epoch_s_and_never_above_1():
    """Made up for the test (not measured): 1000 samples an epoch in 2 epochs, the median epoch 10 ms and the mean
    12.5 ms; 2 workers used 5 µs of CPU a sample, so the bound is 400,000 samples/s. The mean epoch's rate (80,000)
    is a share of 0.2 of it (the median's, 100,000, would have said 0.25). CPU time of 100 µs a sample gives a
    bound of 20,000 samples/s, below the rate measured: the CPU time counted more than the builders' work in these
    epochs, so the share is left out."""
    result = {"epoch_samples": 1000, "samples_us": [10_000.0, 15_000.0], "wait_us": 0.0, "batches": 10,
              "build_cpu_us": 10_000.0, "bytes_per_sample": 3144, "cores": 4}
    c = pytorch_loader.loader_counters(result, {"workers": 2}, median_us=10_000.0, mean_us=12_500.0)
    assert c["build_bound_samples/s"] == pytest.approx(400_000.0)
    assert c["fraction_of_build_bound"] == pytest.approx(0.2)
    result["build_cpu_us"] = 200_000.0
    c = pytorch_loader.loader_counters(result, {"workers": 2}, median_us=10_000.0, mean_us=12_500.0)
    assert c["build_bound_samples/s"] == pytest.approx(20_000.0)
    assert "fraction_of_build_bound" not in c


def test_loader_runs_every_grid_point_verifies_its_epochs_and_reports_counters(loader_run):
    torch, _, report, result = loader_run
    names = {b["name"] for b in report["benchmarks"]}
    expected = {f"loader/{consumer}/{pinning}/batch:{b}/workers:{w}/depth:2/cost_us:0/shuffle/none/manual_time"
                for consumer, pinning in (("host", "pageable"), ("gpu", "pageable"), ("gpu", "pin_thread"))
                for b in BATCHES for w in WORKERS}
    assert names == expected and len(report["benchmarks"]) == len(expected)
    host = [b for b in report["benchmarks"] if b["params"]["consumer"] == "host"]
    for b in host:
        # ok means every epoch's checksum matched the dataset's: no batch lost or repeated.
        assert b["status"] == "ok", b
        c, p = b["counters"], b["params"]
        assert LOADER_COUNTERS <= c.keys() and all(b[k] == v for k, v in c.items())
        assert p["samples"] == SAMPLES and p["dataset"] == "synthetic" and p["implementation"] == "pytorch"
        assert c["samples"] >= 2 and b["iterations"] == c["samples"]
        assert c["samples/s"] == pytest.approx(SAMPLES / (c["epoch_ms"] * 1e-3))
        # As collated by default: 784 float32 pixels and an int64 label per sample.
        assert c["batch_GB/s"] == pytest.approx(c["samples/s"] * (784 * 4 + 8) / 1e9)
        if "fraction_of_build_bound" in c:  # the mean epoch's rate against the bound, never above it
            assert c["fraction_of_build_bound"] == pytest.approx(c["items_per_second"] / c["build_bound_samples/s"])
            assert c["fraction_of_build_bound"] <= 1.0
        assert p["workers"] > 0 or "cpu_us_per_sample" in c  # the consumer's own thread builds with 0 workers
    gpu = [b for b in report["benchmarks"] if b["params"]["consumer"] == "gpu"]
    if torch.cuda.is_available():
        assert all(b["status"] == "ok" for b in gpu)
    else:
        reason = report["context"]["hdbench"]["system"]["gpu_unavailable_reason"]
        assert reason and all(b["status"] == "skipped" and b["skip_reason"] == reason for b in gpu)
    assert "loader/host/pageable/batch:16/workers:2" in result.stdout


def test_loader_scaling_is_derived_as_hdbench_derives_it(loader_run):
    _, _, report, _ = loader_run
    rows = report["derived"]["loader_scaling"]
    ok = {(b["params"]["consumer"], b["params"]["pinning"], b["params"]["batch"], b["params"]["workers"]):
          b["counters"]["samples/s"] for b in report["benchmarks"] if b["status"] == "ok"}
    assert {(r["consumer"], r["pinning"], r["batch"]) for r in rows} == {k[:3] for k in ok}
    for r in rows:
        cells = r["by_workers"]
        assert set(cells) == {"0", "2"} and r["prefetch_depth"] == 2
        for w, cell in cells.items():
            assert cell["samples/s"] == ok[(r["consumer"], r["pinning"], r["batch"], int(w))]
            assert cell["speedup_vs_0_workers"] == pytest.approx(cell["samples/s"] / cells["0"]["samples/s"])
        assert r["best_samples/s"] == max(c["samples/s"] for c in cells.values())
        assert cells[str(r["best_workers"])]["samples/s"] == r["best_samples/s"]


def test_summarize_answers_the_loader_question_from_the_baseline(loader_run):
    _, out, report, _ = loader_run
    result = subprocess.run([sys.executable, str(REPORT_TOOL), "summarize", str(out)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    # The loader question is answered from the derived rows, naming the run it read.
    assert "host consumer, 0 µs/sample: best batch" in result.stdout
    assert "loader/host/pageable/batch:" in result.stdout


def test_the_baseline_s_loader_lines_join_hdbench_s_in_one_figure(loader_run, hdbench_bin, tmp_path):
    """hdbench's loader at the same grid points: the same benchmark names (so `compare`
    pairs them), and `plot` draws both reports' lines in one loader figure. Asked for both
    builds, hdbench splits no batch here (under two parts' minimum of 64 samples), so every
    run is a whole-batch one, as a DataLoader worker builds."""
    pytest.importorskip("matplotlib")
    _, out, report, _ = loader_run
    hd_out = tmp_path / "hdbench.json"
    result = run_hdbench(hdbench_bin, "--hdbench_families=loader", f"--hdbench_loader_samples={SAMPLES}",
                         f"--hdbench_loader_batches={','.join(map(str, BATCHES))}",
                         f"--hdbench_loader_workers={','.join(map(str, WORKERS))}", "--hdbench_loader_costs_us=0",
                         "--hdbench_loader_consumers=host", "--hdbench_loader_build=whole,split",
                         "--benchmark_min_time=0.001", f"--hdbench_out={hd_out}", timeout=120)
    assert result.returncode == 0, result.stderr
    hd_runs = json.loads(hd_out.read_text())["benchmarks"]
    assert {b["params"]["build"] for b in hd_runs} == {"whole"}
    assert {b["name"] for b in report["benchmarks"] if b["params"]["consumer"] == "host"} == {b["name"] for b in hd_runs}
    written = hdbench_report.plot([str(hd_out), str(out)], str(tmp_path / "fig"))
    svg = [p for p in written if p.name.startswith("loader--consumer-host") and p.suffix == ".svg"]
    assert len(svg) == 1, written
    # matplotlib keeps each text of an SVG as a comment: the legend names both reports' lines.
    legend = [t for t in re.findall(r"<!-- (.*?) -->", svg[0].read_text()) if t.startswith("batch ")]
    for b in BATCHES:
        mine = [t for t in legend if t.startswith(f"batch {b},")]
        assert len(mine) == 2 and sum("PyTorch" in t for t in mine) == 1, legend


def test_a_corrupted_sample_fails_the_loader_run_with_the_reason(tmp_path):
    pytest.importorskip("torch")
    import pytorch_loader_torch

    class Corrupted(pytorch_loader_torch.MnistShaped):
        def __getitem__(self, index):
            image, label = super().__getitem__(index)
            return (image + 1.0, label) if index == 5 else (image, label)

    pixels, labels = pytorch_data.make_synthetic_mnist(20, 1)
    opts = argparse.Namespace(seed=1, loader_min_epochs=1, min_time=0.0)
    env = {"gpu_usable": False, "gpu_reason": "none here"}
    spec = dict(kind="loader", consumer="host", pinning="pageable", batch=8, workers=0, device=0)
    good = pytorch_loader_torch.run_loader(spec, opts, pytorch_loader_torch.MnistShaped(pixels, labels), env)
    assert good["status"] == "ok" and good["batches"] == 3
    bad = pytorch_loader_torch.run_loader(spec, opts, Corrupted(pixels, labels), env)
    assert bad["status"] == "error" and "a batch was lost, repeated or corrupted" in bad["reason"]
    gpu = pytorch_loader_torch.run_loader(dict(spec, consumer="gpu"), opts, Corrupted(pixels, labels), env)
    assert gpu == {"status": "skipped", "reason": "none here"}
