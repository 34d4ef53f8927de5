#!/usr/bin/env python3
"""PyTorch baseline for hdbench's `mlp` and `loader` families: the same MLP training
steps, and the DataLoader the tutorials teach, in PyTorch, written as an hdbench report
so the report tools draw and compare both.

    pytorch_baseline.py [--families mlp,loader] [--processors cpu,gpu] [--models 784x32x10,...]
                        [--batches 32,128] [--dtypes fp32,tf32,bf16] [--optimizers sgd,adam]
                        [--modes eager,graph,compile] [--data device,pageable,pinned]
                        [--threads N[,N...]] [--loader-batches 32,128,1024] [--loader-workers 0,2,8]
                        [--loader-pinning pageable,pin_thread] [--loader-consumers host,gpu]
                        [--loader-samples N] [--loader-min-epochs N] [--mnist-dir DIR]
                        [--device I] [--min-time S] [--min-samples N] [--warmup N]
                        [--flush-denormal] [--seed N] [--out PATH]

A step is zero_grad(set_to_none=True), forward, mean softmax cross-entropy, backward
and the optimizer's update (SGD lr 0.05 momentum 0.9, or Adam lr 1e-3), as
lib/mlp/mlp_model.hpp defines it, from hdbench's initial parameters on hdbench's samples
(pytorch_data.py: with hdbench's --hdbench_seed as --seed, the same network and data,
so first_loss matches hdbench's); a GEMM of random square matrices per processor and
dtype gives the rate each step's TFLOP/s is set against (`fraction_of_gemm_rate`).
bf16 is torch.autocast over fp32 master weights (PyTorch's way; hdbench keeps its
logits and weight gradients in fp32 where autocast rounds them to bf16). The loader
family is described in pytorch_loader.py.

What runs where: the CPU runs fp32 with modes eager and compile on batches already in
host memory (`data:host`); tf32, bf16, graph and the device/pageable/pinned data axes
are GPU-only and simply not generated for the CPU (hdbench's CPU model has no such
variants, so there is no name to compare with). What could run but cannot here (a GPU
run without a usable CUDA device, `compile` without torch.compile, bf16 without device
support) is written with status `skipped` and the reason, as hdbench does.

Modes: eager; graph (GPU: the whole step, optimizer included, captured once into a
CUDA graph over static inputs and replayed; Adam with capturable=True; with data:device
every replay trains on the captured batch, as hdbench's graph mode; with pageable or
pinned each step first copies its batch into the static inputs); compile (torch.compile(model),
PyTorch 2.0+; the first step's time is the `compile_s` counter). Default: eager,graph.

Timing, as bench/mlp.cpp does it: one sample is a group of back-to-back steps, enough
for about 2 ms (`steps_per_sample`, from a warm step), timed by time.perf_counter on the
CPU and by a CUDA event pair on the GPU (a pageable or pinned batch's copy is inside
the step), so a tiny step is timed by its throughput in a loop. Each benchmark runs
until --min-time seconds have passed and at least --min-samples samples were taken.
Counters use the median time per step; `real_time` is the mean (Google Benchmark's
convention), `cpu_time` the calling thread's CPU time per step. An eager CPU step is then
profiled (pytorch_phases.py): `phase_us/<phase>` per step in hdbench's CPU phases (forward
GEMMs, backward-input GEMMs, weight-gradient GEMMs, the element-wise passes, the loss, the
optimizer) and `profiled_step_us`, so the summary can say which part of the step each wins.
CPU denormals are kept unless --flush-denormal (PyTorch's default; SGD can produce
them and slow the step).

Exit codes: 0; 1 when a benchmark failed (status `error`, e.g. a loss that is not
finite; the other benchmarks still run and the report is written) or the report could
not be written; 2 for a bad option or no PyTorch, reported before anything runs (and before
PyTorch is imported, so the option checks work without it).
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import re
import socket
import sys
from pathlib import Path

# The report package's writer (tools/hdreport/core/writer.py): the one place entries are written.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import pytorch_loader as loader_family  # noqa: E402
from hdreport.core import writer  # noqa: E402
from hdreport.core.writer import make_entry, now  # noqa: E402
from pytorch_data import mnist_files  # noqa: E402

PROG = "pytorch_baseline.py"
FAMILIES = ("mlp", "loader")
PROCESSORS = ("cpu", "gpu")
DTYPES = ("fp32", "tf32", "bf16")
OPTIMIZERS = ("sgd", "adam")
MODES = ("eager", "graph", "compile")
DATA_KINDS = ("device", "pageable", "pinned")
MAX_WIDTH = 1 << 20  # lib/mlp/mlp_model.cpp's limit
DEFAULT_MODELS = "784x32x10,784x4096x4096x10"
# Without --batches: sized so the CPU grid finishes in a few minutes on two cores.
DEFAULT_BATCHES = {"cpu": (32, 128, 1024), "gpu": (32, 128, 1024, 8192)}
GEMM_SIZE = {"cpu": 2048, "gpu": 8192}
SGD_LR = 0.05  # lib/mlp/mlp_model.cpp's default_optimizer
# Variables that change how the CPU threads behave; recorded with the run's options.
THREADING_ENV = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "OMP_PROC_BIND", "OMP_PLACES",
                 "KMP_BLOCKTIME", "KMP_AFFINITY", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "CUDA_VISIBLE_DEVICES")


class UsageError(Exception):
    """A bad option; main() prints it and exits 2."""


def parse_model(text: str) -> list[int]:
    """"784x32x10" -> [784, 32, 10], with hdbench's rules and messages."""
    def fail(why: str):
        raise UsageError(f"--models: bad model '{text}': {why} (expected widths joined by 'x', e.g. 784x32x10)")
    if not text:
        fail("empty")
    widths = []
    for part in text.split("x"):
        if not part:
            fail("an empty width")
        if not re.fullmatch(r"[+-]?[0-9]+", part):
            fail(f"'{part}' is not a whole number")
        width = int(part)
        if width < 1:
            fail(f"width {width} is not positive")
        if width > MAX_WIDTH:
            fail(f"width {width} is over the limit of {MAX_WIDTH}")
        widths.append(width)
    if len(widths) < 2:
        fail("it needs at least an input width and a class count")
    if widths[0] != 784 or widths[-1] < 10:  # bench/mlp.cpp's check_models
        fail("it does not fit the dataset: the first width must be 784 (28×28 pixels) and the last at least 10 "
             "(the classes)")
    return widths


def split_list(flag: str, text: str) -> list[str]:
    items = [item.strip() for item in text.split(",")]
    if not text.strip() or any(not item for item in items):
        raise UsageError(f"--{flag}: empty item in '{text}' (expected a comma-separated list)")
    return list(dict.fromkeys(items))  # drop repeats, keep the order


def choices(flag: str, text: str, allowed: tuple[str, ...]) -> list[str]:
    items = split_list(flag, text)
    for item in items:
        if item not in allowed:
            raise UsageError(f"--{flag}: unknown value '{item}' (choose from {', '.join(allowed)})")
    return items


def positive_ints(flag: str, text: str) -> list[int]:
    values = []
    for item in split_list(flag, text):
        if not re.fullmatch(r"[0-9]+", item) or int(item) < 1:
            raise UsageError(f"--{flag}: '{item}' is not a positive whole number")
        values.append(int(item))
    return values


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add = parser.add_argument
    add("--families", default="mlp,loader", help="mlp, loader (default: both)")
    add("--processors", default="cpu,gpu", help="cpu, gpu (default: both)")
    add("--models", default=DEFAULT_MODELS, help=f"widths joined by 'x' (default {DEFAULT_MODELS})")
    add("--batches", default=None, help="batch sizes (default cpu: 32,128,1024; gpu: 32,128,1024,8192)")
    add("--dtypes", default="fp32,tf32,bf16", help="fp32, tf32, bf16 (GPU; the CPU runs fp32 only)")
    add("--optimizers", default="sgd,adam", help="sgd, adam (default: both)")
    add("--modes", default="eager,graph",
        help="eager, graph (CUDA graph of the whole step, GPU only), compile (torch.compile(model)); "
             "default eager,graph")
    add("--data", default="device,pageable,pinned",
        help="GPU batch source: device (already on the GPU), pageable or pinned host memory copied "
             "inside the step (default: all three); the CPU uses host")
    add("--threads", default=str(os.cpu_count() or 1),
        help="CPU threads: torch.set_num_threads, and OpenBLAS's pool where PyTorch uses it (default: all cores)")
    add("--loader-batches", default=loader_family.DEFAULT_BATCHES, help="DataLoader batch sizes (default %(default)s)")
    add("--loader-workers", default=loader_family.DEFAULT_WORKERS, help="num_workers values (default %(default)s)")
    add("--loader-pinning", default="pageable,pin_thread",
        help="pageable (pin_memory=False), pin_thread (pin_memory=True) (default: both; gpu consumer only)")
    add("--loader-consumers", default="host,gpu", help="host (CPU checksum), gpu (.to(device) + checksum)")
    add("--loader-samples", default="60000", help="samples in the synthetic set, as hdbench's (default 60000)")
    add("--loader-min-epochs", default="3", help="timed epochs per loader run at least (default 3)")
    add("--mnist-dir", default="", help="read DIR/train-{images-idx3,labels-idx1}-ubyte instead of the synthetic set")
    add("--device", default="0", help="CUDA device index (default 0)")
    add("--min-time", default="0.5", help="seconds of timed steps per benchmark (default 0.5)")
    add("--min-samples", default="5", help="timed steps per benchmark at least (default 5)")
    add("--warmup", default="3", help="untimed steps before timing (default 3)")
    add("--flush-denormal", action="store_true",
        help="CPU: torch.set_flush_denormal(True) (default off, PyTorch's default; denormals can slow SGD steps)")
    add("--seed", default="1", help="seed of the data and the initial weights (default 1)")
    add("--out", default=None, help="report path (default reports/pytorch-<host>-<time>.json)")
    # For the tests only: a learning rate that makes SGD diverge on purpose.
    add("--test-sgd-lr", default=str(SGD_LR), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)  # its own usage errors exit 2
    opts = argparse.Namespace()
    opts.families = choices("families", args.families, FAMILIES)
    opts.processors = choices("processors", args.processors, PROCESSORS)
    opts.models = [(m, parse_model(m)) for m in split_list("models", args.models)]
    opts.batches = positive_ints("batches", args.batches) if args.batches is not None else None
    opts.dtypes = choices("dtypes", args.dtypes, DTYPES)
    opts.optimizers = choices("optimizers", args.optimizers, OPTIMIZERS)
    opts.modes = choices("modes", args.modes, MODES)
    opts.data = choices("data", args.data, DATA_KINDS)
    opts.threads = positive_ints("threads", args.threads)
    opts.device = whole_number("device", args.device, 0)
    opts.min_samples = whole_number("min-samples", args.min_samples, 1)
    opts.warmup = whole_number("warmup", args.warmup, 0)
    opts.seed = whole_number("seed", args.seed, 0)
    opts.flush_denormal = args.flush_denormal
    opts.loader_batches = positive_ints("loader-batches", args.loader_batches)
    opts.loader_workers = [whole_number("loader-workers", w, 0) for w in split_list("loader-workers",
                                                                                    args.loader_workers)]
    opts.loader_pinning = choices("loader-pinning", args.loader_pinning, tuple(loader_family.PINNING))
    opts.loader_consumers = choices("loader-consumers", args.loader_consumers, loader_family.CONSUMERS)
    opts.loader_samples = whole_number("loader-samples", args.loader_samples, 1)
    opts.loader_min_epochs = whole_number("loader-min-epochs", args.loader_min_epochs, 1)
    opts.mnist_dir = args.mnist_dir
    if opts.mnist_dir and not all(Path(f).is_file() for f in mnist_files(opts.mnist_dir)):
        raise UsageError(f"--mnist-dir: '{opts.mnist_dir}' has no train-images-idx3-ubyte and "
                         "train-labels-idx1-ubyte")
    try:
        opts.sgd_lr = float(args.test_sgd_lr)
    except ValueError:
        raise UsageError(f"--test-sgd-lr: '{args.test_sgd_lr}' is not a number") from None
    try:
        opts.min_time = float(args.min_time)
    except ValueError:
        opts.min_time = float("nan")
    if not (math.isfinite(opts.min_time) and opts.min_time >= 0):
        raise UsageError(f"--min-time: '{args.min_time}' is not a number of seconds >= 0")
    opts.out = args.out if args.out is not None else default_out_path()
    opts.arguments = list(sys.argv[1:] if argv is None else argv)
    return opts


def whole_number(flag: str, text: str, minimum: int) -> int:
    if not re.fullmatch(r"[0-9]+", text.strip()) or int(text) < minimum:
        raise UsageError(f"--{flag}: '{text}' is not a whole number >= {minimum}")
    return int(text)


def default_out_path() -> str:
    host = re.sub(r"[^A-Za-z0-9_.-]", "_", socket.gethostname()) or "host"
    return f"reports/pytorch-{host}-{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}.json"


def check_writable(path: str) -> None:
    """Fail before anything runs rather than lose a long run's report at the end."""
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"--out: '{path}' is a directory; give a file path")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        probe = p.parent / f".pytorch-baseline-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise UsageError(f"--out: cannot write the report into '{p.parent}': {e.strerror}") from None


# ---- the grid ------------------------------------------------------------------------


def step_grid(opts) -> tuple[list[dict], list[str]]:
    """The step benchmarks to run, and notes on what the CPU leaves out."""
    specs, dropped = [], []
    if "mlp" not in opts.families:
        return specs, dropped
    for processor in opts.processors:
        batches = opts.batches or list(DEFAULT_BATCHES[processor])
        if processor == "cpu":
            dtypes = [d for d in opts.dtypes if d == "fp32"]
            modes = [m for m in opts.modes if m != "graph"]
            datas, threads = ["host"], opts.threads
            left_out = [d for d in opts.dtypes if d != "fp32"] + [m for m in opts.modes if m == "graph"]
            if left_out:
                dropped.append(f"the cpu runs fp32 in eager/compile mode only; left out for it: {', '.join(left_out)}")
        else:
            dtypes, modes, datas, threads = opts.dtypes, opts.modes, opts.data, [None]
        for model, widths in opts.models:
            for dtype in dtypes:
                for optimizer in opts.optimizers:
                    for mode in modes:
                        for data in datas:
                            for batch in batches:
                                for t in threads:
                                    specs.append(dict(kind="step", processor=processor, model=model, widths=widths,
                                                      dtype=dtype, optimizer=optimizer, mode=mode, data=data,
                                                      batch=batch, threads=t, device=opts.device))
    return specs, dropped


def gemm_grid(step_specs: list[dict], opts) -> list[dict]:
    """One GEMM per processor, dtype (and CPU thread count) that a step uses."""
    seen = dict.fromkeys((s["processor"], s["dtype"], s["threads"]) for s in step_specs)
    return [dict(kind="gemm", processor=p, dtype=d, threads=t, n=GEMM_SIZE[p], device=opts.device)
            for p, d, t in seen]


def benchmark_name(spec: dict) -> str:
    p = spec["processor"]
    suffix = f"/threads:{spec['threads']}" if p == "cpu" else ""
    if spec["kind"] == "gemm":
        n = spec["n"]
        return f"mlp/gemm/{p}/{spec['dtype']}/{n}x{n}x{n}{suffix}/manual_time"
    return (f"mlp/step/{p}/{spec['model']}/{spec['dtype']}/{spec['optimizer']}/{spec['mode']}"
            f"/data:{spec['data']}/batch:{spec['batch']}{suffix}/manual_time")


def entry_name(spec: dict) -> str:
    return loader_family.loader_name(spec) if spec["kind"] == "loader" else benchmark_name(spec)


def benchmark_params(spec: dict) -> dict:
    p = spec["processor"]
    params = {"family": "mlp", "variant": spec["kind"], "implementation": "pytorch", "processor": p}
    if spec["kind"] == "gemm":
        params.update(dtype=spec["dtype"], m=spec["n"], n=spec["n"], k=spec["n"])
    else:
        params.update({k: spec[k] for k in ("model", "dtype", "optimizer", "mode", "data", "batch")})
    params.update({"threads": spec["threads"]} if p == "cpu" else {"device": spec["device"]})
    return params


def training_step_flops(widths: list[int], batch: int) -> float:
    """lib/mlp/mlp_model.cpp: 3 x forward GEMMs, less the first layer's input gradient."""
    forward = sum(2.0 * batch * a * b for a, b in zip(widths, widths[1:]))
    return 3.0 * forward - 2.0 * batch * widths[0] * widths[1]


# ---- report entries -------------------------------------------------------------------


def mlp_counters(spec: dict, result: dict):
    """The counters of an ok step or GEMM run, from its per-step (per-product) times."""
    def derive(samples: list[float], median: float, mean: float) -> dict:
        if spec["kind"] == "gemm":
            return {"gemm_us": median, "TFLOP/s": 2.0 * spec["n"] ** 3 / (median * 1e-6) / 1e12}
        return {"step_us": median, "step_best_us": min(samples), "samples/s": spec["batch"] / (median * 1e-6),
                "items_per_second": spec["batch"] / (mean * 1e-6),  # Google's rate: over the mean
                "TFLOP/s": training_step_flops(spec["widths"], spec["batch"]) / (median * 1e-6) / 1e12,
                "final_loss": result["final_loss"]}
    return derive


def entry_for(spec: dict, index: int, result: dict, opts) -> dict:
    if spec["kind"] == "loader":
        return make_entry(loader_family.loader_name(spec), loader_family.loader_params(spec, opts), index, result,
                          lambda samples, median, mean: loader_family.loader_counters(result, spec, median, mean))
    return make_entry(benchmark_name(spec), benchmark_params(spec), index, result, mlp_counters(spec, result))


def add_gemm_fractions(entries: list[dict]) -> None:
    """fraction_of_gemm_rate: a step's TFLOP/s over its processor's, dtype's (and thread
    count's) GEMM rate measured in the same run."""
    rates = {}
    for e in entries:
        p = e["params"]
        if p.get("variant") == "gemm" and e["status"] == "ok":
            rates[(p["processor"], p["dtype"], p.get("threads"))] = e["counters"]["TFLOP/s"]
    for e in entries:
        p = e["params"]
        rate = rates.get((p.get("processor"), p.get("dtype"), p.get("threads")))
        if p.get("variant") == "step" and e["status"] == "ok" and rate:
            for key, value in (("gemm_TFLOP/s", rate), ("fraction_of_gemm_rate", e["counters"]["TFLOP/s"] / rate)):
                e[key] = e["counters"][key] = value


def context_options(opts, env: dict) -> dict:
    options = {k: getattr(opts, k) for k in ("families", "processors", "dtypes", "optimizers", "modes", "data",
                                             "threads", "device", "min_time", "min_samples", "warmup", "seed",
                                             "loader_batches", "loader_workers", "loader_pinning",
                                             "loader_consumers", "loader_samples", "loader_min_epochs",
                                             "mnist_dir", "arguments")}
    options["flush_denormal_asked"] = opts.flush_denormal
    options["models"] = [m for m, _ in opts.models]
    options["batches"] = {p: opts.batches or list(DEFAULT_BATCHES[p]) for p in opts.processors}
    options["sgd_learning_rate"] = opts.sgd_lr
    options["out_path"] = opts.out
    options["timing"] = {"cpu": "time.perf_counter around each step", "gpu": "a CUDA event pair around each step",
                         "loader": "time.perf_counter around each epoch"}
    options["tf32_switch"] = env["tf32_switch"]
    options["flush_denormal"] = env["flush_denormal"]  # as applied: false when the CPU cannot
    options["openblas_threads_set"] = bool(env["openblas"])  # threads:T also sized OpenBLAS's pool
    return options


def build_context(options: dict, env: dict, started_at: str, notes: list[str], executable: str) -> dict:
    """The report's context: what ran (PyTorch, CUDA, Python), its options and the machine."""
    options = dict(options, environment={k: v for k, v in os.environ.items() if k in THREADING_ENV})
    hd = {"schema_version": 2, "implementation": "pytorch", "version": writer.suite_version(),
          "git_revision": writer.git_revision(), "torch_version": env["torch_version"],
          "cuda_version": env["cuda_version"], "python_version": platform.python_version(), "started_at": started_at,
          "finished_at": now(), "options": options, "notes": notes,
          "system": {"host": writer.host_info(), "gpus": env["gpus"], "gpu_usable": env["gpu_usable"],
                     "gpu_unavailable_reason": env["gpu_reason"],
                     "runtime_version_string": env["cuda_version"] or ""}}
    return writer.context(hd, executable)


# ---- console --------------------------------------------------------------------------

COLUMNS = (("median us", 12), ("samples/s", 10), ("TFLOP/s", 8), ("of gemm", 7), ("CV%", 5), ("loss", 7))


def short_name(name: str) -> str:
    return name.removeprefix("mlp/").removesuffix("/manual_time")


def table_header(width: int) -> str:
    return f"{'benchmark':<{width}} " + " ".join(f"{title:>{w}}" for title, w in COLUMNS)


def table_row(entry: dict, width: int) -> str:
    short = short_name(entry["name"])
    if entry["status"] != "ok":
        return f"{short:<{width}} {entry['status']}: {entry.get('skip_reason') or entry.get('error_message', '')}"
    c = entry["counters"]
    time_us = c.get("step_us", c.get("gemm_us", 1e3 * c.get("epoch_ms", 0.0)))
    cells = (f"{time_us:.1f}", f"{c['samples/s']:.4g}" if "samples/s" in c else "-",
             f"{c['TFLOP/s']:.3f}" if "TFLOP/s" in c else "-",
             f"{c['fraction_of_gemm_rate']:.2f}" if "fraction_of_gemm_rate" in c else "-",
             f"{c['cv_percent']:.1f}", f"{c['final_loss']:.4f}" if "final_loss" in c else "-")
    return f"{short:<{width}} " + " ".join(f"{cell:>{w}}" for cell, (_, w) in zip(cells, COLUMNS))


# ---- main -----------------------------------------------------------------------------


def env_openblas_fight(steps: list[dict], runner) -> bool:
    return bool(runner.openblas_libraries()) and "OMP_WAIT_POLICY" not in os.environ and \
        any(s["processor"] == "cpu" and s["threads"] > 1 for s in steps)


def main(argv: list[str] | None = None) -> int:
    try:
        opts = parse_args(argv)
        steps, notes = step_grid(opts)
        loaders = loader_family.loader_grid(opts) if "loader" in opts.families else []
        if not steps and not loaders:
            raise UsageError("nothing to run: " + ("; ".join(notes) or "the grid is empty"))
        check_writable(opts.out)
    except UsageError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    try:
        import pytorch_baseline_torch as runner  # imports torch
    except (ImportError, OSError) as e:  # OSError: a broken install's missing shared library
        print(f"{PROG}: PyTorch is not importable ({e}); install it (pip install torch, or Debian's "
              "python3-torch) to run the baseline", file=sys.stderr)
        return 2
    if env_openblas_fight(steps, runner):
        notes.append("PyTorch here runs OpenMP threads beside OpenBLAS's own pool; their spin-waits can fight "
                       "for the cores and stall steps by milliseconds (OMP_WAIT_POLICY=PASSIVE avoids it)")
    for line in notes:
        print(f"{PROG}: note: {line}", file=sys.stderr)
    started_at = now()
    env = runner.probe(opts.device, opts.flush_denormal)
    if opts.sgd_lr != SGD_LR:
        notes.append(f"SGD's learning rate is {opts.sgd_lr:g}, not hdbench's {SGD_LR:g} (--test-sgd-lr)")
    specs = gemm_grid(steps, opts) + steps + loaders
    entries = []
    width = max(len(short_name(entry_name(spec))) for spec in specs)
    print(table_header(width), flush=True)
    for index, spec in enumerate(specs):
        entries.append(entry_for(spec, index, runner.run(spec, opts, env), opts))
        if spec["kind"] == "step":
            add_gemm_fractions(entries)
        print(table_row(entries[-1], width), flush=True)
    derived = {}
    scaling = loader_family.derive_loader_scaling(entries)
    if scaling:
        derived["loader_scaling"] = scaling
    context = build_context(context_options(opts, env), env, started_at, notes, str(Path(__file__).resolve()))
    try:
        writer.write_report(opts.out, context, entries, derived)
    except OSError as e:
        print(f"{PROG}: {opts.out}: cannot write the report: {e.strerror}", file=sys.stderr)
        return 1
    counts = {s: sum(1 for e in entries if e["status"] == s) for s in ("ok", "skipped", "error")}
    print(f"{len(entries)} benchmarks: {counts['ok']} ok, {counts['skipped']} skipped, {counts['error']} errors; "
          f"report: {opts.out}")
    return 1 if counts["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
