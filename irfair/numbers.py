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
