"""`compare BEFORE AFTER` of two hdbench_profile reports: what a change to a program did to
its data movement, side by side.

The realized change is the span's (from the first GPU record to the last: what the
findings' savings are fractions of) and the wall time's, before -> after, and where both
profiles cut their loops into steps the steps' time a batch (`model.seconds.T` over
`model.batches`): the prices are made on the steps, and the span also holds start-up
(workers starting) and what follows the loop, so the realized saving on the steps (that
time a batch, before less after, over BEFORE's batches) is the like-for-like one. Each finding,
paired by `id`, is **resolved** (in BEFORE only), **new** (in AFTER only), or, in both,
**better** / **worse** when its saving fell / rose by more than the threshold (a
fraction of BEFORE's saving), else **same**; the saving is `saving_alone_s` where the
profile has it (schema 2, whose `saving_s` is what a fix adds to those ranked above it and
so moves when another finding comes or goes), else `saving_s`. A finding's `assumption`
is shown where it has one. The realized saving is BEFORE's span minus
AFTER's: with one finding resolved it is attributed to that one; with several resolved
at once it cannot be split among them, so the sum of their predicted savings stands
against it (their `saving_s`, which in schema 2 add up). Then the totals (the usual ones and any other number both reports have), the
copy classes (by direction, memory at each end, blocking, size bucket; those in one
report only marked so) and, where both reports have one, the `idle` section (GPU idle
seconds by cause), side by side. Fields it does not know are ignored.

AFTER's span longer than BEFORE's by more than the threshold is a regression (the
command line exits 1). A profile that recorded nothing is said to have done so, and only
what both have (the wall time) is compared. The command line (`hdbench_report.py compare`)
reads both reports, sends two profile reports here, and a profile report against a
benchmark report to check_pair's usage error (exit 2); its `--threshold` is in percent.

Units: seconds (shown as s, ms or µs), bytes in binary units, GB/s = 1e9 bytes/s. The
findings section is compare_findings.py's, the numbers' text compare_text.py's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hdreport.core.markdown import table
from hdreport.core.schema import ReportError
from hdreport.core.units import gbps_text
from hdreport.profile.baseline import is_profile_report
from hdreport.profile.compare_findings import STATUS_ORDER, findings_section
from hdreport.profile.compare_text import (change_text, count_text, duration, is_number, one_line, percent_change,
                                          realized_text, size_text, total_change, total_text)
from hdreport.profile.model import cut_into_steps

DEFAULT_THRESHOLD = 0.05
TOTALS_ORDER = ("span_s", "gpu_busy_s", "gpu_idle_s", "kernel_s", "copy_s", "host_blocked_s", "copies",
                "copy_bytes", "devices")
CLASS_KEY = ("direction", "src", "dst", "blocking", "size_bucket")
DIRECTIONS = {"h2d": "H2D", "d2h": "D2H", "d2d": "D2D", "h2h": "H2H", "p2p": "P2P"}


# --- checking the pair ----------------------------------------------------------------

def is_profile(report: dict) -> bool:
    return is_profile_report(report)


def check_pair(before_path: str, before: dict, after_path: str, after: dict) -> None:
    """ReportError (one line) unless both reports are profile reports with a `profile`
    section the comparison can read. Call only when at least one is a profile report."""
    kinds = [(p, is_profile(r)) for p, r in ((before_path, before), (after_path, after))]
    if not all(k for _, k in kinds):
        profile = next(p for p, k in kinds if k)
        other = next(p for p, k in kinds if not k)
        raise ReportError(f"{profile} is a profile report (hdbench_profile) and {other} is a benchmark report: "
                          "`compare` compares two benchmark reports or two profile reports, not one of each")
    for path, report in ((before_path, before), (after_path, after)):
        if not isinstance(report.get("profile"), dict):
            raise ReportError(f"{path}: an hdbench_profile report without a `profile` section (malformed profile)")


# --- the comparison -----------------------------------------------------------------

@dataclass
class FindingChange:
    id: str
    status: str  # resolved, new, better, worse, same
    before: dict | None
    after: dict | None

    @property
    def saving_before(self) -> float | None:
        return None if self.before is None else price(self.before)

    @property
    def saving_after(self) -> float | None:
        return None if self.after is None else price(self.after)


def price(finding: dict) -> float:
    """What fixing this habit saves: `saving_alone_s` where the profile has it (schema 2, where
    `saving_s` is only what the fix adds to those ranked above it, so it moves when another
    finding comes or goes), else `saving_s`."""
    alone = finding.get("saving_alone_s")
    return alone if is_number(alone) else finding["saving_s"]


@dataclass
class Side:
    path: str
    report: dict

    @property
    def profile(self) -> dict:
        return self.report["profile"]

    @property
    def recorded(self) -> bool:
        return bool(self.profile.get("recorded"))

    @property
    def span(self) -> float | None:
        return self.profile["totals"]["span_s"] if self.recorded else None

    @property
    def step_s_a_batch(self) -> float | None:
        """The loop's steps' time a batch (`model.seconds.T` over `model.batches`) where the model
        cut the program into steps (at its reads, synchronizes or iteration ranges), else None:
        one stretch holds set-up, not the loop alone."""
        m = self.profile.get("model") if self.recorded else None
        if not isinstance(m, dict) or not cut_into_steps(m):
            return None
        t, batches = (m.get("seconds") or {}).get("T"), m.get("batches")
        return t / batches if is_number(t) and is_number(batches) and batches > 0 else None


@dataclass
class Comparison:
    before: Side
    after: Side
    threshold: float  # a fraction
    findings: list[FindingChange] = field(default_factory=list)

    @property
    def both_recorded(self) -> bool:
        return self.before.recorded and self.after.recorded

    @property
    def realized_saving(self) -> float | None:
        """BEFORE's span minus AFTER's (negative when AFTER's is longer)."""
        return self.before.span - self.after.span if self.both_recorded else None

    @property
    def realized_on_steps(self) -> tuple | None:
        """(BEFORE's steps' time a batch, AFTER's, BEFORE's batches, the saving over them) where
        both profiles cut their loops into steps: like with like, as the prices are made on the
        steps; the span also holds start-up (workers starting) and what follows the loop."""
        b, a = self.before.step_s_a_batch, self.after.step_s_a_batch
        if b is None or a is None:
            return None
        batches = self.before.profile["model"]["batches"]
        return b, a, batches, (b - a) * batches

    @property
    def resolved(self) -> list[FindingChange]:
        return [f for f in self.findings if f.status == "resolved"]

    @property
    def regressed(self) -> bool:
        """AFTER's span longer than BEFORE's by more than the threshold."""
        return self.both_recorded and self.after.span > self.before.span * (1 + self.threshold)

    @property
    def exit_code(self) -> int:
        return 1 if self.regressed else 0


def findings_by_id(profile: dict) -> dict[str, dict]:
    """id -> finding (the first with that id, should a report repeat one)."""
    out: dict[str, dict] = {}
    for f in profile.get("findings", []):
        out.setdefault(f["id"], f)
    return out


def changed(before: float, after: float, threshold: float) -> str:
    """better, worse or same: whether a saving fell or rose by more than `threshold` of BEFORE's."""
    if after > before + threshold * before:
        return "worse"
    if after < before - threshold * before:
        return "better"
    return "same"


def classify(before: dict, after: dict, threshold: float) -> list[FindingChange]:
    """Each finding of either profile, paired by id, by status, then by the larger saving."""
    b, a = findings_by_id(before), findings_by_id(after)
    rows = []
    for fid in list(b) + [i for i in a if i not in b]:
        if fid not in a:
            status = "resolved"
        elif fid not in b:
            status = "new"
        else:
            status = changed(price(b[fid]), price(a[fid]), threshold)
        rows.append(FindingChange(fid, status, b.get(fid), a.get(fid)))
    return sorted(rows, key=lambda r: (STATUS_ORDER.index(r.status),
                                       -max(r.saving_before or 0.0, r.saving_after or 0.0)))


def compare(before_path: str, before: dict, after_path: str, after: dict,
            threshold: float = DEFAULT_THRESHOLD) -> Comparison:
    """The comparison of two profile reports (check_pair them first)."""
    c = Comparison(Side(before_path, before), Side(after_path, after), threshold)
    if c.both_recorded:
        c.findings = classify(before["profile"], after["profile"], threshold)
    return c


def command_text(side: Side) -> str:
    command = side.profile.get("command")
    if not isinstance(command, list):
        return "?"
    return one_line(" ".join(str(c) for c in command)).replace("`", "'")


def header(c: Comparison) -> list[str]:
    b, a = c.before, c.after
    lines = [f"# Profile comparison: `{command_text(b)}` -> `{command_text(a)}`", ""]
    rows = [["report", f"`{one_line(Path(b.path).name)}`", f"`{one_line(Path(a.path).name)}`", ""],
            ["command", f"`{command_text(b)}`", f"`{command_text(a)}`", ""],
            ["wall", duration(b.profile["wall_s"]), duration(a.profile["wall_s"]),
             change_text(b.profile["wall_s"], a.profile["wall_s"])]]
    if c.both_recorded:
        rows.append(["span", duration(b.span), duration(a.span), change_text(b.span, a.span)])
        if (steps := c.realized_on_steps) is not None:
            rows.append(["the loop's steps, a batch", duration(steps[0]), duration(steps[1]),
                         change_text(steps[0], steps[1])])
    else:
        rows.append(["span", duration(b.span) if b.recorded else "– (nothing recorded)",
                     duration(a.span) if a.recorded else "– (nothing recorded)", ""])
    lines += table(["", "before", "after", "change"], rows) + [""]
    wall = f"wall {realized_text(b.profile['wall_s'], a.profile['wall_s'])}"
    if c.both_recorded:
        steps = c.realized_on_steps
        on_steps = f"; the loop's steps {realized_text(steps[0], steps[1])} a batch" if steps else ""
        lines.append(f"**Realized change:** span {realized_text(b.span, a.span)}{on_steps}; {wall}.")
    else:
        lines.append(f"**Realized change:** {wall}; the span cannot be compared.")
    if not c.both_recorded:
        lines.append("")
    for side, name in ((b, "BEFORE"), (a, "AFTER")):
        if not side.recorded:
            reason = one_line(side.profile.get("not_recorded_reason") or "no reason given")
            lines.append(f"- {name} (`{one_line(Path(side.path).name)}`) recorded nothing: {reason}. "
                         "Only what both reports have is compared.")
    lines += notes(c)
    return lines


def machine(report: dict) -> tuple:
    context = report.get("context", {})
    system = context.get("hdbench", {}).get("system", {})
    return (context.get("host_name"), tuple(g.get("name") for g in system.get("gpus", [])))


def priced_by(report: dict) -> str:
    """The revision whose model priced a profile: the one that made it again (`reanalyse`),
    else the one that recorded it ('' when it did not say)."""
    hdbench = report.get("context", {}).get("hdbench", {})
    again = hdbench.get("reanalysed") or {}
    return again.get("git_revision") or hdbench.get("git_revision") or ""


def notes(c: Comparison) -> list[str]:
    out = []
    b, a = c.before, c.after
    models = (priced_by(b.report), priced_by(a.report))
    remade = [n for s, n in ((b, "BEFORE"), (a, "AFTER")) if s.report.get("context", {}).get("hdbench", {})
              .get("reanalysed")]
    if models[0] != models[1] or len(remade) == 1:
        out.append(f"- The two were priced by different models (BEFORE by {models[0] or 'an unnamed revision'}, "
                   f"AFTER by {models[1] or 'an unnamed revision'}"
                   + (f"; {' and '.join(remade)} made again by `reanalyse`" if remade else "")
                   + "): a finding may be new or resolved because the model changed, not the program.")
    synthetic = [n for s, n in ((b, "BEFORE"), (a, "AFTER")) if s.profile.get("synthetic") is True]
    if synthetic:
        out.append(f"- **Synthetic:** {' and '.join(synthetic)} made up by a test generator, not measured.")
    if machine(b.report) != machine(a.report):
        out.append(f"- The reports come from different machines: {machine(b.report)} vs {machine(a.report)}.")
    if b.profile.get("schema") != a.profile.get("schema"):
        out.append(f"- BEFORE is a schema {b.profile.get('schema')} profile and AFTER schema "
                   f"{a.profile.get('schema')}: copy times and savings were measured and priced differently; "
                   "compare them with care.")
    bb, ab = b.profile.get("baseline", {}), a.profile.get("baseline", {})
    if c.both_recorded and (bb.get("machine"), bb.get("started_at")) != (ab.get("machine"), ab.get("started_at")):
        out.append("- The two were judged against different baselines, so their predicted savings rest on "
                   "different ceilings.")
    return [""] + out if out else []


def totals_section(c: Comparison) -> list[str]:
    lines = ["## Totals", ""]
    if not c.both_recorded:
        return lines + ["Not compared: " + " and ".join(
            n for s, n in ((c.before, "BEFORE"), (c.after, "AFTER")) if not s.recorded) + " recorded nothing."]
    b, a = c.before.profile["totals"], c.after.profile["totals"]
    keys = [k for k in TOTALS_ORDER if k in b and k in a]
    keys += sorted(k for k in b.keys() & a.keys() if k not in TOTALS_ORDER)
    rows = [[k, total_text(k, b[k]), total_text(k, a[k]), total_change(k, b[k], a[k])]
            for k in keys if is_number(b[k]) and is_number(a[k])]
    lines += table(["total", "before", "after", "change"], rows)
    only = sorted((b.keys() ^ a.keys()) - {"devices"})
    if only:
        lines += ["", "In one report only (not compared): " + ", ".join(f"`{one_line(k)}`" for k in only) + "."]
    return lines


def class_key(c: dict) -> tuple:
    return tuple(c[k] for k in CLASS_KEY)


def classes_by_key(profile: dict) -> dict[tuple, dict]:
    """key -> count, bytes, time_s, GB/s (classes repeated under one key are summed)."""
    out: dict[tuple, dict] = {}
    for c in profile.get("copy_classes", []):
        k = class_key(c)
        if k in out:
            o = out[k]
            o["count"] += c["count"]
            o["bytes"] += c["bytes"]
            o["time_s"] += c["time_s"]
            o["achieved_GB/s"] = o["bytes"] / o["time_s"] / 1e9 if o["time_s"] > 0 else 0.0
        else:
            out[k] = {x: c[x] for x in ("count", "bytes", "time_s", "achieved_GB/s")}
    return out


def copy_classes_section(c: Comparison) -> list[str]:
    lines = ["## Copy classes", ""]
    if not c.both_recorded:
        return lines + ["Not compared: a profile that recorded nothing has no copies."]
    b, a = classes_by_key(c.before.profile), classes_by_key(c.after.profile)
    keys = list(b) + [k for k in a if k not in b]
    if not keys:
        return lines + ["Neither profile recorded a copy between host and device."]
    keys.sort(key=lambda k: -max(b.get(k, {}).get("time_s", 0.0), a.get(k, {}).get("time_s", 0.0)))
    rows = []
    for k in keys:
        direction, src, dst, blocking, bucket = k
        x, y = b.get(k), a.get(k)
        where = "both" if x and y else "**before only**" if x else "**after only**"

        def cell(d, key, fmt):
            return fmt(d[key]) if d else "–"

        rows.append([DIRECTIONS.get(direction, one_line(direction)), f"{one_line(src)} → {one_line(dst)}",
                     "blocking" if blocking else "async", one_line(bucket), where,
                     cell(x, "count", count_text), cell(y, "count", count_text),
                     cell(x, "bytes", size_text), cell(y, "bytes", size_text),
                     cell(x, "time_s", duration), cell(y, "time_s", duration),
                     cell(x, "achieved_GB/s", gbps_text), cell(y, "achieved_GB/s", gbps_text)])
    lines += table(["direction", "src → dst", "blocking", "size", "in", "count before", "count after",
                    "bytes before", "bytes after", "time before", "time after", "rate before", "rate after"], rows)
    return lines


def idle_of(profile: dict) -> dict[str, float] | None:
    """cause -> seconds of the GPU's idle time: `idle.by_cause_s` and `idle.unattributed_s`
    (typed at load: hdreport/core/schema.py's IDLE), or None where the profile has no `idle`."""
    idle = profile.get("idle")
    if idle is None:
        return None
    return {**idle["by_cause_s"], **({"unattributed": idle["unattributed_s"]} if "unattributed_s" in idle else {})}


def idle_section(c: Comparison) -> list[str]:
    b, a = idle_of(c.before.profile), idle_of(c.after.profile)
    if b is None and a is None:
        return []
    lines = ["## GPU idle by cause", ""]
    if b is None or a is None:
        which = "AFTER" if b is None else "BEFORE"
        return lines + [f"Only {which} attributes the GPU's idle time by cause (`profile.idle`); not compared."]
    keys = [k for k in list(b) + [k for k in a if k not in b] if b.get(k) or a.get(k)]  # zero on both: left out
    if not keys:
        return lines + ["Neither profile attributes any GPU idle time to a cause."]
    rows = []
    for k in keys:
        x, y = b.get(k), a.get(k)
        rows.append([f"`{one_line(k)}`", "–" if x is None else duration(x), "–" if y is None else duration(y),
                     change_text(x, y) if x is not None and y is not None else "–"])
    return lines + table(["cause", "before", "after", "change"], rows)


def verdict(c: Comparison) -> str:
    t = f"{c.threshold * 100:g}%"
    if not c.both_recorded:
        empty = " and ".join(n for s, n in ((c.before, "BEFORE"), (c.after, "AFTER")) if not s.recorded)
        return f"No span to compare ({empty} recorded nothing): no regression can be called."
    b, a = c.before.span, c.after.span
    if c.regressed:
        return f"**REGRESSION:** AFTER's span is {percent_change(b, a)} against BEFORE's, beyond the {t} threshold."
    return f"No regression: AFTER's span is {percent_change(b, a)} against BEFORE's (threshold {t})."


def format_report(c: Comparison) -> str:
    parts = [header(c), findings_section(c), totals_section(c), copy_classes_section(c), idle_section(c),
             [verdict(c)]]
    lines: list[str] = []
    for part in parts:
        if part:
            lines += part + [""]
    return "\n".join(lines).rstrip("\n")
