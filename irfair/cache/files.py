"""Single files kept as cache entries (the study's run files): the file beside a hidden manifest
``.<file name>.manifest.json`` holding its key (what it was built from), size and SHA-256.

Writing removes the old manifest, writes the file atomically, then the new manifest atomically, so a
file is never paired with a manifest that is not its own; a file is reused only when its manifest
exists, names the same key and matches the file's size and checksum.
"""
from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from ..atomic import atomic_path, write_text
from .manifest import FORMAT_VERSION, file_digest

MISSING = "missing"


def manifest_path(path: Path) -> Path:
    """Where the manifest of ``path`` lives."""
    return path.parent / f".{path.name}.manifest.json"


def _normalised(key: Mapping[str, object]) -> dict:
    return json.loads(json.dumps({"irfair_cache_format": FORMAT_VERSION, **key}, sort_keys=True))


def file_status(path: str | Path, key: Mapping[str, object]) -> tuple[str, bool]:
    """``(status, damaged)``: status ``ok`` when ``path`` is complete and built from ``key``;
    :data:`MISSING` when there is no file; otherwise why it cannot be reused, with ``damaged`` True when
    the file no longer matches its own manifest."""
    file = Path(path)
    if not file.is_file():
        return MISSING, False
    try:
        data = json.loads(manifest_path(file).read_text(encoding="utf-8"))
        size, digest, built_from = int(data["size"]), str(data["sha256"]), data["key"]
    except FileNotFoundError:
        return "no manifest: unfinished, or not written by this version of irfair", False
    except (OSError, ValueError, KeyError, TypeError):
        return "its manifest is unreadable", True
    if built_from != _normalised(key):
        return "built from other inputs or settings", False
    if file.stat().st_size != size:
        return f"it has {file.stat().st_size} bytes, its manifest says {size}", True
    if file_digest(file) != digest:
        return "it differs from its checksum", True
    return "ok", False


def write_file_entry(path: str | Path, write: Callable[[Path], None], key: Mapping[str, object]) -> Path | None:
    """Write ``path`` with ``write(temporary path)`` and record its manifest (see the module docstring).
    A file already at ``path`` without a manifest (nothing proves irfair wrote it) is not overwritten but
    moved aside to ``<name>.kept-<n>``, which is returned (None when there was none)."""
    file = Path(path)
    kept = None
    if (file.exists() or file.is_symlink()) and not manifest_path(file).exists():
        kept = file.parent / f"{file.name}.kept-{time.time_ns()}"
        os.rename(file, kept)
    manifest_path(file).unlink(missing_ok=True)
    with atomic_path(file) as tmp:
        write(tmp)
    record = {"key": _normalised(key), "size": file.stat().st_size, "sha256": file_digest(file)}
    write_text(manifest_path(file), json.dumps(record, indent=1, sort_keys=True) + "\n")
    return kept
