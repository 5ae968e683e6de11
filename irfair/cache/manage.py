"""What a cache folder holds, checked and cleared: the library side of ``irfair cache info|verify|clear``.

Every item of a kind folder (:data:`irfair.cache.KINDS`) is an entry (valid, or damaged: no manifest,
a file missing, of another size or checksum, ... — entries of older irfair versions count as damaged,
as nothing vouches for them) or the leftover of a build (``.build-*``, ``.old-*``: killed, or running
now). Clearing takes each entry's lock first, so an entry being built by a running process is skipped.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from . import KINDS, CacheDir, resolve_cache_dir
from .entry import BUILD_PREFIX, LOCK_SUFFIX, OLD_PREFIX, remove_path
from .manifest import EntryDamaged, Manifest, validate_folder

_LEFTOVER = re.compile(r"^\.(?:build|old)-(.+?-[0-9a-f]{16})-")

OK, DAMAGED, UNFINISHED = "ok", "damaged", "unfinished"


@dataclass(frozen=True)
class EntryReport:
    """One item of the cache: its kind, path, state (ok, damaged, unfinished), the problem found, its
    manifest (when readable) and its size in bytes."""

    kind: str
    path: Path
    state: str
    problem: str | None
    manifest: Manifest | None
    size: int


def _size(path: Path) -> int:
    if path.is_file() or path.is_symlink():
        return path.lstat().st_size
    return sum((Path(base) / name).lstat().st_size for base, _, names in os.walk(path) for name in names)


def _items(root: Path, kinds: Iterable[str]) -> list[tuple[str, Path]]:
    items = []
    for kind in kinds:
        folder = root / kind
        if folder.is_dir():
            items += [(kind, item) for item in sorted(folder.iterdir()) if not item.name.endswith(LOCK_SUFFIX)]
    return items


def scan(cache_dir: CacheDir = None, verify: bool = False, kinds: Iterable[str] = KINDS) -> list[EntryReport]:
    """Every item of the cache folder, validated (every checksum when ``verify``, else those of small files)."""
    root = resolve_cache_dir(cache_dir)
    reports = []
    for kind, item in _items(root, kinds) if root is not None else []:
        if item.name.startswith((BUILD_PREFIX, OLD_PREFIX)):
            reports.append(EntryReport(kind, item, UNFINISHED, "left by a killed build, or being built now", None, _size(item)))
            continue
        try:
            manifest = validate_folder(item, kind, every_checksum=verify)
            reports.append(EntryReport(kind, item, OK, None, manifest, _size(item)))
        except EntryDamaged as damage:
            reports.append(EntryReport(kind, item, DAMAGED, damage.reason, None, _size(item)))
    return reports


def _lock_for(kind_folder: Path, item: Path) -> FileLock:
    match = _LEFTOVER.match(item.name)
    name = match.group(1) if match else item.name
    return FileLock(str(kind_folder / f".{name}{LOCK_SUFFIX}"))


def clear(cache_dir: CacheDir = None, kinds: Iterable[str] = KINDS) -> tuple[list[EntryReport], list[EntryReport]]:
    """Remove every item of the given kinds; returns ``(removed, skipped because a process holds their lock)``."""
    root = resolve_cache_dir(cache_dir)
    removed, busy = [], []
    for kind, item in _items(root, kinds) if root is not None else []:
        report = EntryReport(kind, item, UNFINISHED, None, None, _size(item))
        lock = _lock_for(root / kind, item)
        try:
            lock.acquire(blocking=False)
        except Timeout:
            busy.append(report)
            continue
        try:
            aside = item.parent / f"{OLD_PREFIX}{item.name}-clear-{os.getpid()}"
            os.rename(item, aside)
            remove_path(aside)
            removed.append(report)
        finally:
            lock.release()
    return removed, busy
