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
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from filelock import FileLock, Timeout

from ..atomic import safe_filename
from ..errors import one_line
from .manifest import (
    FORMAT_VERSION,
    MANIFEST,
    EntryDamaged,
    Manifest,
    file_digest,
    key_digest,
    relative_files,
    validate_folder,
)

BUILD_PREFIX = ".build-"
OLD_PREFIX = ".old-"
LOCK_SUFFIX = ".lock"

T = TypeVar("T")


def remove_path(path: Path) -> None:
    """Remove a file or a folder tree (missing is fine)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


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

    def report_damaged(self, reason: str) -> None:
        """``irfair: cache entry <folder> is damaged (<reason>); rebuilding`` on stderr."""
        report(f"cache entry {self.folder} is damaged ({reason}); rebuilding")

    def discard(self) -> None:
        """Remove the published entry (call with the lock held)."""
        if self.folder.exists() or self.folder.is_symlink():
            aside = self.parent / f"{OLD_PREFIX}{self.name}-{os.getpid()}-{time.monotonic_ns()}"
            os.rename(self.folder, aside)
            remove_path(aside)

    def clean_leftovers(self) -> None:
        """Remove folders left by killed builds of this entry (call with the lock held)."""
        for prefix in (BUILD_PREFIX, OLD_PREFIX):
            for path in self.parent.glob(f"{prefix}{self.name}-*"):
                remove_path(path)

    @contextmanager
    def staging(self) -> Iterator[Path]:
        """A private, empty folder to build the entry in; removed unless :meth:`publish` took it."""
        self.parent.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix=f"{BUILD_PREFIX}{self.name}-", dir=self.parent))
        try:
            yield folder
        finally:
            remove_path(folder)

    def publish(self, staging: Path, counts: Mapping[str, int] | None = None,
                known: Mapping[str, list] | None = None) -> Manifest:
        """Write the manifest of ``staging`` (checksums taken from ``known`` for files of unchanged size)
        and put it in place of the published entry by renames (call with the lock held)."""
        files = {}
        for rel in relative_files(staging):
            size = (staging / rel).stat().st_size
            old = (known or {}).get(rel)
            files[rel] = [size, old[1] if old is not None and old[0] == size else file_digest(staging / rel)]
        manifest = Manifest(self.kind, self.key, files, dict(counts or {}), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        _write_manifest(staging, manifest)
        _swap_in(staging, self.folder, self.parent / f"{OLD_PREFIX}{self.name}-{os.getpid()}-{time.monotonic_ns()}")
        return manifest

    def obtain(self, load: Callable[[Path, Manifest], T], build: Callable[[Path], Mapping[str, int]]) -> T:
        """The entry's content: ``load(folder, manifest)`` of the published entry when it is valid, else
        ``build(staging folder) -> counts`` under the lock, published, then loaded."""
        try:
            manifest = self.manifest()
            if manifest is not None:
                return load_checked(load, self.folder, manifest)
        except EntryDamaged:
            pass  # looked at again under the lock: another process may be replacing it at this moment
        with self.locked():
            try:
                manifest = self.manifest()
                if manifest is not None:
                    return load_checked(load, self.folder, manifest)
            except EntryDamaged as damage:
                self.report_damaged(damage.reason)
                self.discard()
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


def _swap_in(staging: Path, folder: Path, aside: Path) -> None:
    """Move ``folder`` (if any) to ``aside``, ``staging`` to ``folder``, then remove ``aside``."""
    moved = False
    if folder.exists() or folder.is_symlink():
        os.rename(folder, aside)
        moved = True
    os.rename(staging, folder)
    if moved:
        remove_path(aside)
