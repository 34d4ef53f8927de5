"""The PyTorch half of pytorch_baseline.py: what the machine offers, the models, the
timed steps and GEMMs, and the dispatch to the loader runs (pytorch_loader_torch.py).
Imported only after the options were checked, so a bad option is reported without
PyTorch installed.

The steps train what hdbench's steps train (pytorch_data.py): its initial parameters
(seed ^ 0x6d6c70, torch.nn.Linear's distribution) on its first 4·batch samples,
normalised, cycled; with the same --seed as an hdbench run, the very same network and
samples, so the first step's loss matches hdbench's.

Each runner returns {"status": "ok", "samples_us", "cpu_us", "final_loss", "counters",
"notes"} or {"status": "skipped"|"error", "reason"}.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import itertools
import math
import time

import torch
from torch import nn

import pytorch_data
import pytorch_phases

DISTINCT_BATCHES = 4  # cycled, so the step does not read one cached tensor (bench/mlp.cpp: kPoolBatches)
GRAPH_WARMUP_STEPS = 3  # on a side stream before capture, as PyTorch's CUDA graph notes do
SAMPLE_SECONDS = 2e-3  # one timed sample: enough back-to-back steps for ~2 ms (bench/mlp.cpp: kSampleSeconds),
MAX_GROUP = 1000       # so a step of microseconds is timed by its throughput in a loop, not one launch


def probe(device_index: int, flush_denormal: bool) -> dict:
    """What this PyTorch and machine can run: GPUs, whether the asked one is usable,
    torch.compile. Sets the CPU's denormal handling for the whole run."""
    env = {"torch_version": torch.__version__, "cuda_version": torch.version.cuda, "gpus": [],
           "gpu_usable": False, "gpu_reason": "", "compile_reason": "", "cpu_threads_default": torch.get_num_threads(),
           "tf32_switch": tf32_switch_name(), "openblas": openblas_libraries(),
           # PyTorch's default keeps denormals, which slow CPU steps once SGD's weights or
           # momentum produce them; False here when asked but the CPU cannot flush them.
           "flush_denormal": bool(torch.set_flush_denormal(True)) if flush_denormal else False}
    if torch.version.cuda is None and getattr(torch.version, "hip", None) is None:
        env["gpu_reason"] = f"this PyTorch build ({torch.__version__}) has no CUDA support"
    elif not torch.cuda.is_available():
        env["gpu_reason"] = "torch.cuda.is_available() is false: no usable CUDA driver or device"
    elif device_index >= torch.cuda.device_count():
        env["gpu_reason"] = f"no CUDA device {device_index}: {torch.cuda.device_count()} visible"
    else:
        env["gpu_usable"] = True
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            p = torch.cuda.get_device_properties(i)
            env["gpus"].append({"index": i, "name": p.name, "compute_capability_major": p.major,
                                "compute_capability_minor": p.minor, "sm_count": p.multi_processor_count,
                                "total_memory_bytes": p.total_memory,
                                "pci_bus_id": str(getattr(p, "pci_bus_id", ""))})
    if not hasattr(torch, "compile"):
        env["compile_reason"] = f"torch.compile needs PyTorch 2.0 or later (this is {torch.__version__})"
    return env


def skip_reason(spec: dict, env: dict) -> str:
    if spec["processor"] == "gpu":
        if not env["gpu_usable"]:
            return env["gpu_reason"]
        major, minor = torch.cuda.get_device_capability(spec["device"])
        if spec["dtype"] == "bf16" and not torch.cuda.is_bf16_supported():
            return f"bf16 is not supported on this device (compute capability {major}.{minor})"
        if spec["dtype"] == "tf32" and major < 8:
            return f"tf32 needs compute capability 8.0 or newer (this device has {major}.{minor})"
    if spec.get("mode") == "compile" and env["compile_reason"]:
        return env["compile_reason"]
    return ""


def run(spec: dict, opts, env: dict) -> dict:
    if spec["kind"] == "loader":
        return run_loader(spec, opts, env)
    reason = skip_reason(spec, env)
    if reason:
        return {"status": "skipped", "reason": reason}
    gpu = spec["processor"] == "gpu"
    try:
        if gpu:
            torch.cuda.set_device(spec["device"])
            set_cpu_threads(env["cpu_threads_default"])
            set_tf32(spec["dtype"] == "tf32")
        else:
            set_cpu_threads(spec["threads"])
        return run_gemm(spec, opts) if spec["kind"] == "gemm" else run_step(spec, opts)
    except Exception as e:  # noqa: BLE001  (any failure becomes the benchmark's status)
        return failure(e)
    finally:
        gc.collect()
        if gpu:
            set_tf32(False)
            torch.cuda.empty_cache()


def failure(e: Exception) -> dict:
    first_line = (str(e).strip().splitlines() or [""])[0]
    if isinstance(e, getattr(torch.cuda, "OutOfMemoryError", ())) or "out of memory" in first_line:
        return {"status": "skipped", "reason": f"out of device memory: {first_line}"}
    return {"status": "error", "reason": f"{type(e).__name__}: {first_line}"}


def run_loader(spec: dict, opts, env: dict) -> dict:
    import pytorch_loader_torch  # noqa: PLC0415  (its Dataset class must be importable in the workers)
    try:
        pixels, labels = training_set(opts, opts.loader_samples)
        return pytorch_loader_torch.run_loader(spec, opts, pytorch_loader_torch.MnistShaped(pixels, labels), env)
    except Exception as e:  # noqa: BLE001
        return failure(e)
    finally:
        gc.collect()


# ---- hdbench's data and initial parameters ----------------------------------------------

_SET: dict = {}


def training_set(opts, count: int):
    """(uint8 pixels [n, 784], uint8 labels [n]): the IDX files of --mnist-dir, or the
    first min(count, --loader-samples) samples of the synthetic set of --seed (a prefix:
    the set is generated once, as long as the longest request)."""
    if opts.mnist_dir:
        if "idx" not in _SET:
            _SET["idx"] = pytorch_data.read_mnist_idx(*pytorch_data.mnist_files(opts.mnist_dir))
        return _SET["idx"]
    count = min(count, opts.loader_samples)
    if _SET.get("synthetic") is None or len(_SET["synthetic"][1]) < count:
        _SET["synthetic"] = pytorch_data.make_synthetic_mnist(count, opts.seed)
    pixels, labels = _SET["synthetic"]
    return pixels[:count], labels[:count]


def initial_parameters(widths: list[int], seed: int):
    key = (tuple(widths), seed)
    if _SET.get("init", (None,))[0] != key:
        _SET["init"] = (key, pytorch_data.initial_parameters(widths, seed ^ pytorch_data.INIT_SEED_MIX))
    return _SET["init"][1]


# ---- threads and arithmetic switches --------------------------------------------------


def openblas_libraries() -> list[str]:
    """OpenBLAS libraries this process has loaded (Debian's PyTorch calls the pthreads
    build, whose thread pool torch.set_num_threads does not size; pip wheels use MKL)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "libopenblas" in line}
    except OSError:
        return []
    return sorted(p for p in paths if ".so" in p.rsplit("/", 1)[-1])


def set_cpu_threads(threads: int) -> None:
    """torch.set_num_threads, and OpenBLAS's pool where PyTorch calls it, so that
    `threads:T` means T threads for the GEMMs too (as hdbench's set_blas_threads)."""
    torch.set_num_threads(threads)
    for path in openblas_libraries():
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(path).openblas_set_num_threads(threads)  # the loaded copy: same soname, same handle


def has_fp32_precision() -> bool:
    """PyTorch 2.9 replaced allow_tf32 with fp32_precision and warns about the old switch
    (mixing the two can raise). Before, an unknown attribute raises AssertionError."""
    try:
        getattr(torch.backends.cuda.matmul, "fp32_precision")
        return True
    except (AttributeError, AssertionError):
        return False


def tf32_switch_name() -> str:
    return "torch.backends.cuda.matmul." + ("fp32_precision" if has_fp32_precision() else "allow_tf32")


def set_tf32(enabled: bool) -> None:
    if has_fp32_precision():
        torch.backends.cuda.matmul.fp32_precision = "tf32" if enabled else "ieee"
    else:
        torch.backends.cuda.matmul.allow_tf32 = enabled


def autocast(dtype: str, cache_enabled: bool = True):
    """bf16: autocast over fp32 master weights. A CUDA graph needs the cast cache off."""
    if dtype == "bf16":
        return lambda: torch.autocast(device_type="cuda", dtype=torch.bfloat16, cache_enabled=cache_enabled)
    return contextlib.nullcontext


# ---- model, data, step ----------------------------------------------------------------


def build_model(widths: list[int], parameters) -> nn.Sequential:
    """Linear → ReLU → … → Linear with hdbench's initial values (torch.nn.Linear's
    distribution, uniform in ±1/sqrt(fan_in), drawn by hdbench's generator)."""
    layers: list[nn.Module] = []
    for i, ((fan_in, fan_out), (weight, bias)) in enumerate(zip(zip(widths, widths[1:]), parameters)):
        linear = nn.Linear(fan_in, fan_out)
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(weight))
            linear.bias.copy_(torch.from_numpy(bias))
        layers.append(linear)
        if i < len(widths) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def make_optimizer(name: str, params, capturable: bool, sgd_lr: float):
    """lib/mlp/mlp_model.cpp's default_optimizer: SGD lr 0.05 momentum 0.9, Adam lr 1e-3."""
    if name == "sgd":
        return torch.optim.SGD(params, lr=sgd_lr, momentum=0.9)
    return torch.optim.Adam(params, lr=1e-3, **({"capturable": True} if capturable else {}))


def make_batches(opts, batch: int):
    """bench/mlp.cpp's pool: batch i is samples i·batch … of hdbench's training set,
    normalised as its collate does; on the host, in ordinary (pageable) memory."""
    pixels, labels = training_set(opts, DISTINCT_BATCHES * batch)
    pool = pytorch_data.batch_pool(pixels, labels, batch, DISTINCT_BATCHES)
    return [torch.from_numpy(x) for x, _ in pool], [torch.from_numpy(y) for _, y in pool]


def train_step(forward, optimizer, loss_fn, x, y, amp):
    optimizer.zero_grad(set_to_none=True)
    with amp():
        loss = loss_fn(forward(x), y)
    loss.backward()
    optimizer.step()
    return loss


def data_feed(data: str, xs, ys, device):
    """step index -> (images, labels) on `device`; pageable and pinned copy inside the step."""
    n = len(xs)
    if data == "host":
        return lambda i: (xs[i % n], ys[i % n])
    if data == "device":
        dx, dy = [x.to(device) for x in xs], [y.to(device) for y in ys]
        return lambda i: (dx[i % n], dy[i % n])
    if data == "pageable":
        return lambda i: (xs[i % n].to(device), ys[i % n].to(device))
    px, py = [x.pin_memory() for x in xs], [y.pin_memory() for y in ys]
    return lambda i: (px[i % n].to(device, non_blocking=True), py[i % n].to(device, non_blocking=True))


def run_step(spec: dict, opts) -> dict:
    gpu = spec["processor"] == "gpu"
    device = torch.device("cuda", spec["device"]) if gpu else torch.device("cpu")
    widths, mode = spec["widths"], spec["mode"]
    torch.manual_seed(opts.seed)
    model = build_model(widths, initial_parameters(widths, opts.seed)).to(device)
    optimizer = make_optimizer(spec["optimizer"], model.parameters(), mode == "graph", opts.sgd_lr)
    loss_fn = nn.CrossEntropyLoss()
    xs, ys = make_batches(opts, spec["batch"])
    if mode == "graph":
        return run_graph_step(spec, opts, model, optimizer, loss_fn, xs, ys, device)
    counters, notes = {}, []
    forward = model
    if mode == "compile":
        torch._dynamo.reset()  # a fresh cache per benchmark, else recompiles hit its limit and fall back to eager
        forward = torch.compile(model)
        notes.append("compile: torch.compile(model) with default options; the optimizer step runs eagerly")
    feed, amp, index = data_feed(spec["data"], xs, ys, device), autocast(spec["dtype"]), itertools.count()

    def step():
        x, y = feed(next(index))
        return train_step(forward, optimizer, loss_fn, x, y, amp)

    start = time.perf_counter()
    first_loss = float(step().detach().float().item())  # compiles, in compile mode
    if mode == "compile":
        counters["compile_s"] = time.perf_counter() - start
    for _ in range(opts.warmup):
        step()
    synchronize(gpu)
    result = timed_steps(step, opts, gpu, first_loss, counters, notes)
    if mode == "eager" and spec["data"] in ("host", "device") and result["status"] == "ok":
        # Where the step's time goes, in hdbench's phases (pytorch_phases.py), after the timed samples.
        median_s = sorted(result["samples_us"])[len(result["samples_us"]) // 2] * 1e-6
        batches = [feed(next(index)) for _ in range(DISTINCT_BATCHES)]
        try:
            result["counters"].update(pytorch_phases.phase_counters(model, optimizer, loss_fn, batches, spec["batch"],
                                                                    median_s, device=gpu, amp=amp))
        except Exception as e:  # noqa: BLE001  the profile is extra: the step's figures stand without it
            result["notes"].append(f"phases not measured: {type(e).__name__}: {e}")
    return result


def run_graph_step(spec, opts, model, optimizer, loss_fn, xs, ys, device) -> dict:
    """The whole step (zero_grad, forward, loss, backward, optimizer) captured once into
    a CUDA graph over static input tensors and replayed, following PyTorch's notes on
    whole-network capture: warm-up on a side stream, Adam(capturable=True). As in
    bench/mlp.cpp, data:device replays on the batch in the captured inputs; pageable and
    pinned batches are copied into them at the start of each step."""
    data, amp = spec["data"], autocast(spec["dtype"], cache_enabled=False)
    static_x = torch.empty((spec["batch"], spec["widths"][0]), device=device)
    static_y = torch.empty((spec["batch"],), dtype=torch.long, device=device)
    src_x, src_y = ([x.pin_memory() for x in xs], [y.pin_memory() for y in ys]) if data == "pinned" else (xs, ys)
    index = itertools.count()

    def load():
        i = next(index) % len(src_x)
        static_x.copy_(src_x[i], non_blocking=data == "pinned")
        static_y.copy_(src_y[i], non_blocking=data == "pinned")

    load()
    start = time.perf_counter()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        losses = [train_step(model, optimizer, loss_fn, static_x, static_y, amp) for _ in range(GRAPH_WARMUP_STEPS)]
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    optimizer.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        static_loss = train_step(model, optimizer, loss_fn, static_x, static_y, amp)
    torch.cuda.synchronize()
    counters = {"graph_build_us": (time.perf_counter() - start) * 1e6}

    def replay():
        if data != "device":
            load()
        graph.replay()
        return static_loss

    for _ in range(opts.warmup):
        replay()
    torch.cuda.synchronize()
    note = ("graph: every replay trains on the batch in the captured input tensors (a graph bakes in its pointers), "
            "as hdbench's graph mode does" if data == "device" else
            f"graph: each step first copies its {data} batch into the captured input tensors (timed)")
    return timed_steps(replay, opts, True, float(losses[0].float().item()), counters, [note])


def timed_steps(step, opts, gpu: bool, first_loss: float, counters: dict, notes: list) -> dict:
    """Samples of `steps_per_sample` back-to-back steps each, sized from a warm step to
    last about SAMPLE_SECONDS, as bench/mlp.cpp times them; the finish of a run."""
    group = steps_for(warm_step_seconds(step, gpu))
    samples, cpu_us, loss = time_samples(step, opts, gpu, group)
    value = float(loss.detach().float().item())
    if not (math.isfinite(first_loss) and math.isfinite(value)):
        return {"status": "error", "reason": f"the loss is not finite (first {first_loss}, last {value})"}
    if min(samples) <= 0:
        return {"status": "error", "reason": "a timed sample was not positive"}
    counters.update(first_loss=first_loss, steps_per_sample=float(group))
    return {"status": "ok", "samples_us": samples, "cpu_us": cpu_us, "final_loss": value, "counters": counters,
            "notes": notes}


# ---- GEMM rate ------------------------------------------------------------------------


def run_gemm(spec: dict, opts) -> dict:
    """C = A·B of random n×n matrices: fp32 (tf32 with the switch on) or bf16 operands;
    one product per sample."""
    gpu, n = spec["processor"] == "gpu", spec["n"]
    device = torch.device("cuda", spec["device"]) if gpu else torch.device("cpu")
    dtype = torch.bfloat16 if spec["dtype"] == "bf16" else torch.float32
    torch.manual_seed(opts.seed)  # made on the device: 8192² values drawn on the host would take seconds
    a = torch.randn(n, n, device=device, dtype=dtype)
    b = torch.randn(n, n, device=device, dtype=dtype)
    c = torch.empty(n, n, device=device, dtype=dtype)
    for _ in range(max(opts.warmup, 1)):
        torch.matmul(a, b, out=c)
    synchronize(gpu)
    samples, cpu_us, _ = time_samples(lambda: torch.matmul(a, b, out=c), opts, gpu, 1)
    if not torch.isfinite(c).all() or min(samples) <= 0:
        return {"status": "error", "reason": "the GEMM's result has non-finite values, or a sample took no time"}
    return {"status": "ok", "samples_us": samples, "cpu_us": cpu_us, "counters": {}, "notes": []}


# ---- timing ---------------------------------------------------------------------------


def synchronize(gpu: bool) -> None:
    if gpu:
        torch.cuda.synchronize()


def steps_for(seconds_per_step: float) -> int:
    """Enough back-to-back steps for one sample to last SAMPLE_SECONDS (1 to MAX_GROUP)."""
    return int(min(max(math.ceil(SAMPLE_SECONDS / max(seconds_per_step, 1e-9)), 1), MAX_GROUP))


def warm_step_seconds(step, gpu: bool) -> float:
    """The median of three steps, host-timed (CPU) or event-timed (GPU), so one stalled
    step does not size the samples; one step if it is far longer than a sample (a slow
    CPU step is not run three times for a group of one)."""
    begin, end = (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) if gpu else (None, None)
    times = []
    for _ in range(3):
        if gpu:
            begin.record()
        start = time.perf_counter()
        step()
        if gpu:
            end.record()
            end.synchronize()
            times.append(begin.elapsed_time(end) / 1e3)
        else:
            times.append(time.perf_counter() - start)
        if times[-1] >= 10 * SAMPLE_SECONDS:
            return times[-1]
    return sorted(times)[1]


def time_samples(step, opts, gpu: bool, group: int):
    """Samples of `group` steps until --min-time has passed and --min-samples were taken:
    the host clock around them (CPU) or a CUDA event pair on the current stream,
    waited for after each sample (GPU). Returns the time per step of each sample (us),
    the calling thread's CPU time per step (us, as Google Benchmark's cpu_time) and the
    last step's result."""
    samples, out = [], None
    begin, end = (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) if gpu else (None, None)
    start, cpu_start = time.perf_counter(), time.thread_time()
    while len(samples) < opts.min_samples or time.perf_counter() - start < opts.min_time:
        if gpu:
            begin.record()
        t0 = time.perf_counter()
        for _ in range(group):
            out = step()
        if gpu:
            end.record()
            end.synchronize()
            seconds = begin.elapsed_time(end) / 1e3
        else:
            seconds = time.perf_counter() - t0
        samples.append(seconds / group * 1e6)
    return samples, (time.thread_time() - cpu_start) * 1e6 / (len(samples) * group), out
