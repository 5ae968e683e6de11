"""Write files so that a reader never sees a partial one: temp file in the same folder, then rename; and never
replace, in an output folder, a file irfair did not write there (:func:`write_outputs`)."""
from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import signal
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import IrfairWarning

# in an output folder, what irfair wrote there: {"files": {relative name: SHA-256 of the bytes written}}
OUTPUTS_MANIFEST = ".irfair-outputs.json"


def safe_filename(name: str) -> str:
    """``name`` with every character other than letters, digits, '-', '_' and '.' replaced by '_'."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def unique_filenames(names, what: str = "plot files") -> dict[str, str]:
    """``{name: file-name stem}``: each name made safe (:func:`safe_filename`), and names that would share a file
    (``run a`` and ``run_a``, or ``A`` and ``a`` on a file system that ignores case) told apart by ``-2``, ``-3``
    in the order given, said in one warning."""
    stems, taken, renamed = {}, set(), []
    for name in names:
        stem = base = safe_filename(name)
        n = 1
        while stem.lower() in taken:
            n += 1
            stem = f"{base}-{n}"
        taken.add(stem.lower())
        stems[name] = stem
        if n > 1:
            renamed.append(f"{name!r} as {stem}")
    if renamed:
        warnings.warn(IrfairWarning(f"system names that would share {what} are told apart: {', '.join(renamed)}"), stacklevel=2)
    return stems


def missing_folders(folder: Path) -> list[Path]:
    """``folder`` and those of its ancestors that do not exist yet, deepest first (the last one's parent is the
    nearest existing folder)."""
    missing = []
    current = folder.absolute()
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    return missing


# bytes read and hashed at a time: each read and each hash lets go of the GIL once, and takes it back only after
# another thread's turn (up to 5 ms); hashlib.file_digest's 256 KiB blocks made a warm audit's 18 run files (160 MB)
# wait ~0.7 s for the thread that loads the term store, against 0.12 s of hashing
HASH_BLOCK = 1 << 24


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes (hex): an output folder's record of what irfair wrote, a cache entry's, a run file's."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        buffer = memoryview(bytearray(max(1, min(HASH_BLOCK, size + 1))))  # + 1: the end is seen in one read
        while True:
            read = handle.readinto(buffer)
            if not read:
                return digest.hexdigest()
            digest.update(buffer[:read])


def _written_by_irfair(folder: Path) -> dict[str, str]:
    """What the folder's :data:`OUTPUTS_MANIFEST` says irfair wrote ({} when it has none or it cannot be read: then
    no file there is taken for irfair's)."""
    try:
        files = json.loads((folder / OUTPUTS_MANIFEST).read_text(encoding="utf-8"))["files"]
        return {str(name): str(digest) for name, digest in files.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _kept_name(path: Path) -> Path:
    """``<name>.kept-<n>`` beside ``path``, the first n from 1 that is free."""
    n = 1
    while (path.parent / f"{path.name}.kept-{n}").exists():
        n += 1
    return path.parent / f"{path.name}.kept-{n}"


def _remove_empty(folders: list[Path]) -> None:
    """Remove ``folders`` (deepest first) while they are empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            break


def _umask() -> int:
    """This process's umask, read once."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _umask()
_NEW_FILE_MODE = 0o666 & ~_UMASK  # the mode ``open()`` gives a new file (0o644 under umask 022)


class WriteFailed(OSError):
    """Writing ``filename`` failed (a full disk, a refused write); what was half written was removed."""


@contextmanager
def naming_target(private: Path, target: Path) -> Iterator[None]:
    """Re-raise an OSError about a file inside the private folder ``private`` (a staging or build folder,
    removed on the way out), or about no file at all (a write to an open file), as :class:`WriteFailed`
    about ``target``, the place the user knows."""
    try:
        yield
    except OSError as exc:
        if not isinstance(exc, WriteFailed) and (not exc.filename or str(exc.filename).startswith(str(private))):
            raise WriteFailed(exc.errno, exc.strerror or str(exc), str(target)) from None
        raise


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it replaces ``path``, on error it is removed.
    The file gets the mode a plain ``open()`` would give it (``mkstemp``'s 0o600 would hide a run file
    from the other users of a shared machine); an error, the final rename's included, names ``path``."""
    target = Path(path)
    created = missing_folders(target.parent)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.fchmod(handle, _NEW_FILE_MODE)
    os.close(handle)
    tmp = Path(tmp_name)
    done = False
    try:
        with naming_target(tmp, target):
            yield tmp
            os.replace(tmp, target)
        done = True
    finally:
        if tmp.exists():
            tmp.unlink()
        if not done:
            _remove_empty(created)


def write_text(path: str | Path, text: str) -> None:
    """Atomically write ``text`` (UTF-8) to ``path``."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


@contextmanager
def _signals_held() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP back while the block runs (delivered right after it), so that a
    set of renames is never cut in the middle; a no-op outside the main thread."""
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def write_outputs(out_dir: str | Path, writers: dict[str, Callable[[Path], None]]) -> list[Path]:
    """Write a set of files into ``out_dir`` all-or-nothing.

    Each writer gets a temporary path to fill inside a staging folder; only when every writer has
    succeeded are the files moved into ``out_dir`` (with signals held back, so that the moves are not
    cut in the middle). On any failure (a full disk, a signal) the staging folder is removed, and so are
    the folders this call created. Returns the final paths.

    A new ``out_dir`` is staged whole beside where it will be (``.irfair-staging-<name>-*`` in its parent) and
    renamed into place in one step: even a process killed outright (SIGKILL, the OOM killer, a lost machine)
    leaves no ``out_dir`` with part of its files, only that hidden folder. An existing ``out_dir`` gets its
    staging folder inside it, and its files are replaced one by one.

    A file already at an output's place that irfair did not write there (its name and bytes are not in the
    folder's :data:`OUTPUTS_MANIFEST`: the user's own ``gsr.csv``, or an output the user edited) is not
    replaced but moved aside to ``<name>.kept-<n>``, with one warning each.
    """
    out = Path(out_dir)
    created = missing_folders(out)
    new_folder = bool(created)  # out itself does not exist: staged whole in its parent, renamed into place
    (out.parent if new_folder else out).mkdir(parents=True, exist_ok=True)
    staging: Path | None = None
    done = False
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".irfair-staging-{out.name}-" if new_folder else ".irfair-staging-",
                                        dir=out.parent if new_folder else out))
        if new_folder:
            os.chmod(staging, 0o777 & ~_UMASK)  # as out.mkdir() would make it (mkdtemp's 0o700 would hide the outputs)
            if _moved_in_whole(out, staging, writers):
                done = True
                return [out / name for name in writers]
            out.mkdir(exist_ok=True)  # someone else made out meanwhile: its files are replaced one by one
        staged = _staged(out, staging, writers)
        record = out / OUTPUTS_MANIFEST
        for name in [*staged, OUTPUTS_MANIFEST]:  # every obstacle found before any move: no file of the set is replaced
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            if (out / name).is_dir() and not (out / name).is_symlink():
                what = "irfair's record of the files it wrote here" if name == OUTPUTS_MANIFEST else "this output file"
                raise WriteFailed(errno.EISDIR, f"a folder is in the way of {what}", str(out / name))
        written = _written_by_irfair(out)
        digests = {name: file_digest(tmp) for name, tmp in staged.items()}
        foreign = [name for name in staged if (out / name).exists() and written.get(name) != file_digest(out / name)]
        # the record is staged with the files and moved with them: all of the set or none of it
        manifest = {name: digest for name, digest in written.items() if name not in staged and (out / name).is_file()} | digests
        staged_record = staging / OUTPUTS_MANIFEST
        with naming_target(staging, record):
            staged_record.write_text(json.dumps({"files": dict(sorted(manifest.items()))}, indent=1) + "\n", encoding="utf-8")
            os.chmod(staged_record, _NEW_FILE_MODE)
        final, kept = [], []
        with _signals_held():
            for name in foreign:
                kept.append((out / name, _kept_name(out / name)))
                os.rename(*kept[-1])
            for name, tmp in staged.items():
                os.replace(tmp, out / name)
                final.append(out / name)
            os.replace(staged_record, record)
        done = True
        for path, aside in kept:
            warnings.warn(IrfairWarning(f"{path}: irfair did not write this file; kept as {aside.name}"), stacklevel=2)
        return final
    finally:
        if staging is not None and staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
        if not done:
            _remove_empty([folder for folder in created if folder.exists()])


def _staged(out: Path, staging: Path, writers: dict[str, Callable[[Path], None]]) -> dict[str, Path]:
    """Each output written by its writer at its place in ``staging``; ``{name: staged path}``. An error about a
    staged file names the output's place in ``out``."""
    staged = {}
    for name, writer in writers.items():
        tmp = staging / name
        with naming_target(staging, out / name):
            tmp.parent.mkdir(parents=True, exist_ok=True)
            writer(tmp)
        staged[name] = tmp
    return staged


def _moved_in_whole(out: Path, staging: Path, writers: dict[str, Callable[[Path], None]]) -> bool:
    """Write every output and irfair's record of them into ``staging`` (a new folder beside ``out``), then rename it
    to ``out`` with signals held back: True once it is there; False when a folder named ``out`` appeared meanwhile
    and holds something (nothing was moved: the caller writes into that folder instead, from scratch)."""
    digests = {name: file_digest(tmp) for name, tmp in _staged(out, staging, writers).items()}
    record = staging / OUTPUTS_MANIFEST
    with naming_target(staging, out / OUTPUTS_MANIFEST):
        record.write_text(json.dumps({"files": dict(sorted(digests.items()))}, indent=1) + "\n", encoding="utf-8")
        os.chmod(record, _NEW_FILE_MODE)
    with _signals_held():
        try:
            os.rename(staging, out)  # POSIX: replaces an empty folder made meanwhile, refuses a non-empty one
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
                raise WriteFailed(exc.errno, exc.strerror or str(exc), str(out)) from None
            for item in list(staging.iterdir()):  # start again inside the folder that is there
                if item.is_dir() and not item.is_symlink():
                    shutil.rmtree(item)
                else:
                    item.unlink()
            return False
    return True
