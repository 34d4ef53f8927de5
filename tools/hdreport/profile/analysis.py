"""What a recorded program's data movement cost: its copies sorted into classes and rated
against the baseline's ceilings, the GPU's busy and idle time, and the costs the findings
(findings.py) turn into advice.

A copy is BLOCKING when the host thread that issued it (correlation -> api record -> thread)
was, at the copy's end, inside a synchronous copy call (cudaMemcpy* not ending in Async) or
inside any *Synchronize call: PyTorch's `.to(device)` without non_blocking is
cudaMemcpyAsync + cudaStreamSynchronize, and `.item()` the same with a 4-byte D2H copy.
A copy whose issuing call is followed at once, on its thread, by a blocking call is blocking
too, though it ended before that call began: the program waited for it, and only a race
the GPU won (an idle GPU's `.item()`) keeps the wait from covering it. A copy whose call was
not recorded is blocking when its API was not an async one.

What a copy costs the program (its `cost`): a pageable copy, or one whose call blocked, costs
from the start of the call that issued it (correlation id) to the later of the call's end
and the copy's end, less the time other work on its stream kept it queued: the staging of a
pageable copy is on the host, in the call, and CUPTI's copy record covers only the DMA out of
the driver's staging buffer (on an H200 a 3.2 MB pageable copy's call lasted 403 us where its
record lasted 251 us). hdbench's own pageable figures are timed end to end, so a class's
GB/s is its bytes over its cost, and "of ceiling" means the same on both sides. Any other
copy (pinned and asynchronous, or whose call was not recorded) costs its record's duration.
A class whose GB/s is above its ceiling publishes no fraction: `ceiling_problem` says which
figure is wrong.

Totals: span (the first GPU record's start to the last one's end), GPU busy (per device the
union of kernels, copies and memsets, summed over devices), kernel time (the same for
kernels), copy time (the sum of the copies' durations: two at once count twice), host
blocked (the sum of the blocking calls). Costs: of each blocking call, the time the copies
that ended in it were running is host blocked on copies, the rest on sync; small copies are
H2D/D2H copies of <= 64 KiB, their overhead the baseline's per-copy overhead each (null with
small copies and no baseline); blocking reads are blocking D2H copies of <= 1 KiB, and the
GPU idle after one is the gap until that GPU's next record.

Devices are told apart by their index in each process; processes that use the same index
are taken to share that GPU (the usual case: one machine, one CUDA_VISIBLE_DEVICES).
Correlation ids, threads and streams are per process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hdreport.core.units import digits3
from hdreport.profile.baseline import Ceilings
from hdreport.profile.intervals import Calls, Union
from hdreport.profile.records import Recording

KiB, MiB = 1 << 10, 1 << 20
SIZE_BUCKETS = ((4 * KiB, "<=4 KiB"), (64 * KiB, "4-64 KiB"), (MiB, "64 KiB-1 MiB"), (16 * MiB, "1-16 MiB"),
                (256 * MiB, "16-256 MiB"), (float("inf"), ">256 MiB"))
DIRECTIONS = {"HtoD": "h2d", "DtoH": "d2h", "DtoD": "d2d", "HtoH": "h2h", "PtoP": "p2p"}
SMALL_COPY = 64 * KiB  # at most this many bytes: a copy whose fixed cost dominates its bytes
BLOCKING_READ = KiB  # a blocking D2H copy this small is the host reading a value (`loss.item()`)
NS = 1e-9


def size_bucket(n: int) -> str:
    return next(name for limit, name in SIZE_BUCKETS if n <= limit)


VERSION_TAIL = re.compile(r"(_ptsz|_ptds)?(_v\d+)?$")


def is_blocking_call(name: str) -> bool:
    """A runtime call during which the host thread waits for the GPU. The name as called:
    a recorder that kept CUPTI's spelling ("cudaMemcpyAsync_ptsz_v7000") is read the same."""
    name = VERSION_TAIL.sub("", name)
    return (name.startswith("cudaMemcpy") and not name.endswith("Async")) or "Synchronize" in name


@dataclass(slots=True)
class Copy:
    pid: int
    device: int
    stream: int
    direction: str  # h2d, d2h, d2d, h2h, p2p
    src: str
    dst: str
    bytes: int
    start: int
    end: int
    blocking: bool = False
    waited_by: tuple | None = None  # (pid, thread, call index) of the blocking call it ended in
    overlapped: int = 0  # ns of it under a kernel on the same device
    call: tuple | None = None  # (start, end, name, thread) of the runtime call that issued it
    cost: int = 0  # ns: what the program paid for it (see the module's docstring)
    call_index: int | None = None  # index in the recording's apis of the call that issued it

    @property
    def duration(self) -> int:
        return self.end - self.start

    @property
    def host_kind(self) -> str:
        """The host side's memory kind: what the baseline's ceilings are indexed by."""
        return self.src if self.direction == "h2d" else self.dst if self.direction == "d2h" else ""

    @property
    def key(self) -> tuple:
        return (self.direction, self.src, self.dst, self.blocking, size_bucket(self.bytes))

    @property
    def timed_end_to_end(self) -> bool:
        """Costed from its call (see set_costs), not by its DMA record alone."""
        return self.call is not None and (self.blocking or self.host_kind == "pageable")

    @property
    def is_blocking_read(self) -> bool:
        return self.blocking and self.direction == "d2h" and self.bytes <= BLOCKING_READ


@dataclass
class Analysis:
    copies: list = field(default_factory=list)
    kernels: dict = field(default_factory=dict)  # device -> Union of its kernels
    busy: dict = field(default_factory=dict)  # device -> Union of its kernels, copies and memsets
    stream_work: dict = field(default_factory=dict)  # (pid, device, stream) -> Union of its kernels and memsets
    blocking_calls: dict = field(default_factory=dict)  # (pid, thread, index) -> (start, end) ns
    span: int = 0  # ns, first GPU record's start to the last one's end
    classes: list = field(default_factory=list)
    totals: dict = field(default_factory=dict)
    costs: dict = field(default_factory=dict)


def _copies(recording: Recording) -> list[Copy]:
    return [Copy(pid=r["pid"], device=r["device"], stream=r.get("stream", 0) if isinstance(r.get("stream"), int) else 0,
                 direction=DIRECTIONS.get(r["direction"], r["direction"].lower()),
                 src=str(r.get("src", "unknown")), dst=str(r.get("dst", "unknown")), bytes=r["bytes"],
                 start=r["start_ns"], end=r["end_ns"]) for r in recording.copies]


def classify_blocking(recording: Recording, copies: list[Copy]) -> dict:
    """Sets each copy's `blocking` and `waited_by`; returns the blocking calls' (start, end)."""
    calls_by_thread: dict[tuple, list] = {}
    spans = {}
    issued_by: dict[tuple, int] = {}  # (pid, correlation) -> thread
    issuer: dict[tuple, int] = {}  # (pid, correlation) -> index of the call in recording.apis
    for i, api in enumerate(recording.apis):
        if isinstance(api.get("correlation"), int):
            issued_by[(api["pid"], api["correlation"])] = api["thread"]
            issuer[(api["pid"], api["correlation"])] = i
        if is_blocking_call(api["name"]):
            key = (api["pid"], api["thread"])
            calls_by_thread.setdefault(key, []).append((api["start_ns"], api["end_ns"], i))
            spans[(api["pid"], api["thread"], i)] = (api["start_ns"], api["end_ns"])
    threads = {key: Calls(calls) for key, calls in calls_by_thread.items()}
    following = next_calls(recording)
    for copy, record in zip(copies, recording.copies):
        index = issuer.get((copy.pid, record.get("correlation")))
        if index is not None:
            api = recording.apis[index]
            copy.call = (api["start_ns"], api["end_ns"], api["name"], api["thread"])
            copy.call_index = index
        thread = issued_by.get((copy.pid, record.get("correlation")))
        if thread is None:  # its call was not recorded: trust CUPTI's async flag
            copy.blocking = record.get("async_api") is not True
            continue
        calls = threads.get((copy.pid, thread))
        index = calls.covering(copy.end) if calls else None
        if index is None and copy.call_index is not None:  # done before the wait began: the same wait
            after = following.get(copy.call_index)
            if after is not None and is_blocking_call(recording.apis[after]["name"]) and \
                    copy.end <= recording.apis[after]["start_ns"]:
                index = after
        if index is not None:
            copy.blocking, copy.waited_by = True, (copy.pid, thread, index)
    return spans


def next_calls(recording: Recording) -> dict[int, int]:
    """Index in recording.apis -> the index of the next call its thread made (by start).

    `.item()` is cudaMemcpyAsync then cudaStreamSynchronize. When the GPU is idle its 4-byte
    copy can end before the synchronize starts, so no blocking call covers the copy's end;
    on an H100 host 227 of the tutorial's 2,000 reads did, and without this the model merged
    their steps into "stalls" of up to 300 calls. A copy whose issuing call is followed at
    once by a blocking call is waited for by it, however the race went."""
    by_thread: dict[tuple, list] = {}
    for i, api in enumerate(recording.apis):
        by_thread.setdefault((api["pid"], api["thread"]), []).append((api["start_ns"], i))
    following = {}
    for calls in by_thread.values():
        calls.sort()
        following.update((i, j) for (_, i), (_, j) in zip(calls, calls[1:]))
    return following


def set_costs(copies: list[Copy], stream_busy: dict) -> None:
    """Each copy's cost: end to end from its call for a pageable or blocking copy, less the
    time its stream was busy with other work between the call's start and the copy's start."""
    for c in copies:
        c.cost = c.duration
        if not c.timed_end_to_end:
            continue
        start, end = c.call[0], max(c.end, c.call[1])
        queued = stream_busy.get((c.pid, c.device, c.stream))
        behind = queued.overlap(start, c.start) if queued and c.start > start else 0
        c.cost = max(c.duration, end - start - behind)


def ceiling_problem(row: dict) -> str:
    """Why a class's GB/s above its ceiling is not published as a fraction ("" when it is not above)."""
    if row["ceiling_GB/s"] is None or row["time_s"] <= 0 or row["achieved_GB/s"] <= row["ceiling_GB/s"]:
        return ""
    rate = f"{digits3(row['achieved_GB/s'])} GB/s is above the baseline's {digits3(row['ceiling_GB/s'])} GB/s"
    host = row["src"] if row["direction"] == "h2d" else row["dst"] if row["direction"] == "d2h" else ""
    # schema 1 rows have no `timed_by`: every copy was timed by its DMA record then
    if host == "pageable" and row.get("timed_by", "copy record") != "call and copy":
        return (f"{rate}: these pageable copies' calls were not recorded, so they are timed by CUPTI's DMA "
                "record alone, without the staging on the host; the measurement is short, not the ceiling")
    return (f"{rate}: the ceiling is wrong for these copies (the baseline was measured on another machine or "
            "run, or interpolated between sizes it measured far apart); measure a baseline on this machine at "
            "this size")


def published_classes(profile: dict) -> list[dict]:
    """A profile report's copy classes as the tools show them: a row whose fraction is above 1
    (a schema 1 report's, written before `ceiling_problem` existed: its pageable copies were
    timed by their DMA records alone) gets no fraction and the problem instead, as _class_rows
    gives a new one."""
    out = []
    for row in profile.get("copy_classes") or []:
        fraction = row.get("fraction_of_ceiling")
        if fraction is not None and fraction > 1 and not row.get("ceiling_problem"):
            row = {**row, "fraction_of_ceiling": None, "ceiling_problem": ceiling_problem(row)}
        out.append(row)
    return out


def _class_rows(copies: list[Copy], ceilings: Ceilings) -> list[dict]:
    groups: dict[tuple, list[Copy]] = {}
    for c in copies:
        groups.setdefault(c.key, []).append(c)
    rows = []
    for (direction, src, dst, blocking, bucket), members in groups.items():
        n_bytes = sum(c.bytes for c in members)
        time_s = sum(c.cost for c in members) * NS
        end_to_end = sum(1 for c in members if c.timed_end_to_end)
        mean = n_bytes / len(members)
        kind = src if direction == "h2d" else dst if direction == "d2h" else ""
        # Timed by DMA records alone, held against a DMA rate (a pageable copy's record leaves
        # its staging out besides: no rate makes it right, ceiling_problem says so).
        by_record = not end_to_end and kind != "pageable"
        ceiling, source = (ceilings.dma_gbps if by_record else ceilings.gbps)(direction, kind, mean) if mean > 0 \
            else (None, "copies of 0 bytes")
        pinned = ceilings.gbps(direction, "pinned", mean)[0] if mean > 0 else None
        # Copies CUPTI timed at 0 ns (0-byte ones) have no rate: 0, and no fraction below.
        achieved = n_bytes / time_s / 1e9 if time_s > 0 else 0.0
        row = {
            "direction": direction, "src": src, "dst": dst, "blocking": blocking, "size_bucket": bucket,
            "count": len(members), "bytes": n_bytes, "mean_bytes": mean, "time_s": time_s,
            "dma_time_s": sum(c.duration for c in members) * NS,
            "timed_by": "call and copy" if end_to_end == len(members) else "copy record" if not end_to_end
            else "mixed",
            "achieved_GB/s": achieved, "ceiling_GB/s": ceiling, "ceiling_source": source,
            "fraction_of_ceiling": achieved / ceiling if time_s > 0 and ceiling else None,
            "pinned_ceiling_GB/s": pinned,
            "overlapped_s": sum(c.overlapped for c in members) * NS,
        }
        row["ceiling_problem"] = ceiling_problem(row)
        if row["ceiling_problem"]:
            row["fraction_of_ceiling"] = None  # never published above 1: one of the two figures is wrong
        rows.append(row)
    rows.sort(key=lambda r: (-r["time_s"], r["direction"], r["src"], r["dst"], r["blocking"], r["size_bucket"]))
    return rows


def analyse(recording: Recording, ceilings: Ceilings) -> Analysis:
    a = Analysis(copies=_copies(recording))
    a.blocking_calls = classify_blocking(recording, a.copies)
    gpu = [(r["device"], r["start_ns"], r["end_ns"]) for r in (*recording.kernels, *recording.memsets)]
    gpu += [(c.device, c.start, c.end) for c in a.copies]
    devices = sorted({d for d, _, _ in gpu})
    a.kernels = {d: Union((r["start_ns"], r["end_ns"]) for r in recording.kernels if r["device"] == d) for d in devices}
    a.busy = {d: Union((s, e) for dev, s, e in gpu if dev == d) for d in devices}
    a.span = max(e for _, _, e in gpu) - min(s for _, s, _ in gpu) if gpu else 0
    work: dict[tuple, list] = {}
    for r in (*recording.kernels, *recording.memsets):
        work.setdefault((r["pid"], r["device"], r.get("stream")), []).append((r["start_ns"], r["end_ns"]))
    a.stream_work = {key: Union(spans) for key, spans in work.items()}
    for c in a.copies:
        c.overlapped = a.kernels[c.device].overlap(c.start, c.end)
    busy_streams: dict[tuple, list] = {}
    for key, union in a.stream_work.items():
        busy_streams[key] = union.spans
    for c in a.copies:
        busy_streams.setdefault((c.pid, c.device, c.stream), []).append((c.start, c.end))
    # A copy's own record is left in: it starts where the overlap window ends, so it adds nothing.
    set_costs(a.copies, {key: Union(spans) for key, spans in busy_streams.items()})
    a.classes = _class_rows(a.copies, ceilings)
    busy = sum(u.length() for u in a.busy.values())
    blocked = sum(e - s for s, e in a.blocking_calls.values())
    a.totals = {
        "span_s": a.span * NS, "devices": len(devices), "gpu_busy_s": busy * NS,
        "kernel_s": sum(u.length() for u in a.kernels.values()) * NS,
        "copy_s": sum(c.duration for c in a.copies) * NS, "copy_cost_s": sum(c.cost for c in a.copies) * NS,
        "copies": len(a.copies),
        "copy_bytes": sum(c.bytes for c in a.copies), "host_blocked_s": blocked * NS,
        "gpu_idle_s": (a.span * len(devices) - busy) * NS,
    }
    a.costs = _costs(a, ceilings, blocked)
    return a


def _costs(a: Analysis, ceilings: Ceilings, blocked: int) -> dict:
    # Of each blocking call, the time the copies that ended in it were running: the host
    # waiting on copies. The rest of the blocked time waited on kernels (a `.item()` after a
    # step mostly waits for the step) or on nothing but the call itself.
    waited: dict[tuple, list] = {}
    for c in a.copies:
        if c.waited_by:
            waited.setdefault(c.waited_by, []).append((c.start, c.end))
    on_copies = sum(Union(spans).overlap(*a.blocking_calls[k]) for k, spans in waited.items())
    small = [c for c in a.copies if c.direction in ("h2d", "d2h") and c.bytes <= SMALL_COPY]
    overheads = {d: ceilings.per_copy_overhead_s(d) for d in ("h2d", "d2h")}
    reads = [c for c in a.copies if c.is_blocking_read]
    return {
        "copies_not_overlapped_s": sum(c.duration - c.overlapped for c in a.copies) * NS,
        "host_blocked_on_copies_s": on_copies * NS,
        "host_blocked_on_sync_s": (blocked - on_copies) * NS,
        "small_copies": {
            # time_s: their DMA records; cost_s: what the program paid, from their calls (as a class's
            # time), which holds their fixed cost (overhead_s), where the records leave it out
            "count": len(small), "time_s": sum(c.duration for c in small) * NS,
            "cost_s": sum(c.cost for c in small) * NS,
            # null: small copies, but no baseline to say what a copy's fixed cost is here
            "overhead_s": sum(overheads[c.direction] or 0 for c in small) if ceilings or not small else None},
        "blocking_reads": {
            "count": len(reads), "time_s": sum(c.duration for c in reads) * NS,
            "gpu_idle_after_s": sum(a.busy[c.device].idle_after(c.end) for c in reads) * NS,
            # the whole of the calls they ended in: what the host lost to them
            "host_blocked_s": sum(a.blocking_calls[k][1] - a.blocking_calls[k][0]
                                  for k in {c.waited_by for c in reads if c.waited_by}) * NS},
    }
