#!/usr/bin/env python3
"""Fashion-MNIST, an MLP (784 -> hidden -> 10) trained with SGD, written the way many
tutorials write it, with the data-movement habits they warn about. Each habit is
marked `HABIT:` with what a profiler of host<->device traffic should find there.
well_written.py trains the same model on the same batches in the same order; the
difference in wall time between the two is what those habits cost.

    python3 examples/fashion_mnist/tutorial_style.py [--steps N] [--batch B] [--device cpu]
"""

from __future__ import annotations

import time

import torch
from torch.utils.data import DataLoader, TensorDataset

import common


def main() -> None:
    parser = common.make_parser(__doc__)
    parser.add_argument("--log-every", type=common.positive_int, default=100,
                        help="print the loss every N steps (default 100)")
    args = parser.parse_args()
    device = common.pick_device(args.device)
    images, labels, weights, data = common.load_data(args)
    model, optimizer = common.build_model(args, device)  # moved to the device once, as it should be
    common.warm_up(model, args, device)

    start = common.start_clock(device)
    # Each batch comes as three tensors: images, labels and a per-sample loss weight.
    dataset = TensorDataset(images, labels, weights)
    # HABIT: num_workers=0, so the training process itself indexes and collates every
    # sample of every batch while the GPU waits: the profiler should find the GPU idle
    # between steps, for about as long as the host takes to build a batch.
    # HABIT: pin_memory=False, so batches land in pageable memory: every copy below is
    # a pageable host-to-device copy (staged by the driver through its own pinned
    # buffer, at a fraction of pinned bandwidth, and never overlapping a kernel).
    # (The sampler, in place of shuffle=True, only makes both scripts visit the samples
    # in the same order; it is not a habit.)
    loader = DataLoader(dataset, batch_size=args.batch, sampler=common.ShuffledOrder(len(dataset), args.seed),
                        num_workers=0, pin_memory=False, drop_last=True)
    step, loss_sum, last_loss, batch_wait = 0, 0.0, float("nan"), 0.0
    model.train()
    while step < args.steps:
        waited = time.perf_counter()  # (measurement: host time spent waiting for batches)
        for batch_images, batch_labels, batch_weights in loader:
            batch_wait += time.perf_counter() - waited
            # HABIT: .to(device) without non_blocking on a pageable tensor: a blocking copy.
            # The host stops until it is done, so it cannot queue the step's kernels
            # meanwhile: the profiler should find a synchronous pageable H2D copy per batch.
            batch_images = batch_images.to(device)
            # HABIT: the labels and the weights copied one tensor at a time: two more tiny
            # blocking copies per batch (1-2 KiB each at batch 256), each paying a copy's
            # fixed latency and a wait: the profiler should find three H2D copies per step
            # where one packed copy would do (two small ones in a row: fewer than its
            # many-small-copies rule needs to call them a batch moved piecewise).
            batch_labels = batch_labels.to(device)
            batch_weights = batch_weights.to(device)

            optimizer.zero_grad(set_to_none=True)
            loss = common.loss_fn(model(batch_images), batch_labels, batch_weights)
            loss.backward()
            optimizer.step()

            # HABIT: loss.item() every step: a 4-byte device-to-host copy that waits for
            # the whole step to finish, so the host never runs ahead of the GPU: the
            # profiler should find one synchronising D2H copy per step and the GPU idle
            # while the host prepares the next batch.
            last_loss = loss.item()
            loss_sum += last_loss
            step += 1
            # HABIT: printing the loss every few steps (cheap here only because .item()
            # already paid for the synchronisation above).
            if step % args.log_every == 0:
                print(f"step {step:6d}  loss {last_loss:.4f}", flush=True)
            if step == args.steps:
                break
            waited = time.perf_counter()
    wall = common.stop_clock(device, start)
    print(common.result_line("tutorial_style", args, device, data, wall, last_loss, loss_sum / args.steps,
                             batch_wait), flush=True)


if __name__ == "__main__":
    main()
