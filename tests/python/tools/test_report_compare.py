"""tools/hdbench_report.py compare: identical reports pass, an injected regression fails."""

from __future__ import annotations

import copy
import json

import pytest

from hdreport import compare as report_compare
from conftest import run_report_tool


def synthetic_report(times: dict[str, list[float]], host="synthetic-a", gpu="none") -> dict:
    """A made-up report (not measured): one iteration entry per repetition."""
    benchmarks = []
    for name, reps in times.items():
        for i, t in enumerate(reps):
            benchmarks.append({"name": name, "run_name": name, "run_type": "iteration", "repetition_index": i,
                               "status": "ok", "real_time": t, "time_unit": "us", "params": {"family": "x"}})
    return {"context": {"host_name": host, "hdbench": {"system": {"host": {"cpu_model": "cpu"},
                                                                  "gpus": [{"name": gpu}]}}},
            "benchmarks": benchmarks}


def write(tmp_path, name, report):
    path = tmp_path / name
    path.write_text(json.dumps(report))
    return path


def test_u_test_matches_hand_computed_values():
    # All three of one sample below all three of the other: P = 2 / C(6, 3).
    assert report_compare.mann_whitney_u_p_value([1, 2, 3], [4, 5, 6]) == pytest.approx(0.1)
    assert report_compare.mann_whitney_u_p_value([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
    # Nine clearly separated repetitions are significant; three never can be at 0.05.
    assert report_compare.mann_whitney_u_p_value(list(range(9)), list(range(100, 109))) < 0.001


def test_identical_reports_pass(quick_report, tmp_path):
    _, report = quick_report
    path = write(tmp_path, "r.json", report)
    result = run_report_tool("compare", path, path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "geometric mean of new/base" in result.stdout and ": 1.0000" in result.stdout
    assert "0 regression(s)" in result.stdout
    assert "different machines" not in result.stdout


def test_a_twenty_percent_regression_is_caught(tmp_path):
    base_times = {"a/fast": [100.0 + i for i in range(9)], "b/steady": [50.0 + 0.1 * i for i in range(9)]}
    new_times = copy.deepcopy(base_times)
    new_times["a/fast"] = [t * 1.2 for t in base_times["a/fast"]]  # injected: 20% slower
    base = write(tmp_path, "base.json", synthetic_report(base_times))
    new = write(tmp_path, "new.json", synthetic_report(new_times))
    result = run_report_tool("compare", base, new, "--threshold", "10")
    assert result.returncode == 1, result.stdout + result.stderr
    flagged = [line for line in result.stdout.splitlines() if "REGRESSION" in line]
    assert len(flagged) == 1 and flagged[0].startswith("a/fast"), result.stdout
    assert "1.200" in flagged[0]
    # geometric mean of 1.2 and 1.0
    assert f"{(1.2 * 1.0) ** 0.5:.4f}" in result.stdout
    # Beyond the threshold: a 25% threshold lets it pass.
    assert run_report_tool("compare", base, new, "--threshold", "25").returncode == 0


def test_without_repetitions_the_ratio_alone_decides(tmp_path):
    base = write(tmp_path, "base.json", synthetic_report({"a": [10.0]}))
    new = write(tmp_path, "new.json", synthetic_report({"a": [13.0], "only_new": [1.0]}))
    result = run_report_tool("compare", base, new)
    assert result.returncode == 1
    assert "only in NEW (1): only_new" in result.stdout
    row = next(line for line in result.stdout.splitlines() if line.startswith("a "))
    assert row.endswith("-  REGRESSION"), row  # no p-value without repetitions


def test_different_machines_are_noted(tmp_path):
    base = write(tmp_path, "base.json", synthetic_report({"a": [10.0]}, host="box-a", gpu="H100"))
    new = write(tmp_path, "new.json", synthetic_report({"a": [10.0]}, host="box-b", gpu="H200"))
    result = run_report_tool("compare", base, new)
    assert result.returncode == 0
    assert "different machines" in result.stdout and "H200" in result.stdout


@pytest.mark.parametrize("args, message", [
    (["--threshold", "-1"], "--threshold"),
    (["--alpha", "1.5"], "--alpha"),
])
def test_bad_thresholds_exit_2(tmp_path, args, message):
    path = write(tmp_path, "r.json", synthetic_report({"a": [1.0]}))
    result = run_report_tool("compare", path, path, *args)
    assert result.returncode == 2 and message in result.stderr


def test_bad_report_exits_2_naming_it(tmp_path):
    good = write(tmp_path, "good.json", synthetic_report({"a": [1.0]}))
    bad = tmp_path / "bad.json"
    bad.write_text('{"benchmarks": [')
    result = run_report_tool("compare", good, bad)
    assert result.returncode == 2
    assert "bad.json" in result.stderr and "Traceback" not in result.stderr


def test_times_in_other_units_are_compared_as_the_same_time(tmp_path):
    """NEW timed in ms beside BASE in µs: read as 0.002x (and no regression) before."""
    base = write(tmp_path, "base.json", synthetic_report({"a": [100.0 + i for i in range(9)]}))
    slower = synthetic_report({"a": [0.2 + 0.002 * i for i in range(9)]})  # twice as slow, in ms
    for b in slower["benchmarks"]:
        b["time_unit"] = "ms"
    new = write(tmp_path, "new.json", slower)
    result = run_report_tool("compare", base, new)
    assert result.returncode == 1, result.stdout + result.stderr
    row = next(line for line in result.stdout.splitlines() if line.startswith("a "))
    assert "208.000us" in row and "2.000" in row and "REGRESSION" in row, row


@pytest.mark.parametrize("field, value, message", [
    ("real_time", 0.0, "is not a positive time"),
    ("real_time", -5.0, "is not a positive time"),
    ("time_unit", "fortnights", "time_unit 'fortnights'"),
])
def test_a_time_no_ratio_can_be_made_of_exits_2(tmp_path, field, value, message):
    base = write(tmp_path, "base.json", synthetic_report({"a": [10.0]}))
    damaged = synthetic_report({"a": [10.0]})
    damaged["benchmarks"][0][field] = value
    new = write(tmp_path, "new.json", damaged)
    result = run_report_tool("compare", base, new)
    assert result.returncode == 2 and message in result.stderr, result.stdout + result.stderr


def test_reports_that_share_no_benchmark_exit_2_not_0(tmp_path):
    """A CI gate over reports with nothing in common said "0 regression(s)" and passed."""
    base = write(tmp_path, "base.json", synthetic_report({"a": [10.0]}))
    new = write(tmp_path, "new.json", synthetic_report({"b": [10.0]}))
    result = run_report_tool("compare", base, new)
    assert result.returncode == 2 and "nothing to compare" in result.stderr
    assert "only in BASE: 1, only in NEW: 1" in result.stderr
