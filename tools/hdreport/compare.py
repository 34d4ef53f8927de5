"""`compare BASE NEW`: how each benchmark's time changed between two hdbench reports.

Benchmarks are paired by run name. With repetitions (--benchmark_repetitions), the
per-repetition times are compared with a two-sided Mann-Whitney U test, as Google's
compare.py does; a change counts as a regression only when the time grew by more
than the threshold and, where the test could run, the test says the difference is
real (p < alpha). Prints a table and the geometric mean of the ratios.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import lru_cache

from hdreport.core.schema import ReportError


@dataclass
class Comparison:
    name: str
    base_time: float  # median of the repetitions, in the report's time unit
    new_time: float
    unit: str
    ratio: float  # new / base: above 1 is slower
    p_value: float | None  # None with fewer than two repetitions on either side
    regressed: bool


def mann_whitney_u_p_value(a: list[float], b: list[float]) -> float:
    """Two-sided p-value of the Mann-Whitney U test. Like SciPy's default (which
    Google's compare.py calls): exact when there are no ties and one sample has at
    most 8 values, otherwise the normal approximation with tie and continuity
    corrections."""
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        raise ValueError("both samples need at least one value")
    combined = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    ranks = [0.0] * len(combined)
    tie_term = 0.0
    i = 0
    while i < len(combined):
        j = i
        while j + 1 < len(combined) and combined[j + 1][0] == combined[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2 + 1  # average rank, 1-based
        t = j - i + 1
        tie_term += t ** 3 - t
        i = j + 1
    rank_sum_a = sum(r for r, (_, side) in zip(ranks, combined) if side == 0)
    u1 = rank_sum_a - n1 * (n1 + 1) / 2
    u_big = max(u1, n1 * n2 - u1)
    if tie_term == 0 and min(n1, n2) <= 8 and max(n1, n2) <= 200:
        # P(U >= u_big) from the exact distribution of U under the null hypothesis.
        total = math.comb(n1 + n2, n1)
        tail = sum(_u_count(n1, n2, u) for u in range(math.ceil(u_big), n1 * n2 + 1))
        return min(1.0, 2.0 * tail / total)
    n = n1 + n2
    sigma = math.sqrt(n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1))))
    if sigma == 0:
        return 1.0
    z = (u_big - n1 * n2 / 2.0 - 0.5) / sigma
    return min(1.0, math.erfc(z / math.sqrt(2.0)))


@lru_cache(maxsize=None)
def _u_count(n1: int, n2: int, u: int) -> int:
    """How many orderings of n1 + n2 distinct values give the statistic U = u."""
    if u < 0 or u > n1 * n2:
        return 0
    if n1 == 0 or n2 == 0:
        return 1 if u == 0 else 0
    # The largest value belongs to the first sample (it beats all n2) or to the second.
    return _u_count(n1 - 1, n2, u - n2) + _u_count(n1, n2 - 1, u)


# Google Benchmark's time units, in nanoseconds.
UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def iteration_times(report: dict) -> dict[str, tuple[list[float], str]]:
    """run name -> (real_time of each ok repetition, time unit). A time that is not a positive
    number in a known unit says the report is damaged: a ratio against it would be made up."""
    times: dict[str, tuple[list[float], str]] = {}
    for b in report["benchmarks"]:
        if b.get("run_type", "iteration") != "iteration" or b.get("status", "ok") != "ok":
            continue
        if not isinstance(b.get("real_time"), (int, float)):
            continue
        name = b.get("run_name", b.get("name"))
        unit = b.get("time_unit", "ns")
        if unit not in UNIT_NS:
            raise ReportError(f"{name}: time_unit {unit!r} is none of {', '.join(UNIT_NS)}")
        if not b["real_time"] > 0:
            raise ReportError(f"{name}: real_time {b['real_time']!r} is not a positive time")
        kept = times.setdefault(name, ([], unit))
        kept[0].append(float(b["real_time"]) * UNIT_NS[unit] / UNIT_NS[kept[1]])  # in the first repetition's unit
    return times


def machine_of(report: dict) -> tuple:
    system = report["context"]["hdbench"].get("system", {})
    return (report["context"].get("host_name"), system.get("host", {}).get("cpu_model"),
            tuple(g.get("name") for g in system.get("gpus", [])))


def compare(base: dict, new: dict, threshold_percent: float, alpha: float):
    """The comparisons of benchmarks in both reports, and the names in only one."""
    base_times, new_times = iteration_times(base), iteration_times(new)
    rows = []
    for name in sorted(base_times.keys() & new_times.keys()):
        (b, unit), (n, new_unit) = base_times[name], new_times[name]
        n = [t * UNIT_NS[new_unit] / UNIT_NS[unit] for t in n]  # NEW in BASE's unit: a run timed in ms beside one in µs
        base_time, new_time = statistics.median(b), statistics.median(n)
        ratio = new_time / base_time
        p = mann_whitney_u_p_value(b, n) if len(b) >= 2 and len(n) >= 2 else None
        slower = ratio > 1.0 + threshold_percent / 100.0
        rows.append(Comparison(name, base_time, new_time, unit, ratio, p, slower and (p is None or p < alpha)))
    only_base = sorted(base_times.keys() - new_times.keys())
    only_new = sorted(new_times.keys() - base_times.keys())
    return rows, only_base, only_new


def geometric_mean(ratios: list[float]) -> float | None:
    ratios = [r for r in ratios if r > 0]
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else None


def format_report(rows, only_base, only_new, base: dict, new: dict, threshold_percent: float, alpha: float) -> str:
    lines = []
    if machine_of(base) != machine_of(new):
        lines.append(f"note: the reports come from different machines: {machine_of(base)} vs {machine_of(new)}")
    width = max([len(r.name) for r in rows] + [9])
    lines.append(f"{'benchmark':<{width}}  {'base':>12}  {'new':>12}  {'new/base':>8}  {'p-value':>8}")
    for r in rows:
        p = "-" if r.p_value is None else f"{r.p_value:.4f}"
        flag = "  REGRESSION" if r.regressed else ""
        lines.append(f"{r.name:<{width}}  {r.base_time:>10.3f}{r.unit:>2}  {r.new_time:>10.3f}{r.unit:>2}  "
                     f"{r.ratio:>8.3f}  {p:>8}{flag}")
    gm = geometric_mean([r.ratio for r in rows])
    if gm is not None:
        lines.append(f"geometric mean of new/base over {len(rows)} benchmarks: {gm:.4f}")
    for label, names in (("only in BASE", only_base), ("only in NEW", only_new)):
        if names:
            lines.append(f"{label} ({len(names)}): " + ", ".join(names[:10]) + (" …" if len(names) > 10 else ""))
    regressed = [r for r in rows if r.regressed]
    test = f" and p < {alpha}" if any(r.p_value is not None for r in rows) else ""
    lines.append(f"{len(regressed)} regression(s) beyond {threshold_percent:g}% slower{test}")
    return "\n".join(lines)
