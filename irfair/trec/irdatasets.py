"""Query and qrels records of an ir_datasets id (extra ``datasets``), e.g. ``disks45/nocr/trec-robust-2004``.

ir_datasets downloads a collection's topics and qrels on first use into ``$IR_DATASETS_HOME`` (default
``~/.ir_datasets``) and reads them from there afterwards. When that fails (offline, a source that must be
placed by hand), the error is one line naming the id and which file to place where.
"""
from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import IrfairInputError

RECORDS = {"topics": "queries", "qrels": "qrels"}


def dataset_id(spec: str | Path) -> str | None:
    """``spec`` as an ir_datasets id: not an existing path and registered with ir_datasets (None otherwise,
    or when ir_datasets is not installed)."""
    text = str(spec)
    if Path(text).exists():
        return None
    try:
        import ir_datasets
    except ImportError:
        return None
    registry = getattr(ir_datasets, "registry", None)
    return text if registry is not None and text in registry else None


def not_found(spec: str | Path, what: str) -> IrfairInputError:
    """The error for a ``what`` ("topics", "qrels") argument that is neither a file nor a known ir_datasets id."""
    try:
        import ir_datasets  # noqa: F401
    except ImportError:
        return IrfairInputError(spec, None, f"{what} file not found (an ir_datasets id needs: pip install 'irfair[datasets]')")
    return IrfairInputError(spec, None, f"{what} file not found, nor a known ir_datasets id")


def dataset_records(identifier: str, what: str) -> list:
    """Every record of the ``what`` ("topics" → queries, "qrels") of an ir_datasets id, read in full.

    Raises IrfairInputError with one line when the id has no such records or its source cannot be read.
    """
    import ir_datasets

    kind = RECORDS[what]
    dataset = ir_datasets.load(identifier)
    if not getattr(dataset, f"has_{kind}")():
        raise IrfairInputError(identifier, None, f"this ir_datasets id has no {what}")
    try:
        with _quiet():
            return list(getattr(dataset, f"{kind}_iter")())
    except ImportError as exc:
        raise IrfairInputError(identifier, None, f"reading its {what} needs a package ir_datasets lacks: {_first_line(exc)}") from None
    except (OSError, RuntimeError) as exc:
        handler = getattr(dataset, f"{kind}_handler")()
        raise IrfairInputError(identifier, None, f"ir_datasets could not read its {what} ({_reason(exc)}); "
                                                 f"{placement(handler)}") from None


@contextmanager
def _quiet() -> Iterator[None]:
    """ir_datasets logs each failed download attempt on several lines; the one-line error says it all."""
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(previous)


def _reason(exc: BaseException) -> str:
    """Why a read failed, in a few words: the last download error when every source failed."""
    attempts = exc.args[1] if len(exc.args) == 2 and isinstance(exc.args[1], list) and exc.args[1] else None
    if attempts and isinstance(attempts[-1], tuple):
        exc = attempts[-1][-1]
    if type(exc).__module__.startswith(("requests", "urllib3")) or isinstance(exc, ConnectionError):
        return f"download failed, {type(exc).__name__}: offline?"
    return f"{type(exc).__name__}: {_first_line(exc)}"


def _first_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def placement(handler) -> str:
    """Where ir_datasets looks for the source files of ``handler``, with the address it downloads them from."""
    places = []
    for target, sources in downloads(handler):
        url = next((s for s in sources if s.startswith(("http://", "https://"))), None)
        places.append(f"place {url or 'the file'} at {target}" if target else f"download {url}")
    if not places:
        return "see the ir_datasets documentation of this id for the files it needs"
    return "; ".join(places) + " (or pass a file)"


def downloads(obj, depth: int = 0, seen: set[int] | None = None) -> list[tuple[str | None, list[str]]]:
    """``(cache path, [source urls or paths])`` of every ir_datasets Download reachable from ``obj``."""
    from ir_datasets.util.download import Download

    seen = set() if seen is None else seen
    if id(obj) in seen or depth > 6:
        return []
    seen.add(id(obj))
    if isinstance(obj, Download):
        sources = [str(getattr(m, "url", None) or getattr(m, "_path", "")) for m in getattr(obj, "mirrors", [])]
        target = getattr(obj, "_cache_path", None)
        return [(None if target is None else str(target), sources)]
    found = []
    children = list(vars(obj).values()) if hasattr(obj, "__dict__") else []
    if isinstance(obj, (list, tuple)):
        children = list(obj)
    for child in children:
        if hasattr(child, "__dict__") or isinstance(child, (list, tuple)):
            found += downloads(child, depth + 1, seen)
    return found
