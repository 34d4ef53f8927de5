"""The step model `hdbench_profile` prices its fixes with: what each habit's fix removes from
the program's critical path, alone and together.

The feeding thread of each process (the one that launches and copies most) is cut into
steps (hdreport/profile/steps.py: at its per-step reads, synchronizes or iteration ranges,
else one stretch); a step's time T is the sum of what that thread did in it:

    B       input pipeline: host work that ends in an H2D copy of what it built
    L_pg    pageable copies: their calls (the staging) and the waits they ended in
    L_pin   pinned copies the host waited for: the waits
    S       the extra copies of a batch sent in pieces (every H2D copy of a group issued
            back to back, no launch between, but its largest): their calls and waits
    R       the wait in the step's blocking read or synchronize (the GPU finishing the step)
    O       the rest: launches, Python, anything else (L_idle of it with the GPU idle
            inside launch calls; X of it from the step's first launch to its last: the
            step's kernels launched op by op and the Python between them, outside copy
            calls, waits, batch building and garbage collections)
    H       of O, the host work outside CUDA calls that the thread did while no other thread
            of its process was launching (in backward() it waits, the GIL released, for
            autograd's device thread): its share of Python's GIL
    G       the GPU's busy time in the step (a bound: no fix makes a step shorter than it;
            pinning shortens it by what its pageable DMA records lose at the pinned rate)

Each fix changes some of these (FIXES); the time with a set of fixes applied is

    T(F) = max(G, B' + L_pg' + L_pin' + S' + O' + R')     (the training thread's own path)
    and with workers and pin (or a recorded pin thread and the graph), besides, at least
           H' + the pin thread's GIL time a step        the GIL is one: the pin thread, a
                                                        Python thread, holds it for its
                                                        work on each batch (measured by the
                                                        probe: pin_thread_batch_s, else
                                                        constants a batch and a tensor)
           and the pin thread's own pace                it cannot hand batches over faster
                                                        (the probe's pin_cycle_batch_s)
           the time these add over the own path is spent waiting for batches or for the
           GIL in the thread's own work, which the recording cannot tell apart: B' grows
           by it, and B' without it is kept beside (StepParts.B_own)
    B'     = min(B, gathering the batches)              gather (no workers): each batch gathered
                                                        whole, one index_select a tensor: the
                                                        probe's gather of a batch shaped as the
                                                        program's (Handover.gather_batch_s),
                                                        else the batches' bytes at GATHER_GBPS;
                                                        where a pin thread fed the steps, the
                                                        gathering whatever its size
    O'     = O - min(H, P - B)                          gather, where a pin thread fed the steps
                                                        (below): it is gone, and with it the GIL
                                                        time P it took, which the training thread
                                                        waited through in B first, then in O
           = min(B, hand-over of the batches)           workers (each batch comes through
                                                        PyTorch's worker queue and shared
                                                        memory, on this thread: Handover)
           = min(B, batches x HANDOVER_PINNED_S)        workers and pin: the pin thread takes
                                                        the batches over (the probe's
                                                        pinned_batch_s where measured)
    L_pg'  = pinning on this thread (0 with workers)    pin: bytes at the host memcpy rate,
                                                        else what the staging took
    L_pin' = 0                                          overlap
    S'     = 0 with pack; the calls alone with pin      pack / pin
    O'     = O - X + the graph's replay                 graph: the step captured in a CUDA graph
                                                        and replayed, the batch copied into its
                                                        inputs, a batch (Step.replay_ns: two of the
                                                        step's launch calls a batch); a step that
                                                        ends in a wait then waits for all the last
                                                        batch's GPU work after its one launch:
                                                        R' = max(R, G less the pageable copies'
                                                        DMA, over the step's batches)
                                                        (H' = H less X's part of H)
    B', O', H' less the full collections in them        gc: gc.freeze() after set-up leaves a
                                                        full (generation 2) collection nothing
                                                        old to scan (B less them before workers
                                                        or gather replace B: the smaller wins)
    R'     = max(0, R - window), and the read's own     item: the host runs ahead into the
             call is gone from O
             next step until its next blocking point: window = B' (+ the pageable call
             before its wait) while blocking copies remain, else the whole host step

A recording may have workers and pin already (the tutorials' advice): the batches the
feeding thread copies come from pinned memory, and another thread of its process, which
launches nothing, pinned host memory (PyTorch's pin_memory thread allocating its pinned
blocks): a pin thread (Step.pin_thread). The workers and pin fixes then change nothing, and
the gather fix (each batch gathered on the training thread, straight into a pinned buffer:
examples/fashion_mnist/well_written.py) removes the pin thread: its GIL time a step P is
Handover.pin_thread_ns of the recorded batches (the probe's, else the constants). On the
three hosts whose every-habit-fixed tutorial was profiled with a measured gather (2026-11-27
and 28), P less a gather came to 0.82-0.85 ms a batch where that program ran 0.71-0.74 ms a
batch slower than well_written.py (+12 to +18%); on a fourth, with the constant gather,
0.55 against 0.83.

A fix's saving alone is the sum over steps of T - T({fix}), less what it costs once a run
(the workers fix starts its workers: the probe's start for the count advised, Model.start_s;
a program pays it in its first batch wait); findings are listed by it,
and each one's `saving_s` is what it adds to the fixes listed before it (so the savings
add up to the saving of all of them together, never more than the steps' time).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from itertools import combinations
from typing import NamedTuple

from hdreport.profile.analysis import NS
from hdreport.profile.handover import FITTED, Handover

# A step this many times the median is a stall (the program's, the machine's or the
# recording's): an H100 host's profiled tutorial had 13 of 16-126 ms among steps of 3 ms,
# 4.6% of its steps' time, most of it in the host's batch building.
STALL_FACTOR = 5
# The steps cut into this many stretches in order, the median step of each: a host whose speed
# changes over a run (other load, CPU frequency) shows it. Every reference recording of the
# tutorial did, its batch building (no CUDA call) most: the tenths' medians ranged 1.28-1.79x
# (2026-11-26 to 28), the H100 of 2026-11-28b's 3.04 to 5.21 ms against a plain run's median
# of 3.33 ms a step, so a whole run compared with another measures the host's phases too.
PACE_PARTS = 10
PACE_SPREAD_SAID = 1.2  # a spread this wide (slowest stretch's median over the fastest's) is said
# Steps of this many batches or more, on average, are read a batch at a time (the graph finding,
# the summary's step table): a loop cut at reads made every 100 turns has steps of 100 batches.
BATCHES_READ_PER_BATCH = 1.5


def read_per_batch(batches: int, steps: int) -> bool:
    return batches >= BATCHES_READ_PER_BATCH * max(1, steps)
# What a graph of the step leaves on the host, where the probe did not measure it
# (graph_replay_batch_s: no CUDA there): its replay and the copy of the batch into its inputs,
# each priced as one of the step's own launch calls. CUDA 12 launches a straight-line graph in
# about a kernel launch's time; PyTorch's replay() and copy_() add their Python, a few µs more.
GRAPH_LAUNCHES = 2
FIXES = ("workers", "gather", "pin", "overlap", "pack", "item", "graph", "gc")
# The habits examples/fashion_mnist/tutorial_style.py --fix removes. Priced together: those
# of the data movement in every combination of two or more, sorted (the ablation's
# fix_workers+pin is "pin+workers"), and every habit at once, the graph's too (its --fix all;
# also without gc, for recordings whose collections were not timed):
# every combination of seven would double the sets the report prices for one ablation variant.
HABITS = ("workers", "gather", "pin", "item", "pack", "gc", "graph")
DATA_HABITS = HABITS[:-1]
HABIT_SETS = (*(tuple(sorted(c)) for n in range(2, len(DATA_HABITS) + 1) for c in combinations(DATA_HABITS, n)),
              tuple(sorted(HABITS)), tuple(sorted(set(HABITS) - {"gc"})))


class StepParts(NamedTuple):
    """A step's time with a set of fixes applied, and its parts (ns)."""
    T: int  # the step's time
    B: int  # of it, the training thread's wait for its batches (what `batch_wait_s` measures)
    T_unslowed: int  # of T, what the recording did not slow (the probe's parts; less the pin thread's GIL time a
    # gather frees, the probe's too)
    B_unslowed: int  # of B, the same
    # B without the time the GIL shared with the pin thread adds over the training thread's own
    # path: the model cannot tell whether the runs wait that time for their batches or for the
    # GIL in their own work, so the batch wait is somewhere from B_own to B (B_own = B without it)
    B_own: int
    B_own_unslowed: int


@dataclass
class Step:
    T: int = 0
    B: int = 0
    batches: int = 0
    tensors: int = 0  # H2D copies of the batches: a tensor each
    batch_bytes: int = 0  # the bytes of those copies
    R_call: int = 0  # the read's own copy call (in O)
    # the waits in the step's per-step synchronizes that do not end it (in O): a loop that reads
    # its loss and calls torch.cuda.synchronize() every step; the item fix drops them with the read
    R_sync: int = 0
    L_pg: int = 0
    L_pg_call: int = 0
    L_pin: int = 0
    S: int = 0
    S_call: int = 0
    extra_copies: int = 0
    R: int = 0
    O: int = 0
    H: int = 0  # of O: the thread's GIL time (host work outside CUDA calls, no other thread launching)
    L_idle: int = 0
    launch_calls: int = 0
    launches: int = 0  # the launch calls' count
    X: int = 0  # of O: from the first launch call to the last, what a graph of the step replaces
    X_H: int = 0  # of X, the part in H
    ends_in_wait: bool = False  # the step ends in a blocking read or synchronize (R is its wait)
    G: int = 0
    G_pg_dma: int = 0  # the pageable copies' DMA records, which pinned copies shorten
    G_pinned_dma: int = 0  # the same bytes at the pinned ceiling (G_pg_dma without one)
    gc: int = 0  # Python's garbage collections on the thread in the step (inside B and O, not beside them)
    gc_full: int = 0  # of them, the full (generation 2) ones: what gc.freeze() after set-up removes
    gc_full_B: int = 0  # the part of gc_full inside B
    gc_full_count: int = 0  # the full collections that began in the step
    # the batches came pinned from another thread of the process that pinned them and launches
    # nothing: PyTorch's pin_memory thread (workers and pin are the recording's own)
    pin_thread: bool = False

    def replay_ns(self, handover: Handover = FITTED) -> int:
        """A graph's replays and the copies of the batches into its inputs, one of each a batch
        (a step cut at reads made every few iterations holds several): the probe's
        graph_replay_batch_s a batch, else GRAPH_LAUNCHES of the step's launch calls, on average."""
        if handover.graph_replay_batch_s is not None:
            return round(max(1, self.batches) * handover.graph_replay_batch_s / NS)
        mean_launch = self.launch_calls // self.launches if self.launches else 0
        return GRAPH_LAUNCHES * max(1, self.batches) * mean_launch

    def tensors_after(self, fixes: frozenset) -> int:
        return self.batches if "pack" in fixes else self.tensors

    def time(self, fixes: frozenset, pin_cost: int, handover: Handover = FITTED) -> int:
        return self.parts(fixes, pin_cost, handover).T

    def parts(self, fixes: frozenset, pin_cost: int, handover: Handover = FITTED) -> StepParts:
        """The step's time with `fixes` applied, B' of it (the training thread's wait for its
        batches, what the example's `batch_wait_s` measures), and of each the part not taken
        from the recording, which the recording did not slow: a hand-over or gather the probe
        measured (or the constants), the pin thread's GIL time or pace. An ablation holds each
        part apart, so a price right on the whole by errors that cancel in its parts shows.
        Where the pin thread sets the step, B' takes what it adds over the training thread's
        own path, and its unslowed part is the step's."""
        if self.pin_thread:  # workers and pin are there already: only the gather changes the feeding
            fixes = fixes - {"workers", "pin"}
        frozen = "gc" in fixes  # the full collections gone: what set-up made frozen out of their reach
        B = self.B - (self.gc_full_B if frozen else 0)
        pin_thread = None  # with workers and pin: (its GIL time, its own pace) over the step's batches
        if "workers" in fixes and "pin" in fixes:
            made = handover.pinned_ns(self)
            pin_thread = handover.pin_thread_ns(self, fixes, pin_cost), handover.pin_cycle_ns(self, fixes)
        elif "workers" in fixes:
            made = handover.ns(self, fixes)
        elif "gather" in fixes:  # with workers the gather runs in them: the hand-over is what is left here
            made = handover.gather_ns(self)
        else:
            made = None
        unslowed = 0
        # a gather replaces the recorded build where it is faster; where a pin thread fed the
        # batches it replaces the wait whatever its size: the pin thread is gone, and the training
        # thread gathers each batch itself (the H200 of 2026-11-26: a 234 µs wait, a 314 µs gather)
        if made is not None and (made < B or self.pin_thread and "gather" in fixes):
            B = unslowed = made
        else:
            made = None  # the recorded build stays: nothing of B' is the probe's
        pinning = 0 if "workers" in fixes else handover.pin_here_ns(self, pin_cost)
        L_pg = pinning if "pin" in fixes and self.L_pg else self.L_pg
        L_pin = 0 if "overlap" in fixes else self.L_pin
        S = 0 if "pack" in fixes else self.S_call if "pin" in fixes else self.S
        graph = "graph" in fixes
        O = self.O - self.X + self.replay_ns(handover) if graph else self.O
        freed = 0  # the pin thread's GIL time the gather takes out of O (a probe's or constants' figure)
        if self.pin_thread and "gather" in fixes:
            freed = min(self.H, O, max(0, handover.pin_thread_ns(self, frozenset(), pin_cost) - self.B))
            O -= freed
        if frozen:
            O = max(0, O - (self.gc_full - self.gc_full_B))
        R = self.R
        if graph and self.ends_in_wait:  # the host waits, after the last launch, for all its GPU work
            R = max(R, (self.G - self.G_pg_dma) // max(1, self.batches))
        if "item" in fixes:
            O = max(0, O - self.R_call - self.R_sync)
            blocking_left = (self.L_pg and "pin" not in fixes) or (self.L_pin and "overlap" not in fixes) or \
                            (self.S and not fixes & {"pin", "pack"})
            window = B + (self.L_pg_call if self.L_pg and "pin" not in fixes else 0) if blocking_left else \
                B + L_pg + L_pin + S + O
            R = max(0, R - window)
        G = self.G - self.G_pg_dma + self.G_pinned_dma if "pin" in fixes else self.G
        own = B + L_pg + L_pin + S + O + R
        host = own
        if self.pin_thread and graph and "gather" not in fixes:
            # the recorded pin thread stays: with most of the training thread's Python gone, the
            # GIL it holds a batch and its own pace bound the step (its H, less the graph's part,
            # may still hold some of the waits for that GIL: a bound from below, no more)
            pin_thread = handover.pin_thread_ns(self, fixes, pin_cost), handover.pin_cycle_ns(self, fixes)
        if pin_thread is not None:  # the GIL shared with the pin thread, and the pin thread's pace
            gil, cycle = pin_thread
            H = max(0, self.H - (self.gc_full - self.gc_full_B if frozen else 0) - (self.X_H if graph else 0))
            host = max(own, H + gil, cycle)
            if host > own:
                unslowed = gil if host == H + gil else cycle
        own_unslowed = B if made is not None else 0
        # the freed GIL time is the probe's: as the recording did not slow it, it comes off the
        # step unscaled (T_unslowed less it)
        step_unslowed = unslowed - freed if host >= G else 0
        return StepParts(max(G, host), B + host - own, step_unslowed, unslowed, B, own_unslowed)


@dataclass
class Model:
    steps: list
    window: tuple | None  # (first step's start, last step's end), ns; None without steps
    pin_costs: list  # per step: what pinning its pageable bytes on the training thread costs, ns
    pin_rate_source: str
    per_step_reads: bool
    batch_shape: tuple = ()  # the bytes of each tensor of the commonest batch the feeding threads copied
    handover: Handover = FITTED
    # how the steps were cut: "reads", "range NAME" (NVTX iteration markers) or "" (one stretch)
    steps_cut_at: str = ""
    collections_timed: bool = False  # Python's collections were timed on the feeding threads: gc is priced
    # the Python processes the feeding processes forked (DataLoader workers; records.Process.forked),
    # None where not known (no site hook that says it)
    forked: int | None = None

    @property
    def pin_thread(self) -> bool:
        """A pin thread fed the steps' batches (Step.pin_thread): workers and pin are in place."""
        return any(s.pin_thread for s in self.steps)

    def pin_thread_s(self) -> float:
        """The pin thread's GIL time over the steps' batches (Handover.pin_thread_ns), seconds."""
        return sum(self.handover.pin_thread_ns(s, frozenset(), p) for s, p in zip(self.steps, self.pin_costs)
                   if s.pin_thread) * NS

    def _step_savings(self, fixes) -> list[int]:
        """Each step's time less its time with `fixes` applied (ns; below 0 where they lengthen it)."""
        fixes, none, h = frozenset(fixes), frozenset(), self.handover
        if not fixes:
            return []
        return [s.time(none, p, h) - s.time(fixes, p, h) for s, p in zip(self.steps, self.pin_costs)]

    def start_s(self, fixes) -> float:
        """What `fixes` cost once a run: the workers fix starts DataLoader workers (kept across
        epochs with persistent_workers: once), from iter() to the first batch as the probe timed
        it for the count advised (Handover.start_priced). The program pays it in its first wait
        for a batch. 0 where the recording's own workers fed the steps (a pin thread) or the
        probe did not time it."""
        h = self.handover
        if "workers" not in fixes or self.pin_thread or not h.start_priced or not self.steps:
            return 0.0
        return h.workers_start_s

    def saving_s(self, fixes) -> float:
        return max(0.0, sum(max(0, d) for d in self._step_savings(fixes)) * NS - self.start_s(fixes))

    def net_saving_s(self, fixes) -> float:
        """The steps' time less their time with `fixes` applied, unclamped: below 0 where the
        fixes make the steps longer (pinning on the training thread slower than the staging it
        replaces), which saving_s, taken step by step from 0 up, never shows."""
        return sum(self._step_savings(fixes)) * NS - self.start_s(fixes)

    def batch_wait_s(self, fixes) -> float:
        """The training thread's wait for its batches with `fixes` applied (B' over the steps,
        and the workers' start in the first)."""
        return self._sum_of_part(fixes, "B") + self.start_s(fixes)

    def unslowed_s(self, fixes) -> tuple[float, float]:
        """Of the steps' time and of their batch wait with `fixes` applied, the parts not taken
        from the recording (Step.parts, and the workers' start): to be held against a run made
        without the recording, the recorded rest is scaled by how much the recording slowed the
        steps, these not."""
        start = self.start_s(fixes)
        return self._sum_of_part(fixes, "T_unslowed") + start, self._sum_of_part(fixes, "B_unslowed") + start

    def own_batch_wait_s(self, fixes) -> tuple[float, float]:
        """B' without the GIL's time (StepParts.B_own) and its unslowed part, over the steps (the
        workers' start in both)."""
        start = self.start_s(fixes)
        return self._sum_of_part(fixes, "B_own") + start, self._sum_of_part(fixes, "B_own_unslowed") + start

    def _sum_of_part(self, fixes, part: str) -> float:
        """A StepParts field with `fixes` applied, over the steps, seconds."""
        fixes, h = frozenset(fixes), self.handover
        return sum(getattr(s.parts(fixes, p, h), part) for s, p in zip(self.steps, self.pin_costs)) * NS

    def priced_fixes(self) -> tuple:
        """The fixes this recording can price: gc only where the collections were timed."""
        return FIXES if self.collections_timed else tuple(f for f in FIXES if f != "gc")

    def ablated_sets(self) -> list:
        """No fix, each fix alone, and the example's habits together (gc only where priced)."""
        return [(), *((f,) for f in self.priced_fixes()),
                *(c for c in HABIT_SETS if "gc" not in c or self.collections_timed)]

    def total(self, field: str) -> float:
        return sum(getattr(s, field) for s in self.steps) * NS

    def gather_s(self) -> float:
        """Gathering every step's batches whole on the training thread, seconds."""
        return sum(self.handover.gather_ns(s) for s in self.steps) * NS

    def step_spread(self) -> dict:
        """How the steps' times spread: their median, 90th and 99th percentile and longest
        (ms), and the stalls (steps over STALL_FACTOR x the median): how many, and the time
        they took beyond the median (s). Every price rests on every step, stalls included."""
        times = sorted(s.T for s in self.steps)
        if not times:
            return {}
        n = len(times)
        median = times[n // 2] if n % 2 else (times[n // 2 - 1] + times[n // 2]) / 2
        stalls = [t for t in times if t > STALL_FACTOR * median]
        spread = {"median_ms": median * NS * 1e3, "p90_ms": times[min(n - 1, int(0.9 * n))] * NS * 1e3,
                  "p99_ms": times[min(n - 1, int(0.99 * n))] * NS * 1e3, "max_ms": times[-1] * NS * 1e3,
                  "stalls": len(stalls), "stall_excess_s": sum(t - median for t in stalls) * NS,
                  "stall_factor": STALL_FACTOR, **self.pace()}
        if self.collections_timed:  # how much of the stalls Python's collections hold
            stalled = [s for s in self.steps if s.T > STALL_FACTOR * median]
            spread.update(stalls_with_gc=sum(1 for s in stalled if s.gc), stall_gc_s=sum(s.gc for s in stalled) * NS,
                          gc_s=sum(s.gc for s in self.steps) * NS)
        return spread

    def pace(self) -> dict:
        """The steps in PACE_PARTS stretches, in order: each stretch's median step and median
        batch wait (ms), where there are at least two steps a stretch; else {}."""
        n = len(self.steps)
        size = n // PACE_PARTS
        if size < 2:
            return {}
        stretches = [self.steps[i * size:(i + 1) * size] for i in range(PACE_PARTS)]
        return {"pace_median_ms": [statistics.median(s.T for s in part) * NS * 1e3 for part in stretches],
                "pace_batch_wait_ms": [statistics.median(s.B for s in part) * NS * 1e3 for part in stretches]}

    def start_summary(self) -> dict:
        """start_with_s: of the prices, what the fixes cost once a run (the workers' start; keys
        as saving_with_s's, a fix alone by its name), held apart where a run's fastest stretches
        are; absent where nothing is (no probe timed the start)."""
        starts = {"+".join(c): start for c in self.ablated_sets() if c and (start := self.start_s(c))}
        return {"start_with_s": starts} if starts else {}

    def summary(self) -> dict:
        n = len(self.steps)
        parts = ("T", "B", "L_pg", "L_pin", "S", "R", "R_sync", "O", "H", "L_idle", "launch_calls", "X", "G")
        return {"steps": n, "per_step_reads": self.per_step_reads, "steps_cut_at": self.steps_cut_at,
                "pin_thread": self.pin_thread,
                "seconds": {f: self.total(f) for f in parts},
                "per_step_ms": {f: self.total(f) / n * 1e3 if n else 0.0 for f in parts},
                "step_spread": self.step_spread(),
                "batches": sum(s.batches for s in self.steps), "tensors": sum(s.tensors for s in self.steps),
                # every fix priced alone, findings or not: what an ablation of each habit is held against
                # (gc only where the collections were timed: unpriced, not free, elsewhere)
                "saving_alone_s": {f: self.saving_s({f}) for f in self.priced_fixes()},
                # the example's habits fixed together, two or more (key: the fixes sorted, joined
                # by '+'): what an ablation of several habits at once is held against
                "saving_with_s": {"+".join(c): self.saving_s(c) for c in self.ablated_sets() if len(c) > 1},
                # B' with no fix, each fix alone and the habits together (keys as above): what
                # an ablation's batch wait is held against, apart from the rest of its time
                "batch_wait_with_s": {"+".join(c) or "none": self.batch_wait_s(c) for c in self.ablated_sets()},
                # of the time and the batch wait with them, the parts the recording did not slow
                # (the probe's, the constants'): [step time, batch wait], keys as above
                "unslowed_with_s": {"+".join(c): list(self.unslowed_s(c)) for c in self.ablated_sets() if c},
                # where the pin thread adds time over the training thread's own path: the batch wait
                # without it and its unslowed part (the runs wait that time for batches or the GIL)
                "own_batch_wait_with_s": {"+".join(c): list(own) for c in self.ablated_sets()
                                          if c and (own := self.own_batch_wait_s(c))[0] < self.batch_wait_s(c)},
                **self.start_summary(),
                "collections_timed": self.collections_timed,
                **({"forked": self.forked} if self.forked is not None else {}),  # absent: not known
                "pin_rate_source": self.pin_rate_source, "handover": self.handover.summary()}


def cut_into_steps(summary: dict) -> bool:
    """Whether a report's `model` (Model.summary()) cut the program's loop into steps, at its
    reads, synchronizes or iteration ranges: its `seconds.T` is then the loop's time, where one
    stretch holds set-up and all."""
    return bool(summary.get("per_step_reads") or summary.get("steps_cut_at"))


def savings(model: Model, fixes=FIXES) -> dict:
    """fix -> (saving alone, saving added to the fixes before it), in order of saving alone."""
    alone = {f: model.saving_s({f}) for f in fixes}
    out, applied, before = {}, set(), 0.0
    for f in sorted(fixes, key=lambda f: -alone[f]):
        applied.add(f)
        together = model.saving_s(applied)
        out[f] = (alone[f], max(0.0, together - before))
        before = together
    return out
