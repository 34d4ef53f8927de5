"""What the host threads were doing, from their recorded CUDA calls and NVTX ranges, and
where the GPU's idle time went (for `hdbench_profile`).

A thread's time is cut into segments, each one of:

    blocked         inside a call that waits for the GPU (*Synchronize: a stream, event or
                    device synchronisation, the wait of a blocking `.to()` or `.item()`)
    copy_call       inside a cudaMemcpy* call: the staging of a pageable copy happens here
    launching       inside a kernel or graph launch call
    cuda_other      inside any other recorded CUDA call (memset, allocation, pinning, free)
    input_pipeline  outside CUDA, in host work that ends in an H2D copy of the data it made
                    (a batch built in the training thread), or inside an NVTX range that
                    names a data loader (PyTorch's DataLoader `__next__`, a `collate`)
    python_gc       outside CUDA, inside one of Python's garbage collections on this thread
                    (timed by tools/profile_site; the GPU's idle only: the step model keeps
                    them in the host work they interrupted)
    host            outside CUDA, any other host work (Python, an optimizer on the CPU)

Every GPU idle gap (per device, between busy stretches, within the span) is charged, for
the part of it before the first step or after the last one of the step model
(`outside_steps`: set-up such as loading data, and the end), to nothing; the rest to the
thread that fed the GPU next: the one whose call issued the first GPU record after the gap
(by correlation id), else the process's busiest feeding thread. The gap is split by what
that thread was doing at each moment. Calls that nest (a driver call inside a runtime one)
count once, as the outer call.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from hdreport.profile.analysis import VERSION_TAIL
from hdreport.profile.intervals import Union

CAUSES = ("input_pipeline", "python_gc", "host", "copy_call", "blocked", "launching", "cuda_other", "outside_steps")
# The calls that pin host memory: a thread that makes them and launches nothing is a pinning
# thread (PyTorch's DataLoader pin_memory thread allocates its pinned blocks so).
PINNING_CALLS = ("cudaHostAlloc", "cudaMallocHost", "cudaHostRegister")
# The calls that wait for all of a device's or a stream's work (torch.cuda.synchronize(),
# stream.synchronize()): made every step with no copy ending in them, they end each step as a
# per-step read does. An event synchronize waits for one piece of work the program chose (a
# double buffer's copy in well_written.py), not for the step, and is not one of them.
STEP_SYNC_CALLS = ("cudaDeviceSynchronize", "cudaStreamSynchronize", "cuCtxSynchronize", "cuStreamSynchronize")
LOADER_RANGE = re.compile(r"dataloader|__next__|collate|fetch|loader", re.I)


def call_category(name: str) -> str:
    name = VERSION_TAIL.sub("", name)
    if "Synchronize" in name:
        return "blocked"
    if name.startswith("cudaMemcpy"):
        return "copy_call"
    if name.startswith(("cudaLaunch", "cudaGraphLaunch", "cuLaunch", "cuGraphLaunch")):
        return "launching"
    return "cuda_other"


@dataclass
class Thread:
    """One host thread's calls, outermost only, sorted: (start, end, category, api index)."""
    pid: int
    tid: int
    calls: list = field(default_factory=list)
    input_until: set = field(default_factory=set)  # api indices of H2D copy calls: the host stretch before feeds them
    loader_ranges: Union | None = None
    collections: Union | None = None  # Python's garbage collections on this thread (None: not timed)
    full_collections: Union | None = None  # of them, the full (generation 2) ones
    ranges: list = field(default_factory=list)  # its NVTX ranges: (start, end, name)
    pinning_calls: int = 0  # its calls that pinned host memory (PINNING_CALLS)
    step_syncs: list = field(default_factory=list)  # api indices of its STEP_SYNC_CALLS
    segments: list = field(default_factory=list)  # (start, end, cause), contiguous from the first call's start
    starts: list = field(default_factory=list)

    @property
    def launches(self) -> int:
        return sum(1 for c in self.calls if c[2] in ("launching", "copy_call"))

    def build(self) -> None:
        """The segments: every call, and each stretch between two calls as input_pipeline
        (it ends in an H2D copy call) or host."""
        outer, reach = [], -1
        for call in sorted(self.calls):
            if call[1] <= reach:
                continue  # nested inside the call before (a driver call inside a runtime call)
            outer.append(call)
            reach = call[1]
        self.calls = outer
        segments, at = [], None
        for start, end, category, index in outer:
            if at is not None and start > at:
                segments.append((at, start, "input_pipeline" if index in self.input_until else "host"))
            start = max(start, at) if at is not None else start
            if end > start:
                segments.append((start, end, category))
            at = end if at is None else max(at, end)
        self.segments = segments
        self.starts = [s for s, _, _ in segments]

    def segments_in(self, start: int, end: int):
        """(start, end, cause) of each segment overlapping [start, end], clipped to it."""
        i = max(bisect_right(self.starts, start) - 1, 0)
        while i < len(self.segments) and self.segments[i][0] < end:
            s, e, cause = self.segments[i]
            if e > start:
                yield max(s, start), min(e, end), cause
            i += 1

    def time_by_cause(self, start: int, end: int, collections: bool = True) -> dict:
        """How the thread spent [start, end]: seconds-free ns per cause. Before its first call
        and after its last, the thread was doing host work (or had not started its CUDA work).
        With `collections` False, a garbage collection counts as the host work it interrupted."""
        out = dict.fromkeys(CAUSES, 0)
        if end <= start:
            return out
        covered = 0
        for s, e, cause in self.segments_in(start, end):
            part = e - s
            if cause in ("host", "input_pipeline") and collections and self.collections is not None:
                in_gc = self.collections.overlap(s, e)
                out["python_gc"] += in_gc
                part -= in_gc
                covered += in_gc
            if cause == "host" and self.loader_ranges is not None:
                in_loader = min(part, self.loader_ranges.overlap(s, e))
                out["input_pipeline"] += in_loader
                part -= in_loader
                covered += in_loader
            out[cause] += part
            covered += part
        rest = (end - start) - covered  # before the first call or after the last: host work
        in_gc = self.collections.overlap(start, end) - out["python_gc"] if collections and self.collections else 0
        in_gc = max(0, min(rest, in_gc))
        out["python_gc"] += in_gc
        out["host"] += rest - in_gc
        return out


def threads_of(recording, copies) -> dict:
    """(pid, tid) -> Thread, from the recording's api records and ranges; `copies` are the
    analysis's Copy objects (their calls mark the stretches that feed an H2D copy)."""
    threads: dict[tuple, Thread] = {}
    for i, api in enumerate(recording.apis):
        key = (api["pid"], api["thread"])
        thread = threads.setdefault(key, Thread(*key))
        thread.calls.append((api["start_ns"], api["end_ns"], call_category(api["name"]), i))
        thread.pinning_calls += VERSION_TAIL.sub("", api["name"]) in PINNING_CALLS
        if VERSION_TAIL.sub("", api["name"]) in STEP_SYNC_CALLS:
            thread.step_syncs.append(i)
    for c in copies:
        if c.direction == "h2d" and c.call_index is not None and c.host_kind != "device":
            thread = threads.get((c.pid, c.call[3]))
            if thread is not None:
                thread.input_until.add(c.call_index)
    ranges: dict[tuple, list] = {}
    for r in recording.ranges:
        if not (isinstance(r.get("thread"), int) and isinstance(r.get("name"), str)):
            continue
        key = (r["pid"], r["thread"])
        if key in threads:
            threads[key].ranges.append((r["start_ns"], r["end_ns"], r["name"]))
        if LOADER_RANGE.search(r["name"]):
            ranges.setdefault(key, []).append((r["start_ns"], r["end_ns"]))
    for key, spans in ranges.items():
        if key in threads:
            threads[key].loader_ranges = Union(spans)
    collections: dict[tuple, list] = {}
    for c in recording.collections:
        collections.setdefault((c["pid"], c["thread"]), []).append((c["start_ns"], c["end_ns"], c["generation"]))
    timed = {p.pid for p in recording.processes if p.collections_timed}
    for key, thread in threads.items():
        if key[0] in timed:  # timed: a thread without collections had none (an empty union, not None)
            spans = collections.get(key, [])
            thread.collections = Union((b, e) for b, e, _ in spans)
            thread.full_collections = Union((b, e) for b, e, generation in spans if generation == 2)
    for thread in threads.values():
        thread.build()
    return threads


def feeding_threads(threads: dict) -> dict:
    """pid -> the thread that launched and copied the most: the one a step's work comes from."""
    best: dict[int, Thread] = {}
    for t in threads.values():
        if t.pid not in best or t.launches > best[t.pid].launches:
            best[t.pid] = t
    return best


def gpu_records(recording, copies):
    """(device, start, end, pid, correlation) of every copy, kernel and memset."""
    out = [(c.device, c.start, c.end, c.pid, corr) for c, corr in
           zip(copies, (r.get("correlation") for r in recording.copies))]
    out += [(r["device"], r["start_ns"], r["end_ns"], r["pid"], r.get("correlation"))
            for r in (*recording.kernels, *recording.memsets)]
    return out


def idle_by_cause(recording, copies, busy: dict, threads: dict, window: tuple | None = None) -> dict:
    """The GPU idle time within the span, per cause (seconds), and the gaps counted; idle
    outside `window` (start, end: the steps of the model) is `outside_steps`."""
    records = gpu_records(recording, copies)
    issued: dict[tuple, tuple] = {(a["pid"], a["correlation"]): (a["pid"], a["thread"])
                                  for a in recording.apis if isinstance(a.get("correlation"), int)}
    feeders = feeding_threads(threads)
    first_after: dict[int, list] = {}
    for device, start, _, pid, corr in records:
        first_after.setdefault(device, []).append((start, pid, corr))
    totals = dict.fromkeys(CAUSES, 0)
    unattributed, gaps = 0, 0
    for device, union in busy.items():
        starts = sorted(first_after.get(device, []))
        keys = [s for s, _, _ in starts]
        for (_, gap_start), (gap_end, _) in zip(union.spans, union.spans[1:]):
            gaps += 1
            if window is not None:
                inside_start, inside_end = max(gap_start, window[0]), min(gap_end, window[1])
                inside = max(0, inside_end - inside_start)
                totals["outside_steps"] += (gap_end - gap_start) - inside
                if not inside:
                    continue
                gap_start, gap_end = inside_start, inside_end
            i = bisect_right(keys, gap_end) - 1  # a record that starts exactly at the gap's end
            _, pid, corr = starts[i]
            key = issued.get((pid, corr))
            thread = threads.get(key) if key else feeders.get(pid)
            if thread is None:
                unattributed += gap_end - gap_start
                continue
            for cause, ns in thread.time_by_cause(gap_start, gap_end).items():
                totals[cause] += ns
    total = sum(totals.values()) + unattributed
    return {"gpu_idle_s": total * 1e-9, "gaps": gaps,
            "by_cause_s": {cause: ns * 1e-9 for cause, ns in totals.items()},
            "unattributed_s": unattributed * 1e-9}
