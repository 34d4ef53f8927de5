"""Synthetic reports of the data-movement families (issue 31: device_local, latency, managed,
batch_copy, strided) for the report tools' tests, until a GPU has run them.

Made up, not measured: `context.hdbench.synthetic` is true (the summary, the page and the
figures say "synthetic"), the host is `synthetic-h100`. The numbers are what an H100 80GB
HBM3 on PCIe Gen5 x16 might plausibly give (copies within HBM3 near 1.5 TB/s, pinned copies
over the link 50-55 GB/s, a 4 B copy about 8 µs, a load over the link about 1.25 µs against
0.5 µs from HBM), chosen round so that the summary's ratios can be worked by hand; the
tests (test_report_movement.py) assert them. Names, params and counters are those the binary
writes (bench/device_local.cpp, latency.cpp, managed.cpp, batch_copy.cpp, strided.cpp; a
GPU-less run's skipped entries copied from one).

    python3 tests/python/tools/movement_reports.py OUT_DIR   # writes the reports below as JSON

- `full()`: the five families and the transfer family's one-at-a-time pinned and pageable
  copies (what the managed answer sets beside, and the device_local answer reads against);
  `managed_unsupported=True` skips every managed entry as a GPU without concurrent managed
  access does.
- `without_transfer()`: the five families alone.
- `no_gpu()`: every entry of the five families skipped, as hdbench writes them without a driver.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

MiB = 1 << 20
GiB = 1 << 30
LINK_GBPS = 63.0  # PCIe Gen5 x16, one direction, after encoding
NO_DRIVER = ("no CUDA driver: cudaGetDeviceCount returned cudaErrorInsufficientDriver (CUDA driver version is "
             "insufficient for CUDA runtime version); libcuda.so.1 could not be loaded (libcuda.so.1: cannot open "
             "shared object file: No such file or directory), so the NVIDIA driver is not installed or not visible "
             "to this process (container without --gpus?)")
NO_CONCURRENT_MANAGED = ("GPU 0 has no concurrent managed access (cudaDevAttrConcurrentManagedAccess is 0: a GPU "
                         "before Pascal, Windows, or a hypervisor that forbids it), so pages cannot migrate on demand "
                         "or be prefetched")
FAMILIES = ["device_local", "latency", "managed", "batch_copy", "strided"]

# --- the numbers -----------------------------------------------------------------------------

# device_local: GB/s (bytes copied) by engine and size.
DEVICE_LOCAL = {
    "copy": {1 * MiB: 300.0, 4 * MiB: 700.0, 16 * MiB: 1100.0, 64 * MiB: 1300.0, 256 * MiB: 1350.0, GiB: 1360.0},
    "sm": {1 * MiB: 400.0, 4 * MiB: 900.0, 16 * MiB: 1300.0, 64 * MiB: 1450.0, 256 * MiB: 1480.0, GiB: 1500.0},
}
# latency: µs of one copy by (direction, memory) and size; the chase's µs per load.
LATENCY = {
    ("h2d", "pinned"): {4: 8.0, 64: 8.0, 1024: 8.2, 4096: 8.5, 65536: 9.7},
    ("d2h", "pinned"): {4: 8.4, 64: 8.4, 1024: 8.6, 4096: 8.9, 65536: 10.1},
    ("h2d", "pageable"): {4: 10.0, 64: 10.0, 1024: 10.5, 4096: 11.0, 65536: 16.0},
    ("d2h", "pageable"): {4: 12.0, 64: 12.0, 1024: 12.4, 4096: 13.0, 65536: 20.0},
}
CHASE = {"mapped_host": (1.25, 20_000), "device": (0.50, 200_000)}  # µs per load, steps
# managed: GB/s by direction, variant and size (the advice variants have no d2h case).
MANAGED = {
    ("h2d", "demand"): {4 * MiB: 6.0, 64 * MiB: 11.0, 256 * MiB: 13.5, GiB: 13.2},
    ("h2d", "prefetch"): {4 * MiB: 20.0, 64 * MiB: 44.0, 256 * MiB: 51.3, GiB: 52.8},
    ("h2d", "read_mostly"): {4 * MiB: 5.0, 64 * MiB: 8.0, 256 * MiB: 9.0, GiB: 9.2},
    ("h2d", "preferred_gpu"): {4 * MiB: 5.5, 64 * MiB: 9.0, 256 * MiB: 10.5, GiB: 11.0},
    ("h2d", "accessed_by_gpu"): {4 * MiB: 15.0, 64 * MiB: 20.0, 256 * MiB: 21.0, GiB: 21.0},
    ("d2h", "demand"): {4 * MiB: 2.0, 64 * MiB: 2.4, 256 * MiB: 3.0, GiB: 2.91},
    ("d2h", "prefetch"): {4 * MiB: 15.0, 64 * MiB: 40.8, 256 * MiB: 46.0, GiB: 48.45},
}
DEMAND_NOISE = {"h2d": (3.2, 4.1), "d2h": (2.5, 3.0)}  # noise_percent, cv_percent of the demand runs
# transfer: GB/s of one copy at a time (copy engine) by direction, memory and size.
TRANSFER = {
    ("h2d", "pinned"): {4096: 2.0, MiB: 40.0, 64 * MiB: 50.0, 256 * MiB: 54.0, GiB: 55.0},
    ("d2h", "pinned"): {4096: 2.1, MiB: 38.0, 64 * MiB: 48.0, 256 * MiB: 50.0, GiB: 51.0},
    ("h2d", "pageable"): {4096: 0.8, MiB: 10.0, 64 * MiB: 12.0, 256 * MiB: 13.0, GiB: 13.2},
    ("d2h", "pageable"): {4096: 0.7, MiB: 8.0, 64 * MiB: 9.0, 256 * MiB: 9.5, GiB: 9.6},
}
# batch_copy: µs per batch by method and K; packed also its gather (the copy is the rest).
BATCH_KS = [1, 2, 4, 8, 16, 32, 64]
BATCH = {
    "per_tensor": [8.0, 10.0, 14.0, 130.0, 250.0, 480.0, 950.0],
    "packed": [9.0, 10.5, 12.0, 620.0, 1240.0, 2450.0, 4900.0],
    "batch_api": [8.5, 9.0, 10.0, 115.0, 225.0, 440.0, 870.0],
    "mapped_kernel": [9.0, 9.5, 11.0, 180.0, 350.0, 700.0, 1400.0],
    "one_copy": [7.5, 7.6, 8.0, 110.0, 220.0, 420.0, 830.0],
}
GATHER = [0.3, 0.5, 2.0, 500.0, 1000.0, 2000.0, 4000.0]
MIX = [256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20]  # bench/batch_copy's stated mix
# strided: GB/s by matrix, slice and method.
STRIDED = {
    ("1024x1024", "every_other_row"): {"contiguous": 35.0, "memcpy2d": 21.0, "pack_then_copy": 10.5,
                                       "mapped_kernel": 14.0},
    ("1024x1024", "column_block"): {"contiguous": 35.0, "memcpy2d": 14.0, "pack_then_copy": 9.1,
                                    "mapped_kernel": 10.5},
    ("4096x4096", "every_other_row"): {"contiguous": 50.0, "memcpy2d": 45.0, "pack_then_copy": 8.0,
                                       "mapped_kernel": 30.0},
    ("4096x4096", "column_block"): {"contiguous": 50.0, "memcpy2d": 40.0, "pack_then_copy": 7.5,
                                    "mapped_kernel": 27.5},
    ("8192x8192", "every_other_row"): {"contiguous": 53.0, "memcpy2d": 50.35, "pack_then_copy": 7.95,
                                       "mapped_kernel": 31.8},
    ("8192x8192", "column_block"): {"contiguous": 53.0, "memcpy2d": 47.7, "pack_then_copy": 7.42,
                                    "mapped_kernel": 29.15},
}


# --- entries as hdbench writes them ----------------------------------------------------------

def size_name(n: int) -> str:
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return f"{n}B"


def rule_counters(noise: float = 0.4, cv: float = 0.6, samples: int = 25) -> dict:
    return {"cv_percent": cv, "samples": samples, "noise_percent": noise, "stdev_percent": cv,
            "noise_target_percent": 1.0, "stopped_at_timeout": 0}


def bandwidth_counters(nbytes: int, gbps: float, noise: float = 0.4, cv: float = 0.6) -> dict:
    """set_bandwidth_counters' figures for a median of `gbps` (the best sample 1% faster)."""
    return {"bandwidth_GB/s": gbps, "bandwidth_best_GB/s": round(gbps * 1.01, 6),
            "latency_us": nbytes / (gbps * 1e3), **rule_counters(noise, cv)}


def entry(name: str, params: dict, counters: dict | None = None, skipped: str | None = None) -> dict:
    base = {"name": f"{name}/manual_time", "run_name": f"{name}/manual_time", "run_type": "iteration",
            "family_index": 0, "per_family_instance_index": 0, "repetitions": 1, "repetition_index": 0,
            "threads": 1, "time_unit": "us", "params": {**params, "device": 0}, "notes": []}
    if skipped is not None:
        return {**base, "status": "skipped", "skip_reason": skipped, "error_occurred": True,
                "error_message": f"skipped: {skipped}", "iterations": 0, "real_time": 0.0, "cpu_time": 0.0,
                "counters": {}}
    time = counters.get("batch_us", counters.get("latency_us", 0.0))
    return {**base, "status": "ok", "error_occurred": False, "iterations": 1, "real_time": time,
            "cpu_time": time, "counters": counters, **counters}


def device_local_entries(skip=None) -> list[dict]:
    return [entry(f"device_local/{engine}/{size_name(n)}",
                  {"family": "device_local", "engine": engine, "bytes": n, "direction": "d2d", "memory": "device"},
                  bandwidth_counters(n, gbps), skip)
            for engine, rates in DEVICE_LOCAL.items() for n, gbps in rates.items()]


def latency_entries(skip=None) -> list[dict]:
    out = []
    for (direction, memory), times in LATENCY.items():
        for n, t in times.items():
            counters = {**bandwidth_counters(n, n / (t * 1e3)), "latency_us": t}
            out.append(entry(f"latency/copy/{direction}/{memory}/{size_name(n)}",
                             {"family": "latency", "method": "copy", "direction": direction, "memory": memory,
                              "bytes": n, "engine": "copy"}, counters, skip))
    for memory, (t, steps) in CHASE.items():
        counters = {"latency_us": t, "latency_best_us": round(t * 0.98, 6), "chain_bytes": 64 * MiB, "steps": steps,
                    **rule_counters(0.3, 0.5, 12)}
        out.append(entry(f"latency/pointer_chase/{memory}",
                         {"family": "latency", "method": "pointer_chase", "memory": memory, "chain_nodes": 1 << 20,
                          "stride_bytes": 64, "steps": steps}, counters, skip))
    return out


def managed_entries(skip=None) -> list[dict]:
    out = []
    for (direction, variant), rates in MANAGED.items():
        noise, cv = DEMAND_NOISE[direction] if variant == "demand" else (0.5, 0.8)
        for n, gbps in rates.items():
            out.append(entry(f"managed/{direction}/{variant}/{size_name(n)}",
                             {"family": "managed", "direction": direction, "variant": variant, "bytes": n,
                              "memory": "managed"}, bandwidth_counters(n, gbps, noise, cv), skip))
    return out


def batch_payload(k: int) -> int:
    return sum(MIX[i % len(MIX)] for i in range(k))


def batch_entries(skip=None) -> list[dict]:
    out = []
    for i, k in enumerate(BATCH_KS):
        payload = batch_payload(k)
        for method, times in BATCH.items():
            t = times[i]
            counters = {**bandwidth_counters(payload, payload / (t * 1e3)), "latency_us": t, "batch_us": t,
                        "per_tensor_us": t / k, "payload_bytes": payload}
            if method == "packed":
                counters.update(gather_us=GATHER[i], copy_us=t - GATHER[i])
            out.append(entry(f"batch_copy/{method}/tensors:{k}",
                             {"family": "batch_copy", "method": method, "tensors": k, "bytes": payload,
                              "mix": "256B..4MiB by 4x, tensor i of size mix[i % 8]", "memory": "pinned"},
                             counters, skip))
    return out


def strided_slice(matrix: str, slice_: str) -> dict:
    """bench/strided's slice of a row-major fp32 matrix: rows, row bytes, pitch, bytes."""
    rows, cols = (int(v) for v in matrix.split("x"))
    if slice_ == "every_other_row":
        shape = {"rows": (rows + 1) // 2, "row_bytes": cols * 4, "pitch_bytes": 2 * cols * 4}
    else:
        shape = {"rows": rows, "row_bytes": cols // 2 * 4, "pitch_bytes": cols * 4}
    return {**shape, "bytes": shape["rows"] * shape["row_bytes"]}


def strided_entries(skip=None) -> list[dict]:
    out = []
    for (matrix, slice_), rates in STRIDED.items():
        shape = strided_slice(matrix, slice_)
        for method in ("memcpy2d", "pack_then_copy", "mapped_kernel", "contiguous"):
            gbps = rates[method]
            counters = bandwidth_counters(shape["bytes"], gbps)
            if method == "pack_then_copy":  # the pack is the time above one contiguous copy
                counters["pack_us"] = shape["bytes"] / (gbps * 1e3) - shape["bytes"] / (rates["contiguous"] * 1e3)
            out.append(entry(f"strided/{slice_}/{method}/{matrix}",
                             {"family": "strided", "slice": slice_, "method": method, "matrix": matrix,
                              **shape, "direction": "h2d", "memory": "pinned"}, counters, skip))
    return out


def transfer_entries() -> list[dict]:
    out = []
    for (direction, memory), rates in TRANSFER.items():
        for n, gbps in rates.items():
            counters = {**bandwidth_counters(n, gbps), "pcie_link_percent": 100 * gbps / LINK_GBPS}
            out.append(entry(f"transfer/{direction}/{memory}/copy/{size_name(n)}",
                             {"family": "transfer", "direction": direction, "memory": memory, "engine": "copy",
                              "variant": "per_copy", "bytes": n, "numa": "near", "numa_node_requested": 0},
                             counters))
    return out


def context(families: list[str], gpu: bool = True) -> dict:
    system = {
        "host": {"hostname": "synthetic-h100", "cpu_model": "Intel(R) Xeon(R) Platinum 8480+", "logical_cores": 52,
                 "memory_total_bytes": 512 * GiB, "numa_nodes": 1, "kernel": "6.8.0"},
        "gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "compute_capability_major": 9,
                  "compute_capability_minor": 0, "sm_count": 132, "total_memory_bytes": 80 * GiB,
                  "pcie_link_current": {"generation": 5, "width": 16}, "pcie_link_max": {"generation": 5, "width": 16},
                  "pcie_link_max_gbps": LINK_GBPS, "copy_engines": 3}] if gpu else [],
        "driver_version_string": "13.0" if gpu else "none", "runtime_version_string": "13.0",
        "gpu_usable": gpu,
    }
    if not gpu:
        system["gpu_unavailable_reason"] = NO_DRIVER
    return {"host_name": "synthetic-h100", "date": "2026-11-25T10:00:00+00:00",
            "hdbench": {"schema_version": 2, "version": "0.1.0", "git_revision": "synthetic", "build_type": "Release",
                        "started_at": "2026-11-25T10:00:00+0000", "finished_at": "2026-11-25T10:20:00+0000",
                        "synthetic": True,
                        "options": {"families": families, "arguments": [f"--hdbench_families={','.join(families)}"]},
                        "system": system}}


def report(benchmarks: list[dict], families: list[str], gpu: bool = True) -> dict:
    return {"context": context(families, gpu), "benchmarks": benchmarks, "derived": {}}


def full(managed_unsupported: bool = False) -> dict:
    managed = managed_entries(NO_CONCURRENT_MANAGED if managed_unsupported else None)
    return report(transfer_entries() + device_local_entries() + latency_entries() + managed + batch_entries()
                  + strided_entries(), ["transfer"] + FAMILIES)


def without_transfer() -> dict:
    return report(device_local_entries() + latency_entries() + managed_entries() + batch_entries()
                  + strided_entries(), FAMILIES)


def no_gpu() -> dict:
    return report(device_local_entries(NO_DRIVER) + latency_entries(NO_DRIVER) + managed_entries(NO_DRIVER)
                  + batch_entries(NO_DRIVER) + strided_entries(NO_DRIVER), FAMILIES, gpu=False)


REPORTS = {"movement-full.json": full, "movement-without-transfer.json": without_transfer,
           "movement-no-gpu.json": no_gpu,
           "movement-managed-unsupported.json": lambda: full(managed_unsupported=True)}


def write_all(out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for file, make in REPORTS.items():
        path = out_dir / file
        path.write_text(json.dumps(make(), indent=1) + "\n")
        written.append(path)
    return written


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUT_DIR")
    for p in write_all(Path(sys.argv[1])):
        print(p)
