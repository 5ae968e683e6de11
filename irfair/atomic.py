"""Write files so that a reader never sees a partial one: temp file in the same folder, then rename."""
from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


def safe_filename(name: str) -> str:
    """``name`` with every character other than letters, digits, '-', '_' and '.' replaced by '_'."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it replaces ``path``, on error it is removed."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(handle)
    tmp = Path(tmp_name)
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_text(path: str | Path, text: str) -> None:
    """Atomically write ``text`` (UTF-8) to ``path``."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_outputs(out_dir: str | Path, writers: dict[str, Callable[[Path], None]]) -> list[Path]:
    """Write a set of files into ``out_dir`` all-or-nothing.

    Each writer gets a temporary path to fill; only when every writer has succeeded are the files
    moved into ``out_dir``. Returns the final paths.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".irfair-staging-", dir=out))
    try:
        staged = {}
        for name, writer in writers.items():
            tmp = staging / name
            tmp.parent.mkdir(parents=True, exist_ok=True)
            writer(tmp)
            staged[name] = tmp
        final = []
        for name, tmp in staged.items():
            dest = out / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp, dest)
            final.append(dest)
        return final
    finally:
        shutil.rmtree(staging, ignore_errors=True)
