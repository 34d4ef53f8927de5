"""The NVTX ranges a real run emits, captured by the tests' injection library."""

from __future__ import annotations

import json
import os
from collections import Counter

import pytest

import nvtx_log
from conftest import run_hdbench


@pytest.fixture()
def capture_lib():
    path = os.environ.get("HDBENCH_NVTX_CAPTURE_LIB")
    if not path:
        pytest.skip("HDBENCH_NVTX_CAPTURE_LIB is not set; run these tests through ctest")
    return path


def captured_run(hdbench_bin, capture_lib, tmp_path, *flags):
    """Runs hdbench with `flags` under the capture library; its NVTX records (checked
    to nest on every thread) and the path of its report."""
    log, report = tmp_path / "nvtx.log", tmp_path / "r.json"
    result = run_hdbench(hdbench_bin, *flags, f"--hdbench_out={report}",
                         env={"NVTX_INJECTION64_PATH": capture_lib, "HDBENCH_NVTX_CAPTURE": str(log)})
    assert result.returncode == 0, result.stderr
    records = nvtx_log.load(log)
    assert nvtx_log.check_nesting(records) == []
    return records, report


def family_nvtx(report_path, family: str) -> tuple[int, int]:
    """(category id, ARGB colour) of `family`'s ranges, as its description in the report says
    (the id is the FNV-1a hash of the family's name; no list of ids in a test)."""
    nvtx = json.loads(report_path.read_text())["context"]["hdbench"]["families"][family]["nvtx"]
    return nvtx["category"], 0xFF000000 | int(nvtx["colour"].lstrip("#"), 16)


def fnv1a(name: str) -> int:
    h = 2166136261
    for byte in name.encode():
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h


def test_host_memcpy_run_emits_named_nested_ranges(hdbench_bin, capture_lib, tmp_path):
    records, report = captured_run(hdbench_bin, capture_lib, tmp_path, "--hdbench_families=host_memcpy",
                              "--hdbench_sizes=4K,1M", "--hdbench_memcpy_threads=1,2", "--benchmark_min_time=0.01")
    assert "hdbench" in nvtx_log.domains(records)
    category, colour = family_nvtx(report, "host_memcpy")
    assert category == fnv1a("host_memcpy") and colour == 0xFFD62728
    assert nvtx_log.categories(records)[category] == "host_memcpy"
    ranges = nvtx_log.ranges(records)
    names = {r.name for r in ranges}
    for threads in (1, 2):
        for size in ("4KiB", "1MiB"):
            assert f"host_memcpy/threads:{threads}/{size}/timed" in names
            assert f"host_memcpy/threads:{threads}/{size}/verify" in names
    for r in ranges:
        assert r.category == category and r.color == colour
        size = 4096 if "/4KiB/" in r.name else 1 << 20
        if r.name.endswith("/verify"):
            assert r.payload == size
        else:  # timed: the bytes of every copy in the sample
            assert r.payload % size == 0 and r.payload >= size
    # The two-thread pool names its worker for the timeline.
    assert "host_memcpy/worker 1" in nvtx_log.thread_names(records).values()


def test_loader_run_names_its_workers_and_ranges_every_collate(hdbench_bin, capture_lib, tmp_path):
    records, report = captured_run(hdbench_bin, capture_lib, tmp_path, "--hdbench_families=loader",
                                   "--hdbench_loader_consumers=host", "--hdbench_loader_samples=100",
                                   "--hdbench_loader_batches=25", "--hdbench_loader_workers=2",
                                   "--hdbench_loader_costs_us=0", "--benchmark_min_time=0.01")
    category, _ = family_nvtx(report, "loader")
    assert nvtx_log.categories(records)[category] == "loader"
    names = nvtx_log.thread_names(records)
    assert {"loader/worker 0", "loader/worker 1"} <= set(names.values())
    bench = benchmark_names(report, "loader")
    assert len(bench) == 1
    ranges = nvtx_log.ranges(records)
    collates = [r for r in ranges if r.name.endswith("/collate")]
    # Four batches of 25 per epoch, every epoch the benchmark ran, named after the benchmark.
    assert collates and len(collates) % 4 == 0
    assert {r.name for r in collates} == {f"{bench[0]}/batch {b}/collate" for b in range(4)}
    for r in collates:
        assert r.category == category and r.payload == 25 * (784 * 4 + 4)
        assert names.get(r.tid, "").startswith("loader/worker "), r
    # Each timed epoch is a range of its own on the benchmark's thread, with the epoch's bytes.
    epochs = [r for r in ranges if r.name == f"{bench[0]}/timed"]
    assert len(epochs) == len(collates) // 4
    assert all(r.depth == 0 and r.payload == 100 * (784 * 4 + 4) and r.category == category for r in epochs)


def benchmark_names(report_path, family: str) -> list[str]:
    """The report's benchmarks of `family` that ran, as their ranges name them."""
    report = json.loads(report_path.read_text())
    return [b["name"].removesuffix("/manual_time") for b in report["benchmarks"]
            if b["params"].get("family") == family and b["status"] == "ok"]


def parents(ranges) -> dict:
    """Each range (by push line) -> the range it was pushed inside of on its thread, or None."""
    parent, open_by_tid = {}, {}
    for r in sorted(ranges, key=lambda r: r.push_line):
        stack = open_by_tid.setdefault(r.tid, [])
        while stack and stack[-1].pop_line < r.push_line:
            stack.pop()
        parent[r.push_line] = stack[-1] if stack else None
        stack.append(r)
    return parent


def test_mlp_run_ranges_every_step_phase_inside_its_timed_region(hdbench_bin, capture_lib, tmp_path):
    records, report = captured_run(
        hdbench_bin, capture_lib, tmp_path, "--hdbench_families=mlp", "--hdbench_mlp_processors=cpu",
        "--hdbench_mlp_models=784x16x10", "--hdbench_mlp_batches=32", "--hdbench_mlp_threads=1",
        "--hdbench_mlp_epoch_models=784x16x10", "--hdbench_mlp_epoch_batches=100", "--hdbench_mlp_epoch_workers=2",
        "--hdbench_loader_samples=400",
        "--benchmark_min_time=0")  # one sample each: a sample of tiny steps is already ~100 steps
    category, colour = family_nvtx(report, "mlp")
    assert nvtx_log.categories(records)[category] == "mlp"
    ranges = nvtx_log.ranges(records)
    parent = parents(ranges)
    names = benchmark_names(report, "mlp")
    step = next(n for n in names if n.startswith("mlp/step/cpu/"))
    epoch = next(n for n in names if n.startswith("mlp/epoch/cpu/"))
    parameter_bytes = 4 * ((784 * 16 + 16) + (16 * 10 + 10))  # floats of the weights and biases
    for bench, batch in ((step, 32), (epoch, 100)):
        timed = [r for r in ranges if r.name == f"{bench}/timed"]
        forward = [r for r in ranges if r.name == f"{bench}/forward"]
        backward = [r for r in ranges if r.name == f"{bench}/backward"]
        assert timed and forward and len(forward) == len(backward), bench
        assert all(r.depth == 0 and r.category == category for r in timed)
        for r in forward + backward:
            # Inside one of the benchmark's timed regions, on its thread, or (warm-up) outside any range.
            assert parent[r.push_line] in timed or r.depth == 0, r
            assert r.category == category and r.color == colour
        # Every timed region times whole steps: a forward and a backward each.
        def per_region(phase):
            counts = Counter(parent[r.push_line].push_line for r in phase if r.depth == 1)
            return [counts[t.push_line] for t in timed]
        assert min(per_region(forward)) >= 1 and per_region(forward) == per_region(backward), bench
        assert {r.payload for r in forward} == {batch * 784 * 4}
        # Parameter blocks are padded to 64 floats, so the update covers at least the parameters.
        assert len({r.payload for r in backward}) == 1 and backward[0].payload >= parameter_bytes
    # The epoch: one timed range per epoch with the epoch's bytes; a step per batch
    # (four of 100); the loader's collates named after the epoch benchmark.
    epochs = [r for r in ranges if r.name == f"{epoch}/timed"]
    assert {r.payload for r in epochs} == {400 * (784 * 4 + 4)}
    assert len([r for r in ranges if r.name == f"{epoch}/forward"]) == 4 * len(epochs)
    collates = {r.name for r in ranges if r.name.endswith("/collate")}
    assert collates == {f"{epoch}/batch {b}/collate" for b in range(4)}
