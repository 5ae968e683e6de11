"""The private folders a cache entry (or its VERIFIED.json record) is built in before one rename publishes it:
``<kind folder>/.build-<entry name>-<random>``, carrying a mark that proves irfair made them (so that a leftover of
a killed build can be removed, and nothing else)."""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

BUILD_PREFIX = ".build-"
BUILD_MARK = ".irfair-build.json"  # inside a build folder: {"build_folder": <its own name>}


def remove_path(path: Path) -> None:
    """Remove a file or a folder tree (missing is fine)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def new_build_folder(parent: Path, name: str) -> Path:
    """A new private folder ``<parent>/.build-<name>-<random>`` carrying the mark that proves irfair made it."""
    folder = Path(tempfile.mkdtemp(prefix=f"{BUILD_PREFIX}{name}-", dir=parent))
    (folder / BUILD_MARK).write_text(json.dumps({"build_folder": folder.name}) + "\n", encoding="utf-8")
    return folder


def is_build_folder(path: Path) -> bool:
    """Whether ``path`` is a build folder irfair made: a real folder holding :data:`BUILD_MARK` (a plain file)
    that names this very folder. A name like ``.build-<name>-...`` alone proves nothing."""
    try:
        mark = path / BUILD_MARK
        if path.is_symlink() or not path.is_dir() or mark.is_symlink() or not mark.is_file() or mark.stat().st_size > 4096:
            return False
        data = json.loads(mark.read_text(encoding="utf-8"))
        return isinstance(data, dict) and data.get("build_folder") == path.name
    except (OSError, ValueError, UnicodeDecodeError):
        return False
