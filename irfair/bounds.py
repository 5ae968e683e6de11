"""Every number a user gives irfair, checked by one rule whatever its source — a command-line flag, a Python
argument, ``result.check(...)``: its type (Python or numpy integers and floats; never a bool, NaN or an
infinity), and a range derived from its meaning (a seed fits the generator's 32 bits, α lies strictly
between 0 and 1) and from memory (resamples are held as matrices of resamples × queries: more than this
machine holds is refused before the work starts, with the size it would need).

:data:`BOUNDS` declares each number once; :func:`checked` checks a value, :func:`parsed` the text of a
flag, :func:`fits_in_memory` a size worked out from the inputs.
"""
from __future__ import annotations

import math
import numbers
import os
import re
from dataclasses import dataclass

from .errors import IrfairInputError


@dataclass(frozen=True)
class Bound:
    """One number: integer or real, its range (``low``/``high``, each inclusive unless ``*_open``) and the words
    that say what is expected."""

    integer: bool
    low: float
    high: float
    expected: str
    low_open: bool = False
    high_open: bool = False

    def holds(self, value: float) -> bool:
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below


# resamples past these take hours on one machine (10 million permutations of 100 queries: ~1 hour per measure)
MAX_PERMUTATIONS = 10_000_000
MAX_BOOTSTRAP = 1_000_000

BOUNDS = {
    "bootstrap": Bound(True, 0, MAX_BOOTSTRAP, f"an integer from 0 to {MAX_BOOTSTRAP:,}"),
    "permutations": Bound(True, 0, MAX_PERMUTATIONS, f"an integer from 0 to {MAX_PERMUTATIONS:,}"),
    "seed": Bound(True, 0, 2**32 - 1, "an integer from 0 to 4294967295"),
    "alpha": Bound(False, 0, 1, "a number between 0 and 1 (exclusive)", low_open=True, high_open=True),
    "depth": Bound(True, 1, 10**9, "a positive integer"),
}


def _number(bound: Bound, value: object) -> int | float | None:
    """``value`` as a Python int or float when its type fits ``bound`` (numpy scalars included), else None."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    if bound.integer:
        return int(value) if isinstance(value, numbers.Integral) else None
    value = float(value)
    return value if math.isfinite(value) else None


def checked(name: str, value: object, source: str | None = None) -> int | float:
    """``value`` of the number ``name`` (a key of :data:`BOUNDS`) as a Python int or float; IrfairInputError
    naming ``source`` (default ``name``) and what is expected otherwise."""
    bound = BOUNDS[name]
    number = _number(bound, value)
    if number is None or not bound.holds(number):
        raise IrfairInputError(None, None, f"{source or name}={value!r}: expected {bound.expected}")
    return number


_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")


def parsed(name: str, text: str) -> int | float:
    """The text of a flag as the number ``name``; ValueError saying what is expected (argparse adds the flag)."""
    bound = BOUNDS[name]
    text = text.strip()
    try:
        if bound.integer:
            if not _INTEGER_TEXT.fullmatch(text) or len(text) > 30:
                raise ValueError
            number = int(text)
        else:
            number = float(text)
    except ValueError:
        raise ValueError(f"expected {bound.expected}") from None
    if (not bound.integer and not math.isfinite(number)) or not bound.holds(number):
        raise ValueError(f"expected {bound.expected}")
    return number


def physical_memory() -> int:
    """Bytes of memory this machine has (1 TiB when the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (OSError, ValueError):
        return 2**40


def available_memory() -> int:
    """Bytes this process may still fill: the memory the kernel reports available (MemAvailable), else
    physical memory."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return physical_memory()


def fits_in_memory(what: str, needed: int, advice: str) -> None:
    """IrfairInputError before the work starts when ``needed`` bytes (for ``what``) exceed half the memory
    available now; ``advice`` says how to ask for less."""
    available = available_memory()
    if needed > available // 2:
        raise IrfairInputError(None, None, f"{what} would need {needed / 2**30:.1f} GiB of memory, more than half of the "
                                           f"{available / 2**30:.1f} GiB available; {advice}")
