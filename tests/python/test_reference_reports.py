"""The report tools on the real reports committed under reports/reference/ (measured
on the machines the folders are named after): every successful run the figures can
draw is drawn with its measured value, and the summary quotes the measured step times."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hdbench_report
from conftest import run_report_tool

REFERENCE = Path(__file__).resolve().parents[2] / "reports" / "reference"
FOLDERS = sorted(p for p in REFERENCE.iterdir() if p.is_dir()) if REFERENCE.is_dir() else []


def reports_in(folder: Path) -> list[tuple[str, dict]]:
    return [(str(p), hdbench_report.load_report(str(p))) for p in sorted(folder.glob("*.json"))]


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_every_drawable_reference_run_is_on_its_figure(folder):
    pytest.importorskip("matplotlib")
    reports = reports_in(folder)
    assert reports, f"{folder} holds no report"
    series, left_out, _ = hdbench_report.collect(reports)
    drawn = 0
    for path, report in reports:
        prefix = hdbench_report.line_prefix(reports, report)
        for b in report["benchmarks"]:
            p = b.get("params", {})
            if b.get("status") != "ok" or p.get("family") != "mlp" or p.get("variant") != "step":
                continue
            points = [pt for figure, lines in series.items() if figure.startswith("mlp_step_us--")
                      and f"model-{p['model']}" in figure for label, line in lines.items()
                      if label.startswith(prefix) and f"implementation={p['implementation']}" in label
                      for pt in line if pt[0] == p["batch"] and pt[1] == b["counters"]["step_us"]]
            assert points, f"{path}: {b['name']} is not on its step-time figure"
            drawn += 1
    assert drawn > 0
    # Runs that did not succeed are listed, not drawn (a GPU-less machine skips every GPU run).
    listed = {line.split(": ")[0] for line in left_out}
    for _, report in reports:
        for b in report["benchmarks"]:
            if b.get("status") != "ok" and hdbench_report.figures_of(b.get("params", {})):
                assert b["name"] in listed


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_reference_summary_quotes_the_measured_cpu_steps(folder, tmp_path):
    for path, report in reports_in(folder):
        if report["context"]["hdbench"].get("implementation", "hdbench") != "hdbench":
            continue  # the PyTorch baseline's report has no summary of its own
        result = run_report_tool("summarize", path)
        assert result.returncode == 0, result.stderr
        for b in report["benchmarks"]:
            p = b.get("params", {})
            if b.get("status") == "ok" and p.get("family") == "mlp" and p.get("variant") == "step" and \
                    p.get("processor") == "cpu":
                assert f"{b['counters']['step_us']:.1f} µs" in result.stdout, b["name"]
