"""How sure the summary's figures are.

A run's noise is the stopping rule's own figure, `noise_percent`: how far its median may
be off (docs/report-format.md), against the target it was given (`noise_target_percent`). A
run that stopped at the sampling timeout (`stopped_at_timeout` 1: too few samples, or the
noise still above the target) did not settle, whatever its noise reads then (three samples
can read ±0.2%); a run without `stopped_at_timeout` went through no stopping rule (the
data-parallel steps take a fixed count of steps): whether it settled is unknown, never
counted as settled; a run of one sample has no noise figure at all (noise unknown, not 0). The page opens with the noise by
family (a few lines, not a hundred benchmark names), and every headline built on a run
that did not settle says so beside its number.
"""

from __future__ import annotations

import statistics

from hdreport.core import described
from hdreport.core.markdown import table
from hdreport.core.units import short_number

QUIET_PERCENT = 0.1  # a run this quiet (noise in %) supports a fourth significant digit


def group_of(report: dict, b: dict) -> str:
    """The run's noise group: its family and the values of the params its family's description
    names as splitting its noise (`noise_groups`: pageable copies go through the driver's
    staging, the loader's GPU consumer shares the GPU with its copies, CPU epochs share the
    cores with the loader's workers, demand faults and host gathers are noisier than DMA)."""
    p = b.get("params", {})
    family = p.get("family", "?")
    return "/".join([family] + [str(p[k]) for k in described.noise_groups(report, family) if k in p])


def timed_runs(report: dict):
    """The successful runs that went through the stopping rule (they carry its noise figure)."""
    for b in report["benchmarks"]:
        if b.get("status") == "ok" and b.get("run_type", "iteration") == "iteration" and \
                "noise_percent" in b.get("counters", {}):
            yield b


def noise_unknown(b: dict) -> bool:
    return b.get("counters", {}).get("samples", 2) < 2


def no_rule(b: dict) -> bool:
    """A run that went through no stopping rule (no `stopped_at_timeout`): whether it settled is unknown."""
    return "stopped_at_timeout" not in b.get("counters", {})


def stopped_at_timeout(b: dict) -> bool:
    return b.get("counters", {}).get("stopped_at_timeout", 0) >= 1


def settled(b: dict) -> bool:
    """The stopping rule was met before the timeout (`stopped_at_timeout` 0). Not a run that
    stopped at the timeout (even one whose few samples read within the target), nor one of a
    single sample, nor one that went through no rule (unknown)."""
    return not noise_unknown(b) and not no_rule(b) and not stopped_at_timeout(b)


def _percent(x: float) -> str:
    return f"{x:.1f}%" if x < 10 else f"{x:.0f}%"


def how_sure(runs: list) -> str:
    """A headline's noise: the largest of the runs it rests on, and a warning where one did
    not settle ('noise unknown' where one has a single sample)."""
    runs = [b for b in runs if b is not None and "noise_percent" in b.get("counters", {})]
    if not runs:
        return "noise not recorded"
    unknown = [b for b in runs if noise_unknown(b)]
    if unknown:
        return f"**noise unknown**: {len(unknown)} of its runs took 1 sample"
    worst = max(runs, key=lambda b: b["counters"]["noise_percent"])
    c = worst["counters"]
    if all(settled(b) for b in runs):
        return f"±{_percent(c['noise_percent'])}"
    loose = [b for b in runs if stopped_at_timeout(b)]
    if loose:
        worst_loose = max(loose, key=lambda b: b["counters"]["noise_percent"])
        lc = worst_loose["counters"]
        target = lc.get("noise_target_percent")
        target_text = f"the {target:g}% target" if target else "its target"
        if target is not None and lc["noise_percent"] <= target:  # the rule wanted more samples than it got
            return (f"**noisy**: ±{_percent(c['noise_percent'])}, stopped at the timeout before {target_text} was "
                    f"confirmed ({lc.get('samples', 0):g} samples)")
        return f"**noisy**: ±{_percent(c['noise_percent'])}, above {target_text} at the timeout"
    return f"±{_percent(c['noise_percent'])}, settling unknown (no stopping rule)"


def rate(value: float, runs=()) -> str:
    """A measured rate (samples/s) to the digits its noise supports: three significant digits, a
    fourth where every run it rests on has a known noise within ±0.1%. 9,202,597 samples/s at
    ±0.9% reads 9.20 M: its last four digits are noise. A rate of no run (a derived row's) gets three."""
    runs = [b for b in runs if b is not None]
    quiet = bool(runs) and all(not noise_unknown(b) and b.get("counters", {}).get("noise_percent", 100)
                               <= QUIET_PERCENT for b in runs)
    return short_number(value, 4 if quiet else 3)


def noise_note(runs: list) -> str:
    """' (noisy: …)' after a headline resting on a run that did not settle, ' (…, settling unknown …)'
    after one resting on a run that went through no stopping rule, else ''."""
    sure = how_sure(runs)
    if sure.startswith("±") and "settling unknown" in sure:
        return f" ({sure})"
    return "" if sure.startswith("±") or sure == "noise not recorded" else f" ({sure.replace('**', '')})"


def by_family(report: dict) -> list[str]:
    """A table of the groups where runs did not settle (runs, stopped at the timeout, median and
    worst noise, runs of one sample; runs of no stopping rule where there are any) and one line
    naming the groups that all settled."""
    groups: dict[str, list] = {}
    for b in timed_runs(report):
        groups.setdefault(group_of(report, b), []).append(b)
    if not groups:
        return []
    any_no_rule = any(no_rule(b) and not noise_unknown(b) for runs in groups.values() for b in runs)
    rows, calm = [], []
    for group, runs in sorted(groups.items()):
        if all(settled(b) for b in runs):
            calm.append(f"`{group}`")
            continue
        timed_out = sum(stopped_at_timeout(b) for b in runs)
        unruled = sum(no_rule(b) and not noise_unknown(b) for b in runs)
        known = [b["counters"]["noise_percent"] for b in runs if not noise_unknown(b)]
        single = sum(noise_unknown(b) for b in runs)
        worst = max((b for b in runs if not noise_unknown(b)), key=lambda b: b["counters"]["noise_percent"],
                    default=None)
        rows.append([f"`{group}`", str(len(runs)), f"**{timed_out}**" if timed_out else "–"] +
                    ([str(unruled) if unruled else "–"] if any_no_rule else []) +
                    [_percent(statistics.median(known)) if known else "–",
                     _percent(worst["counters"]["noise_percent"]) +
                     (f" ({worst['counters']['samples']:g} samples)" if "samples" in worst["counters"] else "")
                     if worst else "–",
                     str(single) if single else "–"])
    lines = []
    if rows:
        total = sum(stopped_at_timeout(b) for runs in groups.values() for b in runs)
        unknown = sum(no_rule(b) and not noise_unknown(b) for runs in groups.values() for b in runs)
        said = []
        if total:
            said.append(f"{total} run{'s' if total != 1 else ''} stopped at the sampling timeout "
                        "(`--hdbench_max_seconds`) before the stopping rule was met (too few samples, or the noise "
                        "above its target): they did not settle")
        if unknown:
            said.append(f"{unknown} run{'s' if unknown != 1 else ''} went through no stopping rule (a fixed count "
                        "of steps): whether they settled is unknown")
        single = sum(noise_unknown(b) for runs in groups.values() for b in runs)
        if single and not said:
            said.append(f"{single} run{'s' if single != 1 else ''} took one sample: noise unknown")
        lines += ["; ".join(said) + "; by family:", ""]
        lines += table(["family", "runs", "stopped at the timeout"] +
                       (["no stopping rule (settling unknown)"] if any_no_rule else []) +
                       ["median noise", "worst noise", "runs of 1 sample (noise unknown)"], rows)
        lines.append("")
    if calm:
        lines.append(f"Settled within their target: {', '.join(calm)}.")
    return lines
