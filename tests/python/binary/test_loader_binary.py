"""The loader family end to end: the grid it registers, host runs with verified
epochs and their counters, GPU runs skipped with the reason (or run), the derived
scaling rows, the MNIST IDX option, and bad loader flags."""

from __future__ import annotations

import json
import struct

import pytest

from conftest import run_hdbench


def loader_runs(report):
    return [b for b in report["benchmarks"] if b["params"].get("family") == "loader"]


def test_loader_grid_has_typed_params_for_each_consumer(quick_report):
    _, report = quick_report
    runs = loader_runs(report)
    host = [b for b in runs if b["params"]["consumer"] == "host"]
    gpu = [b for b in runs if b["params"]["consumer"] == "gpu"]
    # host: pageable only; 2 batches x 2 worker counts x 2 costs
    assert {(b["params"]["batch"], b["params"]["workers"], b["params"]["sample_cost_us"]) for b in host} == {
        (batch, workers, cost) for batch in (32, 256) for workers in (0, 2) for cost in (0.0, 5.0)}
    assert {b["params"]["pinning"] for b in host} == {"pageable"}
    assert {b["params"]["pinning"] for b in gpu} == {"pageable", "pin_thread", "direct"}
    assert len(gpu) == 3 * len(host)
    for b in runs:
        p = b["params"]
        assert isinstance(p["batch"], int) and isinstance(p["workers"], int) and isinstance(p["shuffle"], bool)
        assert p["dataset"] == "synthetic" and p["samples"] == 600 and p["augment"] == "none"


def test_host_loader_runs_verify_their_epochs_and_report_counters(quick_report):
    _, report = quick_report
    host = [b for b in loader_runs(report) if b["params"]["consumer"] == "host"]
    bytes_per_sample = 784 * 4 + 4
    for b in host:
        assert b["status"] == "ok", b
        c = b["counters"]
        for name in ("samples/s", "batch_GB/s", "epoch_ms", "stall_us_per_batch", "worker_busy_percent",
                     "queue_occupancy_batches", "host_MiB_held", "cpu_us_per_sample"):
            assert name in c, name
        # samples/s is the epoch's samples over its median time; GB/s follows from it.
        assert c["samples/s"] == pytest.approx(600 / (c["epoch_ms"] * 1e-3), rel=1e-6)
        assert c["batch_GB/s"] == pytest.approx(c["samples/s"] * bytes_per_sample / 1e9, rel=1e-6)
        assert c["pinned_MiB_held"] == 0
        assert 0 <= c["worker_busy_percent"] <= 100.0 + 1e-6
        if b["params"]["sample_cost_us"] == 5.0:
            assert c["cpu_us_per_sample"] >= 5.0  # every sample burnt its cost in CPU time
        if b["params"]["workers"] == 0:
            assert c["queue_occupancy_batches"] == 0


def test_gpu_loader_runs_are_skipped_with_the_reason_or_run(quick_report):
    _, report = quick_report
    gpu_usable = report["context"]["hdbench"]["system"]["gpu_usable"]
    for b in loader_runs(report):
        if b["params"]["consumer"] != "gpu":
            continue
        if gpu_usable:
            assert b["status"] == "ok", b
            if b["params"]["pinning"] != "pageable":
                assert b["counters"]["pinned_MiB_held"] > 0
        else:
            assert b["status"] == "skipped" and b["skip_reason"], b


def test_loader_scaling_is_derived_per_grid_point(quick_report):
    _, report = quick_report
    rows = [r for r in report["derived"]["loader_scaling"] if r["consumer"] == "host"]
    assert sorted((r["batch"], r["sample_cost_us"], r["build"]) for r in rows) == [
        (32, 0.0, "whole"), (32, 5.0, "whole"), (256, 0.0, "split"), (256, 0.0, "whole"), (256, 5.0, "split"),
        (256, 5.0, "whole")]
    by_name = {b["name"]: b for b in loader_runs(report)}
    for r in rows:
        assert set(r["by_workers"]) == {"0", "2"}
        zero = r["by_workers"]["0"]["samples/s"]
        assert r["by_workers"]["2"]["speedup_vs_0_workers"] == pytest.approx(r["by_workers"]["2"]["samples/s"] / zero)
        assert r["best_workers"] in (0, 2)
        # Both builds (the full preset) where there is something to split (batch 256 on 2
        # workers); 0 workers build whole and count in the split row too.
        split = "/split" if r["build"] == "split" and r["best_workers"] >= 2 else ""
        name = (f"loader/host/pageable/batch:{r['batch']}/workers:{r['best_workers']}/depth:2/"
                f"cost_us:{r['sample_cost_us']:g}/shuffle/none{split}/manual_time")
        assert by_name[name]["counters"]["samples/s"] == r["best_samples/s"]


def write_idx(folder, images: bytes, count: int, labels: bytes, image_magic=0x803, label_magic=0x801):
    (folder / "train-images-idx3-ubyte").write_bytes(struct.pack(">IIII", image_magic, count, 28, 28) + images)
    (folder / "train-labels-idx1-ubyte").write_bytes(struct.pack(">II", label_magic, len(labels)) + labels)


def test_mnist_idx_files_feed_the_loader(hdbench_bin, tmp_path):
    count = 50
    images = bytes((i * 7 + j) % 256 for i in range(count) for j in range(784))
    write_idx(tmp_path, images, count, bytes(i % 10 for i in range(count)))
    out = tmp_path / "r.json"
    result = run_hdbench(hdbench_bin, "--hdbench_families=loader", f"--hdbench_mnist_dir={tmp_path}",
                         "--hdbench_loader_batches=16", "--hdbench_loader_workers=1", "--hdbench_loader_costs_us=0",
                         "--hdbench_loader_consumers=host", "--benchmark_min_time=0.01", f"--hdbench_out={out}")
    assert result.returncode == 0, result.stderr + result.stdout
    runs = loader_runs(json.loads(out.read_text()))
    assert len(runs) == 1 and runs[0]["status"] == "ok", runs
    assert runs[0]["params"]["dataset"] == "mnist_idx"
    assert runs[0]["counters"]["samples/s"] == pytest.approx(count / (runs[0]["counters"]["epoch_ms"] * 1e-3))


@pytest.mark.parametrize("problem, expected", [
    ("missing", "train-images-idx3-ubyte"),
    ("wrong_magic", "magic"),
    ("truncated", "truncated"),
])
def test_bad_mnist_files_exit_2_before_running(hdbench_bin, tmp_path, problem, expected):
    if problem == "wrong_magic":
        write_idx(tmp_path, bytes(784), 1, bytes([1]), image_magic=0x801)
    elif problem == "truncated":
        write_idx(tmp_path, bytes(700), 1, bytes([1]))
    out = tmp_path / "r.json"
    result = run_hdbench(hdbench_bin, "--hdbench_families=loader", f"--hdbench_mnist_dir={tmp_path}",
                         f"--hdbench_out={out}", timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--hdbench_mnist_dir" in result.stderr and expected in result.stderr
    assert not out.exists()


@pytest.mark.parametrize("flag", [
    "--hdbench_loader_batches=0",
    "--hdbench_loader_batches=65537",
    "--hdbench_loader_workers=-1",
    "--hdbench_loader_depths=0",
    "--hdbench_loader_costs_us=-5",
    "--hdbench_loader_shuffle=maybe",
    "--hdbench_loader_pinning=mlock",
    "--hdbench_loader_augment=rotate",
    "--hdbench_loader_consumers=tpu",
    "--hdbench_loader_samples=0",
    "--hdbench_mnist_dir=",
])
def test_bad_loader_flags_exit_2_naming_the_flag(hdbench_bin, tmp_path, flag):
    out = tmp_path / "r.json"
    result = run_hdbench(hdbench_bin, flag, f"--hdbench_out={out}", timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert flag.split("=")[0] in result.stderr and "accepted" in result.stderr
    assert result.stdout == ""
    assert not out.exists()


def test_split_and_whole_builds_run_side_by_side_with_their_counters(hdbench_bin, tmp_path):
    """Both builds at one grid point: split where a batch has two parts' worth of samples
    and two workers to share it, whole elsewhere (one case, not two); the counters that
    find where an epoch's time goes; the derived split-over-whole row."""
    out = tmp_path / "builds.json"
    result = run_hdbench(hdbench_bin, "--hdbench_families=loader", "--hdbench_loader_consumers=host",
                         "--hdbench_loader_samples=512", "--hdbench_loader_batches=64,256",
                         "--hdbench_loader_workers=0,2", "--hdbench_loader_costs_us=0",
                         "--hdbench_loader_build=whole,split", "--benchmark_min_time=0.001", f"--hdbench_out={out}")
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    runs = {(b["params"]["batch"], b["params"]["workers"], b["params"]["build"]): b for b in loader_runs(report)}
    assert set(runs) == {(64, 0, "whole"), (64, 2, "whole"), (256, 0, "whole"), (256, 2, "whole"),
                         (256, 2, "split")}
    assert runs[(256, 2, "split")]["name"].endswith("/shuffle/none/split/manual_time")
    assert "/split/" not in runs[(256, 2, "whole")]["name"]
    for (batch, workers, build), b in runs.items():
        assert b["status"] == "ok", b
        c = b["counters"]
        # 512 samples: two batches of 256 in two parts each when split, one part otherwise.
        assert c["parts_per_batch"] == (2.0 if build == "split" else 1.0)
        assert c["first_batch_us"] > 0 and c["fence_wait_us_per_batch"] == 0  # the host consumer has no fence
    rows = report["derived"]["loader_build"]
    assert len(rows) == 1 and rows[0]["batch"] == 256 and rows[0]["workers"] == 2
    assert rows[0]["split_over_whole"] == pytest.approx(runs[(256, 2, "split")]["counters"]["samples/s"]
                                                        / runs[(256, 2, "whole")]["counters"]["samples/s"])
    scaling = {(r["batch"], r["build"]): r for r in report["derived"]["loader_scaling"]}
    assert set(scaling) == {(64, "whole"), (256, "whole"), (256, "split")}
    assert scaling[(256, "split")]["by_workers"]["0"] == scaling[(256, "whole")]["by_workers"]["0"]
