"""Text helpers shared by the summary, the page and the figures' titles: Markdown tables,
benchmark and machine names, where a number came from."""

from __future__ import annotations


def made_by(hd: dict, program: str = "", details: tuple = ()) -> str:
    """Which build wrote a report, from its `context.hdbench`: "hdbench 0.1.0 (ffb40a0b4fba)",
    `details` added inside the brackets; what the report did not record is said so, not left
    blank (hdbench_profile's reports from a bundle carried neither before 2026-11-27)."""
    name = program or hd.get("program") or "hdbench"
    version = hd.get("version") or ""
    revision = hd.get("git_revision") or ("revision not recorded" if version else "version not recorded")
    return f"{name}{' ' + version if version else ''} ({', '.join((revision, *details))})"


def name(b: dict) -> str:
    """A benchmark's name in code, with its report's file when the summary reads several."""
    return b.get("_label") or f"`{b.get('name', '?')}`"


named = name


def runs_named(report: dict, names: list) -> list:
    """The runs of these names (the first report's where several ran one)."""
    by_name: dict = {}
    for b in report["benchmarks"]:
        by_name.setdefault(b.get("name"), b)
    return [by_name.get(n) for n in names if n]


def table(header: list[str], rows: list[list[str]], keys: int = 0) -> list[str]:
    """A Markdown table; numbers (cells starting with a digit, `**` or `–`) align right.

    The first `keys` columns say what each row measured (model, dtype, batch…). One of them that
    holds the same value on every row is said once above the table ("On every row: optimizer =
    sgd.") and left out: a wide table then shows only what tells its rows apart. A table of one
    row keeps every column (a lone row's columns are its description), a column with no value
    ("–") stays, and at least one key column stays so the rows keep a label."""
    header, rows, same = _constants_out(header, rows, keys)
    said = [f"On every row: {'; '.join(f'{h} = {v}' for h, v in same)}.", ""] if same else []
    return said + _markdown_table(header, rows)


def _constants_out(header: list[str], rows: list[list[str]], keys: int):
    """(header, rows, [(header, value)]) with the key columns whose value is one on every row taken out."""
    if len(rows) < 2:
        return header, rows, []
    constant = [i for i in range(min(keys, len(header)))
                if all(i < len(r) for r in rows) and len({r[i] for r in rows}) == 1 and rows[0][i] not in ("", "–")]
    if len(constant) == min(keys, len(header)):
        constant = constant[1:]  # every key alike: the first stays as the rows' label
    kept = [i for i in range(len(header)) if i not in constant]
    return ([header[i] for i in kept], [[r[i] for i in kept if i < len(r)] for r in rows],
            [(header[i], rows[0][i]) for i in constant])


def _markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
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


def slug(heading: str) -> str:
    """The id GitHub gives a Markdown heading (lower case, punctuation dropped, spaces to
    hyphens): the summary links to its sections by it, and the HTML page uses the same ids."""
    import re

    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def context_of(report: dict, b: dict) -> dict:
    """The context of the report a benchmark (or derived row) came from."""
    return report.get("contexts", {}).get(b.get("_source"), report.get("context", {}))


def machine_name(context: dict) -> str:
    """A machine by its GPUs and CPU ('NVIDIA H100 80GB HBM3 + Intel(R) Xeon(R) Processor'),
    not by a host name such as `vm` that says nothing of what ran."""
    system = context.get("hdbench", {}).get("system", {})
    names = [g.get("name", "?") for g in system.get("gpus", [])]
    gpus = ", ".join(f"{names.count(n)}× {n}" if names.count(n) > 1 else n for n in dict.fromkeys(names))
    cpu = system.get("host", {}).get("cpu_model") or "unknown CPU"
    made_up = " (synthetic)" if context.get("hdbench", {}).get("synthetic") else ""  # a test generator's report
    return f"{gpus or 'no GPU'} + {cpu}{made_up}"


def machine_label(report: dict, with_host: bool = False) -> str:
    """The machine by its GPU and CPU and the run's date, for figure titles; with its host
    name where reports from several hosts share a figure (two boxes of one model)."""
    host = f" (host {report['context'].get('host_name', '?')})" if with_host else ""
    return f"{machine_name(report['context'])}{host}, {report['context']['hdbench'].get('started_at', '')[:10]}"


def several_hosts(reports) -> bool:
    """Whether the reports ((path, report, …) each) come from more than one host."""
    return len({r[1]["context"].get("host_name") for r in reports}) > 1


def machines(reports) -> str:
    """Every machine of the reports, for a figure drawn from them all."""
    return "; ".join(sorted({machine_label(r[1], several_hosts(reports)) for r in reports}))


def _started(context: dict):
    import datetime

    text = context.get("hdbench", {}).get("started_at", "")
    for form in ("%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S"):
        try:
            return datetime.datetime.strptime(text, form)
        except ValueError:
            continue
    return None


def provenance(report: dict, b: dict, reference: dict) -> str:
    """'' when two benchmarks come from one report (one run); else how far apart their runs
    were and whether on the same machine, e.g. 'a run 3.7 h earlier on the same machine'."""
    if b.get("_source") == reference.get("_source"):
        return ""
    mine, theirs = context_of(report, b), context_of(report, reference)
    when = "another run"
    t0, t1 = _started(mine), _started(theirs)
    if t0 and t1 and (t0.tzinfo is None) == (t1.tzinfo is None):
        hours = (t0 - t1).total_seconds() / 3600
        side = "earlier" if hours < 0 else "later"
        when = (f"a run {abs(hours):.1f} h {side}" if abs(hours) >= 0.05 else
                f"a run {abs(hours) * 60:.0f} min {side}" if abs(hours) * 60 >= 1 else
                "a run started within a minute of it")
    # A report without the system section (an old PyTorch baseline) is told apart by its host name only.
    known = all(c.get("hdbench", {}).get("system") for c in (mine, theirs))
    same = mine.get("host_name") == theirs.get("host_name") and (not known or machine_name(mine) == machine_name(theirs))
    where = ("the same machine" if same else
             f"another machine ({machine_name(mine)}, host `{mine.get('host_name', '?')}`)")
    return f"{when} on {where}"
