"""``irfair rank``: rank a corpus (or re-rank another run's candidates) and write a TREC run file."""
from __future__ import annotations

import argparse
import sys

from ..rankers import RANKERS
from . import options

PARALLEL = True
HELP = "rank a corpus (or re-rank a run) and write a TREC run file"
CHOICES = [name for name, spec in RANKERS.items() if spec.ranks_corpus]
EXAMPLE = """examples (from the checkout, with ../shared/data beside it):
  irfair rank --corpus ../shared/data/time/time.trec --topics ../shared/data/time/topics.time.txt \\
      --ranker bm25 --depth 100 --out time-bm25.run
  irfair rank --corpus ../shared/data/time/time.trec --topics ../shared/data/time/topics.time.txt \\
      --ranker si --embeddings glove-6b-50d --rerank time-bm25.run --out time-glove_si.run"""


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--corpus", required=True, help="corpus (TREC/JSONL/.txt folder/ir_datasets id) or a Lucene index")
    p.add_argument("--topics", required=True, help="TREC topics file or qid<TAB>query lines")
    p.add_argument("--ranker", required=True, choices=CHOICES, help="ranking model")
    p.add_argument("--rerank", default=None, help="re-rank this run's candidates instead of the whole corpus (add/si)")
    p.add_argument("--depth", type=options.positive_int, default=1000, help="documents per query in the run")
    p.add_argument("--out", required=True, help="run file to write")
    options.add_query_field(p)
    p.add_argument("--index", default=None, help="an existing pyserini/Lucene index (bm25/qlm/tfidf only)")
    p.add_argument("--variant", choices=("regular", "hard", "strong"), default=None,
                   help="debiasing of the embeddings (default: regular)")
    options.add_ranker_parameters(p, [RANKERS[name] for name in CHOICES])
    p.add_argument("--threads", type=options.positive_int, default=2, help="threads for Lucene indexing and search")
    options.add_embeddings(p, only_if_given=True)
    options.add_cache(p)


def run(args: argparse.Namespace) -> int:
    from ..errors import IrfairInputError
    from ..numbers import counted, first_few
    from ..rankers import make_ranker
    from ..trec import read_run, read_topics, write_run

    options.check_paths(args, files=("out",))
    spec = RANKERS[args.ranker]
    if args.rerank and not spec.reranks:
        rerankers = ", ".join(n for n, s in RANKERS.items() if s.reranks and s.ranks_corpus)
        raise IrfairInputError(None, None, f"--rerank works with the {rerankers} rankers")
    if args.index and spec.needs_embeddings:
        raise IrfairInputError(None, None, f"--index is a Lucene index for bm25, qlm and tfidf; {spec.name} does not use it")
    unused = [flag for flag, value in (("--embeddings", args.embeddings), ("--variant", args.variant)) if value is not None]
    if unused and not spec.needs_embeddings:
        users = " and ".join(n for n, s in RANKERS.items() if s.needs_embeddings and s.ranks_corpus)
        raise IrfairInputError(None, None, f"{' and '.join(unused)} {'are' if len(unused) > 1 else 'is'} for the {users} rankers; "
                                           f"{spec.name} ranks without embeddings")
    parameters = options.ranker_parameters(args, spec)
    topics = read_topics(args.topics)
    queries = {qid: topic.text(args.query_field) for qid, topic in topics.items()}
    ranker = make_ranker(spec.name, corpus=args.corpus,
                         embeddings=(args.embeddings or options.DEFAULT_EMBEDDINGS) if spec.needs_embeddings else None,
                         variant=args.variant or "regular", cache_dir=options.cache_dir(args), index=args.index, threads=args.threads,
                         progress=options.progress(args), **parameters)
    run = ranker.rerank(queries, read_run(args.rerank), depth=args.depth) if args.rerank else ranker.rank(queries, depth=args.depth)
    without_vector = getattr(ranker, "n_docs_without_vector", 0)
    if without_vector and not args.quiet:
        print(f"{without_vector} documents have no in-vocabulary term and are never retrieved", file=sys.stderr)
    write_run(args.out, run)
    missing = [qid for qid in queries if not run.ranking.get(qid)]
    named = f": {first_few(missing)}" if missing else ""
    print(f"wrote {args.out}: {counted(len(run.ranking), 'query', 'queries')} ({len(missing)} with no result{named}), tag {run.tag}")
    return 0
