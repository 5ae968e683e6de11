"""Array helpers the measures and the audit share."""
from __future__ import annotations

import numpy as np


def unique_sorted(values, return_inverse: bool = False):
    """``np.unique`` of a 1-d array (ascending distinct values; with ``return_inverse`` also each value's index among
    them), by sorting: numpy 2.4's hash-based ``np.unique`` took 5–10 times as long on the audit's arrays of store rows
    (0.14 s against 0.015 s for 450,000 integers; 7.6 s of MS MARCO's warm audit)."""
    values = np.asarray(values).ravel()
    if not return_inverse:
        ordered = np.sort(values)
        return ordered[np.r_[True, ordered[1:] != ordered[:-1]]] if len(ordered) else ordered
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    first = np.r_[True, ordered[1:] != ordered[:-1]] if len(ordered) else np.zeros(0, dtype=bool)
    inverse = np.empty(len(values), dtype=np.intp)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first], inverse
