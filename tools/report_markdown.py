"""Markdown helpers shared by the summary's modules: tables, sizes, benchmark names."""

from __future__ import annotations


def ok_runs(report: dict, family: str):
    for b in report["benchmarks"]:
        if b.get("status") == "ok" and b.get("run_type", "iteration") == "iteration" and \
                b.get("params", {}).get("family") == family:
            yield b


def name(b: dict) -> str:
    """A benchmark's name in code, with its report's file when the summary reads several."""
    return b.get("_label") or f"`{b.get('name', '?')}`"


named = name


def fmt_size(n: int) -> str:
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table; numbers (cells starting with a digit, `**` or `–`) align right."""
    def numeric(cell: str) -> bool:
        cell = cell.strip("*").lstrip("-−")
        return bool(cell) and (cell[0].isdigit() or cell in ("–", "never"))

    align = ["---:" if rows and all(numeric(r[i]) for r in rows if i < len(r)) else "---" for i in range(len(header))]
    return ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"] + \
        ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]


def sources(report: dict, rows) -> str:
    """The report files some benchmarks or derived rows came from."""
    files = sorted({r.get("_source") for r in rows if r.get("_source")})
    return ", ".join(f"`{f}`" for f in files) or "this report"
