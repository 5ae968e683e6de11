"""Cache entries that cannot lie.

An entry is a folder ``<cache>/<kind>/<label>-<digest>/`` whose name is derived from everything it
was built from (its *key*: input fingerprints, parameters and irfair's cache-format version). It is
built in a private folder ``.build-<name>-*`` beside it and published by one atomic rename, together
with ``MANIFEST.json``: the key, counts, and the size and SHA-256 of every file. Before an entry is
used its manifest is checked (key, every file present with its size, no unexpected file, checksums of
files up to :data:`~irfair.cache.manifest.CHECKSUM_ON_READ` bytes; ``irfair cache verify`` checks every checksum). Writers of
one entry are serialised by a lock file ``.<name>.lock`` (``filelock``). A damaged or unfinished entry
is reported in one line on stderr (``irfair: cache entry ... is damaged (...); rebuilding``) and
rebuilt; leftovers of killed builds are removed by the next build of the same entry.

irfair deletes only what it can prove it wrote, never by a name pattern alone (:func:`dispose`,
:func:`is_build_folder`): from an entry whose manifest names the inputs its folder's name is derived
from, the files the manifest lists *with the size and SHA-256 it gives*, then the manifest; and its own
build folders, which carry a mark (:data:`BUILD_MARK`) naming the folder they were made as. Anything
else found inside an entry (a file put there or edited by hand, an entry whose manifest is missing,
unreadable or names other inputs) is moved aside to ``<name>.kept-<n>`` beside it, said on stderr, and
never deleted; a folder named like a build folder without its mark is not touched.
"""
from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from filelock import FileLock, Timeout

from ..atomic import naming_target, safe_filename
from ..errors import one_line
from .build_folders import BUILD_MARK, BUILD_PREFIX, is_build_folder, new_build_folder, remove_path  # noqa: F401
from .manifest import (
    FORMAT_VERSION,
    MANIFEST,
    VERIFIED,
    EntryDamaged,
    Manifest,
    begins_as_record,
    file_digest,
    key_digest,
    relative_files,
    validate_folder,
)

OLD_PREFIX = ".old-"
LOCK_SUFFIX = ".lock"
KEPT_MARK = ".kept-"

T = TypeVar("T")
_MISSING = object()  # what CacheEntry.published gives obtain when there is no valid entry


def _proving_manifest(folder: Path, entry_name: str) -> Manifest | None:
    """The manifest of ``folder`` when it is a readable file (no link) whose kind and inputs give ``entry_name``'s 16
    digits — the proof that an entry, an entry moved aside or a build killed after writing its manifest is irfair's;
    None otherwise."""
    manifest = folder / MANIFEST
    try:
        if folder.is_symlink() or not folder.is_dir() or manifest.is_symlink() or not manifest.is_file():
            return None
        read = Manifest.from_json(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, EntryDamaged):
        return None
    return read if entry_name.endswith("-" + key_digest(read.kind, read.key)) else None


def names_itself(folder: Path, entry_name: str) -> bool:
    """Whether ``folder`` holds a manifest that proves it irfair's entry ``entry_name`` (:func:`_proving_manifest`)."""
    return _proving_manifest(folder, entry_name) is not None


def _proven_files(folder: Path, entry_name: str, published: Path | None = None) -> list[str]:
    """The files of ``folder`` (an entry moved aside) that irfair can prove it wrote: those its manifest lists
    with their size and SHA-256, when the manifest names the inputs ``entry_name`` is derived from (its digest
    is the name's ending), then the manifest itself; [] when there is no such manifest. A file that is the very
    file (same inode) at its place in ``published`` (the entry that replaced it, which linked its unchanged
    shards) needs no hashing: unlinking it here loses nothing. (Hashing them made a growing term store's every
    republication read the whole store: MS MARCO's corpus pass grew with the square of its size.)"""
    manifest = _proving_manifest(folder, entry_name)
    if manifest is None:
        return []
    proven = []
    for rel, (size, digest) in sorted(manifest.files.items()):
        path = folder / rel
        if Path(rel).is_absolute() or ".." in Path(rel).parts or rel == MANIFEST or not _inside_real_folder(folder, rel):
            continue
        try:
            if path.is_symlink() or not path.is_file() or path.stat().st_size != size:
                continue
            if _same_file(path, None if published is None else published / rel) or file_digest(path) == digest:
                proven.append(rel)
        except OSError:
            continue
    if _names_content(folder / VERIFIED, manifest.content_id):
        proven.append(VERIFIED)
    return [*proven, MANIFEST]


def _names_content(path: Path, content_id: str) -> bool:
    """Whether ``path`` is a regular file (no link) that begins as irfair's :data:`VERIFIED` record of this content
    does (:func:`begins_as_record`)."""
    try:
        if path.is_symlink() or not path.is_file():
            return False
        with open(path, "rb") as handle:
            return begins_as_record(handle, content_id)
    except OSError:
        return False


def _same_file(path: Path, other: Path | None) -> bool:
    """Whether ``other`` is a regular file (no link) that is ``path`` itself (hard links of one inode)."""
    if other is None or other.is_symlink():
        return False
    try:
        here, there = path.stat(), other.stat()
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _inside_real_folder(folder: Path, rel: str) -> bool:
    """Whether the folders on the way to ``folder/rel`` are real folders (no link leads elsewhere)."""
    parent = os.path.normpath(os.path.dirname(rel))
    real = os.path.realpath(folder)
    return os.path.realpath(folder / parent) == (real if parent == "." else os.path.join(real, parent))


def dispose(aside: Path, entry_folder: Path) -> Path | None:
    """Delete what irfair wrote in ``aside`` (an entry of ``entry_folder`` already moved out of its place):
    the files its manifest lists with their size and checksum, when the manifest's key gives
    ``entry_folder``'s name, and the manifest, then the folders left empty. Whatever remains (files irfair
    cannot prove it wrote) is moved to ``<entry_folder>.kept-<n>``, which is returned (None when nothing
    remained)."""
    if aside.is_dir() and not aside.is_symlink():
        for rel in _proven_files(aside, entry_folder.name, entry_folder):
            try:
                (aside / rel).unlink()
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                pass
        for base, _, _ in sorted(os.walk(aside), key=lambda item: -len(item[0])):
            try:
                os.rmdir(base)
            except OSError:
                pass
    if not aside.exists() and not aside.is_symlink():
        return None
    kept = entry_folder.parent / f"{entry_folder.name}{KEPT_MARK}{time.time_ns()}"
    os.rename(aside, kept)
    return kept


def kept_note(kept: Path | None) -> str:
    """`` (what irfair did not write is kept beside it in <name>)`` when ``kept``, else ``''``."""
    return "" if kept is None else f" (what irfair did not write is kept beside it in {kept.name})"


def report(line: str) -> None:
    """One line on stderr, prefixed ``irfair: `` and capped like error lines."""
    print(one_line(f"irfair: {line}"), file=sys.stderr, flush=True)


_locks: dict[str, FileLock] = {}


class CacheEntry:
    """One entry of the cache: ``<cache_dir>/<kind>/<label>-<digest of kind and key>/``.

    ``key`` holds everything the content depends on (JSON values); the cache-format version is added.
    """

    def __init__(self, cache_dir: str | Path, kind: str, label: str, key: Mapping[str, object]) -> None:
        self.kind = kind
        self.key = json.loads(json.dumps({"irfair_cache_format": FORMAT_VERSION, **key}, sort_keys=True))
        self.parent = Path(cache_dir) / kind
        self.name = f"{safe_filename(label)[:60]}-{key_digest(kind, self.key)}"
        self.folder = self.parent / self.name

    def __repr__(self) -> str:
        return f"CacheEntry({str(self.folder)!r})"

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the entry's lock (reentrant in this process); says so on a terminal while waiting."""
        self.parent.mkdir(parents=True, exist_ok=True)
        path = str(self.parent / f".{self.name}{LOCK_SUFFIX}")
        lock = _locks.setdefault(path, FileLock(path))
        if not lock.is_locked:
            try:
                lock.acquire(blocking=False)
                lock.release()
            except Timeout:
                if sys.stderr.isatty():
                    report(f"waiting for another irfair process building {self.folder}")
        with lock:
            yield

    def manifest(self, every_checksum: bool = False) -> Manifest | None:
        """The published entry's validated manifest; None when there is none; EntryDamaged when damaged."""
        if not self.folder.exists() and not self.folder.is_symlink():
            return None
        return validate_folder(self.folder, self.kind, self.key, every_checksum)

    def discard_damaged(self, reason: str) -> None:
        """Discard the published entry and say so: ``irfair: cache entry <folder> is damaged (<reason>);
        rebuilding`` on stderr, naming where files irfair did not write were kept (call with the lock held)."""
        kept = self.discard()
        report(f"cache entry {self.folder} is damaged ({reason}); rebuilding{kept_note(kept)}")

    def discard(self) -> Path | None:
        """Take the published entry out of its place and delete what irfair wrote in it (call with the lock
        held); returns where anything else was kept (see :func:`dispose`)."""
        if self.folder.exists() or self.folder.is_symlink():
            aside = self.parent / f"{OLD_PREFIX}{self.name}-{os.getpid()}-{time.monotonic_ns()}"
            os.rename(self.folder, aside)
            return dispose(aside, self.folder)
        return None

    def clean_leftovers(self) -> None:
        """Remove what killed builds of this entry left (call with the lock held): build folders whole,
        entries moved aside as :func:`dispose` does."""
        for path in self.parent.glob(f"{BUILD_PREFIX}{self.name}-*"):
            if is_build_folder(path):
                remove_path(path)
            elif names_itself(path, self.name):  # killed between its manifest and its publication
                kept = dispose(path, self.folder)
                if kept is not None:
                    report(f"an unfinished build of {self.folder} held files irfair did not write{kept_note(kept)}")
        for path in self.parent.glob(f"{OLD_PREFIX}{self.name}-*"):
            kept = dispose(path, self.folder)
            if kept is not None:
                report(f"a replaced cache entry of {self.folder} held files irfair did not write{kept_note(kept)}")

    @contextmanager
    def staging(self) -> Iterator[Path]:
        """A private, empty folder to build the entry in; removed unless :meth:`publish` took it."""
        self.parent.mkdir(parents=True, exist_ok=True)
        folder = new_build_folder(self.parent, self.name)
        try:
            with naming_target(folder, self.folder):
                yield folder
        finally:
            remove_path(folder)

    def publish(self, staging: Path, counts: Mapping[str, int] | None = None,
                known: Mapping[str, list] | None = None) -> Manifest:
        """Write the manifest of ``staging`` (checksums taken from ``known`` for files of unchanged size)
        and put it in place of the published entry by renames (call with the lock held)."""
        files = {}
        for rel in [rel for rel in relative_files(staging) if rel != BUILD_MARK]:  # the mark is not part of the entry
            size = (staging / rel).stat().st_size
            old = (known or {}).get(rel)
            files[rel] = [size, old[1] if old is not None and old[0] == size else file_digest(staging / rel)]
        manifest = Manifest(self.kind, self.key, files, dict(counts or {}), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        _write_manifest(staging, manifest)
        (staging / BUILD_MARK).unlink(missing_ok=True)  # from here the manifest proves the folder irfair's
        kept = _swap_in(staging, self.folder, self.parent / f"{OLD_PREFIX}{self.name}-{os.getpid()}-{time.monotonic_ns()}")
        if kept is not None:
            report(f"the replaced cache entry {self.folder} held files irfair did not write{kept_note(kept)}")
        return manifest

    def published(self, load: Callable[[Path, Manifest], T], missing=None):
        """``load(folder, manifest)`` of the published entry when it is valid; ``missing`` when there is none or it
        is damaged (without the lock: another process may be replacing it at this moment)."""
        try:
            manifest = self.manifest()
            if manifest is not None:
                return load_checked(load, self.folder, manifest)
        except EntryDamaged:
            pass
        return missing

    def obtain(self, load: Callable[[Path, Manifest], T], build: Callable[[Path], Mapping[str, int]]) -> T:
        """The entry's content: ``load(folder, manifest)`` of the published entry when it is valid, else
        ``build(staging folder) -> counts`` under the lock, published, then loaded."""
        found = self.published(load, _MISSING)
        if found is not _MISSING:
            return found
        with self.locked():  # a damaged entry is looked at again here, and replaced
            try:
                manifest = self.manifest()
                if manifest is not None:
                    return load_checked(load, self.folder, manifest)
            except EntryDamaged as damage:
                self.discard_damaged(damage.reason)
            self.clean_leftovers()
            with self.staging() as staging:
                counts = build(staging)
                self.publish(staging, counts)
            return load_checked(load, self.folder, self.manifest())


def load_checked(load: Callable[[Path, Manifest], T], folder: Path, manifest: Manifest) -> T:
    """``load(folder, manifest)`` with read errors of a damaged entry turned into :class:`EntryDamaged`."""
    try:
        return load(folder, manifest)
    except EntryDamaged:
        raise
    except (OSError, ValueError, EOFError, UnicodeDecodeError, IndexError, KeyError) as exc:
        raise EntryDamaged(one_line(f"{type(exc).__name__}: {exc}", 120)) from None


def _write_manifest(staging: Path, manifest: Manifest) -> None:
    (staging / MANIFEST).write_text(manifest.to_json(), encoding="utf-8")


def _swap_in(staging: Path, folder: Path, aside: Path) -> Path | None:
    """Move ``folder`` (if any) to ``aside``, ``staging`` to ``folder``, then dispose of ``aside``;
    returns where files irfair did not write were kept (None: there were none)."""
    moved = False
    if folder.exists() or folder.is_symlink():
        os.rename(folder, aside)
        moved = True
    os.rename(staging, folder)
    return dispose(aside, folder) if moved else None
