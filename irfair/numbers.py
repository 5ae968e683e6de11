"""Small helpers for numbers that leave irfair (JSON, printed tables)."""
from __future__ import annotations

import math


def finite_or_none(value):
    """``value`` unless it is a float that is NaN or infinite, then ``None`` (JSON has no NaN)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``"1 item"``, ``"3 items"``: a count with its noun (``plural`` when adding 's' is wrong)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def first_few(items, limit: int = 5) -> str:
    """The first ``limit`` items, comma-separated, then ``...`` when there are more: ``"1, 2, 3, 4, 5, ..."``."""
    items = [str(item) for item in items]
    return ", ".join(items[:limit]) + (", ..." if len(items) > limit else "")


# Every number printed for people (terminal, table.txt, markdown, LaTeX, report.html, SVG, study tables) passes
# through :func:`denoised`: a magnitude below NOISE is floating-point noise around an exact 0 (GSR(N) of the toy
# collections is -1.4e-17 with one CPU's BLAS kernels and +2.7e-17 with another's) and prints as 0, with no
# sign. Machine-readable outputs (audit.json, CSV, TSV) keep every bit. The measures printed are of order 1
# (GSR, genderedness, MAP, deltas), so one absolute tolerance serves them all.
NOISE = 1e-12


def denoised(value: float) -> float:
    """``value``, or ``0.0`` when ``|value| < NOISE`` (so ``-1e-17`` prints as ``+0.0000``, never ``-0.0000``)."""
    return 0.0 if abs(value) < NOISE else value


def fixed(value, digits: int = 4, sign: bool = False) -> str:
    """A number for people with ``digits`` decimals (``+`` before positives when ``sign``); ``n/a`` for
    None, NaN or infinity; noise below :data:`NOISE` printed as 0."""
    if value is None or not math.isfinite(float(value)):
        return "n/a"
    value = denoised(float(value))
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def exact_or_zero(value: float, digits: int = 6) -> str:
    """``+1.498372`` with ``digits`` decimals, or ``0 (|x| < 1e-12)`` for noise around an exact 0 (the demo's
    check that GSR(N) = 0 and GSR(S) + GSR(CS) = 0)."""
    return f"0 (|x| < {NOISE:g})" if abs(value) < NOISE else f"{value:+.{digits}f}"


def rounded(frame, digits: int = 4):
    """A numeric DataFrame or Series rounded to ``digits`` for printing, with no ``-0.0`` (noise and values that
    round to 0 print unsigned)."""
    out = frame.round(digits)
    if hasattr(out, "select_dtypes"):  # a DataFrame: its float columns (integer columns stay integers)
        floats = out.select_dtypes("floating").columns
        out[floats] = out[floats] + 0.0
        return out
    return out + 0.0 if out.dtype.kind == "f" else out


def settled(value):
    """``value`` (a float or an array) rounded to 12 decimals, for ordering: values equal up to floating-point
    noise then compare equal, so a stable order (not the CPU's last bits) decides between them."""
    import numpy as np  # numbers.py stays importable without numpy for the light CLI modules

    return np.round(value, 12)


def byte_size(count: float) -> str:
    """A number of bytes for a reader: ``512 bytes``, ``2.3 MB``, ``5.8 GB`` (powers of 1,000)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{int(count)} bytes"
