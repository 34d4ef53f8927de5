"""The copy families' questions of `summarize` (see hdreport/summary.py): pinned against pageable
memory and when pinning pays off (transfer, pinning), what stream overlap saves (streams),
how close copies get to the PCIe link (transfer), and whether a pinned staging ring stands
in for pinning everything (staged, host_memcpy)."""

from __future__ import annotations

from hdreport.core import noise
from hdreport.core.markdown import name, runs_named, sources, table
from hdreport.core.movement import per_copy
from hdreport.core.schema import ok_runs
from hdreport.core.units import size_text
from hdreport.families.transfer.figures import MIN_PIPELINE_STREAMS, multi_stream_pipeline



def saving_text(percent: float, verb: str = "") -> str:
    """A pipeline's saving against sync in words that keep its sign: a negative saving is a
    slower pipeline ("**6% slower**"; the figure marks it +6% of the time, "saves -6%" read
    as the opposite)."""
    return f"**{verb}{percent:.0f}%**" if percent >= 0 else f"**{-percent:.0f}% slower**"

def pinned_vs_pageable(report: dict) -> list[str]:
    runs = per_copy(report)
    lines, rows = [], []
    for direction in ("h2d", "d2h"):
        sizes = [s for (d, m, s) in runs if d == direction and m == "pinned" and (d, "pageable", s) in runs]
        if not sizes:
            continue
        size = max(sizes)
        pinned, pageable = runs[(direction, "pinned", size)], runs[(direction, "pageable", size)]
        gp, gq = pinned["counters"]["bandwidth_GB/s"], pageable["counters"]["bandwidth_GB/s"]
        lines.append(f"- {direction.upper()} at {size_text(size)}: pinned {gp:.1f} GB/s vs pageable {gq:.1f} GB/s, "
                     f"**{gp / gq:.2f}×** ({name(pinned)} vs {name(pageable)})"
                     f"{noise.noise_note([pinned, pageable])}.")
    sizes = sorted({s for (d, m, s) in runs if m in ("pinned", "pageable")})
    for size in sizes:
        cells = [size_text(size)]
        for direction in ("h2d", "d2h"):
            pin, page = runs.get((direction, "pinned", size)), runs.get((direction, "pageable", size))
            gp = pin["counters"]["bandwidth_GB/s"] if pin else None
            gq = page["counters"]["bandwidth_GB/s"] if page else None
            cells += [f"{gp:.1f}" if gp else "–", f"{gq:.1f}" if gq else "–",
                      f"**{gp / gq:.2f}×**" if gp and gq else "–"]
        rows.append(cells)
    if len(rows) > 1:
        lines += ["", "Copy bandwidth (GB/s) by size:", ""]
        lines += table(["size", "H2D pinned", "H2D pageable", "H2D pinned ÷ pageable", "D2H pinned", "D2H pageable",
                        "D2H pinned ÷ pageable"], rows)
        lines += ["", f"From the `transfer/<direction>/<memory>/copy/<size>` runs, copy engine ({sources(report, runs.values())})."]
    break_even = report.get("derived", {}).get("pinning_break_even", [])
    if break_even:
        by_key = {}
        for row in break_even:
            by_key.setdefault((row["bytes"], row["method"]), {})[row["direction"]] = row
        rows = []
        for (size, method), cells in sorted(by_key.items(), key=lambda item: (item[0][0], item[0][1] != "malloc_host")):
            any_row = next(iter(cells.values()))
            verdicts = []
            for direction in ("h2d", "d2h"):
                row = cells.get(direction)
                n = row.get("transfers_to_break_even") if row else None
                verdicts.append("–" if row is None else "never" if n is None else f"**{n:g}**")
            rows.append([size_text(size), f"`{method}`", f"{any_row['pin_unpin_us']:,.0f}", *verdicts])
        lines += ["", "What pinning costs and after how many transfers it pays off "
                      "(pin + unpin ÷ the time a pinned copy saves over a pageable one):", ""]
        lines += table(["size", "method", "pin + unpin (µs)", "H2D: transfers to break even",
                        "D2H: transfers to break even"], rows, keys=2)
        lines += ["", f"From `derived.pinning_break_even` ({sources(report, break_even)}): the `pinning/<method>/<size>` "
                      "runs and the pageable and pinned copies of the same size."]
    return lines


def ideal_text(entry: dict | None) -> str:
    """A run's fraction of its ideal as a percentage; never above 100%: a run that beat its
    ideal shows "beaten" (the ideal was not a bound; `beaten_ideals` says which)."""
    if not entry or "fraction_of_ideal" not in entry:
        return "–"
    f = entry["fraction_of_ideal"]
    return "beaten (not a bound)" if f > 1 else f"{100 * f:.0f}%"


def ideal_phrase(entry: dict) -> str:
    """'85% of ideal', or 'its ideal beaten: not a bound' (never a fraction above 100%)."""
    text = ideal_text(entry)
    return "its ideal beaten: not a bound" if text.startswith("beaten") else \
        "ideal not recorded" if text == "–" else f"{text} of ideal"


def beaten_ideals(report: dict) -> list[str]:
    """The lines naming every streams run that beat its ideal (its counter, or the derived
    stream_overlap row quoting it) and which reference is wrong: the ideal (`ideal_us`) is
    built from each stage timed alone (`h2d_alone_us`, `kernel_alone_us`, `d2h_alone_us`); a
    run faster than it shows those stage times were not the fastest the stages go. Pageable
    copies are staged by the driver through its own pinned buffer and vary from copy to copy
    more than a handful of timings alone catch; schema-1 reports fed the ideal the chunked
    runs' stage times, slower than a whole buffer's."""
    beaten: dict[str, tuple] = {}  # benchmark -> (fraction, noise or None, memory)
    for b in ok_runs(report, "streams"):
        c = b.get("counters", {})
        if c.get("fraction_of_ideal", 0) > 1:
            beaten[b.get("name", "?")] = (c["fraction_of_ideal"], c.get("noise_percent"), b["params"].get("memory"))
    for row in report.get("derived", {}).get("stream_overlap", []):
        for entry in row.values():
            if isinstance(entry, dict) and entry.get("fraction_of_ideal", 0) > 1:
                beaten.setdefault(entry.get("benchmark", "?"), (entry["fraction_of_ideal"], None, row.get("memory")))
    if not beaten:
        return []
    items = sorted(beaten.items())
    shown = "; ".join(f"`{n}` at {100 * f:.1f}%" + (f" (noise ±{noise:.1f}%)" if noise is not None else "")
                      for n, (f, noise, _) in items[:6]) + (f"; and {len(items) - 6} more" if len(items) > 6 else "")
    contexts = report.get("contexts") or {"": report["context"]}
    versions = [c.get("hdbench", {}).get("schema_version", 1) for c in contexts.values()]
    schema_1 = any(not isinstance(v, (int, float)) or v < 2 for v in versions)  # untyped by the schema: unknown is old
    if schema_1:
        why = ("the chunked runs' stage times, slower than a whole buffer's (schema 1; schema 2 feeds it the "
               "fastest of both)")
    elif all(memory == "pageable" for _, (_, _, memory) in items):
        why = ("the stages' times alone of pageable copies (`h2d_alone_us`, `d2h_alone_us`): the driver stages a "
               "pageable copy through its own pinned buffer, and its time varies from copy to copy more than the few "
               "timings alone catch, so their fastest is not the fastest a pageable copy goes")
    else:
        why = ("the stages' times alone (`h2d_alone_us`, `kernel_alone_us`, `d2h_alone_us`): the run went faster "
               "than the stages alone were timed")
    return ["", f"**Ideal beaten** ({len(items)} run{'s' if len(items) != 1 else ''}; not shown as a fraction, "
                f"which is at most 100% of a true bound): {shown}. The wrong reference is the ideal (`ideal_us`) "
                f"built from {why}. Read these runs' time against sync, not against the ideal."]


def overlap_savings(report: dict) -> list[str]:
    rows, lines, best, one_stream = [], [], None, []
    overlap = report.get("derived", {}).get("stream_overlap", [])
    for row in overlap:
        if "sync" not in row or "pipelined" not in row:
            continue
        pipe = multi_stream_pipeline(report, row)
        if pipe is None:
            one_stream.append(row)
        rows.append([size_text(row["bytes"]), f"{row['compute_ratio']:g}×", row["memory"],
                     f"{row['sync']['latency_us']:,.0f}",
                     f"{row['async']['latency_us']:,.0f}" if "async" in row else "–",
                     f"{pipe['latency_us']:,.0f}" if pipe else "none of ≥ 2 streams",
                     f"{pipe['streams']} × {pipe['chunks']}" if pipe else "–",
                     ideal_text(pipe),
                     saving_text(pipe["saving_vs_sync_percent"]) if pipe else "–",
                     f"{row['graph']['latency_us']:,.0f}" if "graph" in row else "–",
                     f"{row['legacy_default_stream_slowdown']:.2f}×" if "legacy_default_stream_slowdown" in row else "–",
                     f"`{pipe['benchmark']}`" if pipe else "–"])
        if pipe and (best is None or pipe["saving_vs_sync_percent"] > best[1]["saving_vs_sync_percent"]):
            best = (row, pipe)
    if not rows:
        return []
    if best is not None:
        row, pipe = best
        lines.append(f"- Best: {size_text(row['bytes'])}, kernel ≈ {row['compute_ratio']:g}× the copy, {row['memory']} "
                     f"memory: sync {row['sync']['latency_us']:,.0f} µs, pipeline {pipe['latency_us']:,.0f} µs with "
                     f"{pipe['streams']} streams × {pipe['chunks']} chunks ({ideal_phrase(pipe)}): "
                     f"{saving_text(pipe['saving_vs_sync_percent'], 'saves ')} (`{pipe['benchmark']}`)"
                     f"{noise.noise_note(runs_named(report, [row['sync'].get('benchmark'), pipe['benchmark']]))}.")
    if one_stream:
        where = ", ".join(f"{size_text(r['bytes'])} {r['memory']} (kernel {r['compute_ratio']:g}×)" for r in one_stream)
        lines.append(f"- {'No' if best is None else 'At ' + where + ', no'} pipeline of "
                     f"{MIN_PIPELINE_STREAMS} or more streams ran{':' if best is None else ''}"
                     f"{' ' + where + ' ran pipelines on one stream only' if best is None else ''}: one stream runs "
                     "each chunk's copy in, kernel and copy back in order, so nothing overlaps and it says nothing "
                     f"of what overlap saves. Run `--hdbench_stream_counts=2,4` (or more).")
    lines += ["", "Time per buffer (µs): copy in, kernel, copy back; pipelines are the fastest of 2 or more streams "
                  "× chunks, graphs the fastest streams × chunks; the saving is the pipeline's against sync:", ""]
    lines += table(["buffer", "kernel ÷ copy", "memory", "sync", "async", "best pipeline", "streams × chunks",
                    "of ideal", "pipeline saves", "graph", "legacy default stream slowdown", "pipeline benchmark"],
                   rows, keys=3)
    lines += ["", f"From `derived.stream_overlap` ({sources(report, overlap)}): the `streams/<variant>/<memory>/…` runs "
                  "(pipelines of 2 or more streams from the `streams/pipelined/…/streams:<N>/…` runs)."]
    return lines + beaten_ideals(report)


def link_efficiency(report: dict) -> list[str]:
    best = {}
    for b in ok_runs(report, "transfer"):
        p = b["params"]
        if p.get("memory") == "pinned" and p.get("engine") == "copy" and "pcie_link_percent" in b.get("counters", {}):
            if p["direction"] not in best or \
                    b["counters"]["pcie_link_percent"] > best[p["direction"]]["counters"]["pcie_link_percent"]:
                best[p["direction"]] = b
    order = {"h2d": 0, "d2h": 1, "bidir": 2}
    out = []
    for d, b in sorted(best.items(), key=lambda item: order.get(item[0], 9)):
        c = b["counters"]
        # the rate the share was taken of, said (`pcie_link_max_gbps`; twice it both ways)
        link = f" {c['bandwidth_GB/s'] * 100 / c['pcie_link_percent']:.1f} GB/s" if c["pcie_link_percent"] > 0 else ""
        of = (f"twice the link's theoretical rate (both directions:{link})" if d == "bidir" else
              f"the link's theoretical rate{link.replace(' ', ', ', 1) if link else ''}")
        out.append(f"- {'both directions at once' if d == 'bidir' else d.upper()}: "
                   f"{b['counters']['bandwidth_GB/s']:.1f} GB/s, **{b['counters']['pcie_link_percent']:.0f}%** "
                   f"of {of} ({name(b)}).")
    return out


def staged(report: dict) -> list[str]:
    rows_in = report.get("derived", {}).get("staged_vs_pinned", [])
    rows = [[row["direction"].upper(), size_text(row["bytes"]), f"{row['best_staged_GB/s']:.1f}",
             f"**{100 * row['fraction_of_pinned']:.0f}%**" if "fraction_of_pinned" in row else "–",
             f"{row['speedup_over_pageable']:.2f}×" if row.get("speedup_over_pageable") else "–",
             f"`{row['best_staged_benchmark']}`"] for row in rows_in]
    if not rows:
        return []
    # hdbench leaves a row's fraction_of_pinned (and speedup_over_pageable) out where no pinned
    # (pageable) copy of that direction and size ran: the staged family run without `transfer`.
    unrated = [row for row in rows_in if "fraction_of_pinned" not in row]
    note = [] if not unrated else [
        "", f"- No pinned copy of the same direction and size ran beside {'these' if len(unrated) == len(rows_in) else len(unrated)} "
            f"staged run{'s' if len(unrated) != 1 else ''}, so the ring is not rated against pinning "
            "(\"of pinned\": –): run the `transfer` family with the same sizes (`--hdbench_families=staged,transfer`)."]
    return table(["direction", "size", "best staged GB/s", "of pinned", "over pageable", "benchmark"], rows, keys=2) + \
        ["", f"From `derived.staged_vs_pinned` ({sources(report, rows_in)}): the fastest chunk size × thread count."] + note


# (anchor, question, how to answer it, what to run when the reports cannot, figure name prefixes)
QUESTIONS = [
    ("pinning", "How much faster is pinned memory than pageable, and when does pinning pay off?", pinned_vs_pageable,
     "the `transfer` and `pinning` families with pageable and pinned memory",
     ("transfer", "pinning", "pinning_break_even")),
    ("overlap", "How much does async copy/compute overlap save?", overlap_savings, "the `streams` family on a GPU",
     ("streams_overlap",)),
    ("link", "How close do copies get to the PCIe link?", link_efficiency, "the `transfer` family on a GPU",
     ("transfer",)),
    ("staged", "Can a pinned staging ring stand in for pinning everything?", staged,
     "the `staged` and `transfer` families", ("staged", "host_memcpy")),
]
