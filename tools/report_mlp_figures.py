"""The MLP family's part of `hdbench_report.py plot`.

The MLP line figures (samples/s, step time, TFLOP/s and GPU busy % against batch size)
are drawn by hdbench_report.py's generic code from its FIGURES / WHERE / SPLIT_BY
tables; this module adds what is particular to the family:

- `gemm_peaks`: the reference lines of the TFLOP/s figure, the best rate of the
  report's large GEMM (params variant=gemm) for each processor and dtype. A step
  does the same GEMMs on smaller matrices, so this is the rate it is judged against.
"""

from __future__ import annotations

COUNTER = "TFLOP/s"


def rate_text(rate: float) -> str:
    """Three significant digits, without an exponent for the GPU's thousands."""
    return f"{rate:.3g}" if rate < 1000 else f"{rate:.0f}"


def gemm_peaks(benchmarks: list[dict], prefix: str = "") -> list[tuple[float, str]]:
    """[(TFLOP/s, label)]: per processor and dtype, the fastest successful GEMM run among
    `benchmarks` (over the CPU's thread counts, and hdbench's and PyTorch's GEMMs alike);
    the label says which run it was, e.g. `cpu fp32 GEMM peak 0.32 TFLOP/s (threads=2)`.
    `prefix` starts each label (the machine, when several reports share a figure)."""
    best: dict[tuple, tuple[float, dict]] = {}
    for b in benchmarks:
        p = b.get("params", {})
        rate = b.get("counters", {}).get(COUNTER)
        if p.get("family") != "mlp" or p.get("variant") != "gemm" or b.get("status") != "ok" or \
                b.get("run_type", "iteration") != "iteration" or rate is None:
            continue
        key = (p.get("processor"), p.get("dtype"))
        if key not in best or rate > best[key][0]:
            best[key] = (rate, p)
    peaks = []
    for (processor, dtype), (rate, p) in sorted(best.items(), key=lambda item: str(item[0])):
        by = [p["implementation"]] if p.get("implementation", "hdbench") != "hdbench" else []
        if "threads" in p:
            by.append(f"threads={p['threads']}")
        which = f" ({', '.join(by)})" if by else ""
        peaks.append((rate, f"{prefix}{processor} {dtype} GEMM peak {rate_text(rate)} {COUNTER}{which}"))
    return peaks
