"""hdbench_profile's run of a program (tools/hdbench_profile.py parses its command line and
calls `profile`): the command run under the injection library with its standard streams
untouched, its signals forwarded, the baseline chosen (given, the newest report under
reports/, or measured now with the hdbench binary once the command has run), what a batch from
a DataLoader worker costs here (tools/handover_probe.py, where the program built its batches
itself and PyTorch can be imported), the traces and
records moved out of the temporary folder, the report written (report.py) and the top
findings said on standard error, each line prefixed `hdbench_profile: `.
"""

from __future__ import annotations

import datetime
import gzip
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import traceback
import time
from pathlib import Path

from hdreport.core import writer
from hdreport.core.schema import ReportError
from hdreport.profile.baseline import check_baseline, find_newest
from hdreport.profile.findings import duration_text
from hdreport.profile.handover import Handover
from hdreport.profile.records import read_recording
from hdreport.profile.report import NO_BASELINE_NEEDED, baseline_section, profile_section
from hdreport.profile.report import report as make_report
from hdreport.profile.report import write as write_report

PROGRAM = "hdbench_profile"
DEFAULT_TRACE_BUDGET = 2_000_000
REPORTS = Path("reports")  # as hdbench's own default: relative to where it runs
SI_KERNEL = 0x80  # si_code of a signal the kernel sent (the terminal's Ctrl-C), not kill()
TOP_FINDINGS = 5
# tools/profile_site: its sitecustomize times a Python program's garbage collections
PROFILE_SITE = Path(__file__).resolve().parents[2] / "profile_site"


def say(message: str) -> None:
    """One line on standard error. Where that cannot be written (`2>&1 | head -c1`, a full
    disk), the lines are dropped and the work goes on: the report is what the run is for."""
    try:
        print(f"{PROGRAM}: {writer.one_line(message)}", file=sys.stderr, flush=True)
    except OSError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stderr.fileno())  # so no later line fails again


def resolve(program: str) -> tuple[int, str] | None:
    """(exit code, line) when `program` cannot run, as a shell says it; None when it can."""
    if "/" not in program:
        return None if shutil.which(program) else (127, f"{program}: command not found")
    if not os.path.exists(program):
        return 127, f"{program}: no such file"
    if os.path.isdir(program) or not os.access(program, os.X_OK):
        return 126, f"{program}: not an executable file"
    return None


def stamp() -> str:
    return datetime.datetime.now().strftime("%Y%m%d-%H%M%S")


def default_out(command: list[str], when: str) -> Path:
    name = re.sub(r"[^A-Za-z0-9._-]", "_", os.path.basename(command[0])) or "command"
    return REPORTS / f"profile-{name}-{when}.json"


def trace_path_for(out: Path) -> Path:
    return out.with_name((out.name[:-5] if out.name.endswith(".json") else out.name) + ".trace.json")


# --- the baseline -------------------------------------------------------------------

def measure_baseline(binary: str | None, when: str) -> tuple[str, dict | None, str]:
    """(path, report or None, note) of a baseline measured now with the hdbench binary."""
    binary = binary or shutil.which("hdbench")
    if not binary or not os.access(binary, os.X_OK):
        why = f"--hdbench_bin={binary} is not an executable file" if binary else "give --hdbench_bin=PATH"
        return "", None, ("no baseline report under reports/ and no hdbench binary to measure one "
                          f"({why}, or --hdbench_baseline=REPORT.json)")
    out = REPORTS / f"baseline-{when}.json"
    log = out.with_suffix(".log")
    # The sizes the copy classes span (the quick preset's two would clamp every large copy
    # to 1 MiB's rate), one way each, the copy engine only, and one thread's host memcpy
    # (what pinning a batch on the training thread costs): a few seconds on a GPU.
    argv = [binary, "--hdbench_families=transfer,host_memcpy", "--hdbench_preset=quick",
            "--hdbench_memory=pageable,pinned", "--hdbench_directions=h2d,d2h", "--hdbench_engines=copy",
            "--hdbench_sizes=4K,64K,1M,16M,256M", "--hdbench_memcpy_threads=1", f"--hdbench_out={out}"]
    say(f"no baseline report under reports/: measuring one now (output in {log}): {' '.join(argv)}")
    try:
        REPORTS.mkdir(parents=True, exist_ok=True)
        with open(log, "w") as log_file:  # standard output is the command's alone
            result = subprocess.run(argv, stdout=log_file, stderr=subprocess.STDOUT)
    except OSError as e:
        return "", None, f"measuring a baseline failed: {binary}: {e.strerror or e}"
    if result.returncode != 0 and not out.exists():
        return "", None, f"measuring a baseline failed: hdbench exited {result.returncode} (see {log})"
    try:
        return str(out), check_baseline(str(out)), f"measured now: {' '.join(argv[1:])}"
    except ReportError as e:
        return str(out), None, f"the baseline measured now cannot serve: {e}"


def choose_baseline(options: dict, given: dict | None, when: str,
                    copies_recorded: bool) -> tuple[str, str, dict | None, str]:
    """(path, how, report or None, note): given, the newest under reports/, measured (after
    the command, so the GPU is free, and only when it copied anything), or none."""
    if given is not None:
        return options["baseline"], "given", given, ""
    newest = find_newest(REPORTS)
    if newest:
        return newest[0], "newest", newest[1], "the newest report under reports/ with transfer copies"
    if not copies_recorded:
        return "", "none", None, f"no copies were recorded: {NO_BASELINE_NEEDED}"
    path, report, note = measure_baseline(options.get("bin"), when)
    return path, "measured" if report else "none", report, note


# --- the hand-over probe -------------------------------------------------------------

PROBE = Path(__file__).resolve().parents[2] / "handover_probe.py"  # tools/handover_probe.py
PROBE_TIMEOUT_S = 120
PROBE_BYTES = 4 << 30
FITTED_SOURCE = "constants measured on H100 and H200 hosts with PyTorch 2.11"


def probe_python(options: dict, command: list[str]) -> str | None:
    """The Python the hand-over probe runs in: --hdbench_probe_python, else the command's own
    interpreter when the command is one (`python3 train.py`: its PyTorch), else this tool's;
    None for --hdbench_probe_python=none."""
    chosen = options.get("probe_python")
    if chosen:
        return None if chosen == "none" else chosen
    if re.fullmatch(r"python[0-9.]*", os.path.basename(command[0])):
        return shutil.which(command[0]) or command[0]
    return sys.executable


PROBE_MAX_WORKERS = 64  # the most workers the probe starts


def measure_handover(python: str | None, shape: tuple, workers: int = 2,
                     footprint: int | None = None) -> Handover:
    """What a batch shaped `shape` (each tensor's bytes) from a DataLoader worker costs the
    training thread here (tools/handover_probe.py), and starting `workers` workers (the
    input_pipeline finding's advice) from a process holding `footprint` bytes (the memory the
    program held while its steps ran, where its Python said it: Recording.footprint), or the
    fitted constants and why."""
    if python is None:
        return Handover(source=f"not measured (--hdbench_probe_python=none): {FITTED_SOURCE}")
    # 100 batches, fewer where that would move more than PROBE_BYTES (at least 10)
    batches = max(10, min(100, PROBE_BYTES // max(1, sum(shape))))
    argv = [python, str(PROBE), "--tensor-bytes", ",".join(str(n) for n in shape), "--batches", str(batches),
            "--start-workers", str(max(1, min(PROBE_MAX_WORKERS, workers)))] + \
        (["--footprint-bytes", str(footprint)] if footprint else [])
    say(f"measuring what a batch from a DataLoader worker costs here: {' '.join(argv)}")
    why = ""
    try:
        result = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                timeout=PROBE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        why = f"the probe ran over {PROBE_TIMEOUT_S} s"
    except OSError as e:
        why = f"{python}: {e.strerror or e}"
    else:
        if result.returncode != 0:
            lines = result.stderr.strip().splitlines()
            why = writer.one_line(lines[-1]) if lines else f"the probe exited {result.returncode}"
        else:
            try:
                m = json.loads(result.stdout)

                def number(key: str, kind=float):  # absent (a probe older than the field) or null: None
                    value = m.get(key)
                    if value is None:
                        return None
                    # a cost, a count or bytes: finite and >= 0 (NaN failed in round(), -1 priced a gain)
                    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                            (kind is int and not isinstance(value, int)) or not math.isfinite(value) or value < 0:
                        raise ValueError(f"{key} is {json.dumps(value)[:40]}")
                    return kind(value)

                def required(key: str) -> float:
                    value = number(key)
                    if value is None:
                        raise KeyError(key)
                    return value

                return Handover(required("batch_s"), required("packed_batch_s"), number("pinned_batch_s"), tuple(shape),
                                f"measured here by tools/handover_probe.py: PyTorch {m['torch']}, the median of "
                                f"{m['batches']} batches from {m['workers']} workers"
                                + (f"; with pin_memory not measured: {m['pinned_not_measured']}"
                                   if m["pinned_batch_s"] is None else ""),
                                pin_thread_batch_s=number("pin_thread_batch_s"),
                                packed_pin_thread_batch_s=number("packed_pin_thread_batch_s"),
                                gather_batch_s=number("gather_batch_s"), gather_rows=number("rows", int),
                                pin_cycle_batch_s=number("pin_cycle_batch_s"),
                                packed_pin_cycle_batch_s=number("packed_pin_cycle_batch_s"),
                                pin_here_batch_s=number("pin_here_batch_s"), batch_take_s=number("batch_take_s"),
                                workers_start_s=number("workers_start_s"), start_workers=number("start_workers", int),
                                start_footprint_bytes=number("footprint_bytes", int),
                                start_footprint_measure=m.get("footprint_measure") or None,
                                graph_replay_batch_s=number("graph_replay_batch_s"))
            except (ValueError, KeyError, TypeError) as e:
                why = f"the probe's output is not what it should be ({e})"
    say(f"the hand-over was not measured ({why}); the model takes {FITTED_SOURCE}")
    return Handover(source=f"not measured here ({why}): {FITTED_SOURCE}")


# --- running the command ------------------------------------------------------------

def claim_default_name(out: Path) -> tuple[Path, Path]:
    """(report path, recording folder): the first of OUT, OUT-2, OUT-3, ... whose report does
    not exist and whose folder this process made, so that two runs started in the same second
    (the name's resolution) never write one report. The folder is the claim: made before the
    command runs, removed after its report is written."""
    stem = out.name[:-5] if out.name.endswith(".json") else out.name
    parent = out.parent.resolve()
    for n in range(1, 1000):
        candidate = out if n == 1 else out.with_name(f"{stem}-{n}.json")
        folder = parent / f".{candidate.name}.recording"
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        if not candidate.exists():
            return candidate, folder
        folder.rmdir()
    raise OSError(f"{out}: it and 998 names after it are taken")


def profile(options: dict, given: dict | None, when: str, command: list[str], out: Path, arguments: list[str],
            executable: str, named: bool = True) -> int:
    """Runs `command` under the injection library and writes its report to `out` (the
    options checked, the folder of `out` writable): the command's exit code, or 126/127
    when it cannot run. `arguments`: this tool's own (before `--`); `executable`: the
    command line's file, as the report's context names it. `named`: `out` was given; else it
    is a name made from the time, and the first free one of it, -2, -3, ... is taken."""
    cannot = resolve(command[0])
    if cannot:
        say(cannot[1])
        return cannot[0]
    started_at = writer.now()
    # Beside the report, absolute (the command may change folder): a trace of a few hundred MB
    # is then renamed into place, not copied across file systems.
    try:
        out.parent.mkdir(parents=True, exist_ok=True)  # check_outputs made none (a usage error may follow it)
        if named:
            folder = Path(tempfile.mkdtemp(prefix=".hdbench_profile-", dir=out.parent.resolve()))
        else:
            out, folder = claim_default_name(out)
    except OSError as e:  # checked writable a moment ago: a race, or a full disk
        say(f"cannot make the recording's folder beside {out}: {e.strerror or e}")
        return 2
    try:
        return record_and_report(options, given, when, command, folder, out, arguments, started_at, executable)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def injection_library_problem(lib: str) -> str:
    """Why `lib` cannot be CUDA's injection library, or "": CUDA loads it only as a 64-bit ELF
    shared object, and a file that is not one (a typo naming a script) recorded nothing, the
    report then blaming the program ("no CUDA")."""
    if not os.path.exists(lib):
        return f"the injection library {lib} was not found"
    if not os.path.isfile(lib):  # a folder, or a pipe whose open() would wait for a writer
        return f"the injection library {lib} is not a file"
    try:
        with open(lib, "rb") as f:
            header = f.read(18)
    except OSError as e:
        return f"the injection library {lib} cannot be read ({e.strerror or e})"
    # e_ident: the magic, EI_CLASS 2 (64-bit), EI_DATA 1 (little-endian); e_type 3 (ET_DYN)
    if len(header) < 18 or header[:4] != b"\x7fELF" or header[4] != 2 or header[5] != 1 or header[16:18] != b"\x03\x00":
        return f"the injection library {lib} is not a 64-bit shared library (an ELF .so such as libhdbench_inject.so)"
    return ""


def record_and_report(options: dict, given: dict | None, when: str, command: list[str], folder: Path, out: Path,
                      arguments: list[str], started_at: str, executable: str) -> int:
    """Runs the command under the injection library (recording into `folder`), writes the report."""
    env = dict(os.environ)
    reason = ""
    lib = options.get("inject_lib", "")
    if lib and not (reason := injection_library_problem(lib)):
        env.update(CUDA_INJECTION64_PATH=os.path.abspath(lib), HDBENCH_PROFILE_DIR=str(folder),
                   HDBENCH_PROFILE_TRACE_BUDGET=options.get("trace_budget", str(DEFAULT_TRACE_BUDGET)))
        # The program's NVTX ranges too, unless another tool already takes them (Nsight's).
        env.setdefault("NVTX_INJECTION64_PATH", os.path.abspath(lib))
        env["PYTHONPATH"] = python_path(env.get("PYTHONPATH"))
    else:
        reason = reason or "no injection library given (--hdbench_inject_lib=PATH; bin/hdbench_profile passes it)"
        say(f"{reason}: running the command without recording")
    start = time.monotonic()
    try:
        status, received = run(command, env)
    except OSError as e:  # gone between the check and the start, or not executable after all
        say(f"{command[0]}: {e.strerror or e}")
        return 127 if isinstance(e, FileNotFoundError) else 126
    wall_s = time.monotonic() - start
    code, signal_name = (status, None) if status >= 0 else (128 - status, signal.Signals(-status).name)
    if received:
        say(f"received {', '.join(dict.fromkeys(received))}: the report is written from what was recorded")
    with AfterTheCommand() as after:
        if "records" in options:  # before they are read: a recording the reader fails on is kept whole
            keep_records(folder, Path(options["records"]))
        try:
            section = report_recording(options, given, when, command, folder, out, arguments, started_at,
                                       executable, (code, signal_name, wall_s, reason), after)
        except Exception as e:  # noqa: BLE001  the last resort: a recording the reader's checks let through
            frames = traceback.extract_tb(e.__traceback__)
            where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
            say(f"cannot analyse the recording ({type(e).__name__}: {e}{where}); no report was written"
                + (f"; its records are kept in {options['records']}" if "records" in options else
                   "; --hdbench_records=DIR keeps them to report this"))
            return code or 1
    if section is None:
        return code or 1
    print_findings(section, out)
    return code


def report_recording(options: dict, given: dict | None, when: str, command: list[str], folder: Path, out: Path,
                     arguments: list[str], started_at: str, executable: str, ran: tuple, after) -> dict | None:
    """Reads the recording in `folder` of the command that ran (`ran`: its code, signal name,
    wall time and why it was not recorded), chooses the baseline, measures the hand-over and
    writes the report to `out`: its profile section, None where it could not be written."""
    code, signal_name, wall_s, reason = ran
    recording = read_recording(folder)
    chosen = after.measure(choose_baseline, options, given, when, bool(recording.copies))
    path, how, baseline_report, note = chosen or ("", "none", None, f"{after.why()} before a baseline was chosen")
    baseline = baseline_section(path, how, baseline_report, note, socket.gethostname())
    trace = move_traces(folder, recording, Path(options.get("trace") or trace_path_for(out)))
    python = probe_python(options, command)

    def handover(*asked) -> Handover:
        measured = after.measure(measure_handover, python, *asked)
        return measured or Handover(source=f"not measured here ({after.why()}): {FITTED_SOURCE}")

    section = profile_section(command, code, signal_name, wall_s, recording, baseline, baseline_report, trace,
                              reason, handover_for=handover)
    whole = make_report(section, baseline_report, arguments, started_at, executable)
    try:
        write_report(str(out), whole)
    except OSError as e:
        say(f"cannot write the report {out}: {e.strerror or e}")
        return None
    return section


class Interrupted(BaseException):
    """A signal while a measurement ran (a BaseException: no `except Exception` keeps it)."""


class AfterTheCommand:
    """SIGINT and SIGTERM once the command has ended (the baseline and the probe can take a
    minute): what is being measured stops (subprocess.run kills its child on the way out),
    nothing more is measured, and the report is written from what was recorded, with the
    baseline or the hand-over said not measured and why. The tool exits with the command's
    code."""

    def __init__(self):
        self.received: list[str] = []
        self.measuring = False
        self.previous: dict = {}

    def __enter__(self) -> "AfterTheCommand":
        for sig in (signal.SIGINT, signal.SIGTERM):
            self.previous[sig] = signal.signal(sig, self.on_signal)
        return self

    def __exit__(self, *exc) -> None:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)

    def on_signal(self, signo, frame) -> None:
        if not self.received:
            say(f"received {signal.Signals(signo).name}: nothing more is measured; the report is written from "
                "what was recorded")
        self.received.append(signal.Signals(signo).name)
        if self.measuring:
            self.measuring = False
            raise Interrupted

    def why(self) -> str:
        return f"interrupted by {self.received[0]}" if self.received else ""

    def measure(self, measurement, *args):
        """measurement(*args), or None when a signal came before it or while it ran."""
        self.measuring = True  # before the check: a signal between the two is not missed
        try:
            return None if self.received else measurement(*args)
        except Interrupted:
            return None
        finally:
            self.measuring = False


KILL_AFTER_SIGNALS = 3  # the SIGINT or SIGTERM that kills a command ignoring the ones before


def run(command: list[str], env: dict) -> tuple[int, list[str]]:
    """The command's wait status as an exit code (-n: killed by signal n), and the signals
    this tool received meanwhile. SIGINT and SIGTERM sent to this tool are forwarded; a
    Ctrl-C from the terminal already reached the command (one process group), so it is not
    sent twice (the kernel sends that one: si_code SI_KERNEL, no sender pid). The third one
    kills the command (SIGKILL): one that ignores them could not be stopped otherwise, this
    tool blocking them to write the report."""
    watched = {signal.SIGINT, signal.SIGTERM, signal.SIGCHLD}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, watched)
    received: list[str] = []
    try:
        # The child gets the mask as it was, and SIGPIPE and SIGXFSZ back at their defaults
        # (Python ignores them; subprocess restores them the same way).
        pid = os.posix_spawnp(command[0], command, env, setsigmask=previous,
                              setsigdef=(signal.SIGPIPE, signal.SIGXFSZ))
        while True:
            info = signal.sigtimedwait(watched, 0.5)
            if info is not None and info.si_signo in (signal.SIGINT, signal.SIGTERM):
                received.append(signal.Signals(info.si_signo).name)
                if len(received) == KILL_AFTER_SIGNALS:  # a command that ignores them must still end
                    say(f"received {KILL_AFTER_SIGNALS} signals: killing the command (SIGKILL)")
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                elif info.si_pid != 0 and info.si_code != SI_KERNEL:
                    try:
                        os.kill(pid, info.si_signo)
                    except ProcessLookupError:
                        pass
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status), received
    finally:
        while signal.sigtimedwait(watched, 0) is not None:
            pass  # consumed here: a Ctrl-C meant for the command must not stop the report
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def move_traces(folder: Path, recording, trace: Path) -> str | None:
    """The processes' traces moved out of the temp folder: the first process's to `trace`,
    any other's beside it as <trace>-<pid>.json (named in that process's note)."""
    moved = None
    for process in recording.processes:
        # A name in the folder, whatever the end line says: nothing outside it is moved.
        source = folder / Path(process.trace or f"trace-{process.pid}.json").name
        if not source.is_file():
            continue
        target = trace if moved is None else trace.with_name(
            re.sub(r"(\.json)?(\.gz)?$", "", trace.name, count=1) + f"-{process.pid}.json")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.name.endswith(".gz"):
                with open(source, "rb") as src, gzip.open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst)
            else:
                shutil.move(str(source), str(target))
        except OSError as e:
            say(f"cannot write the trace {target}: {e.strerror or e}")
            continue
        if moved is None:
            moved = str(target)
        else:
            process.problems.append(f"its trace: {target}")
    return moved


def python_path(given: str | None) -> str:
    """PYTHONPATH with tools/profile_site first: a Python program's collections are timed
    (its sitecustomize imports the one it hides)."""
    return os.pathsep.join([str(PROFILE_SITE)] + ([given] if given else []))


def keep_records(folder: Path, target: Path) -> None:
    """The raw records files (and Python's collections), copied out of the temp folder before
    it is removed."""
    try:
        target.mkdir(parents=True, exist_ok=True)
        for path in [*folder.glob("records-*.jsonl"), *folder.glob("pygc-*.jsonl")]:
            if path.is_file():  # a pipe of that name would wait for a writer (the reader says it)
                shutil.copy2(path, target / path.name)
    except OSError as e:
        say(f"cannot keep the records in {target}: {e.strerror or e}")


def print_findings(section: dict, out: Path) -> None:
    code, killed_by = section["exit"]["code"], section["exit"]["signal"]
    if killed_by:
        say(f"the command was killed by {killed_by} (exit code {code})")
    elif code:
        say(f"the command exited with code {code}")
    if not section["recorded"]:
        say(f"nothing recorded: {section['not_recorded_reason']}")
    elif not section["findings"]:
        span = section["totals"]["span_s"]
        say(f"no findings: nothing would save 2% of the {duration_text(span)} of GPU activity recorded"
            if span > 0 else "no copies, kernels or memsets were recorded")
    else:
        span = section["totals"]["span_s"]
        say(f"top findings (of the {duration_text(span)} from the first GPU record to the last):")
        for f in section["findings"][:TOP_FINDINGS]:
            alone = f.get("saving_alone_s", f["saving_s"])
            added = (f", {f['saving_s'] * 1e3:.1f} ms added to the ones above" if abs(alone - f["saving_s"]) > 5e-5
                     else "")
            say(f"  {f['id']}: saves ~{alone * 1e3:.1f} ms ({100 * alone / span:.1f}% of the span){added}: "
                f"{f['advice']}")
        if len(section["findings"]) > 1:
            say(f"  together: ~{section['model']['saving_together_s'] * 1e3:.1f} ms")
    for f in section.get("would_cost") or []:  # "will pinning pay?": where it will not, say so
        say(f"would cost, not save: {f['id']}: ~{f['cost_s'] * 1e3:.1f} ms longer "
            f"({100 * f['cost_fraction_of_span']:.1f}% of the span): {f['why']}")
    for p in section["processes"]:
        if p["note"]:
            say(f"process {p['pid']} ({p['command'] or '?'}): {p['note']}")
    if section["recorded"] and section["baseline"]["how"] == "none":
        say(f"baseline: {section['baseline']['note']}")
    if section["trace"]:
        say(f"trace: {section['trace']}")
    say(f"report: {out}")
