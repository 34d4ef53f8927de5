"""What tutorial_style.py and well_written.py share, so that they cannot drift apart: the
command line and its defaults, the data (Fashion-MNIST or a synthetic stand-in of its
shape, plus a per-sample weight), the order the samples are visited in, the model, its
loss and optimizer, and the line each script ends with. Only the way batches reach the
GPU and the way the loss is read differ between the two scripts.

This module imports PyTorch only inside the functions that need it, so its command line
(and the defaults the tests compare) can be read without PyTorch installed.
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path

FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist"  # Debian's dataset-fashion-mnist
PIXELS = 28 * 28
CLASSES = 10
SYNTHETIC_SAMPLES = 60000  # as many as Fashion-MNIST's training set
# Fashion-MNIST's training-set pixel mean and standard deviation (on a 0..1 scale).
MEAN, STD = 0.2860, 0.3530

# The model (784 -> hidden -> 10), the run and the optimizer: one place for both scripts.
DEFAULTS = {
    "hidden": 512,
    "batch": 256,
    "steps": 10000,
    "lr": 0.1,
    "seed": 0,
    "device": "cuda",
    "data_dir": FASHION_MNIST_DIR,
}
# The flags make_parser defines; the scripts add only their own (e.g. --log-every).
SHARED_FLAGS = ("--steps", "--batch", "--hidden", "--lr", "--seed", "--device", "--data-dir", "--synthetic")


def make_parser(description: str) -> argparse.ArgumentParser:
    d = DEFAULTS
    p = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=positive_int, default=d["steps"],
                   help=f"training steps (one batch each; default {d['steps']})")
    p.add_argument("--batch", type=positive_int, default=d["batch"], help=f"samples per batch (default {d['batch']})")
    p.add_argument("--hidden", type=positive_int, default=d["hidden"],
                   help=f"width of the hidden layer: 784 -> HIDDEN -> 10 (default {d['hidden']})")
    p.add_argument("--lr", type=float, default=d["lr"], help=f"SGD learning rate (default {d['lr']})")
    p.add_argument("--seed", type=int, default=d["seed"],
                   help=f"seeds the weights, the sample order and the synthetic data (default {d['seed']})")
    p.add_argument("--device", default=d["device"],
                   help="torch device: cuda, cuda:N or cpu (cpu: a smoke test without a GPU; default cuda)")
    p.add_argument("--data-dir", default=None,
                   help=f"folder with train-images-idx3-ubyte[.gz] and train-labels-idx1-ubyte[.gz] "
                        f"(default {d['data_dir']}, Debian's dataset-fashion-mnist; synthetic data when it is absent)")
    p.add_argument("--synthetic", action="store_true",
                   help="train on synthetic data of Fashion-MNIST's shape even when the dataset is installed")
    return p


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number >= 1")
    return value


def fail(message: str, code: int = 1) -> None:
    print(f"error: {message}", file=sys.stderr)
    sys.exit(code)


def pick_device(name: str):
    """The torch device asked for; exits 1 with the reason when it is a GPU that is not there."""
    import torch
    try:
        device = torch.device(name)
    except RuntimeError as e:
        fail(f"--device {name}: {e}", 2)
    if device.type == "cuda":
        if not torch.cuda.is_available():
            fail(f"--device {name}: CUDA is not available to this PyTorch {torch.__version__} "
                 f"(no GPU, no driver, or a CPU-only build); run with --device cpu for a smoke test")
        if device.index is None:
            device = torch.device("cuda", torch.cuda.current_device())  # an index, as set_device needs
        if device.index >= torch.cuda.device_count():
            fail(f"--device {name}: this machine has {torch.cuda.device_count()} CUDA device(s)")
        torch.cuda.set_device(device)
        torch.zeros(1, device=device)  # start the CUDA context outside the timed run
    elif device.type != "cpu":
        fail(f"--device {name}: these examples run on cuda or cpu", 2)
    return device


# ---- data -------------------------------------------------------------------------------

def _read_idx(path: Path, magic: int, dims: int):
    import torch
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            fail(f"{path}: not a readable gzip file ({e})")
    if len(data) < 4 + 4 * dims or int.from_bytes(data[:4], "big") != magic:
        fail(f"{path}: not an IDX file with magic {magic:#010x}")
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    count = 1
    for s in shape:
        count *= s
    body = data[4 + 4 * dims:]
    if len(body) != count or count == 0:
        fail(f"{path}: {len(body)} bytes of data, the header says {shape}")
    return shape, torch.frombuffer(bytearray(body), dtype=torch.uint8)


def _find(folder: Path, name: str) -> Path | None:
    for candidate in (folder / name, folder / f"{name}.gz"):
        if candidate.is_file():
            return candidate
    return None


def load_data(args):
    """(images float32 [N, 784] normalised, labels int64 [N], weights float32 [N], name).

    The weight is a per-sample loss weight (as a real pipeline would carry to
    down-weight doubtful labels or rebalance classes): a third tensor in every batch."""
    import torch
    images = labels = None
    name = "synthetic"
    if not args.synthetic:
        folder = Path(args.data_dir or DEFAULTS["data_dir"])
        image_file, label_file = _find(folder, "train-images-idx3-ubyte"), _find(folder, "train-labels-idx1-ubyte")
        if image_file and label_file:
            shape, pixels = _read_idx(image_file, 0x803, 3)
            (count,), labels = _read_idx(label_file, 0x801, 1)
            if shape[1] * shape[2] != PIXELS or count != shape[0] or int(labels.max()) >= CLASSES:
                fail(f"{folder}: not 28x28 images with labels 0..9 in equal numbers")
            images = ((pixels.reshape(count, PIXELS).float() / 255.0) - MEAN) / STD
            labels = labels.long()
            name = "fashion-mnist" if folder.resolve() == Path(FASHION_MNIST_DIR).resolve() else str(folder)
        elif args.data_dir is not None:
            fail(f"--data-dir {folder}: no train-images-idx3-ubyte[.gz] and train-labels-idx1-ubyte[.gz] there")
        else:
            print(f"note: no Fashion-MNIST in {folder} (apt install dataset-fashion-mnist, or --data-dir DIR): "
                  f"training on synthetic random data of its shape ({SYNTHETIC_SAMPLES} x {PIXELS})", flush=True)
    g = torch.Generator().manual_seed(args.seed)
    if images is None:
        # Random images around one random prototype per class, so the loss still falls.
        labels = torch.randint(0, CLASSES, (SYNTHETIC_SAMPLES,), generator=g)
        prototypes = torch.rand(CLASSES, PIXELS, generator=g)
        noise = torch.rand(SYNTHETIC_SAMPLES, PIXELS, generator=g)
        images = ((0.6 * prototypes[labels] + 0.4 * noise) - MEAN) / STD
    weights = 0.5 + torch.rand(len(labels), generator=g)
    if args.batch > len(labels):
        fail(f"--batch {args.batch}: the dataset has only {len(labels)} samples")
    return images.contiguous(), labels, weights, name


class ShuffledOrder:
    """The order both scripts visit the samples in: a fresh permutation each epoch, drawn
    from the seed alone. Iterating it (as DataLoader's sampler) yields one epoch."""

    def __init__(self, count: int, seed: int):
        self.count, self.seed, self.epoch = count, seed, 0

    def permutation(self, epoch: int):
        import torch
        return torch.randperm(self.count, generator=torch.Generator().manual_seed(self.seed * 1000003 + epoch))

    def __iter__(self):
        order = self.permutation(self.epoch)
        self.epoch += 1
        return iter(order.tolist())

    def __len__(self) -> int:
        return self.count


# ---- model ------------------------------------------------------------------------------

def build_model(args, device):
    """784 -> hidden -> 10 with ReLU, its SGD optimizer; seeded, moved to the device once."""
    import torch
    from torch import nn
    torch.manual_seed(args.seed)
    model = nn.Sequential(nn.Linear(PIXELS, args.hidden), nn.ReLU(), nn.Linear(args.hidden, CLASSES)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    return model, optimizer


def loss_fn(logits, labels, weights):
    """Cross-entropy, each sample weighted by its weight."""
    import torch.nn.functional as F
    return (F.cross_entropy(logits, labels, reduction="none") * weights).mean()


def warm_up(model, args, device) -> None:
    """One forward and backward pass on zeros, outside the timed run, so neither script's
    wall time holds the GPU libraries' one-off start-up; the gradients are thrown away."""
    import torch
    x = torch.zeros(args.batch, PIXELS, device=device)
    y = torch.zeros(args.batch, dtype=torch.long, device=device)
    loss_fn(model(x), y, torch.ones(args.batch, device=device)).backward()
    model.zero_grad(set_to_none=True)
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def one_line(text: str) -> str:
    """`text` on one line, its whitespace runs as single spaces (an error's message in a note)."""
    return " ".join(text.split())


class GraphedStep:
    """The training step (forward, loss, backward, optimizer step) captured once in a CUDA
    graph and replayed every step: one launch a step where PyTorch run op by op makes about
    25 (an H100 recording of the tutorial), each behind its Python and dispatch, for kernels
    of a few µs each on this small model (the launch_bound finding's fix). PyTorch's
    whole-network capture: a few warm-up steps on a side stream first (its libraries' lazy
    set-up must not happen in a capture), the gradients set to None so that the captured
    backward writes them afresh each replay.

    `step(*inputs)` is the whole step on the graph's input tensors, returning the loss; the
    graph reads the addresses it was captured with, so each call copies the batch into
    those inputs (`copy_`: from pageable host memory a blocking copy, as `.to()` is) and
    replays. The returned loss is the graph's output, rewritten by every replay. The warm-up
    runs on zeros (per-sample loss weights of zero: a zero loss and zero gradients) and the
    parameters are put back after it, so a graphed run trains to the same losses as one run
    op by op.

    Without CUDA there is no graph: the same inputs, warm-up and restore run and `step` runs
    op by op on them, so that a test on the CPU holds this plumbing to the plain run. Where the
    capture fails, the step runs so too, with a note on standard error saying why (`failed`)
    and the parameters put back again; the result line's `step=eager` then says what ran, and
    the run still measures something (a lease's rows are not lost to a capture no machine
    without a GPU can try)."""

    WARM_UP_STEPS = 3  # as PyTorch's capture recipe does

    def __init__(self, optimizer, examples, step):
        import torch
        self.inputs = [torch.zeros_like(x) for x in examples]
        self.step, self.optimizer = step, optimizer
        params = [p for group in optimizer.param_groups for p in group["params"]]
        saved = [p.detach().clone() for p in params]
        device = self.inputs[0].device
        self.graph = None
        side = torch.cuda.Stream(device) if device.type == "cuda" else None
        if side is not None:
            side.wait_stream(torch.cuda.current_stream(device))
        with torch.cuda.stream(side) if side is not None else nullcontext():
            for _ in range(self.WARM_UP_STEPS):
                optimizer.zero_grad(set_to_none=True)
                step(*self.inputs)
        if side is not None:
            torch.cuda.current_stream(device).wait_stream(side)
        self.put_back(params, saved)
        # momentum or Adam's moments: the warm-up's would stay in them (plain SGD keeps none;
        # some PyTorch versions keep a momentum_buffer of None for it)
        if any(isinstance(v, torch.Tensor) for state in optimizer.state.values() for v in state.values()):
            raise RuntimeError("GraphedStep puts back the parameters after its warm-up, not an optimizer's state: "
                               "use an optimizer without state (SGD without momentum) or restore it too")
        optimizer.zero_grad(set_to_none=True)
        self.failed = ""  # why the capture failed, where it did
        if self.can_capture(device):
            try:
                self.graph, self.loss = self.capture(step)
            except RuntimeError as e:
                # A step that raised inside the capture is the cause; ending the capture then
                # raised too ("a previous error during capture"), with the cause as its context.
                cause = e.__context__ if isinstance(e.__context__, Exception) else e
                self.graph, self.failed = None, one_line(str(cause))
                optimizer.zero_grad(set_to_none=True)  # gradients the failed capture may have left
                self.put_back(params, saved)  # a capture runs nothing, but what failed may have
                print(f"note: capturing the training step in a CUDA graph failed ({self.failed}); the step "
                      "runs op by op (step=eager)", file=sys.stderr, flush=True)

    @staticmethod
    def put_back(params, saved) -> None:
        import torch
        with torch.no_grad():
            for p, before in zip(params, saved):
                p.copy_(before)

    @staticmethod
    def can_capture(device) -> bool:
        return device.type == "cuda"

    def capture(self, step):
        """(the graph, its loss output): `step` on the inputs, captured into a memory pool of its
        own. Where ending the capture fails, torch.cuda.graph leaves its capture stream current
        and the pool counted as capturing, and the caching allocator then defers every free for
        the rest of the process (a fallback run would grow by a batch a step and not be the
        eager run it says it is): the stream the step ran on is made current again and the pool
        given back (PyTorch 2.11's own calls, as torch.cuda.use_mem_pool makes them)."""
        import torch
        device = self.inputs[0].device
        before = torch.cuda.current_stream(device)
        pool = torch.cuda.graph_pool_handle()
        graph = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(graph, pool=pool):
                loss = step(*self.inputs)
        except BaseException:
            if torch.cuda.current_stream(device) != before:  # capture_end raised: the stream is not restored
                torch.cuda.set_stream(before)
                end, release = (getattr(torch._C, name, None) for name in ("_cuda_endAllocateToPool",
                                                                           "_cuda_releasePool"))
                try:
                    end(device.index, pool)
                    release(device.index, pool)
                except Exception:  # noqa: BLE001 - private calls gone or refused: the pool stays, the run goes on
                    pass
            raise
        return graph, loss

    def __call__(self, *batch, non_blocking: bool = False):
        """The loss of one step on `batch` (tensors shaped as the examples, on any device)."""
        for into, x in zip(self.inputs, batch):
            into.copy_(x, non_blocking=non_blocking)
        if self.graph is None:
            self.optimizer.zero_grad(set_to_none=True)
            return self.step(*self.inputs)
        self.graph.replay()
        return self.loss


@contextmanager
def step_range(device, step: int):
    """An NVTX range "step N" around a training step on a GPU (none on the CPU, where
    PyTorch builds without NVTX): the marks a profiler cuts a loop's iterations at
    (hdbench_profile does where the loop has no per-step read; so does Nsight Systems' view).
    Without a profiler attached a push and a pop cost well under a microsecond."""
    if device.type != "cuda":
        yield
        return
    import torch
    torch.cuda.nvtx.range_push(f"step {step}")
    try:
        yield
    finally:
        torch.cuda.nvtx.range_pop()


# ---- timing and the last line -------------------------------------------------------------

def start_clock(device) -> float:
    import torch
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return time.perf_counter()


def stop_clock(device, start: float) -> float:
    import torch
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return time.perf_counter() - start


def result_line(script: str, args, device, data: str, wall_s: float, final_loss: float, mean_loss: float,
                batch_wait_s: float, fix: str | None = None, rest_off_cpu_s: float | None = None,
                batch_wait_off_cpu_s: float | None = None, pace_spread: float | None = None,
                pace_best_ms: float | None = None, step_wait: str | None = None, step: str | None = None,
                first_batch_s: float | None = None) -> str:
    """The one line each script ends with (tests, tools/fashion_mnist_ablation.sh and people
    read it; keep the keys). `rest_off_cpu_s`: of the wall time outside the batch waits, what
    the training thread spent off the CPU (tutorial_style.py: the GIL, autograd's thread);
    `batch_wait_off_cpu_s`, the same of the batch waits (waiting for workers or the pin
    thread; with num_workers=0 the batch is built on this thread, on the CPU, so what is
    off it there was taken by the scheduler or another thread's GIL: under hdbench_profile
    an H100 host's batch wait grew 1.2x with no CUDA call in it, cause unknown); `pace_spread`,
    the slowest --log-every stretch's wall time a step over the fastest's (the first left out):
    how much the host's speed changed within the run; `pace_best_ms`, the fastest stretch's
    wall time a step (ms): a run's pace with the host's slow stretches left out (well_written.py
    gives both only with --log-every, its stretches being those between its reads).
    `first_batch_s`: of the batch waits, the first (from iter() over the loader to its first
    batch): with DataLoader workers, their start (tutorial_style.py).
    `step_wait`: tutorial_style.py's --step-wait where it is not the plain run's `item`.
    `step`: well_written.py's, and tutorial_style.py's under --fix graph: `graph` (the step
    replayed as one CUDA graph) or `eager` (op by op: --eager, on the CPU, where there is no
    graph, or where the capture failed).
    `fix`: tutorial_style.py's --fix habits joined by '+' (`none`, `pin`, `item+workers`), the
    last field; well_written.py has none to give."""
    return (f"{script}: steps={args.steps} batch={args.batch} hidden={args.hidden} device={device} data={data} "
            f"wall_s={wall_s:.3f} steps_per_s={args.steps / wall_s:.1f} final_loss={final_loss:.4f} "
            f"mean_loss={mean_loss:.4f} batch_wait_s={batch_wait_s:.3f}"
            + (f" rest_off_cpu_s={rest_off_cpu_s:.3f}" if rest_off_cpu_s is not None else "")
            + (f" batch_wait_off_cpu_s={batch_wait_off_cpu_s:.3f}" if batch_wait_off_cpu_s is not None else "")
            + (f" pace_spread={pace_spread:.3f}" if pace_spread is not None else "")
            + (f" pace_best_ms={pace_best_ms:.4f}" if pace_best_ms is not None else "")
            + (f" first_batch_s={first_batch_s:.4f}" if first_batch_s is not None else "")
            + (f" step_wait={step_wait}" if step_wait is not None else "")
            + (f" step={step}" if step is not None else "")
            + (f" fix={fix}" if fix is not None else ""))
