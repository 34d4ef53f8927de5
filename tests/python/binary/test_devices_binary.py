"""--hdbench_devices on the binary: every single-GPU benchmark once per selected device,
named "/gpu:N" with several and carrying params.device; the multi-device ones once.
On a GPU-less machine each copy is listed as skipped with the reason."""

from __future__ import annotations

import json

import pytest

from conftest import run_hdbench

ARGS = ["--hdbench_families=transfer,pinning", "--hdbench_sizes=4K", "--hdbench_memory=pageable,pinned",
        "--hdbench_directions=h2d,all_to_host", "--hdbench_engines=copy"]


def run_two_devices(hdbench_bin, *args):
    result = run_hdbench(hdbench_bin, "--hdbench_devices=0,1", *ARGS, *args, timeout=120)
    if result.returncode == 2 and "--hdbench_devices" in result.stderr:
        pytest.skip("this machine has one GPU: " + result.stderr.strip())
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_each_single_gpu_benchmark_is_listed_once_per_device(hdbench_bin):
    listed = run_two_devices(hdbench_bin, "--benchmark_list_tests").stdout.split()
    for device in (0, 1):
        assert f"pinning/malloc_host/4KiB/gpu:{device}/manual_time" in listed
        assert f"transfer/h2d/pinned/copy/4KiB/gpu:{device}/manual_time" in listed
    assert "pinning/malloc_host/4KiB/manual_time" not in listed
    assert "transfer/all_to_host/pinned/copy/4KiB/manual_time" in listed  # every GPU at once: one entry


def test_the_report_carries_the_device_and_without_a_gpu_each_copy_is_skipped(hdbench_bin, tmp_path):
    out = tmp_path / "r.json"
    run_two_devices(hdbench_bin, f"--hdbench_out={out}")
    report = json.loads(out.read_text())
    entries = {b["name"].removesuffix("/manual_time"): b for b in report["benchmarks"]}
    for device in (0, 1):
        entry = entries[f"pinning/register/4KiB/gpu:{device}"]
        assert entry["params"]["device"] == device
        assert entries[f"transfer/h2d/pageable/copy/4KiB/gpu:{device}"]["params"]["device"] == device
    all_gpus = entries["transfer/all_to_host/pinned/copy/4KiB"]
    assert all_gpus["params"]["devices"] == [0, 1] and "device" not in all_gpus["params"]
    hd = report["context"]["hdbench"]
    assert hd["options"]["devices"] == [0, 1]
    if hd["system"]["gpu_usable"]:
        return
    reason = hd["system"]["gpu_unavailable_reason"]
    gpu_entries = [b for b in report["benchmarks"] if b["params"]["family"] in ("transfer", "pinning")]
    assert len(gpu_entries) == len(entries)
    for b in gpu_entries:
        assert b["status"] == "skipped" and b["skip_reason"] == reason, b["name"]


def test_one_device_keeps_the_names_of_earlier_reports(hdbench_bin):
    result = run_hdbench(hdbench_bin, "--hdbench_devices=0", *ARGS, "--benchmark_list_tests", timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    listed = result.stdout.split()
    assert "pinning/malloc_host/4KiB/manual_time" in listed
    assert not any("/gpu:" in name for name in listed)
