"""Python's garbage collections, timed for hdbench_profile.

hdbench_profile puts this folder first on PYTHONPATH, so every Python process of the
profiled command imports this module at start-up. Where HDBENCH_PROFILE_DIR is set (and
HDBENCH_PROFILE_GC is not 0) it times each collection with `gc.callbacks` and writes them
to pygc-<pid>.jsonl there, one JSON object a line:

    {"type": "pygc", "pid", "clock": "monotonic"}                                      first
    {"generation", "start_ns", "end_ns", "thread", "collected"}                         each
    {"type": "memory", "rss_anon_bytes"}                                               at exit

on CLOCK_MONOTONIC (time.monotonic_ns()), which the injection library pairs with its own
clock in each records file's process and end lines; `thread` is the OS thread id, as the
records' calls carry. `rss_anon_bytes`: the process's anonymous resident memory at its end
(RssAnon), whose page tables a DataLoader worker forked from it copies: hdbench_profile's
probe times the workers' start in a process holding as much. Lines are appended every
FLUSH_EVERY collections and at exit, so a killed process keeps most of them. A collection costs two callbacks of about a
microsecond; MAX_COLLECTIONS bounds the file.

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


class Collections:
    def __init__(self, folder: str):
        self.folder = folder
        self.pending: list = []
        self.written = 0
        self.started = 0
        self.header = False

    def on_gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self.started = time.monotonic_ns()
            return
        if not self.started or self.written + len(self.pending) >= MAX_COLLECTIONS:
            return
        self.pending.append((info.get("generation", -1), self.started, time.monotonic_ns(),
                             threading.get_native_id(), info.get("collected", 0)))
        self.started = 0
        if len(self.pending) >= FLUSH_EVERY:
            self.flush()

    def flush(self, memory: int | None = None) -> None:
        if not self.pending and self.header and memory is None:
            return
        pending, self.pending = self.pending, []
        lines = [] if self.header else [json.dumps({"type": "pygc", "pid": os.getpid(), "clock": "monotonic"})]
        lines += [json.dumps({"generation": g, "start_ns": s, "end_ns": e, "thread": t, "collected": c})
                  for g, s, e, t, c in pending]
        if memory is not None:
            lines.append(json.dumps({"type": "memory", "rss_anon_bytes": memory}))
        try:
            with open(os.path.join(self.folder, f"pygc-{os.getpid()}.jsonl"), "a", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            self.header = True
            self.written += len(pending)
        except OSError:
            pass  # the folder is gone (the launcher ended): nothing to say it to

    def at_exit(self) -> None:
        """The last collections, and the process's anonymous resident memory at its end."""
        self.flush(rss_anon_bytes())

    def forked(self) -> None:
        """A forked child (a DataLoader worker) starts its own file, without its parent's."""
        self.pending, self.written, self.started, self.header = [], 0, 0, False


def rss_anon_bytes() -> int | None:
    """This process's anonymous resident memory (/proc/self/status RssAnon), None where unknown."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024  # kB
    except (OSError, ValueError, IndexError):
        pass
    return None


def start() -> None:
    folder = os.environ.get("HDBENCH_PROFILE_DIR")
    if not folder or os.environ.get("HDBENCH_PROFILE_GC") == "0" or not os.path.isdir(folder):
        return
    collections = Collections(folder)
    gc.callbacks.append(collections.on_gc)
    atexit.register(collections.at_exit)
    os.register_at_fork(after_in_child=collections.forked)


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
