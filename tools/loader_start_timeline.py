#!/usr/bin/env python3
"""Where a DataLoader's workers' start goes: runs a Python training script as it is, in this
process, and times the first DataLoader that starts worker processes, from iter() to its first
batch, split at the points that decide it:

    forking       iter() to the last worker forked: each fork copies the program's page
                  tables, so it grows with what the program holds
    index wait    from there to the moment the worker that builds batch 0 starts on it: the
                  indices of the first batches are drawn and queued (the sampler; the main
                  process does this after forking every worker) and the worker starts up
    first build   the worker building batch 0 (its fetch: __getitem__ and the collate),
                  cold: a fresh process, beside the other workers building theirs
    hand-over     built to received by the training thread (the batch moved into shared
                  memory, queued, its storage rebuilt on this side)

The four add up to the first batch wait, iter() to the batch (inside the `first_batch_s` that
`tutorial_style.py --fix workers` prints), and less the plain script's own (building one batch on the training
thread), to the one-time cost `hdbench_profile` prices from tools/handover_probe.py's
`workers_start_s`. When `verify`'s row "the workers' start" misses, this says which part the
probe did not reproduce. On this repository's 2-vCPU VM (PyTorch 1.13, tutorial_style.py
--device cpu --synthetic --fix workers --workers 3, three runs): forking 21.4-30.2 ms, index
wait 4.1-6.7 ms, first build 7.1-11.7 ms, hand-over 6.5-11.2 ms; the probe's own loader forks
as long, and builds its first batch, whole, in 0.9 ms.

    loader_start_timeline.py [--out FILE.json] SCRIPT [ARG...]

The script runs as __main__ with ARG as its arguments and its own folder first on sys.path, as
`python3 SCRIPT ARG...` would run it; its output and exit status are its own. The timeline
goes to standard error when the first batch arrives, and with --out as JSON:

    {"workers", "first_batch_s", "parts_s": {"forking", "index_wait", "first_build",
     "hand_over"}, "forks_s": [each fork's own seconds], "iter_s" (iter()'s own time),
     "builder": {"pid", "worker_id"}, "torch"}

or {"workers": 0, "not_timed": why} where no DataLoader started workers. Only PyTorch's own
DataLoader internals are wrapped (`DataLoader._get_iterator`, `_BaseDataLoaderIter.__next__`,
the workers' fetchers, `os.fork`), each only timed, never changed; where a version lacks one,
the JSON's `not_timed` says which.
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import sys
import tempfile
import time


class Timeline:
    """The stamps of the first DataLoader iterator with workers. The workers, forks of this
    process, append theirs to a file this process opened (O_APPEND: one write a line)."""

    def __init__(self):
        fd, self.path = tempfile.mkstemp(prefix="loader-start-", suffix=".txt")
        os.close(fd)
        self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        self.main_pid = os.getpid()
        self.iterator_id = None  # the timed iterator's id(), once iter() has made it
        self.started = None
        self.iter_s = None
        self.forks: list[tuple[float, float]] = []
        self.workers = 0
        self.done = False
        self.missing: list[str] = []

    def timing(self) -> bool:
        """Whether the timed iterator is starting (its forks are the ones to time)."""
        return self.started is not None and self.iterator_id is None and not self.done

    def stamp(self, name: str, value: float | None = None) -> None:
        """A worker's stamp: its pid, what, and when (CLOCK_MONOTONIC, the same in every
        process) or `value`. A worker forked once the timeline was done writes nothing: the
        file is closed and gone by then, its descriptor perhaps the program's own."""
        if self.done:
            return
        os.write(self.fd, f"{os.getpid()} {name} {time.perf_counter() if value is None else value:.9f}\n".encode())

    def worker_stamps(self) -> dict[int, dict[str, float]]:
        stamps: dict[int, dict[str, float]] = {}
        with open(self.path, encoding="ascii", errors="replace") as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3:
                    stamps.setdefault(int(parts[0]), {}).setdefault(parts[1], float(parts[2]))
        return stamps

    def finish(self, received: float) -> dict:
        """The timeline, once the timed iterator's first batch is here."""
        try:
            stamps = self.worker_stamps()
        finally:
            self.close()
        # batch 0 goes to worker 0 (DataLoader hands out indices round robin from worker 0)
        builder = next((pid for pid, s in stamps.items() if s.get("worker_id") == 0 and "fetch_start" in s), None)
        if builder is None:
            builder = min((pid for pid, s in stamps.items() if "fetch_end" in s),
                          key=lambda pid: stamps[pid]["fetch_end"], default=None)
        out = {"workers": self.workers, "first_batch_s": received - self.started, "iter_s": self.iter_s,
               "forks_s": [end - start for start, end in self.forks], "torch": torch_version()}
        if builder is None or "fetch_end" not in stamps[builder] or not self.forks:
            out["not_timed"] = "the worker that built batch 0 left no stamps" if self.forks else \
                "no fork was seen (workers started otherwise than by fork)"
        else:
            s = stamps[builder]
            forked = self.forks[-1][1]
            out["builder"] = {"pid": builder, "worker_id": int(s.get("worker_id", -1))}
            out["parts_s"] = {"forking": forked - self.started,
                              "index_wait": s["fetch_start"] - forked,
                              "first_build": s["fetch_end"] - s["fetch_start"],
                              "hand_over": received - s["fetch_end"]}
        if self.missing:
            unwrapped = "not wrapped: " + ", ".join(self.missing)
            out["not_timed"] = "; ".join(filter(None, [out.get("not_timed"), unwrapped]))
        return out

    def close(self) -> None:
        """The stamps' file closed and gone (a worker still running keeps its own descriptor)."""
        if self.done:
            return
        self.done = True
        os.close(self.fd)
        os.unlink(self.path)


def torch_version() -> str:
    torch = sys.modules.get("torch")
    return getattr(torch, "__version__", "") if torch else ""


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms"


def describe(t: dict) -> str:
    """The timeline in a few lines, for standard error."""
    if "parts_s" not in t:
        return f"loader_start_timeline: not timed: {t.get('not_timed', 'no DataLoader started workers')}"
    p = t["parts_s"]
    forks = t["forks_s"]
    lines = [f"loader_start_timeline: {t['workers']} workers, first batch {ms(t['first_batch_s'])} after iter():",
             f"  forking      {ms(p['forking']):>10}  ({len(forks)} forks, {ms(min(forks))}-{ms(max(forks))} each)",
             f"  index wait   {ms(p['index_wait']):>10}  (iter() returned after {ms(t['iter_s'] or 0.0)})",
             f"  first build  {ms(p['first_build']):>10}  (worker {t['builder']['worker_id']}, batch 0)",
             f"  hand-over    {ms(p['hand_over']):>10}"]
    if t.get("not_timed"):
        lines.append(f"  ({t['not_timed']})")
    return "\n".join(lines)


def install(timeline: Timeline, out: str | None) -> None:
    """Wraps PyTorch's DataLoader start where it is, to time it (each wrapper calls the original)."""
    import torch.utils.data.dataloader as dataloader
    from torch.utils.data import _utils

    def stamp_quietly(name: str, value: float | None = None) -> None:
        try:
            timeline.stamp(name, value)
        except OSError:  # a worker's stamp lost: the timeline says it has none from it
            pass

    def wrap(owner, name: str, make):
        original = getattr(owner, name, None)
        if original is None:
            timeline.missing.append(f"{getattr(owner, '__name__', owner)}.{name}")
            return
        setattr(owner, name, make(original))

    def get_iterator(original):
        def timed(self, *args, **kwargs):
            if getattr(self, "num_workers", 0) <= 0 or timeline.started is not None:
                return original(self, *args, **kwargs)
            timeline.workers = self.num_workers
            timeline.started = time.perf_counter()
            iterator = original(self, *args, **kwargs)
            timeline.iter_s = time.perf_counter() - timeline.started
            timeline.iterator_id = id(iterator)
            return iterator
        return timed

    def next_batch(original):
        def timed(self, *args, **kwargs):
            batch = original(self, *args, **kwargs)
            if not timeline.done and id(self) == timeline.iterator_id and os.getpid() == timeline.main_pid:
                received = time.perf_counter()
                try:
                    result = timeline.finish(received)
                except (OSError, ValueError, KeyError) as error:  # a timing's fault is never the program's
                    result = {"workers": timeline.workers, "not_timed": f"the stamps could not be read: {error}"}
                report(result, out)
            return batch
        return timed

    def fetch(original):
        def timed(self, *args, **kwargs):
            first = os.getpid() != timeline.main_pid and getattr(timed, "pid", None) != os.getpid()
            if first:
                timed.pid = os.getpid()
                info = _utils.worker.get_worker_info()
                stamp_quietly("fetch_start")
                if info is not None:
                    stamp_quietly("worker_id", info.id)
            batch = original(self, *args, **kwargs)
            if first:
                stamp_quietly("fetch_end")
            return batch
        return timed

    def fork(original):
        def timed():
            if not timeline.timing():
                return original()
            start = time.perf_counter()
            pid = original()
            if pid != 0:
                timeline.forks.append((start, time.perf_counter()))
            return pid
        return timed

    wrap(dataloader.DataLoader, "_get_iterator", get_iterator)
    wrap(dataloader._BaseDataLoaderIter, "__next__", next_batch)
    wrap(_utils.fetch._MapDatasetFetcher, "fetch", fetch)
    wrap(_utils.fetch._IterableDatasetFetcher, "fetch", fetch)
    wrap(os, "fork", fork)


def report(result: dict, out: str | None) -> None:
    """The timeline to `out` as JSON, then to standard error. It is called from inside the
    program (its DataLoader's __next__, or as the script ends), so nothing here may fail
    the program: the file first, so that a standard error that cannot be written (full,
    closed) loses only the lines, and those lines' failure swallowed."""
    problem = ""
    if out:
        try:
            write_json(out, result)
        except OSError as error:
            problem = f"loader_start_timeline: could not write {out}: {error}"
    for text in (describe(result), problem):
        if text:
            try:
                print(text, file=sys.stderr, flush=True)
            except OSError:  # the program's own standard error, failing: its writes will say so, not ours
                pass


def write_json(path: str, data: dict) -> None:
    """Whole or not at all: written beside, then renamed over (nothing left beside on failure)."""
    partial = path + ".partial"
    try:
        with open(partial, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)


def output_problem(path: str, script: str) -> str:
    """Why `path` cannot take the timeline ("" when it can), said before the script runs.
    This tool imports nothing of the project's (it may run where only its file is), so this
    is a short form of hdreport.core.writer.output_problem."""
    if os.path.isdir(path):
        return "is a folder"
    # A device or a FIFO would be replaced by a regular file (the JSON is written beside and
    # renamed over it): as root, --out /dev/null would replace /dev/null.
    if os.path.exists(path) and not os.path.isfile(path):
        return "is not a regular file (a device or a pipe): give a file's path"
    if os.path.exists(path) and os.path.samefile(path, script):
        return "is the script: writing it would lose the script"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot be written in {folder}"
    return ""


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Times the first DataLoader with workers in a Python script, iter() to its first batch, in parts.")
    parser.add_argument("--out", help="the timeline as JSON")
    parser.add_argument("script", help="the Python script to run, as python3 would")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    args = parser.parse_args(argv)
    if not os.path.isfile(args.script):
        parser.error(f"{args.script}: {'a folder, not a script' if os.path.isdir(args.script) else 'no such file'}")
    problem = output_problem(args.out, args.script) if args.out else ""
    if problem:  # said before the script runs, not after
        parser.error(f"--out {args.out}: {problem}")
    return args


def main(argv: list[str]) -> int:
    args = parse(argv)
    timeline = Timeline()
    try:
        install(timeline, args.out)
    except ImportError as error:
        print(f"loader_start_timeline: PyTorch cannot be imported by {sys.executable} ({error}); run this "
              "with the Python that runs the script", file=sys.stderr)
        timeline.close()
        return 1
    sys.argv = [args.script, *args.args]
    # the script's folder where python3 SCRIPT puts it, in place of this tool's
    here = os.path.dirname(os.path.abspath(__file__))
    script_folder = os.path.dirname(os.path.abspath(args.script))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        sys.path[0] = script_folder
    else:
        sys.path.insert(0, script_folder)
    status = 0
    try:
        runpy.run_path(args.script, run_name="__main__")
    except SystemExit as exit_:
        status = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        if not isinstance(exit_.code, (int, type(None))):
            print(exit_.code, file=sys.stderr)
    finally:
        if os.getpid() == timeline.main_pid and not timeline.done:
            why = "no DataLoader started workers" if timeline.started is None else "its first batch never came"
            report({"workers": timeline.workers, "not_timed": why}, args.out)
            timeline.close()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
