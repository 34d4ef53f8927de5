"""tools/profile_overhead.py: the command run plain and under the injection library with each
part of the recording on alone, round-robin, into one JSON file. Without a GPU the library
never loads, so a stand-in program here reports which part it was given (its environment)
and a wall time made from it: what is checked is the bookkeeping, never a timing (where a
run must take time, a sleep sets the least it takes, and a slower machine only takes longer)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TOOL = ROOT / "tools" / "profile_overhead.py"

# Prints a result line whose wall_s encodes the part it ran with; logs each run's environment.
# SLEEP_S: each run sleeps that long; HANG_RUN=N: the Nth run (warm-up included) sleeps 600 s.
PROGRAM = r"""
import os, sys, time
part = os.environ.get("HDBENCH_PROFILE_RECORD", "plain")
if "profile_site" in os.environ.get("PYTHONPATH", ""):  # Python's collections timed
    part += "+gc"
folder = os.environ.get("HDBENCH_PROFILE_DIR")
with open(sys.argv[1], "a") as log:
    log.write(f"{part} {os.environ.get('CUDA_INJECTION64_PATH', '-')} {bool(folder and os.path.isdir(folder))}\n")
with open(sys.argv[1]) as log:
    if sum(1 for _ in log) == int(os.environ.get("HANG_RUN", 0)):
        time.sleep(600)
time.sleep(float(os.environ.get("SLEEP_S", 0)))
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
    assert report["rounds_run"] == 2 and report["stopped"] is None and report["max_seconds"] is None
    v = report["variants"]
    assert list(v) == ["plain", "none", "gpu", "api", "nvtx", "gc", "all"]
    assert v["gc"]["ratio_to_plain"] == pytest.approx(1.015)
    assert v["plain"]["wall_s"] == 2.0 and v["plain"]["wall_s_runs"] == [2.0, 2.0]
    assert "ratio_to_plain" not in v["plain"]
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
    (["--lib", "LIB", "--max-seconds", "0", "--", "true"], "--max-seconds=0: a positive number of seconds"),
    (["--lib", "LIB", "--max-seconds", "-5", "--", "true"], "--max-seconds=-5: a positive number of seconds"),
    (["--lib", "LIB", "--max-seconds", "ten", "--", "true"], "--max-seconds=ten: a positive number of seconds"),
    (["--lib", "LIB", "--max-seconds", "nan", "--", "true"], "--max-seconds=nan: a positive number of seconds"),
])
def test_bad_usage_exits_2_and_says_why(tmp_path, program, args, message):
    _, lib = program
    result = run(tmp_path, tmp_path / "o.json", *[str(lib) if a == "LIB" else a for a in args])
    assert result.returncode == 2 and message in result.stderr and not (tmp_path / "o.json").exists()


def test_max_seconds_starts_no_round_that_would_end_past_it(tmp_path, program):
    """Each run sleeps 0.5 s, so round 1 (two runs, no warm-up: it always runs) takes at least
    1 s and round 2 would end at least 2 s in: past 1.9 s, however slow the machine."""
    path, lib = program
    out = tmp_path / "overhead.json"
    result = run(tmp_path, out, "--lib", lib, "--rounds", 3, "--parts", "none", "--warmup", 0, "--max-seconds", 1.9,
                 "--", sys.executable, path, tmp_path / "log", env={"SLEEP_S": "0.5"})
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    assert report["rounds"] == 3 and report["rounds_run"] == 1 and report["max_seconds"] == 1.9
    assert report["stopped"].startswith("round 2 of 3 not started: a round takes up to ")
    assert "and 1.9 s (--max-seconds) would pass" in report["stopped"] and report["stopped"] in result.stdout
    assert report["variants"]["plain"]["wall_s_runs"] == [2.0] and report["variants"]["none"]["wall_s_runs"] == [2.02]
    assert report["variants"]["none"]["ratio_to_plain"] == pytest.approx(1.01)


def test_max_seconds_prices_the_first_round_by_the_warm_up(tmp_path, program):
    """The warm-up's 0.5 s or more for each of two variants: round 1 would end 1.5 s in or later."""
    path, lib = program
    out = tmp_path / "overhead.json"
    result = run(tmp_path, out, "--lib", lib, "--rounds", 2, "--parts", "none", "--max-seconds", 1.4,
                 "--", sys.executable, path, tmp_path / "log", env={"SLEEP_S": "0.5"})
    assert result.returncode == 1  # nothing measured
    report = json.loads(out.read_text())
    assert report["rounds_run"] == 0 and report["warmup_wall_s_runs"] == [2.0]
    assert report["stopped"].startswith("round 1 of 2 not started: a round takes up to ")
    assert "(the warm-up's " in report["stopped"] and "for each of 2 runs)" in report["stopped"]
    assert report["variants"]["plain"]["wall_s_runs"] == [] and report["variants"]["none"]["ratio_to_plain"] is None


def test_a_generous_max_seconds_runs_every_round(tmp_path, program):
    path, lib = program
    out = tmp_path / "overhead.json"
    result = run(tmp_path, out, "--lib", lib, "--rounds", 2, "--parts", "all", "--max-seconds", 3600,
                 "--", sys.executable, path, tmp_path / "log")
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    assert report["rounds_run"] == 2 and report["stopped"] is None and report["max_seconds"] == 3600
    assert report["variants"]["all"]["wall_s_runs"] == [2.4, 2.4]


def test_a_kill_in_round_2_leaves_the_json_of_round_1(tmp_path, program):
    """The 4th run (a warm-up, round 1's two, then round 2's first) hangs; the tool is killed
    once round 1's JSON is there and that run has begun: the file holds round 1 whole."""
    path, lib = program
    out, log = tmp_path / "overhead.json", tmp_path / "log"
    tool = subprocess.Popen([sys.executable, str(TOOL), str(out), "--lib", str(lib), "--rounds", "2", "--parts", "none",
                             "--timeout", "900", "--", sys.executable, str(path), str(log)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "HANG_RUN": "4"},
                            start_new_session=True)  # its own process group: the hanging run goes with it
    try:
        deadline = time.monotonic() + 300  # generous: only a broken tool takes this long
        while not (log.is_file() and len(log.read_text().splitlines()) >= 4):
            assert tool.poll() is None, "the tool ended before round 2's first run"
            assert time.monotonic() < deadline, "round 2 never began"
            time.sleep(0.1)
    finally:
        os.killpg(tool.pid, signal.SIGKILL)
        tool.wait(timeout=60)
    report = json.loads(out.read_text())
    assert report["rounds"] == 2 and report["rounds_run"] == 1
    assert report["stopped"].startswith("round 2 of 2 under way when written")
    v = report["variants"]
    assert v["plain"]["wall_s_runs"] == [2.0] and v["none"]["wall_s_runs"] == [2.02]
    assert v["none"]["ratio_to_plain"] == pytest.approx(1.01) and v["plain"]["failed_runs"] == 0
    assert not out.with_name(out.name + ".tmp").exists()
