"""Input checks shared by ``irfair.fairness``: a bad argument becomes one ``IrfairInputError`` that
says what was expected, never a numpy ``IndexError``, a silent NaN or a string split into characters."""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..errors import IrfairInputError

_ARRAYS = (np.ndarray, pd.Series, pd.Index, pd.Categorical)


def short(value: object, limit: int = 60) -> str:
    """``repr(value)`` (numpy scalars shown as Python values), abbreviated to about ``limit`` characters
    so error lines stay short."""
    text = repr(value.item() if isinstance(value, np.generic) else value)
    return text if len(text) <= limit else text[: limit - 5] + "…" + text[-4:]


def fail(expected: str) -> IrfairInputError:
    """An input error about an argument (no file, no line)."""
    return IrfairInputError(None, None, expected)


def sequence(name: str, values: object, *, allow_missing: bool = False) -> np.ndarray:
    """``values`` as a one-dimensional array; strings, scalars, sets, mappings and generators are
    refused, and so are missing (None/NaN) or infinite entries unless ``allow_missing``."""
    if values is None or isinstance(values, (str, bytes, Mapping, set, frozenset)) or np.ndim(values) == 0:
        raise fail(f"{name} must be a sequence (list, tuple, array or Series), not {type(values).__name__}")
    if isinstance(values, _ARRAYS):
        array = np.asarray(values)
    else:
        items = list(values)
        kinds = {type(v) for v in items}
        if len(kinds) == 1 and not kinds & {list, tuple, dict}:
            array = np.asarray(items)
        else:  # mixed types stay objects: numpy would turn 1 and "1" into the same string
            array = np.empty(len(items), dtype=object)
            array[:] = items
    if array.ndim != 1:
        raise fail(f"{name} must be one-dimensional, got shape {array.shape}")
    if not allow_missing and len(array):
        bad = _first_missing(array)
        if bad is not None:
            raise fail(f"{name}[{bad}] is {short(array[bad])}: expected a value for every example (no None, NaN or inf)")
    return array


def _first_missing(array: np.ndarray) -> int | None:
    if array.dtype.kind in "fc":
        bad = ~np.isfinite(array)
    elif array.dtype.kind == "O":
        bad = np.array([v is None or (isinstance(v, (float, np.floating)) and not math.isfinite(v)) or v is pd.NA
                        or v is pd.NaT for v in array], dtype=bool)
    else:
        return None
    return int(np.argmax(bad)) if bad.any() else None


def texts(name: str, values: object) -> list[str]:
    """``values`` as a list of strings (each entry checked)."""
    array = sequence(name, values)
    for i, text in enumerate(array):
        if not isinstance(text, str):
            raise fail(f"{name}[{i}] must be a string, not {type(text).__name__} ({short(text)})")
    return [str(t) for t in array]


def same_length(**arrays: object) -> int:
    """The common length of the named sequences; an error naming both when two differ."""
    names = list(arrays)
    first = names[0]
    for other in names[1:]:
        if len(arrays[other]) != len(arrays[first]):
            raise fail(f"{first} has {len(arrays[first])} values but {other} has {len(arrays[other])}: "
                       "expected one value per example in each")
    return len(arrays[first])


def number(name: str, value: object, *, low: float | None = None, low_open: bool = False, high: float | None = None,
           high_open: bool = False, integer: bool = False) -> float:
    """``value`` as a finite number within the stated bounds."""
    kind = "an integer" if integer else "a finite number"
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise fail(f"{name} must be {kind}, not {short(value)}")
    if not math.isfinite(value) or (integer and float(value) != int(value)):
        raise fail(f"{name} must be {kind}, not {short(value)}")
    if low is not None and (value < low or (low_open and value == low)):
        raise fail(f"{name} must be {'>' if low_open else '>='} {low:g}, not {short(value)}")
    if high is not None and (value > high or (high_open and value == high)):
        raise fail(f"{name} must be {'<' if high_open else '<='} {high:g}, not {short(value)}")
    return float(value)


def member(name: str, value: object, allowed: list, what: str) -> None:
    """An error unless ``value`` is one of ``allowed``; the message lists them."""
    if not any(_equal(value, a) for a in allowed):
        shown = ", ".join(short(a, 30) for a in allowed[:8]) + (", …" if len(allowed) > 8 else "")
        raise fail(f"{name} {short(value)} is not among the {what} ({shown})")


def _equal(a: object, b: object) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False
