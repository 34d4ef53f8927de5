#!/usr/bin/env python3
"""How fast one GEMM shape runs in each operand layout (issue 41: where the large tf32 step's
time goes). On an H100 the plan of hdbench's 784x4096x4096x4096x10 step at batch 8192 timed
its tf32 GEMMs (the step's label, reports/reference/h100-2026-11-26b/roof/gpu-large.json) at

    forward          Y = X · Wᵀ      ~780 us of GEMM    both operands K-major
    input gradient   dX = dY · W     ~760 us            one K-major
    weight gradient  dW = dYᵀ · X    ~1,025 us          neither K-major

for 275 GFLOP each, where the 8192³ product ran at 420 TFLOP/s (654 us for these). The
guess to settle: Hopper's tf32 tensor-core path wants both operands K-major (contiguous
along the summed dimension; 16-bit types can be transposed in shared memory, tf32 cannot),
so the weight gradient, summed over the batch that is the slow dimension of both dY and X,
is the slow one; a transposed copy of dY and X (batch contiguous) would make it K-major
at the price of the copies. bf16 should not care.

For each shape (M, N, K) and dtype this times A (M×K) · B (K×N) with A and B each stored
K-major (A row-major, B given as a transposed view of an N×K tensor) or MN-major (A as a
transposed view of K×M, B row-major), four layouts, on one CUDA stream with events: the
median of --repeats products after a warm-up, TFLOP/s, and the fraction of the square
product's rate, the best of its four layouts in the same dtype (`--square`), as a ratio
(`x_square_best`: not a bound, a shape may beat it). Each layout's product is checked
against the first's before it is timed (they are the same numbers in another memory order).
Prints a table and writes --out (JSON). Without CUDA (--device cpu) it runs the same for
its own tests, at the sizes given.

    python3 baselines/pytorch/gemm_layouts.py [--shapes 4096x8192x4096,...] [--dtypes tf32,bf16]
                                              [--square 8192] [--repeats 20] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

# The step's GEMMs at batch 8192 (M×N×K of the row-major products above): a hidden layer's
# forward (B×out from in), weight gradient (out×in from B) and input gradient (B×in from out).
DEFAULT_SHAPES = "8192x4096x4096,4096x4096x8192,784x4096x8192"
LAYOUTS = (("K", "K"), ("K", "MN"), ("MN", "K"), ("MN", "MN"))  # (A, B): which dimension is contiguous
ROLE = {("K", "K"): "forward (X·Wᵀ)", ("K", "MN"): "input gradient (dY·W)", ("MN", "K"): "",
        ("MN", "MN"): "weight gradient (dYᵀ·X)"}


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="gemm_layouts.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", default=DEFAULT_SHAPES, help=f"MxNxK, comma-separated (default {DEFAULT_SHAPES})")
    parser.add_argument("--dtypes", default="tf32,bf16", help="tf32, bf16, fp32 (default tf32,bf16)")
    parser.add_argument("--square", type=int, default=8192, help="the square product rates are held against (8192)")
    parser.add_argument("--repeats", type=int, default=20, help="timed products a layout (default 20)")
    parser.add_argument("--device", default="cuda", help="cuda (default) or cpu (for the tests)")
    parser.add_argument("--out", help="JSON file to write")
    args = parser.parse_args(argv)
    try:
        args.shapes = [tuple(int(v) for v in s.lower().split("x")) for s in args.shapes.split(",") if s]
    except ValueError:
        parser.error(f"--shapes={args.shapes}: MxNxK, comma-separated whole numbers")
    if not args.shapes or any(len(s) != 3 or min(s) < 1 for s in args.shapes):
        parser.error("--shapes: MxNxK, each at least 1")
    args.dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    if not args.dtypes or any(d not in ("tf32", "bf16", "fp32") for d in args.dtypes):
        parser.error(f"--dtypes: tf32, bf16 or fp32, not {','.join(args.dtypes)}")
    if args.square < 1 or not 1 <= args.repeats <= 10_000:
        parser.error("--square: at least 1; --repeats: 1 to 10000")
    return args


def operands(torch, m: int, n: int, k: int, layout: tuple, dtype, device):
    """A (m×k) and B (k×n) with the contiguous dimension `layout` says, filled the same way
    in every layout (seeded), so their products are the same numbers."""
    g = torch.Generator(device="cpu").manual_seed(1)
    a = torch.randn(m, k, generator=g) / k ** 0.5
    b = torch.randn(k, n, generator=g)
    a = a.to(device, dtype).contiguous() if layout[0] == "K" else a.t().contiguous().to(device, dtype).t()
    b = b.t().contiguous().to(device, dtype).t() if layout[1] == "K" else b.to(device, dtype).contiguous()
    return a, b


def time_product(torch, a, b, repeats: int, cuda: bool) -> float:
    """Median seconds of a · b, after one warm-up."""
    out = torch.matmul(a, b)
    times = []
    for _ in range(repeats):
        if cuda:
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            torch.matmul(a, b, out=out)
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) / 1e3)
        else:
            t = time.perf_counter()
            torch.matmul(a, b, out=out)
            times.append(time.perf_counter() - t)
    return statistics.median(times)


def measure(args) -> dict:
    import torch

    cuda = args.device == "cuda"
    if cuda and not torch.cuda.is_available():
        raise SystemExit("gemm_layouts.py: CUDA is not available to PyTorch here (--device cpu runs without it)")
    rows = []
    for name in args.dtypes:
        torch.backends.cuda.matmul.allow_tf32 = name == "tf32"
        dtype = torch.bfloat16 if name == "bf16" else torch.float32
        square = {}
        for layout in LAYOUTS:  # the square product in each layout: what a shape is held against
            s = args.square
            a, b = operands(torch, s, s, s, layout, dtype, args.device)
            square[layout] = 2 * s ** 3 / time_product(torch, a, b, max(3, args.repeats // 4), cuda) / 1e12
            del a, b
        best_square = max(square.values())
        for m, n, k in args.shapes:
            first = None
            for layout in LAYOUTS:
                a, b = operands(torch, m, n, k, layout, dtype, args.device)
                product = torch.matmul(a, b).float()
                if first is None:
                    first = product
                # the same numbers, summed in another order: within the dtype's rounding
                tolerance = 5e-2 if name != "fp32" else 1e-3
                error = ((product - first).abs().max() / first.abs().max().clamp(min=1e-30)).item()
                seconds = time_product(torch, a, b, args.repeats, cuda)
                tflops = 2 * m * n * k / seconds / 1e12
                rows.append({"dtype": name, "m": m, "n": n, "k": k, "a": layout[0], "b": layout[1],
                             "role": ROLE[layout], "us": seconds * 1e6, "TFLOP/s": tflops,
                             "x_square_best": tflops / best_square, "relative_error": error,
                             "same_product": error <= tolerance})
                del a, b, product
        for layout, rate in square.items():
            rows.append({"dtype": name, "m": args.square, "n": args.square, "k": args.square, "a": layout[0],
                         "b": layout[1], "role": "square", "TFLOP/s": rate, "x_square_best": rate / best_square})
    return {"device": torch.cuda.get_device_name() if cuda else "cpu", "torch": torch.__version__,
            "square": args.square, "repeats": args.repeats, "rows": rows}


def table(result: dict) -> str:
    lines = ["| dtype | M×N×K | A | B | role | µs | TFLOP/s | × the square's best |",
             "|---|---|---|---|---|---:|---:|---:|"]
    for r in result["rows"]:
        us = f"{r['us']:,.1f}" if "us" in r else ""
        lines.append(f"| {r['dtype']} | {r['m']}×{r['n']}×{r['k']} | {r['a']} | {r['b']} | {r['role']} | {us} | "
                     f"{r['TFLOP/s']:.4g} | {r['x_square_best']:.2f} |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError as e:
        print(f"gemm_layouts.py: PyTorch cannot be imported by {sys.executable}: {e}", file=sys.stderr)
        return 1
    result = measure(args)
    print(f"{result['device']}, PyTorch {result['torch']}, median of {result['repeats']}; A and B: the dimension "
          "each is contiguous along (K: the summed one)")
    print(table(result))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)
    wrong = [r for r in result["rows"] if r.get("same_product") is False]
    if wrong:
        print(f"gemm_layouts.py: {len(wrong)} layout(s) gave another product: "
              + ", ".join(f"{r['dtype']} {r['m']}x{r['n']}x{r['k']} A {r['a']} B {r['b']}" for r in wrong),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
