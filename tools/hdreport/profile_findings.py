"""The advice of `hdbench_profile`: each finding is a change to the program, the time it
would save (estimated from the recording and the baseline's ceilings), what was seen and
the numbers it rests on. A finding that would save less than 2% of the recorded span is
dropped, so a well-written program gets none.

    pageable_to_pinned   copies from pageable memory, against the pinned ceiling at their size
    overlap_copies       H2D/D2H copy time with no kernel running that kernels could hide
    pack_small_copies    runs of >= 8 small copies back to back, against one copy of their bytes
    drop_blocking_reads  tiny blocking D2H reads (`loss.item()`) and the GPU idle after each

Left out on purpose: "the same tensor moved every step" (identical large H2D sizes repeated).
A data loader's batches are as large and as regular, and the recording has sizes, not
contents, so that rule would fire on every well-written training loop.
"""

from __future__ import annotations

from hdreport.profile_analysis import NS, SMALL_COPY, Analysis
from hdreport.profile_baseline import Ceilings, rate_text, size_short

MIN_SAVING_OF_SPAN = 0.02  # below this a finding is noise, not advice
RUN_MIN_COPIES = 8  # small copies in a row before they count as a batch moved piecewise
RUN_MAX_GAP_NS = 50_000  # 50 us between copies: issued back to back by one loop
MIN_BLOCKING_READS = 10  # fewer is a program reading a result, not one reading every step

ADVICE = {
    "pageable_to_pinned": "pin_memory=True on the DataLoader (or tensor.pin_memory()), "
                          "then .to(device, non_blocking=True)",
    "overlap_copies": "non_blocking=True with pinned memory; prefetch the next batch on a side stream "
                      "(num_workers>0 with pin_memory=True does this for DataLoader batches)",
    "pack_small_copies": "move the batch as one tensor (torch.cat/stack, or a collate_fn that packs) "
                         "and split on the GPU",
    "drop_blocking_reads": "do not call loss.item() (or print a CUDA tensor) every step; accumulate on the GPU "
                           "and read every N steps",
}


def duration_text(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.0f} us"


def _host_kind(row: dict) -> str:
    return row["src"] if row["direction"] == "h2d" else row["dst"] if row["direction"] == "d2h" else ""


def pinned_time_s(row: dict) -> float | None:
    """A class's bytes at the pinned ceiling of its mean size, or None without one."""
    pinned = row.get("pinned_ceiling_GB/s")
    return row["bytes"] / (pinned * 1e9) if pinned else None


def pageable_to_pinned(a: Analysis, where: str) -> tuple[float, str, str] | None:
    rows = [r for r in a.classes if _host_kind(r) == "pageable" and pinned_time_s(r) is not None]
    if not rows:
        return None
    savings = [(max(0.0, r["time_s"] - pinned_time_s(r)), r) for r in rows]
    saving = sum(s for s, _ in savings)
    count, time_s = sum(r["count"] for r in rows), sum(r["time_s"] for r in rows)
    pinned_s = sum(min(pinned_time_s(r), r["time_s"]) for r in rows)
    what = (f"{count} copies between pageable host memory and the GPU took {duration_text(time_s)}; "
            f"from pinned memory the same bytes take {duration_text(pinned_s)} {where}")
    top = sorted(savings, key=lambda x: -x[0])[:3]
    evidence = "; ".join(
        f"{r['count']} pageable {r['direction'].upper()} copies of {r['size_bucket']}: "
        f"{rate_text(r['achieved_GB/s'] or 0)} GB/s against pinned {rate_text(r['pinned_ceiling_GB/s'])} GB/s "
        f"at that size {where}" for _, r in top)
    return saving, what, evidence


def overlap_copies(a: Analysis, have_baseline: bool) -> tuple[float, str, str] | None:
    # A pageable copy cannot overlap until it is pinned, and then it is shorter: scale its
    # exposed time by pinned time over its time. Blocking reads are left to their own finding
    # (the host needs the value at once; no stream can hide that).
    factor = {}
    for r in a.classes:
        pinned = pinned_time_s(r)
        exposed = pinned / r["time_s"] if _host_kind(r) == "pageable" and pinned and r["time_s"] > 0 else 1.0
        factor[(r["direction"], r["src"], r["dst"], r["blocking"], r["size_bucket"])] = min(1.0, exposed)
    copies = [c for c in a.copies if c.direction in ("h2d", "d2h") and not c.is_blocking_read]
    exposed = [c for c in copies if c.duration > c.overlapped]
    if not exposed:
        return None
    raw = sum(c.duration - c.overlapped for c in exposed) * NS
    after = sum((c.duration - c.overlapped) * factor[c.key] for c in exposed) * NS
    kernel_s = a.totals["kernel_s"]
    saving = min(after, kernel_s)
    blocking = sum(1 for c in exposed if c.blocking)
    what = (f"{duration_text(raw)} of H2D/D2H copies ran with no kernel on their GPU ({blocking} of those "
            f"{len(exposed)} copies held the host until they finished); kernels ran {duration_text(kernel_s)}, "
            f"enough to hide up to {duration_text(saving)} of it")
    pinned_note = (f", {duration_text(after)} once pinned at the baseline's pinned rates" if have_baseline and
                   after < raw else "" if have_baseline else " (no baseline: the pinned speed-up is not taken off)")
    evidence = (f"{len(exposed)} of {len(copies)} H2D/D2H copies ran (in part) with no kernel in flight on their "
                f"GPU, {duration_text(raw)} in all{pinned_note}; kernels busy {duration_text(kernel_s)} of the "
                f"{duration_text(a.totals['span_s'])} span")
    return saving, what, evidence


def small_copy_runs(a: Analysis) -> list[list]:
    """Runs of >= 8 H2D or D2H copies of <= 64 KiB, in one direction on one stream, each
    starting < 50 us after the one before ended. Any other copy on the stream ends a run."""
    by_stream: dict[tuple, list] = {}
    for c in a.copies:
        by_stream.setdefault((c.pid, c.device, c.stream), []).append(c)
    runs = []
    for copies in by_stream.values():
        copies.sort(key=lambda c: c.start)
        run: list = []
        for c in copies:
            small = c.direction in ("h2d", "d2h") and c.bytes <= SMALL_COPY
            if run and small and c.direction == run[-1].direction and c.start - run[-1].end < RUN_MAX_GAP_NS:
                run.append(c)
                continue
            if len(run) >= RUN_MIN_COPIES:
                runs.append(run)
            run = [c] if small else []
        if len(run) >= RUN_MIN_COPIES:
            runs.append(run)
    return runs


def run_saving(run: list, ceilings: Ceilings, a: Analysis) -> tuple[float, float] | None:
    """(the run's time, the time of one copy of its bytes) in seconds, or None without a ceiling.

    The run's time is its span, first start to last end, less the kernels and memsets of its
    stream inside it (packing does not remove those): the gaps between its copies are launch
    cost that one copy removes too. One copy takes its bytes at the ceiling at the total size
    (the run's own memory kind; pinned when mixed) plus the per-copy overhead."""
    direction = run[0].direction
    kinds = {c.host_kind for c in run}
    kind = kinds.pop() if len(kinds) == 1 else "pinned"
    total = sum(c.bytes for c in run)
    rate, _ = ceilings.gbps(direction, kind, total)
    overhead = ceilings.per_copy_overhead_s(direction)
    if rate is None or overhead is None or total <= 0:
        return None
    first, last = run[0], run[-1]
    work = a.stream_work.get((first.pid, first.device, first.stream))
    other = work.overlap(first.start, last.end) if work else 0
    return (last.end - first.start - other) * NS, total / (rate * 1e9) + overhead


def pack_small_copies(a: Analysis, ceilings: Ceilings, where: str) -> tuple[float, str, str] | None:
    priced = [(run, run_saving(run, ceilings, a)) for run in small_copy_runs(a)]
    priced = [(run, times) for run, times in priced if times is not None]
    if not priced:
        return None
    saving = sum(max(0.0, span - one) for _, (span, one) in priced)
    copies = sum(len(run) for run, _ in priced)
    span_s = sum(span for _, (span, _) in priced)
    one_s = sum(one for _, (_, one) in priced)
    sizes = [len(run) for run, _ in priced]
    directions = "/".join(sorted({run[0].direction.upper() for run, _ in priced}))
    what = (f"{copies} {directions} copies of at most {size_short(SMALL_COPY)} went in {len(priced)} runs of "
            f"{RUN_MIN_COPIES} or more back to back on one stream, {duration_text(span_s)} from each run's first "
            f"copy to its last (other work on the stream left out); one copy per run would take "
            f"{duration_text(one_s)} {where}")
    mean_bytes = sum(sum(c.bytes for c in run) for run, _ in priced) / len(priced)
    counts = f"{min(sizes)}" if min(sizes) == max(sizes) else f"{min(sizes)}-{max(sizes)}"
    evidence = (f"{len(priced)} runs of {counts} copies, {size_short(mean_bytes)} a run on average: "
                f"{duration_text(span_s / len(priced))} a run against {duration_text(one_s / len(priced))} as one "
                f"copy (per-copy overhead {duration_text(ceilings.per_copy_overhead_s(priced[0][0][0].direction))} "
                f"{where})")
    return saving, what, evidence


def drop_blocking_reads(a: Analysis) -> tuple[float, str, str] | None:
    # The saving is the GPU time lost: the reads themselves and the idle gap after each (the
    # host relaunching). The host's time blocked in them is mostly the GPU finishing work
    # queued before the read, time the GPU was busy, so it is evidence, not saving.
    reads = a.costs["blocking_reads"]
    if reads["count"] < MIN_BLOCKING_READS:
        return None
    saving = reads["gpu_idle_after_s"] + reads["time_s"]
    what = (f"the host read {reads['count']} values of at most 1 KiB from the GPU and waited for each; "
            f"the GPU sat idle {duration_text(reads['gpu_idle_after_s'])} after them until new work came")
    evidence = (f"{reads['count']} blocking D2H copies of <= 1 KiB, {duration_text(reads['time_s'])} of copying; "
                f"GPU idle after them {duration_text(reads['gpu_idle_after_s'])} "
                f"({duration_text(reads['gpu_idle_after_s'] / reads['count'])} each on average); "
                f"the host blocked {duration_text(reads['host_blocked_s'])} in the calls that waited for them")
    return saving, what, evidence


def sentence(text: str, capital: bool = True) -> str:
    """A full stop (and a capital first letter): the page prints what, advice and evidence in a row."""
    text = text[:1].upper() + text[1:] if capital else text
    return text if text.endswith(".") else text + "."


def findings(a: Analysis, ceilings: Ceilings, where: str = "on the baseline's machine") -> list[dict]:
    """The findings worth acting on, largest saving first."""
    span = a.totals["span_s"]
    if span <= 0:
        return []
    found = {
        "pageable_to_pinned": pageable_to_pinned(a, where) if ceilings else None,
        "overlap_copies": overlap_copies(a, bool(ceilings)),
        "pack_small_copies": pack_small_copies(a, ceilings, where) if ceilings else None,
        "drop_blocking_reads": drop_blocking_reads(a),
    }
    out = [{"id": key, "saving_s": saving, "saving_fraction_of_span": saving / span, "what": sentence(what),
            "advice": sentence(ADVICE[key], capital=False), "evidence": sentence(evidence)}
           for key, result in found.items() if result is not None
           for saving, what, evidence in [result] if saving >= MIN_SAVING_OF_SPAN * span]
    out.sort(key=lambda f: -f["saving_s"])
    return out
