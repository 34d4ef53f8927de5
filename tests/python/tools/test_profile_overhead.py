"""tools/profile_overhead.py: the command run plain and under the injection library with each
part of the recording on alone, round-robin, into one JSON file. Without a GPU the library
never loads, so a stand-in program here reports which part it was given (its environment)
and a wall time made from it: what is checked is the bookkeeping, never a timing (where a
run must take time, a sleep sets the least it takes, and a slower machine only takes longer)."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hdreport.profile import overhead
from profile_fixtures import INJECTION_LIBRARY_STAND_IN

ROOT = Path(__file__).resolve().parents[3]
TOOL = ROOT / "tools" / "profile_overhead.py"

# Prints a result line whose wall_s encodes the part it ran with; logs each run's environment.
# SLEEP_S: each run sleeps that long; HANG_RUN=N: the Nth run (warm-up included) sleeps 600 s,
# and so does a child it starts, their pids written to the file HANG_PIDS (whole, renamed).
PROGRAM = r"""
import os, subprocess, sys, time
part = os.environ.get("HDBENCH_PROFILE_RECORD", "plain")
if "profile_site" in os.environ.get("PYTHONPATH", ""):  # Python's collections timed
    part += "+gc"
folder = os.environ.get("HDBENCH_PROFILE_DIR")
with open(sys.argv[1], "a") as log:
    log.write(f"{part} {os.environ.get('CUDA_INJECTION64_PATH', '-')} {bool(folder and os.path.isdir(folder))}\n")
with open(sys.argv[1]) as log:
    if sum(1 for _ in log) == int(os.environ.get("HANG_RUN", 0)):
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open(os.environ["HANG_PIDS"] + ".part", "w") as pids:
            pids.write(f"{os.getpid()} {child.pid}")
        os.rename(os.environ["HANG_PIDS"] + ".part", os.environ["HANG_PIDS"])
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
    lib.write_bytes(INJECTION_LIBRARY_STAND_IN)
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
    (["--lib", "/no/such.so", "--", "true"], "--lib: the injection library /no/such.so was not found"),
    (["--lib", __file__, "--", "true"], f"--lib: the injection library {__file__} is not a 64-bit shared library"),
    (["--lib", "LIB"], "no command after `--`"),
    (["--lib", "LIB", "--parts", "gpu,kernels", "--", "true"], "--parts: unknown 'kernels'"),
    (["--lib", "LIB", "--rounds", "0", "--", "true"], "--rounds=0: between 1 and 100"),
    (["--lib", "LIB", "--warmup", "-1", "--", "true"], "--warmup=-1: between 0 and 10"),
    (["--lib", "LIB", "--max-seconds", "0", "--", "true"], "--max-seconds=0: a positive number of seconds"),
    (["--lib", "LIB", "--max-seconds", "-5", "--", "true"], "--max-seconds=-5: a positive number of seconds"),
    (["--lib", "LIB", "--max-seconds", "ten", "--", "true"], "--max-seconds=ten: a positive number of seconds"),
    (["--lib", "LIB", "--max-seconds", "nan", "--", "true"], "--max-seconds=nan: a positive number of seconds"),
    (["--lib", "LIB", "--timeout", "inf", "--", "true"], "--timeout: a positive number of seconds, at most a day"),
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


def start_hanging_in_round_2(tmp_path, program) -> tuple[subprocess.Popen, Path, list[int]]:
    """The tool started (its /tmp in tmp_path/tmp) with the 4th run (a warm-up, round 1's two,
    then round 2's first) hanging, a child of its own beside it; returned once that run has
    begun: the tool, OUT and the hanging run's pids (its own, its child's)."""
    path, lib = program
    out, pids = tmp_path / "overhead.json", tmp_path / "hang.pids"
    (tmp_path / "tmp").mkdir()
    tool = subprocess.Popen([sys.executable, str(TOOL), str(out), "--lib", str(lib), "--rounds", "2", "--parts", "none",
                             "--timeout", "900", "--", sys.executable, str(path), str(tmp_path / "log")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "HANG_RUN": "4", "HANG_PIDS": str(pids),
                                 "TMPDIR": str(tmp_path / "tmp")})
    deadline = time.monotonic() + 300  # generous: only a broken tool takes this long
    while not pids.is_file():
        if tool.poll() is not None or time.monotonic() > deadline:
            os.killpg(tool.pid, signal.SIGKILL)
            pytest.fail(f"round 2's first run never began: {tool.communicate()[1]}")
        time.sleep(0.1)
    return tool, out, [int(p) for p in pids.read_text().split()]


def gone(pid: int) -> bool:
    """Whether process `pid` has ended (a zombie not yet reaped by its new parent has)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True


def assert_round_1_whole(out: Path) -> None:
    report = json.loads(out.read_text())
    assert report["rounds"] == 2 and report["rounds_run"] == 1
    assert report["stopped"].startswith("round 2 of 2 under way when written")
    v = report["variants"]
    assert v["plain"]["wall_s_runs"] == [2.0] and v["none"]["wall_s_runs"] == [2.02]
    assert v["none"]["ratio_to_plain"] == pytest.approx(1.01) and v["plain"]["failed_runs"] == 0
    assert [p.name for p in out.parent.iterdir() if p.name.startswith(".")] == []  # no temp file beside it


def test_a_kill_in_round_2_leaves_the_json_of_round_1(tmp_path, program):
    """SIGKILL, to the tool's whole process group: the file holds round 1 whole. The run under
    way is in a process group of its own, so it is left (nothing can end it on SIGKILL): the
    test ends it."""
    tool, out, (run_pid, _) = start_hanging_in_round_2(tmp_path, program)
    try:
        os.killpg(tool.pid, signal.SIGKILL)
        tool.wait(timeout=60)
    finally:
        try:
            os.killpg(run_pid, signal.SIGKILL)  # the run and its child
        except ProcessLookupError:
            pass
    assert_round_1_whole(out)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_in_round_2_ends_the_run_and_its_children_and_leaves_no_folder(tmp_path, program, signum):
    """SIGTERM or SIGINT to the tool alone (a caller's kill, Ctrl-C): the run under way and
    what it started are ended, not left running reparented; the runs' folder in /tmp goes;
    the file holds round 1 whole; one line, and 128 + the signal as the exit status (it
    was a traceback on SIGINT, and SIGTERM left the run going and the folder there)."""
    tool, out, pids = start_hanging_in_round_2(tmp_path, program)
    try:
        os.kill(tool.pid, signum)
        _, err = tool.communicate(timeout=60)
        deadline = time.monotonic() + 60  # the child, reparented, is reaped by its new parent
        while not all(gone(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert all(gone(pid) for pid in pids), "the run or its child is still running"
    finally:
        for pid in pids:
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)
        if tool.poll() is None:
            os.killpg(tool.pid, signal.SIGKILL)
    assert tool.returncode == 128 + signum, err
    assert err.splitlines() == [f"profile_overhead.py: stopped by {signal.Signals(signum).name}: {out} holds the "
                                "rounds done before it"]
    assert list((tmp_path / "tmp").iterdir()) == []
    assert_round_1_whole(out)


# ---- the verdict: an interval from the runs, and "cannot tell" where it holds the target ----

def test_t_is_the_table_at_whole_degrees_and_between_them_elsewhere():
    assert overhead.t95(1) == 12.706 and overhead.t95(2) == 4.303 and overhead.t95(30) == 2.042
    assert 4.303 < overhead.t95(1.5) < 12.706 and overhead.t95(math.inf) == 1.96
    assert 1.96 < overhead.t95(200) < overhead.t95(40) < 2.042


def test_the_interval_and_verdict_hand_worked():
    """Log times 0 and 0.2 plain, 0.3 and 0.5 recorded: a ratio of e^0.3, each set's variance
    0.02, Welch's standard error 0.1414 with 2 degrees of freedom (t 4.303): e^(0.3 +- 0.6086).
    Against 1.05 the interval holds the target; at this spread 4 runs of each would tell
    (t(6) 2.447 x sqrt(0.04 / 4) = 0.2447 under the distance 0.3 - ln 1.05 = 0.2512; 3 runs:
    t(4) 2.776 x sqrt(0.04 / 3) = 0.3206, not under it)."""
    plain, recorded = [1.0, math.exp(0.2)], [math.exp(0.3), math.exp(0.5)]
    judged = overhead.judge(plain, recorded, 1.05)
    assert judged["ratio_gmean"] == pytest.approx(math.exp(0.3))
    assert judged["ratio_interval_95"] == pytest.approx([math.exp(0.3 - 0.6086), math.exp(0.3 + 0.6086)], rel=1e-3)
    assert judged["verdict"] == "cannot tell" and judged["runs_to_tell"] == 4
    assert judged["why"] == "1.05x is inside the 95% interval: about 4 runs of each would tell, at this spread"
    assert overhead.judge(plain, recorded, 3.0)["verdict"] == "met"
    assert overhead.judge(plain, recorded, 0.5)["verdict"] == "missed"
    assert "target" not in overhead.judge(plain, recorded, None)


def test_runs_that_agree_give_a_point_and_a_verdict_either_way():
    assert overhead.judge([2.0, 2.0], [2.4, 2.4], 1.05) | {"ratio_gmean": None} == {
        "ratio_gmean": None, "ratio_interval_95": [pytest.approx(1.2), pytest.approx(1.2)], "target": 1.05,
        "verdict": "missed", "why": "the whole 95% interval is over 1.05x", "runs_to_tell": None}
    assert overhead.judge([2.0, 2.0], [2.03, 2.03], 1.05)["verdict"] == "met"


def test_one_run_or_a_failed_one_is_not_an_interval():
    assert overhead.judge([2.0], [2.4, 2.5], 1.05)["verdict"] == "cannot tell"
    assert overhead.judge([2.0, None], [2.4, 2.5], 1.05)["why"] == "fewer than two runs of plain or of the recording"
    assert overhead.ratio_interval([2.0, 2.1, None], [2.4, 2.5]) is not None
    assert overhead.runs_to_tell([1.0, 1.2], [1.05, 1.05 * 1.2], 1.05) is None  # the ratio is the target


def test_a_spread_this_wide_says_no_count_of_runs_will_do():
    plain, recorded = [2.0, 3.0, 2.5], [2.6, 2.0, 3.1]  # a ratio near 1.05, spread over 20%
    judged = overhead.judge(plain, recorded, 1.05)
    assert judged["verdict"] == "cannot tell" and (judged["runs_to_tell"] is None or judged["runs_to_tell"] > 100)


def test_the_h100_tutorial_overhead_of_2026_11_28b_could_not_tell_1_05x():
    """Two rounds read 1.25x by the medians: the interval 0.88-1.78x holds 1.05x, and at
    their spread about three runs of each would tell (what the next lease runs)."""
    reference = ROOT / "reports" / "reference" / "h100-2026-11-28b" / "overhead" / "overhead-tutorial.json"
    result = subprocess.run([sys.executable, str(TOOL), "--judge", str(reference), "--target", "1.05"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "| all | 4.313 s | 4.480, 4.146 | 2.630 s | 1.250 | 1.251 (0.879-1.781): cannot tell |" in result.stdout
    assert "- all: 1.05x is inside the 95% interval: about 3 runs of each would tell" in result.stdout


def test_a_target_judges_every_recording_in_the_json_and_the_table(tmp_path, program):
    path, lib = program
    out = tmp_path / "overhead.json"
    result = run(tmp_path, out, "--lib", lib, "--rounds", 2, "--parts", "gc,all", "--target", "1.05",
                 "--", sys.executable, path, tmp_path / "log")
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    assert report["target"] == 1.05
    v = report["variants"]
    assert v["all"]["verdict"] == "missed" and v["all"]["ratio_gmean"] == pytest.approx(1.2)
    assert v["gc"]["verdict"] == "met" and v["gc"]["ratio_interval_95"] == [pytest.approx(1.015)] * 2
    assert "verdict" not in v["plain"]
    assert "| all | 2.400 s | 2.400, 2.400 | 1.200 s | 1.200 | 1.200 (1.200-1.200): missed |" in result.stdout
    judged = run(tmp_path, "--judge", out, "--target", "1.3")
    assert judged.returncode == 0 and "1.200 (1.200-1.200): met |" in judged.stdout


@pytest.mark.parametrize("args, message", [
    (["--judge", "J", "--target", "0"], "--target=0: a ratio to plain above 0"),
    (["--judge", "J", "--target", "fast"], "--target=fast: a ratio to plain above 0"),
    (["--judge", "J", "--lib", "x.so"], "--judge runs nothing"),
    (["--judge", "J", "--", "true"], "--judge runs nothing"),
    (["--", "true"], "give the JSON file to write (or --judge OLD.json)"),
    (["o.json", "--", "true"], "--lib: give libhdbench_inject.so"),
])
def test_bad_judge_or_target_usage_exits_2(tmp_path, args, message):
    (tmp_path / "J").write_text("{}")
    result = run(tmp_path, *[str(tmp_path / "J") if a == "J" else a for a in args])
    assert result.returncode == 2 and message in result.stderr


def test_an_out_that_cannot_take_the_json_is_said_before_the_warm_up(tmp_path, program):
    """Not at the first save, after minutes of runs; and never over the command's script."""
    path, lib = program
    script = path.read_text()
    (tmp_path / "adir").mkdir()
    for out, message in [(path, "is also an input"), (tmp_path / "adir", "is a folder")]:
        result = run(tmp_path, out, "--lib", lib, "--rounds", 1, "--parts", "none", "--", sys.executable, path,
                     tmp_path / "log")
        assert result.returncode == 2 and message in result.stderr, result.stderr
        assert not (tmp_path / "log").exists() and path.read_text() == script
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir", "libfake_inject.so", "program.py"]


@pytest.mark.parametrize("line, timed_by", [("t: wall_s=1.2.3", "from outside"), ("t: wall_s=.", "from outside"),
                                            ("t: wall_s=1.25 \xff", "wall_s printed")])
def test_a_result_line_that_is_not_a_number_is_timed_from_outside(tmp_path, program, line, timed_by):
    _, lib = program
    out = tmp_path / "o.json"
    code = f"import sys; sys.stdout.buffer.write({line.encode('latin-1')!r} + b'\\n')"
    result = run(tmp_path, out, "--lib", lib, "--rounds", 1, "--parts", "none", "--", sys.executable, "-c", code)
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text())["variants"]["plain"]["timed_by"] == timed_by


@pytest.mark.parametrize("change", ["huge", "no_batch_wait", "string_wall"])
def test_judging_a_damaged_file_exits_2_in_one_line(tmp_path, program, change):
    path, lib = program
    out = tmp_path / "o.json"
    assert run(tmp_path, out, "--lib", lib, "--rounds", 2, "--parts", "none", "--", sys.executable, path,
               tmp_path / "log").returncode == 0
    result = json.loads(out.read_text())
    plain = result["variants"]["plain"]
    if change == "huge":  # an interval past what a float holds
        result["variants"]["none"]["wall_s_runs"] = [1e-300, 1e308]
    elif change == "no_batch_wait":
        del plain["batch_wait_s"]
    else:
        plain["wall_s"] = "2.0"
    out.write_text(json.dumps(result))
    judged = run(tmp_path, "--judge", out)
    assert judged.returncode == 2 and "not a file this tool wrote" in judged.stderr, judged.stderr
    assert "Traceback" not in judged.stderr


@pytest.mark.parametrize("change, says", [
    (lambda r: r.update(target=-1), "target -1: a ratio to plain above 0"),
    (lambda r: r["variants"]["plain"].update(wall_s_runs=[0, 0]), "variants.plain.wall_s_runs: 0 is not a time"),
    (lambda r: r["variants"]["none"].update(wall_s_runs=[-2.0, 1.0]), "variants.none.wall_s_runs: -2.0 is not a"),
])
def test_judging_a_file_of_nonsense_times_or_target_is_refused(tmp_path, program, change, says):
    """A file's own target of -1 was judged "missed", and runs of 0 s were ratios."""
    path, lib = program
    out = tmp_path / "o.json"
    assert run(tmp_path, out, "--lib", lib, "--rounds", 2, "--parts", "none", "--", sys.executable, path,
               tmp_path / "log").returncode == 0
    result = json.loads(out.read_text())
    change(result)
    out.write_text(json.dumps(result))
    judged = run(tmp_path, "--judge", out)
    assert judged.returncode == 2 and says in judged.stderr and judged.stderr.count("\n") == 1, judged.stderr


def test_judging_a_file_this_tool_did_not_write_exits_2(tmp_path):
    (tmp_path / "other.json").write_text('{"benchmarks": []}')
    result = run(tmp_path, "--judge", tmp_path / "other.json")
    assert result.returncode == 2 and "not a file this tool wrote" in result.stderr


OFF_CPU_PROGRAM = """import os
recorded = "HDBENCH_PROFILE_RECORD" in os.environ
print(f"t: wall_s={3.0 if recorded else 2.5} batch_wait_s=1.5 rest_off_cpu_s={0.4 if recorded else 0.3} "
      f"batch_wait_off_cpu_s={0.2 if recorded else 0.1}")
"""

# Whole runs 2.5-3.5 s either way (the host's slow stretches), the fastest stretch 3.0 ms a step
# plain and 3.06 recorded in every run: the walls cannot tell 1.05x, the fastest stretches can.
PACE_PROGRAM = """import os, sys
recorded = "HDBENCH_PROFILE_RECORD" in os.environ
with open(sys.argv[1], "a+") as log:
    log.seek(0)
    n = len(log.read().splitlines())
    log.write("run\\n")
wall = (2.5, 2.5, 3.6, 2.6, 3.5, 3.0, 3.1)[n % 7]  # the warm-up, then plain 2.5, 3.5, 3.0 and all 3.6, 2.6, 3.1
print(f"t: wall_s={wall} batch_wait_s=1.5 pace_spread=1.4 pace_best_ms={3.06 if recorded else 3.0}")
"""


def test_the_fastest_stretches_are_judged_as_the_walls_are(tmp_path, program):
    path = tmp_path / "pace.py"
    path.write_text(PACE_PROGRAM)
    _, lib = program
    out = tmp_path / "overhead.json"
    result = run(tmp_path, out, "--lib", lib, "--rounds", 3, "--parts", "all", "--target", "1.05", "--",
                 sys.executable, path, tmp_path / "runs.log")
    assert result.returncode == 0, result.stderr
    v = json.loads(out.read_text())["variants"]
    assert v["plain"]["pace_best_ms_runs"] == [3.0, 3.0, 3.0] and v["all"]["pace_best_ms_runs"] == [3.06] * 3
    assert v["all"]["verdict"] == "cannot tell"  # whole runs 2.5-3.5 s on both sides
    assert v["all"]["pace_best"]["verdict"] == "met" and v["all"]["pace_best"]["ratio_gmean"] == pytest.approx(1.02)
    assert v["plain"]["pace_spread"] == 1.4 and "pace_best" not in v["plain"]
    assert "the fastest stretches × plain (95%)" in result.stdout and "1.020 (1.020-1.020): met |" in result.stdout


def test_the_time_off_the_cpu_is_kept_where_the_command_gives_it(tmp_path, program):
    """tutorial_style.py's line gives the training thread's time off the CPU in its batch
    waits and in the rest: each variant keeps their medians, and the table shows them."""
    path = tmp_path / "offcpu.py"
    path.write_text(OFF_CPU_PROGRAM)
    _, lib = program
    out = tmp_path / "overhead.json"
    result = run(tmp_path, out, "--lib", lib, "--rounds", 2, "--parts", "all", "--", sys.executable, path)
    assert result.returncode == 0, result.stderr
    v = json.loads(out.read_text())["variants"]
    assert v["plain"]["batch_wait_off_cpu_s"] == 0.1 and v["plain"]["rest_off_cpu_s"] == 0.3
    assert v["all"]["batch_wait_off_cpu_s"] == 0.2 and v["all"]["rest_off_cpu_s"] == 0.4
    assert "| plain | 2.500 s | 2.500, 2.500 | 1.500 s | 0.100 s, 0.300 s | – |  |" in result.stdout


def test_an_out_that_is_the_library_is_refused(tmp_path, program):
    """OUT naming --lib wrote the JSON over the library at the first save."""
    path, lib = program
    library = lib.read_bytes()
    result = run(tmp_path, lib, "--lib", lib, "--rounds", 1, "--parts", "none", "--", sys.executable, path,
                 tmp_path / "log")
    assert result.returncode == 2 and "is also an input" in result.stderr, result.stderr
    assert lib.read_bytes() == library and not (tmp_path / "log").exists()


@pytest.mark.parametrize("stdout", ["full", "closed pipe"])
def test_a_standard_output_that_fails_ends_no_measurement(tmp_path, program, stdout):
    """`>/dev/full` failed at the first progress line, before any file was written, and
    `| head -c1` at a later one: the runs go on, OUT is written, one line says so."""
    path, lib = program
    out = tmp_path / "overhead.json"
    command = [sys.executable, str(TOOL), str(out), "--lib", str(lib), "--rounds", "2", "--parts", "none", "--",
               sys.executable, str(path), str(tmp_path / "log")]
    if stdout == "full":
        with open("/dev/full", "w") as full:
            result = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    else:
        read, write = os.pipe()
        os.close(read)
        try:
            result = subprocess.run(command, stdout=write, stderr=subprocess.PIPE, text=True, timeout=120)
        finally:
            os.close(write)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("profile_overhead.py: cannot write the progress: ")
    report = json.loads(out.read_text())
    assert report["rounds_run"] == 2 and report["variants"]["none"]["wall_s_runs"] == [2.02, 2.02]


def strict_json(text: str):
    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")
    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("wall", ["9" * 400, "0", "0.0", "0." + "0" * 400 + "1", "1" + "0" * 20])
def test_a_printed_wall_time_that_is_not_a_time_fails_the_run(tmp_path, program, wall):
    """400 digits read as inf: written into OUT (not JSON), the interval then failed after
    every round with the file saying a round was under way; 0 was kept, and --judge refused
    the tool's own file. Each is a run that failed; an extra field so is left out."""
    _, lib = program
    out = tmp_path / "o.json"
    code = f"print('t: wall_s={wall} batch_wait_s={'9' * 400}')"
    result = run(tmp_path, out, "--lib", lib, "--rounds", 2, "--parts", "none", "--", sys.executable, "-c", code)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "   failed: it printed wall_s=" in result.stdout
    report = strict_json(out.read_text())
    assert report["stopped"] is None and report["rounds_run"] == 2
    assert all(v["wall_s"] is None and v["failed_runs"] == 2 for v in report["variants"].values())
    judged = run(tmp_path, "--judge", out)
    assert judged.returncode == 0, judged.stderr


def test_an_extra_field_past_a_float_is_left_out(tmp_path, program):
    _, lib = program
    out = tmp_path / "o.json"
    code = f"print('t: wall_s=1.5 batch_wait_s={'9' * 400} pace_best_ms=0')"
    result = run(tmp_path, out, "--lib", lib, "--rounds", 2, "--parts", "none", "--", sys.executable, "-c", code)
    assert result.returncode == 0, result.stderr
    v = strict_json(out.read_text())["variants"]
    assert v["none"]["wall_s_runs"] == [1.5, 1.5] and v["none"]["batch_wait_s"] is None
    assert "pace_best_ms_runs" not in v["none"]


@pytest.mark.parametrize("args, message", [
    (["--parts", "none,none", "--", "true"], "--parts: none given more than once"),
    (["--parts", "gpu,none,gpu", "--", "true"], "--parts: gpu given more than once"),
])
def test_a_part_given_twice_is_bad_usage(tmp_path, program, args, message):
    """It ran twice a round into one list of runs."""
    _, lib = program
    result = run(tmp_path, tmp_path / "o.json", "--lib", lib, *args)
    assert result.returncode == 2 and message in result.stderr and not (tmp_path / "o.json").exists(), result.stderr


def test_judging_an_empty_path_is_bad_usage(tmp_path):
    """It was read as `.`: "--judge .: cannot read: Is a directory"."""
    result = run(tmp_path, "--judge", "")
    assert result.returncode == 2 and "--judge: give the path of a file this tool wrote" in result.stderr


def test_a_path_with_a_line_break_is_said_in_one_line(tmp_path, program):
    path, lib = program
    judged = run(tmp_path, "--judge", tmp_path / "no\nsuch.json")
    assert judged.returncode == 2 and judged.stderr.count("\n") == 1 and "no\\nsuch.json" in judged.stderr
    folder = tmp_path / "a\nfolder"
    folder.mkdir()
    result = run(tmp_path, folder, "--lib", lib, "--", sys.executable, path, tmp_path / "log")
    error = result.stderr.splitlines()[-1]
    assert result.returncode == 2 and error.endswith("a\\nfolder: is a folder"), result.stderr
