"""Reading what `libhdbench_inject.so` wrote for `hdbench_profile`: one
`records-<pid>.jsonl` per process that initialised CUDA, one JSON object a line.

    {"type": "process", "pid", "ppid", "command", "host", "gpus", "origin_ns"[, "error"]}   first
    {"type": "copy", "start_ns", "end_ns", "device", "stream", "direction", "src", "dst",
     "bytes", "async_api", "correlation"}
    {"type": "memset" | "kernel", "start_ns", "end_ns", "device", "stream", ...}
    {"type": "api", "start_ns", "end_ns", "thread", "name", "correlation"}
    {"type": "range", "start_ns", "end_ns", "thread", "name"}
    {"type": "end", "records", "over_budget", "beyond_trace_size", "cupti_dropped", "gpus", "trace"}   last

The process and end lines also carry "clock": {"cupti_ns", "monotonic_ns"}, the records'
clock read beside CLOCK_MONOTONIC. Beside them, a Python process writes pygc-<pid>.jsonl
(tools/profile_site/sitecustomize.py): its garbage collections on CLOCK_MONOTONIC, put on
the records' clock by a line through the process's clock pairs (`collections`), and at its
end the memory it held, sampled as it ran (`Process.memory`; `Recording.footprint`). A
process without a records file (a DataLoader worker that never used CUDA) is not read.

Records are not sorted. A process that was killed has no end line and maybe a torn last
line: every complete line is read, the torn one ignored, and the process marked incomplete.
A record that lacks a field the analysis needs is skipped and counted, never guessed.
"""

from __future__ import annotations

import errno
import gzip
import json
import os
import re
import stat
import zlib
from dataclasses import dataclass, field
from pathlib import Path

RECORDS_FILE = re.compile(r"records-([0-9]+)\.jsonl(\.gz)?")  # gzipped: records kept beside a reference profile
GC_FILE = re.compile(r"pygc-([0-9]+)\.jsonl(\.gz)?")
GPU_TYPES = ("copy", "memset", "kernel")


@dataclass
class Process:
    pid: int
    command: str = ""
    gpus: list = field(default_factory=list)
    complete: bool = False
    records: int = 0  # the end line's count, else the records read
    over_budget: int = 0
    beyond_trace_size: int = 0  # analysed, but the trace had reached its size limit
    cupti_dropped: int = 0
    error: str = ""  # CUPTI could not start in this process
    trace: str = ""  # the trace file's name in the records folder, "" if none
    origin_ns: int = 0
    synthetic: bool = False  # written by the tests' generator, not by the injection library
    readable: bool = False  # its file started with a process line, as the injection library writes it
    problems: list = field(default_factory=list)  # what the reader had to skip, as phrases
    clock: list = field(default_factory=list)  # (monotonic_ns, cupti_ns) pairs: the start's, the end's
    collections_timed: bool = False  # its Python garbage collections were timed and placed (pygc file)
    # the memory it held (the pygc file's memory line): what a DataLoader worker forked from it
    # copies the page tables of; None where not said
    memory: Memory | None = None
    # the Python processes it forked (DataLoader workers: they use no CUDA and leave no records,
    # their pygc file's first line names this one as its parent); None where its own pygc file
    # does not say its parent (no site hook, or one older than the field): not known
    forked: int | None = None

    def on_records_clock(self, monotonic_ns: int) -> int:
        """A CLOCK_MONOTONIC time on the records' clock: through the start and end pairs (one
        pair: shifted by its offset)."""
        (m0, c0), (m1, c1) = self.clock[0], self.clock[-1]
        if m1 > m0:
            return c0 + round((monotonic_ns - m0) * (c1 - c0) / (m1 - m0))
        return c0 + (monotonic_ns - m0)

    def note(self) -> str:
        parts = []
        if self.error:
            parts.append(f"CUPTI could not start: {self.error}")
        if not self.complete and not self.error:
            parts.append("no end line: the process was killed or crashed; the records it wrote up to then are used")
        if self.beyond_trace_size:
            parts.append(f"{self.beyond_trace_size} records were analysed but left out of the trace, which had "
                         "reached its size limit (HDBENCH_PROFILE_TRACE_MB, 200 MB by default)")
        if self.over_budget:
            parts.append(f"{self.over_budget} records beyond the budget were neither analysed nor traced "
                         "(raise --hdbench_trace_budget)")
        if self.cupti_dropped:
            parts.append(f"CUPTI dropped {self.cupti_dropped} records (its buffers were full); the figures miss them")
        return "; ".join(parts + self.problems)


@dataclass
class Memory:
    """What a process's Python said of the memory it held: `measure` (RssAnon, or VmRSS where
    the kernel says no more), samples as it ran ((records' clock ns, bytes); empty where its
    records carry no clock to place them, or before 2026-11-29) and at its end."""
    measure: str
    end_bytes: int
    samples: list = field(default_factory=list)

    def level(self, window: tuple | None) -> int:
        """The memory held while `window` (the steps) ran: the samples' median there; where
        none fell there (a short run, no steps), the largest of the samples and the end's,
        so a data set freed before the end still counts."""
        inside = sorted(b for t, b in self.samples if window and window[0] <= t <= window[1])
        return inside[len(inside) // 2] if inside else max([self.end_bytes, *(b for _, b in self.samples)])


@dataclass
class Recording:
    processes: list = field(default_factory=list)
    copies: list = field(default_factory=list)  # each record a dict with "pid" added
    memsets: list = field(default_factory=list)
    kernels: list = field(default_factory=list)
    apis: list = field(default_factory=list)
    ranges: list = field(default_factory=list)
    collections: list = field(default_factory=list)  # Python's garbage collections, on the records' clock

    @property
    def synthetic(self) -> bool:
        return any(p.synthetic for p in self.processes)

    def footprint(self, window: tuple | None = None) -> tuple[int, str] | None:
        """(bytes, measure): the most memory a recorded process held while the steps (`window`,
        records' clock) ran, the training process's as a rule (Memory.level); None where no
        process said it."""
        said = [(p.memory.level(window), p.memory.measure) for p in self.processes if p.memory is not None]
        return max(said) if said else None


def _is_int(v) -> bool:
    """An integer the injection library can write: 64 bits, signed or not (10**29 bytes made the
    analysis's float arithmetic overflow)."""
    return isinstance(v, int) and not isinstance(v, bool) and -2 ** 63 <= v < 2 ** 64


# Fields each record type must have, with an integer value, for the analysis to use it.
_INT_FIELDS = {
    "copy": ("start_ns", "end_ns", "device", "bytes"),
    "memset": ("start_ns", "end_ns", "device"),
    "kernel": ("start_ns", "end_ns", "device"),
    "api": ("start_ns", "end_ns", "thread"),
    "range": ("start_ns", "end_ns"),
}


def _usable(record: dict) -> bool:
    needs = _INT_FIELDS[record["type"]]
    if not all(_is_int(record.get(k)) for k in needs):
        return False
    if record["end_ns"] < record["start_ns"]:
        return False
    if record["type"] == "copy" and not isinstance(record.get("direction"), str):
        return False
    if record["type"] == "api" and not isinstance(record.get("name"), str):
        return False
    # keys the analysis joins on (a list there was unhashable): an integer, or absent
    return all(record.get(k) is None or _is_int(record[k]) for k in ("stream", "correlation", "thread"))


def _lines(data: bytes):
    """(line, is_last) of the file, the torn tail included (the caller decides)."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the file ended with a newline: no torn tail
    for i, line in enumerate(lines):
        yield line, i == len(lines) - 1


def read_process(path: Path, into: Recording) -> Process:
    """One process's file: its Process, its records appended to `into`."""
    process = Process(pid=int(RECORDS_FILE.fullmatch(path.name).group(1)))
    unreadable = skipped = 0
    torn = False
    read = 0
    seen_process_line = False
    targets = {"copy": into.copies, "memset": into.memsets, "kernel": into.kernels, "api": into.apis,
               "range": into.ranges}
    data = _file_bytes(path)
    for line, is_last in _lines(gzip.decompress(data) if path.name.endswith(".gz") else data):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            if is_last:
                torn = True  # the process died while writing it
            else:
                unreadable += 1
            continue
        kind = record.get("type") if isinstance(record, dict) and isinstance(record.get("type"), str) else None
        if kind == "process" and not seen_process_line:
            seen_process_line = process.readable = True
            _read_process_line(process, record)
        elif kind == "end":
            process.complete = True
            process.records = record.get("records") if _is_int(record.get("records")) else 0
            process.over_budget = record.get("over_budget") if _is_int(record.get("over_budget")) else 0
            beyond = record.get("beyond_trace_size")
            process.beyond_trace_size = beyond if _is_int(beyond) else 0
            process.cupti_dropped = record.get("cupti_dropped") if _is_int(record.get("cupti_dropped")) else 0
            process.trace = record.get("trace") if isinstance(record.get("trace"), str) else ""
            _read_clock(process, record)
            gpus = record.get("gpus")  # named at exit, once CUDA was up (the process line cannot)
            if isinstance(gpus, list) and gpus:
                process.gpus = [g for g in gpus if isinstance(g, str)]
        elif kind in targets:
            if _usable(record):
                record["pid"] = process.pid  # correlation ids, threads and streams are per process
                targets[kind].append(record)
                read += 1
            else:
                skipped += 1
        else:
            skipped += 1  # a type this reader does not know: ignored, as readers of reports do
    if not process.complete:
        process.records = read
    if not seen_process_line:
        process.problems.append("no process line: the file does not start as the injection library writes it")
    if torn:
        process.problems.append("its torn last line was ignored")
    if unreadable:
        process.problems.append(f"{unreadable} unreadable lines skipped")
    if skipped:
        process.problems.append(f"{skipped} records lacking a needed field, or of an unknown type, skipped")
    return process


def _read_process_line(process: Process, record: dict) -> None:
    if _is_int(record.get("pid")):
        process.pid = record["pid"]
    process.command = record.get("command") if isinstance(record.get("command"), str) else ""
    gpus = record.get("gpus")
    process.gpus = [g for g in gpus if isinstance(g, str)] if isinstance(gpus, list) else []
    process.origin_ns = record.get("origin_ns") if _is_int(record.get("origin_ns")) else 0
    error = record.get("error")
    process.error = error if isinstance(error, str) else ""
    process.synthetic = record.get("synthetic") is True
    _read_clock(process, record)


def _read_clock(process: Process, record: dict) -> None:
    clock = record.get("clock")
    if isinstance(clock, dict) and _is_int(clock.get("cupti_ns")) and _is_int(clock.get("monotonic_ns")):
        process.clock.append((clock["monotonic_ns"], clock["cupti_ns"]))


def read_collections(path: Path, process: Process, into: Recording) -> None:
    """A pygc file's collections, on the records' clock, into `into.collections`, and its
    memory line into `process.memory` (read_memory)."""
    data = _file_bytes(path)
    skipped, unplaced = 0, 0
    for line, _ in _lines(gzip.decompress(data) if path.name.endswith(".gz") else data):
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            skipped += 1  # a torn last line included: the process was killed while writing it
            continue
        if isinstance(record, dict) and record.get("type") == "memory":
            process.memory = read_memory(record, process) or process.memory
            continue
        if isinstance(record, dict) and record.get("type") == "pygc":
            if "parent" in record:  # this hook says its forks: none until a child's file says one
                process.forked = process.forked or 0
            continue
        if not isinstance(record, dict):
            continue
        if not all(_is_int(record.get(k)) for k in ("generation", "start_ns", "end_ns", "thread")) or \
                record["end_ns"] < record["start_ns"]:
            skipped += 1
            continue
        if not process.clock:
            unplaced += 1
            continue
        into.collections.append({"pid": process.pid, "thread": record["thread"], "generation": record["generation"],
                                 "start_ns": process.on_records_clock(record["start_ns"]),
                                 "end_ns": process.on_records_clock(record["end_ns"])})
    if not process.clock:
        if unplaced:
            process.problems.append("its garbage collections were timed, but its records carry no clock to place "
                                    "them on (an older injection library)")
        return
    process.collections_timed = True
    if skipped:
        process.problems.append(f"{skipped} unreadable lines of its garbage collections skipped")


def parent_of(path: Path) -> int | None:
    """The parent pid a pygc file's first line names (a forked child's), None where it names
    none or cannot be read."""
    try:
        data = _file_bytes(path)
        first = (gzip.decompress(data) if path.name.endswith(".gz") else data).split(b"\n", 1)[0]
        record = json.loads(first)
    except (*UNREADABLE, ValueError, RecursionError):
        return None
    parent = record.get("parent") if isinstance(record, dict) and record.get("type") == "pygc" else None
    return parent if _is_int(parent) else None


def read_memory(record: dict, process: Process) -> Memory | None:
    """A memory line (the samples placed on the records' clock; the line of 2026-11-28's eighth
    session said RssAnon at the end alone, `rss_anon_bytes`), None where it says nothing usable."""
    if _is_int(record.get("rss_anon_bytes")) and record["rss_anon_bytes"] >= 0:
        return Memory("RssAnon", record["rss_anon_bytes"])
    if record.get("measure") not in ("RssAnon", "VmRSS") or not _is_int(record.get("end_bytes")) or \
            record["end_bytes"] < 0:
        return None
    samples = record.get("samples") if isinstance(record.get("samples"), list) else []
    good = [(t, b) for t, b in (s for s in samples if isinstance(s, list) and len(s) == 2)
            if _is_int(t) and _is_int(b) and b >= 0]
    placed = [(process.on_records_clock(t), b) for t, b in good] if process.clock else []
    return Memory(record["measure"], record["end_bytes"], placed)


# A file that cannot be read whole: gone, a folder, not a regular file, not gzip, or gzip cut short.
UNREADABLE = (OSError, EOFError, zlib.error)


def _file_bytes(path: Path) -> bytes:
    """The bytes of a regular file; OSError for anything else. A pipe named as a records file
    would wait for a writer forever, a link to /dev/zero read without end."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a pipe or a device)")
        with open(fd, "rb", closefd=False) as f:
            return f.read()
    finally:
        os.close(fd)


def why(error: Exception) -> str:
    if isinstance(error, EOFError):
        return "it ends mid-stream (cut short while written or copied)"
    return getattr(error, "strerror", None) or str(error) or type(error).__name__


def read_recording(folder: str | Path) -> Recording:
    """Every records file in `folder` (none: an empty Recording), processes in start order."""
    recording = Recording()
    files = sorted(p for p in Path(folder).glob("records-*.jsonl*") if RECORDS_FILE.fullmatch(p.name))
    for path in files:
        try:
            recording.processes.append(read_process(path, recording))
        except UNREADABLE as e:
            pid = int(RECORDS_FILE.fullmatch(path.name).group(1))
            recording.processes.append(Process(pid=pid, problems=[f"{path.name} could not be read: {why(e)}"]))
    by_pid = {p.pid: p for p in recording.processes}
    children = []
    for path in sorted(Path(folder).glob("pygc-*.jsonl*")):
        match = GC_FILE.fullmatch(path.name)
        process = by_pid.get(int(match.group(1))) if match else None
        if process is None:
            if match:
                children.append(path)  # a process that never used CUDA (a DataLoader worker): it fed no GPU
            continue
        try:
            read_collections(path, process, recording)
        except UNREADABLE as e:
            process.problems.append(f"{path.name} could not be read: {why(e)}")
    for path in children:
        parent = by_pid.get(parent_of(path))
        if parent is not None and parent.forked is not None:
            parent.forked += 1
    recording.processes.sort(key=lambda p: (p.origin_ns, p.pid))
    return recording
