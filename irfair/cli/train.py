"""``irfair train``: train DRMM or MatchPyramid with K-fold cross-validation and re-rank candidates."""
from __future__ import annotations

import argparse
import os

from ..rankers import NEURAL, RANKERS, rankers_of
from . import options

PARALLEL = True
HELP = "train DRMM or MatchPyramid with K-fold CV and re-rank BM25 candidates"
EXAMPLE = """example (from the checkout, with ../shared/data beside it):
  irfair train --ranker drmm --corpus ../shared/data/vaswani/corpus --topics ../shared/data/vaswani/query-text.trec \\
      --qrels ../shared/data/vaswani/qrels --candidates runs/vaswani/bm25.run --out vaswani-drmm.run

Progress: bars on a terminal; otherwise one line per epoch on stderr (none under --quiet).
The inputs (DRMM's histograms, MatchPyramid's word ids) are kept in the cache: a second training on the
same collection, candidates and settings reads them. --device auto trains MatchPyramid on a GPU when torch
sees one and DRMM on the CPU (faster there); cuda is the current card, cuda:N another.
A fold that cannot train (no relevant candidate among its training queries, a loss that is not finite)
keeps its candidates' order, with a warning; when no fold can train, nothing is written (exit 2)."""


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ranker", required=True, choices=rankers_of(NEURAL), help="neural model to train")
    p.add_argument("--corpus", required=True, help="TREC SGML/JSONL file or folder, .txt folder or ir_datasets id")
    p.add_argument("--topics", required=True, help="TREC topics file")
    p.add_argument("--qrels", required=True, help="TREC qrels file (training labels)")
    p.add_argument("--candidates", required=True, help="run to re-rank (e.g. BM25)")
    p.add_argument("--out", required=True, help="run file to write")
    p.add_argument("--variant", choices=("regular", "hard", "strong"), default="regular", help="debiasing of the embeddings")
    options.add_ranker_parameters(p, [RANKERS[name] for name in rankers_of(NEURAL)])
    p.add_argument("--threads", type=options.positive_int, default=2,
                   help="torch CPU threads while training (a run is byte-identical for a given --seed, --device and, on the "
                        "CPU, --threads)")
    p.add_argument("--folds-file", default=None, help="JSON folds file: read when it exists, written otherwise")
    p.add_argument("--log", default=None, help="training log (TSV: fold, epoch, loss, validation MAP); default OUT.log")
    options.add_query_field(p)
    options.add_embeddings(p)
    options.add_cache(p)


def run(args: argparse.Namespace) -> int:
    from ..rankers import make_ranker
    from ..rankers.neural.folds import read_folds, training_queries
    from ..trec import check_run_queries, read_qrels, read_run, read_topics, write_run

    parameters = options.ranker_parameters(args, RANKERS[args.ranker])
    settings = {**RANKERS[args.ranker].defaults, **parameters}
    options.check_paths(args, files=("out", "log"))
    from ..rankers.neural.device import resolve_device

    resolve_device(settings["device"], args.ranker)  # a device torch does not see is refused before any input is read
    if args.folds_file is not None and not os.path.exists(args.folds_file):
        options.check_paths(args, files=("folds_file",))
    topics = read_topics(args.topics)
    qrels = read_qrels(args.qrels)
    candidates = read_run(args.candidates)
    check_run_queries(candidates, topics, args.topics)
    queries = {qid: topic.text(args.query_field) for qid, topic in topics.items()}
    qids = training_queries(queries, qrels, candidates, settings["folds"], args.qrels)  # refused here, before the corpus is read
    if args.folds_file is not None and os.path.exists(args.folds_file):
        read_folds(args.folds_file, qids)  # its faults too
    log = args.log or f"{args.out}.log"
    ranker = make_ranker(args.ranker, corpus=args.corpus, embeddings=args.embeddings, variant=args.variant,
                         cache_dir=options.cache_dir(args), qrels=qrels, progress=options.progress(args), threads=args.threads,
                         folds_file=args.folds_file, log_path=log, **parameters)
    if not options.progress(args):
        ranker.report = options.log(args)
    run = ranker.rerank(queries, candidates)
    write_run(args.out, run)
    training = ranker.training
    print(f"wrote {args.out}: {len(run.ranking)} queries re-ranked (top {settings['top_n']}), tag {run.tag}; "
          f"{training.summary()}; {training.seconds:.0f} s; training log {log}")
    return 0
