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


def digits3(v: float) -> str:
    """Three significant digits, in exponent form only from a million: 0.0512, 45.3, 999,
    1,023, 3,012 (`.3g` writes 1023 as 1e+03: a device copy's 3,012 GB/s read 3.01e+03);
    a figure that is off by orders (1e+12 GB/s) stays short."""
    return f"{v:,.0f}" if 999.5 <= abs(v) < 1e6 else f"{v:.3g}"


def gbps_text(gbps: float, digits=digits3) -> str:
    """A copy rate with its unit: GB/s from 0.01 GB/s up, MB/s (1e6 bytes per second) below,
    where a 4-byte read's 0.000233 GB/s reads 0.233 MB/s. `digits` writes the number."""
    return f"{digits(gbps)} GB/s" if gbps >= 0.01 or gbps <= 0 else f"{digits(gbps * 1e3)} MB/s"


def short_number(v: float, digits: int | None = None) -> str:
    """Three significant digits with a k/M/G suffix: 12345 -> 12.3k, 0.05 -> 0.05 (a figure's ticks
    and labels). With `digits`, a measured number in a sentence or table, to that many significant
    digits with its zeros kept and the suffix spaced: (9202597, 3) -> 9.20 M, where the run's
    noise (about 1%) leaves the 2,597 of 9,202,597 unknown (noise.rate picks the digits)."""
    shown = digits or 3
    rounds_up = 1 - 5 * 10.0 ** -(shown + 1)  # 999.6 at three digits reads 1k, not 1e+03
    number, suffix = v, ""
    for scale, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= rounds_up * scale:
            number, suffix = v / scale, unit
            break
    if digits is None:
        return f"{number:.3g}{suffix}"
    text = f"{number:#.{digits}g}".rstrip(".")  # '#' keeps measured zeros (9.20); "100." loses its point
    return f"{text} {suffix}" if suffix else text
