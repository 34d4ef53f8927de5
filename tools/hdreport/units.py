"""How sizes and counts read, in figures and summaries alike: bytes in binary units
(KiB/MiB/GiB), large counts with a k/M/G suffix."""

from __future__ import annotations


def size_text(n: float) -> str:
    """4096 -> `4 KiB`, 1.5 MiB -> `1.5 MiB`: the largest binary unit that keeps n >= 1."""
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if n >= 1 << shift:
            return f"{n / (1 << shift):g} {unit}"
    return f"{n:g} B"


def short_number(v: float) -> str:
    """Three significant digits with a k/M/G suffix: 12345 -> 12.3k, 0.05 -> 0.05."""
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= scale:
            return f"{v / scale:.3g}{suffix}"
    return f"{v:.3g}"
