"""The one cache folder of irfair, its entries and their keys, shared by the CLI and the Python API.

Folder: ``$IRFAIR_CACHE`` when set, else ``~/.cache/irfair``. Every function that caches takes
``cache_dir``: a folder, ``None`` for this default folder, or ``False`` to keep everything in memory
(the CLI's ``--no-cache``). Each kind of entry lives in its own subfolder (:data:`KINDS`); how an
entry is keyed, published, validated and rebuilt is in :mod:`irfair.cache.entry`.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

from ..atomic import safe_filename
from ..errors import IrfairInputError
from ..paths import make_folder
from ..settings import SETTINGS, default_cache_folder, from_environment
from .entry import CacheEntry, report
from .manifest import EntryDamaged, Manifest

CACHE_ENV = SETTINGS["cache_dir"].env

CacheDir = str | Path | None | bool

KINDS = {
    "terms": "term stores: bag-of-words counts of a corpus's documents",
    "lucene": "Lucene indexes of corpora",
    "docvectors": "add/si document vectors of a term store and an embedding set",
    "embeddings": "embedding files parsed and unit-normalised",
    "debiased": "hard- and strong-debiased embeddings",
    "neural": "inputs of the neural rankers (DRMM's histograms, MatchPyramid's word ids)",
    "runs": "run files parsed into columns, by the SHA-256 of their bytes",
    "figures": "an audit's scatter plots, by the values they show and the code that draws them",
    "values": "values that take long to compute (the perfect run's TExFAIR, the paired tests, each run's document "
              "genderedness and evaluation, the documents' gender-word counts, the bias measures' agreement), by every "
              "input they depend on",
}

__all__ = ["CACHE_ENV", "KINDS", "CacheDir", "CacheEntry", "EntryDamaged", "Fingerprinted", "Manifest", "default_cache_dir",
           "entry_key", "refuse_inside_cache", "report", "resolve_cache_dir", "writable_cache_dir"]


class Fingerprinted(Protocol):
    """Anything with a name and a fingerprint of its content (a corpus, say)."""

    name: str

    def fingerprint(self) -> str: ...


def default_cache_dir() -> Path:
    """``$IRFAIR_CACHE`` when set, else ``~/.cache/irfair`` (IrfairInputError when HOME gives no usable place)."""
    return default_cache_folder()


def resolve_cache_dir(cache_dir: CacheDir = None) -> Path | None:
    """The folder to cache in: ``cache_dir`` itself, the default folder for ``None``/``True``, or
    ``None`` (no cache) for ``False``."""
    if cache_dir is False:
        return None
    if cache_dir is None or cache_dir is True:
        return default_cache_dir()
    return Path(cache_dir)


def writable_cache_dir(cache_dir: CacheDir = None) -> Path | None:
    """:func:`resolve_cache_dir`, the folder created and checked for writing (IrfairInputError when it
    names a file or an unwritable place); ``None`` for no cache."""
    if isinstance(cache_dir, str) and not cache_dir.strip():
        raise IrfairInputError(None, None, "the cache folder is an empty path")
    folder = resolve_cache_dir(cache_dir)
    if folder is None:
        return None
    configured = cache_dir is None and from_environment("cache_dir") is not None
    return make_folder(folder, f"cache folder (${CACHE_ENV})" if configured else "cache folder")


def refuse_inside_cache(path: str | Path, what: str, cache_dir: CacheDir = None) -> None:
    """IrfairInputError when ``path`` (an output file or folder) lies inside one of the cache folder's kind
    folders (:data:`KINDS`): irfair would then write into its own entries, or find its outputs there and
    take them for damage. The cache folder itself may hold other things (``--cache-dir .``)."""
    try:
        root = resolve_cache_dir(cache_dir)
    except IrfairInputError:  # no usable default folder: said where the cache is needed
        return
    if root is None:
        return
    target = Path(os.path.realpath(Path(path).absolute()))
    for kind in KINDS:
        folder = Path(os.path.realpath((root / kind).absolute()))
        if target == folder or folder in target.parents:
            raise IrfairInputError(path, None, f"the {what} is inside irfair's cache folder {root / kind}; "
                                               "write outputs elsewhere")


def entry_key(source: Fingerprinted) -> str:
    """``<safe name, 60 characters at most>-<fingerprint>``: the cache key of a corpus (or any source)."""
    return f"{safe_filename(source.name)[:60]}-{source.fingerprint()}"
