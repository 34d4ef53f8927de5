"""The copy families' questions of `summarize` (see summary.py): pinned against pageable
memory and when pinning pays off (transfer, pinning), what stream overlap saves (streams),
how close copies get to the PCIe link (transfer), and whether a pinned staging ring stands
in for pinning everything (staged, host_memcpy)."""

from __future__ import annotations

from hdreport import noise
from hdreport.markdown import name, runs_named, sources, table
from hdreport.schema import ok_runs
from hdreport.units import size_text


def per_copy(report: dict) -> dict:
    runs = {}
    for b in ok_runs(report, "transfer"):
        p = b["params"]
        if p.get("engine") == "copy" and p.get("variant") == "per_copy" and p.get("direction") in ("h2d", "d2h"):
            runs.setdefault((p["direction"], p["memory"], p["bytes"]), b)  # the first report's
    return runs


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
                        "D2H: transfers to break even"], rows)
        lines += ["", f"From `derived.pinning_break_even` ({sources(report, break_even)}): the `pinning/<method>/<size>` "
                      "runs and the pageable and pinned copies of the same size."]
    return lines


def overlap_savings(report: dict) -> list[str]:
    rows, lines, best = [], [], None
    overlap = report.get("derived", {}).get("stream_overlap", [])
    for row in overlap:
        if "pipelined" not in row or "sync" not in row:
            continue
        pipe = row["pipelined"]
        rows.append([size_text(row["bytes"]), f"{row['compute_ratio']:g}×", row["memory"],
                     f"{row['sync']['latency_us']:,.0f}",
                     f"{row['async']['latency_us']:,.0f}" if "async" in row else "–",
                     f"{pipe['latency_us']:,.0f}", f"{pipe['streams']} × {pipe['chunks']}",
                     f"{100 * pipe.get('fraction_of_ideal', 0):.0f}%",
                     f"**{row['pipelined_saving_vs_sync_percent']:.0f}%**",
                     f"{row['graph']['latency_us']:,.0f}" if "graph" in row else "–",
                     f"{row['legacy_default_stream_slowdown']:.2f}×" if "legacy_default_stream_slowdown" in row else "–",
                     f"`{pipe['benchmark']}`"])
        if best is None or row["pipelined_saving_vs_sync_percent"] > best["pipelined_saving_vs_sync_percent"]:
            best = row
    if not rows:
        return []
    pipe = best["pipelined"]
    lines.append(f"- Best: {size_text(best['bytes'])}, kernel ≈ {best['compute_ratio']:g}× the copy, {best['memory']} "
                 f"memory: sync {best['sync']['latency_us']:,.0f} µs, pipeline {pipe['latency_us']:,.0f} µs with "
                 f"{pipe['streams']} streams × {pipe['chunks']} chunks ({100 * pipe.get('fraction_of_ideal', 0):.0f}% "
                 f"of ideal): **saves {best['pipelined_saving_vs_sync_percent']:.0f}%** (`{pipe['benchmark']}`)"
                 f"{noise.noise_note(runs_named(report, [best['sync'].get('benchmark'), pipe['benchmark']]))}.")
    lines += ["", "Time per buffer (µs): copy in, kernel, copy back; pipelines and graphs are the fastest "
                  "streams × chunks run; the saving is the pipeline's against sync:", ""]
    lines += table(["buffer", "kernel ÷ copy", "memory", "sync", "async", "best pipeline", "streams × chunks",
                    "of ideal", "pipeline saves", "graph", "legacy default stream slowdown", "pipeline benchmark"], rows)
    lines += ["", f"From `derived.stream_overlap` ({sources(report, overlap)}): the `streams/<variant>/<memory>/…` runs."]
    beaten = [r for r in overlap if r.get("pipelined", {}).get("fraction_of_ideal", 0) > 1]
    if beaten:  # a bound that is beaten is a wrong bound: say so rather than let 105% stand as a result
        lines += ["", f"**Above 100% of ideal** ({len(beaten)} row{'s' if len(beaten) != 1 else ''}): the ideal these reports hold was fed the "
                      "chunked runs' stage times, slower than a whole buffer's (schema 1); reports of schema 2 "
                      "feed it the fastest of both, and no pipeline beats it."]
    return lines


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
        of = "twice the link's theoretical rate (both directions)" if d == "bidir" else "the link's theoretical rate"
        out.append(f"- {'both directions at once' if d == 'bidir' else d.upper()}: "
                   f"{b['counters']['bandwidth_GB/s']:.1f} GB/s, **{b['counters']['pcie_link_percent']:.0f}%** "
                   f"of {of} ({name(b)}).")
    return out


def staged(report: dict) -> list[str]:
    rows_in = [r for r in report.get("derived", {}).get("staged_vs_pinned", []) if "fraction_of_pinned" in r]
    rows = [[row["direction"].upper(), size_text(row["bytes"]), f"{row['best_staged_GB/s']:.1f}",
             f"**{100 * row['fraction_of_pinned']:.0f}%**",
             f"{row['speedup_over_pageable']:.2f}×" if row.get("speedup_over_pageable") else "–",
             f"`{row['best_staged_benchmark']}`"] for row in rows_in]
    if not rows:
        return []
    return table(["direction", "size", "best staged GB/s", "of pinned", "over pageable", "benchmark"], rows) + \
        ["", f"From `derived.staged_vs_pinned` ({sources(report, rows_in)}): the fastest chunk size × thread count."]



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
