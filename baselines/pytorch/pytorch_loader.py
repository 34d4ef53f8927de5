"""The `loader` half of pytorch_baseline.py without PyTorch: the grid of
torch.utils.data.DataLoader runs, their names and params (as bench/loader.cpp writes
hdbench's), the counters, and the derived `loader_scaling` rows (as
lib/loader/loader_derivations.cpp derives them), so `hdbench_report.py plot` and `summarize` draw
and read PyTorch's loader beside hdbench's.

What runs: the loader the tutorials teach. A map-style Dataset over hdbench's
MNIST-shaped set (the synthetic set of pytorch_data.py, or IDX files) normalises one
sample in __getitem__ (float32 pixel · 1/(255·0.3081) − 0.1307/0.3081, as hdbench's
collate does); DataLoader(batch_size, shuffle=True, num_workers, pin_memory) with the
default collate and every other default (prefetch_factor 2, persistent_workers off, so
each epoch starts its worker processes). Consumers, as hdbench's: `host` checksums each
batch on the CPU; `gpu` moves it with .to(device, non_blocking=True) and checksums it
on the device. pin_memory=False is hdbench's `pageable`, pin_memory=True (PyTorch's pin
thread) its `pin_thread`; hdbench's `direct` has no DataLoader counterpart, and the
host consumer reads pageable batches only, as hdbench's does.

Each epoch's checksum (the sum of the 32-bit words of every batch delivered) must equal
the dataset's own, so a lost or repeated batch fails the run instead of giving a number.
"""

from __future__ import annotations

from pathlib import Path

DEPTH = 2  # DataLoader's default prefetch_factor; with 0 workers nothing is prefetched
PINNING = {"pageable": False, "pin_thread": True}  # hdbench's name (the params' `pinning`) -> pin_memory
CONSUMERS = ("host", "gpu")
DEFAULT_BATCHES = "32,128,1024"
DEFAULT_WORKERS = "0,2,8"


def loader_grid(opts) -> list[dict]:
    specs = []
    for consumer in opts.loader_consumers:
        for pinning in opts.loader_pinning:
            if consumer == "host" and pinning != "pageable":
                continue  # page-locked memory only speeds up a copy to the device
            for batch in opts.loader_batches:
                for workers in opts.loader_workers:
                    specs.append(dict(kind="loader", consumer=consumer, pinning=pinning, batch=batch,
                                      workers=workers, device=opts.device))
    return specs


def cost_text(cost: float) -> str:
    """fmt's "{}" of a double, as hdbench's names print the cost: 0 -> "0", 2.5 -> "2.5"."""
    return str(int(cost)) if float(cost).is_integer() else repr(float(cost))


def loader_name(spec: dict) -> str:
    return (f"loader/{spec['consumer']}/{spec['pinning']}/batch:{spec['batch']}/workers:{spec['workers']}"
            f"/depth:{DEPTH}/cost_us:{cost_text(0.0)}/shuffle/none/manual_time")


FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist"  # Debian's dataset-fashion-mnist


def dataset_name(mnist_dir: str | None) -> str:
    """hdbench's `dataset_name` param for the same data (lib/pipeline/data_options.cpp)."""
    if not mnist_dir:
        return "synthetic"
    same = Path(FASHION_MNIST_DIR).exists() and Path(mnist_dir).resolve() == Path(FASHION_MNIST_DIR).resolve()
    return "fashion_mnist" if same else "mnist_dir"


def loader_params(spec: dict, opts) -> dict:
    params = {"family": "loader", "implementation": "pytorch", "consumer": spec["consumer"],
              "pinning": spec["pinning"], "batch": spec["batch"],
              "workers": spec["workers"], "prefetch_depth": DEPTH, "sample_cost_us": 0.0, "shuffle": True,
              "augment": "none", "build": "whole",  # a DataLoader worker builds whole batches
              "dataset": "mnist_idx" if opts.mnist_dir else "synthetic",
              "dataset_name": dataset_name(opts.mnist_dir)}
    if spec["consumer"] == "gpu":
        params["device"] = spec["device"]
    if not opts.mnist_dir:
        params["samples"] = opts.loader_samples
    return params


def loader_counters(result: dict, spec: dict, median_us: float, mean_us: float) -> dict:
    """hdbench's loader counters that a DataLoader run can measure honestly (the rest,
    e.g. worker_busy_percent or queue_occupancy_batches, need the loader's insides)."""
    samples, epochs = result["epoch_samples"], len(result["samples_us"])
    rate = samples / (median_us * 1e-6)
    counters = {"samples/s": rate, "batch_GB/s": rate * result["bytes_per_sample"] / 1e9,
                "epoch_ms": median_us / 1e3, "items_per_second": samples / (mean_us * 1e-6),
                "stall_us_per_batch": result["wait_us"] / max(1, result["batches"] * epochs)}
    cpu_us_per_sample = result.get("build_cpu_us", 0.0) / max(1, samples * epochs)
    if cpu_us_per_sample > 0:
        builders = min(max(1, spec["workers"]), result["cores"])
        counters["cpu_us_per_sample"] = cpu_us_per_sample
        counters["build_bound_samples/s"] = builders / (cpu_us_per_sample * 1e-6)
        # As hdbench's: the mean epoch's rate, since the CPU time per sample is the mean over the same epochs
        # (held against the median's rate it read 1.32 on an H100 host). A share above 1 would say the CPU time
        # counted more than the builders' work in these epochs (a worker process's other threads, its start-up):
        # left out, never published as beating the bound.
        fraction = counters["items_per_second"] / counters["build_bound_samples/s"]
        if fraction <= 1.0:
            counters["fraction_of_build_bound"] = fraction
    return counters


def derive_loader_scaling(entries: list[dict]) -> list[dict]:
    """lib/loader/loader_derivations.cpp's loader_scaling rows: per grid point and depth, samples/s by
    worker count, the speed-up over 0 workers and the best worker count."""
    keys = ("consumer", "pinning", "batch", "sample_cost_us", "shuffle", "augment")
    by_workers, without = {}, {}
    for e in entries:
        p = e["params"]
        if p.get("family") != "loader" or e["status"] != "ok" or "samples/s" not in e["counters"]:
            continue
        key = tuple(p[k] for k in keys)
        if p["workers"] == 0:
            without[key] = e["counters"]["samples/s"]
        else:
            by_workers.setdefault((key, p["prefetch_depth"]), {})[p["workers"]] = e["counters"]["samples/s"]
    rows = []
    for (key, depth), rates in sorted(by_workers.items(), key=lambda item: repr(item[0])):
        if key in without:
            rates[0] = without[key]
        cells = {}
        for workers in sorted(rates):
            cells[str(workers)] = {"samples/s": rates[workers]}
            if key in without:
                cells[str(workers)]["speedup_vs_0_workers"] = rates[workers] / without[key]
        best = max(sorted(rates), key=lambda w: rates[w])
        rows.append(dict(zip(keys, key), prefetch_depth=depth, by_workers=cells, best_workers=best,
                         **{"best_samples/s": rates[best]}))
    return rows
