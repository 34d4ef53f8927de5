"""How `compare` of two profile reports writes its numbers: durations in s, ms or µs with
three significant digits, changes signed with their percent, sizes in binary units, counts
with thousands separators. Units: seconds, bytes; GB/s = 1e9 bytes/s."""

from __future__ import annotations

import math

from hdreport.core.units import binary_unit, digits3


def one_line(text) -> str:
    return " ".join(str(text).split())


def duration(seconds: float) -> str:
    """s from 1 s, ms from 1 ms, else µs (signless: the caller adds a sign)."""
    s = abs(seconds)
    if s >= 1:
        return f"{s:,.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:,.0f} ms" if s >= 0.1 else f"{sig3(s * 1e3)} ms"
    return "0 s" if s == 0 else f"{sig3(s * 1e6)} µs"


def sig3(v: float) -> str:
    """Three significant digits, trailing zeros kept: 10.0, 4.00, 61.4, 100."""
    return f"{v:#.3g}".rstrip(".")


def signed_duration(seconds: float) -> str:
    return ("+" if seconds > 0 else "-" if seconds < 0 else "±") + duration(seconds)


def percent_change(before: float, after: float) -> str:
    if before == 0:
        return "–" if after == 0 else "new"
    return f"{100 * (after - before) / before:+.1f}%"


def change_text(before: float, after: float, fmt=signed_duration) -> str:
    """`-7.48 s (-44.5%)`, or `no change`."""
    return "no change" if after == before else f"{fmt(after - before)} ({percent_change(before, after)})"


def realized_text(before: float, after: float) -> str:
    """`16.82 s -> 9.34 s (-7.48 s, -44.5%)`."""
    return f"{duration(before)} -> {duration(after)} ({signed_duration(after - before)}, " \
           f"{percent_change(before, after)})"


def size_text(n: float) -> str:
    value, unit = binary_unit(abs(n))
    sign = "-" if n < 0 else ""
    if unit == "B":
        return f"{sign}{abs(n):,.0f} B"
    return f"{sign}{value:,.2f} {unit}" if unit == "GiB" else f"{sign}{digits3(value)} {unit}"


def count_text(n: float) -> str:
    return f"{n:,.0f}" if float(n).is_integer() else digits3(n)


def total_text(key: str, value: float) -> str:
    if key.endswith("_s"):
        return duration(value)
    if key.endswith("_bytes") or key == "bytes":
        return size_text(value)
    if key.endswith("GB/s"):
        return f"{digits3(value)} GB/s"
    return count_text(value)


def total_change(key: str, before: float, after: float) -> str:
    d = after - before
    if d == 0:
        return "no change"
    if key.endswith("_s"):
        delta = signed_duration(d)
    elif key.endswith("_bytes"):
        delta = ("+" if d > 0 else "") + size_text(d) if d else "±0 B"
    else:
        delta = f"{d:+,.0f}" if float(d).is_integer() else ("+" if d > 0 else "") + digits3(d)
    return f"{delta} ({percent_change(before, after)})"


def share(part: float, whole: float | None) -> str:
    return f"{100 * part / whole:.1f}%" if whole else ""


def is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
