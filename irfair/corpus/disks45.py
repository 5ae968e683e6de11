"""TREC disks 4&5 as users hold them, and Robust04's choice of files.

A folder is a disks 4&5 tree when it holds files where ir_datasets looks for them (``disks45/nocr``): the
globs ``**/FBIS/FB*``, ``**/FR94/??/FR*``, ``**/FT/*/FT*`` and ``**/LATIMES/LA*`` (matched here without
regard to letter case, following symbolic links, hidden names skipped). Robust04 reads exactly those
files (2,295 on the real disks; plain, ``.gz`` or ``.Z``/``.0Z``) that hold TREC SGML, and leaves out the
Congressional Record (files in a ``CR`` folder or named ``CR*``) and anything else there (DTDs, READMEs,
matched files that do not start with ``<DOC>``); one line on stderr says how many files were left out.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import IrfairInputError

ROBUST04_GLOBS = ("**/FBIS/FB*", "**/FR94/??/FR*", "**/FT/*/FT*", "**/LATIMES/LA*")
SUB_COLLECTIONS = ("FBIS", "FR94", "FT", "LATIMES")


@dataclass
class Disks45Files:
    """The files of a disks 4&5 tree: Robust04's (in ir_datasets' order), the Congressional Record's, others."""

    robust04: list[Path] = field(default_factory=list)
    congressional_record: list[Path] = field(default_factory=list)
    other: list[Path] = field(default_factory=list)

    def report(self, folder: Path) -> str:
        """One line saying what is read and what is left out."""
        line = (f"irfair: {folder} is a TREC disks 4&5 tree: reading {len(self.robust04):,} files of {', '.join(SUB_COLLECTIONS)}; "
                f"leaving out {len(self.congressional_record):,} Congressional Record files (as Robust04 does)")
        if self.other:
            line += f" and {len(self.other):,} other files (e.g. {self.other[0].name})"
        return line


def sub_collection_of(relative: Path) -> str | None:
    """Which of FBIS, FR94, FT, LATIMES a file belongs to by its path (one of :data:`ROBUST04_GLOBS`), else None."""
    parts = [part.upper() for part in relative.parts]
    name = parts[-1]
    if len(parts) >= 2 and parts[-2] == "FBIS" and name.startswith("FB"):
        return "FBIS"
    if len(parts) >= 3 and parts[-3] == "FR94" and len(parts[-2]) == 2 and name.startswith("FR"):
        return "FR94"
    if len(parts) >= 3 and parts[-3] == "FT" and name.startswith("FT"):
        return "FT"
    if len(parts) >= 2 and parts[-2] == "LATIMES" and name.startswith("LA"):
        return "LATIMES"
    return None


def _unreadable(error: OSError):
    raise IrfairInputError(error.filename, None, f"cannot read this folder of the corpus ({error.strerror or error})")


def walk_files(folder: Path) -> list[Path]:
    """Every file under ``folder`` (symbolic links followed once, hidden names skipped), sorted; a folder
    that cannot be read is an IrfairInputError (never skipped in silence)."""
    found: list[Path] = []
    visited: set[str] = set()
    for root, dirs, files in os.walk(folder, followlinks=True, onerror=_unreadable):
        real = os.path.realpath(root)
        if real in visited:
            dirs[:] = []
            continue
        visited.add(real)
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found.extend(Path(root) / name for name in files if not name.startswith("."))
    return sorted(found)


def disks45_files(folder: str | Path) -> Disks45Files | None:
    """The files of the disks 4&5 tree at ``folder``, or None when no file lies where the globs look."""
    folder = Path(folder)
    files = Disks45Files()
    by_collection: dict[str, list[Path]] = {name: [] for name in SUB_COLLECTIONS}
    for path in walk_files(folder):
        relative = path.relative_to(folder)
        collection = sub_collection_of(relative)
        if collection is not None:
            by_collection[collection].append(path)
        elif any(part.upper() == "CR" for part in relative.parts[:-1]) or relative.name.upper().startswith("CR"):
            files.congressional_record.append(path)
        else:
            files.other.append(path)
    files.robust04 = [path for name in SUB_COLLECTIONS for path in by_collection[name]]
    return files if files.robust04 else None


def announce(files: Disks45Files, folder: Path) -> None:
    """Print :meth:`Disks45Files.report` on stderr when something is left out."""
    if files.congressional_record or files.other:
        print(files.report(folder), file=sys.stderr)
