"""``irfair cache info|verify|clear``: what the cache holds and what it was built from, a full check of
every entry (exit 1 when one is damaged), and removing entries. Only what irfair wrote is touched:
anything else in the folder is listed as foreign and left as it is."""
from __future__ import annotations

import argparse

from . import options

HELP = "the cache: info (entries, sizes, what they were built from), verify (every checksum), clear"
EXAMPLE = """examples:
  irfair cache info
  irfair cache verify --cache-dir /tmp/irfair-cache
  irfair cache clear --kind docvectors"""


def configure(p: argparse.ArgumentParser) -> None:
    from ..cache import KINDS

    p.add_argument("action", choices=("info", "verify", "clear"),
                   help="info: entries, sizes and inputs; verify: every checksum (exit 1 when one is damaged); clear: remove them")
    p.add_argument("--kind", action="append", choices=tuple(KINDS), default=None, help="only entries of this kind (repeatable)")
    p.add_argument("--force", action="store_true",
                   help="clear even when the folder holds no irfair entry at all (a mistyped --cache-dir, most likely)")
    options.add_cache(p, no_cache=False)


def _megabytes(size: int) -> str:
    return f"{size / 2**20:.1f} MB"


def _built_from(key: dict) -> str:
    parts = []
    for name, value in key.items():
        if name != "irfair_cache_format":
            text = str(value)
            parts.append(f"{name}={text if len(text) <= 48 else text[:20] + '…' + text[-20:]}")
    return ", ".join(parts)


def run(args: argparse.Namespace) -> int:
    from ..cache import KINDS, resolve_cache_dir
    from ..cache.manage import DAMAGED, FOREIGN, OK, UNFINISHED, clear, holds_irfair_entries, scan
    from ..errors import IrfairInputError
    from ..numbers import counted

    root = resolve_cache_dir(args.cache_dir)
    if root.exists() and not root.is_dir():
        raise IrfairInputError(root, None, "the cache folder is a file, expected a folder")
    kinds = args.kind or tuple(KINDS)
    reports = scan(root, verify=args.action == "verify", kinds=kinds)
    foreign = [r for r in reports if r.state == FOREIGN]
    if args.action == "clear":
        if foreign and not args.force and not holds_irfair_entries(root):
            raise IrfairInputError(root, None, f"holds no irfair cache entry, only {counted(len(foreign), 'item')} irfair did not write: "
                                               "is it the right --cache-dir? nothing removed (--force to clear anyway)")
        cleared = clear(root, kinds)
        for report in cleared.busy:
            print(f"in use by another irfair process, kept: {report.path}")
        for folder in cleared.kept:
            print(f"kept files irfair did not write, found inside its entries: {folder}")
        left = f"; left {counted(len(cleared.foreign), 'item')} irfair did not write" if cleared.foreign else ""
        size = _megabytes(sum(r.size for r in cleared.removed))
        print(f"removed {counted(len(cleared.removed), 'entry', 'entries')} ({size}) from {root}{left}")
        return 0
    damaged = [r for r in reports if r.state == DAMAGED]
    owned = [r for r in reports if r.state != FOREIGN]
    if args.action == "info":
        total = sum(r.size for r in owned)
        print(f"cache folder {root}: {sum(r.state == OK for r in reports)} entries, {_megabytes(total)}"
              + (f"; {counted(len(foreign), 'item')} irfair did not write (left as they are)" if foreign else ""))
        for report in reports:
            if report.state == OK:
                counts = ", ".join(f"{k} {v}" for k, v in report.manifest.counts.items())
                print(f"{report.kind}\t{report.path.name}\t{_megabytes(report.size)}\t{report.manifest.created}\t{counts}\t"
                      f"built from {_built_from(report.manifest.key)}")
            else:
                print(f"{report.kind}\t{report.path.name}\t{_megabytes(report.size)}\t{report.state}: {report.problem}")
        return 0
    for report in reports:
        if report.state != OK:
            print(f"{report.state}: {report.path} ({report.problem})")
    unfinished = sum(r.state == UNFINISHED for r in reports)
    print(f"verified {len(owned) - unfinished} entries in {root}: {len(damaged)} damaged"
          + (f", {unfinished} unfinished builds (removed by the next build or irfair cache clear)" if unfinished else "")
          + (f"; {counted(len(foreign), 'item')} irfair did not write, left as they are" if foreign else ""))
    return 1 if damaged else 0
