"""The CPU step's OpenBLAS kernels, end to end: OPENBLAS_CORETYPE=Prescott stands in
for a CPU the library does not know (it falls back to SSE3 kernels, as on the H100's
host). hdbench must notice, re-run itself on the best core for this CPU's instruction
sets and record both; `keep` must keep the library's choice."""

from __future__ import annotations

import json

import pytest

from conftest import run_hdbench

SMALL = ["--hdbench_families=host_memcpy", "--hdbench_sizes=4K", "--hdbench_memcpy_threads=1",
         "--benchmark_min_time=0.001"]


def _report(hdbench_bin, tmp_path, *args, env=None):
    out = tmp_path / "r.json"
    result = run_hdbench(hdbench_bin, *SMALL, *args, f"--hdbench_out={out}", env=env, timeout=120)
    assert result.returncode == 0, result.stderr + result.stdout
    return result, json.loads(out.read_text())["context"]["hdbench"]


def test_the_cpu_and_its_peak_are_in_the_report(hdbench_bin, tmp_path):
    _, hd = _report(hdbench_bin, tmp_path)
    cpu = hd["system"]["cpu"]
    assert cpu["logical_cpus"] >= 1 and cpu["vector_level"] in ("sse", "avx", "avx2_fma", "avx512")
    assert cpu["fp32_nominal_peak_GFLOP/s"] >= 0 and cpu["clock_source"] is not None
    assert hd["cpu_blas"]["library"] == "OpenBLAS" and hd["cpu_blas"]["core_in_use"]
    # The narrow layers' own kernels follow the CPU: the widest instruction set it has.
    level = cpu["vector_level"]
    assert hd["cpu_blas"]["narrow_kernels"] == {"avx512": "avx512", "avx2_fma": "avx2"}.get(level, "none")


def test_a_fallback_core_is_replaced_and_both_are_recorded(hdbench_bin, tmp_path):
    _, plain = _report(hdbench_bin, tmp_path)
    if plain["system"]["cpu"]["vector_level"] == "sse":
        pytest.skip("this CPU has no AVX: Prescott is already the right core")
    result, hd = _report(hdbench_bin, tmp_path, env={"OPENBLAS_CORETYPE": "Prescott"})
    blas = hd["cpu_blas"]
    assert blas["core_chosen_by_library"] == "Prescott"
    assert blas["core_in_use"] != "Prescott"
    assert blas["core_in_use"] == plain["cpu_blas"]["core_in_use"] or blas["OPENBLAS_CORETYPE"] == blas["core_in_use"]
    assert "re-running with OPENBLAS_CORETYPE=" in result.stderr


def test_keep_runs_on_the_library_choice(hdbench_bin, tmp_path):
    _, hd = _report(hdbench_bin, tmp_path, "--hdbench_cpu_blas_core=keep", env={"OPENBLAS_CORETYPE": "Prescott"})
    assert hd["cpu_blas"]["core_in_use"] == "Prescott"
    assert hd["cpu_blas"]["mode"] == "keep"


def test_a_bad_core_name_is_a_usage_error(hdbench_bin, tmp_path):
    result = run_hdbench(hdbench_bin, "--hdbench_cpu_blas_core=a,b", timeout=60)
    assert result.returncode == 2
    assert "--hdbench_cpu_blas_core" in result.stderr
