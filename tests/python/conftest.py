"""Shared fixtures: the hdbench binary under test and a helper that runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# This file's folder: the tests in binary/, tools/ and mpi/ import conftest by name.
sys.path.insert(0, str(Path(__file__).parent))

# Small and quick: two sizes, host benchmarks only run on a GPU-less machine.
QUICK_ARGS = [
    "--hdbench_preset=full",  # the axes not listed here keep their declared defaults
    "--hdbench_sizes=4K,64K",
    "--hdbench_memcpy_threads=1,2",
    "--hdbench_stream_sizes=1M",
    "--hdbench_stream_counts=1,2",
    "--hdbench_chunk_counts=4",
    "--hdbench_compute_ratios=1",
    "--hdbench_loader_samples=600",
    "--hdbench_loader_batches=32,256",
    "--hdbench_loader_workers=0,2",
    "--hdbench_loader_costs_us=0,5",
    "--hdbench_mlp_models=784x32x10,784x64x32x10",
    "--hdbench_mlp_batches=32,128",
    "--hdbench_mlp_threads=1,2",
    "--hdbench_mlp_epoch_batches=64",
    "--hdbench_mlp_epoch_workers=0,2",
    "--hdbench_device_local_sizes=1M,16M",
    "--hdbench_latency_sizes=4,4K",
    "--hdbench_managed_sizes=64K,4M",
    "--hdbench_batch_tensors=1,8",
    "--hdbench_strided_matrices=256x256",
    # nvbench's rule with a tiny timeout: each benchmark set up once and sampled for at most
    # 0.02 s. Google Benchmark's rule (--benchmark_min_time) repeats a benchmark's set-up
    # in every trial, which made this run take minutes on an H100.
    "--hdbench_min_samples=3",
    "--hdbench_max_seconds=0.02",
]


@pytest.fixture(scope="session")
def hdbench_bin() -> Path:
    path = os.environ.get("HDBENCH_BIN")
    if not path:
        pytest.skip("HDBENCH_BIN is not set; run these tests through ctest")
    return Path(path)


@pytest.fixture(scope="session")
def source_dir() -> Path:
    return Path(os.environ.get("HDBENCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))


ROOT = Path(__file__).resolve().parents[2]
REPORT_TOOL = ROOT / "tools" / "hdbench_report.py"
# The tests import the report tools (hdbench_report, the hdreport package beside it) and
# the PyTorch baselines' modules as their scripts do.
sys.path.insert(0, str(REPORT_TOOL.parent))
sys.path.insert(0, str(ROOT / "baselines" / "pytorch"))


def run_report_tool(*args) -> subprocess.CompletedProcess:
    """tools/hdbench_report.py with `args`, as a user runs it."""
    return subprocess.run([sys.executable, str(REPORT_TOOL), *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def run_hdbench(binary: Path, *args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    merged = dict(os.environ)
    merged.update(env or {})
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=timeout, env=merged)


@pytest.fixture(scope="session")
def quick_report(hdbench_bin, tmp_path_factory):
    """One quick run shared by the tests that only read its report."""
    out = tmp_path_factory.mktemp("quick") / "report.json"
    result = run_hdbench(hdbench_bin, *QUICK_ARGS, f"--hdbench_out={out}")
    assert result.returncode == 0, result.stderr + result.stdout
    return result, json.loads(out.read_text())
