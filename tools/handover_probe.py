#!/usr/bin/env python3
"""What a batch from a PyTorch DataLoader worker costs the training thread on this machine:
the hand-over `hdbench_profile` prices its `input_pipeline` fix with, measured rather than
taken from other hosts (tools/hdreport/profile/handover.py, Handover).

A recording made with num_workers=0 cannot show it: the training thread builds each batch
itself. With workers it takes each tensor off the worker queue (a file descriptor over a
socket, the shared memory mapped, the storage rebuilt) and its first read of the fresh pages
faults them in. So this probe runs a DataLoader with workers over batches shaped as the
recorded program's (--tensor-bytes: each tensor of a batch), lets the workers get ahead
before each batch, and times on this thread

    batch_s         taking a batch and reading its fresh tensors, less reading warm ones
    batch_take_s    taking a batch alone, its tensors not read: of batch_s, the part the
                    training thread pays where it waits for the batch; the rest (the fresh
                    pages faulted in) lands where it first reads them, its .to(device) copy.
                    Measured only: the model does not yet split the hand-over so (on a 2-vCPU
                    VM taking was 0.67 of it for one 786 KiB tensor, 0.70 for three)
    packed_batch_s  the same for the batch's bytes as one tensor (what packing leaves)
    workers_start_s starting --start-workers workers (start_workers): from iter() over a
                    fresh DataLoader to its first batch, the median of three, measured last,
                    so in a process whose CUDA is up where there is CUDA, as a training
                    program's is when it starts its workers: what a program pays once with
                    persistent_workers, every epoch without. The model takes it off the
                    workers fix's saving (hdbench_profile passes the count its finding
                    advises). Each worker is a fork of this process, which copies its page
                    tables: with --footprint-bytes B it first holds B bytes in all, anonymous
                    resident memory (RssAnon; all resident memory, VmRSS, where the kernel
                    says no more, as gVisor) as the program measured its own (hdbench_profile
                    passes what it held while its steps ran, which its Python sampled),
                    footprint_bytes what it held, footprint_measure which of the two. On a
                    2-vCPU VM starting three workers took 19.5 ms bare, 46.9 ms holding 1 GB
    pinned_batch_s  taking a batch with pin_memory=True (the pin thread took it over), only
                    where CUDA is available; null, with pinned_not_measured saying why
    pin_thread_batch_s  with pin_memory=True, what the pin thread's work on the next batch
                    costs this thread while it works (the GIL): a stand-in for a step's host
                    work (small tensor ops, each letting the GIL go and taking it back as
                    PyTorch's do) timed right after taking a batch, while the pin thread
                    takes over and pins the next one, less the same work timed right after
                    that, the pin thread idle (paired batch by batch); null with
                    pinned_not_measured where CUDA is not available
    packed_pin_thread_batch_s  the same for the batch's bytes as one tensor (what packing
                    leaves the pin thread); null likewise
    pin_cycle_batch_s  with pin_memory=True, the pin thread's own time a batch (taking it
                    over and pinning it): batches taken back to back, this thread only
                    waiting for them (the GIL released), the median interval between two
                    once the batches prefetched at start-up are gone; the workers, building
                    nothing, keep ahead. No step fed by that pin thread is shorter. Null
                    likewise
    packed_pin_cycle_batch_s  the same for the batch's bytes as one tensor (what packing
                    leaves the pin thread's pace: on four hosts every habit fixed, packing
                    included, ran about as fast as workers and pin). Null likewise
    pin_here_batch_s  pinning a batch on this thread, as DataLoader(pin_memory=True) does with
                    num_workers=0: each tensor of a freshly built pageable batch pinned with
                    tensor.pin_memory() (PyTorch's pinned allocator and its copy, which may
                    run on its intra-op threads): what pinning alone costs the training
                    thread where the batch copy used to be staged. Null likewise
    graph_replay_batch_s  what a step replayed as one CUDA graph leaves this thread a batch: the
                    batch (its bytes, on the device) copied into the graph's input with copy_(),
                    then the replay of a graph of GRAPH_KERNELS small kernels, the GPU idle before
                    each (the launch_bound finding's fix, which the model prices otherwise as two
                    of the recording's launch calls a batch). Null likewise
    gather_batch_s  building the batch on this thread by gathering it whole, as the
                    per_sample_batches fix advises: a DataLoader without workers over a data
                    set held in memory (larger than the caches), each tensor's --rows rows of
                    the batch picked at random with one index_select (Gathered): what
                    `hdbench_profile` prices that fix with (tools/hdreport/profile/model.py)

each the median over --batches batches. It prints one JSON object on standard output and
exits 0; it exits 2 on bad arguments or where standard output cannot be written, 1 when
PyTorch cannot be imported, 3 when PyTorch fails while it measures (a worker killed: /dev/shm
too small for the batches) and 130 on SIGINT, its last line saying why, so its caller can say
why nothing was measured.

    python3 tools/handover_probe.py --tensor-bytes 802816,1024 [--rows R] [--batches 100] [--workers 2]
                                    [--start-workers N] [--footprint-bytes B]

--rows: the samples in a batch (each tensor's bytes a whole number of rows); default: the
smallest tensor's 4-byte values when a batch has several tensors (a label or a weight a
sample), else rows of about 4 KiB.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import time

MAX_TENSOR_BYTES = 1 << 30
GATHER_SOURCE_BYTES = 256 << 20  # a data set larger than a host's last-level cache
ROW_BYTES_ALONE = 4096  # the rows of a batch of one tensor, when --rows does not say


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="handover_probe.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tensor-bytes", required=True,
                        help="each tensor of a batch, bytes, comma-separated (e.g. 802816,1024)")
    parser.add_argument("--rows", type=int, default=None,
                        help="samples in a batch (default: the smallest tensor's 4-byte values, or 4 KiB rows)")
    parser.add_argument("--batches", type=int, default=100, help="batches timed (default 100)")
    parser.add_argument("--workers", type=int, default=2, help="DataLoader workers (default 2)")
    parser.add_argument("--start-workers", type=int, default=None,
                        help="the workers whose start is timed (default: --workers)")
    parser.add_argument("--footprint-bytes", type=int, default=0,
                        help="anonymous memory to hold in all while the start is timed, as the program did")
    args = parser.parse_args(argv)
    try:
        args.sizes = [int(s) for s in args.tensor_bytes.split(",")]
    except ValueError:
        parser.error(f"--tensor-bytes={args.tensor_bytes}: give whole numbers of bytes, comma-separated")
    if not args.sizes or any(not 1 <= s <= MAX_TENSOR_BYTES for s in args.sizes):
        parser.error(f"--tensor-bytes={args.tensor_bytes}: each between 1 and {MAX_TENSOR_BYTES} bytes")
    if args.rows is None:
        args.rows = default_rows(args.sizes)
    if not 1 <= args.rows or any(n % args.rows for n in args.sizes):
        parser.error(f"--rows={args.rows}: each tensor ({args.tensor_bytes} bytes) must be a whole number of rows")
    if not 10 <= args.batches <= 100_000:
        parser.error(f"--batches={args.batches}: between 10 and 100000")
    if not 1 <= args.workers <= 64:
        parser.error(f"--workers={args.workers}: between 1 and 64")
    if args.start_workers is None:
        args.start_workers = args.workers
    if not 1 <= args.start_workers <= 64:
        parser.error(f"--start-workers={args.start_workers}: between 1 and 64")
    if args.footprint_bytes < 0:
        parser.error(f"--footprint-bytes={args.footprint_bytes}: 0 or more")
    return args


def default_rows(sizes: list[int]) -> int:
    """The samples in a batch of these tensors when nobody says: with several tensors, the
    smallest one's 4-byte values (a label or a weight a sample), where that divides them all;
    else rows of about ROW_BYTES_ALONE (whole rows of the smallest tensor)."""
    smallest = min(sizes)
    if len(sizes) > 1 and smallest % 4 == 0 and all(n % (smallest // 4) == 0 for n in sizes):
        return smallest // 4
    rows = max(1, smallest // ROW_BYTES_ALONE)
    while any(n % rows for n in sizes):
        rows -= 1
    return rows


class Gathered:
    """A data set held in memory as one uint8 tensor per tensor of a batch, indexed a batch at
    a time (a BatchSampler as DataLoader's sampler, batch_size=None): each tensor's rows of
    the batch gathered with one index_select, the fix per_sample_batches advises."""

    def __init__(self, sources: list):
        self.sources = sources

    def __len__(self) -> int:
        return len(self.sources[0])

    def __getitem__(self, indices):
        import torch

        index = torch.as_tensor(indices)
        return [torch.index_select(source, 0, index) for source in self.sources]


def as_is(batch):
    return batch


def gather_s(sizes: list[int], rows: int, batches: int) -> float:
    """Seconds this thread takes to build one batch by gathering it whole (the median over
    `batches`): a DataLoader (num_workers=0) over Gathered, its rows `rows` at random out of a
    data set of GATHER_SOURCE_BYTES, written and so in RAM."""
    import torch
    from torch.utils.data import BatchSampler, DataLoader, RandomSampler

    row_bytes = [n // rows for n in sizes]
    count = max(rows, GATHER_SOURCE_BYTES // sum(row_bytes))
    data = Gathered([torch.ones(count, r, dtype=torch.uint8) for r in row_bytes])
    sampler = BatchSampler(RandomSampler(range(count), generator=torch.Generator().manual_seed(1)), rows, True)
    it = iter(DataLoader(data, batch_size=None, sampler=sampler, collate_fn=as_is))
    times = []
    for _ in range(min(batches + 1, count // rows)):
        start = time.perf_counter()
        next(it)
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:] or times)  # the first pays for warming the allocator


class Batches:
    """A map-style dataset whose items are whole batches (batch_size=None): one uint8 tensor
    per size, filled, so the worker writes every page before sending it."""

    def __init__(self, sizes: list[int], count: int):
        self.sizes, self.count = sizes, count

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i: int):
        import torch

        return tuple(torch.full((n,), i % 251, dtype=torch.uint8) for n in self.sizes)


def read_all(batch) -> None:
    """Reads every page of every tensor, as a pageable copy's staging does."""
    for t in batch:
        t.clone()


def take_batches(loader, batches: int, read: bool) -> list[float]:
    """Seconds this thread spends per batch, the workers given time to get ahead before each:
    taking it, and with `read` reading it fresh less reading it again warm (paired batch by
    batch, so a busy moment of the machine lands on both sides)."""
    times = []
    it = iter(loader)
    next(it)  # the workers' start-up is not a hand-over
    for _ in range(batches):
        time.sleep(0.005)  # the workers refill the queue: what is timed is the hand-over, not a wait
        start = time.perf_counter()
        batch = next(it)
        taken = time.perf_counter()
        if read:
            read_all(batch)
            fresh = time.perf_counter()
            read_all(batch)
            warm = time.perf_counter()
            times.append((taken - start) + max(0.0, (fresh - taken) - (warm - fresh)))
        else:
            times.append(taken - start)
    return times


STARTS = 3  # loaders started to time the workers' start, the median kept


def proc_bytes(path: str, key: str) -> int:
    """A `key: N kB` line of a /proc file, in bytes; 0 where it does not say."""
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def resident_memory() -> tuple[str, int]:
    """(measure, bytes): this process's anonymous resident memory (RssAnon), else where the
    kernel does not say it (gVisor) all its resident memory (VmRSS), as the program's Python
    measured its own (tools/profile_site); ("", 0) where neither."""
    for key in ("RssAnon", "VmRSS"):
        if said := proc_bytes("/proc/self/status", key):
            return key, said
    return "", 0


def hold_footprint(total: int):
    """Anonymous memory, written, so that this process holds about `total` bytes in all (never
    more than half of what is available): a tensor to keep alive while the start is timed, or
    None where it holds that much already."""
    import torch

    more = min(total - resident_memory()[1], proc_bytes("/proc/meminfo", "MemAvailable") // 2)
    return torch.ones(more, dtype=torch.uint8) if more > 0 else None


def workers_start_s(make_loader, starts: int = STARTS) -> float:
    """The median, over `starts` fresh loaders, of the seconds from iter() to the first batch:
    the workers forked and the first one's first batch built and handed over. Each loader's
    workers are shut down before the next starts (not timed: a program pays that at exit)."""
    times = []
    for _ in range(starts):
        loader = make_loader()
        started = time.perf_counter()
        it = iter(loader)
        next(it)
        times.append(time.perf_counter() - started)
        del it
    return statistics.median(times)


def host_work(tensor, ops: int) -> float:
    """Seconds of a training step's host work stand-in: `ops` small in-place tensor ops, each
    releasing the GIL and taking it back, as PyTorch's ops called from Python do."""
    start = time.perf_counter()
    for _ in range(ops):
        tensor.add_(1.0)
    return time.perf_counter() - start


def slowdown_s(take_next, work, batches: int) -> float:
    """The median, over `batches`, of `work()` timed right after `take_next()` (another thread
    now busy with what taking set off) less `work()` timed again right after (that thread
    idle by then): what the other thread's work costs this one. `work` should outlast it."""
    extra = []
    for _ in range(batches):
        take_next()
        busy = work()
        idle = work()
        extra.append(busy - idle)
    return statistics.median(extra)


# The kernels of the graph graph_replay_batch_s replays: as many as the tutorial's step ran (an
# H100 recording: 12 launched by the training thread, 13 by autograd's). CUDA 12 launches a
# straight-line graph in about constant time, so the count matters little.
GRAPH_KERNELS = 25


def graph_replay_s(total_bytes: int, batches: int) -> float:
    """The median, over `batches`, of copying `total_bytes` on the device into a graph's input
    and replaying the graph (GRAPH_KERNELS small kernels), timed on this thread with the GPU
    idle before each: the host's part of a step replayed as a graph."""
    import torch
    source = torch.ones(max(1, total_bytes // 4), device="cuda")
    into = torch.zeros_like(source)
    small = torch.zeros(256, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # PyTorch's capture recipe: the ops run once before the capture
        small.add_(into[:1])
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(GRAPH_KERNELS):
            small.add_(into[:1])
    times = []
    for _ in range(batches + 1):
        torch.cuda.synchronize()
        start = time.perf_counter()
        into.copy_(source)
        graph.replay()
        times.append(time.perf_counter() - start)
    torch.cuda.synchronize()
    return statistics.median(times[1:])  # the first replay uploads the graph


def probe(sizes: list[int], batches: int, workers: int, rows: int, start_workers: int | None = None,
          footprint: int = 0) -> dict:
    import torch
    from torch.utils.data import DataLoader

    def loader(shape: list[int], pin: bool, count: int = batches + 1, workers: int = workers):
        return DataLoader(Batches(shape, count), batch_size=None, num_workers=workers, pin_memory=pin,
                          prefetch_factor=4)

    def handed_over_s(shape: list[int], read: bool = True) -> float:
        return statistics.median(take_batches(loader(shape, False), batches, read))

    start_workers = start_workers or workers
    out = {"batch_s": handed_over_s(sizes), "batch_take_s": handed_over_s(sizes, read=False),
           "packed_batch_s": handed_over_s([sum(sizes)]), "workers_start_s": None, "start_workers": start_workers,
           "pinned_batch_s": None,
           "pin_thread_batch_s": None, "packed_pin_thread_batch_s": None, "pin_cycle_batch_s": None,
           "packed_pin_cycle_batch_s": None,
           "pin_here_batch_s": None, "graph_replay_batch_s": None, "graph_kernels": GRAPH_KERNELS,
           "pinned_not_measured": "",
           "tensor_bytes": sizes, "batches": batches, "workers": workers,
           "gather_batch_s": gather_s(sizes, rows, batches), "rows": rows, "torch": torch.__version__}
    if torch.cuda.is_available():
        out["pinned_batch_s"] = statistics.median(take_batches(loader(sizes, True), batches, read=False))
        # About 10 ms of host work: longer than a worker's build and the pin thread's work on one batch.
        scratch = torch.zeros(16)
        ops = max(100, round(0.01 / max(1e-7, host_work(scratch, 1000) / 1000)))

        def pin_thread_s(shape: list[int]) -> float:
            it = iter(loader(shape, True))
            next(it)  # the workers' start-up is not the pin thread's work, nor the batches prefetched with it:
            time.sleep(0.2)  # let the pin thread take those over before the timing starts
            return max(0.0, slowdown_s(lambda: next(it), lambda: host_work(scratch, ops), batches))

        def pin_cycle_s(shape: list[int]) -> float:
            taken = 2 * batches  # the first half covers what the workers prefetched while starting
            it = iter(loader(shape, True, taken + 1))
            next(it)  # the workers' start-up
            arrivals = []
            for _ in range(taken):
                next(it)
                arrivals.append(time.perf_counter())
            gaps = [later - earlier for earlier, later in zip(arrivals, arrivals[1:])]
            return statistics.median(gaps[len(gaps) // 2:])

        def pin_here_s(shape: list[int]) -> float:
            times, fresh = [], Batches(shape, batches + 1)
            for i in range(batches + 1):
                batch = fresh[i]  # fresh pageable tensors, written
                start = time.perf_counter()
                pinned = [t.pin_memory() for t in batch]
                times.append(time.perf_counter() - start)
                del pinned  # back to the pinned allocator's cache, as a batch dies after its step
            return statistics.median(times[1:])  # the first pays for the allocator's first blocks

        out["pin_here_batch_s"] = pin_here_s(sizes)
        out["graph_replay_batch_s"] = graph_replay_s(sum(sizes), batches)
        out["pin_thread_batch_s"] = pin_thread_s(sizes)
        out["pin_cycle_batch_s"] = pin_cycle_s(sizes)
        out["packed_pin_cycle_batch_s"] = pin_cycle_s([sum(sizes)]) if len(sizes) > 1 else out["pin_cycle_batch_s"]
        # packed, the pin thread pins one tensor a batch instead of several
        out["packed_pin_thread_batch_s"] = pin_thread_s([sum(sizes)]) if len(sizes) > 1 else out["pin_thread_batch_s"]
    else:
        out["pinned_not_measured"] = "CUDA is not available to PyTorch here (pin_memory needs it)"
    # last: a training program forks its workers with its CUDA up (where there is CUDA), as this
    # process's is by now, and holding what it holds
    held = hold_footprint(footprint)
    out["footprint_measure"], out["footprint_bytes"] = resident_memory()
    out["workers_start_s"] = workers_start_s(lambda: loader(sizes, False, 2, start_workers))
    del held
    return out


INTERRUPTED = []  # the SIGINT taken, once one is: what it raised may come back otherwise


def interrupted(signum: int, frame) -> None:
    """SIGINT's handler: KeyboardInterrupt as Python's own, remembered. Raised inside PyTorch's
    C++ (its import, a DataLoader's) it comes back as a RuntimeError ("KeyboardInterrupt:
    <EMPTY MESSAGE>"), which is not a failure of PyTorch's to report."""
    INTERRUPTED.append(signum)
    raise KeyboardInterrupt


def main(argv: list[str]) -> int:
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not where it is ignored (nohup, `&`)
        signal.signal(signal.SIGINT, interrupted)
    try:
        return measure_and_print(parse_args(argv))
    except BaseException:
        if not INTERRUPTED:
            raise
    # Ctrl-C: one line, as every other way this ends, not a traceback
    print("handover_probe.py: interrupted (SIGINT): nothing measured", file=sys.stderr)
    return 130


def measure_and_print(args: argparse.Namespace) -> int:
    try:
        import torch
        del torch  # importable: the probe imports it where it uses it
    except ImportError as e:
        if INTERRUPTED:
            raise
        print(f"handover_probe.py: PyTorch cannot be imported by {sys.executable}: {e}", file=sys.stderr)
        return 1
    try:
        measured = probe(args.sizes, args.batches, args.workers, args.rows, args.start_workers, args.footprint_bytes)
    except RuntimeError as e:  # a worker killed (a Bus error: /dev/shm too small for the batches), CUDA failing
        if INTERRUPTED:
            raise
        batch_mb = sum(args.sizes) / 1e6
        print(f"handover_probe.py: nothing measured: {one_line(str(e))} (batches of {batch_mb:.1f} MB pass through "
              "/dev/shm between processes: is it large enough? `df -h /dev/shm`)", file=sys.stderr)
        return 3
    try:
        print(json.dumps(measured), flush=True)
    except OSError as e:  # standard output full or closed: said in one line, its caller reading none
        # pointed at /dev/null, so that the flush at exit does not fail again in a traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"handover_probe.py: cannot write the measurement: {e.strerror or e}", file=sys.stderr)
        return 2
    return 0


def one_line(text: str) -> str:
    return " ".join(text.split())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
