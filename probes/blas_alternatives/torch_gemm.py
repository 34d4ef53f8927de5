#!/usr/bin/env python3
"""PyTorch's CPU GEMM at the shapes sgemm_probe times, for reference: same shapes and
transposes (row-major C = op(A)·op(B), tight leading dimensions), random data, one
warm-up, median of repeats. Prints the same SUMMARY line; writes a JSON.

Usage: torch_gemm.py --threads N --peak-gflops P [--json FILE] [--budget-s 0.3]
"""
import argparse
import json
import statistics
import time

import torch


def step_shapes(widths, batch):
    layers = len(widths) - 1
    shapes = [(f"fwd L{l + 1}", False, True, batch, widths[l + 1], widths[l]) for l in range(layers)]
    for l in reversed(range(layers)):
        if l > 0:
            shapes.append((f"dX  L{l + 1}", False, False, batch, widths[l], widths[l + 1]))
        shapes.append((f"dW  L{l + 1}", True, False, widths[l + 1], widths[l], batch))
    return shapes


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--peak-gflops", type=float, required=True)
    parser.add_argument("--json")
    parser.add_argument("--budget-s", type=float, default=0.3)
    parser.add_argument("--max-repeats", type=int, default=100)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    gen = torch.Generator().manual_seed(5)
    models = [("784x4096x4096x10 b1024", [784, 4096, 4096, 10], 1024),
              ("784x4096x4096x10 b128", [784, 4096, 4096, 10], 128),
              ("784x32x10 b128", [784, 32, 10], 128)]
    name = f"pytorch-{torch.__version__}"
    info = torch.__config__.show().replace("\n", " ")
    print(f"candidate  {name}  (mode lib, {args.threads} threads; torch.mm with out=)")
    print(f"library    torch {torch.__version__}; mkldnn={torch.backends.mkldnn.is_available()} "
          f"mkl={torch.backends.mkl.is_available()}")
    # Verify once against float64 on a small shape of each transpose pair.
    worst = 0.0
    for ta, tb, m, n, k in [(False, True, 67, 45, 83), (False, False, 61, 93, 38), (True, False, 70, 57, 129)]:
        a = torch.rand((k, m) if ta else (m, k), generator=gen) * 2 - 1
        b = torch.rand((n, k) if tb else (k, n), generator=gen) * 2 - 1
        opa, opb = (a.t() if ta else a), (b.t() if tb else b)
        ref = opa.double() @ opb.double()
        got = torch.mm(opa, opb).double()
        worst = max(worst, ((got - ref).abs().max() / ref.abs().max()).item())
    print(f"verify     max rel error {worst:.2e} against float64 torch.mm")
    out = {"candidate": name, "library": "torch", "library_info": info[:400], "mode": "lib",
           "threads": args.threads, "peak_gflops": args.peak_gflops, "verify_max_rel_error": worst, "models": []}
    summary = ""
    for label, widths, batch in models:
        print(f"\n{label:<24} {'gemm':<6} {'M':>5} {'N':>5} {'K':>5} {'GFLOP':>7} {'median ms':>10} "
              f"{'GFLOP/s':>9} {'%peak':>7} {'reps':>4}")
        step_s = step_flop = 0.0
        gemms = []
        for gemm, ta, tb, m, n, k in step_shapes(widths, batch):
            a = torch.rand((k, m) if ta else (m, k), generator=gen) * 2 - 1
            b = torch.rand((n, k) if tb else (k, n), generator=gen) * 2 - 1
            c = torch.empty(m, n)
            opa, opb = (a.t() if ta else a), (b.t() if tb else b)

            def timed():
                t0 = time.perf_counter()
                torch.mm(opa, opb, out=c)
                return time.perf_counter() - t0

            timed()
            first = timed()
            repeats = min(max(int(args.budget_s / max(first, 1e-7)), 3), args.max_repeats)
            times = [first] + [timed() for _ in range(repeats - 1)]
            median = statistics.median(times)
            flop = 2.0 * m * n * k
            gflops = flop / median / 1e9
            step_s += median
            step_flop += flop
            trans = ("T" if ta else "N") + ("T" if tb else "N")
            print(f"{trans:<24} {gemm:<6} {m:5d} {n:5d} {k:5d} {flop / 1e9:7.3f} {median * 1e3:10.3f} "
                  f"{gflops:9.1f} {100 * gflops / args.peak_gflops:6.1f}% {repeats:4d}")
            gemms.append({"gemm": gemm, "trans": trans, "m": m, "n": n, "k": k, "flop": flop, "median_s": median,
                          "min_s": min(times), "max_s": max(times), "repeats": repeats, "gflops": gflops})
        step_gflops = step_flop / step_s / 1e9
        print(f"{'step (sum of medians)':<24} {'':<6} {'':>17} {step_flop / 1e9:7.3f} {step_s * 1e3:10.3f} "
              f"{step_gflops:9.1f} {100 * step_gflops / args.peak_gflops:6.1f}%")
        out["models"].append({"model": label, "gemms": gemms, "step_flop": step_flop, "step_s": step_s,
                              "step_gflops": step_gflops,
                              "step_fraction_of_peak": step_gflops / args.peak_gflops})
        summary += f" | {step_s * 1e3:9.3f} {step_gflops:7.1f} {100 * step_gflops / args.peak_gflops:5.1f}%"
    print(f"\nSUMMARY {name:<28} | {'lib':<4} {args.threads:3d}{summary} | {worst:.1e} | {args.peak_gflops:.0f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f)


if __name__ == "__main__":
    main()
