"""The PyTorch half of the baseline's `loader` family (see pytorch_loader.py): the
Dataset, the DataLoader runs, their timing and checksums.

One sample of the timing is one epoch: from iter(loader) (which starts the worker
processes) to the last batch consumed (for the gpu consumer, to the device finishing
its checksum), by time.perf_counter. The time the consumer spends inside next() is the
stall; the CPU time of whoever built the batches (the consumer thread with 0 workers,
else the worker processes' clocks from /proc, read when the last batch has arrived) is
the build cost.
"""

from __future__ import annotations

import os
import time

import numpy as np
import torch

import pytorch_data

try:
    CLOCK_TICK = os.sysconf("SC_CLK_TCK")
except (ValueError, OSError, AttributeError):
    CLOCK_TICK = 0


class MnistShaped(torch.utils.data.Dataset):
    """hdbench's samples, normalised one at a time as a tutorial's transform does:
    (image [784] float32, label int) -> default collate -> float32 [B, 784], int64 [B]."""

    def __init__(self, pixels: np.ndarray, labels: np.ndarray):
        self.pixels, self.labels = pixels, labels
        self.scale, self.offset = float(pytorch_data.SCALE), float(pytorch_data.OFFSET)

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int):
        image = torch.from_numpy(self.pixels[index]).to(torch.float32).mul_(self.scale).add_(self.offset)
        return image, int(self.labels[index])


def word_sum(images, labels):
    """The sum of the 32-bit words of a batch as collated (int64 labels: value, 0), on
    the tensors' device; hdbench's word_sum, with Python's unbounded ints at the end."""
    return images.view(torch.int32).sum(dtype=torch.int64) + labels.sum()


def expected_sum(dataset: MnistShaped) -> int:
    """What every epoch must add up to: all samples, each once (drop_last is off)."""
    images = pytorch_data.normalise(dataset.pixels)
    return int(images.view(np.int32).astype(np.int64).sum()) + int(dataset.labels.astype(np.int64).sum())


def process_cpu_us(pid: int) -> float:
    """utime + stime of a process, from /proc (0 when unreadable)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1e6 / CLOCK_TICK if CLOCK_TICK else 0.0
    except (OSError, IndexError, ValueError):
        return 0.0


def run_loader(spec: dict, opts, dataset: MnistShaped, env: dict) -> dict:
    gpu = spec["consumer"] == "gpu"
    if gpu and not env["gpu_usable"]:
        return {"status": "skipped", "reason": env["gpu_reason"]}
    device = torch.device("cuda", spec["device"]) if gpu else torch.device("cpu")
    if gpu:
        torch.cuda.set_device(spec["device"])
    generator = torch.Generator().manual_seed(opts.seed)
    loader = torch.utils.data.DataLoader(dataset, batch_size=spec["batch"], shuffle=True,
                                         num_workers=spec["workers"], pin_memory=spec["pinning"] == "pin_thread",
                                         generator=generator)
    expected = expected_sum(dataset)
    samples_us, wait_us, build_cpu_us, bytes_per_sample = [], 0.0, 0.0, 0.0
    start_all, cpu_start = time.perf_counter(), time.thread_time()
    while len(samples_us) < opts.loader_min_epochs or time.perf_counter() - start_all < opts.min_time:
        total = torch.zeros((), dtype=torch.int64, device=device)
        batches = 0
        start = time.perf_counter()
        it = iter(loader)
        while True:
            t0, c0 = time.perf_counter(), time.thread_time()
            try:
                images, labels = next(it)
            except StopIteration:
                break
            wait_us += (time.perf_counter() - t0) * 1e6
            if spec["workers"] == 0:
                build_cpu_us += (time.thread_time() - c0) * 1e6
            if gpu:
                images = images.to(device, non_blocking=True)
                labels = labels.to(device, non_blocking=True)
            total += word_sum(images, labels)
            batches += 1
            if batches == len(loader) and spec["workers"] > 0:
                # Every batch is here; the workers are done and not yet shut down.
                build_cpu_us += sum(process_cpu_us(w.pid) for w in getattr(it, "_workers", []))
            if batches == 1:
                bytes_per_sample = sum(t.element_size() * t.numel() for t in (images, labels)) / len(labels)
        if gpu:
            torch.cuda.synchronize()
        samples_us.append((time.perf_counter() - start) * 1e6)
        got = int(total.item())
        if got != expected or batches != len(loader):
            return {"status": "error", "reason": f"epoch {len(samples_us) - 1} delivered {batches} batches with "
                    f"checksum {got:#x}, expected {len(loader)} with {expected:#x}: a batch was lost, repeated or "
                    "corrupted"}
    notes = ["DataLoader defaults: persistent_workers off (each epoch starts its workers), prefetch_factor 2"]
    if spec["workers"] > 0 and build_cpu_us == 0.0:
        notes.append("the workers' CPU time could not be read (/proc or DataLoader internals differ)")
    cpu_us = (time.thread_time() - cpu_start) * 1e6 / len(samples_us)  # the consumer thread's, per epoch
    return {"status": "ok", "samples_us": samples_us, "cpu_us": cpu_us, "counters": {}, "notes": notes,
            "epoch_samples": len(dataset), "batches": len(loader), "wait_us": wait_us,
            "build_cpu_us": build_cpu_us, "bytes_per_sample": bytes_per_sample, "cores": os.cpu_count() or 1}
