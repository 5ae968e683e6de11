"""Arrays that take long to compute, kept in the cache (kind ``values``) by the digest of every input they depend on,
and read back instead of computed again when the inputs and the code are those they were computed from: the perfect
run's TExFAIR over the orders of its ties (10,000 orders of each long tie), the paired tests of an audit's systems
and their intervals, each run's document genderedness and evaluation, the documents' counts of gender words, the
agreement of the bias measures. Together they were 5 s of a warm Robust04-sized audit's 8 s.

The caller names everything the arrays depend on (the inputs and settings given to the memo, :func:`arrays_memo`);
:func:`inputs_key` adds irfair's source, numpy's and scipy's versions, the machine and numpy's BLAS kernels. An entry
holds ``0.npy``, ``1.npy``, … (float64, read without pickles); a damaged one is said and computed again
(:mod:`.entry`).
"""
from __future__ import annotations

import functools
import hashlib
import os
import platform
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from .entry import CacheEntry

Arrays = tuple[np.ndarray, ...]
ArraysMemo = Callable[[str, Sequence[np.ndarray], object, Callable[[], Arrays], Sequence[tuple[int, ...]]], Arrays]


def arrays_memo(cache_dir: Path | None) -> ArraysMemo | None:
    """``memo(name, inputs, settings, compute, shapes)``: the float64 arrays ``compute()`` returns, of ``shapes``, from
    the cache entry ``name`` of :func:`inputs_key` of ``name``, the ``inputs`` (arrays) and the ``settings`` (anything
    with a faithful ``repr``) when there is one, else computed and kept there; an entry that holds other shapes is not
    what this key computes: they are computed here, the entry left as it is. None without a cache folder."""
    if cache_dir is None:
        return None

    def memo(name: str, inputs: Sequence[np.ndarray], settings: object, compute: Callable[[], Arrays],
             shapes: Sequence[tuple[int, ...]]) -> Arrays:
        entry = CacheEntry(cache_dir, "values", name, {"inputs": inputs_key(name, inputs, settings)})

        def build(staging: Path) -> dict[str, int]:
            arrays = compute()
            for i, array in enumerate(arrays):
                np.save(staging / f"{i}.npy", np.ascontiguousarray(array, dtype=np.float64))
            return {"arrays": len(arrays)}

        def load(folder: Path, manifest) -> tuple[np.ndarray, ...]:
            count = len([name for name in manifest.files if name.endswith(".npy")])
            return tuple(np.load(folder / f"{i}.npy", allow_pickle=False) for i in range(count))

        kept = entry.obtain(load, build)
        if [array.shape for array in kept] != [tuple(shape) for shape in shapes]:
            return tuple(np.asarray(array, dtype=np.float64) for array in compute())
        return kept

    return memo


def _source_digest() -> bytes:
    """Every module of irfair, read when this one is imported (4 ms), so that a key names the code that runs: an edit
    or an upgrade is a new key, one while a process lives is not seen by it. Without the sources (an install of
    compiled files only), irfair's version stands for them; without either, no other process reads the entries."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent.parent
    try:
        sources = sorted(package.rglob("*.py"))
        for source in sources:
            digest.update(source.relative_to(package).as_posix().encode() + b"\0" + source.read_bytes())
    except OSError:
        sources = []
    if not sources:
        from importlib.metadata import PackageNotFoundError, version

        try:
            digest.update(f"irfair {version('irfair')} without sources".encode())
        except PackageNotFoundError:  # nothing names the code: no entry is read by another process
            digest.update(os.urandom(16))
    return digest.digest()


_SOURCE = _source_digest()


@functools.cache
def _platform() -> str:
    """numpy's and scipy's versions (numpy's generators draw the resamples), the machine's architecture and the BLAS
    numpy multiplies with: its version and the kernels it chose for this CPU (OpenBLAS picks them at run time, and two
    CPUs of one architecture may round a product's last bit apart). Only numpy's own BLAS is named: the libraries
    loaded later (scipy's) would make the name depend on when it was first asked for."""
    import scipy
    from threadpoolctl import threadpool_info

    libraries = [lib for lib in threadpool_info() if lib.get("user_api") == "blas"]
    # a wheel's numpy brings its BLAS in numpy.libs; elsewhere (conda) numpy and scipy share the system's
    own = [lib for lib in libraries if any(part.startswith("numpy") for part in Path(str(lib.get("filepath", ""))).parts)]
    blas = sorted({f"{lib.get('internal_api')} {lib.get('version')} {lib.get('architecture')}" for lib in own or libraries})
    return f"numpy {np.__version__} scipy {scipy.__version__} {platform.machine()} blas {'; '.join(blas)}"


def inputs_key(label: str, arrays: Sequence[np.ndarray], settings: object) -> str:
    """32 hex digits naming what a computation returns: its ``label``, irfair's source, numpy's and scipy's versions,
    the machine and numpy's BLAS (:func:`_platform`), every array's dtype, shape and bytes, and ``repr(settings)``."""
    digest = hashlib.sha256(label.encode() + b"\0")
    digest.update(_SOURCE)
    digest.update(_platform().encode())
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(array.data)
    digest.update(repr(settings).encode())
    return digest.hexdigest()[:32]
