#!/usr/bin/env python3
"""Fashion-MNIST, an MLP (784 -> hidden -> 10) trained with SGD, written the way many
tutorials write it, with the data-movement habits they warn about. Each habit is
marked `HABIT:` with what a profiler of host<->device traffic should find there, and
with the --fix that removes it. well_written.py trains the same model on the same
batches in the same order; the difference in wall time between the two is what those
habits cost.

--fix HABIT removes one habit and changes nothing else (same model, batches, order,
steps and losses), so that what each habit costs can be measured on its own and held
against what hdbench_profile predicts fixing it would save:

  workers  the DataLoader builds batches in --workers W processes (persistent), not in
           the training process (num_workers=0)
  pin      pin_memory=True and .to(device, non_blocking=True): asynchronous copies out
           of pinned memory (not possible on --device cpu: skipped with a note)
  item     the loss summed on the device and read every --log-every steps and at the
           end, not loss.item() every step
  pack     images, labels and weights collated into one tensor, copied in one piece and
           split on the device, not copied as three tensors
  gather   each batch gathered from the in-memory data set with one index_select per
           tensor (the rows of the whole batch at once), not indexed sample by sample
           and stacked by the default collate
  gc       gc.freeze() once set-up is done, so that Python's full garbage collections
           leave the objects made so far (PyTorch's own among them) unscanned
  graph    the step (forward, loss, backward, optimizer step) captured once in a CUDA
           graph and replayed every step, the batch copied into the graph's inputs (on
           --device cpu there is no graph: the step runs op by op on those inputs, with
           a note)
  all      every one of them (with workers, the gathers run in the workers)

--step-wait says how the loop waits for the GPU every step, a habit the plain run has in
one form only (`item`, the default). The others are programs of their own, for holding
hdbench_profile's prices of waits other than a read (docs/profiling.md):

  item     loss.item() every step (the tutorials' habit: the plain run)
  sync     torch.cuda.synchronize() every step, as a loop that times each step does, and
           the loss read only every --log-every steps
  both     torch.cuda.synchronize() and then loss.item() every step: the synchronize
           takes the wait and the read finds the step done

--fix item removes every per-step wait, whichever --step-wait (so `--step-wait sync
--fix item` is the same program as `--fix item`). On --device cpu there is no GPU to
wait for: synchronize is skipped with a note and only the reads differ.

    python3 examples/fashion_mnist/tutorial_style.py [--steps N] [--batch B] [--device cpu]
                                                     [--fix HABIT[,HABIT...]] [--workers W]
                                                     [--step-wait item|sync|both]
"""

from __future__ import annotations

import argparse
import gc
import time

import torch
from torch.utils.data import BatchSampler, DataLoader, TensorDataset, get_worker_info

import common

# What each --fix removes (the names are the result line's fix= field, joined by '+').
FIXES = {
    "gather": "batches gathered whole, not sample by sample",
    "gc": "set-up's objects frozen out of the garbage collector",
    "graph": "the step replayed as one CUDA graph",
    "item": "no loss.item() every step",
    "pack": "one tensor a batch, not three",
    "pin": "pinned batches, non_blocking copies",
    "workers": "DataLoader workers",
}
# --step-wait: what the loop does every step to wait for the GPU (without --fix item)
STEP_WAITS = {"item": "loss.item() every step", "sync": "torch.cuda.synchronize() every step",
              "both": "torch.cuda.synchronize() and loss.item() every step"}
COLUMNS = common.PIXELS + 2  # a packed sample: 784 pixels, the label (as a float), the weight


def fix_names(text: str) -> set[str]:
    """One --fix value: HABIT[,HABIT...], `all` or `none`."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in FIXES and name not in ("all", "none")]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown habit '{','.join(unknown) or text}': the known ones are "
                                         f"{', '.join(FIXES)}, all (every one) and none")
    return set(FIXES) if "all" in names else set(names) - {"none"}


def new_buffer(count: int, dtype=torch.float32):
    """An empty 1-D tensor of `count` values; in a DataLoader worker allocated straight in
    shared memory, as the default collate does, so that handing the batch to the training
    process copies nothing."""
    if get_worker_info() is None:
        return torch.empty(count, dtype=dtype)
    empty = torch.empty(0, dtype=dtype)
    storage = empty._typed_storage() if hasattr(empty, "_typed_storage") else empty.storage()
    return empty.new(storage._new_shared(count))


class GatheredBatches:
    """--fix gather: the data set indexed a batch at a time (DataLoader hands __getitem__ the
    batch's list of indices: a BatchSampler as its sampler, batch_size=None), each tensor's
    rows gathered with one index_select into a fresh buffer: a few memcpy-like passes over
    the batch's bytes, where the default path calls TensorDataset.__getitem__ once a sample
    and the default collate stacks the samples (about 10 us of Python a sample). With
    `packed` the three parts are gathered into the one buffer collate_packed lays out."""

    def __init__(self, images, labels, weights, packed: bool):
        self.images, self.labels, self.weights, self.packed = images, labels, weights, packed

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, indices):
        rows = torch.as_tensor(indices)
        count = len(rows)
        if self.packed:
            out = new_buffer(count * COLUMNS)
            torch.index_select(self.images, 0, rows, out=out[:count * common.PIXELS].view(count, common.PIXELS))
            out[count * common.PIXELS:count * (common.PIXELS + 1)] = self.labels.index_select(0, rows)
            torch.index_select(self.weights, 0, rows, out=out[count * (common.PIXELS + 1):])
            return out
        images = new_buffer(count * common.PIXELS).view(count, common.PIXELS)
        labels, weights = new_buffer(count, self.labels.dtype), new_buffer(count, self.weights.dtype)
        return (torch.index_select(self.images, 0, rows, out=images),
                torch.index_select(self.labels, 0, rows, out=labels),
                torch.index_select(self.weights, 0, rows, out=weights))


def as_gathered(batch):
    """collate_fn under --fix gather: the batch is whole already (a module-level function, so
    that worker processes can be handed it)."""
    return batch


def collate_packed(samples):
    """--fix pack: a batch as ONE float32 tensor of B * 786 values, laid out in three
    contiguous parts: the B x 784 pixels, then the B labels (as floats; 0..9 is exact),
    then the B weights; the GPU splits it with views (see unpack).

    Cost against the default collate (which stacks the same three parts into three new
    tensors): the same stacks, written into slices of one torch.empty instead, plus a
    2 KiB int64 -> float32 copy for the labels: a few microseconds a batch. Not a
    torch.cat of the three default tensors (an extra 800 KB memcpy a batch at batch
    256), and not well_written.py's row layout ([B, 786], each row pixels, label,
    weight): stacking the pixels into the strided [:, :784] slice of such rows falls
    off torch's contiguous fast path and costs about three times the default collate's
    stack. The contiguous pixel part also feeds the first Linear the same contiguous
    [B, 784] input as the unpacked run, so the losses are the same numbers."""
    count = len(samples)
    images, labels, weights = zip(*samples)
    packed = new_buffer(count * COLUMNS)
    torch.stack(images, out=packed[:count * common.PIXELS].view(count, common.PIXELS))
    packed[count * common.PIXELS:count * (common.PIXELS + 1)] = torch.stack(labels)
    torch.stack(weights, out=packed[count * (common.PIXELS + 1):])
    return packed


def unpack(packed):
    """(images [B, 784], labels int64 [B], weights [B]) of a collate_packed batch, on its
    device: views, and one small kernel for the labels."""
    count = packed.numel() // COLUMNS
    images = packed[:count * common.PIXELS].view(count, common.PIXELS)
    return (images, packed[count * common.PIXELS:count * (common.PIXELS + 1)].long(),
            packed[count * (common.PIXELS + 1):])


def main() -> None:
    parser = common.make_parser(__doc__)
    parser.add_argument("--log-every", type=common.positive_int, default=100,
                        help="print the loss every N steps (default 100)")
    parser.add_argument("--fix", type=fix_names, action="append", default=[], metavar="HABIT[,HABIT...]",
                        help=f"remove one habit, nothing else: "
                             f"{'; '.join(f'{name} ({what})' for name, what in FIXES.items())}; or all. "
                             f"Repeatable or comma-separated (default: none, every habit kept)")
    parser.add_argument("--workers", type=common.positive_int, default=4,
                        help="DataLoader worker processes under --fix workers (default 4)")
    parser.add_argument("--step-wait", choices=STEP_WAITS, default="item",
                        help=f"how the loop waits for the GPU every step until --fix item removes it: "
                             f"{'; '.join(f'{name} ({what})' for name, what in STEP_WAITS.items())} "
                             f"(default item, the tutorials' habit)")
    args = parser.parse_args()
    fixes = set().union(*args.fix)
    device = common.pick_device(args.device)
    # what the loop does every step: read the loss, synchronize, or both (--fix item: neither)
    reads_every_step = "item" not in fixes and args.step_wait in ("item", "both")
    syncs_every_step = "item" not in fixes and args.step_wait in ("sync", "both") and device.type == "cuda"
    if "item" not in fixes and args.step_wait != "item" and device.type != "cuda":
        print(f"note: --step-wait {args.step_wait}: torch.cuda.synchronize() skipped on device {device}, "
              f"which has no GPU to wait for (only the reads differ)", flush=True)
    pin = "pin" in fixes and device.type == "cuda"
    if "pin" in fixes and not pin:
        print(f"note: --fix pin skipped on device {device}: torch cannot pin memory without CUDA "
              f"(the run is the same as without it)", flush=True)
    if "graph" in fixes and device.type != "cuda":
        print(f"note: --fix graph: no CUDA graph on device {device}; the step runs op by op on the graph's "
              f"input tensors (the same losses)", flush=True)
    images, labels, weights, data = common.load_data(args)
    model, optimizer = common.build_model(args, device)  # moved to the device once, as it should be
    common.warm_up(model, args, device)

    def train_step(*inputs):
        """Forward, loss, backward and the optimizer's step on the batch's tensors on the device
        (one packed tensor under --fix pack, split on the device); the loss."""
        batch_images, batch_labels, batch_weights = unpack(inputs[0]) if "pack" in fixes else inputs
        loss = common.loss_fn(model(batch_images), batch_labels, batch_weights)
        loss.backward()
        optimizer.step()
        return loss

    # HABIT: the step launched op by op from Python (--fix graph removes it): 25 kernels
    # a step, each behind PyTorch's Python and dispatch, where this small model's kernels take
    # a few µs each: the profiler should find the GPU idle while the training thread works
    # through the step's launches (launch_bound). --fix graph: captured once, replayed each step.
    graphed = None
    if "graph" in fixes:
        shapes = ([torch.zeros(args.batch * COLUMNS, device=device)] if "pack" in fixes else
                  [torch.zeros(args.batch, common.PIXELS, device=device),
                   torch.zeros(args.batch, dtype=torch.long, device=device), torch.zeros(args.batch, device=device)])
        graphed = common.GraphedStep(optimizer, shapes, train_step)
    # HABIT: set-up's objects left to the garbage collector (--fix gc removes it): every
    # full collection scans all of them, about 100,000 from importing PyTorch alone (28-35
    # ms each on a 2-vCPU VM), and the per-sample batches' churn sets one off every few
    # hundred steps: the profiler should find the training thread stalled in them.
    if "gc" in fixes:
        gc.freeze()

    start = common.start_clock(device)
    # (measurement: the training thread's CPU time, so the time it spent off the CPU outside
    # its batch waits shows: waiting for the GIL held by the pin thread, or for autograd's
    # device thread in backward, which the fixes leave alone)
    cpu_start, batch_wait_cpu = time.thread_time(), 0.0
    # Each sample comes as three tensors: image, label and a per-sample loss weight
    # (the data set stays so under --fix pack too: only the collate differs).
    dataset = TensorDataset(images, labels, weights)
    # HABIT: num_workers=0 (--fix workers removes it), so the training process itself
    # indexes and collates every sample of every batch while the GPU waits: the profiler
    # should find the GPU idle between steps, for about as long as the host takes to
    # build a batch. --fix workers: --workers processes, kept across epochs
    # (persistent_workers: the loop below iterates the loader anew each epoch, which
    # would otherwise start new workers every epoch).
    # HABIT: pin_memory=False (--fix pin removes it), so batches land in pageable memory:
    # every copy below is a pageable host-to-device copy (staged by the driver through
    # its own pinned buffer, at a fraction of pinned bandwidth, and never overlapping a
    # kernel).
    # (The sampler, in place of shuffle=True, only makes both scripts visit the samples
    # in the same order; it is not a habit. DataLoader iterates it in this process, also
    # with workers, which get only the indices of each batch: each `for` over the loader
    # draws the next epoch's permutation here, whatever --fix says.)
    # HABIT: the batch indexed sample by sample (--fix gather removes it): DataLoader calls
    # the data set's __getitem__ once a sample and the default collate stacks the samples,
    # about 10 us of Python a sample, where gathering each tensor's rows of the whole batch
    # with one index_select is a pass over the batch's bytes: the profiler should find the
    # host's batch building far slower than gathering those bytes. (--fix gather: the
    # batch's indices at once, GatheredBatches; the same rows in the same order.)
    workers = args.workers if "workers" in fixes else 0
    order = common.ShuffledOrder(len(dataset), args.seed)
    shared = dict(num_workers=workers, persistent_workers=workers > 0, pin_memory=pin)
    if "gather" in fixes:
        loader = DataLoader(GatheredBatches(images, labels, weights, packed="pack" in fixes), batch_size=None,
                            sampler=BatchSampler(order, args.batch, drop_last=True), collate_fn=as_gathered, **shared)
    else:
        loader = DataLoader(dataset, batch_size=args.batch, sampler=order, drop_last=True,
                            collate_fn=collate_packed if "pack" in fixes else None, **shared)
    step, last_loss, batch_wait = 0, float("nan"), 0.0
    first_batch = None  # (measurement: the first batch wait, iter() to the batch: with --fix workers, their start)
    # --fix item (and --step-wait sync): the sum stays on the device, in float64 as the host's
    # Python float sum is, so that mean_loss is the same number.
    loss_sum = 0.0 if reads_every_step else torch.zeros((), dtype=torch.float64, device=device)
    model.train()
    # (measurement: the wall time a step of each --log-every stretch, so a run whose host ran
    # slower in some stretches than others shows it: pace_spread, the slowest stretch over the
    # fastest, and pace_best_ms, the fastest's, the first left out for its warm-up and workers'
    # start)
    pace_mark, paces = time.perf_counter(), []
    while step < args.steps:
        waited, waited_cpu = time.perf_counter(), time.thread_time()  # (measurement: waiting for batches)
        for batch in loader:
            batch_wait += time.perf_counter() - waited
            if first_batch is None:
                first_batch = time.perf_counter() - waited
            batch_wait_cpu += time.thread_time() - waited_cpu
            if graphed is not None:  # --fix graph: the batch copied into the graph's inputs, one launch
                loss = graphed(*([batch] if "pack" in fixes else batch), non_blocking=pin)
            elif "pack" in fixes:
                # --fix pack: one copy a batch, split on the device.
                optimizer.zero_grad(set_to_none=True)
                loss = train_step(batch.to(device, non_blocking=pin))
            else:
                batch_images, batch_labels, batch_weights = batch
                # HABIT: .to(device) without non_blocking (--fix pin removes it) on a
                # pageable tensor: a blocking copy. The host stops until it is done, so it
                # cannot queue the step's kernels meanwhile: the profiler should find a
                # synchronous pageable H2D copy per batch. (--fix pin: pinned, so the copy
                # can be asynchronous; non_blocking lets the host go on queueing.)
                batch_images = batch_images.to(device, non_blocking=pin)
                # HABIT: the labels and the weights copied one tensor at a time
                # (--fix pack removes it): two more tiny blocking copies per batch (1-2 KiB
                # each at batch 256), each paying a copy's fixed latency and a wait: the
                # profiler should find three H2D copies per step where one packed copy
                # would do (two small ones in a row: fewer than its many-small-copies rule
                # needs to call them a batch moved piecewise).
                batch_labels = batch_labels.to(device, non_blocking=pin)
                batch_weights = batch_weights.to(device, non_blocking=pin)
                optimizer.zero_grad(set_to_none=True)
                loss = train_step(batch_images, batch_labels, batch_weights)
            step += 1

            if syncs_every_step:
                # HABIT: with --step-wait sync or both, a synchronize every step (--fix item
                # removes it): the host waits for the whole step to finish, as a loop that
                # times each step with time.time() must: the profiler should find a device
                # synchronize per step and the GPU idle while the host prepares the next
                # batch, as with .item() every step (with both, the read then waits no more).
                torch.cuda.synchronize(device)
            if not reads_every_step:
                loss_sum += loss.detach()  # --fix item: one add on the device, no read, no wait
                if step % args.log_every == 0:
                    last_loss = loss.item()  # one wait every --log-every steps
            else:
                # HABIT: loss.item() every step (--fix item removes it): a 4-byte
                # device-to-host copy that waits for the whole step to finish, so the host
                # never runs ahead of the GPU: the profiler should find one synchronising
                # D2H copy per step and the GPU idle while the host prepares the next batch.
                last_loss = loss.item()
                loss_sum += last_loss
            # HABIT: printing the loss every few steps (cheap here only because .item()
            # already paid for the synchronisation above; --fix item keeps the print and
            # makes its loss.item() the only read of the device, every --log-every steps).
            if step % args.log_every == 0:
                print(f"step {step:6d}  loss {last_loss:.4f}", flush=True)
                now = time.perf_counter()
                paces.append((now - pace_mark) / args.log_every)
                pace_mark = now
            if step == args.steps:
                break
            waited, waited_cpu = time.perf_counter(), time.thread_time()
    if not reads_every_step:
        last_loss, loss_sum = loss.item(), loss_sum.item()  # the run's only other reads of the device
    wall = common.stop_clock(device, start)
    rest_cpu = time.thread_time() - cpu_start - batch_wait_cpu
    steady = paces[1:] if len(paces) >= 3 else []  # the stretches after the first, when two or more
    print(common.result_line("tutorial_style", args, device, data, wall, last_loss, loss_sum / args.steps,
                             batch_wait, fix="+".join(sorted(fixes)) or "none",
                             rest_off_cpu_s=max(0.0, wall - batch_wait - rest_cpu),
                             batch_wait_off_cpu_s=max(0.0, batch_wait - batch_wait_cpu),
                             pace_spread=max(steady) / min(steady) if steady else None,
                             pace_best_ms=min(steady) * 1e3 if steady else None,
                             step_wait=None if args.step_wait == "item" else args.step_wait,
                             # --fix graph: what ran (op by op on the CPU, or where the capture failed)
                             step=None if graphed is None else "graph" if graphed.graph is not None else "eager",
                             first_batch_s=first_batch),
          flush=True)


if __name__ == "__main__":
    main()
