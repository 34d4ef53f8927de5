"""Python's garbage collections, timed for hdbench_profile.

hdbench_profile puts this folder first on PYTHONPATH, so every Python process of the
profiled command imports this module at start-up. Where HDBENCH_PROFILE_DIR is set (and
HDBENCH_PROFILE_GC is not 0) it times each collection with `gc.callbacks` and writes them
to pygc-<pid>.jsonl there, one JSON object a line:

    {"type": "pygc", "pid", "parent", "clock": "monotonic"}                            first
    {"generation", "start_ns", "end_ns", "thread", "collected"}                         each
    {"type": "memory", "measure", "samples": [[monotonic_ns, bytes], ...], "end_bytes"}  at exit

on CLOCK_MONOTONIC (time.monotonic_ns()), which the injection library pairs with its own
clock in each records file's process and end lines; `thread` is the OS thread id, as the
records' calls carry. Lines are appended every FLUSH_EVERY collections and at exit, so a
killed process keeps most of them. A collection costs two callbacks of about a microsecond;
MAX_COLLECTIONS bounds the file. The first line is written as the process starts, and again
by a forked child at its fork with its parent's pid: a DataLoader worker ends in os._exit,
which writes nothing more, and its parent's recording then still says it had workers (the
workers use no CUDA and leave no records of their own).

The memory line says what a DataLoader worker forked from the process would copy (a fork
copies the parent's page tables): hdbench_profile's probe times the workers' start in a
process holding as much. `measure` is what /proc/self/status gives: RssAnon (the anonymous
resident memory) where the kernel says it, else VmRSS (all resident memory: gVisor, which
the GPU hosts run, says no more). It is read at most every MEMORY_EVERY_S seconds, right
after a collection (so outside the collection's time), each sample timed, and at exit
(`end_bytes`); hdbench_profile takes the level the process held while its steps ran. The
exit alone would not do: a training script's data set lives in main()'s locals, gone by then
(tutorial_style.py: 309 MB when it forks its workers, 123 MB at exit). Past
MAX_MEMORY_SAMPLES every other sample is dropped and the interval doubled.

Another sitecustomize on the path, which this one hides, is imported after it.
"""

from __future__ import annotations

import atexit
import gc
import importlib.util
import json
import os
import sys
import threading
import time

FLUSH_EVERY = 10_000
MAX_COLLECTIONS = 1_000_000


def memory_every_s(default: float = 0.5) -> float:
    """HDBENCH_PROFILE_MEMORY_EVERY_S, the seconds between memory samples (the tests shorten
    it); the default where it is not a positive number: nothing here may stop the program."""
    try:
        every = float(os.environ.get("HDBENCH_PROFILE_MEMORY_EVERY_S", default))
    except ValueError:
        return default
    return every if every > 0 else default


MEMORY_EVERY_S = memory_every_s()
MAX_MEMORY_SAMPLES = 100_000


class Collections:
    def __init__(self, folder: str):
        self.folder = folder
        self.pending: list = []
        self.written = 0
        self.started = 0
        self.header = False
        self.memory: list = []  # resident memory samples: [monotonic_ns, bytes]
        self.measure: str | None = None  # theirs
        self.sampled_ns = 0
        self.every_ns = MEMORY_EVERY_S * 1e9

    def on_gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self.started = time.monotonic_ns()
            return
        if not self.started or self.written + len(self.pending) >= MAX_COLLECTIONS:
            return
        ended = time.monotonic_ns()
        self.pending.append((info.get("generation", -1), self.started, ended,
                             threading.get_native_id(), info.get("collected", 0)))
        self.started = 0
        if len(self.pending) >= FLUSH_EVERY:
            self.flush()
        if ended - self.sampled_ns >= self.every_ns:
            self.sampled_ns = ended
            resident = resident_memory()
            if resident is not None:
                self.measure = resident[0]
                self.memory.append([ended, resident[1]])
                if len(self.memory) >= MAX_MEMORY_SAMPLES:
                    self.memory, self.every_ns = self.memory[::2], 2 * self.every_ns

    def memory_line(self) -> dict | None:
        """The memory line: the samples, and the exit's; None where /proc says nothing."""
        end = resident_memory()
        if end is None:
            return None
        measure, end_bytes = end
        return {"type": "memory", "measure": measure, "samples": self.memory if self.measure == measure else [],
                "end_bytes": end_bytes}

    def flush(self, memory: dict | None = None) -> None:
        if not self.pending and self.header and memory is None:
            return
        pending, self.pending = self.pending, []
        lines = [] if self.header else [json.dumps({"type": "pygc", "pid": os.getpid(), "parent": os.getppid(),
                                                    "clock": "monotonic"})]
        lines += [json.dumps({"generation": g, "start_ns": s, "end_ns": e, "thread": t, "collected": c})
                  for g, s, e, t, c in pending]
        if memory is not None:
            lines.append(json.dumps(memory))
        try:
            with open(os.path.join(self.folder, f"pygc-{os.getpid()}.jsonl"), "a", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            self.header = True
            self.written += len(pending)
        except OSError:
            pass  # the folder is gone (the launcher ended): nothing to say it to

    def at_exit(self) -> None:
        """The last collections, and the memory the process held."""
        self.flush(self.memory_line())

    def forked(self) -> None:
        """A forked child (a DataLoader worker) starts its own file, without its parent's, its
        first line (its parent's pid) written at once."""
        self.pending, self.written, self.started, self.header = [], 0, 0, False
        self.memory, self.measure, self.sampled_ns, self.every_ns = [], None, 0, MEMORY_EVERY_S * 1e9
        self.flush()


def resident_memory(status: str = "/proc/self/status") -> tuple[str, int] | None:
    """(measure, bytes): the process's anonymous resident memory (RssAnon), else where the
    kernel does not say it (gVisor) all its resident memory (VmRSS); None where neither."""
    found = {}
    try:
        with open(status, encoding="ascii", errors="replace") as f:
            for line in f:
                key = line.split(":", 1)[0]
                if key in ("RssAnon", "VmRSS"):
                    found[key] = int(line.split()[1]) * 1024  # kB
    except (OSError, ValueError, IndexError):
        return None
    measure = next((k for k in ("RssAnon", "VmRSS") if k in found), None)
    return (measure, found[measure]) if measure else None


def start() -> None:
    folder = os.environ.get("HDBENCH_PROFILE_DIR")
    if not folder or os.environ.get("HDBENCH_PROFILE_GC") == "0" or not os.path.isdir(folder):
        return
    collections = Collections(folder)
    gc.callbacks.append(collections.on_gc)
    atexit.register(collections.at_exit)
    os.register_at_fork(after_in_child=collections.forked)
    collections.flush()  # the first line, now: a process that ends in os._exit is still on record


def import_the_hidden_one() -> None:
    """The sitecustomize this one hides (the next on sys.path), under its own name."""
    here = os.path.dirname(os.path.abspath(__file__))
    for entry in sys.path:
        if os.path.abspath(entry or ".") == here:
            continue
        path = os.path.join(entry or ".", "sitecustomize.py")
        if os.path.isfile(path):
            spec = importlib.util.spec_from_file_location("_hdbench_hidden_sitecustomize", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return


start()
import_the_hidden_one()
