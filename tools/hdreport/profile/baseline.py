"""The ceilings `hdbench_profile` judges a program's copies against: what this machine
measured in an hdbench report (the baseline), its `transfer` per-copy runs on the copy
engine, H2D and D2H, from pageable and pinned memory.

A copy class's ceiling is the baseline's GB/s for the same direction and host memory kind,
interpolated linearly in log(bytes) between the two nearest measured sizes (clamped at the
largest; below the smallest, the smallest copy's time: a copy that small costs its fixed
cost, so its GB/s shrinks with its bytes). GB/s is the report's `bandwidth_GB/s`,
bytes over the median sample (`real_time`), as the summary reads it. A baseline copy is
timed from before its start to after its end, its fixed cost (some 4 µs on an H100)
included; a class timed by its copies' DMA records alone (asynchronous copies from pinned
memory) leaves that cost out, and on an H100 host an all-fixed tutorial's 786 KiB batches
ran at 45.3 GB/s by their records where the baseline's copies of that size ran 38.9: such a
class is held against the rate bytes flow at between the two measured sizes around it, its
increment in bytes over its increment in time (`dma_gbps`), which leaves the fixed cost out
the same way. The per-copy overhead
of a direction is the time of its smallest pinned copy: what a copy costs beyond its bytes.
The host memcpy rate (what pinning a batch on the training thread costs) comes from the
baseline's `host_memcpy` runs with one thread, interpolated the same way, when it has them.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

from hdreport.core.markdown import machine_name
from hdreport.core.schema import ReportError, load, ok_runs
from hdreport.core.units import binary_unit, gbps_text

DIRECTIONS = ("h2d", "d2h")
HOST_KINDS = ("pageable", "pinned")  # CUPTI's kinds that the baseline measures under the same name


def copy_runs(report: dict) -> list[dict]:
    """The baseline's usable runs: transfer, per_copy, copy engine, H2D or D2H, pageable or pinned."""
    runs = []
    for b in ok_runs(report, "transfer"):
        p = b["params"]
        if (p.get("engine") == "copy" and p.get("variant") == "per_copy" and p.get("direction") in DIRECTIONS
                and p.get("memory") in HOST_KINDS and isinstance(p.get("bytes"), int) and p["bytes"] > 0
                and b.get("counters", {}).get("bandwidth_GB/s", 0) > 0):
            runs.append(b)
    return runs


def is_profile_report(report: dict) -> bool:
    return "profile" in report or report.get("context", {}).get("hdbench", {}).get("program") == "hdbench_profile"


def check_baseline(path: str) -> dict:
    """The report at `path` if it can serve as a baseline; ReportError (one line naming the file) if not."""
    report = load(path)
    if is_profile_report(report):
        raise ReportError(f"{path}: a profile report, not a baseline (give a report of hdbench's transfer family)")
    if not copy_runs(report):
        raise ReportError(f"{path}: no successful transfer copies (H2D/D2H, pageable or pinned, per copy) to take "
                          "ceilings from; run hdbench --hdbench_families=transfer --hdbench_memory=pageable,pinned")
    return report


def find_newest(folder: str | Path) -> tuple[str, dict] | None:
    """The newest `folder/*.json` (not in a subfolder such as reference/) that is a baseline."""
    paths = sorted(Path(folder).glob("*.json"), key=lambda p: p.stat().st_mtime if p.is_file() else 0,
                   reverse=True)
    for path in paths:
        try:
            return str(path), check_baseline(str(path))
        except ReportError:
            continue  # a profile report, a report of other families, or a broken file: not a baseline
    return None


def describe_machine(report: dict) -> str:
    return f"{report['context'].get('host_name', '?')}: {machine_name(report['context'])}"


def rate_text(gbps: float) -> str:
    """A rate as read, with its unit: one decimal from 1 GB/s up, two significant digits
    below (in MB/s under 0.01 GB/s)."""
    return gbps_text(gbps, lambda v: f"{v:.1f}" if v >= 1 else f"{v:.2g}")


def size_short(n: float) -> str:
    """A size, mean sizes included, with three significant digits: 3.34 MiB, 512 B, 1000 KiB."""
    value, unit = binary_unit(n)
    return f"{value:.0f} {unit}" if value >= 100 else f"{value:.3g} {unit}"


def time_short(t: float) -> str:
    """A copy's time with three significant digits: 5.73 µs, 1.34 ms."""
    return f"{t * 1e6:.3g} µs" if t < 1e-3 else f"{t * 1e3:.3g} ms"


def interpolate(points: list[tuple[int, float]], size: float) -> float:
    """GB/s at `size`, linear in log(size) between the measured points, clamped at the ends."""
    if size <= points[0][0]:
        return points[0][1]
    if size >= points[-1][0]:
        return points[-1][1]
    i = next(i for i in range(1, len(points)) if points[i][0] >= size)
    (s0, g0), (s1, g1) = points[i - 1], points[i]
    return g0 + (math.log(size) - math.log(s0)) / (math.log(s1) - math.log(s0)) * (g1 - g0)


class Ceilings:
    """GB/s per (direction, host memory kind) and size, from a baseline report (or none)."""

    def __init__(self, report: dict | None = None):
        self.points: dict[tuple[str, str], list[tuple[int, float]]] = {}
        self.memcpy_points: list[tuple[int, float]] = []
        if report is None:
            return
        memcpy: dict[int, list[float]] = {}
        for b in ok_runs(report, "host_memcpy"):
            p = b.get("params", {})
            rate = b.get("counters", {}).get("bandwidth_GB/s", 0)
            if p.get("threads") == 1 and isinstance(p.get("bytes"), int) and p["bytes"] > 0 and rate > 0:
                memcpy.setdefault(p["bytes"], []).append(rate)
        self.memcpy_points = [(n, statistics.median(r)) for n, r in sorted(memcpy.items())]
        runs = copy_runs(report)
        # One GPU's runs: the lowest index measured (a copy class is not split by device).
        device = min((b["params"].get("device", 0) for b in runs), default=0)
        by_size: dict[tuple[str, str, int], list[float]] = {}
        for b in runs:
            p = b["params"]
            if p.get("device", 0) == device:
                key = (p["direction"], p["memory"], p["bytes"])
                by_size.setdefault(key, []).append(b["counters"]["bandwidth_GB/s"])
        for (direction, memory, size), rates in sorted(by_size.items()):
            self.points.setdefault((direction, memory), []).append((size, statistics.median(rates)))

    def __bool__(self) -> bool:
        return bool(self.points)

    def why_none(self, direction: str, kind: str) -> str:
        """Why a class of this direction and host memory kind has no ceiling ("" when it has one)."""
        if not self.points:
            return "no baseline: fractions and savings need one"
        if direction not in DIRECTIONS:
            return f"the baseline measures host-device copies only, not {direction.upper()}"
        if kind == "managed":
            return "managed memory: the baseline measures no managed copies (pages migrate on demand)"
        if kind not in HOST_KINDS:
            return f"host memory of kind {kind}: the baseline measures pageable and pinned memory only"
        if (direction, kind) not in self.points:
            return f"the baseline has no {kind} {direction.upper()} copies"
        return ""

    def gbps(self, direction: str, kind: str, size: float) -> tuple[float | None, str]:
        """(GB/s, where it comes from) at `size` bytes, or (None, why not)."""
        why = self.why_none(direction, kind)
        if why:
            return None, why
        points = self.points[(direction, kind)]
        what = f"baseline {kind} {direction.upper()} per-copy runs"
        clamp = ""
        if size < points[0][0]:
            # Below the smallest size measured a copy's time is its fixed cost: no faster than the
            # smallest copy's, its rate shrinks with its bytes (a 4-byte read held against a 4 KiB
            # copy's GB/s showed "<1% of ceiling" for a call five times the baseline's).
            s, g = points[0]
            scaled = g * size / s
            return scaled, (f"{what}: {rate_text(scaled)}, {size_short(size)} in the time of the smallest "
                            f"size measured, {size_short(s)} at {rate_text(g)} ({time_short(s / (g * 1e9))}): "
                            "below it a copy's time is its fixed cost")
        if size == points[0][0]:
            (s, g), clamp = points[0], "smallest"
        elif size >= points[-1][0]:
            (s, g), clamp = points[-1], "largest"
        else:
            i = next(i for i in range(1, len(points)) if points[i][0] >= size)
            (s0, g0), (s1, g1) = points[i - 1], points[i]
            if size == s1:
                return g1, f"{what}: {rate_text(g1)} measured at {size_short(s1)}"
            g = interpolate(points, size)
            return g, (f"{what}: {rate_text(g)} interpolated in log(size) at {size_short(size)} between "
                       f"{size_short(s0)} ({rate_text(g0)}) and {size_short(s1)} ({rate_text(g1)})")
        if size == s:
            return g, f"{what}: {rate_text(g)} measured at {size_short(s)}"
        return g, (f"{what}: {rate_text(g)} at {size_short(s)}, the {clamp} size measured "
                   f"({size_short(size)} clamped to it)")

    def dma_gbps(self, direction: str, kind: str, size: float) -> tuple[float | None, str]:
        """(GB/s, where it comes from) for copies timed by their DMA records alone: the rate
        between the two measured sizes around `size` (the first or last two past the ends),
        bytes added over time added, so that each copy's fixed cost is left out on both
        sides; the per-copy rate (gbps) where two sizes do not give one."""
        why = self.why_none(direction, kind)
        points = [] if why else self.points[(direction, kind)]
        if len(points) < 2:
            return self.gbps(direction, kind, size)
        i = next((i for i in range(1, len(points)) if points[i][0] >= size), len(points) - 1)
        (s0, g0), (s1, g1) = points[i - 1], points[i]
        t0, t1 = s0 / (g0 * 1e9), s1 / (g1 * 1e9)
        if t1 <= t0:
            return self.gbps(direction, kind, size)
        rate = (s1 - s0) / (t1 - t0) / 1e9
        return rate, (f"baseline {kind} {direction.upper()} per-copy runs: {rate_text(rate)}, the rate bytes "
                      f"flow at between {size_short(s0)} ({time_short(t0)}) and {size_short(s1)} "
                      f"({time_short(t1)}): each copy's fixed cost left out, as a DMA record leaves it out")

    def memcpy_gbps(self, size: float) -> float | None:
        """One thread's host memcpy GB/s at `size`, or None when the baseline did not measure it."""
        return interpolate(self.memcpy_points, size) if self.memcpy_points else None

    def memcpy_source(self) -> str:
        if not self.memcpy_points:
            return ""
        sizes = ", ".join(size_short(n) for n, _ in self.memcpy_points)
        return f"the baseline's one-thread host memcpy runs ({sizes})"

    def per_copy_overhead_s(self, direction: str) -> float | None:
        """Seconds a copy costs beyond its bytes: the baseline's smallest pinned copy in `direction`."""
        points = self.points.get((direction, "pinned"))
        if not points:
            return None
        size, g = points[0]
        return size / (g * 1e9)
