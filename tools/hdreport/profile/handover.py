"""What a batch from a DataLoader worker (or the pin thread, or a gather) costs the training
thread, which a recording with num_workers=0 cannot show: `Handover`, measured on the user's
machine by tools/handover_probe.py where hdbench_profile can run it, else the constants
below (`FITTED`). The step model (model.py) prices the workers, pin and gather fixes with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from hdreport.profile.analysis import NS

# What a batch from a DataLoader worker costs the training thread, which a recording with
# num_workers=0 cannot show. tools/handover_probe.py measures it on the user's machine
# (Handover) where hdbench_profile can run it (the pin thread's parts need CUDA, for
# pin_memory); the constants below serve where it cannot: the medians of the probe's own
# measurements on three H100 hosts and one H200 host (PyTorch 2.11, 16 vCPUs; the
# `model.handover` of reports/reference/*/profiles/prof-*.json, 2026-11-26 to 2026-11-28):
# - without pin_memory the training thread takes each tensor off the worker queue and maps
#   its shared memory, and its first read faults the fresh pages in: 1.29 ms a batch of one
#   786 KiB tensor (20 probes, 0.89-2.02), 1.86 ms a batch of three (4 probes, 1.66-2.12):
#   a part a batch and a part a tensor, HANDOVER_BATCH_S + HANDOVER_TENSOR_S a tensor;
# - with pin_memory the pin thread takes the batches over and the training thread waits
#   0.21-0.43 ms a batch (the ablations of 2026-11-26: H100 0.21 with one tensor; H200 0.28
#   with one, 0.43 with three);
# - the pin thread is a Python thread: its work on a batch (the hand-over and the pinning
#   copy) holds the GIL 0.90 ms a batch of one tensor (11 probes, 0.83-1.18), 1.52 ms a
#   batch of three (4 probes, 1.30-1.87): PIN_THREAD_BATCH_S + PIN_THREAD_TENSOR_S a tensor
#   + the pinning copy (the bytes at the host memcpy rate, some 0.03 ms of those). Half its
#   working time, the share taken before the probe measured it, priced the H200's workers
#   and pin of 2026-11-26 (model-v2, no probe) 54% above the saving measured.
#   Its GIL time does not add to the training thread's step: the two share the GIL, so the
#   step takes at least the sum of their GIL times (an H100 host, 2026-11-28, three rounds:
#   workers and pin 2.51 ms a step against 1.01 ms of the training thread's recorded GIL
#   time, 0.93 scaled to the plain run, plus the probe's 1.87 ms; the training thread's
#   time off the CPU grew 0.40 ms a batch with pin, where adding the probe's whole 1.87 ms
#   had priced the step at 3.7 ms).
# Stated in the findings.
HANDOVER_BATCH_S = 1.0e-3
HANDOVER_TENSOR_S = 0.29e-3
HANDOVER_PINNED_S = 0.30e-3
PIN_THREAD_BATCH_S = 0.56e-3
PIN_THREAD_TENSOR_S = 0.31e-3
# What gathering a batch whole costs the training thread where tools/handover_probe.py could
# not measure it: examples/fashion_mnist/well_written.py's own gathers on an H100 host
# (2,001 batches of 804,864 bytes, 0.31 ms each: reports/reference/h100-2026-11-26b,
# prof-well.json), a random-row gather out of a 188 MB pinned data set, far below a memcpy.
GATHER_GBPS = 2.56


def ns_at(n_bytes: int, gbps: float | None) -> int | None:
    """Nanoseconds `n_bytes` take at `gbps`, or None without a rate."""
    return round(n_bytes / (gbps * 1e9) / NS) if gbps else None


@dataclass(frozen=True)
class Handover:
    """What taking a batch over from a DataLoader worker costs the training thread, seconds
    (its methods take a model.Step and give nanoseconds over the step's batches).
    Measured (tools/handover_probe.py, with batches shaped as the program's: `batch_s` as it
    sends them, `packed_batch_s` the same bytes as one tensor, `pinned_batch_s` with
    pin_memory where CUDA was there), or the constants above (`measured` False): a batch's
    part and each tensor's, whatever their size. A measured hand-over keeps what a batch's
    bytes cost (their pages faulted in on first read) when it is packed; the constants keep
    the batch's part."""

    batch_s: float | None = None
    packed_batch_s: float | None = None
    pinned_batch_s: float | None = None
    tensor_bytes: tuple = ()  # the batch the probe measured
    source: str = ""  # how it was measured, or why it was not
    # what the pin thread's work on a batch costs the training thread (the GIL), measured
    # with pin_memory where CUDA was there; else PIN_THREAD_BATCH_S and PIN_THREAD_TENSOR_S
    pin_thread_batch_s: float | None = None
    # the same for the batch's bytes as one tensor (packed, the pin thread pins one tensor a
    # batch); where not measured, pin_thread_batch_s scaled as the hand-over is by packing
    packed_pin_thread_batch_s: float | None = None
    # building a batch on the training thread by gathering it whole (the per_sample_batches
    # fix), `gather_rows` rows a batch; where not measured, the batch's bytes at GATHER_GBPS
    gather_batch_s: float | None = None
    gather_rows: int | None = None
    # the pin thread's own time a batch, its consumer only waiting: no step it feeds is
    # shorter (the H200's workers-and-pin steps of 2026-11-27 ran at about its pace)
    pin_cycle_batch_s: float | None = None
    # the same for the batch's bytes as one tensor (packed); where not measured, pin_cycle_batch_s
    # scaled as packing scales the pin thread's GIL time. On the H100 of 2026-11-28b every habit
    # fixed (packing too) ran 2.14 ms a step, about workers and pin's 2.04, where that scaling had
    # the pin thread's pace 0.64x as long packed: the probe measures it since
    packed_pin_cycle_batch_s: float | None = None
    # pinning a batch on the training thread (pin_memory with num_workers=0): each tensor of a
    # fresh pageable batch pinned with tensor.pin_memory(), measured where CUDA was there; else
    # the pageable bytes at the host memcpy rate (the recording's pin_cost). On an H100 host
    # (2026-11-28b) pinning alone made the batch wait 0.3-0.9 ms a batch longer in two rounds
    # of three, where a memcpy of its 786 KiB takes 0.03 ms.
    pin_here_batch_s: float | None = None
    # of batch_s, taking the batch alone (its tensors not read): where the training thread pays
    # it, in its wait for the batch; the rest, the fresh pages faulted in, lands where it first
    # reads them (.to(device)). Kept, not yet priced: on three of five hosts the split of
    # `--fix workers` had the batch wait priced 0.21-0.25 ms a batch high and the rest as low
    batch_take_s: float | None = None
    # starting `start_workers` workers, from iter() to the first batch: what the workers fix
    # costs once a run with persistent_workers (every epoch without), taken off its saving
    # (Model.start_s). A 1000-step ablation pays it in fix_workers' wall time (its first batch
    # wait), its fastest stretches do not. A probe older than `start_workers` timed its own two
    # workers, not the count advised: kept, not priced
    workers_start_s: float | None = None
    start_workers: int | None = None
    # the memory the probe's process held when it timed the start: each worker is a fork, which
    # copies its parent's page tables (on a 2-vCPU VM starting three workers took 19.5 ms from a
    # bare probe, 24.0 ms holding 200 MB, 46.9 ms holding 1 GB). The probe holds what the program
    # held while its steps ran, where its Python said it. `start_footprint_measure`: RssAnon
    # (anonymous resident memory), or VmRSS (all resident memory) where the kernel says no more
    # (gVisor); None in reports before 2026-11-29, RssAnon then
    start_footprint_bytes: int | None = None
    start_footprint_measure: str | None = None
    # what a step replayed as one CUDA graph leaves the training thread a batch: the batch copied
    # into the graph's input and the replay, measured where CUDA was there; else two of the
    # recording's launch calls (model.Step.replay_ns)
    graph_replay_batch_s: float | None = None

    @property
    def measured(self) -> bool:
        return self.batch_s is not None and self.packed_batch_s is not None

    def ns(self, step, fixes: frozenset) -> int:
        """The hand-over of a step's batches on the thread that takes them from the workers."""
        if not self.measured:
            return round((step.batches * HANDOVER_BATCH_S + step.tensors_after(fixes) * HANDOVER_TENSOR_S) / NS)
        return round(step.batches * (self.packed_batch_s if "pack" in fixes else self.batch_s) / NS)

    def gather_ns(self, step) -> int:
        """Gathering a step's batches whole on the training thread."""
        if self.gather_batch_s is not None:
            return round(step.batches * self.gather_batch_s / NS)
        return ns_at(step.batch_bytes, GATHER_GBPS)

    def pinned_ns(self, step) -> int:
        return round(step.batches * (HANDOVER_PINNED_S if self.pinned_batch_s is None else self.pinned_batch_s) / NS)

    def pin_here_ns(self, step, pin_cost: int) -> int:
        """Pinning a step's batches on the training thread: measured a batch, else `pin_cost`
        (the recording's pageable bytes at the host memcpy rate). Packing pins the same bytes."""
        return pin_cost if self.pin_here_batch_s is None else round(step.batches * self.pin_here_batch_s / NS)

    def pin_thread_ns(self, step, fixes: frozenset, pin_cost: int) -> int:
        """What the pin thread's work (the hand-over and the pinning) costs the training
        thread's step: measured per batch, else the constants (PIN_THREAD_BATCH_S a batch,
        PIN_THREAD_TENSOR_S a tensor) and the pinning copy."""
        if self.pin_thread_batch_s is not None:
            per_batch = self.pin_thread_batch_s
            if "pack" in fixes and self.packed_pin_thread_batch_s is not None:
                per_batch = self.packed_pin_thread_batch_s
            elif "pack" in fixes and self.measured and self.batch_s > 0:  # scaled as packing scales the hand-over
                per_batch *= self.packed_batch_s / self.batch_s
            return round(step.batches * per_batch / NS)
        held = step.batches * PIN_THREAD_BATCH_S + step.tensors_after(fixes) * PIN_THREAD_TENSOR_S
        return round(held / NS) + pin_cost

    @property
    def start_priced(self) -> bool:
        """Whether the workers' start was timed at a known count (the one advised)."""
        return self.workers_start_s is not None and self.start_workers is not None

    def pin_cycle_ns(self, step, fixes: frozenset) -> int:
        """The pin thread's own pace over a step's batches (0 where not measured); packed, as
        measured packed, else scaled as packing scales its GIL time."""
        if self.pin_cycle_batch_s is None:
            return 0
        per_batch = self.pin_cycle_batch_s
        if "pack" in fixes and self.packed_pin_cycle_batch_s is not None:
            per_batch = self.packed_pin_cycle_batch_s
        elif "pack" in fixes and self.packed_pin_thread_batch_s is not None and self.pin_thread_batch_s:
            per_batch *= self.packed_pin_thread_batch_s / self.pin_thread_batch_s
        return round(step.batches * per_batch / NS)

    def summary(self) -> dict:
        return {"measured": self.measured, "batch_s": self.batch_s, "packed_batch_s": self.packed_batch_s,
                "pinned_batch_s": self.pinned_batch_s, "pin_thread_batch_s": self.pin_thread_batch_s,
                "packed_pin_thread_batch_s": self.packed_pin_thread_batch_s,
                "gather_batch_s": self.gather_batch_s, "gather_rows": self.gather_rows,
                **({"pin_cycle_batch_s": self.pin_cycle_batch_s} if self.pin_cycle_batch_s is not None else {}),
                **({"packed_pin_cycle_batch_s": self.packed_pin_cycle_batch_s}
                   if self.packed_pin_cycle_batch_s is not None else {}),
                **({"pin_here_batch_s": self.pin_here_batch_s} if self.pin_here_batch_s is not None else {}),
                **({"batch_take_s": self.batch_take_s} if self.batch_take_s is not None else {}),
                **({"workers_start_s": self.workers_start_s} if self.workers_start_s is not None else {}),
                **({"start_workers": self.start_workers} if self.start_workers is not None else {}),
                **({"start_footprint_bytes": self.start_footprint_bytes} if self.start_footprint_bytes is not None
                   else {}),
                **({"start_footprint_measure": self.start_footprint_measure} if self.start_footprint_measure
                   else {}),
                **({"graph_replay_batch_s": self.graph_replay_batch_s} if self.graph_replay_batch_s is not None
                   else {}),
                "tensor_bytes": list(self.tensor_bytes),
                "source": self.source}


FITTED = Handover(source="not measured here: constants measured on H100 and H200 hosts with PyTorch 2.11")


def handover_of(summary: dict | None) -> Handover:
    """The Handover a report's `model.handover` holds (FITTED for a report without one)."""
    if not summary or not summary.get("measured"):
        return Handover(source=summary["source"]) if summary and summary.get("source") else FITTED
    optional = ("pinned_batch_s", "pin_thread_batch_s", "packed_pin_thread_batch_s", "gather_batch_s", "gather_rows",
                "pin_cycle_batch_s", "packed_pin_cycle_batch_s", "pin_here_batch_s", "batch_take_s", "workers_start_s",
                "start_workers", "start_footprint_bytes", "start_footprint_measure", "graph_replay_batch_s")
    return Handover(summary["batch_s"], summary["packed_batch_s"], tensor_bytes=tuple(summary.get("tensor_bytes", ())),
                    source=summary.get("source", ""), **{k: summary.get(k) for k in optional})
