"""Shared shape handling for per-document values of many ranked lists (one row per query).

A batch is a 2-D array of shape (n_queries, depth), row q holding the values of query q's documents
in rank order, with a boolean ``mask`` of the same shape that is True for the first ``n_q`` positions
(the documents the list has) and False for the padding after them.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import IrfairInputError


def stack_ranked_lists(lists: Sequence[np.ndarray], fill: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Pad ragged per-list values into ``(values, mask)``, both of shape (n_queries, longest list)."""
    rows = [np.asarray(values, dtype=np.float64).ravel() for values in lists]
    lengths = np.array([len(row) for row in rows], dtype=np.int64)
    depth = int(lengths.max()) if len(rows) else 0
    mask = np.arange(depth) < lengths[:, None]
    values = np.full((len(rows), depth), fill, dtype=np.float64)
    if depth:
        values[mask] = np.concatenate(rows)
    return values, mask


def single_list(values: np.ndarray, name: str) -> np.ndarray:
    """One ranked list's values, shape (n_docs,), as a batch of one query, shape (1, n_docs)."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise IrfairInputError(None, None, f"expected {name} of shape (n_docs,), got shape {array.shape}")
    return array[None, :]


def as_batch(arrays: dict[str, np.ndarray], mask: np.ndarray | None) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Validated float64 copies of ``arrays`` (all of shape (n_queries, depth)), the mask and list lengths.

    Masked-out positions are set to 0 in the copies, so sums over a row only see real documents.
    Values at real positions must be finite and non-negative.
    """
    names = list(arrays)
    values = [np.array(arrays[name], dtype=np.float64) for name in names]
    shape = values[0].shape
    if len(shape) != 2:
        raise IrfairInputError(None, None, f"expected {names[0]} of shape (n_queries, depth), got shape {shape}")
    for name, array in zip(names, values):
        if array.shape != shape:
            raise IrfairInputError(None, None, f"expected {name} of shape {shape}, got shape {array.shape}")
    if mask is None:
        valid = np.ones(shape, dtype=bool)
    else:
        valid = np.asarray(mask, dtype=bool)
        if valid.shape != shape:
            raise IrfairInputError(None, None, f"expected mask of shape {shape}, got shape {valid.shape}")
    lengths = valid.sum(axis=1)
    if not np.array_equal(valid, np.arange(shape[1]) < lengths[:, None]):
        raise IrfairInputError(None, None, "expected each mask row to be True for its documents, then False (padding last)")
    for name, array in zip(names, values):
        real = array[valid]
        if not np.all(np.isfinite(real)) or np.any(real < 0):
            raise IrfairInputError(None, None, f"expected finite, non-negative {name}")
        array[~valid] = 0.0
    return values, valid, lengths


def check_cutoffs(cutoffs: Sequence[int]) -> np.ndarray:
    """Cut-offs as an int64 array, each a positive integer."""
    array = np.asarray(cutoffs)
    if array.ndim != 1 or len(array) == 0 or not np.issubdtype(array.dtype, np.integer) or np.any(array < 1):
        raise IrfairInputError(None, None, f"expected rank cut-offs as positive integers, got {list(cutoffs)!r}")
    return array.astype(np.int64)


def effective_depth(lengths: np.ndarray, cutoffs: np.ndarray) -> np.ndarray:
    """min(cut-off, list length) for each query and cut-off, shape (n_queries, n_cutoffs)."""
    return np.minimum(cutoffs[None, :], lengths[:, None])


def value_at_depth(cumulative: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """``cumulative[q, depth[q, c] - 1]`` (a running total up to rank ``depth``), NaN where depth is 0."""
    if cumulative.shape[1] == 0:
        return np.full(depth.shape, np.nan)
    taken = np.take_along_axis(cumulative, np.maximum(depth - 1, 0), axis=1)
    return np.where(depth > 0, taken, np.nan)
