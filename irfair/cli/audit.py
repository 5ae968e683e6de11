"""``irfair audit``: GSR of TREC runs beside the perfect and a random run, with effectiveness."""
from __future__ import annotations

import argparse
import re

from . import options

HELP = "GSR of TREC runs beside the perfect and a random run, with MAP/nDCG@100/P@10 or any ir_measures measure"


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", help="TREC run files (6 columns)")
    p.add_argument("--qrels", required=True, help="TREC qrels file or ir_datasets id (e.g. disks45/nocr/trec-robust-2004)")
    p.add_argument("--topics", required=True, help="TREC topics or qid<TAB>query file, or ir_datasets id")
    p.add_argument("--corpus", required=True, help="TREC SGML/JSONL file or folder, .txt folder, or ir_datasets id")
    p.add_argument("--depth", type=options.depth_type, default="auto", help="auto (= number of relevant documents) or N")
    options.add_query_field(p)
    p.add_argument("--measures", default=None, help="comma-separated ir_measures or trec_eval names (default MAP,nDCG@100,P@10)")
    p.add_argument("-m", "--measure", dest="measure", action="append", default=[],
                   help="one measure, repeatable, as trec_eval -m / ir_measures: nDCG@10, RR@10, P(rel=2)@10, ndcg_cut.10, P.5,10")
    p.add_argument("-c", "--complete", action="store_true",
                   help="average over every query of the qrels, 0 where a run has none (trec_eval -c)")
    p.add_argument("-q", "--per-query", action="store_true", help="also print each run's measures per query, as trec_eval -q")
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
    from ..measures.effectiveness import trec_eval_lines

    result = audit(
        args.runs, args.qrels, args.topics, args.corpus, args.embeddings, depth=args.depth, query_field=args.query_field,
        n_bootstrap=args.bootstrap, seed=args.seed, random_baseline=not args.no_random,
        measures=measure_names(args.measures, args.measure), complete=args.complete, cache_dir=options.cache_dir(args),
        progress=options.progress(),
    )
    print(format_table(result))
    if args.per_query:
        for audited in result.systems.values():
            if audited.kind == "system" and audited.evaluation is not None:
                print("\n" + "\n".join(trec_eval_lines(audited.evaluation)))
    if args.out:
        paths = save_audit(result, args.out, plots=not args.no_plots)
        print(f"\nwrote {len(paths)} files to {args.out}")
    return 0


def measure_names(measures: str | None, measure: list[str]) -> tuple[str, ...]:
    """Measures of ``--measures`` (split at commas outside parentheses) and of each ``-m`` (one measure, or a
    trec_eval spec such as ``P.5,10``), in that order; the default set when neither is given."""
    from ..measures.effectiveness import DEFAULT_MEASURES

    listed = [part.strip() for part in re.split(r",(?![^()]*\))", measures or "") if part.strip()]
    return tuple(listed + [m.strip() for m in measure if m.strip()]) or DEFAULT_MEASURES
