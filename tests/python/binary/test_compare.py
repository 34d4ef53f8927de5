"""Google's own compare.py reads hdbench reports unchanged."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_hdbench

COMPARE = Path("/usr/share/benchmark/compare.py")


@pytest.mark.skipif(not COMPARE.exists(), reason="Google's compare.py is missing: apt-get install libbenchmark-tools")
def test_compare_py_accepts_two_hdbench_reports(hdbench_bin, tmp_path):
    # The report format is what is checked, not any family: one host family at two sizes
    # (under a second, ASan build included), with repetitions so the aggregates
    # compare.py tests are in the report too. The timeout only guards against a hang.
    reports = []
    for i in range(2):
        out = tmp_path / f"r{i}.json"
        result = run_hdbench(hdbench_bin, "--hdbench_families=host_memcpy", "--hdbench_sizes=4K,64K",
                             "--hdbench_memcpy_threads=1", "--benchmark_min_time=0.01", "--benchmark_repetitions=3",
                             f"--hdbench_out={out}", timeout=120)
        assert result.returncode == 0, result.stderr
        reports.append(out)
    compare = subprocess.run([sys.executable, str(COMPARE), "benchmarks", str(reports[0]), str(reports[1])],
                             capture_output=True, text=True, timeout=120)
    assert compare.returncode == 0, compare.stderr
    assert "host_memcpy/threads:1/4KiB/manual_time" in compare.stdout
    assert "host_memcpy/threads:1/64KiB/manual_time" in compare.stdout
    assert "Traceback" not in compare.stderr
