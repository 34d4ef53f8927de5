"""libhdbench_inject.so, the library hdbench_profile injects into another program: it
loads on a machine without a CUDA driver (nothing of the driver is linked), exports
the two entry points the CUDA driver and NVTX look for, and a process it cannot record
says why in its records file. On a GPU machine the same call records, and the end line
comes at exit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def inject_lib(hdbench_bin) -> Path:
    lib = Path(hdbench_bin).resolve().parent.parent / "lib" / "libhdbench_inject.so"
    if not lib.exists():
        pytest.skip(f"{lib} was not built (the build found no CUPTI)")
    return lib


def loader_env(lib: Path) -> dict:
    """The environment a program needs to load `lib`: under the sanitize build the library
    carries AddressSanitizer, whose runtime must be loaded first (as it would be in a
    program built with it), and Python's own allocations are not ours to report."""
    env = dict(os.environ)
    ldd = subprocess.run(["ldd", str(lib)], capture_output=True, text=True).stdout
    found = {name: line.split("=>")[1].split()[0] for line in ldd.splitlines() if "=>" in line
             for name in ("libasan", "libstdc++") if name in line}
    if "libasan" in found:
        # The C++ runtime right after it, so its interceptors (e.g. of exceptions) find what they wrap.
        env["LD_PRELOAD"] = " ".join(found[n] for n in ("libasan", "libstdc++") if n in found)
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    return env


def call_initialize(lib: Path, folder: Path) -> subprocess.CompletedProcess:
    code = ("import ctypes, sys; lib = ctypes.CDLL(sys.argv[1]); "
            "print(lib.InitializeInjection()); print(hasattr(lib, 'InitializeInjectionNvtx2'))")
    env = dict(loader_env(lib), HDBENCH_PROFILE_DIR=str(folder))
    return subprocess.run([sys.executable, "-c", code, str(lib)], capture_output=True, text=True, env=env,
                          timeout=120)


def test_the_library_loads_and_a_process_it_cannot_record_says_why(inject_lib, tmp_path):
    result = call_initialize(inject_lib, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["1", "True"]  # the program runs either way; both entry points are there
    files = list(tmp_path.glob("records-*.jsonl"))
    assert len(files) == 1
    lines = [json.loads(line) for line in files[0].read_text().splitlines()]
    first = lines[0]
    assert first["type"] == "process" and first["pid"] > 0 and "ctypes" in first["command"]
    if "error" in first:  # no GPU or driver here: nothing recorded, and why
        assert len(lines) == 1 and "what to do" in first["error"]
        assert not list(tmp_path.glob("trace-*"))  # no trace, not even a temp file
    else:  # CUPTI started: the process ended normally, so the end line is there
        assert lines[-1]["type"] == "end" and lines[-1]["over_budget"] == 0


def test_outside_hdbench_profile_it_records_nothing(inject_lib, tmp_path):
    code = "import ctypes, sys; print(ctypes.CDLL(sys.argv[1]).InitializeInjection())"
    env = {k: v for k, v in loader_env(inject_lib).items() if k != "HDBENCH_PROFILE_DIR"}
    result = subprocess.run([sys.executable, "-c", code, str(inject_lib)], capture_output=True, text=True, env=env,
                            cwd=tmp_path, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "1", result.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_built_wrapper_runs_a_command_under_the_profiler(hdbench_bin, tmp_path):
    wrapper = Path(hdbench_bin).resolve().parent / "hdbench_profile"
    out = tmp_path / "profile.json"
    result = subprocess.run([str(wrapper), f"--hdbench_out={out}", "--", "sh", "-c", "echo untouched; exit 3"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert result.returncode == 3, result.stderr  # passed through
    assert result.stdout == "untouched\n"  # the command's output is its own
    profile = json.loads(out.read_text())["profile"]
    assert profile["exit"] == {"code": 3, "signal": None}
    assert profile["recorded"] is False and "no CUDA calls" in profile["not_recorded_reason"]


def test_the_launcher_takes_the_built_library_as_one_cuda_loads(inject_lib):
    from hdreport.profile.launch import injection_library_problem

    assert injection_library_problem(str(inject_lib)) == ""
