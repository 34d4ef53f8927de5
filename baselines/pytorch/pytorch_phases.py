"""Where a PyTorch training step's time goes, in the phases hdbench's CPU step reports
(lib/mlp/mlp_cpu.hpp, CpuStepPhase; counters `phase_us/<phase>`), so the two steps can be
set side by side phase by phase: where PyTorch wins a config, which part of the step it wins.
On a GPU the same phases are charged with the kernels' time instead (`kernel_us/<phase>`):
the GEMMs' share of the step, and what runs between them.

A few steps run under torch.profiler (CPU activity, input shapes recorded), each op's own
time (less its children's) is charged to a phase, and the sums are divided by the steps:

    forward_gemm            aten::addmm / mm / matmul inside the forward (the Linear layers)
    forward_elementwise     the rest of the forward (ReLU, views)
    loss                    the loss's forward (log_softmax, nll_loss) and its backward nodes
                            (NllLossBackward0, LogSoftmaxBackward0): hdbench's softmax
                            cross-entropy pass, which writes its gradient too
    backward_input_gemm     the backward's mm that makes a layer's input gradient
                            (grad [B x out] @ W [out x in])
    weight_gradient_gemm    the backward's mm that makes a weight gradient
                            (grad^T [out x B] @ x [B x in])
    backward_elementwise    the rest of the backward (ReLU's mask, the bias gradients' sums,
                            AccumulateGrad, the engine's own work)
    optimizer               zero_grad and optimizer.step() (SGD with momentum: every update;
                            hdbench fuses its weights' update into weight_gradient_gemm, so
                            compare the two phases' sum)

`profiled_step_us` is the profiled steps' wall time per step: what the profiler cost beside
`step_us`. On the CPU the phases are the calling thread's op times: PyTorch runs a CPU
backward on the calling thread, and an op's intra-op threads end within it. A CUDA backward
runs on the autograd engine's thread, outside the named regions: its ops are found by the
backward node above them.
"""

from __future__ import annotations

import contextlib
import math
import time

import torch

PHASES = ("forward_gemm", "forward_elementwise", "loss", "backward_input_gemm", "backward_elementwise",
          "weight_gradient_gemm", "optimizer")
GEMMS = ("aten::addmm", "aten::mm", "aten::matmul", "aten::linear")
LOSS_NODES = ("NllLossBackward", "LogSoftmaxBackward", "CrossEntropyLossBackward")
REGION_PHASE = {"hdbench::forward": "forward_elementwise", "hdbench::loss": "loss",
                "hdbench::backward": "backward_elementwise", "hdbench::optimizer": "optimizer"}
REGIONS = tuple(REGION_PHASE)


def profiled_step(model, optimizer, loss_fn, x, y, amp=contextlib.nullcontext):
    """One training step (zero_grad, forward, loss, backward, step) with its regions named;
    `amp` the timed step's autocast (bf16), around the forward and the loss as there."""
    with torch.profiler.record_function("hdbench::optimizer"):
        optimizer.zero_grad(set_to_none=True)
    with amp():
        with torch.profiler.record_function("hdbench::forward"):
            logits = model(x)
        with torch.profiler.record_function("hdbench::loss"):
            loss = loss_fn(logits, y)
    with torch.profiler.record_function("hdbench::backward"):
        loss.backward()
    with torch.profiler.record_function("hdbench::optimizer"):
        optimizer.step()
    return loss


def backward_gemm_phase(shapes: list, batch: int, first_in_node: bool) -> str:
    """An mm of the backward: grad [B, out] @ W [out, in] makes an input gradient, grad^T
    [out, B] @ x [B, in] a weight gradient; where both read alike (out == B), the node's
    first mm is its input gradient (PyTorch's addmm backward computes mat1's first)."""
    a = shapes[0] if len(shapes) > 0 else []
    b = shapes[1] if len(shapes) > 1 else []
    input_like = len(a) == 2 and a[0] == batch
    weight_like = len(a) == 2 and len(b) == 2 and a[1] == batch and b[0] == batch
    if input_like and weight_like:
        return "backward_input_gemm" if first_in_node else "weight_gradient_gemm"
    return "weight_gradient_gemm" if weight_like else "backward_input_gemm"


def phase_of(event, batch: int) -> str | None:
    """The phase an op's own time belongs to: by the region and backward node above it."""
    region, node, first_in_node = None, None, True
    parent = event.cpu_parent
    child = event
    while parent is not None:
        if parent.name in REGIONS:
            region = parent.name
            break
        if node is None and parent.name.startswith("autograd::engine::evaluate_function: "):
            node = parent.name.split(": ", 1)[1]
            siblings = [c for c in parent.cpu_children if c.name in GEMMS]
            first_in_node = not siblings or siblings[0] is child
        child, parent = parent, parent.cpu_parent
    if region is None and node is not None:
        region = "hdbench::backward"  # a CUDA backward runs on the autograd engine's own thread, outside the region
    if region == "hdbench::forward":
        return "forward_gemm" if event.name in GEMMS else "forward_elementwise"
    if region == "hdbench::loss":
        return "loss"
    if region == "hdbench::optimizer":
        return "optimizer"
    if region == "hdbench::backward":
        if node is not None and node.startswith(LOSS_NODES):
            return "loss"
        if event.name == "aten::mm":
            return backward_gemm_phase(event.input_shapes, batch, first_in_node)
        return "backward_elementwise"
    return None


def own_time_us(event, device: bool) -> float:
    """An op's own time, µs: on the calling thread, or (`device`) in the kernels it launched
    itself (PyTorch 2.x names it self_device_time_total, 1.x self_cuda_time_total)."""
    if not device:
        return event.self_cpu_time_total
    value = getattr(event, "self_device_time_total", None)
    return value if value is not None else getattr(event, "self_cuda_time_total", 0.0)


def charge(events, batch: int, device: bool = False) -> dict:
    """phase -> µs over `events` (the profiler's FunctionEvents): each op's own time to its
    phase; a region's or a backward node's own time (Python between ops, the engine's
    bookkeeping) to the region's phase, or to the loss or the backward's element-wise part."""
    totals = dict.fromkeys(PHASES, 0.0)
    for event in events:
        if device and str(getattr(event, "device_type", "DeviceType.CPU")).rsplit(".", 1)[-1] != "CPU":
            continue  # a kernel's own record: its time is already its launching op's
        own = own_time_us(event, device)
        if event.name.startswith("autograd::engine::evaluate_function"):
            node = event.name.split(": ", 1)[1]
            totals["loss" if node.startswith(LOSS_NODES) else "backward_elementwise"] += own
        elif event.name in REGIONS:
            totals[REGION_PHASE[event.name]] += own
        else:
            phase = phase_of(event, batch)
            if phase is not None:
                totals[phase] += own
    return totals


def phase_counters(model, optimizer, loss_fn, batches, batch: int, step_seconds: float,
                   seconds: float = 0.3, device: bool = False, amp=contextlib.nullcontext) -> dict:
    """From steps run under the profiler over `batches` (a list of (x, y), cycled): one step
    under a profiler of its own to warm it up (its first ops read slow), then enough for
    about `seconds` at `step_seconds` a step (5 to 50). On the CPU, `phase_us/<phase>` per
    step (the calling thread's time); with `device` (a CUDA step), `kernel_us/<phase>` per
    step (the GPU time of the kernels each phase's ops launched) and `kernel_us` in all,
    the step's GPU-busy time, so that what is left of the step is launches and gaps.
    `profiled_step_us` either way: the profiled steps' wall time per step."""
    import os
    import warnings

    from torch.profiler import ProfilerActivity, profile

    # Kineto, the profiler's back end, says "gpuGetDeviceCount failed" as an ERROR on a machine
    # without a GPU, where only the CPU is profiled anyway; set the variable to see its messages.
    os.environ.setdefault("KINETO_LOG_LEVEL", "5")
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device else [])
    steps = int(min(50, max(5, math.ceil(seconds / max(step_seconds, 1e-9)))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the profiler's notes on cycles and devices
        with profile(activities=activities, record_shapes=True):  # warms the profiler up: discarded
            profiled_step(model, optimizer, loss_fn, *batches[0], amp)
            if device:
                torch.cuda.synchronize()
        with profile(activities=activities, record_shapes=True) as prof:
            start = time.perf_counter()
            for i in range(steps):
                profiled_step(model, optimizer, loss_fn, *batches[(i + 1) % len(batches)], amp)
            if device:
                torch.cuda.synchronize()
            wall = time.perf_counter() - start
        events = prof.events()
    totals = charge(events, batch, device)
    prefix = "kernel_us" if device else "phase_us"
    out = {f"{prefix}/{p}": totals[p] / steps for p in PHASES}
    if device:
        out["kernel_us"] = sum(totals.values()) / steps
    out["profiled_step_us"] = wall / steps * 1e6
    return out
