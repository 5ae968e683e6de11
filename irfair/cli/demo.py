"""``irfair demo``: the GSR paper's two toy collections, audited (S, N, CS systems)."""
from __future__ import annotations

import argparse

from . import options

HELP = "the paper's two toy collections, audited (S, N, CS systems)"
EXAMPLE = """example:
  irfair demo --out demo --embeddings w2v-gnews-26k"""


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default="demo", help="folder for the toy collections and their audits")
    p.add_argument("--embeddings", action="append", default=None,
                   help="embedding set to audit with, repeatable (default: w2v-gnews-26k and glove-6b-50d)")


def run(args: argparse.Namespace) -> int:
    from ..audit.demo import DEMO_EMBEDDINGS, run_demo
    from ..audit.verdict import format_verdict

    options.check_paths(args, folders=("out",))
    for demo in run_demo(args.out, args.embeddings or DEMO_EMBEDDINGS):
        print(f"\n== {demo.collection} with {demo.embeddings} ==")
        print(format_verdict(demo.result))
        s, n, cs = (demo.result[name].gsr.slope for name in ("S", "N", "CS"))
        print(f"GSR(S) = {s:+.6f}, GSR(N) = {n:+.2e}, GSR(CS) = {cs:+.6f}, GSR(S) + GSR(CS) = {s + cs:+.1e}")
    print(f"\ntoy collections, tables, JSON, per-query CSV and plots are in {args.out}/")
    return 0
