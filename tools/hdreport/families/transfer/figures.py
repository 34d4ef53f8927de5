"""The copy families' figures (transfer, staged, host_memcpy, pinning, streams).

Line figures: copy bandwidth by memory kind and engine, the staging ring beside plain
pageable and pinned copies, host memcpy by thread count, what pinning costs and after
how many transfers it pays off, each bandwidth panel read against the PCIe link. Bar
figure `streams_overlap--…`: the time per buffer of sync, async, the best pipeline and
the best graph (the report's derived `stream_overlap` rows), per memory kind.
"""

from __future__ import annotations

from collections import defaultdict

from hdreport.core import bars, style
from hdreport.core.bandwidth import BANDWIDTH, link_rates
from hdreport.core.facets import Spec

# Its own values' look: how the pinning methods (coloured as the memory they make), the
# streams' variants and the transfer variants read in every figure.
style.register_look(
    colours={"method": {"malloc_host": "#1f77b4", "register": "#9467bd"},
             "variant": {"sync": "#7f7f7f", "async": "#e15759", "pipelined": "#1f77b4", "graph": "#59a14f"}},
    linestyles={"variant": {"per_copy": "-", "reference_loop": ":"}},
    order=("per_copy", "reference_loop", "malloc_host", "register", "sync", "async", "pipelined"))

# Every selected GPU copying at once: one size, the copy engine only. In the grid of one GPU's
# copies they were two panels of a lone point over two empty SM-engine cells (an H200, 2026-11-26).
ALL_GPUS = frozenset({"all_to_host", "host_to_all"})


def several_gpus(points) -> bool:
    """Whether some point copied from two or more GPUs at once: one GPU's "all" copy is the
    pinned copy of the `transfer` figure again, a lone point repeated in a figure of its own."""
    return any(p.params.get("device_count", 0) >= 2 for p in points)


SPECS = [
    Spec("transfer", "Copy bandwidth by memory kind and engine", "bytes",
         "bandwidth_GB/s", where={"family": "transfer", "direction": frozenset({"h2d", "d2h", "bidir"})},
         rows="engine", cols="direction", series=("memory", "variant"), overflow=("variant",), ylabel=BANDWIDTH,
         references=link_rates),
    Spec("transfer_all_gpus", "Every selected GPU copying at once: the sum of their bandwidths", "bytes",
         "bandwidth_GB/s", where={"family": "transfer", "direction": ALL_GPUS}, cols="direction",
         series=("memory", "device_count", "numa"), ylabel=BANDWIDTH, references=link_rates,
         when=several_gpus),
    Spec("staged", "Pageable memory through a pinned staging ring, beside plain pageable and pinned copies",
         "bytes", "bandwidth_GB/s", where={"family": "staged"}, rows="chunk_bytes", cols="direction",
         series=("threads",), ylabel=BANDWIDTH, references=link_rates,
         companions=({"family": "transfer", "engine": "copy", "variant": "per_copy",
                      "memory": frozenset({"pinned", "pageable"})},),
         title_alone="Pageable memory through a pinned staging ring",
         missing_companions="no pageable or pinned copies of these sizes in the report (run `transfer` with them)"),
    Spec("host_memcpy", "Host memcpy bandwidth by thread count (the ceiling of pageable and staged copies)",
         "bytes", "bandwidth_GB/s", where={"family": "host_memcpy"}, series=("threads",), ylabel=BANDWIDTH),
    Spec("pinning", "What pinning costs: pin + unpin time by method", "bytes", "pin_unpin_us",
         where={"family": "pinning"}, series=("method",), ylabel="pin + unpin (µs)"),
    Spec("pinning_break_even", "Transfers before pinning pays off (pinned copy saving vs pin + unpin cost)",
         "bytes", "transfers_to_break_even", derived="pinning_break_even", cols="direction", series=("method",),
         ylabel="transfers to break even", null_note="never pays off", row_keys=("direction", "method", "bytes")),
]


VARIANTS = ["sync", "async", "pipelined", "graph"]
MIN_PIPELINE_STREAMS = 2  # one stream runs copy, kernel and copy back in order: nothing overlaps


def multi_stream_pipeline(report: dict, row: dict) -> dict | None:
    """The fastest pipelined run of 2 or more streams at a derived stream_overlap row's point
    (buffer size, kernel ratio, memory, device; the row's report where reports are merged), as
    the row's `pipelined` entry reads (benchmark, latency_us, streams, chunks, issue_order,
    fraction_of_ideal), with `saving_vs_sync_percent` where the row has sync; None when none
    ran. The row's own `pipelined` is the fastest of every shape, one stream included: a
    one-stream pipeline cannot overlap, so it answers nothing about overlap."""
    pipe = row.get("pipelined")
    if pipe is not None and pipe.get("streams", 0) >= MIN_PIPELINE_STREAMS:
        best = dict(pipe)
    else:
        best = None
        for b in report["benchmarks"]:
            p = b.get("params", {})
            if b.get("status") != "ok" or b.get("run_type", "iteration") != "iteration" or \
                    p.get("family") != "streams" or p.get("variant") != "pipelined":
                continue
            if p.get("streams", 0) < MIN_PIPELINE_STREAMS or "latency_us" not in b.get("counters", {}):
                continue
            if (p.get("bytes"), p.get("compute_ratio"), p.get("memory")) != \
                    (row["bytes"], row["compute_ratio"], row["memory"]):
                continue
            if "device" in row and p.get("device", row["device"]) != row["device"]:
                continue
            if "_source" in row and b.get("_source", row["_source"]) != row["_source"]:
                continue
            us = b["counters"]["latency_us"]
            if best is None or us < best["latency_us"]:
                best = {"benchmark": b.get("name", "?"), "latency_us": us, "streams": p["streams"],
                        "chunks": p.get("chunks", 0), "issue_order": p.get("issue_order", "")}
                if "fraction_of_ideal" in b["counters"]:
                    best["fraction_of_ideal"] = b["counters"]["fraction_of_ideal"]
    if best is not None and "sync" in row:
        best["saving_vs_sync_percent"] = 100 * (1 - best["latency_us"] / row["sync"]["latency_us"])
    return best


def overlap_entries(report: dict, row: dict) -> dict:
    """{variant: entry} of a derived stream_overlap row as the figures and the summary show
    it: `pipelined` is the fastest pipeline of 2 or more streams (absent when none ran)."""
    out = {v: row[v] for v in VARIANTS if v in row and v != "pipelined"}
    pipe = multi_stream_pipeline(report, row)
    if pipe is not None:
        out["pipelined"] = pipe
    return out


def streams_overlap(plt, reports, machine) -> dict:
    by_bytes = defaultdict(lambda: defaultdict(dict))
    one_stream = set()  # the sizes whose pipelines all ran on one stream
    for path, report, _ in reports:
        for row in report.get("derived", {}).get("stream_overlap", []):
            if "sync" not in row:
                continue
            sync = row["sync"]["latency_us"]
            cell = {}
            entries = overlap_entries(report, row)
            if "pipelined" in row and "pipelined" not in entries:
                one_stream.add(row["bytes"])
            for v in VARIANTS:
                if v in entries:
                    ms = entries[v]["latency_us"] / 1e3
                    change = f"{100 * (entries[v]['latency_us'] / sync - 1):+.0f}%".replace("-", "−")
                    change = "±0%" if change in ("+0%", "−0%") else change
                    cell[v] = (ms, "" if v == "sync" else change, [entries[v]["benchmark"]])
            by_bytes[row["bytes"]][("", f"kernel {row['compute_ratio']:g}× the copy")][row["memory"]] = cell
    return {f"streams_overlap--bytes-{size}": bars.draw(
        plt, f"Time per {style.size_text(size)} buffer: copy in, kernel, copy back (lower is better)", machine,
        dict(panels), VARIANTS, style.COLOURS["variant"], "time per buffer (ms)",
        note="above a bar: its time against sync (−: shorter); pipelined: the fastest of 2 or more streams; graph: "
             "the fastest streams × chunks" + ("; no pipeline of 2 or more streams ran (one stream cannot overlap)"
                                                if size in one_stream else ""))
        for size, panels in sorted(by_bytes.items())}


MAKERS = (streams_overlap,)


def expand(benchmarks: list[dict]) -> list[dict]:
    return benchmarks
