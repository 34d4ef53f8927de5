#!/usr/bin/env python3
"""Fashion-MNIST, an MLP (784 -> hidden -> 10) trained with SGD: the same model, batches,
order and steps as tutorial_style.py, with the data movement written well:

- the whole training set (60000 x 784 floats, 188 MB) is packed once into one pinned
  (page-locked) host tensor, images, label and per-sample weight side by side in a row;
- each batch is gathered into one of two pinned staging buffers and copied to the GPU
  as one tensor with non_blocking=True on a side stream, one batch ahead, so the copy
  overlaps the previous step's kernels; the GPU splits it into images, labels, weights;
- the loss is summed on the GPU and read once at the end (and every --log-every steps);
- the step (split, forward, loss, backward, optimizer step, the loss summed) is captured
  once in a CUDA graph and replayed: one launch a step where PyTorch op by op makes about
  25, each behind its Python (--eager runs it op by op; on --device cpu there is no graph
  and the step runs op by op on the graph's input tensor, with a note);
- each step is marked with an NVTX range, where a profiler's timeline shows it;
- what set-up made is frozen out of Python's garbage collector (gc.freeze()).

    python3 examples/fashion_mnist/well_written.py [--steps N] [--batch B] [--device cpu] [--eager]
"""

from __future__ import annotations

import gc
import time

import torch

import common

COLUMNS = common.PIXELS + 2  # a packed row: 784 pixels, the label (as a float), the weight


def pack(images, labels, weights, pin: bool):
    """The training set as one [N, 786] float32 tensor, allocated pinned when `pin`."""
    packed = torch.empty(len(labels), COLUMNS, dtype=torch.float32, pin_memory=pin)
    packed[:, :common.PIXELS] = images
    packed[:, common.PIXELS] = labels.float()  # 0..9: exact in float32
    packed[:, common.PIXELS + 1] = weights
    return packed


class Prefetcher:
    """Batches of `packed` in `order`, on the device, one batch ahead.

    On a GPU: the rows of batch i+1 are gathered on the host into a pinned staging
    buffer (two, used in turn; an event says when the copy out of one has finished and
    it may be refilled) and copied with non_blocking=True on a side stream, queued as
    step i starts so that it runs beside step i's kernels. The training stream waits for
    that copy (on the GPU, not the host) before it reads the batch."""

    def __init__(self, packed, order, batch: int, steps: int, device):
        self.packed, self.order, self.batch, self.steps, self.device = packed, order, batch, steps, device
        self.per_epoch = len(packed) // batch  # drop_last, as tutorial_style.py's loader
        self.cuda = device.type == "cuda"
        pin = self.cuda
        self.staging = [torch.empty(batch, COLUMNS, dtype=torch.float32, pin_memory=pin) for _ in range(2)]
        if self.cuda:
            self.side = torch.cuda.Stream(device)
            self.copied = [torch.cuda.Event() for _ in self.staging]
        self.step, self.epoch, self.permutation = 0, -1, None
        self.ready = self._load()

    def _load(self):
        if self.step == self.steps:
            return None  # no batch after the last step
        i = self.step % self.per_epoch
        if i == 0:
            self.epoch += 1
            self.permutation = self.order.permutation(self.epoch)
        rows = self.permutation[i * self.batch:(i + 1) * self.batch]
        slot = self.step % 2
        staging = self.staging[slot]
        if not self.cuda:  # no copy to make: the batch is used where it is gathered
            self.step += 1
            return torch.index_select(self.packed, 0, rows, out=staging)
        self.copied[slot].synchronize()  # the copy out of this buffer two batches ago is done
        torch.index_select(self.packed, 0, rows, out=staging)  # gathered straight into pinned memory
        if self.step == 0 and not staging.is_pinned():
            raise RuntimeError("the staging buffer lost its pinned memory")
        with torch.cuda.stream(self.side):
            on_gpu = staging.to(self.device, non_blocking=True)  # one packed copy, asynchronous
            self.copied[slot].record(self.side)
        self.step += 1
        return on_gpu

    def next(self):
        """The next batch, packed, on the device (split it with `split`)."""
        packed = self.ready
        if self.cuda:
            current = torch.cuda.current_stream(self.device)
            current.wait_stream(self.side)  # the GPU waits for the copy; the host does not
            packed.record_stream(current)  # made on the side stream, used on this one
        self.ready = self._load()  # start the next batch's copy now, behind this step's kernels
        return packed


def split(packed):
    """(images, labels, weights) of a packed batch, on its device: views, and one small
    kernel for the labels."""
    return packed[:, :common.PIXELS], packed[:, common.PIXELS].long(), packed[:, common.PIXELS + 1]


def main() -> None:
    parser = common.make_parser(__doc__)
    parser.add_argument("--log-every", type=common.positive_int, default=None,
                        help="print the mean loss of the last N steps every N steps, one read of the "
                             "GPU's running sum each time (default: only at the end); the run's pace "
                             "(pace_spread, pace_best_ms) is then measured between those reads")
    parser.add_argument("--eager", action="store_true",
                        help="run the step op by op, not replayed as one CUDA graph (what the graph saves)")
    args = parser.parse_args()
    device = common.pick_device(args.device)
    if not args.eager and device.type != "cuda":
        print(f"note: no CUDA graph on device {device}: the step runs op by op on the graph's input tensor "
              f"(the same losses; --eager leaves that tensor out)", flush=True)
    images, labels, weights, data = common.load_data(args)
    model, optimizer = common.build_model(args, device)
    common.warm_up(model, args, device)
    loss_sum = torch.zeros((), device=device)  # summed on the device: no read, no wait

    def train_step(packed):
        """Split, forward, loss, backward, the optimizer's step and the loss summed: the step."""
        batch_images, batch_labels, batch_weights = split(packed)
        loss = common.loss_fn(model(batch_images), batch_labels, batch_weights)
        loss.backward()
        optimizer.step()
        loss_sum.add_(loss.detach())
        return loss

    graphed = None if args.eager else common.GraphedStep(
        optimizer, [torch.zeros(args.batch, COLUMNS, device=device)], train_step)
    loss_sum.zero_()  # the graph's warm-up steps added their (zero) losses: the sum starts afresh
    gc.freeze()  # set-up's objects out of the full collections' reach: they are never garbage

    start = common.start_clock(device)
    packed = pack(images, labels, weights, pin=device.type == "cuda")  # paid once, inside the timed run
    batches = Prefetcher(packed, common.ShuffledOrder(len(labels), args.seed), args.batch, args.steps, device)
    logged_sum, batch_wait = 0.0, 0.0
    # (measurement, with --log-every: the wall time a step of each stretch between two reads,
    # which wait for the GPU, so a stretch's host time is its steps' time; without reads the
    # host runs ahead of the GPU and no stretch can be timed. pace_spread and pace_best_ms as
    # tutorial_style.py gives them, the first stretch left out)
    pace_mark, paces = time.perf_counter(), []
    model.train()
    for step in range(1, args.steps + 1):
        with common.step_range(device, step):  # each step marked, for a profiler's timeline
            waited = time.perf_counter()  # (measurement: host time spent getting the batch)
            batch = batches.next()
            batch_wait += time.perf_counter() - waited
            if graphed is not None:
                loss = graphed(batch)  # copied into the graph's input on the GPU, then one launch
            else:
                optimizer.zero_grad(set_to_none=True)
                loss = train_step(batch)

        if args.log_every and step % args.log_every == 0:
            total = loss_sum.item()  # one wait every log_every steps
            now = time.perf_counter()
            paces.append((now - pace_mark) / args.log_every)
            pace_mark = now
            print(f"step {step:6d}  mean loss of the last {args.log_every} steps "
                  f"{(total - logged_sum) / args.log_every:.4f}", flush=True)
            logged_sum = total
    final_loss = loss.item()  # the only reads of the device the run needs
    mean_loss = loss_sum.item() / args.steps
    wall = common.stop_clock(device, start)
    steady = paces[1:] if len(paces) >= 3 else []
    print(common.result_line("well_written", args, device, data, wall, final_loss, mean_loss, batch_wait,
                             pace_spread=max(steady) / min(steady) if steady else None,
                             pace_best_ms=min(steady) * 1e3 if steady else None,
                             # what ran: a CUDA graph only where one was captured (not on the CPU)
                             step="graph" if graphed is not None and graphed.graph is not None else "eager"),
          flush=True)


if __name__ == "__main__":
    main()
