"""Human units for printing only. Inside, everything is base units (bytes, FLOP, seconds).
GB = 1e9 and GiB = 2**30: output says which."""

from __future__ import annotations


def format_count(value: float) -> str:
    """Parameter or FLOP count with an SI prefix: 8.03 B, 114.7 T."""
    for factor, suffix in ((1e15, "P"), (1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(value) >= factor:
            return f"{value / factor:.2f} {suffix}"
    return f"{value:.0f}"


def format_bytes(value: float, binary: bool = False) -> str:
    """Bytes in GB (1e9) by default, or GiB/MiB/KiB (2**30...) when binary."""
    if binary:
        steps = ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB"))
    else:
        steps = ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB"))
    for factor, suffix in steps:
        if abs(value) >= factor:
            return f"{value / factor:.2f} {suffix}"
    return f"{value:.0f} B"


def format_seconds(value: float) -> str:
    if value >= 1:
        return f"{value:.3f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.2f} ms"
    return f"{value * 1e6:.1f} us"


def format_seconds_short(value: float) -> str:
    """A time in a sentence, to three figures: milliseconds under a second, seconds above (`5.75 s`, not `5.75e+03
    ms`), whole seconds past a thousand (`2,672 s`). The diagnosis' evidence quotes times so; tables use
    format_seconds."""
    if value < 1:
        return f"{value * 1e3:.3g} ms"
    return f"{value:.3g} s" if value < 1000 else f"{value:,.0f} s"
