"""The one writer of report entries outside the C++ binaries: Google-Benchmark-style entries
with hdbench's additions (status, params, counters, notes), the context every report opens
with, and the atomic write. The PyTorch baselines write their reports through it, so the
format is written in one place in Python (docs/report-format.md documents it).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import re
import socket
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

LARGE_SPREAD_CV = 5.0  # percent, as lib/timing.hpp


def make_entry(name: str, params: dict, index: int, result: dict, derive) -> dict:
    """One entry from a runner result {"status", "samples_us", "cpu_us", "counters",
    "notes", "reason"}; `derive(samples_us, median, mean)` gives the counters of an ok run."""
    # hdbench registers every grid point as a benchmark of its own: one family, instance 0.
    entry = {"name": name, "family_index": index, "per_family_instance_index": 0, "run_name": name,
             "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1,
             "iterations": 0, "real_time": 0.0, "cpu_time": 0.0, "time_unit": "us"}
    counters, notes = {}, list(result.get("notes", []))
    status = result["status"]
    samples = result.get("samples_us") or []
    if status == "ok":
        median = statistics.median(samples)
        mean = statistics.fmean(samples)
        cv = 100.0 * statistics.pstdev(samples) / mean if len(samples) > 1 and mean > 0 else 0.0
        # real_time is the median, as hdbench writes it: compare.py and the summary pair the two.
        entry.update(iterations=len(samples), real_time=median, cpu_time=result.get("cpu_us", 0.0))
        counters.update(derive(samples, median, mean))
        counters["cv_percent"] = cv
        counters["samples"] = float(len(samples))
        counters.update(result.get("counters", {}))
        if cv > LARGE_SPREAD_CV:
            notes.append(f"large spread: CV {cv:.1f}% over the timed samples (> {LARGE_SPREAD_CV:.0f}%); "
                         "the machine may be busy")
    elif status == "skipped":
        entry.update(error_occurred=True, error_message=f"skipped: {result['reason']}", skip_reason=result["reason"])
    else:
        entry.update(error_occurred=True, error_message=result["reason"])
    entry.update(counters)
    entry.update(status=status, params=params, counters=counters, notes=notes)
    return entry


# ---- context --------------------------------------------------------------------------


def now() -> str:
    return datetime.datetime.now().astimezone().strftime("%Y-%m-%dT%H:%M:%S%z")


def read_text(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def host_info() -> dict:
    cpuinfo = read_text("/proc/cpuinfo")
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
    meminfo = dict(re.findall(r"^(\w+):\s+(\d+) kB", read_text("/proc/meminfo"), re.M))
    nodes = list(Path("/sys/devices/system/node").glob("node[0-9]*"))
    return {"hostname": socket.gethostname(), "cpu_model": model.group(1).strip() if model else platform.processor(),
            "logical_cores": os.cpu_count() or 0,
            "memory_total_bytes": int(meminfo.get("MemTotal", 0)) * 1024,
            "memory_available_bytes": int(meminfo.get("MemAvailable", 0)) * 1024,
            "numa_nodes": len(nodes) or 1, "kernel": platform.release()}


# The folder that holds tools/: a checkout, or a bundle made by tools/make_bundle.sh.
SUITE_ROOT = Path(__file__).resolve().parents[3]


def git_revision() -> str:
    """In a bundle, the commit make_bundle.sh wrote to its REVISION file (a bundle has no git
    of its own, and one inside a checkout must not take the checkout's); else the checkout's
    revision (`git describe`); "" if neither is found."""
    bundled = read_text(str(SUITE_ROOT / "REVISION")).strip()
    if bundled:
        return bundled
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=SUITE_ROOT,
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def suite_version() -> str:
    """hdbench's version from the CMake project this package is part of, or in a bundle the
    VERSION file make_bundle.sh wrote from it ("" if neither is found)."""
    text = read_text(str(SUITE_ROOT / "CMakeLists.txt"))
    found = re.search(r"project\(\s*hdbench\s+VERSION\s+([0-9.]+)", text)
    return found.group(1) if found else read_text(str(SUITE_ROOT / "VERSION")).strip()


def context(hdbench: dict, executable: str) -> dict:
    """A report's context: Google Benchmark's machine fields, and `hdbench` (the
    implementation's own: version, options, system, ...)."""
    mhz = re.search(r"^cpu MHz\s*:\s*([0-9.]+)", read_text("/proc/cpuinfo"), re.M)
    return {"date": hdbench["started_at"], "host_name": socket.gethostname(), "executable": executable,
            "num_cpus": os.cpu_count() or 0, "mhz_per_cpu": int(float(mhz.group(1))) if mhz else 0,
            "load_avg": list(os.getloadavg()) if hasattr(os, "getloadavg") else [], "hdbench": hdbench}


# ---- writing --------------------------------------------------------------------------


def write_report(path: str, report_context: dict, entries: list[dict], derived: dict) -> None:
    """The report as strict JSON (no NaN: hdbench writes a missing number as null), atomically."""
    report = {"context": report_context, "benchmarks": entries, "derived": derived}
    write_atomically(path, json.dumps(report, indent=2, allow_nan=False) + "\n")


def output_problem(path: str | Path, inputs: tuple = ()) -> str:
    """Why `path` cannot take an output, found before any work is done ("" when it can):
    a folder or a device there, one of `inputs` (files the work reads: it would be lost), a
    folder that cannot be made or written. A link is followed: its target is written. Nothing
    is made here: a run refused later (a bad input) leaves no folder behind; the writer makes
    the missing folders (write_atomically)."""
    p = Path(os.path.realpath(path))
    try:
        there = p.exists()
    except OSError as e:  # a name too long for the file system, say
        return f"cannot be written: {e.strerror or e}"
    if there:
        if p.is_dir():
            return "is a folder"
        if not p.is_file():
            return "is not a regular file (a device or a pipe): give a file's path"
        for given in inputs:
            try:
                if given and os.path.samefile(p, given):
                    return f"is also an input ({given}): writing it would lose that file"
            except OSError:
                continue  # an input that is not there cannot be overwritten
    for given in inputs:  # a folder read whole (reanalyse's records): a file written there is read, or lost
        folder = Path(os.path.realpath(given)) if given else None
        if folder is not None and folder.is_dir() and folder in p.parents:
            return f"is inside the input folder {given}: writing there would replace or add to what it reads"
    existing = p.parent  # the nearest folder there is: the missing ones are made in it
    try:
        while not existing.exists():
            existing = existing.parent
    except OSError as e:
        return f"cannot be written: {e.strerror or e}"
    if not existing.is_dir():
        return f"cannot be written in {existing}: a file, not a folder"
    try:  # a probe file, not os.access: a read-only file system or a full quota refuses it too
        fd, probe = tempfile.mkstemp(dir=existing, prefix=f".{p.name}.check-")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        return f"cannot be written in {existing}: {e.strerror or e}"
    return ""


def escaped(char: str) -> str:
    """A character as a Python string literal writes it: \\n, \\x1b, \\u202e."""
    return repr(char)[1:-1]


def one_line(text) -> str:
    """`text` with line breaks and every other unprintable character escaped: one line whatever
    a file name, a command's output or a report's strings hold."""
    return "".join(c if c.isprintable() or c == " " else escaped(c) for c in str(text))


def text_streams() -> None:
    """Standard output and error take any text: a character their encoding lacks (an ASCII
    locale, PYTHONIOENCODING=ascii: the summary's µs and –) is written as its escape, not
    raised mid-table as a UnicodeEncodeError. Each tool calls it first."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):  # not a test's StringIO
            stream.reconfigure(errors="backslashreplace")


def print_output(text: str, tool: str, what: str) -> int:
    """`text` on standard output: 0; where that cannot be written (full, gone), one line on
    standard error saying so, 2, and standard output pointed at /dev/null so that the flush at
    exit does not fail again in a traceback."""
    try:
        print(text, flush=True)
        return 0
    except OSError as e:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"{tool}: cannot write {what}: {e.strerror or e}", file=sys.stderr)
        return 2


def write_atomically(path: str, text: str) -> None:
    """Temp file in the same folder, fsync, rename: readers never see half a report. A link
    is followed: its target takes the text, the link stays. A missing folder is made."""
    p = Path(os.path.realpath(path))
    tmp = p.with_name(f".{p.name}.tmp-{os.getpid()}")
    p.parent.mkdir(parents=True, exist_ok=True)  # output_problem checked it can be made
    try:
        with open(tmp, "w", encoding="utf-8") as f:  # a report's µs and –, whatever the locale
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    try:
        fd = os.open(p.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass  # the rename is done; a folder that cannot be fsynced is not an error
