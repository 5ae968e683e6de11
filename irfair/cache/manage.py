"""What a cache folder holds, checked and cleared: the library side of ``irfair cache info|verify|clear``.

An item of a kind folder (:data:`irfair.cache.KINDS`) is irfair's only when irfair can prove it wrote
it, never by its name alone: an *entry* (a folder named ``<label>-<16 hex digits>`` holding a readable
``MANIFEST.json`` whose kind and inputs give those 16 digits: valid, or damaged — a file missing, of
another size or checksum), the *leftover* of a build (a ``.build-*`` folder carrying irfair's build mark,
or an entry moved aside as ``.old-*`` whose manifest gives its entry's name: killed, or running now), or
an entry's lock file. Everything else is *foreign* — a user's file or folder, whatever its name, a folder
without a manifest or with one that names other inputs (also an entry of an irfair older than manifests):
it is listed as foreign and never touched. Clearing takes each entry's lock first, so an entry being
built by a running process is skipped, and deletes only the files the entry's manifest lists with their
size and checksum (:func:`irfair.cache.entry.dispose`).
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from ..errors import IrfairInputError
from . import KINDS, CacheDir, resolve_cache_dir
from .entry import BUILD_PREFIX, LOCK_SUFFIX, OLD_PREFIX, dispose, is_build_folder, names_itself, remove_path
from .manifest import MANIFEST, EntryDamaged, Manifest, validate_folder

_NAME = r"[\w.-]+-[0-9a-f]{16}"  # safe_filename(label)-<digest>: see CacheEntry
_ENTRY = re.compile(f"^{_NAME}$")
_LEFTOVER = re.compile(rf"^\.(?:build|old)-({_NAME})-")
_LOCK = re.compile(rf"^\.({_NAME}){re.escape(LOCK_SUFFIX)}$")

OK, DAMAGED, UNFINISHED, FOREIGN = "ok", "damaged", "unfinished", "foreign"
OWNED = (OK, DAMAGED, UNFINISHED)


@dataclass(frozen=True)
class EntryReport:
    """One item of the cache: its kind, path, state (ok, damaged, unfinished, foreign), the problem
    found, its manifest (when readable) and its size in bytes."""

    kind: str
    path: Path
    state: str
    problem: str | None
    manifest: Manifest | None
    size: int


def _size(path: Path) -> int:
    try:
        if path.is_symlink() or not path.is_dir():
            return path.lstat().st_size
        return sum((Path(base) / name).lstat().st_size for base, _, names in os.walk(path) for name in names)
    except OSError:
        return 0


def _quietly(test) -> bool:
    try:
        return bool(test())
    except OSError:  # unreadable: nothing proves irfair wrote it
        return False


def _is_lock(item: Path) -> bool:
    return bool(_LOCK.match(item.name)) and _quietly(lambda: item.is_file() and not item.is_symlink())


def _is_leftover(item: Path) -> bool:
    """A build folder with irfair's mark, or a folder (``.build-<name>-...`` killed after writing its manifest,
    ``.old-<name>-...`` an entry moved aside) whose manifest gives ``name``."""
    match = _LEFTOVER.match(item.name)
    if not match:
        return False
    return (item.name.startswith(BUILD_PREFIX) and is_build_folder(item)) or _quietly(lambda: names_itself(item, match.group(1)))


def _is_entry(item: Path) -> bool:
    return bool(_ENTRY.match(item.name)) and _quietly(lambda: names_itself(item, item.name))


def _listing(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir())
    except OSError as exc:
        raise IrfairInputError(folder, None, f"cannot read the cache folder ({exc.strerror or exc})") from None


def _items(root: Path, kinds: Iterable[str]) -> list[tuple[str, Path]]:
    items = []
    for kind in kinds:
        folder = root / kind
        if folder.is_dir() and not folder.is_symlink():
            items += [(kind, item) for item in _listing(folder) if not _is_lock(item)]
        elif folder.exists() or folder.is_symlink():
            items.append((kind, folder))
    return items


def _why_foreign(item: Path) -> str:
    if not _ENTRY.match(item.name):
        return "not written by irfair (not an irfair entry name)"
    try:
        os.listdir(item)
    except NotADirectoryError:
        return "not written by irfair (a file, not an entry folder)"
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc}), so nothing proves irfair wrote it"
    if (item / MANIFEST).exists():
        return "not written by irfair (its MANIFEST.json does not name the inputs its folder's name is made from)"
    return "not written by irfair (no MANIFEST.json)"


def _report(kind: str, item: Path, verify: bool) -> EntryReport:
    if _is_leftover(item):
        return EntryReport(kind, item, UNFINISHED, "left by a killed build, or being built now", None, _size(item))
    if not _is_entry(item):
        return EntryReport(kind, item, FOREIGN, f"{_why_foreign(item)}; left as it is", None, _size(item))
    try:
        return EntryReport(kind, item, OK, None, validate_folder(item, kind, every_checksum=verify), _size(item))
    except EntryDamaged as damage:
        return EntryReport(kind, item, DAMAGED, damage.reason, None, _size(item))
    except OSError as exc:
        return EntryReport(kind, item, DAMAGED, f"unreadable ({exc.strerror or exc})", None, _size(item))


def scan(cache_dir: CacheDir = None, verify: bool = False, kinds: Iterable[str] = KINDS) -> list[EntryReport]:
    """Every item of the cache folder, validated (every checksum when ``verify``, else those of small
    files); items irfair did not write are reported as ``foreign``."""
    root = resolve_cache_dir(cache_dir)
    if root is None or not root.exists():
        return []
    if not root.is_dir():
        raise IrfairInputError(root, None, "the cache folder is a file, expected a folder")
    _listing(root)
    return [_report(kind, item, verify) for kind, item in _items(root, kinds)]


def _lock_for(kind_folder: Path, item: Path) -> FileLock:
    match = _LEFTOVER.match(item.name)
    name = match.group(1) if match else item.name
    return FileLock(str(kind_folder / f".{name}{LOCK_SUFFIX}"))


@dataclass(frozen=True)
class Cleared:
    """What :func:`clear` did: entries removed, entries kept because a process held their lock, foreign
    items left as they are, and folders where files irfair did not write (found inside its entries) were kept."""

    removed: list[EntryReport]
    busy: list[EntryReport]
    foreign: list[EntryReport]
    kept: list[Path]


def holds_irfair_entries(cache_dir: CacheDir = None) -> bool:
    """Whether the cache folder holds anything irfair can prove it wrote (an entry or a build leftover) of any
    kind; a lock file alone, known by its name only, does not count."""
    root = resolve_cache_dir(cache_dir)
    if root is None or not root.is_dir():
        return False
    for kind in KINDS:
        folder = root / kind
        if folder.is_dir() and not folder.is_symlink():
            if any(_is_leftover(item) or _is_entry(item) for item in _listing(folder)):
                return True
    return False


def clear(cache_dir: CacheDir = None, kinds: Iterable[str] = KINDS) -> Cleared:
    """Remove irfair's entries and build leftovers of the given kinds, each under its lock; foreign items
    are left as they are."""
    root = resolve_cache_dir(cache_dir)
    removed, busy, foreign, kept = [], [], [], []
    for report in scan(root, kinds=kinds) if root is not None else []:
        if report.state == FOREIGN:
            foreign.append(report)
            continue
        lock = _lock_for(root / report.kind, report.path)
        try:
            lock.acquire(blocking=False)
        except Timeout:
            busy.append(report)
            continue
        try:
            if is_build_folder(report.path):
                remove_path(report.path)
            else:
                entry_folder = report.path.parent / (_LEFTOVER.match(report.path.name) or [None, report.path.name])[1]
                aside = report.path
                if report.state != UNFINISHED:
                    aside = report.path.parent / f"{OLD_PREFIX}{report.path.name}-clear-{os.getpid()}"
                    os.rename(report.path, aside)
                left = dispose(aside, entry_folder)
                if left is not None:
                    kept.append(left)
            removed.append(report)
        finally:
            lock.release()
    return Cleared(removed, busy, foreign, kept)
