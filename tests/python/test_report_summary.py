"""tools/hdbench_report.py summarize: answers with the numbers of the report, and says
which questions it cannot answer."""

from __future__ import annotations

import json

from conftest import run_report_tool


def transfer(name, direction, memory, gbps, link_percent):
    return {"name": name, "run_type": "iteration", "status": "ok",
            "params": {"family": "transfer", "direction": direction, "memory": memory, "engine": "copy",
                       "variant": "per_copy", "bytes": 256 << 20},
            "counters": {"bandwidth_GB/s": gbps, "pcie_link_percent": link_percent}}


def synthetic_report() -> dict:
    """Made up for the test (not measured): numbers chosen so the ratios are exact."""
    return {
        "context": {"host_name": "synthetic-h200", "hdbench": {
            "version": "0.1.0", "git_revision": "abc", "started_at": "2026-11-20T10:00:00+0000",
            "system": {"host": {"cpu_model": "Test CPU"}, "gpus": [{"name": "NVIDIA H200"}]}}},
        "benchmarks": [
            transfer("t/h2d/pinned", "h2d", "pinned", 54.0, 85.7),
            transfer("t/h2d/pageable", "h2d", "pageable", 18.0, 28.6),
            transfer("t/d2h/pinned", "d2h", "pinned", 50.0, 79.4),
            {"name": "s/skipped", "run_type": "iteration", "status": "skipped", "skip_reason": "needs more memory",
             "params": {"family": "staged"}, "counters": {}},
        ],
        "derived": {
            "pinning_break_even": [{"bytes": 256 << 20, "direction": "h2d", "method": "malloc_host",
                                    "pin_unpin_us": 30000.0, "pageable_copy_us": 14913.0, "pinned_copy_us": 4971.0,
                                    "transfers_to_break_even": 4.0}],
            "stream_overlap": [{"bytes": 256 << 20, "compute_ratio": 1.0, "memory": "pinned",
                                "sync": {"latency_us": 15000.0},
                                "pipelined": {"benchmark": "streams/pipelined/x", "latency_us": 6000.0, "streams": 4,
                                              "chunks": 16, "fraction_of_ideal": 0.93},
                                "pipelined_saving_vs_sync_percent": 60.0,
                                "legacy_default_stream_slowdown": 2.5}],
        },
    }


def test_summary_states_the_ratios_of_the_report(tmp_path):
    path = tmp_path / "synthetic.json"
    path.write_text(json.dumps(synthetic_report()))
    result = run_report_tool("summarize", path)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert text.startswith("# hdbench on synthetic-h200")
    assert "NVIDIA H200" in text
    # 54 / 18 = 3.00x, with both benchmarks named
    assert "pinned 54.0 GB/s vs pageable 18.0 GB/s, **3.00×** (`t/h2d/pinned` vs `t/h2d/pageable`)" in text
    assert "pays off after **4** transfers" in text
    assert "**saves 60%**" in text and "4 streams × 16 chunks (93% of ideal)" in text
    assert "**2.50×** slower" in text
    assert "**86%** of the link's theoretical rate (`t/h2d/pinned`)" in text
    assert "**79%** of the link's theoretical rate (`t/d2h/pinned`)" in text
    # D2H has no pageable run: no ratio is made up for it.
    assert "D2H at" not in text
    # Questions without data say so, and the skips are listed with their reason.
    assert "cannot answer it" in text.split("pinned staging ring")[1].split("##")[0]
    assert "- 1 skipped: needs more memory" in text


def test_summary_is_written_atomically_to_a_file(tmp_path):
    path = tmp_path / "synthetic.json"
    path.write_text(json.dumps(synthetic_report()))
    out = tmp_path / "summary.md"
    result = run_report_tool("summarize", path, "-o", out)
    assert result.returncode == 0, result.stderr
    assert out.read_text().startswith("# hdbench on synthetic-h200")
    assert not list(tmp_path.glob("*.tmp"))


def test_summary_of_a_real_gpu_less_report_answers_nothing_it_did_not_measure(quick_report, tmp_path):
    _, report = quick_report
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    result = run_report_tool("summarize", path)
    assert result.returncode == 0, result.stderr
    if not report["context"]["hdbench"]["system"]["gpu_usable"]:
        assert "GB/s vs pageable" not in result.stdout
        assert result.stdout.count("cannot answer it") == 6


def test_summary_of_a_bad_report_exits_2(tmp_path):
    path = tmp_path / "empty.json"
    path.write_text("")
    result = run_report_tool("summarize", path)
    assert result.returncode == 2 and "empty.json" in result.stderr and "Traceback" not in result.stderr
