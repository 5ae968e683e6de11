"""The manifest of a cache entry (kind, key, counts, the size and SHA-256 of every file) and its check."""
from __future__ import annotations

import hashlib
import json
import os
import re
import stat as stat_module
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..atomic import file_digest  # noqa: F401  (the cache's files are digested as an output folder's)
from .build_folders import new_build_folder, remove_path

FORMAT_VERSION = 2
MANIFEST = "MANIFEST.json"
# beside the manifest: the size, times and inode of every file when this entry's checksums were last found right, so
# that the next process need not hash them again while none of those changed (any write changes a file's ctime,
# which no program can set back)
VERIFIED = "VERIFIED.json"
CHECKSUM_ON_READ = 64 * 2**20


class EntryDamaged(Exception):
    """A published entry failed validation; ``reason`` says how (one short phrase)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def value_digest(value: object) -> str:
    """16 hex digits of a JSON-able value (keys sorted; anything else as its text): what a cache key records of an
    input too large to hold itself (queries, qrels, pairs)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


def key_digest(kind: str, key: Mapping[str, object]) -> str:
    """16 hex digits naming an entry of ``kind`` built from ``key``."""
    text = json.dumps({"kind": kind, **key}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Manifest:
    """What an entry holds: its kind and key, ``files`` ``{relative path: [size, sha256]}``, ``counts``."""

    kind: str
    key: dict
    files: dict[str, list]
    counts: dict[str, int] = field(default_factory=dict)
    created: str = ""
    format: int = FORMAT_VERSION

    @property
    def content_id(self) -> str:
        """16 hex digits that change whenever any file of the entry changes."""
        text = json.dumps(sorted((rel, size, digest) for rel, (size, digest) in self.files.items()))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def size(self) -> int:
        """Total bytes of the entry's files."""
        return sum(size for size, _ in self.files.values())

    def to_json(self) -> str:
        data = {"format": self.format, "kind": self.kind, "key": self.key, "counts": self.counts,
                "created": self.created, "files": self.files}
        return json.dumps(data, indent=1, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        try:
            data = json.loads(text)
            files = {str(rel): [int(size), str(digest)] for rel, (size, digest) in data["files"].items()}
            counts = {str(name): int(value) for name, value in data.get("counts", {}).items()}
            return cls(str(data["kind"]), dict(data["key"]), files, counts, str(data.get("created", "")), int(data["format"]))
        except (ValueError, KeyError, TypeError, AttributeError):
            raise EntryDamaged("its manifest is unreadable") from None


def relative_files(folder: Path) -> list[str]:
    files = []
    for base, _, names in os.walk(folder):
        for name in names:
            rel = os.path.relpath(os.path.join(base, name), folder)
            files.append(Path(rel).as_posix())
    return sorted(files)


# entries validated by this process, by the size, times and inode of every file: opening one again does not
# hash its files again
_validated: dict[tuple, str] = {}
# how long a VERIFIED.json record is trusted: damage that leaves a file's size, times and inode as they were (bit rot
# beneath the file system, a write through a shared memory map) is found by the next hashing, at the latest then
RECORD_TRUSTED_NS = 24 * 3600 * 10**9
# records are written through a folder descriptor (os.stat/os.open/os.replace relative to it): where the platform
# has none (Windows), entries are hashed as before
_RECORDS_POSSIBLE = (hasattr(os, "O_DIRECTORY") and hasattr(os, "O_NOFOLLOW") and os.stat in os.supports_dir_fd
                     and os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd)


def _stamp(folder: Path | str, manifest: Manifest, dir_fd: int | None = None) -> tuple:
    """The entry's files as they stand: (relative path, size, mtime, ctime, inode, device) of each, the manifest's
    last; nanoseconds. ``dir_fd``: the paths are read relative to that open folder (``folder`` then ignored)."""
    stats = []
    for rel in [*sorted(manifest.files), MANIFEST]:
        st = os.stat(rel, dir_fd=dir_fd) if dir_fd is not None else os.stat(Path(folder) / rel)
        stats.append((rel, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev))
    return tuple(stats)


def verified_record(folder: Path) -> dict | None:
    """What :data:`VERIFIED` in ``folder`` says (``content_id``, ``verified_at`` in ns, ``stamp``), or None when it
    is missing, not a regular file, or unreadable (a write cut short is read as none)."""
    path = folder / VERIFIED
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 2**20:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        return {"content_id": str(data["content_id"]), "verified_at": int(data["verified_at"]),
                "stamp": [list(item) for item in data["stamp"]]}
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None


def record_prefix(content_id: str) -> bytes:
    """How irfair's :data:`VERIFIED` record of ``content_id`` begins: what proves such a file irfair's."""
    return f'{{"content_id": "{content_id}"'.encode()


def _trusted(folder: Path, manifest: Manifest, stamp: tuple, now: int) -> bool:
    """Whether :data:`VERIFIED` records this very content, with every file as it stands now, hashed less than
    :data:`RECORD_TRUSTED_NS` ago."""
    record = verified_record(folder)
    return (record is not None and record["content_id"] == manifest.content_id
            and record["stamp"] == [list(item) for item in stamp] and 0 <= now - record["verified_at"] < RECORD_TRUSTED_NS)


def _record_verified(folder: Path, dir_fd: int, manifest: Manifest, stamp: tuple, verified_at: int) -> None:
    """Write :data:`VERIFIED` into the folder open as ``dir_fd`` (the one whose files were hashed, even if another
    entry took ``folder``'s place meanwhile), when its files still stand as ``stamp`` says: written in a build folder
    beside it and renamed into place (never a file cut short, never through a link); a :data:`VERIFIED` irfair
    cannot prove its own is left as it is. Best effort: a read-only or full cache keeps hashing."""
    try:
        if _stamp(folder, manifest, dir_fd) != stamp:
            return  # a file changed while it was hashed
        try:
            existing = os.stat(VERIFIED, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            existing = None
        if existing is not None and not _is_irfairs_record(dir_fd, existing):
            return
        build = new_build_folder(folder.parent, folder.name)
        try:
            text = json.dumps({"content_id": manifest.content_id, "verified_at": verified_at, "stamp": stamp})
            (build / VERIFIED).write_text(text, encoding="utf-8")
            os.rename(build / VERIFIED, VERIFIED, dst_dir_fd=dir_fd)  # POSIX: replaces an existing one at once
        finally:
            remove_path(build)
    except OSError:
        pass


def _is_irfairs_record(dir_fd: int, st: os.stat_result) -> bool:
    """Whether the :data:`VERIFIED` of the folder open as ``dir_fd`` (``st``: its lstat) is a regular file that
    begins as irfair's records do (of any content id)."""
    if not stat_module.S_ISREG(st.st_mode) or st.st_size > 2**20:
        return False
    fd = os.open(VERIFIED, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=dir_fd)
    with os.fdopen(fd, "rb") as handle:
        return begins_as_record(handle)


def begins_as_record(handle, content_id: str | None = None) -> bool:
    """Whether the open binary file ``handle`` begins as irfair's :data:`VERIFIED` record of ``content_id`` (None:
    of any content id) does, :func:`record_prefix`; read from where it stands."""
    start = handle.read(len(record_prefix("0" * 16)))
    if content_id is not None:
        return start == record_prefix(content_id)
    return re.fullmatch(rb'\{"content_id": "[0-9a-f]{16}"', start) is not None


def validate_folder(folder: Path, kind: str | None = None, key: Mapping | None = None, every_checksum: bool = False) -> Manifest:
    """The manifest of the entry in ``folder`` after checking it: raises :class:`EntryDamaged` when the
    manifest is missing or unreadable, names another kind or key, a file is missing, unexpected or of
    another size, or a checksum differs (files up to :data:`CHECKSUM_ON_READ` bytes, or all)."""
    if not folder.is_dir():
        raise EntryDamaged("it is not a folder")
    try:
        text = (folder / MANIFEST).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EntryDamaged("its manifest is missing: the entry was never finished") from None
    except (OSError, UnicodeDecodeError):
        raise EntryDamaged("its manifest is unreadable") from None
    manifest = Manifest.from_json(text)
    if manifest.format != FORMAT_VERSION or (kind is not None and manifest.kind != kind):
        raise EntryDamaged(f"its manifest is of format {manifest.format} kind {manifest.kind!r}")
    if key is not None and manifest.key != key:
        raise EntryDamaged("its manifest names other inputs than the entry's name")
    if not folder.name.endswith("-" + key_digest(manifest.kind, manifest.key)):
        raise EntryDamaged("its name does not match the inputs its manifest names")
    present = set(relative_files(folder)) - {MANIFEST, VERIFIED}
    missing = sorted(set(manifest.files) - present)
    if missing:
        raise EntryDamaged(f"{missing[0]} is missing")
    unexpected = sorted(present - set(manifest.files))
    if unexpected:
        raise EntryDamaged(f"unexpected file {unexpected[0]}")
    for rel, (size, _) in sorted(manifest.files.items()):
        actual = (folder / rel).stat().st_size
        if actual != size:
            raise EntryDamaged(f"{rel} has {actual} bytes, its manifest says {size}")
    started = time.time_ns()
    stamp = _stamp(folder, manifest)
    if not every_checksum and _validated.get(stamp) == manifest.content_id:
        return manifest
    recorded = _trusted(folder, manifest, stamp, started)
    if not every_checksum and recorded:
        return manifest
    dir_fd = None
    if _RECORDS_POSSIBLE:
        try:
            dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)  # the folder hashed, whatever takes its name later
        except OSError:
            pass
    try:
        for rel, (size, digest) in sorted(manifest.files.items()):
            if (every_checksum or size <= CHECKSUM_ON_READ) and file_digest(folder / rel) != digest:
                raise EntryDamaged(f"{rel} differs from its checksum")
        newest = max(max(mtime, ctime) for _, _, mtime, ctime, _, _ in stamp)
        # older than the file system's time resolution when the stamp was taken: a rewrite since would show
        if started - newest > 2 * 10**9:
            _validated[stamp] = manifest.content_id
            if dir_fd is not None and not recorded:
                _record_verified(folder, dir_fd, manifest, stamp, started)
    finally:
        if dir_fd is not None:
            os.close(dir_fd)
    return manifest
