"""tools/hdbench_report.py on real reports from the binary and on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "hdbench_report.py"
sys.path.insert(0, str(TOOL.parent))
import hdbench_report  # noqa: E402


def test_plot_draws_host_memcpy_series_from_a_real_report(quick_report, tmp_path):
    _, report = quick_report
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    series, left_out, _ = hdbench_report.collect([(str(path), report)])
    assert set(series["host_memcpy"]) == {"threads=1", "threads=2"}
    assert sorted(x for x, _ in series["host_memcpy"]["threads=1"]) == [4096, 65536]
    if not report["context"]["hdbench"]["system"]["gpu_usable"]:
        assert "transfer" not in series and left_out  # skipped runs are listed, not drawn
    written = hdbench_report.plot([str(path)], str(tmp_path / "fig"))
    assert tmp_path / "fig" / "host_memcpy.png" in written
    assert (tmp_path / "fig" / "host_memcpy.svg").stat().st_size > 0


@pytest.mark.parametrize("content, message", [
    (None, "cannot read"),
    ("", "empty"),
    ('{"benchmarks": [', "not valid JSON"),
    ("[1, 2]", "not an hdbench report"),
    ('{"context": {}, "benchmarks": []}', "not an hdbench report"),
])
def test_bad_reports_exit_2_naming_the_file(tmp_path, content, message):
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    result = subprocess.run([sys.executable, str(TOOL), "plot", str(path), "-o", str(tmp_path / "o")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert str(path) in result.stderr and message in result.stderr
    assert "Traceback" not in result.stderr
