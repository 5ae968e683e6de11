"""Arrays that take long to compute, kept in the cache (kind ``values``) by the digest of every input they depend on:
the perfect run's TExFAIR over the orders of its ties (10,000 orders of each long tie, 2.4 s of a warm
Robust04-sized audit's 13 s) is read back instead of drawn again when the qrels, the documents' words and the code
are those it was computed from.

The caller owns the key (:func:`arrays_memo`): it must name everything the arrays depend on, the computing code's
source included, as :func:`irfair.measures.texfair.texfair_over_tie_orders` does. An entry holds ``0.npy``,
``1.npy``, … (float64, read without pickles); a damaged one is said and computed again (:mod:`.entry`).
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from .entry import CacheEntry

ArraysMemo = Callable[[str, str, Callable[[], tuple[np.ndarray, ...]]], tuple[np.ndarray, ...]]


def arrays_memo(cache_dir: Path | None) -> ArraysMemo | None:
    """``memo(name, key, compute)``: the arrays ``compute()`` returns, from the cache entry of ``key`` (a hex digest of
    every input) when there is one, else computed and kept there. None without a cache folder."""
    if cache_dir is None:
        return None

    def memo(name: str, key: str, compute: Callable[[], tuple[np.ndarray, ...]]) -> tuple[np.ndarray, ...]:
        entry = CacheEntry(cache_dir, "values", name, {"inputs": key})

        def build(staging: Path) -> dict[str, int]:
            arrays = compute()
            for i, array in enumerate(arrays):
                np.save(staging / f"{i}.npy", np.ascontiguousarray(array, dtype=np.float64))
            return {"arrays": len(arrays)}

        def load(folder: Path, manifest) -> tuple[np.ndarray, ...]:
            count = len([name for name in manifest.files if name.endswith(".npy")])
            return tuple(np.load(folder / f"{i}.npy", allow_pickle=False) for i in range(count))

        return entry.obtain(load, build)

    return memo
