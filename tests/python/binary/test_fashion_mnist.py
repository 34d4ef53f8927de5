"""Real data by default: with Debian's dataset-fashion-mnist installed, the loader and
mlp families read its gzipped IDX files directly, say so in the report, and a short
CPU epoch learns something a random guess cannot (10% on ten classes). A broken
gzipped file exits 2 naming it."""

from __future__ import annotations

import gzip
import json
import struct
from pathlib import Path

import pytest

from conftest import run_hdbench

FASHION = Path("/usr/share/datasets/fashion-mnist")
needs_fashion = pytest.mark.skipif(not (FASHION / "train-images-idx3-ubyte.gz").exists(),
                                   reason="dataset-fashion-mnist is not installed (tools/install_deps.sh installs it)")


@needs_fashion
def test_a_cpu_epoch_trains_on_fashion_mnist_well_above_chance(hdbench_bin, tmp_path):
    out = tmp_path / "r.json"
    result = run_hdbench(hdbench_bin, "--hdbench_families=mlp", "--hdbench_mlp_processors=cpu",
                         "--hdbench_mlp_models=784x32x10", "--hdbench_mlp_epoch_models=784x32x10",
                         "--hdbench_mlp_batches=128", "--hdbench_mlp_epoch_batches=128",
                         "--hdbench_mlp_epoch_workers=0", "--hdbench_mlp_threads=2", "--benchmark_filter=^mlp/epoch/",
                         "--benchmark_min_time=0.01", f"--hdbench_out={out}", timeout=600)
    assert result.returncode == 0, result.stderr + result.stdout
    report = json.loads(out.read_text())
    options = report["context"]["hdbench"]["options"]
    assert options["dataset"] == "mnist_idx" and options["dataset_name"] == "fashion_mnist"
    assert Path(options["dataset_dir"]).resolve() == FASHION.resolve()
    epochs = [b for b in report["benchmarks"] if b["params"].get("variant") == "epoch"]
    assert len(epochs) == 1 and epochs[0]["status"] == "ok", epochs
    p, c = epochs[0]["params"], epochs[0]["counters"]
    assert p["dataset"] == "mnist_idx" and p["dataset_name"] == "fashion_mnist"
    # 60000 training samples an epoch; accuracy on Fashion-MNIST's 10000 t10k samples.
    assert c["samples/s"] == pytest.approx(60000 / (c["epoch_ms"] * 1e-3), rel=1e-6)
    print(f"held-out accuracy after {c['epochs_trained']:.0f} epoch(s): {c['accuracy_percent']:.2f}%")
    assert c["accuracy_percent"] > 50.0  # chance is 10%


@needs_fashion
def test_the_loader_reads_fashion_mnist_unless_a_sample_count_is_given(hdbench_bin, tmp_path):
    common = ["--hdbench_families=loader", "--hdbench_loader_batches=256", "--hdbench_loader_workers=0",
              "--hdbench_loader_costs_us=0", "--hdbench_loader_consumers=host", "--benchmark_min_time=0.01"]
    out = tmp_path / "real.json"
    result = run_hdbench(hdbench_bin, *common, f"--hdbench_out={out}")
    assert result.returncode == 0, result.stderr + result.stdout
    runs = [b for b in json.loads(out.read_text())["benchmarks"] if b["params"].get("family") == "loader"]
    assert runs and all(b["status"] == "ok" for b in runs), runs
    for b in runs:
        assert b["params"]["dataset_name"] == "fashion_mnist" and "samples" not in b["params"]
        assert b["counters"]["samples/s"] == pytest.approx(60000 / (b["counters"]["epoch_ms"] * 1e-3), rel=1e-6)
    out = tmp_path / "synthetic.json"
    result = run_hdbench(hdbench_bin, *common, "--hdbench_loader_samples=70000", f"--hdbench_out={out}")
    assert result.returncode == 0, result.stderr + result.stdout
    report = json.loads(out.read_text())
    assert report["context"]["hdbench"]["options"]["dataset_name"] == "synthetic"
    for b in (b for b in report["benchmarks"] if b["params"].get("family") == "loader"):
        assert b["params"]["dataset"] == "synthetic" and b["params"]["samples"] == 70000


def write_gz_pair(folder: Path, images: bytes, labels: bytes):
    (folder / "train-images-idx3-ubyte.gz").write_bytes(images)
    (folder / "train-labels-idx1-ubyte.gz").write_bytes(labels)


@pytest.mark.parametrize("family", ["loader", "mlp"])
@pytest.mark.parametrize("problem, expected", [
    ("truncated", "truncated gzip stream"),
    ("corrupt", "corrupt gzip data"),
])
def test_broken_gzipped_files_exit_2_naming_the_file(hdbench_bin, tmp_path, family, problem, expected):
    images = gzip.compress(struct.pack(">IIII", 0x803, 2, 28, 28) + bytes(2 * 784))
    labels = gzip.compress(struct.pack(">II", 0x801, 2) + bytes([3, 4]))
    if problem == "truncated":
        images = images[: len(images) // 2]
    else:
        images = images[:-8] + bytes([images[-8] ^ 0xFF]) + images[-7:]  # the CRC-32 of the trailer
    write_gz_pair(tmp_path, images, labels)
    out = tmp_path / "r.json"
    result = run_hdbench(hdbench_bin, f"--hdbench_families={family}", f"--hdbench_mnist_dir={tmp_path}",
                         f"--hdbench_out={out}", timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--hdbench_mnist_dir" in result.stderr and expected in result.stderr
    assert str(tmp_path / "train-images-idx3-ubyte.gz") in result.stderr
    assert not out.exists()


def test_gzipped_idx_files_in_a_folder_feed_an_epoch(hdbench_bin, tmp_path):
    count = 40
    images = bytes((i * 13 + j) % 256 for i in range(count) for j in range(784))
    write_gz_pair(tmp_path, gzip.compress(struct.pack(">IIII", 0x803, count, 28, 28) + images),
                  gzip.compress(struct.pack(">II", 0x801, count) + bytes(i % 10 for i in range(count))))
    out = tmp_path / "r.json"
    result = run_hdbench(hdbench_bin, "--hdbench_families=mlp", "--hdbench_mlp_processors=cpu",
                         f"--hdbench_mnist_dir={tmp_path}", "--hdbench_mlp_epoch_models=784x32x10",
                         "--hdbench_mlp_epoch_batches=16", "--hdbench_mlp_epoch_workers=0",
                         "--benchmark_filter=^mlp/epoch/", "--benchmark_min_time=0.01", f"--hdbench_out={out}")
    assert result.returncode == 0, result.stderr + result.stdout
    report = json.loads(out.read_text())
    assert report["context"]["hdbench"]["options"]["dataset_name"] == "mnist_dir"
    epochs = [b for b in report["benchmarks"] if b["params"].get("variant") == "epoch"]
    assert epochs and all(b["status"] == "ok" and b["params"]["dataset_name"] == "mnist_dir" for b in epochs), epochs
    # No t10k files beside them: no held-out accuracy is claimed.
    assert all("accuracy_percent" not in b["counters"] for b in epochs)
