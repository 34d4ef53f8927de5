"""hdbench_mpi under Open MPI's mpirun on this machine's CPU: two ranks train the
data-parallel MLP step, agree with each other and with one process on the combined
batch, and rank 0 writes one report; a rank that dies or stalls ends the run with a
message within the collective deadline, and an earlier report at the path survives.

Runs in the release build only (the tools label): MPI's own allocations make
AddressSanitizer's leak check noisy, and nothing here is sanitizer-specific. The
faults come from the binary's test hook HDBENCH_DP_FAULT=kill|stall:RANK:STEP."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

MPIRUN = shutil.which("mpirun")
pytestmark = pytest.mark.skipif(MPIRUN is None, reason="mpirun is not installed (Debian: openmpi-bin)")

SMALL = ["--hdbench_dp_models=784x16x10", "--hdbench_dp_batches=64", "--hdbench_dp_steps=4"]


@pytest.fixture(scope="module")
def mpi_bin() -> Path:
    path = os.environ.get("HDBENCH_BIN")
    if not path:
        pytest.skip("HDBENCH_BIN is not set; run these tests through ctest")
    binary = Path(path).with_name("hdbench_mpi")
    if not binary.exists():
        pytest.skip(f"{binary} was not built (CMake found no MPI)")
    return binary


def mpirun(binary: Path, ranks: int, *args: str, env: dict | None = None, timeout: float = 120):
    command = [MPIRUN, "-np", str(ranks), "--oversubscribe"]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    full_env = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1",
                    **(env or {}))
    return subprocess.run([*command, str(binary), *args], capture_output=True, text=True, timeout=timeout,
                          env=full_env)


def test_two_ranks_agree_with_each_other_and_with_one_process(mpi_bin, tmp_path):
    out = tmp_path / "dp.json"
    result = mpirun(mpi_bin, 2, *SMALL, "--hdbench_seed=7", f"--hdbench_out={out}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("Report: ") == 1  # rank 0 alone reports
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dp.json"]  # one file, no temp left over
    report = json.loads(out.read_text())
    assert report["context"]["hdbench"]["mpi"]["ranks"] == 2
    [entry] = [b for b in report["benchmarks"] if b["params"]["processor"] == "cpu"]
    assert entry["status"] == "ok", entry.get("error_message")
    assert entry["name"] == "dataparallel/cpu/mpi/784x16x10/batch:64/ranks:2"
    assert entry["params"]["ranks"] == 2 and entry["params"]["shard_batch"] == 32
    assert [r["rank"] for r in entry["per_rank"]] == [0, 1]
    assert all(r["shard_batch"] == 32 and len(r["step_us_all"]) == 4 for r in entry["per_rank"])
    assert entry["checks"]["ranks_identical"] is True
    assert entry["checks"]["matches_one_rank"] is True
    assert entry["counters"]["params_max_abs_diff_between_ranks"] == 0.0
    assert entry["counters"]["params_max_abs_diff_vs_one_rank"] <= 1e-4
    for key in ("step_us", "allreduce_us", "allreduce_busbw_GB/s", "one_rank_step_us", "scaling_efficiency"):
        assert entry["counters"][key] > 0, key
    # nccl-tests' definition with n = 2: busbw = algbw * 2(n-1)/n = algbw.
    assert entry["counters"]["allreduce_busbw_GB/s"] == pytest.approx(entry["counters"]["allreduce_algbw_GB/s"])


def test_the_gpu_step_runs_one_rank_per_gpu_or_says_why_not(mpi_bin, tmp_path):
    """Two ranks: both the bucketed and the one-all-reduce exchange are reported. On a
    node with fewer than two GPUs (this VM has none) they are skipped with the reason."""
    out = tmp_path / "dp.json"
    result = mpirun(mpi_bin, 2, *SMALL, "--hdbench_dp_processors=gpu", f"--hdbench_out={out}")
    assert result.returncode == 0, result.stdout + result.stderr
    entries = json.loads(out.read_text())["benchmarks"]
    assert [e["name"] for e in entries] == [
        f"dataparallel/gpu/nccl/784x16x10/batch:64/ranks:2/overlap:{mode}" for mode in ("bucketed", "none")]
    for e in entries:
        assert e["params"]["processor"] == "gpu" and e["params"]["ranks"] == 2
        if e["status"] == "skipped":
            assert "GPU" in e["skip_reason"], e["skip_reason"]
            assert f"SKIPPED {e['name']}: {e['skip_reason']}" in result.stdout
        else:
            assert e["status"] == "ok", e.get("error_message")
            assert e["checks"]["ranks_identical"] and e["checks"]["matches_one_rank"]
            assert len(e["per_rank"]) == 2


def test_a_batch_that_does_not_split_fails_with_the_reason(mpi_bin, tmp_path):
    out = tmp_path / "dp.json"
    result = mpirun(mpi_bin, 2, "--hdbench_dp_models=784x16x10", "--hdbench_dp_batches=63", "--hdbench_dp_steps=1",
                    f"--hdbench_out={out}")
    assert result.returncode != 0
    assert "does not split evenly over 2 ranks" in result.stderr
    assert not out.exists()


@pytest.mark.parametrize("flag", ["--hdbench_families=host_memcpy", "--hdbench_list_cases=-",
                                  "--hdbench_describe_families=df.json"])
def test_hdbenchs_own_flags_are_refused_not_ignored(mpi_bin, tmp_path, flag):
    """They would be taken and the dataparallel family run anyway: said, with exit code 2."""
    result = mpirun(mpi_bin, 1, *SMALL, flag, f"--hdbench_out={tmp_path / 'dp.json'}")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "hdbench_mpi runs the dataparallel family only" in result.stderr
    assert not any(tmp_path.iterdir())


def test_a_report_path_that_cannot_be_written_is_one_line_and_exit_2_on_every_rank(mpi_bin, tmp_path):
    """Only rank 0 writes the report and checks its path; every rank learns the answer and
    ends with 2, the reason first, rather than an MPI_ABORT (mpirun still adds its own note)."""
    result = mpirun(mpi_bin, 2, *SMALL, f"--hdbench_out={tmp_path}")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.splitlines()[0] == f"hdbench_mpi: --hdbench_out: '{tmp_path}' is a directory; " \
                                            "give a file path", result.stderr
    assert "MPI_ABORT" not in result.stdout + result.stderr
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("fault", ["kill", "stall"])
def test_a_dead_or_stalled_rank_fails_the_run_and_keeps_the_earlier_report(mpi_bin, tmp_path, fault):
    out = tmp_path / "dp.json"
    out.write_text('{"earlier": true}\n')
    timeout_s = 5
    started = time.monotonic()
    result = mpirun(mpi_bin, 2, *SMALL, f"--hdbench_dp_timeout_s={timeout_s}", f"--hdbench_out={out}",
                    env={"HDBENCH_DP_FAULT": f"{fault}:1:2"}, timeout=60)
    elapsed = time.monotonic() - started
    assert result.returncode != 0, result.stdout + result.stderr
    assert out.read_text() == '{"earlier": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dp.json"]
    assert f"HDBENCH_DP_FAULT={fault}:1:2" in result.stderr
    if fault == "stall":
        # Rank 0 gives up on the all-reduce rank 1 never joins, and says so.
        assert "rank 0 of 2: gradient all-reduce of step 2 did not complete within 5 s" in result.stderr
    assert elapsed < 50, f"the run took {elapsed:.0f} s to fail"


def test_one_rank_runs_without_mpirun_in_hdbench(hdbench_bin, tmp_path):
    """The plain binary links no MPI: its dataparallel family runs the one-rank step."""
    out = tmp_path / "r.json"
    result = subprocess.run([str(hdbench_bin), "--hdbench_families=dataparallel", *SMALL, f"--hdbench_out={out}"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    benchmarks = json.loads(out.read_text())["benchmarks"]
    [one] = [b for b in benchmarks if b["name"].startswith("dataparallel/cpu/self/784x16x10/batch:64/ranks:1/")]
    assert one["status"] == "ok"
    assert one["params"]["ranks"] == 1
    # One rank crosses no link: no bandwidth is published (issue 28), and the step has a noise figure.
    assert "allreduce_busbw_GB/s" not in one["counters"] and "allreduce_algbw_GB/s" not in one["counters"]
    assert one["counters"]["samples"] == one["params"]["steps"] and one["counters"]["noise_percent"] >= 0
    assert one["counters"]["params_max_abs_diff_vs_one_rank"] <= 1e-4
    # Without a GPU the NCCL all-reduce and the GPU step register as skipped, with the reason.
    for variant in ("nccl_allreduce", "gpu_step"):
        entries = [b for b in benchmarks if b["params"].get("variant") == variant]
        assert entries and all(b["status"] in ("ok", "skipped") for b in entries), variant
        assert all(b["skip_reason"] for b in entries if b["status"] == "skipped")
    overlaps = sorted(b["params"]["overlap"] for b in benchmarks if b["params"].get("variant") == "gpu_step")
    assert overlaps == ["bucketed", "none"]


def test_p2p_registers_skipped_with_the_reason_without_two_gpus(hdbench_bin, tmp_path):
    out = tmp_path / "r.json"
    result = subprocess.run([str(hdbench_bin), "--hdbench_families=p2p", "--hdbench_devices=all",
                             f"--hdbench_out={out}"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(out.read_text())
    p2p = [b for b in report["benchmarks"] if b["params"].get("family") == "p2p"]
    assert p2p
    system = report["context"]["hdbench"]["system"]
    if len(system["gpus"]) >= 2 and not system.get("gpu_unavailable_reason"):
        assert all(b["status"] in ("ok", "skipped") for b in p2p)
        return
    [entry] = p2p
    assert entry["status"] == "skipped"
    assert entry["skip_reason"] == system.get("gpu_unavailable_reason") or "two or more GPUs" in entry["skip_reason"]


def test_all_gpu_directions_and_far_numa_register_with_devices_and_reasons(hdbench_bin, tmp_path):
    """transfer's all_to_host / host_to_all name every selected GPU in params and run
    (or skip with the GPU's reason); far NUMA placement on a one-node machine is
    skipped saying so, with or without a GPU."""
    out = tmp_path / "r.json"
    result = subprocess.run([str(hdbench_bin), "--hdbench_families=transfer", "--hdbench_devices=all",
                             "--hdbench_directions=all_to_host,host_to_all", "--hdbench_numa=near,far",
                             "--hdbench_sizes=1M", "--hdbench_memory=pinned", "--hdbench_engines=copy",
                             f"--hdbench_out={out}"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(out.read_text())
    system = report["context"]["hdbench"]["system"]
    entries = {b["name"].removesuffix("/manual_time"): b for b in report["benchmarks"]}
    for direction in ("all_to_host", "host_to_all"):
        near = entries[f"transfer/{direction}/pinned/copy/1MiB"]
        far = entries[f"transfer/{direction}/pinned/copy/1MiB/numa:far"]
        for entry in (near, far):
            assert entry["params"]["direction"] == direction
            assert entry["params"]["devices"] == (list(range(len(system["gpus"]))) or [0])
            assert entry["params"]["device_count"] == len(entry["params"]["devices"])
        if system.get("gpu_unavailable_reason"):
            assert near["status"] == "skipped" and near["skip_reason"] == system["gpu_unavailable_reason"]
        else:
            assert near["status"] == "ok", near.get("error_message")
            for device in near["params"]["devices"]:
                assert near["counters"][f"gpu{device}_bandwidth_GB/s"] > 0
            assert near["counters"]["sum_alone_GB/s"] > 0 and near["counters"]["contention_ratio"] > 0
        if system["host"]["numa_nodes"] <= 1:
            assert far["status"] == "skipped" and "one NUMA node" in far["skip_reason"]
