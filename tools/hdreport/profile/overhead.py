"""How sure a measured overhead is: the recording's cost as a ratio of wall times, with the
interval its runs allow, and a verdict against a target that says when the runs cannot tell.

Wall times of a whole program spread far more than a 5% target: on an H100 host of
2026-11-28 ten plain runs of the same tutorial took 3.06-4.50 s. A ratio of two medians of
two runs each then reads 1.25x or 0.83x by chance, so a verdict needs the spread:

- the ratio is the geometric mean's (the mean of the runs' log times, recorded less plain),
  and its 95% interval is Welch's t on those logs (the two sets may spread differently;
  wall times are skewed, their logs much less);
- `met` when the whole interval is at or under the target, `missed` when it is all above,
  else `cannot tell`, with how many runs of each, at the spread measured, would put the
  interval on one side (`runs_to_tell`; None where the ratio sits on the target).

The runs are taken as independent: the rounds run the variants round-robin, so a slow
drift of the machine spreads over all of them rather than pairing with one.
"""

from __future__ import annotations

import math
import statistics

# Student's t, two-sided 95%, for 1..30 degrees of freedom; beyond, interpolated in 1/df
# towards the normal's 1.96.
T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
       2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
MAX_RUNS_TO_TELL = 1000  # beyond this the answer is "not by wall time on this host"


def t95(df: float) -> float:
    """Student's t for a two-sided 95% interval; between whole degrees of freedom (Welch's
    are fractional) interpolated in 1/df, as t is close to linear in it."""
    if df >= len(T95):
        return 1.96 if df == math.inf else T95[-1] + (1.96 - T95[-1]) * (1 - len(T95) / df)
    low = max(1, math.floor(df))
    if low == df or low >= len(T95):
        return T95[low - 1]
    share = (1 / low - 1 / df) / (1 / low - 1 / (low + 1))
    return T95[low - 1] + share * (T95[low] - T95[low - 1])


def _welch(plain_logs: list, recorded_logs: list) -> tuple[float, float]:
    """(standard error of the difference of the mean logs, Welch's degrees of freedom)."""
    a = statistics.variance(plain_logs) / len(plain_logs)
    b = statistics.variance(recorded_logs) / len(recorded_logs)
    if a + b == 0:
        return 0.0, math.inf
    df = (a + b) ** 2 / (a * a / (len(plain_logs) - 1) + b * b / (len(recorded_logs) - 1))
    return math.sqrt(a + b), df


def _logs(plain: list, recorded: list) -> tuple[list, list] | None:
    """The runs' log times, a failed run (None) left out; None with fewer than two runs of
    either, or a time that is not positive."""
    plain, recorded = [w for w in plain if w is not None], [w for w in recorded if w is not None]
    if len(plain) < 2 or len(recorded) < 2 or min(plain + recorded) <= 0:
        return None
    return [math.log(w) for w in plain], [math.log(w) for w in recorded]


def ratio_interval(plain: list, recorded: list) -> dict | None:
    """{"ratio", "low", "high"}: recorded over plain, the geometric means' ratio and its 95%
    interval, from the runs' wall times (_logs: None where they do not give one)."""
    logs = _logs(plain, recorded)
    if logs is None:
        return None
    pl, rl = logs
    gap = statistics.fmean(rl) - statistics.fmean(pl)
    error, df = _welch(pl, rl)
    half = t95(df) * error
    return {"ratio": math.exp(gap), "low": math.exp(gap - half), "high": math.exp(gap + half)}


def runs_to_tell(plain: list, recorded: list, target: float) -> int | None:
    """How many runs of each, at the spread these runs show, put the interval of their
    ratio wholly on one side of `target` (at least the runs there are); None where the ratio
    is the target's (no count tells them apart) or past MAX_RUNS_TO_TELL."""
    logs = _logs(plain, recorded)
    if logs is None:
        return None
    pl, rl = logs
    distance = abs(statistics.fmean(rl) - statistics.fmean(pl) - math.log(target))
    spread = statistics.variance(pl) + statistics.variance(rl)  # a run of each, their variances
    if distance == 0:
        return None
    for n in range(max(len(pl), len(rl)), MAX_RUNS_TO_TELL + 1):
        if t95(2 * n - 2) * math.sqrt(spread / n) < distance:
            return n
    return None


def judge(plain: list, recorded: list, target: float | None) -> dict:
    """The overhead of `recorded` runs over `plain` ones: the interval (ratio_interval) and,
    with a target, the verdict and the runs that would tell it (runs_to_tell)."""
    interval = ratio_interval(plain, recorded)
    judged: dict = {"ratio_gmean": None, "ratio_interval_95": None}
    if interval:
        judged.update(ratio_gmean=interval["ratio"], ratio_interval_95=[interval["low"], interval["high"]])
    if target is None:
        return judged
    judged["target"] = target
    if not interval:
        judged.update(verdict="cannot tell", why="fewer than two runs of plain or of the recording", runs_to_tell=None)
        return judged
    if interval["high"] <= target:
        judged.update(verdict="met", why=f"the whole 95% interval is at or under {target:.2f}x", runs_to_tell=None)
    elif interval["low"] > target:
        judged.update(verdict="missed", why=f"the whole 95% interval is over {target:.2f}x", runs_to_tell=None)
    else:
        needed = runs_to_tell(plain, recorded, target)
        judged.update(verdict="cannot tell", runs_to_tell=needed,
                      why=f"{target:.2f}x is inside the 95% interval: " +
                          (f"about {needed} runs of each would tell, at this spread" if needed else
                           f"more than {MAX_RUNS_TO_TELL} runs of each would be needed, at this spread"))
    return judged


def described(judged: dict) -> str:
    """'1.08x (0.97-1.21)' and, with a target, its verdict: one table cell."""
    if judged.get("ratio_gmean") is None:
        text = "–"
    else:
        low, high = judged["ratio_interval_95"]
        text = f"{judged['ratio_gmean']:.3f} ({low:.3f}-{high:.3f})"
    return f"{text}: {judged['verdict']}" if "verdict" in judged else text
