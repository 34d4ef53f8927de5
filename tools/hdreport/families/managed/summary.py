"""The managed family's question of `summarize` (see hdreport/summary.py): is managed (unified) memory
a free lunch here? Its migrations set beside pinned copies of the same size and direction
from the transfer family in the same reports (`transfer/<direction>/pinned/copy/<size>`,
one copy timed at a time): after a prefetch (`cudaMemPrefetchAsync` alone is timed) the
target is to come within 10% of pinned at 64 MiB and more; on demand (the kernel, or the
host, that faults the pages in) the share of pinned it reaches, with its spread. Where the
GPU cannot migrate pages (no concurrent managed access) every run is skipped, and the answer
is the reason."""

from __future__ import annotations

from hdreport.core import movement
from hdreport.core.markdown import name, sources, table
from hdreport.core.movement import per_copy
from hdreport.core.schema import ok_runs
from hdreport.core.units import size_text

FAMILY = "managed"
VARIANTS = ["demand", "prefetch", "read_mostly", "preferred_gpu", "accessed_by_gpu"]
TARGET_FROM = 64 << 20  # the target is set at 64 MiB and more
TARGET = 0.9  # prefetch within 10% of pinned
DEMAND = {"h2d": "a kernel faulting the pages in", "d2h": "the host touching each page"}


def _gbps(b: dict) -> float:
    return b["counters"]["bandwidth_GB/s"]


def _sizes_text(sizes: list[int]) -> str:
    texts = [size_text(s) for s in sizes]
    return texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]


def _direction(report: dict, direction: str, mine: dict, copies: dict) -> tuple[list[str], bool]:
    """The lines of one direction, and whether any size was set beside a pinned copy."""
    sizes = sorted({s for d, _, s in mine if d == direction})
    label = direction.upper()
    big = [s for s in sizes if s >= TARGET_FROM]
    pinned = {s: copies[(direction, "pinned", s)] for s in sizes if (direction, "pinned", s) in copies}
    lines, compared_any = [], False
    prefetch = {s: mine[(direction, "prefetch", s)] for s in sizes if (direction, "prefetch", s) in mine}
    compared = [s for s in (big or sizes[-1:]) if s in prefetch and s in pinned]
    if compared:
        compared_any = True
        ratios = [(s, _gbps(prefetch[s]) / _gbps(pinned[s])) for s in compared]
        text = ", ".join(f"**{r:.2f}×** at {size_text(s)}" for s, r in ratios)
        met, missed = [s for s, r in ratios if r >= TARGET], [s for s, r in ratios if r < TARGET]
        if not big:
            verdict = "no size of 64 MiB or more ran, where the target of coming within 10% of pinned is set"
        elif not missed:
            verdict = "the target, within 10% of pinned at 64 MiB and more: met at every size"
        elif not met:
            verdict = "the target, within 10% of pinned at 64 MiB and more: missed at every size"
        else:
            verdict = (f"the target, within 10% of pinned at 64 MiB and more: met at {_sizes_text(met)}, "
                       f"missed at {_sizes_text(missed)}")
        last = compared[-1]
        lines.append(f"- {label}: managed memory after a prefetch against a pinned copy of the same size: {text} "
                     f"({verdict}; at {size_text(last)} {_gbps(prefetch[last]):.1f} vs {_gbps(pinned[last]):.1f} "
                     f"GB/s, {name(prefetch[last])} vs {name(pinned[last])}).")
    elif prefetch:
        last = max(prefetch)
        lines.append(f"- {label}: after a prefetch, {_gbps(prefetch[last]):.1f} GB/s at {size_text(last)} "
                     f"({name(prefetch[last])}).")
    demand = {s: mine[(direction, "demand", s)] for s in sizes if (direction, "demand", s) in mine}
    shares = [(s, _gbps(demand[s]) / _gbps(pinned[s])) for s in (big or sizes[-1:]) if s in demand and s in pinned]
    if shares:
        compared_any = True
        size, share = max(shares, key=lambda t: t[1])
        b = demand[size]
        low = min(r for _, r in shares)
        spread = f", {100 * low:.0f}–{100 * share:.0f}% over {_sizes_text([s for s, _ in shares])}" \
            if len(shares) > 1 else ""
        lines.append(f"  On demand ({DEMAND.get(direction, 'the pages faulted in')}) it reaches **{100 * share:.0f}%** "
                     f"of pinned at {size_text(size)}: {_gbps(b):.1f} vs {_gbps(pinned[size]):.1f} GB/s "
                     f"({movement.noise_text(b) or 'spread not recorded'}; {name(b)}){spread}.")
    elif demand:
        last = max(demand)
        b = demand[last]
        lines.append(f"  On demand ({DEMAND.get(direction, 'the pages faulted in')}): {_gbps(b):.1f} GB/s at "
                     f"{size_text(last)} ({movement.noise_text(b) or 'spread not recorded'}; {name(b)}).")
    return lines, compared_any


def _table(direction: str, mine: dict, copies: dict) -> list[str]:
    sizes = sorted({s for d, _, s in mine if d == direction})
    variants = [v for v in VARIANTS if any((direction, v, s) in mine for s in sizes)]
    variants += sorted({v for d, v, _ in mine if d == direction} - set(VARIANTS))
    have_pinned = any((direction, "pinned", s) in copies for s in sizes)
    rows = []
    for s in sizes:
        cells = [f"{_gbps(mine[(direction, v, s)]):.1f}" if (direction, v, s) in mine else "–" for v in variants]
        pinned = copies.get((direction, "pinned", s))
        prefetch = mine.get((direction, "prefetch", s))
        if have_pinned:
            cells += [f"{_gbps(pinned):.1f}" if pinned else "–",
                      f"**{_gbps(prefetch) / _gbps(pinned):.2f}×**" if pinned and prefetch else "–"]
        rows.append([size_text(s)] + cells)
    if len(rows) < 2 and not have_pinned:
        return []
    header = ["size"] + variants + (["pinned copy", "prefetch ÷ pinned"] if have_pinned else [])
    return ["", f"{direction.upper()} GB/s by variant" + (", beside the pinned copy:" if have_pinned else ":"), "",
            *table(header, rows)]


def free_lunch(report: dict) -> list[str]:
    found = movement.runs(report, FAMILY)
    mine = movement.first_by(found, "direction", "variant", "bytes")
    copies = per_copy(report)
    lines, compared = [], False
    for direction in ("h2d", "d2h"):
        more, done = _direction(report, direction, mine, copies)
        lines += more
        compared = compared or done
    if not any(True for _ in ok_runs(report, "transfer")):
        lines.insert(0, "- The `transfer` family did not run in these reports: there are no pinned copies to set "
                        "managed memory beside (run `--hdbench_families=transfer,managed`). Managed memory alone:")
    elif not compared:
        lines.insert(0, "- The `transfer` family's pinned copies have none of these sizes: run both with the same "
                        "sizes (`--hdbench_sizes` and `--hdbench_managed_sizes`). Managed memory alone:")
    for direction in ("h2d", "d2h"):
        lines += _table(direction, mine, copies)
    if found:
        pinned_runs = [copies[k] for k in copies if k[1] == "pinned" and k[2] in {s for _, _, s in mine}]
        lines += ["", f"From the `managed/<direction>/<variant>/<size>` runs ({sources(report, found)})"
                      + (f" and the transfer family's pinned copies ({sources(report, pinned_runs)})."
                         if pinned_runs else ".")]
    return movement.close(report, FAMILY, found, lines, "variant")


ASKED_WHERE_RUN = (FAMILY,)
QUESTIONS = [
    ("managed", "Is managed memory a free lunch here?", free_lunch,
     "the `managed` family on a GPU with concurrent managed access (and `transfer` for pinned copies)",
     ("managed",)),
]
