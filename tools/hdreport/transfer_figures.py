"""The copy families' figures (transfer, staged, host_memcpy, pinning, streams).

Line figures: copy bandwidth by memory kind and engine, the staging ring beside plain
pageable and pinned copies, host memcpy by thread count, what pinning costs and after
how many transfers it pays off, each bandwidth panel read against the PCIe link. Bar
figure `streams_overlap--…`: the time per buffer of sync, async, the best pipeline and
the best graph (the report's derived `stream_overlap` rows), per memory kind.
"""

from __future__ import annotations

from collections import defaultdict

from hdreport import bars, style
from hdreport.facets import Spec


def link_rates(spec, panel: dict, reports) -> list[tuple[float, str]]:
    """The PCIe link's theoretical rate of each GPU in the reports; twice it where a
    panel shows both directions at once."""
    rates = sorted({g["pcie_link_max_gbps"] for _, r, _ in reports
                    for g in r["context"]["hdbench"].get("system", {}).get("gpus", []) if g.get("pcie_link_max_gbps")})
    if panel.get("direction") == "bidir":
        return [(2 * r, f"PCIe link ×2 (both directions) {2 * r:.1f} GB/s") for r in rates]
    return [(r, f"PCIe link {r:.1f} GB/s") for r in rates]


BANDWIDTH = "GB/s (1e9 bytes/s)"

SPECS = [
    Spec("transfer", "Copy bandwidth by memory kind and engine", "bytes",
         "bandwidth_GB/s", where={"family": "transfer"}, rows="engine", cols="direction",
         series=("memory", "variant"), overflow=("variant",), ylabel=BANDWIDTH, references=link_rates),
    Spec("staged", "Pageable memory through a pinned staging ring, beside plain pageable and pinned copies",
         "bytes", "bandwidth_GB/s", where={"family": "staged"}, rows="chunk_bytes", cols="direction",
         series=("threads",), ylabel=BANDWIDTH, references=link_rates,
         companions=({"family": "transfer", "engine": "copy", "variant": "per_copy",
                      "memory": frozenset({"pinned", "pageable"})},)),
    Spec("host_memcpy", "Host memcpy bandwidth by thread count (the ceiling of pageable and staged copies)",
         "bytes", "bandwidth_GB/s", where={"family": "host_memcpy"}, series=("threads",), ylabel=BANDWIDTH),
    Spec("pinning", "What pinning costs: pin + unpin time by method", "bytes", "pin_unpin_us",
         where={"family": "pinning"}, series=("method",), ylabel="pin + unpin (µs)"),
    Spec("pinning_break_even", "Transfers before pinning pays off (pinned copy saving vs pin + unpin cost)",
         "bytes", "transfers_to_break_even", derived="pinning_break_even", cols="direction", series=("method",),
         ylabel="transfers to break even", null_note="never pays off", row_keys=("direction", "method", "bytes")),
]


VARIANTS = ["sync", "async", "pipelined", "graph"]


def streams_overlap(plt, reports, machine) -> dict:
    by_bytes = defaultdict(lambda: defaultdict(dict))
    for path, report, _ in reports:
        for row in report.get("derived", {}).get("stream_overlap", []):
            if "sync" not in row:
                continue
            sync = row["sync"]["latency_us"]
            cell = {}
            for v in VARIANTS:
                if v in row:
                    ms = row[v]["latency_us"] / 1e3
                    change = f"{100 * (row[v]['latency_us'] / sync - 1):+.0f}%".replace("-", "−")
                    change = "±0%" if change in ("+0%", "−0%") else change
                    cell[v] = (ms, "" if v == "sync" else change, [row[v]["benchmark"]])
            by_bytes[row["bytes"]][("", f"kernel {row['compute_ratio']:g}× the copy")][row["memory"]] = cell
    return {f"streams_overlap--bytes-{size}": bars.draw(
        plt, f"Time per {style.size_text(size)} buffer: copy in, kernel, copy back (lower is better)", machine,
        dict(panels), VARIANTS, style.COLOURS["variant"], "time per buffer (ms)",
        note="above a bar: its time against sync (−: shorter); pipelined and graph: the fastest streams × chunks")
        for size, panels in sorted(by_bytes.items())}


MAKERS = (streams_overlap,)


def expand(benchmarks: list[dict]) -> list[dict]:
    return benchmarks
