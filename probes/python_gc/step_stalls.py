#!/usr/bin/env python3
"""Runs a PyTorch training script and says which of its steps stalled and whether Python's
garbage collector was running in them: a plain run's answer to "are the stalls a profile
shows the recording's, or the program's own?"

A step is the time from one `.item()` to the next (the reads tutorial-style loops make every
step); a stall is a step over --factor times the median (5, as hdbench_profile's
`model.step_spread`). Every collection is timed with `gc.callbacks`, by generation.

    python3 probes/python_gc/step_stalls.py SCRIPT [ARGS...] [-- --factor 5 --json OUT]

For instance, on a 2-vCPU VM (PyTorch 1.13, CPU), `examples/fashion_mnist/tutorial_style.py
--device cpu --steps 2000 --synthetic` had 5 stalls of 33-40 ms, each holding a full (gen 2)
collection of 28-35 ms, 435 steps apart (two runs): an H100 host's profiled run of the same script
stalled in clusters about 460 steps apart (reports/reference/h100-2026-11-26b/README.md).
"""

from __future__ import annotations

import argparse
import bisect
import gc
import json
import runpy
import statistics
import sys
import time
from pathlib import Path


def parse(argv: list[str]) -> tuple[list[str], argparse.Namespace]:
    script_args, own = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    parser = argparse.ArgumentParser(prog="step_stalls.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--factor", type=float, default=5.0, help="a stall is a step over this x the median")
    parser.add_argument("--json", help="also write the result here")
    args = parser.parse_args(own)
    if not script_args or not Path(script_args[0]).is_file():
        parser.error(f"give the training script to run first (got {script_args[:1] or 'nothing'})")
    if args.factor <= 1:
        parser.error(f"--factor must be above 1 (got {args.factor})")
    return script_args, args


def stalls(reads: list[float], collections: list[tuple], factor: float) -> dict:
    """The steps between reads, the stalls among them and the collections inside each."""
    steps = [b - a for a, b in zip(reads, reads[1:])]
    out = {"steps": len(steps), "collections": {}, "stalls": []}
    for generation in sorted({g for g, _, _ in collections}):
        pauses = [d for g, _, d in collections if g == generation]
        out["collections"][f"gen{generation}"] = {"count": len(pauses), "total_ms": sum(pauses) * 1e3,
                                                  "max_ms": max(pauses) * 1e3,
                                                  "at_steps": [bisect.bisect(reads, s) - 1 for g, s, _ in collections
                                                               if g == generation] if generation == 2 else []}
    if not steps:
        return out
    median = statistics.median(steps)
    out["median_ms"] = median * 1e3
    for i, t in enumerate(steps):
        if t > factor * median:
            inside = [(g, d) for g, s, d in collections if reads[i] <= s < reads[i + 1]]
            out["stalls"].append({"step": i, "ms": t * 1e3, "gc_ms": sum(d for _, d in inside) * 1e3,
                                  "gc_generations": sorted({g for g, _ in inside})})
    return out


def main(argv: list[str]) -> int:
    script_args, args = parse(argv)
    import torch  # the reads are Tensor.item: timed by wrapping it

    collections, reads, started = [], [], {}

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            started["at"] = time.perf_counter()
        elif "at" in started:
            collections.append((info["generation"], started["at"], time.perf_counter() - started["at"]))

    item = torch.Tensor.item

    def timed_item(self):
        value = item(self)
        reads.append(time.perf_counter())
        return value

    gc.callbacks.append(on_gc)
    torch.Tensor.item = timed_item
    sys.argv = list(script_args)
    sys.path.insert(0, str(Path(script_args[0]).resolve().parent))
    code = 0
    try:
        runpy.run_path(script_args[0], run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        torch.Tensor.item = item
        gc.callbacks.remove(on_gc)
    result = stalls(reads, collections, args.factor)
    print(f"step_stalls: {result['steps']} steps, median {result.get('median_ms', 0):.3f} ms; "
          f"{len(result['stalls'])} over {args.factor:g}x it", file=sys.stderr)
    for s in result["stalls"]:
        held = f"{s['gc_ms']:.1f} ms of gen {'/'.join(map(str, s['gc_generations']))} collection inside" \
            if s["gc_generations"] else "no collection inside"
        print(f"  step {s['step']}: {s['ms']:.1f} ms, {held}", file=sys.stderr)
    for name, c in result["collections"].items():
        at = f", at steps {c['at_steps']}" if c["at_steps"] else ""
        print(f"  {name}: {c['count']} collections, {c['total_ms']:.1f} ms, longest {c['max_ms']:.2f} ms{at}",
              file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
