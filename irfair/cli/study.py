"""``irfair study``: every ranker × {regular, hard, strong} embeddings, audited; tables and plots."""
from __future__ import annotations

import argparse
import sys

from ..rankers import NEURAL, rankers_of
from . import options

HELP = "every ranker × {regular, hard, strong} embeddings, audited: tables and plots"


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--corpus", required=True)
    p.add_argument("--topics", required=True)
    p.add_argument("--qrels", required=True)
    p.add_argument("--out", required=True, help="study folder (runs/ inside it are reused when present)")
    p.add_argument("--ranker-embeddings", default="w2v-gnews-26k,glove-6b-50d")
    p.add_argument("--measure-embeddings", default="w2v-gnews-26k,glove-6b-50d")
    p.add_argument("--variants", default="regular,hard,strong")
    p.add_argument("--no-lexical", action="store_true", help="leave out BM25, QLM and tf-idf")
    p.add_argument("--neural", default=",".join(rankers_of(NEURAL)), help="comma-separated neural rankers, or none")
    p.add_argument("--depth", type=int, default=1000, help="run depth of every ranker")
    p.add_argument("--candidates", type=int, default=100, help="BM25 candidates re-ranked by the neural rankers")
    p.add_argument("--epochs", type=int, default=10, help="training epochs of the neural rankers")
    p.add_argument("--bootstrap", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    options.add_query_field(p)
    options.add_cache(p)


def run(args: argparse.Namespace) -> int:
    from ..study import StudyConfig, run_study
    from ..study.report import to_markdown

    config = StudyConfig(
        ranker_embeddings=options.names(args.ranker_embeddings), measure_embeddings=options.names(args.measure_embeddings),
        variants=options.names(args.variants), lexical=not args.no_lexical,
        neural=() if args.neural.strip() == "none" else options.names(args.neural), depth=args.depth,
        neural_candidates=args.candidates, neural_epochs=args.epochs, n_bootstrap=args.bootstrap, seed=args.seed,
        query_field=args.query_field,
    )
    result = run_study(args.corpus, args.topics, args.qrels, args.out, config, cache_dir=options.cache_dir(args),
                       progress=options.progress(), log=lambda line: print(line, file=sys.stderr))
    print(to_markdown(result.gsr))
    print()
    print(to_markdown(result.reliability))
    print(f"\nwrote {len(result.files)} files to {args.out} (tables: study.md)")
    return 0
