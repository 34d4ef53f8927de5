"""The NVTX ranges a real run emits, captured by the tests' injection library."""

from __future__ import annotations

import os

import pytest

import nvtx_log
from conftest import run_hdbench


@pytest.fixture()
def capture_lib():
    path = os.environ.get("HDBENCH_NVTX_CAPTURE_LIB")
    if not path:
        pytest.skip("HDBENCH_NVTX_CAPTURE_LIB is not set; run these tests through ctest")
    return path


def test_host_memcpy_run_emits_named_nested_ranges(hdbench_bin, capture_lib, tmp_path):
    log = tmp_path / "nvtx.log"
    result = run_hdbench(hdbench_bin, "--hdbench_families=host_memcpy", "--hdbench_sizes=4K,1M",
                         "--hdbench_memcpy_threads=1,2", "--benchmark_min_time=0.01",
                         f"--hdbench_out={tmp_path / 'r.json'}",
                         env={"NVTX_INJECTION64_PATH": capture_lib, "HDBENCH_NVTX_CAPTURE": str(log)})
    assert result.returncode == 0, result.stderr
    records = nvtx_log.load(log)
    assert nvtx_log.check_nesting(records) == []
    assert "hdbench" in nvtx_log.domains(records)
    assert nvtx_log.categories(records)[4] == "host_memcpy"
    ranges = nvtx_log.ranges(records)
    names = {r.name for r in ranges}
    for threads in (1, 2):
        for size in ("4KiB", "1MiB"):
            assert f"host_memcpy/threads:{threads}/{size}/timed" in names
            assert f"host_memcpy/threads:{threads}/{size}/verify" in names
    for r in ranges:
        assert r.category == 4 and r.color == 0xFFD62728
        size = 4096 if "/4KiB/" in r.name else 1 << 20
        if r.name.endswith("/verify"):
            assert r.payload == size
        else:  # timed: the bytes of every copy in the sample
            assert r.payload % size == 0 and r.payload >= size
    # The two-thread pool names its worker for the timeline.
    assert "host_memcpy/worker 1" in nvtx_log.thread_names(records).values()


def test_loader_run_names_its_workers_and_ranges_every_collate(hdbench_bin, capture_lib, tmp_path):
    log = tmp_path / "nvtx.log"
    result = run_hdbench(hdbench_bin, "--hdbench_families=loader", "--hdbench_loader_consumers=host",
                         "--hdbench_loader_samples=100", "--hdbench_loader_batches=25",
                         "--hdbench_loader_workers=2", "--hdbench_loader_costs_us=0", "--benchmark_min_time=0.01",
                         f"--hdbench_out={tmp_path / 'r.json'}",
                         env={"NVTX_INJECTION64_PATH": capture_lib, "HDBENCH_NVTX_CAPTURE": str(log)})
    assert result.returncode == 0, result.stderr
    records = nvtx_log.load(log)
    assert nvtx_log.check_nesting(records) == []
    assert nvtx_log.categories(records)[6] == "loader"
    names = nvtx_log.thread_names(records)
    assert {"loader/worker 0", "loader/worker 1"} <= set(names.values())
    collates = [r for r in nvtx_log.ranges(records) if r.name.endswith("/collate")]
    # Four batches of 25 per epoch, every epoch the benchmark ran.
    assert collates and len(collates) % 4 == 0
    assert {r.name for r in collates} == {f"loader/batch {b}/collate" for b in range(4)}
    for r in collates:
        assert r.category == 6 and r.payload == 25 * (784 * 4 + 4)
        assert names.get(r.tid, "").startswith("loader/worker "), r
