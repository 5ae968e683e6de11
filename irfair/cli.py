"""Command line: parse, call the API, print. ``irfair audit | genderedness | demo``."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import IrfairInputError, MissingExtraError


def _depth(text: str) -> str | int:
    if text == "auto":
        return "auto"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("depth must be 'auto' or a positive integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError("depth must be 'auto' or a positive integer")
    return value


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--embeddings", default="w2v-gnews-26k", help="w2v-gnews-26k, glove-6b-50d or a vectors file")
    parser.add_argument("--cache-dir", default=None, help="cache folder (default $IRFAIR_CACHE or ~/.cache/irfair)")
    parser.add_argument("--no-cache", action="store_true", help="keep tokenised documents in memory only")


def _cache_dir(args) -> Path | None:
    import os

    if args.no_cache:
        return None
    if args.cache_dir:
        return Path(args.cache_dir)
    return Path(os.environ.get("IRFAIR_CACHE", Path.home() / ".cache" / "irfair"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="irfair", description="Audit search engines and classifiers for gender bias.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("audit", help="GSR of TREC runs beside the perfect and a random run, with MAP/nDCG@100/P@10")
    p.add_argument("runs", nargs="+", help="TREC run files (6 columns)")
    p.add_argument("--qrels", required=True)
    p.add_argument("--topics", required=True)
    p.add_argument("--corpus", required=True, help="TREC SGML/JSONL file or folder, .txt folder, or ir_datasets id")
    p.add_argument("--depth", type=_depth, default="auto", help="auto (= number of relevant documents) or N")
    p.add_argument("--query-field", choices=("title", "desc", "title+desc"), default="title")
    p.add_argument("--measures", default="MAP,nDCG@100,P@10", help="comma-separated, e.g. MAP,nDCG@100,P@10,RR")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for CIs and tests (0 = none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-random", action="store_true", help="leave out the random-run baseline")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--out", default=None, help="folder for audit.json, per_query.csv, table.txt and plots")
    _add_common(p)

    p = sub.add_parser("genderedness", help="most female/male queries of a topics file, or g(w) of given words")
    p.add_argument("words", nargs="*", help="words to score (instead of --topics)")
    p.add_argument("--topics", help="TREC topics file")
    p.add_argument("--query-field", choices=("title", "desc", "title+desc"), default="title")
    p.add_argument("--top", type=int, default=10, help="how many queries to list at each end")
    _add_common(p)

    p = sub.add_parser("rank", help="rank a corpus (or re-rank a run) and write a TREC run file")
    p.add_argument("--corpus", required=True, help="corpus (TREC/JSONL/.txt folder/ir_datasets id) or a Lucene index")
    p.add_argument("--topics", required=True)
    p.add_argument("--ranker", required=True, choices=("bm25", "qlm", "tfidf", "add", "si"))
    p.add_argument("--rerank", default=None, help="re-rank this run's candidates (add/si)")
    p.add_argument("--depth", type=int, default=1000)
    p.add_argument("--out", required=True, help="run file to write")
    p.add_argument("--query-field", choices=("title", "desc", "title+desc"), default="title")
    p.add_argument("--index", default=None, help="an existing pyserini/Lucene index for bm25/qlm/tfidf")
    p.add_argument("--k1", type=float, default=0.9)
    p.add_argument("--b", type=float, default=0.4)
    p.add_argument("--mu", type=float, default=1000.0)
    p.add_argument("--threads", type=int, default=2)
    _add_common(p)

    p = sub.add_parser("index", help="tokenise a corpus into the cache, build its Lucene index and document vectors")
    p.add_argument("--corpus", required=True)
    p.add_argument("--embeddings", action="append", default=[], help="also build add/si document vectors for these")
    p.add_argument("--no-lucene", action="store_true", help="skip the Lucene index")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--cache-dir", default=None, help="cache folder (default $IRFAIR_CACHE or ~/.cache/irfair)")
    p.set_defaults(no_cache=False)

    p = sub.add_parser("train", help="train DRMM or MatchPyramid with K-fold CV and re-rank BM25 candidates")
    p.add_argument("--ranker", required=True, choices=("drmm", "matchpyramid"))
    p.add_argument("--corpus", required=True)
    p.add_argument("--topics", required=True)
    p.add_argument("--qrels", required=True)
    p.add_argument("--candidates", required=True, help="run to re-rank (e.g. BM25)")
    p.add_argument("--out", required=True, help="run file to write")
    p.add_argument("--variant", choices=("regular", "hard", "strong"), default="regular", help="debiasing of the embeddings")
    p.add_argument("--top-n", type=int, default=100, help="candidates re-ranked per query")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--folds-file", default=None, help="JSON folds file: read when it exists, written otherwise")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--doc-len", type=int, default=300, help="MatchPyramid document length (tokens)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--log", default=None, help="training log (TSV: fold, epoch, loss, validation MAP); default OUT.log")
    p.add_argument("--interpolate", action="store_true",
                   help="mix in the candidates' own scores, weight chosen on each validation fold")
    p.add_argument("--query-field", choices=("title", "desc", "title+desc"), default="title")
    _add_common(p)

    p = sub.add_parser("study", help="every ranker × {regular, hard, strong} embeddings, audited: tables and plots")
    p.add_argument("--corpus", required=True)
    p.add_argument("--topics", required=True)
    p.add_argument("--qrels", required=True)
    p.add_argument("--out", required=True, help="study folder (runs/ inside it are reused when present)")
    p.add_argument("--ranker-embeddings", default="w2v-gnews-26k,glove-6b-50d")
    p.add_argument("--measure-embeddings", default="w2v-gnews-26k,glove-6b-50d")
    p.add_argument("--variants", default="regular,hard,strong")
    p.add_argument("--no-lexical", action="store_true", help="leave out BM25, QLM and tf-idf")
    p.add_argument("--neural", default="drmm,matchpyramid", help="comma-separated neural rankers, or none")
    p.add_argument("--depth", type=int, default=1000, help="run depth of every ranker")
    p.add_argument("--candidates", type=int, default=100, help="BM25 candidates re-ranked by the neural rankers")
    p.add_argument("--epochs", type=int, default=10, help="training epochs of the neural rankers")
    p.add_argument("--bootstrap", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--query-field", choices=("title", "desc", "title+desc"), default="title")
    p.add_argument("--cache-dir", default=None)
    p.add_argument("--no-cache", action="store_true")

    p = sub.add_parser("fairness", help="classifier audit: ε-differential fairness, PPR/TPR/FPR gaps and GapRMS")
    p.add_argument("predictions", help="CSV with a header line (UTF-8, or UTF-16 with a byte-order mark)")
    p.add_argument("--label", required=True, help="column of true labels")
    p.add_argument("--prediction", required=True, help="column of predicted labels")
    p.add_argument("--score", default=None, help="numeric score column (mean reported by group)")
    p.add_argument("--groups", required=True, help="protected attribute columns, comma-separated")
    p.add_argument("--gap-group", default=None, help="two-valued column for the gaps (default: first of --groups)")
    p.add_argument("--protected-group", default=None, help="gap = rate(protected) − rate(reference) (default: female − male)")
    p.add_argument("--reference-group", default=None, help="the group the protected group is compared with")
    p.add_argument("--positive", default=None, help="the positive label: VALUE vs every other value")
    p.add_argument("--multiclass", action="store_true", help="every label value is a class (default: two values)")
    p.add_argument("--alpha", default="1", help="Dirichlet smoothing of ε, a number >= 0 (0 = empirical)")
    p.add_argument("--json", default=None, help="also write the results as JSON to this file (its folder must exist)")

    p = sub.add_parser("demo", help="the paper's two toy collections, audited (S, N, CS systems)")
    p.add_argument("--out", default="demo", help="folder for the toy collections and their audits")
    p.add_argument("--embeddings", action="append", default=None,
                   help="embedding set(s) to audit with (default: w2v-gnews-26k and glove-6b-50d)")
    return parser


def cmd_audit(args) -> int:
    from .audit import audit
    from .report import format_table, save_audit

    result = audit(
        args.runs,
        args.qrels,
        args.topics,
        args.corpus,
        args.embeddings,
        depth=args.depth,
        query_field=args.query_field,
        n_bootstrap=args.bootstrap,
        seed=args.seed,
        random_baseline=not args.no_random,
        measures=[m.strip() for m in args.measures.split(",") if m.strip()],
        cache_dir=_cache_dir(args),
        progress=sys.stderr.isatty(),
    )
    print(format_table(result))
    if args.out:
        paths = save_audit(result, args.out, plots=not args.no_plots)
        print(f"\nwrote {len(paths)} files to {args.out}")
    return 0


def cmd_genderedness(args) -> int:
    import math

    from .embeddings import load_embeddings
    from .gender import gender_direction
    from .text import content_tokens

    if not args.words and not args.topics:
        raise IrfairInputError(None, None, "give words to score or --topics FILE")
    emb = load_embeddings(args.embeddings, _cache_dir(args))
    direction = gender_direction(emb)
    print(f"# {emb.name}: gender direction from {len(direction.pairs_used)} pairs, "
          f"explained variance {direction.explained_variance_ratio:.3f}; g > 0 female, g < 0 male")
    if args.words:
        for word, value in zip(args.words, direction.word_genderedness(emb, [w.lower() for w in args.words])):
            print(f"{word}\t{'OOV' if math.isnan(value) else f'{value:+.4f}'}")
        return 0
    from .collection import read_topics

    topics = read_topics(args.topics)
    scored = []
    for qid, topic in topics.items():
        text = topic.text(args.query_field)
        values = direction.word_genderedness(emb, content_tokens(text))
        known = values[~(values != values)]
        if len(known):
            scored.append((float(known.mean()), qid, text))
    scored.sort()
    unscored = len(topics) - len(scored)
    top = max(1, args.top)
    print(f"# most female queries ({len(scored)} scored, {unscored} with no in-vocabulary term)")
    for value, qid, text in reversed(scored[-top:]):
        print(f"{qid}\t{value:+.4f}\t{text}")
    print("# most male queries")
    for value, qid, text in scored[:top]:
        print(f"{qid}\t{value:+.4f}\t{text}")
    return 0


def cmd_rank(args) -> int:
    from .collection import read_run, read_topics, write_run
    from .corpus import open_corpus

    if args.depth < 1:
        raise IrfairInputError(None, None, "--depth must be a positive integer")
    topics = read_topics(args.topics)
    queries = {qid: topic.text(args.query_field) for qid, topic in topics.items()}
    corpus = open_corpus(args.corpus)
    cache = _cache_dir(args)
    progress = sys.stderr.isatty()
    if args.ranker in ("bm25", "qlm", "tfidf"):
        from .lucene import LuceneIndexCorpus, build_index
        from .rankers.lexical import LexicalRanker

        if args.rerank:
            raise IrfairInputError(None, None, "--rerank works with the add and si rankers")
        ranker = LexicalRanker.create(args.ranker, k1=args.k1, b=args.b, mu=args.mu)
        if args.index:
            index = args.index
        elif isinstance(corpus, LuceneIndexCorpus):
            index = corpus.index_dir
        else:
            if cache is None:
                raise IrfairInputError(None, None, "a Lucene index needs a cache folder: drop --no-cache or give --index")
            index = build_index(corpus, cache, threads=args.threads, progress=progress)
        run = ranker.rank(index, queries, depth=args.depth, threads=args.threads)
    else:
        from .doc_terms import TermStore
        from .embeddings import load_embeddings
        from .rankers.embedding import EmbeddingRanker

        store = TermStore.for_corpus(corpus, cache)
        store.ensure(corpus, None, progress=progress)
        ranker = EmbeddingRanker(store, load_embeddings(args.embeddings, cache), args.ranker, cache,
                                 corpus_key=f"{corpus.name}-{corpus.fingerprint()}", progress=progress)
        if args.rerank:
            candidates = read_run(args.rerank)
            unknown = [doc for hits in candidates.ranking.values() for doc, _ in hits if doc not in store]
            if unknown:
                qid = next(q for q, hits in candidates.ranking.items() if any(d == unknown[0] for d, _ in hits))
                raise IrfairInputError(args.rerank, candidates.line_of.get((qid, unknown[0])),
                                       f"document {unknown[0]} is not in the corpus {args.corpus}")
            run = ranker.rerank(queries, candidates, depth=args.depth)
        else:
            run = ranker.rank(queries, depth=args.depth)
        if ranker.n_docs_without_vector:
            print(f"{ranker.n_docs_without_vector} documents have no in-vocabulary term and are never retrieved", file=sys.stderr)
    write_run(args.out, run)
    missing = len(queries) - len(run.ranking)
    print(f"wrote {args.out}: {len(run.ranking)} queries ({missing} with no result), tag {run.tag}")
    return 0


def cmd_index(args) -> int:
    from .corpus import open_corpus
    from .doc_terms import TermStore
    from .embeddings import load_embeddings
    from .rankers.embedding import EmbeddingRanker

    cache = _cache_dir(args)
    corpus = open_corpus(args.corpus)
    store = TermStore.for_corpus(corpus, cache)
    store.ensure(corpus, None, progress=True)
    print(f"term store: {len(store)} documents, {len(store.vocab)} terms in {store.folder}")
    if not args.no_lucene:
        from .lucene import build_index

        print(f"Lucene index: {build_index(corpus, cache, threads=args.threads)}")
    for name in args.embeddings:
        emb = load_embeddings(name, cache)
        for scheme in ("add", "si"):
            ranker = EmbeddingRanker(store, emb, scheme, cache, corpus_key=f"{corpus.name}-{corpus.fingerprint()}", progress=True)
            print(f"document vectors {ranker.name}: {len(store)} × {emb.dim} ({ranker.n_docs_without_vector} without a vector)")
    return 0


def cmd_train(args) -> int:
    from .collection import check_run_queries, read_qrels, read_run, read_topics, write_run
    from .corpus import open_corpus
    from .debias import debiased
    from .doc_terms import TermStore
    from .embeddings import load_embeddings
    from .rankers.neural.train import train_and_rerank

    if args.folds < 3:
        raise IrfairInputError(None, None, "--folds must be at least 3 (train, validation and test folds)")
    topics = read_topics(args.topics)
    qrels = read_qrels(args.qrels)
    candidates = read_run(args.candidates)
    check_run_queries(candidates, topics, args.topics)
    corpus = open_corpus(args.corpus)
    cache = _cache_dir(args)
    store = TermStore.for_corpus(corpus, cache)
    store.ensure(corpus, None, progress=sys.stderr.isatty())
    embeddings = debiased(load_embeddings(args.embeddings, cache), args.variant, cache)
    queries = {qid: topic.text(args.query_field) for qid, topic in topics.items()}
    run = train_and_rerank(args.ranker, store, embeddings, queries, qrels, candidates, args.top_n, corpus=corpus,
                           folds=args.folds, folds_file=args.folds_file, epochs=args.epochs, doc_len=args.doc_len,
                           seed=args.seed, progress=sys.stderr.isatty(), log_path=args.log or f"{args.out}.log",
                           interpolate_first_stage=args.interpolate)
    write_run(args.out, run)
    print(f"wrote {args.out}: {len(run.ranking)} queries re-ranked (top {args.top_n}), tag {run.tag}; "
          f"training log {args.log or args.out + '.log'}")
    return 0


def cmd_study(args) -> int:
    from .debias import VARIANTS
    from .study import StudyConfig, run_study

    def names(text: str) -> tuple[str, ...]:
        return tuple(x.strip() for x in text.split(",") if x.strip())

    variants = names(args.variants)
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown or "regular" not in variants:
        raise IrfairInputError(None, None, f"--variants must include regular and be among {', '.join(VARIANTS)}")
    neural = () if args.neural.strip() == "none" else names(args.neural)
    if any(n not in ("drmm", "matchpyramid") for n in neural):
        raise IrfairInputError(None, None, "--neural takes drmm and/or matchpyramid")
    if not names(args.measure_embeddings):
        raise IrfairInputError(None, None, "--measure-embeddings needs at least one embedding set")
    config = StudyConfig(
        ranker_embeddings=names(args.ranker_embeddings), measure_embeddings=names(args.measure_embeddings),
        variants=variants, lexical=not args.no_lexical, neural=neural, depth=args.depth,
        neural_candidates=args.candidates, neural_epochs=args.epochs, n_bootstrap=args.bootstrap, seed=args.seed,
        query_field=args.query_field,
    )
    cache = _cache_dir(args)
    result = run_study(args.corpus, args.topics, args.qrels, args.out, config, cache_dir=cache,
                       progress=sys.stderr.isatty(), log=lambda line: print(line, file=sys.stderr))
    from .study_report import to_markdown

    print(to_markdown(result.gsr))
    print()
    print(to_markdown(result.reliability))
    print(f"\nwrote {len(result.files)} files to {args.out} (tables: study.md)")
    return 0


def cmd_fairness(args) -> int:
    from .fairness.report import audit_predictions, check_output_path, format_audit, write_json

    if args.json:
        check_output_path(args.json)
    result = audit_predictions(args.predictions, args.label, args.prediction, args.groups, score=args.score,
                               alpha=args.alpha, gap_group=args.gap_group, positive=args.positive,
                               multiclass=args.multiclass, protected_group=args.protected_group,
                               reference_group=args.reference_group)
    print(format_audit(result))
    if args.json:
        write_json(args.json, result)
    return 0


def cmd_demo(args) -> int:
    from .audit import audit
    from .report import format_table, save_audit
    from .toy import toy_direct, toy_indirect

    out = Path(args.out)
    for toy in (toy_direct(), toy_indirect()):
        paths = toy.write(out / toy.name)
        runs = [paths["S"], paths["N"], paths["CS"]]
        for embeddings in args.embeddings or ["w2v-gnews-26k", "glove-6b-50d"]:
            result = audit(runs, paths["qrels"], paths["topics"], paths["corpus"], embeddings, n_bootstrap=1000, seed=0)
            print(f"\n== {toy.name} with {embeddings} ==")
            print(format_table(result))
            s, n, cs = (result[name].gsr.slope for name in ("S", "N", "CS"))
            print(f"GSR(S) = {s:+.6f}, GSR(N) = {n:+.2e}, GSR(CS) = {cs:+.6f}, GSR(S) + GSR(CS) = {s + cs:+.1e}")
            save_audit(result, out / toy.name / f"audit-{Path(str(embeddings)).name}")
    print(f"\ntoy collections, tables, JSON, per-query CSV and plots are in {out}/")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handlers = {"audit": cmd_audit, "genderedness": cmd_genderedness, "rank": cmd_rank, "index": cmd_index, "train": cmd_train, "study": cmd_study,
                "fairness": cmd_fairness, "demo": cmd_demo}
    try:
        return handlers[args.command](args)
    except (IrfairInputError, MissingExtraError) as exc:
        print(f"irfair: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("irfair: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
