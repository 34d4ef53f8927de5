"""How sizes and counts read, in figures and summaries alike: bytes in binary units
(KiB/MiB/GiB), large counts with a k/M/G suffix."""

from __future__ import annotations


def binary_unit(n: float) -> tuple[float, str]:
    """(value, unit) in the largest binary unit that keeps the value >= 1: 6291456 -> (6.0, "MiB")."""
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if n >= 1 << shift:
            return n / (1 << shift), unit
    return n, "B"


def size_text(n: float) -> str:
    """4096 -> `4 KiB`, 1.5 MiB -> `1.5 MiB`: the largest binary unit that keeps n >= 1."""
    value, unit = binary_unit(n)
    return f"{value:g} {unit}"


def short_number(v: float) -> str:
    """Three significant digits with a k/M/G suffix: 12345 -> 12.3k, 0.05 -> 0.05."""
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= scale:
            return f"{v / scale:.3g}{suffix}"
    return f"{v:.3g}"
