"""``irfair study``: every ranker × {regular, hard, strong} embeddings, audited; tables and plots."""
from __future__ import annotations

import argparse

from ..rankers import NEURAL, rankers_of
from . import options

PARALLEL = True
HELP = "every ranker × {regular, hard, strong} embeddings, audited: tables, plots and report.html"
EXAMPLE = """example (from the checkout, with ../shared/data beside it; a few minutes on 2 cores):
  irfair study --corpus ../shared/data/time/time.trec --topics ../shared/data/time/topics.time.txt \\
      --qrels ../shared/data/time/qrels.time.txt --out study-time/ --neural none --depth 100"""


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--corpus", required=True, help="TREC SGML/JSONL file or folder, .txt folder or ir_datasets id")
    p.add_argument("--topics", required=True, help="TREC topics or qid<TAB>query file, or ir_datasets id")
    p.add_argument("--qrels", required=True, help="TREC qrels file or ir_datasets id")
    p.add_argument("--out", required=True, help="study folder (runs/ inside it are reused when present)")
    p.add_argument("--ranker-embeddings", default="w2v-gnews-26k,glove-6b-50d",
                   help="comma-separated embedding sets the embedding and neural rankers rank with")
    p.add_argument("--measure-embeddings", default="w2v-gnews-26k,glove-6b-50d",
                   help="comma-separated embedding sets GSR is measured with (one audit each)")
    p.add_argument("--variants", default="regular,hard,strong", help="debiasing variants of the ranking embeddings")
    p.add_argument("--no-lexical", action="store_true", help="leave out BM25, QLM and tf-idf")
    p.add_argument("--neural", default=",".join(rankers_of(NEURAL)), help="comma-separated neural rankers, or none")
    p.add_argument("--depth", type=options.positive_int, default=1000, help="run depth of every ranker")
    p.add_argument("--candidates", type=options.positive_int, default=100, help="BM25 candidates re-ranked by the neural rankers")
    p.add_argument("--epochs", type=options.positive_int, default=10, help="training epochs of the neural rankers")
    p.add_argument("--bootstrap", type=options.bounded("bootstrap"), default=1000,
                   help="bootstrap resamples for CIs and paired tests (0 = none)")
    p.add_argument("--seed", type=options.seed_int, default=0, help="seed of training, the bootstrap and the random run")
    p.add_argument("--device", default="auto", help="where the neural rankers train: auto (MatchPyramid on a GPU when torch sees "
                   "one, DRMM on the CPU), cpu, cuda or cuda:N")
    options.add_query_field(p)
    p.add_argument("--wide", action="store_true",
                   help="print the whole GSR table (every measuring embedding side by side, relative GSR with its CI) "
                        "instead of one table of at most 100 columns per embedding")
    options.add_cache(p)


def run(args: argparse.Namespace) -> int:
    from ..presentation.study_report import terminal_text, write_study
    from ..study import StudyConfig, run_study

    options.check_paths(args, folders=("out",))
    config = StudyConfig(
        ranker_embeddings=options.names(args.ranker_embeddings), measure_embeddings=options.names(args.measure_embeddings),
        variants=options.names(args.variants), lexical=not args.no_lexical,
        neural=() if args.neural.strip() == "none" else options.names(args.neural), depth=args.depth,
        neural_candidates=args.candidates, neural_epochs=args.epochs, n_bootstrap=args.bootstrap, seed=args.seed,
        query_field=args.query_field, device=args.device,
    )
    result = run_study(args.corpus, args.topics, args.qrels, args.out, config, cache_dir=options.cache_dir(args),
                       progress=options.progress(args), log=options.log(args))
    result.files = write_study(result, args.out)
    print(terminal_text(result, wide=args.wide), end="")
    print(f"\nwrote {len(result.files)} files to {args.out} (tables: study.md; open report.html in a browser)")
    return 0
