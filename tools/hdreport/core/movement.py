"""What the answers of the data-movement families share (those of issue 31): their runs, why
none ran, and whether the numbers were made up by a test generator; and the transfer family's
per-copy runs, which the copy answers, the
device-local ones and the managed ones read their numbers against (`per_copy`).

These families came after the reference runs, so their questions are asked only of
reports that have entries of them (hdreport/registry.py, `ASKED_WHERE_RUN`): a report without them
reads as before. A report whose entries of a family were all skipped (no GPU, no concurrent
managed access) answers with the reasons, not with "cannot answer".
"""

from __future__ import annotations

from collections import Counter

from hdreport.core.markdown import context_of, name
from hdreport.core.schema import ok_runs
from hdreport.core.units import binary_unit

GENERATOR = "tests/python/tools/movement_reports.py"


def entries(report: dict, family: str) -> list[dict]:
    """Every entry of a family (run, skipped or failed), Google's aggregates left out."""
    return [b for b in report["benchmarks"] if b.get("params", {}).get("family") == family
            and b.get("run_type", "iteration") == "iteration"]


def has_entries(report: dict, families) -> bool:
    return any(b.get("params", {}).get("family") in families for b in report["benchmarks"])


def runs(report: dict, family: str, **where) -> list[dict]:
    """The successful runs of a family whose params have these values."""
    return [b for b in ok_runs(report, family) if all(b["params"].get(k) == v for k, v in where.items())]


def first_by(runs_: list[dict], *keys: str) -> dict:
    """{(params of keys): run}, the first report's where several ran one configuration."""
    out: dict = {}
    for b in runs_:
        out.setdefault(tuple(b["params"].get(k) for k in keys), b)
    return out


def per_copy(report: dict) -> dict:
    """{(direction, memory, bytes): run} of the transfer family's successful H2D and D2H
    copies one at a time on the copy engine, the first report's where several ran one."""
    runs = {}
    for b in ok_runs(report, "transfer"):
        p = b["params"]
        if p.get("engine") == "copy" and p.get("variant") == "per_copy" and p.get("direction") in ("h2d", "d2h"):
            runs.setdefault((p["direction"], p["memory"], p["bytes"]), b)  # the first report's
    return runs


def _reason(b: dict) -> str:
    return " ".join(str(b.get("skip_reason") or "no reason given").split())


NOT_MEASURED_HERE = "- **Not measured here**: "


def not_run_lines(report: dict, family: str) -> list[str]:
    """Why a family that has entries has no successful run: each skip reason with its count,
    each failure with its message."""
    mine = entries(report, family)
    skipped = Counter(_reason(b) for b in mine if b.get("status") == "skipped")
    failed = [b for b in mine if b.get("status") == "error"]
    if not skipped and not failed:
        return []
    lines = [f"{NOT_MEASURED_HERE}{n} `{family}` run{'s' if n != 1 else ''} skipped: {reason}"
             f"{'' if reason.endswith('.') else '.'}" for reason, n in sorted(skipped.items())]
    lines += [f"- **Failed**: {name(b)}: {' '.join(str(b.get('error_message', '')).split())}" for b in failed]
    return lines


def left_out_lines(report: dict, family: str, key: str) -> list[str]:
    """Beside an answer: the family's skipped and failed entries, by reason, naming the values
    of `key` (e.g. the method) they had; [] when every entry ran."""
    groups: dict[tuple, list] = {}
    for b in entries(report, family):
        if b.get("status") == "skipped":
            groups.setdefault(("skipped", _reason(b)), []).append(b)
        elif b.get("status") == "error":
            groups.setdefault(("failed", " ".join(str(b.get("error_message", "")).split())), []).append(b)
    lines = []
    for (status, why), bs in sorted(groups.items()):
        values = ", ".join(f"`{v}`" for v in dict.fromkeys(str(b["params"].get(key, "?")) for b in bs))
        lines.append(f"- {len(bs)} run{'s' if len(bs) != 1 else ''} {status} ({values}): {why}")
    return lines


def synthetic(report: dict, runs_: list[dict]) -> bool:
    return any(context_of(report, b).get("hdbench", {}).get("synthetic") for b in runs_)


def synthetic_lines(report: dict, runs_: list[dict]) -> list[str]:
    """A first line saying the numbers are synthetic, where a run came from a generated report."""
    if not synthetic(report, runs_):
        return []
    return [f"**Synthetic numbers**: made by `{GENERATOR}` to test the report tools, not measured.", ""]


def answer(report: dict, family: str, found: list[dict], lines: list[str]) -> list[str]:
    """An answer's lines: the synthetic warning first, then the lines; or, where nothing of the
    family succeeded, why."""
    if not found:
        return not_run_lines(report, family)
    return synthetic_lines(report, found) + lines


def noise_text(b: dict) -> str:
    """A run's spread: its noise (the stopping rule's) and its CV, as far as it has them."""
    c = b.get("counters", {})
    parts = []
    if "noise_percent" in c:
        parts.append(f"noise ±{c['noise_percent']:.1f}%" if c.get("samples", 2) >= 2 else "noise unknown (1 sample)")
    if "cv_percent" in c:
        parts.append(f"CV {c['cv_percent']:.1f}%")
    return ", ".join(parts)


def us(value: float) -> str:
    """A time in µs: whole µs from 100 (with separators), one decimal from 10, two below."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def size(n: float) -> str:
    """Bytes in KiB/MiB/GiB: exact where a whole unit (`4 MiB`), else 3 significant digits
    (`5.33 MiB`, a batch's payload)."""
    value, unit = binary_unit(n)
    if unit == "B":
        return f"{n:g} B"
    return f"{value:g} {unit}" if value * 4 == int(value * 4) else f"{value:.3g} {unit}"


def rate(value: float) -> str:
    """GB/s: whole from 1000 (with separators), one decimal below."""
    return f"{value:,.0f}" if value >= 1000 else f"{value:.1f}"


def close(report, family: str, found, lines: list, axis: str, heading: str = "Not measured:"):
    """The answer's last lines: what was left out of it (by `axis`), then the answer."""
    left = left_out_lines(report, family, axis)
    if left:
        lines += ["", heading, "", *left]
    return answer(report, family, found, lines)
