"""``irfair demo``: the GSR paper's two toy collections, audited (S, N, CS systems)."""
from __future__ import annotations

import argparse

from ..numbers import exact_or_zero
from . import options

HELP = "the paper's two toy collections, audited (S, N, CS systems)"
EXAMPLE = """example:
  irfair demo --out demo --embeddings w2v-gnews-26k"""


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default="demo", help="folder for the toy collections and their audits")
    p.add_argument("--embeddings", action="append", default=None,
                   help="embedding set to audit with, repeatable (default: w2v-gnews-26k and glove-6b-50d)")


def run(args: argparse.Namespace) -> int:
    from ..presentation.demo import DEMO_EMBEDDINGS, run_demo
    from ..presentation.verdict import format_verdict

    options.check_paths(args, folders=("out",))
    for demo in run_demo(args.out, args.embeddings or DEMO_EMBEDDINGS):
        print(f"\n== {demo.collection} with {demo.embeddings} ==")
        print(format_verdict(demo.result))
        s, n, cs = (demo.result[name].gsr.slope for name in ("S", "N", "CS"))
        print(f"GSR(S) = {exact_or_zero(s)}, GSR(N) = {exact_or_zero(n)}, GSR(CS) = {exact_or_zero(cs)}, "
              f"GSR(S) + GSR(CS) = {exact_or_zero(s + cs)}")
    print(f"\ntoy collections, tables, JSON, per-query CSV and plots are in {args.out}/")
    print(cache_note())
    return 0


def cache_note() -> str:
    """How much the default cache folder holds (the demo fills about 111 MB: embeddings and tokenised toy
    documents) and how to empty it."""
    from ..cache import default_cache_dir
    from ..cache.manage import scan

    size = sum(report.size for report in scan())
    return (f"the cache folder {default_cache_dir()} holds {size / 2**20:.0f} MB (embeddings, tokenised documents), "
            "reused by later runs; `irfair cache clear` empties it")
