"""How sure the summary's figures are.

A run's noise is the stopping rule's own figure, `noise_percent`: how far its median may
be off (reports/README.md), against the target it was given (`noise_target_percent`). A
run that stopped at the sampling timeout above its target did not settle; a run of one
sample has no noise figure at all (noise unknown, not 0). The page opens with the noise by
family (a few lines, not a hundred benchmark names), and every headline built on a run
that did not settle says so beside its number.
"""

from __future__ import annotations

import statistics

from hdreport.markdown import table

# The params that split a family into groups whose noise differs for one cause: pageable
# copies go through the driver's staging, the loader's GPU consumer shares the GPU with
# its copies, CPU epochs share the cores with the loader's workers.
GROUP_BY = {"transfer": ("memory",), "streams": ("memory",), "loader": ("consumer",),
            "mlp": ("variant", "processor"), "dataparallel": ("variant",),
            # demand faults, host time of small copies and host gathers are noisier than DMA copies
            "latency": ("method",), "managed": ("variant",), "batch_copy": ("method",), "strided": ("method",)}


def group_of(b: dict) -> str:
    p = b.get("params", {})
    family = p.get("family", "?")
    return "/".join([family] + [str(p[k]) for k in GROUP_BY.get(family, ()) if k in p])


def timed_runs(report: dict):
    """The successful runs that went through the stopping rule (they carry its noise figure)."""
    for b in report["benchmarks"]:
        if b.get("status") == "ok" and b.get("run_type", "iteration") == "iteration" and \
                "noise_percent" in b.get("counters", {}):
            yield b


def noise_unknown(b: dict) -> bool:
    return b.get("counters", {}).get("samples", 2) < 2


def settled(b: dict) -> bool:
    """Within its noise target, or stopped for another reason than the timeout."""
    c = b.get("counters", {})
    if noise_unknown(b):
        return False
    return c.get("stopped_at_timeout", 0) < 1 or c["noise_percent"] <= c.get("noise_target_percent", float("inf"))


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
    target = c.get("noise_target_percent")
    target_text = f" the {target:g}% target" if target else " its target"
    return f"**noisy**: ±{_percent(c['noise_percent'])}, above{target_text} at the timeout"


def noise_note(runs: list) -> str:
    """' Noisy: …' after a headline resting on a run that did not settle, else ''."""
    sure = how_sure(runs)
    return "" if sure.startswith("±") or sure == "noise not recorded" else f" ({sure.replace('**', '')})"


def by_family(report: dict) -> list[str]:
    """A table of the groups where runs did not settle (runs, at the timeout, median and
    worst noise, runs of one sample) and one line naming the groups that all settled."""
    groups: dict[str, list] = {}
    for b in timed_runs(report):
        groups.setdefault(group_of(b), []).append(b)
    if not groups:
        return []
    rows, calm = [], []
    for group, runs in sorted(groups.items()):
        loose = [b for b in runs if not settled(b)]
        if not loose:
            calm.append(f"`{group}`")
            continue
        known = [b["counters"]["noise_percent"] for b in runs if not noise_unknown(b)]
        single = sum(noise_unknown(b) for b in runs)
        worst = max((b for b in runs if not noise_unknown(b)), key=lambda b: b["counters"]["noise_percent"],
                    default=None)
        rows.append([f"`{group}`", str(len(runs)), f"**{len(loose)}**",
                     _percent(statistics.median(known)) if known else "–",
                     _percent(worst["counters"]["noise_percent"]) +
                     (f" ({worst['counters']['samples']:g} samples)" if "samples" in worst["counters"] else "")
                     if worst else "–",
                     str(single) if single else "–"])
    lines = []
    if rows:
        total = sum(int(r[2].strip("*")) for r in rows)
        lines += [f"{total} runs did not settle within their noise target before the sampling timeout "
                  "(`--hdbench_max_seconds`); by family:", ""]
        lines += table(["family", "runs", "did not settle", "median noise", "worst noise", "runs of 1 sample "
                        "(noise unknown)"], rows)
        lines.append("")
    if calm:
        lines.append(f"Settled within their target: {', '.join(calm)}.")
    return lines
