"""tools/profile_overhead.py: the command run plain and under the injection library with each
part of the recording on alone, round-robin, into one JSON file. Without a GPU the library
never loads, so a stand-in program here reports which part it was given (its environment)
and a wall time made from it: what is checked is the bookkeeping, never a timing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TOOL = ROOT / "tools" / "profile_overhead.py"

# Prints a result line whose wall_s encodes the part it ran with; logs each run's environment.
PROGRAM = r"""
import os, sys
part = os.environ.get("HDBENCH_PROFILE_RECORD", "plain")
if "profile_site" in os.environ.get("PYTHONPATH", ""):  # Python's collections timed
    part += "+gc"
folder = os.environ.get("HDBENCH_PROFILE_DIR")
with open(sys.argv[1], "a") as log:
    log.write(f"{part} {os.environ.get('CUDA_INJECTION64_PATH', '-')} {bool(folder and os.path.isdir(folder))}\n")
if part == os.environ.get("FAIL_PART"):
    sys.exit(3)
wall = {"plain": 2.0, "none": 2.02, "gpu": 2.2, "api": 2.1, "nvtx": 2.0, "none+gc": 2.03, "gpu,api,nvtx+gc": 2.4}[part]
print("loss 0.5")
print(f"fake: steps=10 wall_s={wall} batch_wait_s={wall / 2}")
"""


def run(tmp_path: Path, *args, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "program.py"
    path.write_text(PROGRAM)
    lib = tmp_path / "libfake_inject.so"
    lib.write_text("not loaded: no CUDA here")
    return path, lib


def test_every_part_alone_round_robin_against_plain(tmp_path, program):
    path, lib = program
    out, log = tmp_path / "o" / "overhead.json", tmp_path / "runs.log"
    result = run(tmp_path, out, "--lib", lib, "--rounds", 2, "--", sys.executable, path, log)
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    assert report["rounds"] == 2 and report["parts"] == ["none", "gpu", "api", "nvtx", "gc", "all"]
    v = report["variants"]
    assert list(v) == ["plain", "none", "gpu", "api", "nvtx", "gc", "all"]
    assert v["gc"]["ratio_to_plain"] == pytest.approx(1.015)
    assert v["plain"]["wall_s"] == 2.0 and v["plain"]["wall_s_runs"] == [2.0, 2.0] and "ratio_to_plain" not in v["plain"]
    assert v["all"]["wall_s"] == 2.4 and v["all"]["ratio_to_plain"] == pytest.approx(1.2)
    assert v["gpu"]["ratio_to_plain"] == pytest.approx(1.1) and v["gpu"]["batch_wait_s"] == pytest.approx(1.1)
    assert all(x["timed_by"] == "wall_s printed" and x["failed_runs"] == 0 for x in v.values())
    # A warm-up of plain, not counted; then round-robin, round 2 one variant further on; plain
    # without the library, each part with it and a folder to record into.
    runs = log.read_text().splitlines()
    order = ["plain", "none", "gpu", "api", "nvtx", "none+gc", "gpu,api,nvtx+gc"]
    assert [r.split()[0] for r in runs] == ["plain"] + order + order[1:] + order[:1]
    assert report["warmup_wall_s_runs"] == [2.0] and "[warm-up 1] plain: 2.000 s (not counted)" in result.stdout
    assert all(r == "plain - False" for r in runs if r.startswith("plain"))
    assert all(r.split()[1] == str(lib.resolve()) and r.split()[2] == "True" for r in runs if not r.startswith("plain"))
    assert "| all | 2.400 s | 2.400, 2.400 | 1.200 s | 1.200 |" in result.stdout


def test_a_part_that_fails_every_round_exits_1_with_the_json_written(tmp_path, program):
    path, lib = program
    out = tmp_path / "overhead.json"
    result = run(tmp_path, out, "--lib", lib, "--rounds", 1, "--parts", "gpu,api", "--", sys.executable, path,
                 tmp_path / "log", env={"FAIL_PART": "api"})
    assert result.returncode == 1 and "failed (exit 3)" in result.stdout
    v = json.loads(out.read_text())["variants"]
    assert v["api"]["wall_s"] is None and v["api"]["failed_runs"] == 1 and v["api"]["ratio_to_plain"] is None
    assert v["gpu"]["ratio_to_plain"] == pytest.approx(1.1)


def test_a_command_without_a_result_line_is_timed_from_outside(tmp_path, program):
    _, lib = program
    out = tmp_path / "overhead.json"
    result = run(tmp_path, out, "--lib", lib, "--rounds", 1, "--parts", "none", "--", sys.executable, "-c", "pass")
    assert result.returncode == 0, result.stderr
    v = json.loads(out.read_text())["variants"]
    assert v["plain"]["timed_by"] == "from outside" and v["plain"]["wall_s"] > 0 and v["none"]["batch_wait_s"] is None


@pytest.mark.parametrize("args, message", [
    (["--lib", "/no/such.so", "--", "true"], "--lib=/no/such.so: no such file"),
    (["--lib", "LIB"], "no command after `--`"),
    (["--lib", "LIB", "--parts", "gpu,kernels", "--", "true"], "--parts: unknown 'kernels'"),
    (["--lib", "LIB", "--rounds", "0", "--", "true"], "--rounds=0: between 1 and 100"),
    (["--lib", "LIB", "--warmup", "-1", "--", "true"], "--warmup=-1: between 0 and 10"),
])
def test_bad_usage_exits_2_and_says_why(tmp_path, program, args, message):
    _, lib = program
    result = run(tmp_path, tmp_path / "o.json", *[str(lib) if a == "LIB" else a for a in args])
    assert result.returncode == 2 and message in result.stderr and not (tmp_path / "o.json").exists()
