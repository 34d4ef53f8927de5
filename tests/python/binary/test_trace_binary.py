"""--hdbench_trace end to end: on a GPU-less machine the run goes on without a trace
and the report says why; bad values exit 2 before anything runs; on a GPU machine
the trace is a Chrome trace with host and GPU processes and copies."""

from __future__ import annotations

import json

from conftest import run_hdbench

HOST_ONLY = ["--hdbench_families=host_memcpy", "--hdbench_sizes=4K", "--hdbench_memcpy_threads=1",
             "--benchmark_min_time=0.01"]


def test_trace_is_recorded_or_the_report_says_why_not(hdbench_bin, tmp_path):
    out, trace = tmp_path / "r.json", tmp_path / "trace.json"
    result = run_hdbench(hdbench_bin, *HOST_ONLY, "--hdbench_families=host_memcpy,transfer",
                         f"--hdbench_trace={trace}", f"--hdbench_out={out}")
    assert result.returncode == 0, result.stderr + result.stdout
    report = json.loads(out.read_text())
    status = report["context"]["hdbench"]["trace"]
    assert report["context"]["hdbench"]["options"]["trace_path"] == str(trace)
    if not report["context"]["hdbench"]["system"]["gpu_usable"]:
        assert status["recorded"] is False
        assert status["reason"] == report["context"]["hdbench"]["system"]["gpu_unavailable_reason"]
        assert "no trace will be recorded" in result.stderr
        assert not trace.exists()
        return
    if not status["recorded"]:  # CUPTI refused (permissions, another profiler): said why
        assert status["reason"]
        return
    events = json.loads(trace.read_text())["traceEvents"]
    names = {e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    assert any(n.startswith("host") for n in names) and any(n.startswith("GPU 0") for n in names)
    copies = [e for e in events if e.get("ph") == "X" and e.get("cat") == "gpu_memcpy"]
    assert copies and all(e["args"]["bytes"] > 0 for e in copies)
    assert status["records"] >= len(copies)
    # Each transfer benchmark's activity is measured over its timed ranges, where its copies ran.
    rows = {r["benchmark"]: r for r in report["derived"]["gpu_activity"]}
    # The copy engine moves bytes with copies; the SM engine with a kernel (no copy record).
    transfers = {b["name"].removesuffix("/manual_time"): b["params"]["engine"] for b in report["benchmarks"]
                 if b["params"].get("family") == "transfer" and b["status"] == "ok"}
    assert transfers and all(name in rows for name in transfers)
    assert set(transfers.values()) <= {"copy", "sm"}, transfers
    for name, engine in transfers.items():
        row = rows[name]
        assert row["measured_over"] == "timed ranges" and row["timed_ranges"] >= 1, row
        assert row["kernels" if engine == "sm" else "copies"] >= 1, row
        assert 0 < row["gpu_busy_percent"] <= 100 + 1e-9, row
        # An SM copy's kernel is its top kernel, its time within the timed ranges' window.
        if engine == "sm":
            top = row["top_kernels"]
            assert top and all(k["name"] and k["launches"] >= 1 and 0 < k["total_us"] <= row["window_us"] + 1e-6
                               for k in top), row
            assert [k["total_us"] for k in top] == sorted((k["total_us"] for k in top), reverse=True), row


def test_trace_not_asked_leaves_no_status(hdbench_bin, tmp_path):
    out = tmp_path / "r.json"
    result = run_hdbench(hdbench_bin, *HOST_ONLY, f"--hdbench_out={out}")
    assert result.returncode == 0, result.stderr
    assert "trace" not in json.loads(out.read_text())["context"]["hdbench"]


def test_bad_trace_values_exit_2(hdbench_bin, tmp_path):
    for flag, expected in [("--hdbench_trace=", "--hdbench_trace"),
                           ("--hdbench_trace=/proc/no/such/trace.json", "--hdbench_trace"),
                           ("--hdbench_trace_api=maybe", "--hdbench_trace_api")]:
        out = tmp_path / "r.json"
        result = run_hdbench(hdbench_bin, flag, f"--hdbench_out={out}", timeout=60)
        assert result.returncode == 2, (flag, result.stderr)
        assert expected in result.stderr
        assert not out.exists()
