"""The one cache folder of irfair and the keys of its entries, shared by the CLI and the Python API.

Folder: ``$IRFAIR_CACHE`` when set, else ``~/.cache/irfair``. Every function that caches takes
``cache_dir``: a folder, ``None`` for this default folder, or ``False`` to keep everything in memory
(the CLI's ``--no-cache``).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

from .atomic import safe_filename

CACHE_ENV = "IRFAIR_CACHE"

CacheDir = str | Path | None | bool


class Fingerprinted(Protocol):
    """Anything with a name and a fingerprint of its content (a corpus, say)."""

    name: str

    def fingerprint(self) -> str: ...


def default_cache_dir() -> Path:
    """``$IRFAIR_CACHE`` when set, else ``~/.cache/irfair``."""
    configured = os.environ.get(CACHE_ENV)
    return Path(configured) if configured else Path.home() / ".cache" / "irfair"


def resolve_cache_dir(cache_dir: CacheDir = None) -> Path | None:
    """The folder to cache in: ``cache_dir`` itself, the default folder for ``None``/``True``, or
    ``None`` (no cache) for ``False``."""
    if cache_dir is False:
        return None
    if cache_dir is None or cache_dir is True:
        return default_cache_dir()
    return Path(cache_dir)


def entry_key(source: Fingerprinted) -> str:
    """``<safe name, 60 characters at most>-<fingerprint>``: the cache key of a corpus (or any source)."""
    return f"{safe_filename(source.name)[:60]}-{source.fingerprint()}"
