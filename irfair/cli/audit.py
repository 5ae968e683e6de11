"""``irfair audit``: GSR of TREC runs beside the perfect and a random run, with effectiveness."""
from __future__ import annotations

import argparse

from . import options

HELP = "GSR of TREC runs beside the perfect and a random run, with MAP/nDCG@100/P@10"


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", help="TREC run files (6 columns)")
    p.add_argument("--qrels", required=True)
    p.add_argument("--topics", required=True)
    p.add_argument("--corpus", required=True, help="TREC SGML/JSONL file or folder, .txt folder, or ir_datasets id")
    p.add_argument("--depth", type=options.depth_type, default="auto", help="auto (= number of relevant documents) or N")
    options.add_query_field(p)
    p.add_argument("--measures", default="MAP,nDCG@100,P@10", help="comma-separated, e.g. MAP,nDCG@100,P@10,RR")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for CIs and tests (0 = none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-random", action="store_true", help="leave out the random-run baseline")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--out", default=None, help="folder for audit.json, per_query.csv, table.txt and plots")
    options.add_embeddings(p)
    options.add_cache(p)


def run(args: argparse.Namespace) -> int:
    from ..audit import audit
    from ..audit.report import format_table, save_audit

    result = audit(
        args.runs, args.qrels, args.topics, args.corpus, args.embeddings, depth=args.depth, query_field=args.query_field,
        n_bootstrap=args.bootstrap, seed=args.seed, random_baseline=not args.no_random,
        measures=options.names(args.measures), cache_dir=options.cache_dir(args), progress=options.progress(),
    )
    print(format_table(result))
    if args.out:
        paths = save_audit(result, args.out, plots=not args.no_plots)
        print(f"\nwrote {len(paths)} files to {args.out}")
    return 0
