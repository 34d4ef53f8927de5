"""The steps the model prices (hdreport/profile/model.py), cut from a recording.

The feeding thread of each process (the one that launches and copies most) is cut into
steps at its per-step blocking reads (`loss.item()`: a blocking D2H read of <= 1 KiB, when
there are at least 10), else at its per-step synchronizes (`torch.cuda.synchronize()`: a
device or stream synchronize no copy ended in, at least 10, and at least SYNCS_PER_READ
times the reads, which then log every few steps inside them; R is then its wait, and the
`item` fix drops it), else at the starts of the NVTX ranges that mark its iterations
(`iteration_ranges`: one name, digits aside, at least 10 times, never overlapping, over at
least half their stretch; also where they are at least SYNCS_PER_READ times the reads or
synchronizes, which then log every few iterations inside them), else its whole recorded
time is one step. Each step holds what that thread did in it, part by part (model.Step: its
time T and the parts that sum to it).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter

from hdreport.profile.handover import ns_at
from hdreport.profile.host import feeding_threads
from hdreport.profile.intervals import Union
from hdreport.profile.model import Model, Step

MIN_BLOCKING_READS = 10  # fewer is a program reading a result, not one reading every step
# A loop that synchronizes every step and reads its loss every few (to log it) ends its steps
# at the synchronizes: with this many synchronizes a read or more, the reads are inside the steps
# (tutorial_style.py --step-wait sync logs every 100 steps: 10 reads in 1000 steps of 1000
# synchronizes, which cut at the reads made 10 steps of 100).
SYNCS_PER_READ = 2
MIN_MARKED_STEPS = 10  # as many ranges of one name, at least, to be a loop's iterations
# The share of their stretch (first start to last end) such ranges cover, at least: a range
# around the whole step, not one around a part of it (its forward pass, one layer).
MARKER_COVER = 0.5
DIGITS = re.compile(r"\d+")
# Another thread's calls this close together are one stretch of its work (autograd's device
# thread launching backward's kernels some tens of µs apart): while it runs, the training
# thread waits in backward() without the GIL. On the H100 recording of 2026-11-28 the
# training thread's GIL time came to 1.27 / 1.12 / 1.01 ms a step with 20 / 50 / 100 µs;
# 100 µs matches its time on the CPU measured unrecorded (0.97 ms a step, thread_time).
BURST_GAP_NS = 100_000
# What a CUDA graph of the step replaces, between its first launch call and its last: the
# launches, the Python between them (in backward() the wait for autograd's device thread too)
# and other calls (allocation, events). Copies, waits, batch building and Python's garbage
# collections stay, priced by their own fixes.
GRAPHED = ("launching", "host", "cuda_other")


def iteration_ranges(ranges: list) -> tuple[str, list] | None:
    """(name, [(start, end)] sorted) of the NVTX ranges that mark a thread's loop iterations
    (`ranges`: its (start, end, name)), or None. Names match with their digits aside ("step 12"
    and "step 13" are "step #"); the ranges must be at least MIN_MARKED_STEPS, never overlap
    one another (a range nested in itself is not a turn of the loop) and cover MARKER_COVER
    of their stretch. Of several such names, the one that covers most: the whole step."""
    by_name: dict[str, list] = {}
    for start, end, name in ranges:
        by_name.setdefault(DIGITS.sub("#", name.strip()), []).append((start, end))
    best = None
    for name, spans in by_name.items():
        if len(spans) < MIN_MARKED_STEPS:
            continue
        spans.sort()
        if any(later[0] < earlier[1] for earlier, later in zip(spans, spans[1:])):
            continue
        covered = sum(end - start for start, end in spans)
        if covered < MARKER_COVER * (spans[-1][1] - spans[0][0]):
            continue
        if best is None or covered > best[2]:
            best = (name, spans, covered)
    return (best[0], best[1]) if best else None


def _groups(copies: list, launches: list) -> list[list]:
    """H2D copies issued back to back (no launch call between two of them), in call order."""
    groups: list[list] = []
    previous = None
    for c in sorted(copies, key=lambda c: c.call[0]):
        launched_between = previous is not None and \
            bisect_left(launches, c.call[0]) > bisect_left(launches, previous.call[1])
        if previous is None or launched_between:
            groups.append([c])
        else:
            groups[-1].append(c)
        previous = c
    return groups


def _step(a, t, start: int, end: int, copies: list, launches: list, read, read_copies: list, busy, rate,
          pinned_rate, shapes: Counter, others: Union, pin_thread: bool, syncs: list = ()) -> tuple:
    """One step of thread `t`, [start, end]: `copies` are the H2D copies whose calls start in it;
    `read` is the key of the blocking call that ends it (its wait is R, never a copy's), or
    None, and `read_copies` the reads that ended in it; `others` the stretches the process's
    other threads were launching through; `pin_thread`: a pin thread fed its batches; `syncs`
    the thread's per-step synchronizes (step_synchronizes), whose waits in it are R_sync."""
    s = Step(T=end - start, R=a.blocking_calls[read][1] - a.blocking_calls[read][0] if read else 0,
             pin_thread=pin_thread, ends_in_wait=read is not None)
    s.R_sync = sum(max(0, min(a.blocking_calls[k][1], end) - max(a.blocking_calls[k][0], start))
                   for k in syncs if k != read)
    # the read's copy call: the copies that ended in the read's wait, issued in the step
    s.R_call = sum(c.call[1] - c.call[0] for c in read_copies if start <= c.call[0] < end)
    by_cause = t.time_by_cause(start, end, collections=False)
    s.gc = t.collections.overlap(start, end) if t.collections else 0
    if t.full_collections:
        s.gc_full = t.full_collections.overlap(start, end)
        starts = t.full_collections.starts
        s.gc_full_count = bisect_left(starts, end) - bisect_left(starts, start)
        s.gc_full_B = sum(t.full_collections.overlap(b, e) for b, e, cause in t.segments_in(start, end)
                          if cause == "input_pipeline")
    s.B = by_cause["input_pipeline"]
    waits_counted: set = {read}
    pin_cost = 0
    for group in _groups(copies, launches):
        s.batches += 1
        s.tensors += len(group)
        s.batch_bytes += sum(c.bytes for c in group)
        shapes[tuple(c.bytes for c in group)] += 1
        largest = max(group, key=lambda c: c.bytes)
        for c in group:
            call = c.call[1] - c.call[0]
            wait = 0
            if c.waited_by and c.waited_by not in waits_counted and c.waited_by[2] != c.call_index:
                waits_counted.add(c.waited_by)
                ws, we = a.blocking_calls[c.waited_by]
                wait = min(we, end) - max(ws, start) if we > start else 0
            if c is not largest:
                s.S += call + wait
                s.S_call += call
                s.extra_copies += 1
            elif c.host_kind == "pageable":
                s.L_pg += call + wait
                s.L_pg_call += call
                s.G_pg_dma += c.duration
                pinned = ns_at(c.bytes, pinned_rate(c.bytes))
                s.G_pinned_dma += min(c.duration, pinned) if pinned is not None else c.duration
                pinning = ns_at(c.bytes, rate(c.bytes))
                pin_cost += pinning if pinning is not None else call
            elif c.blocking:
                s.L_pin += wait
    segments = list(t.segments_in(start, end))
    launched = [(b, e) for b, e, cause in segments if cause == "launching"]
    first, last = (launched[0][0], launched[-1][1]) if launched else (end, end)
    for b, e, cause in segments:
        mine = 0  # of the segment, the part in H
        if cause == "launching":
            s.launch_calls += e - b
            s.launches += 1
            s.L_idle += (e - b) - busy.overlap(b, e)
        elif cause == "host":
            mine = (e - b) - others.overlap(b, e)
            s.H += mine
        if cause in GRAPHED and first <= b and e <= last:
            s.X += e - b
            s.X_H += mine
    s.G = busy.overlap(start, end)
    s.O = max(0, s.T - s.B - s.L_pg - s.L_pin - s.S - s.R)
    return s, pin_cost


def has_pin_thread(t, threads: dict, h2d: list) -> bool:
    """Feeding thread `t`'s batches came from a pin thread: most of its H2D bytes went from
    pinned memory, and another thread of its process pinned host memory and launched nothing."""
    pinned = sum(c.bytes for c in h2d if c.host_kind == "pinned")
    pinners = [o for o in threads.values() if o.pid == t.pid and o is not t and o.pinning_calls and not o.launches]
    return bool(pinners) and 2 * pinned >= sum(c.bytes for c in h2d) > 0


def step_synchronizes(a, t, mine: list) -> list:
    """Feeding thread `t`'s device and stream synchronizes in which none of its copies ended
    (`mine`), by their end: torch.cuda.synchronize() at the end of a step waits for the GPU as
    a per-step read does, so where there are no per-step reads the steps are cut at these."""
    waited = {c.waited_by for c in mine if c.waited_by}
    keys = [(t.pid, t.tid, i) for i in t.step_syncs]
    return sorted((k for k in keys if k in a.blocking_calls and k not in waited), key=lambda k: a.blocking_calls[k][1])


def bursts(threads: list) -> Union:
    """The stretches `threads` were working through: their calls, joined across gaps of up to
    BURST_GAP_NS."""
    spans = []
    for t in threads:
        at = None
        for start, end, _, _ in t.calls:
            if at is not None and start - at[1] <= BURST_GAP_NS:
                at[1] = max(at[1], end)
                continue
            if at is not None:
                spans.append(tuple(at))
            at = [start, end]
        if at is not None:
            spans.append(tuple(at))
    return Union(spans)


def build(a, threads: dict, ceilings) -> Model:
    """The model of every process's feeding thread (`a` is the Analysis)."""
    steps, pin_costs, any_reads, bounds_all, shapes, cuts = [], [], False, [], Counter(), set()
    rate_source = ceilings.memcpy_source() if ceilings else ""

    def rate(n: int):
        return ceilings.memcpy_gbps(n) if ceilings else None

    def pinned_rate(n: int):
        return ceilings.gbps("h2d", "pinned", n)[0] if ceilings else None

    for pid, t in feeding_threads(threads).items():
        if not t.segments:
            continue
        mine = [c for c in a.copies if c.pid == pid and c.call is not None and c.call[3] == t.tid]
        h2d = [c for c in mine if c.direction == "h2d"]
        others = bursts([o for o in threads.values() if o.pid == pid and o is not t])
        launches = sorted(b for b, _, cause, _ in t.calls if cause == "launching")
        devices = {c.device for c in a.copies if c.pid == pid} or set(a.busy)
        device = min(devices) if devices else None
        busy = a.busy.get(device)
        if busy is None:
            continue
        h2d.sort(key=lambda c: c.call[0])
        h2d_starts = [c.call[0] for c in h2d]
        pin_thread = has_pin_thread(t, threads, h2d)

        def issued_in(start: int, end: int) -> list:
            return h2d[bisect_left(h2d_starts, start):bisect_left(h2d_starts, end)]

        read_copies: dict[tuple, list] = {}  # blocking call -> the reads that ended in it
        for c in mine:
            if c.is_blocking_read and c.waited_by:
                read_copies.setdefault(c.waited_by, []).append(c)
        reads = sorted(read_copies, key=lambda k: a.blocking_calls[k][1])
        cut = "reads"
        syncs = step_synchronizes(a, t, mine)
        if len(syncs) < MIN_BLOCKING_READS:
            syncs = []  # a few in set-up or a checkpoint are no habit of the loop
        if syncs and (len(reads) < MIN_BLOCKING_READS or len(syncs) >= SYNCS_PER_READ * len(reads)):
            reads, read_copies, cut = syncs, {k: [] for k in syncs}, "synchronizes"
        sync_ends = [a.blocking_calls[k][1] for k in syncs]  # one thread's calls: in order, never overlapping

        def syncs_in(start: int, end: int) -> list:
            return syncs[bisect_right(sync_ends, start):bisect_left(sync_ends, end) + 1]

        marked = iteration_ranges(t.ranges)
        # a loop that marks its iterations and reads (or synchronizes) only every few of them, to
        # log: its steps are the marked iterations, the reads inside them
        if len(reads) >= MIN_BLOCKING_READS and not (marked and len(marked[1]) >= SYNCS_PER_READ * len(reads)):
            any_reads = any_reads or cut == "reads"
            bounds = [a.blocking_calls[k] for k in reads]
            for (_, prev_end), (_, read_end), read in zip(bounds, bounds[1:], reads[1:]):
                s, p = _step(a, t, prev_end, read_end, issued_in(prev_end, read_end), launches, read,
                             read_copies[read], busy, rate, pinned_rate, shapes, others, pin_thread,
                             syncs_in(prev_end, read_end))
                steps.append(s)
                pin_costs.append(p)
            bounds_all += [bounds[0][1], bounds[-1][1]]
            cuts.add(cut)
        elif marked:
            # each marked iteration runs from its range's start to the next one's (the last to its end)
            name, spans = marked
            for (start, end), after in zip(spans, [b for b, _ in spans[1:]] + [spans[-1][1]]):
                s, p = _step(a, t, start, after, issued_in(start, after), launches, None, [], busy, rate,
                             pinned_rate, shapes, others, pin_thread)
                steps.append(s)
                pin_costs.append(p)
            bounds_all += [spans[0][0], spans[-1][1]]
            cuts.add(f"range {name}")
        else:
            first, last = t.segments[0][0], t.segments[-1][1]
            s, p = _step(a, t, first, last, issued_in(first, last), launches, None, [], busy, rate, pinned_rate,
                         shapes, others, pin_thread)
            steps.append(s)
            pin_costs.append(p)
            bounds_all += [t.segments[0][0], t.segments[-1][1]]
    window = (min(bounds_all), max(bounds_all)) if cuts and bounds_all else None
    shape = max(shapes.items(), key=lambda kv: (kv[1], len(kv[0])))[0] if shapes else ()
    timed = any(t.collections is not None for t in feeding_threads(threads).values())
    return Model(steps, window, pin_costs, rate_source, any_reads, shape, steps_cut_at=", ".join(sorted(cuts)),
                 collections_timed=timed)
