"""Synthetic recordings for hdbench_profile's tests, made up here, not measured.

`Program` builds one process's `records-<pid>.jsonl` as libhdbench_inject.so writes it (a
process line, then copy, kernel, memset, api and range records in no particular order,
then an end line); its process line carries `"synthetic": true`, so the profile made from
it says `synthetic: true`. Times are given in microseconds from the process's origin and
written in nanoseconds. `baseline_report()` is a small hdbench report with transfer
per-copy runs at 4 KiB, 1 MiB and 64 MiB whose GB/s are round numbers for hand-worked
tests:

    GB/s        4 KiB   1 MiB   64 MiB
    h2d pinned   1.0    20.0    50.0
    h2d pageable 0.5     5.0     8.0
    d2h pinned   1.0    20.0    50.0
    d2h pageable 0.4     4.0     6.0

Two whole programs:
- `tutorial(steps)`: the loop of a beginner's tutorial. Each step of 2192 us: a 4 MiB
  pageable H2D batch copy (cudaMemcpyAsync + cudaStreamSynchronize: `.to(device)`, 800 us),
  16 label copies of 256 B from pageable memory 5 us apart, 10 kernels of 100 us, a 4-byte
  blocking D2H read (`loss.item()`), then 300 us of host work before the next step.
- `well_written(steps)`: pinned 4 MiB batches copied with cudaMemcpyAsync on a side stream
  (140 us) while the previous batch's kernels run (10 x 100 us on the compute stream), no
  per-step read; one read at the very end. It must give no finding.

As a script it is a fake injection: it writes a recording into $HDBENCH_PROFILE_DIR as if
the injection library had run in this process, the way hdbench_profile's tests use it:

    python3 profile_fixtures.py tutorial|well_written|none [--no-end] [--torn] [--error=WHY]
                                [--trace] [--sleep=S] [--exit=N] [--steps=N] [--child=WHICH]

`--child=WHICH` runs this script again as a child process (as a DataLoader worker or a
launcher's rank would be) that records program WHICH with a trace, starting later.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

KiB, MiB = 1 << 10, 1 << 20
US = 1000  # ns
# What stands in for libhdbench_inject.so where no process loads CUDA, so none opens it: the
# header of a 64-bit ELF shared object, all hdbench_profile and profile_overhead.py check.
# The memory measure this kernel gives a process's footprint by: RssAnon, or VmRSS where it has
# no more (gVisor, the GPU hosts')
KERNEL_MEASURE = "RssAnon" if "\nRssAnon:" in open("/proc/self/status").read() else "VmRSS"
INJECTION_LIBRARY_STAND_IN = b"\x7fELF\x02\x01\x01" + bytes(9) + b"\x03\x00" + bytes(46)

MEMCPY_GBPS = {4 * KiB: 5.0, MiB: 10.0, 64 * MiB: 10.0}  # one thread's host memcpy
BASELINE_GBPS = {
    ("h2d", "pinned"): {4 * KiB: 1.0, MiB: 20.0, 64 * MiB: 50.0},
    ("h2d", "pageable"): {4 * KiB: 0.5, MiB: 5.0, 64 * MiB: 8.0},
    ("d2h", "pinned"): {4 * KiB: 1.0, MiB: 20.0, 64 * MiB: 50.0},
    ("d2h", "pageable"): {4 * KiB: 0.4, MiB: 4.0, 64 * MiB: 6.0},
}


def baseline_report(host: str = "synthetic") -> dict:
    """An hdbench report of transfer per-copy runs at the GB/s above (real_time: the median, us)."""
    benchmarks = []
    for (direction, memory), rates in BASELINE_GBPS.items():
        for size, gbps in rates.items():
            name = f"transfer/{direction}/{memory}/copy/{size // KiB}KiB/manual_time"
            counters = {"bandwidth_GB/s": gbps, "latency_us": size / (gbps * 1e3)}
            benchmarks.append({
                "name": name, "run_name": name, "run_type": "iteration", "status": "ok", "iterations": 1,
                "real_time": size / (gbps * 1e3), "time_unit": "us", **counters, "counters": counters,
                "params": {"family": "transfer", "direction": direction, "memory": memory, "engine": "copy",
                           "variant": "per_copy", "bytes": size, "device": 0}})
    for size, gbps in MEMCPY_GBPS.items():
        name = f"host_memcpy/threads:1/{size // KiB}KiB"
        counters = {"bandwidth_GB/s": gbps}
        benchmarks.append({"name": name, "run_name": name, "run_type": "iteration", "status": "ok", "iterations": 1,
                           "real_time": size / (gbps * 1e3), "time_unit": "us", "counters": counters,
                           "params": {"family": "host_memcpy", "threads": 1, "bytes": size, "memory": "pageable"}})
    # A reference-loop run and a skipped one: a baseline reader must leave both out.
    benchmarks.append({"name": "transfer/h2d/pinned/copy_loop/4KiB/manual_time", "status": "ok",
                       "bandwidth_GB/s": 99.0, "counters": {"bandwidth_GB/s": 99.0},
                       "params": {"family": "transfer", "direction": "h2d", "memory": "pinned", "engine": "copy",
                                  "variant": "reference_loop", "bytes": 4 * KiB, "device": 0}})
    benchmarks.append({"name": "transfer/h2d/pinned/copy/16KiB/manual_time", "status": "skipped",
                       "skip_reason": "synthetic", "params": {"family": "transfer", "direction": "h2d",
                                                              "memory": "pinned", "bytes": 16 * KiB}})
    system = {"host": {"hostname": host, "cpu_model": "Synthetic CPU", "logical_cores": 2},
              "gpus": [{"index": 0, "name": "Synthetic GPU"}]}
    return {"context": {"host_name": host, "hdbench": {"started_at": "2026-11-20T10:00:00+0000",
                                                       "schema_version": 2, "system": system}},
            "benchmarks": benchmarks}


def write_baseline(path: Path, host: str = "synthetic") -> Path:
    path.write_text(json.dumps(baseline_report(host)))
    return path


class Program:
    """One process's records, built call by call."""

    def __init__(self, pid: int = 4242, command: str = "python3 train.py", gpus=("Synthetic GPU",)):
        self.pid, self.command, self.gpus = pid, command, list(gpus)
        self.records: list[dict] = []
        self.correlation = 0
        self.origin_ns = 0  # when CUDA started in the process, on CUPTI's clock
        # (monotonic_ns, cupti_ns) read together at the start and at the end, as the library's
        # process and end lines carry them; None: a recording made before they were written
        self.clock: tuple | None = None
        self.clock_end: tuple | None = None

    def _next(self) -> int:
        self.correlation += 1
        return self.correlation

    def kernel(self, start: float, duration: float, stream: int = 7, device: int = 0, name: str = "k",
               launch: tuple | None = None, thread: int = 1) -> None:
        """A kernel and, with `launch` (start, end), the cudaLaunchKernel call that issued it."""
        correlation = self._next()
        self.records.append({"type": "kernel", "start_ns": round(start * US), "end_ns": round((start + duration) * US),
                             "device": device, "stream": stream, "name": name, "correlation": correlation})
        if launch:
            self.api(launch[0], launch[1], "cudaLaunchKernel", thread, correlation)

    def graph(self, launch: tuple, kernels: list, stream: int = 7, device: int = 0, thread: int = 1) -> None:
        """A cudaGraphLaunch call (start, end) and the kernels (start, duration) its graph ran,
        which carry its correlation id as CUPTI's records of a graph's kernels do."""
        correlation = self._next()
        for start, duration in kernels:
            self.records.append({"type": "kernel", "start_ns": round(start * US),
                                 "end_ns": round((start + duration) * US), "device": device, "stream": stream,
                                 "name": "k", "correlation": correlation})
        self.api(launch[0], launch[1], "cudaGraphLaunch", thread, correlation)

    def memset(self, start: float, duration: float, nbytes: int, stream: int = 7, device: int = 0) -> None:
        self.records.append({"type": "memset", "start_ns": round(start * US), "end_ns": round((start + duration) * US),
                             "device": device, "stream": stream, "bytes": nbytes, "correlation": self._next()})

    def api(self, start: float, end: float, name: str, thread: int = 1, correlation: int | None = None) -> None:
        self.records.append({"type": "api", "start_ns": round(start * US), "end_ns": round(end * US),
                             "thread": thread, "name": name,
                             "correlation": self._next() if correlation is None else correlation})

    def copy(self, start: float, duration: float, nbytes: int, direction: str = "HtoD", host: str = "pageable",
             stream: int = 7, device: int = 0, call: str | None = "cudaMemcpyAsync", call_at: tuple | None = None,
             thread: int = 1, async_api: bool | None = None) -> None:
        """A copy and, unless `call` is None, the runtime call that issued it: by default a
        1 us call just before it (an async one) or one spanning it (a synchronous one)."""
        correlation = self._next()
        is_async = call.endswith("Async") if call else bool(async_api)
        src, dst = {"HtoD": (host, "device"), "DtoH": ("device", host)}.get(direction, ("device", "device"))
        self.records.append({
            "type": "copy", "start_ns": round(start * US), "end_ns": round((start + duration) * US), "device": device,
            "stream": stream, "direction": direction, "src": src, "dst": dst, "bytes": nbytes,
            "async_api": is_async if async_api is None else async_api, "correlation": correlation})
        if call:
            at = call_at or ((start - 1, start) if is_async else (start - 1, start + duration + 1))
            self.api(at[0], at[1], call, thread, correlation)

    def range(self, start: float, end: float, name: str, thread: int = 1) -> None:
        """An NVTX push/pop range the program opened on `thread`."""
        self.records.append({"type": "range", "start_ns": round(start * US), "end_ns": round(end * US),
                             "thread": thread, "name": name})

    def sync(self, start: float, end: float, thread: int = 1, name: str = "cudaStreamSynchronize") -> None:
        self.api(start, end, name, thread)

    def lines(self, end: bool = True, error: str = "", trace: bool = False) -> list[str]:
        process = {"type": "process", "pid": self.pid, "ppid": 1, "command": self.command, "host": "synthetic",
                   "gpus": self.gpus, "origin_ns": self.origin_ns, "synthetic": True}
        if self.clock:
            process["clock"] = {"monotonic_ns": self.clock[0], "cupti_ns": self.clock[1]}
        if error:
            process["error"] = error
            return [json.dumps(process)]
        records = list(self.records)
        random.Random(self.pid).shuffle(records)  # the library writes buffers as CUPTI hands them over
        out = [json.dumps(process)] + [json.dumps(r) for r in records]
        if end:
            end_line = {"type": "end", "records": len(records), "over_budget": 0, "cupti_dropped": 0,
                        "trace": f"trace-{self.pid}.json" if trace else ""}
            if self.clock_end:
                end_line["clock"] = {"monotonic_ns": self.clock_end[0], "cupti_ns": self.clock_end[1]}
            out.append(json.dumps(end_line))
        return out

    def write(self, folder: Path, end: bool = True, torn: bool = False, error: str = "", trace: bool = False) -> Path:
        """records-<pid>.jsonl in `folder`; `torn` cuts the last line in half (a killed process)."""
        text = "\n".join(self.lines(end, error, trace)) + "\n"
        if torn:
            text = text[:-1]
            text = text[:len(text) - len(text.rsplit("\n", 1)[-1]) // 2]
        path = Path(folder) / f"records-{self.pid}.jsonl"
        path.write_text(text)
        if trace:
            (Path(folder) / f"trace-{self.pid}.json").write_text(json.dumps({"traceEvents": [], "synthetic": True}))
        return path


def tutorial(steps: int = 50, pid: int = 4242) -> Program:
    p = Program(pid)
    t = 0.0
    for _ in range(steps):
        p.copy(t + 1, 800, 4 * MiB, call_at=(t, t + 5))  # images.to(device): pageable, then a sync
        p.sync(t + 5, t + 802)
        for i in range(16):  # labels moved one by one
            p.copy(t + 810 + 5 * i, 2, 256, call_at=(t + 809 + 5 * i, t + 810 + 5 * i))
        for k in range(10):
            p.kernel(t + 890 + 100 * k, 100)
        p.copy(t + 1890, 2, 4, direction="DtoH", call_at=(t + 1000, t + 1001))  # loss.item()
        p.sync(t + 1001, t + 1893)
        t += 2192
    return p


def well_written(steps: int = 50, pid: int = 4343) -> Program:
    p = Program(pid)
    p.copy(0, 140, 4 * MiB, host="pinned", stream=14)  # the first batch: nothing to hide it under yet
    for step in range(steps):
        t = 150 + 1000 * step
        for k in range(10):
            p.kernel(t + 100 * k, 100)
        if step + 1 < steps:  # the next batch, on the side stream, under this step's kernels
            p.copy(t + 100, 140, 4 * MiB, host="pinned", stream=14)
    end = 150 + 1000 * steps
    p.copy(end, 2, 4, direction="DtoH", call_at=(end - 5, end - 4))  # one read of the final loss
    p.sync(end - 4, end + 3)
    return p


# Shaped after the H200 recordings of 2026-11-26 (examples/fashion_mnist, batch 256-1024).
TUTORIAL_STEP_US = 2655
BATCH_BYTES = 1024 * 784 * 4  # 3.0625 MiB: the images of a batch of 1024


def tutorial_h200(steps: int = 20, pid: int = 4545) -> Program:
    """tutorial_style.py as the H200 recorded it, every time hand-placed (us), a step of 2655:

        0-2000      the training thread builds the batch: no CUDA call (num_workers=0)
        2000-2403   images.to(device): cudaMemcpyAsync of 3.0625 MiB from pageable memory,
                    403 us of call (staging) for a 251 us DMA record (2152-2403)
        2403-2408   its cudaStreamSynchronize
        2410-2445   labels and weights, each a 10 us call and a 5 us sync (its 2 us record
                    ends 1 us into the sync)
        2450-2645   10 launches, 5 us calls 20 us apart; kernels of 10 us, 5 us after each
        2640-2655   loss.item(): a 5 us cudaMemcpyAsync, the 4-byte read 2650-2652 after
                    the last kernel, inside a 10 us cudaStreamSynchronize (2645-2655)

    Per step: B = 2007 (2000 + the 2 and 5 us between the copy calls), L_pg = 408 (call 403),
    S = 30 (calls 20), R = 10, O = 200, L_idle = 50, launch calls 50, G = 357."""
    p = Program(pid)
    for step in range(steps):
        t = TUTORIAL_STEP_US * step
        p.copy(t + 2152, 251, BATCH_BYTES, call_at=(t + 2000, t + 2403))
        p.sync(t + 2403, t + 2408)
        p.copy(t + 2419, 2, 1024 * 8, call_at=(t + 2410, t + 2420))  # labels (int64), ends in the sync
        p.sync(t + 2420, t + 2425)
        p.copy(t + 2439, 2, 1024 * 4, call_at=(t + 2430, t + 2440))  # weights
        p.sync(t + 2440, t + 2445)
        for k in range(10):
            p.kernel(t + 2460 + 20 * k, 10, launch=(t + 2450 + 20 * k, t + 2455 + 20 * k))
        p.copy(t + 2650, 2, 4, direction="DtoH", host="pinned", call_at=(t + 2640, t + 2645))
        p.sync(t + 2645, t + 2655)
    return p


def well_written_h200(steps: int = 20, pid: int = 4646, ranges: bool = False, log_every: int = 0) -> Program:
    """well_written.py as the H200 recorded it (us), a step of 1000, the GPU busy 155 us of it (the first
    kernel runs under the copy):

        0-2         cudaEventSynchronize: the staging buffer is free again
        2-102       the batch gathered into pinned memory (host work, then its copy)
        102-110     cudaMemcpyAsync of 786 KiB from pinned memory on the side stream,
                    its DMA 110-155
        130-904     12 launches, 4 us calls 70 us apart (Python between them); kernels of
                    10 us from 5 us after each call
    No per-step read; one read of the final loss at the end. With `ranges`, an NVTX range
    "step N" around each step (0-990), as the script marks them: the model cuts its steps there.
    Cut so, per step: B = 100, O = 900, X = 774 (the first launch's start, 130, to the last's
    end, 904), 48 of it in 12 launch calls, G = 155. With `log_every` N, every N-th step reads
    the summed loss to log it (well_written.py --log-every N): a 4-byte read's 5 us call at
    950 and its 10 us synchronize, inside the step."""
    p = Program(pid)
    for step in range(steps):
        t = 1000 * step
        if ranges:
            p.range(t, t + 990, f"step {step + 1}")
        p.sync(t, t + 2, name="cudaEventSynchronize")
        p.copy(t + 110, 45, 256 * 786 * 4, host="pinned", stream=14, call_at=(t + 102, t + 110))
        for k in range(12):
            p.kernel(t + 135 + 70 * k, 10, launch=(t + 130 + 70 * k, t + 134 + 70 * k))
        if log_every and (step + 1) % log_every == 0:
            p.copy(t + 952, 2, 4, direction="DtoH", host="pinned", call_at=(t + 950, t + 955))
            p.sync(t + 955, t + 965)
    end = 1000 * steps
    p.copy(end + 10, 2, 4, direction="DtoH", host="pinned", call_at=(end, end + 5))
    p.sync(end + 5, end + 15)
    return p


def well_written_graphed(steps: int = 20, pid: int = 4949) -> Program:
    """well_written.py with its step replayed as one CUDA graph (us), a step of 300, each in
    its NVTX range "step N" (0-290):

        0-2         cudaEventSynchronize: the staging buffer is free again
        2-102       the batch gathered into pinned memory (host work, then its copy)
        102-110     cudaMemcpyAsync of 786 KiB from pinned memory on the side stream, its DMA 110-155
        115-120     cudaMemcpyAsync of the batch into the graph's input, device to device, 160-162
        125-131     cudaGraphLaunch: 12 kernels of 10 us back to back from 165
        131-300     Python: the NVTX range's end, the loop

    Per step: B = 100, X = 6 (the graph's launch alone), G = 167, T = 300: the host's step,
    the gather most of it."""
    p = Program(pid)
    for step in range(steps):
        t = 300 * step
        p.range(t, t + 290, f"step {step + 1}")
        p.sync(t, t + 2, name="cudaEventSynchronize")
        p.copy(t + 110, 45, PACKED_BATCH_BYTES, host="pinned", stream=14, call_at=(t + 102, t + 110))
        p.copy(t + 160, 2, PACKED_BATCH_BYTES, direction="DtoD", call_at=(t + 115, t + 120))
        p.graph((t + 125, t + 131), [(t + 165 + 10 * k, 10) for k in range(12)])
    end = 300 * steps
    p.copy(end + 10, 2, 4, direction="DtoH", host="pinned", call_at=(end, end + 5))
    p.sync(end + 5, end + 15)
    return p


PACKED_BATCH_BYTES = 256 * 786 * 4  # a batch of 256 as one tensor: 784 pixels, label and weight a row


def workers_and_pin(steps: int = 20, pid: int = 4747, pinning_thread: bool = True) -> Program:
    """tutorial_style.py --fix workers,pin,pack (a read every step kept), shaped after the
    H100 recording of 2026-11-28b, a step of 1420 us:

        0-300       the training thread waits for its batch from the pin thread: no CUDA call
        300-310     cudaMemcpyAsync of the packed batch from pinned memory, its DMA 310-330
        400-1305    10 launches, 5 us calls 100 us apart, Python between; kernels of 10 us
        1400-1420   loss.item(): a 5 us cudaMemcpyAsync and a 15 us cudaStreamSynchronize

    With `pinning_thread` a second thread (tid 2) allocated the pinned blocks in the first step,
    before the model's (which begin at its read: 4 cudaHostAlloc calls) and launches nothing:
    PyTorch's pin_memory thread.
    Per step: B = 300, R = 15, O = 1105, H = 1040 (90 + 9 x 95 + 95), G = 122."""
    p = Program(pid)
    if pinning_thread:
        for i in range(4):
            p.api(20 * i, 20 * i + 10, "cudaHostAlloc", thread=2)
    for step in range(steps):
        t = 1420 * step
        p.copy(t + 310, 20, PACKED_BATCH_BYTES, host="pinned", call_at=(t + 300, t + 310))
        for k in range(10):
            p.kernel(t + 410 + 100 * k, 10, launch=(t + 400 + 100 * k, t + 405 + 100 * k))
        p.copy(t + 1410, 2, 4, direction="DtoH", host="pinned", call_at=(t + 1400, t + 1405))
        p.sync(t + 1405, t + 1420)
    return p


def synchronize_every_step(steps: int = 20, pid: int = 4848, name: str = "cudaDeviceSynchronize",
                           read: bool = False, read_every: int = 1) -> Program:
    """A loop timed with torch.cuda.synchronize() at the end of every step and no per-step
    read (us), a step of 870:

        0-200       the training thread builds the batch: no CUDA call
        200-208     cudaMemcpyAsync of 786 KiB from pinned memory, its DMA 210-250
        260-535     10 launches, 5 us calls 30 us apart; kernels of 60 us back to back from
                    265, the last ending at 865
        540-867     the synchronize (`name`), waiting for the GPU
        867-870     Python

    Cut at the synchronizes, per step: B = 203 (the 3 us after the last synchronize and the
    200), R = 327, O = 340, G = 640 (the 40 us DMA and 600 us of kernels).

    With `read`, loss.item() after the synchronize, a step of 880: a 4-byte read's
    cudaMemcpyAsync 868-871 (its copy 869-870, done before its wait) and cudaStreamSynchronize
    871-873, then 7 us of Python. Cut at the reads: B = 207, R = 2, R_call = 3, and in
    O = 671 the synchronize's 327 (R_sync).

    With `read_every` N > 1, the read only every N-th step (a loop that logs its loss every N
    steps), that step 880 us, the others 870."""
    p = Program(pid)
    t = 0
    for step in range(steps):
        reads = read and step % read_every == 0
        p.copy(t + 210, 40, PACKED_BATCH_BYTES, host="pinned", call_at=(t + 200, t + 208))
        for k in range(10):
            p.kernel(t + 265 + 60 * k, 60, launch=(t + 260 + 30 * k, t + 265 + 30 * k))
        p.sync(t + 540, t + 867, name=name)
        if reads:
            p.copy(t + 869, 1, 4, direction="DtoH", host="pinned", call_at=(t + 868, t + 871))
            p.sync(t + 871, t + 873)
        t += 880 if reads else 870
    return p


def made_report(program: Program, folder: Path, command: list[str], wall_s: float, handover=None) -> dict:
    """The report hdbench_profile writes for a synthetic `program` run as `command` in `wall_s`,
    judged against baseline_report() (folder: a new directory for its records), with
    `handover` (a handover.Handover) as the probe's answer where given."""
    from hdreport.profile.records import read_recording  # the tools', not needed as a fake injection
    from hdreport.profile.report import baseline_section, profile_section, report

    folder.mkdir()
    program.write(folder)
    base = baseline_report()
    baseline = baseline_section("b.json", "given", base, "", "synthetic")
    section = profile_section(command, 0, None, wall_s, read_recording(folder), baseline, base, None,
                              handover_for=None if handover is None else lambda *_: handover)
    return report(section, base, [], "2026-11-20T10:00:00+0000", "x")


def main(argv: list[str]) -> int:
    """The fake injection: a recording written as if libhdbench_inject.so ran in this process."""
    which = argv[0] if argv else "tutorial"
    opts = dict(a[2:].split("=", 1) if "=" in a else (a[2:], "") for a in argv[1:])
    folder = os.environ.get("HDBENCH_PROFILE_DIR")  # unset: no injection, as without the library
    steps = int(opts.get("steps", 50))
    program = {"tutorial": tutorial, "well_written": well_written, "tutorial_h200": tutorial_h200,
               "well_written_h200": well_written_h200}.get(which)
    if program is not None and folder:
        p = program(steps, pid=os.getpid())
        p.command = f"profile_fixtures.py {which}"
        p.origin_ns = int(opts.get("origin", 0))
        p.clock = (time.monotonic_ns(), p.origin_ns)  # as the library pairs its clock with CLOCK_MONOTONIC
        p.write(Path(folder), end="no-end" not in opts, torn="torn" in opts, error=opts.get("error", ""),
                trace="trace" in opts)
    print(f"fake program {which} ran")  # standard output: the launcher must pass it through untouched
    sys.stdout.flush()
    if opts.get("child"):  # the environment, HDBENCH_PROFILE_DIR included, is inherited
        subprocess.run([sys.executable, __file__, opts["child"], "--trace", "--origin=1000"], check=True)
    if "sleep" in opts:
        time.sleep(float(opts["sleep"]))
    return int(opts.get("exit", 0))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
