"""One system's scatter plot kept in the cache (kind ``figures``) by what it shows: an audit of the same data
writes the same PNG and SVG without drawing them again (a warm Robust04-sized audit waited ~2 s for its 20 plots).

An entry is keyed by :meth:`~.plots.ScatterData.digest` (every value drawn) and :func:`drawing_code` (the source of
the modules that draw, matplotlib's version and its settings), so a change of either draws anew; entries are
published, checked and replaced as every cache entry is (:mod:`irfair.cache.entry`)."""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from ..cache import CacheEntry

FIGURE_FORMAT = 1  # what an entry holds: figure.svg, and figure.png when asked for


@functools.cache
def drawing_code() -> str:
    """32 hex digits of what decides a figure's bytes besides its values: the source of :mod:`.plots` and of
    :mod:`irfair.numbers` (the legends' numbers), matplotlib's version and rc settings (read after
    :func:`.plots.pyplot` chose the Agg backend)."""
    import matplotlib

    from .. import numbers

    matplotlib.use("Agg")  # as plots.pyplot() does before anything is drawn
    digest = hashlib.sha256()
    for source in (Path(__file__).with_name("plots.py"), Path(numbers.__file__)):
        digest.update(source.read_bytes())
    digest.update(matplotlib.__version__.encode())
    settings = sorted((key, repr(value)) for key, value in matplotlib.rcParams.items())
    digest.update(repr([(key, value) for key, value in settings if " at 0x" not in value]).encode())
    return digest.hexdigest()[:32]


def scatter_entry(cache_dir: Path, data, png: bool) -> CacheEntry:
    """The cache entry of one scatter plot (``data``: :class:`~.plots.ScatterData`; ``png``: with its PNG)."""
    return CacheEntry(cache_dir, "figures", "scatter", {"format": FIGURE_FORMAT, "data": data.digest(),
                                                        "code": drawing_code(), "png": bool(png)})


def load_drawing(folder: Path, manifest) -> tuple[bytes | None, str]:
    """``(PNG bytes or None, inline SVG)`` of a published entry."""
    png = folder / "figure.png"
    return (png.read_bytes() if "figure.png" in manifest.files else None,
            (folder / "figure.svg").read_text(encoding="utf-8"))


def write_drawing(staging: Path, drawn: tuple[bytes | None, str]) -> dict[str, int]:
    """Write a drawing into an entry's staging folder; its counts."""
    image, svg = drawn
    if image is not None:
        (staging / "figure.png").write_bytes(image)
    (staging / "figure.svg").write_text(svg, encoding="utf-8")
    return {"files": 1 + (image is not None)}


def cached_drawing(entry: CacheEntry) -> tuple[bytes | None, str] | None:
    """The entry's drawing when it is published and whole; None otherwise (a damaged one is replaced when drawn)."""
    return entry.published(load_drawing)
