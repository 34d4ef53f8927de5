"""`summarize REPORT`: a Markdown page that answers the tutorials' questions for the
machine a report came from, each answer with its number and the benchmark it came
from. A question the report cannot answer says so and what to run."""

from __future__ import annotations


def _ok_runs(report: dict, family: str):
    for b in report["benchmarks"]:
        if b.get("status") == "ok" and b.get("run_type", "iteration") == "iteration" and \
                b.get("params", {}).get("family") == family:
            yield b


def _name(b: dict) -> str:
    return f"`{b.get('name', '?')}`"


def _size(n: int) -> str:
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def pinned_vs_pageable(report: dict) -> list[str]:
    runs = {}
    for b in _ok_runs(report, "transfer"):
        p = b["params"]
        if p.get("engine") == "copy" and p.get("variant") == "per_copy" and p.get("direction") in ("h2d", "d2h"):
            runs[(p["direction"], p["memory"], p["bytes"])] = b
    lines = []
    for direction in ("h2d", "d2h"):
        sizes = [s for (d, m, s) in runs if d == direction and m == "pinned" and (d, "pageable", s) in runs]
        if not sizes:
            continue
        size = max(sizes)
        pinned, pageable = runs[(direction, "pinned", size)], runs[(direction, "pageable", size)]
        gp, gq = pinned["counters"]["bandwidth_GB/s"], pageable["counters"]["bandwidth_GB/s"]
        lines.append(f"- {direction.upper()} at {_size(size)}: pinned {gp:.1f} GB/s vs pageable {gq:.1f} GB/s, "
                     f"**{gp / gq:.2f}×** ({_name(pinned)} vs {_name(pageable)}).")
    for row in report.get("derived", {}).get("pinning_break_even", []):
        n = row.get("transfers_to_break_even")
        verdict = "never pays off (pinned is not faster)" if n is None else f"pays off after **{n:g}** transfers"
        lines.append(f"- Pinning {_size(row['bytes'])} with `{row['method']}` costs {row['pin_unpin_us']:.0f} µs and "
                     f"{verdict} ({row['direction']}).")
    return lines


def overlap_savings(report: dict) -> list[str]:
    lines = []
    for row in report.get("derived", {}).get("stream_overlap", []):
        if "pipelined" not in row or "sync" not in row:
            continue
        best = row["pipelined"]
        lines.append(
            f"- {_size(row['bytes'])}, kernel ≈ {row['compute_ratio']:g}× the copy, {row['memory']} memory: sync "
            f"{row['sync']['latency_us']:.0f} µs, best pipeline {best['latency_us']:.0f} µs with {best['streams']} "
            f"streams × {best['chunks']} chunks ({100 * best.get('fraction_of_ideal', 0):.0f}% of ideal): "
            f"**saves {row['pipelined_saving_vs_sync_percent']:.0f}%** (`{best['benchmark']}`).")
        if "legacy_default_stream_slowdown" in row:
            lines.append(f"  A launch on the legacy default stream between chunks makes it "
                         f"**{row['legacy_default_stream_slowdown']:.2f}×** slower than on the per-thread default stream.")
    return lines


def link_efficiency(report: dict) -> list[str]:
    best = {}
    for b in _ok_runs(report, "transfer"):
        p = b["params"]
        if p.get("memory") == "pinned" and p.get("engine") == "copy" and "pcie_link_percent" in b.get("counters", {}):
            if p["direction"] not in best or b["counters"]["pcie_link_percent"] > best[p["direction"]]["counters"]["pcie_link_percent"]:
                best[p["direction"]] = b
    return [f"- {d.upper()}: {b['counters']['bandwidth_GB/s']:.1f} GB/s, **{b['counters']['pcie_link_percent']:.0f}%** "
            f"of the link's theoretical rate ({_name(b)})." for d, b in sorted(best.items())]


def staged(report: dict) -> list[str]:
    return [f"- {row['direction'].upper()} {_size(row['bytes'])}: the best staged copy reaches "
            f"{row['best_staged_GB/s']:.1f} GB/s, **{100 * row['fraction_of_pinned']:.0f}%** of pinned "
            f"(`{row['best_staged_benchmark']}`)."
            for row in report.get("derived", {}).get("staged_vs_pinned", []) if "fraction_of_pinned" in row]


# (question, how to answer it, what to run when the report cannot)
QUESTIONS = [
    ("How much faster is pinned memory than pageable, and when does pinning pay off?", pinned_vs_pageable,
     "the `transfer` and `pinning` families with pageable and pinned memory"),
    ("How much does async copy/compute overlap save?", overlap_savings, "the `streams` family on a GPU"),
    ("How close do copies get to the PCIe link?", link_efficiency, "the `transfer` family on a GPU"),
    ("Can a pinned staging ring stand in for pinning everything?", staged, "the `staged` and `transfer` families"),
    ("Which batch size and how many loader workers keep the GPU busy?", lambda r: [],
     "the data loader family (not part of hdbench yet)"),
    ("How much faster is a training step on the GPU than on the CPU?", lambda r: [],
     "the MLP training family (not part of hdbench yet)"),
]


def summarize(report: dict, source: str) -> str:
    ctx = report["context"]
    hd = ctx["hdbench"]
    system = hd.get("system", {})
    gpus = ", ".join(g.get("name", "?") for g in system.get("gpus", [])) or \
        f"no usable GPU ({system.get('gpu_unavailable_reason', 'unknown reason')})"
    out = [f"# hdbench on {ctx.get('host_name', '?')}", "",
           f"{system.get('host', {}).get('cpu_model', '?')}; {gpus}. Run {hd.get('started_at', '?')}, "
           f"hdbench {hd.get('version', '?')} ({hd.get('git_revision', '?')}). Source: `{source}`. "
           "GB/s means 1e9 bytes per second.", ""]
    for question, answer, needs in QUESTIONS:
        out += [f"## {question}", ""]
        lines = answer(report)
        out += lines if lines else [f"This report cannot answer it: it has no successful runs of {needs}."]
        out.append("")
    skipped = [b for b in report["benchmarks"] if b.get("status") == "skipped"]
    failed = [b for b in report["benchmarks"] if b.get("status") == "error"]
    if skipped or failed:
        out += ["## Not measured", ""]
        reasons: dict[str, int] = {}
        for b in skipped:
            reasons[b.get("skip_reason", "?")] = reasons.get(b.get("skip_reason", "?"), 0) + 1
        out += [f"- {n} skipped: {reason}" for reason, n in sorted(reasons.items())]
        out += [f"- failed: {_name(b)}: {b.get('error_message', '')}" for b in failed]
        out.append("")
    return "\n".join(out)
