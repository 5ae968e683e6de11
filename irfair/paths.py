"""Where irfair may write, checked before any work: output folders, output files and the cache folder.

Output checks create nothing (a failed run leaves no empty folder behind): the path, or its nearest
existing ancestor, must be a folder in which a file can really be created (a probe file is made and
removed, which also catches read-only mounts). The cache folder is created at once.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .atomic import missing_folders
from .errors import IrfairInputError


def _probe(folder: Path, path: Path, what: str) -> None:
    """Create and remove a file in ``folder``; IrfairInputError naming ``path`` when that fails."""
    try:
        handle, name = tempfile.mkstemp(prefix=".irfair-probe-", dir=folder)
    except OSError as exc:
        raise IrfairInputError(path, None, f"cannot write the {what} here ({folder}: {exc.strerror or exc})") from None
    os.close(handle)
    os.unlink(name)


def _nearest_existing(path: Path, what: str) -> Path:
    """``path`` or its nearest existing ancestor, which must be a folder."""
    missing = missing_folders(path)
    broken = next((folder for folder in missing if folder.is_symlink()), None)
    if broken is not None:
        raise IrfairInputError(path, None, f"cannot create the {what}: {broken} is a broken link")
    current = missing[-1].parent if missing else path.absolute()
    if not current.is_dir():
        raise IrfairInputError(path, None, f"cannot create the {what}: {current} is a file, not a folder")
    return current


def _folder_path(path: str | Path, what: str) -> Path:
    """``path`` as a folder path: not empty, and not an existing file."""
    folder = Path(path)
    if str(path) == "":
        raise IrfairInputError(None, None, f"the {what} is an empty path")
    if folder.exists() and not folder.is_dir():
        raise IrfairInputError(folder, None, f"the {what} is a file, expected a folder")
    return folder


def writable_folder(path: str | Path, what: str = "output folder") -> Path:
    """``path`` as a folder irfair can write into (existing, or creatable); creates nothing."""
    folder = _folder_path(path, what)
    _probe(_nearest_existing(folder, what), folder, what)
    return folder


def writable_file(path: str | Path, what: str = "output file") -> Path:
    """``path`` as a file irfair can (re)write atomically: not a folder, its folder existing or creatable."""
    file = Path(path)
    if str(path) == "" or str(path).endswith(("/", os.sep)):
        raise IrfairInputError(path or None, None, f"the {what} must be a file name")
    if file.is_dir():
        raise IrfairInputError(file, None, f"the {what} is a folder, expected a file name")
    _probe(_nearest_existing(file.parent, what), file, what)
    return file


def make_folder(path: str | Path, what: str = "cache folder") -> Path:
    """Create the folder ``path`` (with its parents) and check that files can be written in it."""
    folder = _folder_path(path, what)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise IrfairInputError(folder, None, f"cannot create the {what} ({exc.strerror or exc})") from None
    _probe(folder, folder, what)
    return folder
