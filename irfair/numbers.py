"""Small helpers for numbers that leave irfair (JSON, printed tables)."""
from __future__ import annotations

import math


def finite_or_none(value):
    """``value`` unless it is a float that is NaN or infinite, then ``None`` (JSON has no NaN)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
