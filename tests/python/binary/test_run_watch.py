"""The run's budget and each benchmark's deadline, end to end (issue 39).

A benchmark is made to hang through the test hook HDBENCH_TEST_HANG (docs/measuring.md): its
second sample never ends by itself. No wall time is asserted (a slow machine, or the sanitizer
build, takes longer): a cut that never came is a run past the subprocess's 120 s timeout; what
is asserted is that the report is written and names the cut benchmark."""

from __future__ import annotations

import json

from conftest import run_hdbench

HUNG = "host_memcpy/threads:1/4KiB"
ARGS = ("--hdbench_families=host_memcpy", "--hdbench_sizes=4K,64K", "--hdbench_memcpy_threads=1",
        "--hdbench_preset=quick")


def entries(report, name):
    return [b for b in report["benchmarks"] if b["name"].startswith(name + "/")]


def test_a_hanging_benchmark_fails_at_its_deadline_and_the_run_goes_on(hdbench_bin, tmp_path):
    out = tmp_path / "deadline.json"
    result = run_hdbench(hdbench_bin, *ARGS, "--hdbench_deadline_seconds=2", f"--hdbench_out={out}",
                         env={"HDBENCH_TEST_HANG": HUNG}, timeout=120)
    assert result.returncode == 1, result.stderr + result.stdout  # a benchmark failed
    report = json.loads(out.read_text())
    [hung] = entries(report, HUNG)
    assert hung["status"] == "error"
    assert "deadline of 2 s passed after 1 sample in sampling" in hung["error_message"], hung
    [other] = entries(report, "host_memcpy/threads:1/64KiB")
    assert other["status"] == "ok"  # the run went on
    assert report["context"]["hdbench"]["options"]["deadline_seconds"] == 2
    assert f"FAILED {HUNG}" in result.stdout


def test_a_budget_that_ends_mid_benchmark_cuts_it_and_writes_the_report(hdbench_bin, tmp_path):
    out = tmp_path / "budget.json"
    result = run_hdbench(hdbench_bin, *ARGS, "--hdbench_max_minutes=0.05", f"--hdbench_out={out}",
                         env={"HDBENCH_TEST_HANG": HUNG}, timeout=120)
    assert result.returncode == 0, result.stderr + result.stdout  # cut by the budget: skipped, not failed
    report = json.loads(out.read_text())
    [hung] = entries(report, HUNG)
    assert hung["status"] == "skipped", hung
    assert hung["skip_reason"].startswith("cut by --hdbench_max_minutes budget after 1 sample"), hung


def test_a_benchmark_that_ignores_the_cancellation_still_gets_a_report(hdbench_bin, tmp_path):
    """The last resort: the watchdog writes the report with the benchmark in flight marked, and exits 1."""
    out = tmp_path / "stuck.json"
    result = run_hdbench(hdbench_bin, *ARGS, "--hdbench_max_minutes=0.05", f"--hdbench_out={out}",
                         env={"HDBENCH_TEST_HANG": HUNG, "HDBENCH_TEST_HANG_MODE": "stuck"}, timeout=120)
    assert result.returncode == 1, result.stderr + result.stdout
    report = json.loads(out.read_text())
    [hung] = entries(report, HUNG)
    assert hung["status"] == "error"
    assert "cut by --hdbench_max_minutes budget" in hung["error_message"]
    assert "the run ended here" in hung["error_message"]
    assert report["context"]["hdbench"]["ended_early"]["benchmark"] == HUNG
    assert HUNG in result.stderr
