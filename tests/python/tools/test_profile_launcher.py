"""tools/hdbench_profile.py end to end, without a GPU: the injection library is stood in for
by a command that writes a recording into $HDBENCH_PROFILE_DIR itself (profile_fixtures.py
run as a script: a fake injection), so the whole pipeline runs here. Each test runs in its
own folder, where reports/ is the default place of reports and baselines."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hdreport.core import schema
from hdreport.profile.records import Recording, read_recording
from hdreport.profile.report import NO_CUDA, baseline_section, profile_section
from hdreport.profile.report import report as make_report
from profile_fixtures import INJECTION_LIBRARY_STAND_IN, baseline_report, write_baseline

ROOT = Path(__file__).resolve().parents[3]
LAUNCHER = ROOT / "tools" / "hdbench_profile.py"
FIXTURES = Path(__file__).resolve().parent / "profile_fixtures.py"
NO_BIN = "--hdbench_bin=/nonexistent/hdbench"  # never measure a baseline with a real binary here


def fake(*args: str) -> list[str]:
    """The fake injection: a program that writes its own recording."""
    return [sys.executable, str(FIXTURES), *args]


def environment() -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("CUDA_INJECTION64_PATH", "HDBENCH_PROFILE_DIR", "HDBENCH_PROFILE_TRACE_BUDGET")}
    return env


def profile(folder: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """The launcher on `args`; the hand-over probe skipped unless the test names its Python
    (the fake programs run in this Python, whose PyTorch, if any, would be probed)."""
    if not any(a.startswith("--hdbench_probe_python=") for a in args):
        args = ("--hdbench_probe_python=none", *args)
    return subprocess.run([sys.executable, str(LAUNCHER), *args], cwd=folder, capture_output=True, text=True,
                          timeout=timeout, env=environment())


@pytest.fixture
def lib(tmp_path) -> str:
    """A file standing in for libhdbench_inject.so (INJECTION_LIBRARY_STAND_IN)."""
    path = tmp_path / "libfake_inject.so"
    path.write_bytes(INJECTION_LIBRARY_STAND_IN)
    return str(path)


@pytest.fixture
def baseline(tmp_path) -> str:
    return str(write_baseline(tmp_path / "baseline.json"))


def only_report(folder: Path) -> tuple[Path, dict]:
    reports = [p for p in (folder / "reports").glob("profile-*.json") if not p.name.endswith(".trace.json")]
    assert len(reports) == 1, reports
    return reports[0], schema.load(str(reports[0]))  # valid through hdreport's own loader


def a_profile() -> dict:
    """A valid report of hdbench_profile, of a run that recorded nothing."""
    section = profile_section(["true"], 0, None, 0.1, Recording(),
                                             baseline_section("", "none", None, "", "h"), None, None)
    return make_report(section, None, [], "2026-11-20T10:00:00+0000", "hdbench_profile")


def no_traceback(result) -> None:
    assert "Traceback" not in result.stderr, result.stderr


# --- exit codes ---------------------------------------------------------------------------

def test_a_command_that_does_not_exist_exits_127(tmp_path):
    result = profile(tmp_path, NO_BIN, "--", "no-such-command-hdbench")
    assert result.returncode == 127
    assert result.stderr == "hdbench_profile: no-such-command-hdbench: command not found\n"
    assert not (tmp_path / "reports").exists() or not list((tmp_path / "reports").glob("profile-*"))


def test_the_exit_code_is_passed_through(tmp_path, lib):
    result = profile(tmp_path, NO_BIN, f"--hdbench_inject_lib={lib}", "--", "sh", "-c", "echo out; exit 3")
    assert result.returncode == 3 and result.stdout == "out\n"  # the command's output untouched
    _, report = only_report(tmp_path)
    assert report["profile"]["exit"] == {"code": 3, "signal": None}
    assert report["profile"]["command"] == ["sh", "-c", "echo out; exit 3"]
    assert "exited with code 3" in result.stderr


def test_a_killed_command_exits_128_plus_its_signal(tmp_path, lib):
    result = profile(tmp_path, NO_BIN, f"--hdbench_inject_lib={lib}", "--", "sh", "-c", "kill -9 $$")
    assert result.returncode == 137
    _, report = only_report(tmp_path)
    assert report["profile"]["exit"] == {"code": 137, "signal": "SIGKILL"}
    assert "killed by SIGKILL" in result.stderr


# --- nothing recorded -----------------------------------------------------------------------

def test_a_command_without_cuda_gives_a_report_saying_so(tmp_path, lib):
    result = profile(tmp_path, NO_BIN, f"--hdbench_inject_lib={lib}", "--", "true")
    assert result.returncode == 0, result.stderr
    path, report = only_report(tmp_path)
    p = report["profile"]
    assert p["recorded"] is False and p["not_recorded_reason"] == NO_CUDA
    assert p["findings"] == [] and p["processes"] == [] and p["trace"] is None
    assert p["baseline"]["how"] == "none" and "no baseline" in p["baseline"]["note"]
    assert report["benchmarks"] == [] and report["context"]["hdbench"]["program"] == "hdbench_profile"
    assert f"hdbench_profile: report: reports/{path.name}" in result.stderr
    assert not list((tmp_path / "reports").glob(".*tmp*"))  # written atomically, nothing left over
    assert not list((tmp_path / "reports").glob(".hdbench_profile-*"))  # the records folder is removed


def test_a_missing_injection_library_still_runs_the_command(tmp_path):
    result = profile(tmp_path, NO_BIN, "--hdbench_inject_lib=/nonexistent/libhdbench_inject.so", "--",
                     *fake("tutorial"))
    assert result.returncode == 0 and result.stdout == "fake program tutorial ran\n"
    _, report = only_report(tmp_path)
    assert report["profile"]["recorded"] is False
    assert "/nonexistent/libhdbench_inject.so was not found" in report["profile"]["not_recorded_reason"]


@pytest.mark.parametrize("content, why", [
    (b"root:x:0:0:root:/root:/bin/bash\n", "is not a 64-bit shared library"),  # /etc/passwd, say
    (b"\x7fELF\x01\x01\x01" + bytes(9) + b"\x03\x00", "is not a 64-bit shared library"),  # 32-bit
    (b"\x7fELF\x02\x01\x01" + bytes(9) + b"\x02\x00", "is not a 64-bit shared library"),  # an executable
    (b"", "is not a 64-bit shared library"),
])
def test_a_file_that_is_not_a_shared_library_is_said_and_the_command_still_runs(tmp_path, content, why):
    """CUDA would not load it, and the report blamed the program: "no CUDA"."""
    not_a_lib = tmp_path / "libnot.so"
    not_a_lib.write_bytes(content)
    result = profile(tmp_path, NO_BIN, f"--hdbench_inject_lib={not_a_lib}", "--", *fake("tutorial"))
    assert result.returncode == 0 and result.stdout == "fake program tutorial ran\n"
    _, report = only_report(tmp_path)
    assert report["profile"]["recorded"] is False
    assert f"the injection library {not_a_lib} {why}" in report["profile"]["not_recorded_reason"]
    assert f"{why} (an ELF .so such as libhdbench_inject.so): running the command without recording" in \
        result.stderr


def test_a_shared_library_passes_the_check_and_a_folder_does_not(lib):
    import _ctypes  # a 64-bit shared object of this Python's (the built library's own check: test_profile_inject)

    from hdreport.profile.launch import injection_library_problem

    assert injection_library_problem(_ctypes.__file__) == ""
    assert injection_library_problem(lib) == ""
    assert injection_library_problem(str(Path(lib).parent)).endswith("is not a file")
    fifo = Path(lib).parent / "pipe.so"
    os.mkfifo(fifo)
    assert injection_library_problem(str(fifo)).endswith("is not a file")  # not opened: it would wait for a writer


def test_an_injection_error_is_reported(tmp_path, lib):
    result = profile(tmp_path, NO_BIN, f"--hdbench_inject_lib={lib}", "--",
                     *fake("tutorial", "--error=CUPTI_ERROR_NO_DEVICE: no CUDA-capable device"))
    assert result.returncode == 0
    _, report = only_report(tmp_path)
    p = report["profile"]
    assert p["recorded"] is False
    assert p["not_recorded_reason"] == "CUPTI could not start: CUPTI_ERROR_NO_DEVICE: no CUDA-capable device"
    assert p["processes"][0]["note"].startswith("CUPTI could not start")


def test_the_child_gets_the_injection_environment(tmp_path, lib):
    result = profile(tmp_path, NO_BIN, f"--hdbench_inject_lib={lib}", "--hdbench_trace_budget=123", "--", "sh", "-c",
                     'echo "$CUDA_INJECTION64_PATH $HDBENCH_PROFILE_TRACE_BUDGET"; test -d "$HDBENCH_PROFILE_DIR"')
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{lib} 123\n"


# --- the whole pipeline through the fake injection ---------------------------------------------

def test_a_recorded_tutorial_loop(tmp_path, lib, baseline):
    result = profile(tmp_path, f"--hdbench_inject_lib={lib}", f"--hdbench_baseline={baseline}",
                     "--hdbench_out=out/p.json", "--", *fake("tutorial_h200", "--trace"))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "fake program tutorial_h200 ran\n"
    no_traceback(result)
    report = schema.load(str(tmp_path / "out" / "p.json"))
    p = report["profile"]
    assert p["recorded"] is True and p["synthetic"] is True
    assert p["baseline"]["how"] == "given" and p["baseline"]["path"] == baseline
    assert [f["id"] for f in p["findings"]] == ["input_pipeline", "pageable_to_pinned", "launch_bound",
                                                "pack_small_copies"]
    # A step: 3 copies with their calls and syncs (9), 10 kernels and their launches, the read,
    # its call and its sync (3): 32 records.
    assert p["processes"][0]["complete"] is True and p["processes"][0]["records"] == 50 * 32
    assert p["trace"] == "out/p.trace.json" and (tmp_path / "out" / "p.trace.json").is_file()
    assert report["context"]["hdbench"]["system"]["gpus"][0]["name"] == "Synthetic GPU"
    # 49 steps x 96.874 us of the 130.595 ms span (profile_fixtures.tutorial_h200; test_profile_model.py).
    assert "pageable_to_pinned: saves ~4.7 ms (3.6% of the span)" in result.stderr
    assert result.stderr.rstrip().endswith("hdbench_profile: report: out/p.json")


def fake_python(folder: Path, body: str) -> str:
    """An executable standing in for the Python the hand-over probe runs in."""
    path = folder / "fake-python"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


def test_the_hand_over_probe_measured_here_prices_the_input_pipeline(tmp_path, lib, baseline):
    measured = {"batch_s": 1.5e-3, "packed_batch_s": 1.2e-3, "pinned_batch_s": None,
                "pinned_not_measured": "CUDA is not available to PyTorch here (pin_memory needs it)",
                "tensor_bytes": [3211264, 8192, 4096], "batches": 100, "workers": 2, "torch": "2.11.0"}
    python = fake_python(tmp_path, f"echo '{json.dumps(measured)}'")
    result = profile(tmp_path, f"--hdbench_inject_lib={lib}", f"--hdbench_baseline={baseline}",
                     f"--hdbench_probe_python={python}", "--hdbench_out=p.json", "--", *fake("tutorial_h200"))
    assert result.returncode == 0, result.stderr
    assert "measuring what a batch from a DataLoader worker costs here: " + python in result.stderr
    p = schema.load(str(tmp_path / "p.json"))["profile"]
    handover = p["model"]["handover"]
    assert handover["measured"] is True and handover["batch_s"] == 1.5e-3 and handover["packed_batch_s"] == 1.2e-3
    assert handover["tensor_bytes"] == [3211264, 8192, 4096] and handover["pinned_batch_s"] is None
    pipeline = next(f for f in p["findings"] if f["id"] == "input_pipeline")
    assert "1.5 ms to take over" in pipeline["assumption"]
    assert "measured here by tools/handover_probe.py: PyTorch 2.11.0" in pipeline["assumption"]
    assert "with pin_memory not measured: CUDA is not available" in pipeline["assumption"]


def test_a_probe_that_gathered_a_batch_whole_prices_per_sample_batches(tmp_path, lib, baseline):
    measured = {"batch_s": 1.5e-3, "packed_batch_s": 1.2e-3, "pinned_batch_s": None, "pin_thread_batch_s": None,
                "packed_pin_thread_batch_s": None, "pinned_not_measured": "CUDA is not available",
                "tensor_bytes": [3211264, 8192, 4096], "batches": 100, "workers": 2, "gather_batch_s": 300e-6,
                "rows": 1024, "torch": "2.11.0", "batch_take_s": 1.0e-3, "workers_start_s": 0.045}
    python = fake_python(tmp_path, f"echo '{json.dumps(measured)}'")
    result = profile(tmp_path, f"--hdbench_inject_lib={lib}", f"--hdbench_baseline={baseline}",
                     f"--hdbench_probe_python={python}", "--hdbench_out=p.json", "--", *fake("tutorial_h200"))
    assert result.returncode == 0, result.stderr
    p = schema.load(str(tmp_path / "p.json"))["profile"]
    assert p["model"]["handover"]["gather_batch_s"] == 300e-6 and p["model"]["handover"]["gather_rows"] == 1024
    assert "pin_cycle_batch_s" not in p["model"]["handover"]  # not measured without CUDA: left out
    assert p["model"]["handover"]["batch_take_s"] == 1.0e-3  # taking alone: kept beside batch_s
    assert p["model"]["handover"]["workers_start_s"] == 0.045  # the workers' start: kept, not priced
    assert p["findings"][0]["id"] == "per_sample_batches"
    assert "300 µs (measured here by tools/handover_probe.py: 1024 random rows" in p["findings"][0]["assumption"]
    assert [f["id"] for f in p["findings_left_out"]] == ["input_pipeline"]


def test_a_probe_with_cuda_measures_the_pin_thread_too(tmp_path, lib, baseline):
    measured = {"batch_s": 1.5e-3, "packed_batch_s": 1.2e-3, "pinned_batch_s": 250e-6, "pin_thread_batch_s": 120e-6,
                "packed_pin_thread_batch_s": 90e-6, "pin_cycle_batch_s": 1.9e-3, "packed_pin_cycle_batch_s": 1.7e-3,
                "pinned_not_measured": "",
                "workers_start_s": 0.045, "graph_replay_batch_s": 40e-6,
                "tensor_bytes": [3211264, 8192, 4096], "batches": 100, "workers": 2, "torch": "2.11.0+cu130"}
    python = fake_python(tmp_path, f"echo '{json.dumps(measured)}'")
    result = profile(tmp_path, f"--hdbench_inject_lib={lib}", f"--hdbench_baseline={baseline}",
                     f"--hdbench_probe_python={python}", "--hdbench_out=p.json", "--", *fake("tutorial_h200"))
    assert result.returncode == 0, result.stderr
    handover = schema.load(str(tmp_path / "p.json"))["profile"]["model"]["handover"]
    assert handover["pinned_batch_s"] == 250e-6 and handover["pin_thread_batch_s"] == 120e-6
    assert handover["packed_pin_thread_batch_s"] == 90e-6
    assert handover["pin_cycle_batch_s"] == 1.9e-3  # the pin thread's pace: a floor under its steps
    assert handover["packed_pin_cycle_batch_s"] == 1.7e-3  # and packed
    assert "batch_take_s" not in handover  # a probe older than the field: left out
    assert handover["graph_replay_batch_s"] == 40e-6  # what the graph leaves the thread a batch
    # the graph alone: X's 185 µs become the probe's 40, the read waits 106 µs, not 10: 49 µs a step
    model = schema.load(str(tmp_path / "p.json"))["profile"]["model"]
    assert model["saving_alone_s"]["graph"] == pytest.approx(49 * 49e-6)
    pipeline = next(f for f in schema.load(str(tmp_path / "p.json"))["profile"]["findings"]
                    if f["id"] == "input_pipeline")
    assert "its pin thread holding the GIL 120 µs a batch, which the training thread shares, and handing a " \
        "batch over every 1.9 ms at best" in pipeline["assumption"]
    assert "not measured" not in pipeline["assumption"]
    # the workers' start, measured for the probe's own workers (a probe older than start_workers):
    # said, not priced
    assert "(once a run, with persistent_workers; 45.0 ms here for the probe's own workers, not the count " \
        "advised) is not counted" in pipeline["assumption"]


def test_the_probe_times_the_start_of_the_workers_the_finding_advises(tmp_path, lib, baseline):
    """The probe is asked to start the count input_pipeline advises (--start-workers); the start
    it times comes off the workers fix's price and is said in the finding."""
    measured = {"batch_s": 1.5e-3, "packed_batch_s": 1.2e-3, "pinned_batch_s": None, "pinned_not_measured": "x",
                "workers_start_s": 0.005, "start_workers": 5,
                "tensor_bytes": [3211264, 8192, 4096], "batches": 100, "workers": 2, "torch": "2.11.0"}
    python = fake_python(tmp_path, f"echo \"$@\" > {tmp_path}/argv; echo '{json.dumps(measured)}'")
    result = profile(tmp_path, f"--hdbench_inject_lib={lib}", f"--hdbench_baseline={baseline}",
                     f"--hdbench_probe_python={python}", "--hdbench_out=p.json", "--", *fake("tutorial_h200"))
    assert result.returncode == 0, result.stderr
    argv = (tmp_path / "argv").read_text().split()
    assert argv[argv.index("--start-workers") + 1] == "5"
    # the recorded program's Python said how much memory it held: the probe holds as much
    assert int(argv[argv.index("--footprint-bytes") + 1]) > 0
    p = schema.load(str(tmp_path / "p.json"))["profile"]
    assert p["model"]["handover"]["start_workers"] == 5 and p["model"]["start_with_s"]["workers"] == 0.005
    pipeline = next(f for f in p["findings"] + p["findings_left_out"] if f["id"] == "input_pipeline")
    assert "is taken off: 5.0 ms to the first batch for 5 workers" in pipeline["assumption"]


@pytest.mark.parametrize("body, why", [
    ("echo 'handover_probe.py: PyTorch cannot be imported by /x/python: No module named torch' >&2; exit 1",
     "PyTorch cannot be imported by /x/python"),
    ("echo '{\"batch_s\": 1}'", "the probe's output is not what it should be"),
    # NaN failed in the model's round() (no report); -1 priced a batch from a worker as a gain
    *[(f"echo '{{\"batch_s\": {bad}, \"packed_batch_s\": 0.001, \"pinned_batch_s\": null, \"torch\": \"2\", "
       f"\"batches\": 10, \"workers\": 2}}'", f"batch_s is {said}")
      for bad, said in (("NaN", "NaN"), ("-1", "-1"), ("1e400", "Infinity"), ("true", "true"), ('\"1\"', '"1"'))],
])
def test_a_hand_over_not_measured_says_why_and_takes_the_constants(tmp_path, lib, baseline, body, why):
    python = fake_python(tmp_path, body)
    result = profile(tmp_path, f"--hdbench_inject_lib={lib}", f"--hdbench_baseline={baseline}",
                     f"--hdbench_probe_python={python}", "--hdbench_out=p.json", "--", *fake("tutorial_h200"))
    assert result.returncode == 0, result.stderr
    no_traceback(result)
    assert why in result.stderr and "the model takes constants measured on H100 and H200 hosts" in result.stderr
    handover = schema.load(str(tmp_path / "p.json"))["profile"]["model"]["handover"]
    assert handover["measured"] is False and why in handover["source"]
    # Priced as with the constants: the same findings as the recorded tutorial loop's.
    findings = schema.load(str(tmp_path / "p.json"))["profile"]["findings"]
    assert [f["id"] for f in findings] == ["input_pipeline", "pageable_to_pinned", "launch_bound", "pack_small_copies"]


def test_the_raw_records_are_kept_when_asked(tmp_path, lib, baseline):
    result = profile(tmp_path, f"--hdbench_inject_lib={lib}", f"--hdbench_baseline={baseline}",
                     "--hdbench_out=p.json", "--hdbench_records=kept", "--", *fake("tutorial_h200"))
    assert result.returncode == 0, result.stderr
    (kept,) = (tmp_path / "kept").glob("records-*.jsonl")
    again = read_recording(tmp_path / "kept")
    assert len(again.copies) == 50 * 4 and again.processes[0].complete and kept.is_file()
    # the fake program is Python: its garbage collections were timed and kept beside
    (collections,) = (tmp_path / "kept").glob("pygc-*.jsonl")
    assert collections.name == f"pygc-{again.processes[0].pid}.jsonl" and not again.processes[0].problems


def test_a_python_program_runs_with_the_collection_timer_first_on_its_path(tmp_path, lib):
    """tools/profile_site leads PYTHONPATH; a path the user gave stays after it."""
    env_path = "/some/where"
    result = subprocess.run([sys.executable, str(LAUNCHER), "--hdbench_probe_python=none", NO_BIN,
                             f"--hdbench_inject_lib={lib}", "--", sys.executable, "-c",
                             "import os, sys; print(os.environ['PYTHONPATH']); print('sitecustomize' in sys.modules)"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=60,
                            env=dict(environment(), PYTHONPATH=env_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [os.pathsep.join([str(ROOT / "tools" / "profile_site"), env_path]), "True"]


def test_every_process_is_recorded_and_each_trace_kept(tmp_path, lib, baseline):
    result = profile(tmp_path, f"--hdbench_inject_lib={lib}", f"--hdbench_baseline={baseline}",
                     "--hdbench_out=p.json", "--", *fake("tutorial", "--trace", "--child=well_written"))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "fake program tutorial ran\nfake program well_written ran\n"
    p = schema.load(str(tmp_path / "p.json"))["profile"]
    parent, child = p["processes"]  # in the order CUDA started in them
    assert (parent["command"], child["command"]) == ("profile_fixtures.py tutorial", "profile_fixtures.py well_written")
    assert p["trace"] == "p.trace.json" and (tmp_path / "p.trace.json").is_file()
    assert child["note"] == f"its trace: p.trace-{child['pid']}.json"
    assert (tmp_path / f"p.trace-{child['pid']}.json").is_file()
    assert p["totals"]["copies"] == 900 + 51  # both processes' copies


def test_a_well_written_loop_has_no_findings(tmp_path, lib, baseline):
    result = profile(tmp_path, f"--hdbench_inject_lib={lib}", f"--hdbench_baseline={baseline}", "--",
                     *fake("well_written"))
    assert result.returncode == 0, result.stderr
    _, report = only_report(tmp_path)
    assert report["profile"]["recorded"] is True and report["profile"]["findings"] == []
    assert "no findings" in result.stderr


def test_a_killed_process_with_a_torn_last_line(tmp_path, lib, baseline):
    result = profile(tmp_path, f"--hdbench_inject_lib={lib}", f"--hdbench_baseline={baseline}", "--",
                     *fake("tutorial", "--no-end", "--torn", "--exit=5"))
    assert result.returncode == 5
    _, report = only_report(tmp_path)
    (process,) = report["profile"]["processes"]
    assert process["complete"] is False and "torn last line" in process["note"]
    assert process["records"] == 50 * 48 - 1
    assert report["profile"]["recorded"] is True and report["profile"]["findings"]
    assert "no end line" in result.stderr


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_is_forwarded_and_the_report_still_written(tmp_path, lib, baseline, sig, code):
    launcher = subprocess.Popen(
        [sys.executable, str(LAUNCHER), f"--hdbench_inject_lib={lib}", f"--hdbench_baseline={baseline}", "--",
         *fake("tutorial", "--no-end", "--sleep=60")],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment())
    try:
        assert launcher.stdout.readline() == "fake program tutorial ran\n"  # its records are written
        time.sleep(0.2)
        launcher.send_signal(sig)
        stdout, stderr = launcher.communicate(timeout=30)
    finally:
        launcher.kill()
    assert launcher.returncode == code, stderr
    _, report = only_report(tmp_path)
    p = report["profile"]
    assert p["exit"] == {"code": code, "signal": signal.Signals(sig).name}
    assert p["processes"][0]["complete"] is False and p["recorded"] is True
    assert f"received {signal.Signals(sig).name}" in stderr


# --- the baseline -----------------------------------------------------------------------------

@pytest.mark.parametrize("content, message", [
    (None, "cannot read"),
    ("[1, 2]", "not an hdbench report"),
    ('{"benchmarks": [', "not valid JSON"),
    (json.dumps({**baseline_report(), "benchmarks": []}), "no successful transfer copies"),
    ("profile", "a profile report, not a baseline"),
])
def test_a_bad_baseline_is_bad_usage_and_nothing_runs(tmp_path, content, message):
    path = tmp_path / "bad.json"
    if content == "profile":  # a valid report, but of hdbench_profile: no ceilings in it
        content = json.dumps(a_profile())
    if content is not None:
        path.write_text(content)
    result = profile(tmp_path, f"--hdbench_baseline={path}", "--", "sh", "-c", "touch ran")
    assert result.returncode == 2
    assert result.stderr.startswith(f"hdbench_profile: {path}: ") and message in result.stderr
    assert result.stderr.count("\n") == 1
    assert not (tmp_path / "ran").exists()
    no_traceback(result)


def test_the_newest_baseline_under_reports_is_used(tmp_path, lib):
    reports = tmp_path / "reports"
    reports.mkdir()
    older = write_baseline(reports / "older.json")
    newest = write_baseline(reports / "newest.json")
    os.utime(older, (1, 1))
    # Newer still, but a profile report is never a baseline (even one with transfer runs in it).
    profiled = {**a_profile(), "benchmarks": baseline_report()["benchmarks"]}
    (reports / "profile-x.json").write_text(json.dumps(profiled))
    (reports / "broken.json").write_text("{")
    result = profile(tmp_path, NO_BIN, f"--hdbench_inject_lib={lib}", "--hdbench_out=p.json", "--", "true")
    assert result.returncode == 0, result.stderr
    baseline = schema.load(str(tmp_path / "p.json"))["profile"]["baseline"]
    assert baseline["how"] == "newest" and baseline["path"] == str(Path("reports") / newest.name)
    assert baseline["machine"] == "synthetic: Synthetic GPU + Synthetic CPU"


def test_a_baseline_is_measured_when_there_is_none(tmp_path, lib):
    fake_hdbench = tmp_path / "hdbench"
    fake_hdbench.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        f"sys.path.insert(0, {str(FIXTURES.parent)!r})\n"
        "from pathlib import Path\nfrom profile_fixtures import write_baseline\n"
        "out = next(a.split('=', 1)[1] for a in sys.argv if a.startswith('--hdbench_out='))\n"
        "assert '--hdbench_families=transfer,host_memcpy' in sys.argv and '--hdbench_memcpy_threads=1' in sys.argv\n"
        "assert '--hdbench_memory=pageable,pinned' in sys.argv\n"
        "assert '--hdbench_sizes=4K,64K,1M,16M,256M' in sys.argv  # the sizes copy classes span\n"
        "print('fake hdbench ran')\n"
        "write_baseline(Path(out))\n")
    fake_hdbench.chmod(0o755)
    result = profile(tmp_path, f"--hdbench_bin={fake_hdbench}", f"--hdbench_inject_lib={lib}", "--",
                     *fake("tutorial"))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "fake program tutorial ran\n"  # hdbench's own output went to its log
    assert "fake hdbench ran" not in result.stderr and "measuring one now" in result.stderr
    _, report = only_report(tmp_path)
    baseline = report["profile"]["baseline"]
    assert baseline["how"] == "measured" and baseline["path"].startswith("reports/baseline-")
    assert (tmp_path / baseline["path"]).is_file()
    assert "fake hdbench ran" in (tmp_path / baseline["path"]).with_suffix(".log").read_text()
    assert report["profile"]["model"]["pin_rate_source"].startswith("the baseline's one-thread host memcpy")


def test_without_any_baseline_the_findings_that_need_none(tmp_path, lib):
    result = profile(tmp_path, NO_BIN, f"--hdbench_inject_lib={lib}", "--", *fake("tutorial"))
    assert result.returncode == 0, result.stderr
    _, report = only_report(tmp_path)
    p = report["profile"]
    assert p["baseline"]["how"] == "none"
    # The fixes are priced from the recording alone; pinning at what the staging took.
    assert {f["id"] for f in p["findings"]} == {"pageable_to_pinned"}
    # dropping the read would save as much alone, nothing more once pinned: said, not advised
    assert [(f["id"], f["saving_added_s"]) for f in p["findings_left_out"]] == [("drop_blocking_reads", 0.0)]
    assert p["model"]["pin_rate_source"] == ""
    assert "no baseline: fractions and savings need one" in result.stderr


# --- usage ------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["true"], "no `--` before the command"),
    (["--"], "no command after `--`"),
    (["--hdbench_bogus=1", "--", "true"], "unknown option --hdbench_bogus=1"),
    (["--verbose", "--", "true"], "unknown option --verbose"),
    (["--hdbench_trace_budget=lots", "--", "true"], "--hdbench_trace_budget=lots"),
    (["--hdbench_out=", "--", "true"], "--hdbench_out: give a value"),
    (["--hdbench_out", "--", "true"], "--hdbench_out: give a value, as --hdbench_out=VALUE"),
])
def test_usage_errors_exit_2_in_one_line(tmp_path, args, message):
    result = profile(tmp_path, *args)
    assert result.returncode == 2
    assert result.stderr.startswith("hdbench_profile: ") and message in result.stderr
    assert result.stderr.count("\n") == 1
    no_traceback(result)


def test_no_baseline_is_measured_for_a_command_that_copied_nothing(tmp_path):
    marker = tmp_path / "hdbench-ran"
    fake_hdbench = tmp_path / "hdbench"
    fake_hdbench.write_text(f"#!/bin/sh\ntouch {marker}\n")
    fake_hdbench.chmod(0o755)
    result = profile(tmp_path, f"--hdbench_bin={fake_hdbench}", "--", "true")
    assert result.returncode == 0, result.stderr
    assert not marker.exists()  # nothing to judge: no minutes spent measuring
    _, report = only_report(tmp_path)
    assert report["profile"]["recorded"] is False and report["profile"]["baseline"]["how"] == "none"


def test_a_fix_that_would_cost_is_said_at_the_end_of_the_run(tmp_path, lib, baseline):
    """The probe pinned a batch on one thread in 2 ms, where staging its copies took 408 µs:
    pin_memory=True with num_workers=0 would make the steps longer, and the run says so."""
    measured = {"batch_s": 1.5e-3, "packed_batch_s": 1.2e-3, "pinned_batch_s": 250e-6, "pin_thread_batch_s": 120e-6,
                "packed_pin_thread_batch_s": 90e-6, "pin_cycle_batch_s": 1.9e-3, "pin_here_batch_s": 2e-3,
                "pinned_not_measured": "", "tensor_bytes": [3211264, 8192, 4096], "batches": 100, "workers": 2,
                "torch": "2.11.0+cu130"}
    python = fake_python(tmp_path, f"echo '{json.dumps(measured)}'")
    result = profile(tmp_path, f"--hdbench_inject_lib={lib}", f"--hdbench_baseline={baseline}",
                     f"--hdbench_probe_python={python}", "--hdbench_out=p.json", "--", *fake("tutorial_h200"))
    assert result.returncode == 0, result.stderr
    (costly,) = schema.load(str(tmp_path / "p.json"))["profile"]["would_cost"]
    said = [line for line in result.stderr.splitlines() if "would cost, not save" in line]
    assert said == [f"hdbench_profile: would cost, not save: pageable_to_pinned: ~{costly['cost_s'] * 1e3:.1f} ms "
                    f"longer ({100 * costly['cost_fraction_of_span']:.1f}% of the span): {costly['why']}"]
    assert "pins each batch on the training thread, 2.0 ms a batch" in said[0]


@pytest.mark.parametrize("case, message", [
    ("out_is_a_folder", "--hdbench_out=adir: is a folder"),
    ("out_is_the_baseline", "is also an input (baseline.json): writing it would lose that file"),
    ("out_is_the_script", "is also an input (victim.py): writing it would lose that file"),
    ("out_under_a_file", "--hdbench_out=afile/p.json: cannot be written in"),
    ("trace_is_the_report", "--hdbench_trace=same.json: is the report's path too"),
    ("trace_is_a_folder", "--hdbench_trace=adir: is a folder"),
    ("records_is_a_file", "--hdbench_records=afile: is a file, not a folder"),
    ("records_is_a_device", "--hdbench_records=/dev/null: is a device, a pipe or a link to nothing, not a folder"),
    ("out_name_too_long", ": cannot be written: File name too long"),
    ("records_name_too_long", ": cannot be written: File name too long"),
])
def test_where_the_outputs_go_is_checked_before_the_command_runs(tmp_path, baseline, case, message):
    """A training run must not end in "cannot write", nor its report replace a file it read."""
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("mine\n")
    (tmp_path / "victim.py").write_text("print('ran')\n")
    args = {"out_is_a_folder": ["--hdbench_out=adir"],
            "out_is_the_baseline": ["--hdbench_baseline=baseline.json", "--hdbench_out=baseline.json"],
            "out_is_the_script": ["--hdbench_out=victim.py"],
            "out_under_a_file": ["--hdbench_out=afile/p.json"],
            "trace_is_the_report": ["--hdbench_out=same.json", "--hdbench_trace=same.json"],
            "trace_is_a_folder": ["--hdbench_trace=adir"],
            "records_is_a_file": ["--hdbench_records=afile"],
            "records_is_a_device": ["--hdbench_records=/dev/null"],
            "out_name_too_long": ["--hdbench_out=" + "x" * 300 + ".json"],
            "records_name_too_long": ["--hdbench_records=" + "x" * 300]}[case]
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    result = profile(tmp_path, *args, "--", "sh", "-c", "touch ran", "victim.py")  # names the script
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("hdbench_profile: ") and message in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1
    no_traceback(result)
    assert not (tmp_path / "ran").exists()  # nothing ran
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before  # nothing replaced


def test_an_output_in_missing_folders_is_made_when_the_command_runs(tmp_path, lib):
    """The check of `--hdbench_out` makes no folder (a usage error or a missing command may
    follow it); the run makes them."""
    out = "new/deeper/p.json"
    result = profile(tmp_path, NO_BIN, f"--hdbench_out={out}", "--", "no-such-command-hdbench")
    assert result.returncode == 127 and not (tmp_path / "new").exists(), result.stderr
    result = profile(tmp_path, NO_BIN, f"--hdbench_out={out}", "--hdbench_trace_budget=-1", "--", "true")
    assert result.returncode == 2 and not (tmp_path / "new").exists(), result.stderr
    result = profile(tmp_path, NO_BIN, f"--hdbench_inject_lib={lib}", f"--hdbench_out={out}", "--", "true")
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / out).read_text())["profile"]["recorded"] is False
    assert [p.name for p in (tmp_path / "new" / "deeper").iterdir()] == ["p.json"]  # nothing left beside it


def test_help_is_printed_after_the_installed_wrappers_options(tmp_path):
    result = profile(tmp_path, "--hdbench_inject_lib=/x.so", "--help")
    assert result.returncode == 0 and result.stdout.startswith("Runs any CUDA program")


def test_a_signal_after_the_command_ends_stops_the_baseline_and_still_writes_the_report(tmp_path, lib):
    """The baseline and the probe run after the command, for up to minutes: a SIGTERM then
    stops the one measuring (its child killed, not left behind) and the report is written from
    what was recorded, the baseline said not measured and why; the command's code stands."""
    pid_file = tmp_path / "hdbench.pid"
    slow_hdbench = tmp_path / "hdbench"
    slow_hdbench.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 60\n")
    slow_hdbench.chmod(0o755)
    launcher = subprocess.Popen(
        [sys.executable, str(LAUNCHER), "--hdbench_probe_python=none", f"--hdbench_bin={slow_hdbench}",
         f"--hdbench_inject_lib={lib}", "--hdbench_out=p.json", "--", *fake("tutorial")],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment())
    try:
        seen = ""
        while "measuring one now" not in seen:
            line = launcher.stderr.readline()
            assert line, seen
            seen += line
        deadline = time.monotonic() + 20
        while not pid_file.is_file() or not pid_file.read_text().strip():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        launcher.send_signal(signal.SIGTERM)
        _, rest = launcher.communicate(timeout=30)
    finally:
        launcher.kill()
    assert launcher.returncode == 0, seen + rest
    assert "received SIGTERM: nothing more is measured" in rest
    p = schema.load(str(tmp_path / "p.json"))["profile"]
    assert p["recorded"] is True and p["exit"]["code"] == 0
    assert p["baseline"]["how"] == "none" and "interrupted by SIGTERM" in p["baseline"]["note"]
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while Path(f"/proc/{child}").exists() and "zombie" not in Path(f"/proc/{child}/status").read_text():
        assert time.monotonic() < deadline, "the baseline's hdbench was left running"
        time.sleep(0.05)
    assert not list(tmp_path.glob(".hdbench_profile-*"))  # the recording's folder is gone


def test_records_that_cannot_be_read_are_not_a_clean_bill(tmp_path, lib):
    """A records file of noise is no recording: the report says so, not "nothing worth fixing"."""
    result = profile(tmp_path, NO_BIN, f"--hdbench_inject_lib={lib}", "--hdbench_out=p.json", "--", "sh", "-c",
                     'head -c 100 /dev/urandom > "$HDBENCH_PROFILE_DIR/records-1.jsonl.gz"')
    assert result.returncode == 0, result.stderr
    p = schema.load(str(tmp_path / "p.json"))["profile"]
    assert p["recorded"] is False and p["not_recorded_reason"].startswith("no records file could be read: ")
    assert "records-1.jsonl.gz could not be read" in p["not_recorded_reason"]
    assert "nothing recorded: no records file could be read" in result.stderr


# Records the injection library never writes: a list where the analysis joins on a key, numbers
# beyond 64 bits; each crashed the reader or the analysis, and the report and the records were lost.
HOSTILE_RECORDS = [
    {"type": []},
    {"type": "copy", "start_ns": 1, "end_ns": 2, "device": 0, "bytes": 8, "direction": "h2d", "stream": [1]},
    {"type": "copy", "start_ns": 1, "end_ns": 2, "device": 0, "bytes": 8, "direction": "h2d", "correlation": [1]},
    {"type": "copy", "start_ns": 1, "end_ns": 2, "device": 0, "bytes": 10 ** 29, "direction": "h2d"},
    {"type": "kernel", "start_ns": -10 ** 28, "end_ns": 2, "device": 0},
]


def test_records_the_library_never_writes_are_skipped_and_the_report_written(tmp_path, lib, baseline):
    lines = [json.dumps({"type": "process", "pid": 1, "command": "x"})] + [json.dumps(r) for r in HOSTILE_RECORDS]
    (tmp_path / "records.jsonl").write_text("\n".join(lines) + "\n")
    result = profile(tmp_path, f"--hdbench_inject_lib={lib}", f"--hdbench_baseline={baseline}", "--hdbench_out=p.json",
                     "--hdbench_records=kept", "--", "sh", "-c",
                     'cp records.jsonl "$HDBENCH_PROFILE_DIR/records-1.jsonl"')
    assert result.returncode == 0, result.stderr
    no_traceback(result)
    (process,) = schema.load(str(tmp_path / "p.json"))["profile"]["processes"]
    assert f"{len(HOSTILE_RECORDS)} records lacking a needed field, or of an unknown type, skipped" in process["note"]
    assert (tmp_path / "kept" / "records-1.jsonl").read_text() == (tmp_path / "records.jsonl").read_text()


def test_a_pipe_named_as_a_records_file_is_said_not_waited_on(tmp_path, lib):
    """A FIFO named records-1.jsonl hung the reader for ever (only SIGKILL ended it)."""
    result = profile(tmp_path, NO_BIN, f"--hdbench_inject_lib={lib}", "--hdbench_out=p.json", "--hdbench_records=kept",
                     "--", "sh", "-c", 'mkfifo "$HDBENCH_PROFILE_DIR/records-1.jsonl" "$HDBENCH_PROFILE_DIR/pygc-1.jsonl"',
                     timeout=60)
    assert result.returncode == 0, result.stderr
    p = schema.load(str(tmp_path / "p.json"))["profile"]
    assert p["recorded"] is False and "records-1.jsonl could not be read: not a regular file" in p["not_recorded_reason"]
    assert list((tmp_path / "kept").iterdir()) == []


def test_an_analysis_that_fails_says_so_in_one_line_and_keeps_the_records(tmp_path, lib, baseline, monkeypatch):
    """The last resort: whatever the reader's checks let through ends in one line naming where it
    failed, the command's exit code, and the records kept where asked."""
    from hdreport.profile import launch

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a case no check foresaw")

    monkeypatch.setattr(launch, "profile_section", broken)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "records.jsonl").write_text(json.dumps({"type": "process", "pid": 1}) + "\n")
    code = launch.profile({"inject_lib": lib, "baseline": baseline, "records": "kept", "probe_python": "none"}, None,
                          "now", ["sh", "-c", 'cp records.jsonl "$HDBENCH_PROFILE_DIR/records-1.jsonl"; exit 3'],
                          tmp_path / "p.json", [], "hdbench_profile")
    assert code == 3 and not (tmp_path / "p.json").exists()
    assert (tmp_path / "kept" / "records-1.jsonl").exists()


def test_a_closed_standard_error_loses_no_report(tmp_path, lib, baseline):
    """`2>&1 | head -c1`: the launcher died of BrokenPipeError on its next line, before the report."""
    launcher = subprocess.Popen(
        [sys.executable, str(LAUNCHER), "--hdbench_probe_python=none", f"--hdbench_inject_lib={lib}",
         f"--hdbench_baseline={baseline}", "--hdbench_out=p.json", "--", *fake("tutorial", "--steps=5")],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environment())
    launcher.stderr.close()  # the reader went away before the launcher's first line
    assert launcher.wait(timeout=120) == 0
    assert schema.load(str(tmp_path / "p.json"))["profile"]["recorded"] is True
    result = subprocess.run(f"{sys.executable} {LAUNCHER} --help | head -c1", shell=True, capture_output=True,
                            text=True, timeout=60)
    assert "Traceback" not in result.stderr, result.stderr


def test_the_trace_beside_the_report_is_checked_before_the_command_runs(tmp_path, lib):
    """A baseline named p.trace.json was replaced by the trace of `--hdbench_out=p.json`."""
    base = tmp_path / "p.trace.json"
    write_baseline(base)
    kept = base.read_bytes()
    result = profile(tmp_path, NO_BIN, f"--hdbench_inject_lib={lib}", "--hdbench_baseline=p.trace.json",
                     "--hdbench_out=p.json", "--", "touch", "ran")
    assert result.returncode == 2 and "the trace beside the report" in result.stderr, result.stderr
    assert "is also an input" in result.stderr and not (tmp_path / "ran").exists() and base.read_bytes() == kept
    (tmp_path / "q.trace.json").mkdir()
    result = profile(tmp_path, NO_BIN, f"--hdbench_inject_lib={lib}", "--hdbench_out=q.json", "--", "touch", "ran")
    assert result.returncode == 2 and "q.trace.json: is a folder" in result.stderr, result.stderr


def test_a_name_made_from_the_time_is_never_taken_twice(tmp_path):
    """Two runs started in the same second: the second takes -2, a third -3."""
    from hdreport.profile.launch import claim_default_name

    wanted = tmp_path / "profile-x-20261129-040000.json"
    first, first_folder = claim_default_name(wanted)
    second, second_folder = claim_default_name(wanted)  # the first is still running: its folder holds the name
    assert (first, second) == (wanted, tmp_path / "profile-x-20261129-040000-2.json")
    first.write_text("{}")  # the first wrote its report, then removed its folder
    first_folder.rmdir()
    third, _ = claim_default_name(wanted)
    assert third == tmp_path / "profile-x-20261129-040000-3.json"
    assert second_folder.is_dir()


def test_a_command_that_ignores_signals_is_killed_by_the_third(tmp_path, lib, baseline):
    launcher = subprocess.Popen(
        [sys.executable, str(LAUNCHER), "--hdbench_probe_python=none", f"--hdbench_inject_lib={lib}",
         f"--hdbench_baseline={baseline}", "--hdbench_out=p.json", "--", "sh", "-c",
         "trap 'echo survived' TERM; trap '' INT; echo ready; while :; do sleep 0.1; done"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment())
    try:
        assert launcher.stdout.readline() == "ready\n"
        for _ in range(2):  # each forwarded and survived before the next is sent: none merges with another
            launcher.send_signal(signal.SIGTERM)
            ready, _, _ = select.select([launcher.stdout], [], [], 30)  # not forwarded: no line, no hang
            assert ready and launcher.stdout.readline() == "survived\n"
        launcher.send_signal(signal.SIGTERM)
        _, stderr = launcher.communicate(timeout=30)
    finally:
        launcher.kill()
    assert launcher.returncode == 137, stderr
    assert "received 3 signals: killing the command (SIGKILL)" in stderr
    assert schema.load(str(tmp_path / "p.json"))["profile"]["exit"] == {"code": 137, "signal": "SIGKILL"}
