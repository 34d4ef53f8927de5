"""The one-call GPU checks (tools/roof_gpu_check.sh and tools/profile_gpu_check.sh, both on
tools/gpu_budget.sh) on a bundle of stand-ins, no GPU needed: every step is run and logged,
each step's time is cut to what is left of the call's budget, the steps after it are
skipped, and the results come back whatever happens, since a GPU call cut by its own limit
returns nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from profile_fixtures import INJECTION_LIBRARY_STAND_IN

ROOT = Path(__file__).resolve().parents[3]
STAND_IN = """#!/bin/sh
# Sleeps $STAND_IN_SLEEP seconds, says how it was called, writes the --hdbench_out/--out file it is given.
sleep "${STAND_IN_SLEEP:-0}"
echo "$(basename "$0") $*"
for arg in "$@"; do
  case $arg in --hdbench_out=*) echo '{}' > "${arg#--hdbench_out=}" ;; esac
done
"""


def bundle(tmp_path: Path) -> Path:
    """A bundle as tools/make_bundle.sh lays it out, its binaries stand-ins."""
    b = tmp_path / "bundle"
    (b / "lib").mkdir(parents=True)
    shutil.copytree(ROOT / "tools", b / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "probes" / "python_gc", b / "probes" / "python_gc",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (b / "bin").mkdir()
    for path in (b / "hdbench", b / "hdbench_gpu_tests", b / "bin" / "compute-sanitizer"):
        path.write_text(STAND_IN)
        path.chmod(0o755)
    (b / "baselines" / "pytorch").mkdir(parents=True)
    (b / "baselines" / "pytorch" / "pytorch_baseline.py").write_text("print('baseline stand-in')\n")
    (b / "examples" / "fashion_mnist").mkdir(parents=True)
    return b


def run(script: Path, out: Path, budget: int, sleep: float, *args: str,
        **extra_env: str) -> tuple[subprocess.CompletedProcess, float]:
    env = dict(os.environ, BUDGET_S=str(budget), STAND_IN_SLEEP=str(sleep), **extra_env)
    env["PATH"] = f"{script.parent.parent / 'bin'}:{env['PATH']}"  # the compute-sanitizer stand-in
    start = time.monotonic()
    result = subprocess.run(["bash", str(script), str(out), *args], capture_output=True, text=True, env=env,
                            timeout=budget + 60)
    return result, time.monotonic() - start


def steps_of(out: Path) -> dict[str, str]:
    lines = (out / "timings.txt").read_text().splitlines()
    return {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in lines if not line.startswith("total")}


ROOF_STEPS = ["fused_tests", "fused_memcheck", "fused_racecheck", "fused_synccheck", "gpu_small", "gpu_large",
              "gemm_layouts", "pytorch_gpu_small", "pytorch_gpu_large", "cpu_steps", "pytorch_cpu", "loader",
              "loader_traced", "staged"]


def test_the_roof_check_runs_every_step_and_brings_its_results_back(tmp_path):
    b = bundle(tmp_path)
    result, _ = run(b / "tools" / "roof_gpu_check.sh", tmp_path / "out", 300, 0)
    assert result.returncode == 0, result.stderr
    steps = steps_of(tmp_path / "out")
    assert list(steps) == ROOF_STEPS
    assert steps["gpu_small"].startswith("rc=0") and steps["fused_tests"].startswith("rc=0")
    with tarfile.open(tmp_path / "out" / "results.tgz") as tar:
        names = {Path(n).name for n in tar.getnames()}
    assert {"gpu-small.json", "gpu_small.log", "cpu.json", "staged.json", "gpu.txt"} <= names
    log = (tmp_path / "out" / "timings.txt").read_text()
    assert "total" in log


def test_the_roof_check_leaves_the_sanitizers_out_when_asked(tmp_path):
    """ROOF_SANITIZERS=0: a lease's last minutes go to the rows beside PyTorch."""
    result, _ = run(bundle(tmp_path) / "tools" / "roof_gpu_check.sh", tmp_path / "out", 300, 0, ROOF_SANITIZERS="0")
    assert result.returncode == 0, result.stderr
    assert list(steps_of(tmp_path / "out")) == [s for s in ROOF_STEPS if not s.startswith("fused_") or
                                                s == "fused_tests"]


def test_only_the_steps_named_run_and_a_name_no_step_has_is_said(tmp_path):
    """ONLY_STEPS: a short call spent on the rows that never ran; a typo would skip them all."""
    result, _ = run(bundle(tmp_path) / "tools" / "roof_gpu_check.sh", tmp_path / "out", 300, 0,
                    ONLY_STEPS="loader staged loader_trace")
    assert result.returncode == 0, result.stderr
    steps = steps_of(tmp_path / "out")
    assert [name for name in ROOF_STEPS if steps[name].startswith("rc=0")] == ["loader", "staged"]
    assert all(steps[name] == "SKIPPED (not in ONLY_STEPS)" for name in ROOF_STEPS if name not in ("loader", "staged"))
    assert "ONLY_STEPS: no step of this call is called loader_trace" in (tmp_path / "out" / "timings.txt").read_text()
    with tarfile.open(tmp_path / "out" / "results.tgz") as tar:
        names = {Path(n).name for n in tar.getnames()}
    assert {"loader.json", "staged.json"} <= names and "gpu-small.json" not in names


def test_a_spent_budget_cuts_the_step_in_flight_and_skips_the_rest(tmp_path):
    b = bundle(tmp_path)
    # Each stand-in takes 20 s: a 35 s budget runs the first step whole, cuts the second when
    # the budget ends (about 15 s in) and skips the rest.
    # the budget kept is in the steps' outcomes, not the wall time (a slow machine's set-up adds to it)
    result, _ = run(b / "tools" / "roof_gpu_check.sh", tmp_path / "out", 35, 20)
    assert result.returncode == 0, result.stderr
    steps = steps_of(tmp_path / "out")
    assert steps["fused_tests"].startswith("rc=0")
    assert steps["fused_memcheck"].startswith("rc=124")  # cut by `timeout` at the budget's end
    assert all(steps[name] == "SKIPPED (budget spent)" for name in ROOF_STEPS[2:])
    assert (tmp_path / "out" / "results.tgz").is_file()


@pytest.mark.parametrize("quick", ["1", "0"])
def test_the_profile_check_logs_every_step_without_a_gpu(tmp_path, quick):
    b = bundle(tmp_path)
    result, _ = run(b / "tools" / "profile_gpu_check.sh", tmp_path / "out", 120, 0, "10", "1", QUICK_ABLATION=quick)
    assert result.returncode == 0, result.stderr
    steps = steps_of(tmp_path / "out")
    expected = ["baseline", "prof_tutorial", "prof_well", "prof_well_eager", "ablation", "verify"] + \
        (["trace_tests"] if quick == "0" else []) + ["prof_tutorial_all"]  # no all-fixed profile: no verify_fixed
    assert list(steps)[:len(expected)] == expected, list(steps)
    assert (tmp_path / "out" / "results.tgz").is_file()


def test_the_profile_check_ends_with_a_digest_of_what_ran(tmp_path):
    """The call's output comes back whole only in its tail: the profile check ends with the
    digest, which says what is missing without failing."""
    b = bundle(tmp_path)
    result, _ = run(b / "tools" / "profile_gpu_check.sh", tmp_path / "out", 120, 0, "10", "1", QUICK_ABLATION="1",
                    DEFAULT_PRESET="0")
    assert result.returncode == 0, result.stderr
    tail = result.stdout[result.stdout.index("== lease digest =="):]
    assert "result lines:\n  no example's result line in the logs" in tail and "verify:\n" in tail


def test_the_digest_says_what_ran_which_variants_and_which_verdicts_missed(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "prof_well.log").write_text(
        "hdbench_profile: recording\nwell_written: steps=1000 batch=256 hidden=512 device=cuda data=fashion-mnist "
        "wall_s=1.342 steps_per_s=745.2 final_loss=0.3 mean_loss=0.5432 batch_wait_s=0.25 step=graph\n")
    variants = {"plain": {"wall_s": 3.2, "mean_loss": 0.5432}, "fix_graph": {"wall_s": 2.1, "mean_loss": 2.3026,
                                                                          "step": "graph"},
                "well_eager": {"failed": True},
                "fix_workers": {"wall_s": 2.9, "mean_loss": 0.5432, "first_batch_s": 0.041,
                                "start_parts_s": {"forking": 0.02, "index_wait": 0.004, "first_build": 0.006,
                                                  "hand_over": 0.011}}}
    (work / "ablation.json").write_text(json.dumps({"repeat": 2, "workers": 3, "variants": variants}))
    (work / "verify.log").write_text("# title\n\n**3 of 5 held, 1 missed**, 1 not measured.\n\n| fixed | … |\n"
                                     "| `--fix pin` alone | x | 1 s | – | held |\n"
                                     "| `--fix graph` alone | y | – | – | not measured |\n"
                                     "| `--fix all` (the model) | z | 1 s | – | missed (+53%) |\n")
    (work / "ablation-sync.json").write_text("{not json")
    handover = {"measured": True, "batch_s": 0.00123, "workers_start_s": 0.0452, "start_workers": 3,
                "start_footprint_bytes": 1_234_000_000, "start_footprint_measure": "VmRSS"}
    (work / "prof-tutorial.json").write_text(json.dumps({"profile": {"model": {"handover": handover}}}))
    (work / "prof-well.json").write_text(json.dumps({"profile": {"model": {"handover": {"measured": False}}}}))
    result = subprocess.run([sys.executable, ROOT / "tools" / "lease_digest.py", work], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "  prof_well: well_written wall_s=1.342 mean_loss=0.5432 step=graph" in result.stdout
    assert "  ablation.json (2 rounds, 3 workers): plain 3.2 s, fix_graph 2.1 s graph, well_eager FAILED, " \
        "fix_workers 2.9 s (first batch 0.041 s: forking 20.0 ms, index wait 4.0 ms, first build 6.0 ms, " \
        "hand over 11.0 ms)" in result.stdout
    assert "    fix_graph trained to other losses: mean loss 2.3026 against plain's 0.5432" in result.stdout
    assert "  ablation-sync.json: unreadable" in result.stdout
    assert "probe:\n  prof-tutorial: a batch 1.23 ms, starting 3 workers 45.2 ms holding 1234 MB (VmRSS)\n" in \
        result.stdout and "prof-well" not in result.stdout
    assert "  verify.log: **3 of 5 held, 1 missed**, 1 not measured." in result.stdout
    assert "    | `--fix graph` alone | y | – | – | not measured |" in result.stdout
    assert "missed (+53%)" in result.stdout and "`--fix pin`" not in result.stdout
    usage = subprocess.run([sys.executable, ROOT / "tools" / "lease_digest.py"], capture_output=True, text=True)
    assert usage.returncode == 2 and "usage:" in usage.stderr
    typo = subprocess.run([sys.executable, ROOT / "tools" / "lease_digest.py", work / "nope"], capture_output=True,
                          text=True)
    assert typo.returncode == 2 and "nope: not a folder" in typo.stderr


def test_the_digest_prints_every_line_it_can_whatever_a_damaged_file_holds(tmp_path):
    """It is a call's last step: a file of another shape says so in its line, never a traceback."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "ablation-a.json").write_text(json.dumps({"variants": [1, 2]}))
    (work / "ablation-b.json").write_text(json.dumps({"variants": {"plain": 3}}))
    (work / "prof-x.json").write_text(json.dumps({"profile": {"model": {"handover": {"measured": True}}}}))
    (work / "verify.log").mkdir()
    (work / "run.log").write_text("well_written: steps=10 wall_s=1.000\n")
    result = subprocess.run([sys.executable, ROOT / "tools" / "lease_digest.py", work], capture_output=True, text=True)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    for name in ("ablation-a.json", "ablation-b.json", "prof-x.json", "verify.log"):
        assert f"  {name}: unreadable (" in result.stdout
    assert "  run: well_written wall_s=1.000" in result.stdout


EXAMPLE_STAND_IN = """import sys
print(f"{sys.argv[0].rsplit('/', 1)[-1][:-3]}: steps=10 wall_s=1.000 batch_wait_s=0.100")
"""


def test_the_overhead_check_runs_every_step_and_brings_its_results_back(tmp_path):
    b = bundle(tmp_path)
    (b / "lib" / "libhdbench_inject.so").write_bytes(INJECTION_LIBRARY_STAND_IN)
    for name in ("well_written", "tutorial_style"):
        (b / "examples" / "fashion_mnist" / f"{name}.py").write_text(EXAMPLE_STAND_IN)
    result, _ = run(b / "tools" / "overhead_gpu_check.sh", tmp_path / "out", 200, 0, "10")
    assert result.returncode == 0, result.stderr
    steps = steps_of(tmp_path / "out")
    assert list(steps) == ["overhead_well", "overhead_tutorial", "gpu_large", "gpu_large_traced", "pytorch_gpu_large"]
    assert steps["gpu_large_traced"].startswith("rc=0")  # the stand-in hdbench
    with tarfile.open(tmp_path / "out" / "results.tgz") as tar:
        names = {Path(n).name for n in tar.getnames()}
    assert {"gpu-large.json", "gpu-large-traced.json", "overhead_well.log", "overhead_tutorial.log"} <= names
    # the large step's GEMMs and steps, not the epochs (their own axes: 20 s of a lease's call before)
    with tarfile.open(tmp_path / "out" / "results.tgz") as tar:
        log = next(tar.extractfile(m).read().decode() for m in tar.getmembers() if Path(m.name).name == "gpu_large.log")
    assert "--benchmark_filter=mlp/(gemm|step)/" in log
    # issue 38's targets as set: each program plain and under the whole recording, in rounds,
    # stopping its rounds 10 s inside the step's limit (120 s and 95 s, in a budget of 200 s)
    with tarfile.open(tmp_path / "out" / "results.tgz") as tar:
        for name, rounds, max_s, target, argv_end in (
                # well_written.py timed between its reads every 100 steps: its fastest stretches judged too
                ("overhead-well.json", 3, 110, 1.10, ["well_written.py", "--steps", "2000", "--log-every", "100"]),
                ("overhead-tutorial.json", 2, 85, 1.05, ["tutorial_style.py", "--steps", "10"])):
            data = json.loads(next(tar.extractfile(m).read() for m in tar.getmembers() if m.name.endswith(name)))
            assert set(data["variants"]) == {"plain", "all"} and data["rounds"] == rounds, name
            # judged against its own target (met, missed or cannot tell: the stand-in's times)
            assert data["target"] == target and data["variants"]["all"]["verdict"] in ("met", "missed", "cannot tell")
            script = len(argv_end) - 1
            assert [Path(data["command"][-len(argv_end)]).name, *data["command"][-script:]] == argv_end
            assert len(data["variants"]["all"]["wall_s_runs"]) == rounds
            assert data["rounds_run"] == rounds and data["stopped"] is None
            assert 0 < data["max_seconds"] <= max_s, name  # less only where the budget ran short


def test_the_overhead_checks_rounds_stop_within_what_is_left_of_the_budget(tmp_path):
    """A 60 s budget cuts the first overhead step's limit to 60 s at most: its tool stops its
    rounds by 50 s, and the next step's by what is left of the budget then, less 10 s."""
    b = bundle(tmp_path)
    (b / "lib" / "libhdbench_inject.so").write_bytes(INJECTION_LIBRARY_STAND_IN)
    for name in ("well_written", "tutorial_style"):
        (b / "examples" / "fashion_mnist" / f"{name}.py").write_text(EXAMPLE_STAND_IN)
    result, _ = run(b / "tools" / "overhead_gpu_check.sh", tmp_path / "out", 60, 0, "10")
    assert result.returncode == 0, result.stderr
    assert steps_of(tmp_path / "out")["overhead_well"].startswith("rc=0")
    with tarfile.open(tmp_path / "out" / "results.tgz") as tar:
        for name in ("overhead-well.json", "overhead-tutorial.json"):
            data = json.loads(next(tar.extractfile(m).read() for m in tar.getmembers() if m.name.endswith(name)))
            assert 0 < data["max_seconds"] <= 50, name


def test_the_overhead_check_times_the_tutorial_on_one_thread_when_asked(tmp_path):
    b = bundle(tmp_path)
    (b / "lib" / "libhdbench_inject.so").write_bytes(INJECTION_LIBRARY_STAND_IN)
    for name in ("well_written", "tutorial_style"):
        (b / "examples" / "fashion_mnist" / f"{name}.py").write_text(EXAMPLE_STAND_IN)
    result, _ = run(b / "tools" / "overhead_gpu_check.sh", tmp_path / "out", 300, 0, "10", OVERHEAD_ONE_THREAD="1")
    assert result.returncode == 0, result.stderr
    assert list(steps_of(tmp_path / "out"))[:3] == ["overhead_well", "overhead_tutorial",
                                                   "overhead_tutorial_one_thread"]
    with tarfile.open(tmp_path / "out" / "results.tgz") as tar:
        data = json.loads(next(tar.extractfile(m).read() for m in tar.getmembers()
                               if m.name.endswith("overhead-tutorial-one-thread.json")))
    # both sides with PyTorch's intra-op pool at one thread
    assert data["command"][:2] == ["env", "OMP_NUM_THREADS=1"] and set(data["variants"]) == {"plain", "all"}


def test_the_overhead_check_times_the_recordings_parts_when_asked(tmp_path):
    result, _ = run(bundle(tmp_path) / "tools" / "overhead_gpu_check.sh", tmp_path / "out", 200, 0, "10",
                    OVERHEAD_PARTS="1")
    assert result.returncode == 0, result.stderr
    assert list(steps_of(tmp_path / "out")) == ["overhead_well", "overhead_tutorial", "overhead", "plain_stalls",
                                                "gpu_large", "gpu_large_traced", "pytorch_gpu_large"]


def test_the_profile_check_leaves_the_default_preset_out_when_asked(tmp_path):
    b = bundle(tmp_path)
    for wanted, out in (("1", tmp_path / "with"), ("0", tmp_path / "without")):
        result, _ = run(b / "tools" / "profile_gpu_check.sh", out, 200, 0, "10", "1", QUICK_ABLATION="1",
                        DEFAULT_PRESET=wanted)
        assert result.returncode == 0, result.stderr
        assert ("default" in steps_of(out)) == (wanted == "1")


def test_the_profile_check_times_the_recordings_parts_when_asked(tmp_path):
    """OVERHEAD_ROUNDS=N: tools/profile_overhead.py between the profiles and the ablation (here
    it refuses the stand-in bundle's missing library, and the step logs its exit), then the
    plain tutorial's stalls (probes/python_gc/step_stalls.py)."""
    b = bundle(tmp_path)
    result, _ = run(b / "tools" / "profile_gpu_check.sh", tmp_path / "out", 120, 0, "10", "1", QUICK_ABLATION="1",
                    OVERHEAD_ROUNDS="1")
    assert result.returncode == 0, result.stderr
    steps = steps_of(tmp_path / "out")
    assert list(steps)[:6] == ["baseline", "prof_tutorial", "prof_well", "prof_well_eager", "overhead", "plain_stalls"]
    assert steps["overhead"].startswith("rc=2")
    assert steps["plain_stalls"].startswith("rc=2")  # the stand-in bundle has no tutorial script
    with tarfile.open(tmp_path / "out" / "results.tgz") as tar:
        log = next(tar.extractfile(m).read().decode() for m in tar.getmembers() if m.name.endswith("overhead.log"))
    assert "libhdbench_inject.so was not found" in log


def test_the_profile_check_holds_the_loops_that_synchronize_every_step_when_asked(tmp_path):
    """STEP_WAITS: each --step-wait profiled, its own ablation of plain and --fix item, and verify;
    a value that is no --step-wait is said and skipped."""
    b = bundle(tmp_path)
    result, _ = run(b / "tools" / "profile_gpu_check.sh", tmp_path / "out", 200, 0, "10", "1", QUICK_ABLATION="1",
                    DEFAULT_PRESET="0", STEP_WAITS="sync event both")
    assert result.returncode == 0, result.stderr
    steps = list(steps_of(tmp_path / "out"))
    assert steps[steps.index("prof_tutorial_all") + 1:] == [
        "prof_tutorial_sync", "ablation_sync", "verify_sync", "STEP_WAITS:", "prof_tutorial_both", "ablation_both",
        "verify_both"]
    assert "STEP_WAITS: 'event' is not sync or both" in (tmp_path / "out" / "timings.txt").read_text()
    with tarfile.open(tmp_path / "out" / "results.tgz") as tar:
        log = next(tar.extractfile(m).read().decode() for m in tar.getmembers() if m.name.endswith("ablation_sync.log"))
    # its --step-wait taken, it stops at the stand-in bundle, which has no tutorial script to run
    assert "--step-wait needs" not in log and log.startswith("no ") and "tutorial_style.py" in log, log


def test_the_ablation_measures_the_profiles_findings_together(tmp_path):
    """Two or more findings of the script's habits: their fixes made at once are one more variant,
    the measurement verify holds the findings' sum against."""
    b = bundle(tmp_path)
    (b / "tools" / "hdbench_profile.py").write_text(
        "import json, sys\n"
        "out = next(a.split('=', 1)[1] for a in sys.argv if a.startswith('--hdbench_out='))\n"
        "json.dump({'profile': {'findings': [{'fix': 'pin'}, {'fix': 'gather'}]}}, open(out, 'w'))\n")
    result, _ = run(b / "tools" / "profile_gpu_check.sh", tmp_path / "out", 120, 0, "10", "1", QUICK_ABLATION="1")
    assert result.returncode == 0, result.stderr
    assert ("ablation variants: plain,fix_gather,fix_workers,fix_gc,fix_graph,fix_workers+pin,fix_all,well_written,"
            "well_eager,fix_gather+pin") in result.stdout


def test_verify_holds_the_eager_well_written_profile_where_one_was_made(tmp_path):
    """The eager well_written.py profile (prof_well_eager), where the profiler wrote it, goes to
    verify as `--eager`, in both its calls; where it did not, verify runs without it."""
    b = bundle(tmp_path)
    (b / "tools" / "hdbench_profile.py").write_text(
        "import json, sys\n"
        "out = next(a.split('=', 1)[1] for a in sys.argv if a.startswith('--hdbench_out='))\n"
        "if '--eager' not in sys.argv or 'EAGER' in __import__('os').environ:\n"
        "    json.dump({'profile': {'findings': []}}, open(out, 'w'))\n")
    (b / "tools" / "hdbench_report.py").write_text("import sys\nprint('verify args:', ' '.join(sys.argv[1:]))\n")
    for eager in ("1", ""):
        out = tmp_path / f"out{eager}"
        result, _ = run(b / "tools" / "profile_gpu_check.sh", out, 120, 0, "10", "1", QUICK_ABLATION="1",
                        DEFAULT_PRESET="0", **({"EAGER": "1"} if eager else {}))
        assert result.returncode == 0, result.stderr
        with tarfile.open(out / "results.tgz") as tar:
            logs = {m.name.rsplit("/", 1)[-1]: tar.extractfile(m).read().decode() for m in tar.getmembers()
                    if m.name.endswith("verify.log")}
        assert ("--eager " in logs["verify.log"] and "prof-well-eager.json" in logs["verify.log"]) == bool(eager)


def test_the_whole_ablation_isolates_packing_under_the_pin_thread_and_a_lease_may_choose(tmp_path):
    """The whole ablation runs workers, pin and pack together (every habit fixed measured about as
    long as workers and pin where the model priced packing faster); ABLATION_VARIANTS replaces
    the list."""
    b = bundle(tmp_path)
    result, _ = run(b / "tools" / "profile_gpu_check.sh", tmp_path / "out", 120, 0, "10", "1")
    assert result.returncode == 0, result.stderr
    listed = next(line for line in result.stdout.splitlines() if line.startswith("ablation variants: "))
    assert "fix_workers+pin,fix_workers+pin+pack,fix_all" in listed
    result, _ = run(b / "tools" / "profile_gpu_check.sh", tmp_path / "out2", 120, 0, "10", "1",
                    ABLATION_VARIANTS="plain,fix_workers+pin+pack")
    assert "ablation variants: plain,fix_workers+pin+pack\n" in result.stdout
