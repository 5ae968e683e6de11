"""Benchmark (not a test): do the neural re-rankers help their BM25 candidates?

For each collection (Vaswani and TIME from ../shared/data): BM25 top-100 candidates (irfair's Lucene
ranker, Anserini defaults), then DRMM and MatchPyramid trained by 5-fold cross-validation over the
queries (irfair's defaults), each alone and interpolated with the candidates' scores (weight 0.5), for
3 seeds. Every number comes with the two-sided paired t-test p-value against the candidates over the
collection's queries; "mean" rows average each query's value over the seeds before testing. The
training time is wall-clock seconds (noisy on a shared machine; compare within one run).

    python scripts/bench_neural_quality.py [--collections vaswani,time] [--models drmm,matchpyramid]
        [--seeds 0,1,2] [--threads 2] [--json results.json]

Goals (issue 26): DRMM within 5 % of its candidates' MAP, MatchPyramid within 10 %, and one
interpolation significantly above the candidates (p < 0.05) on at least one collection.
"""
from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from irfair.corpus import open_corpus
from irfair.corpus.termstore import TermStore
from irfair.embeddings import load_embeddings
from irfair.measures.effectiveness import EvaluationResult, evaluate, paired_t_test
from irfair.rankers import make_ranker
from irfair.rankers.neural.train import interpolate, train_folds
from irfair.trec import read_qrels, read_topics

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
COLLECTIONS = {
    "vaswani": (DATA / "vaswani" / "corpus", DATA / "vaswani" / "query-text.trec", DATA / "vaswani" / "qrels"),
    "time": (DATA / "time" / "time.trec", DATA / "time" / "topics.time.txt", DATA / "time" / "qrels.time.txt"),
}
MEASURES = ["MAP", "nDCG@10", "P@10"]
WEIGHT = 0.5
GOALS = {"drmm": 0.95, "matchpyramid": 0.90}


def _averaged(results: list[EvaluationResult], name: str) -> EvaluationResult:
    """Per query, the mean of the seeds' values."""
    table = sum(r.per_query[MEASURES] for r in results) / len(results)
    means = {m: float(table[m].mean()) for m in MEASURES}
    return EvaluationResult(name, table, n_missing=0, means=means, complete=False, measures=results[0].measures)


def _row(system: str, seed: str, result: EvaluationResult, baseline: EvaluationResult | None, seconds: float | None) -> dict:
    row = {"system": system, "seed": seed, "seconds": seconds}
    for m in MEASURES:
        row[m] = result.means[m]
        row[f"p_{m}"] = None if baseline is None else paired_t_test(result, baseline, m)[1]
    row["map_ratio"] = None if baseline is None else result.means["MAP"] / baseline.means["MAP"]
    return row


def _print_table(name: str, n_queries: int, rows: list[dict]) -> None:
    print(f"\n{name}: {n_queries} queries, BM25 top-100 candidates, 5-fold CV; model+bm25: interpolation weight {WEIGHT}")
    print("p: two-sided paired t-test against bm25; mean: each query's value averaged over the seeds")
    print(f"{'system':<18}{'seed':>5}{'MAP':>8}{'p':>7}{'nDCG@10':>9}{'p':>7}{'P@10':>8}{'p':>7}{'MAP/bm25':>9}{'train s':>9}")

    def p(value):
        return "-" if value is None else f"{value:.3f}"

    for r in rows:
        seconds = "-" if r["seconds"] is None else f"{r['seconds']:.0f}"
        ratio = "-" if r["map_ratio"] is None else f"{r['map_ratio']:.3f}"
        print(f"{r['system']:<18}{r['seed']:>5}{r['MAP']:>8.4f}{p(r['p_MAP']):>7}{r['nDCG@10']:>9.4f}{p(r['p_nDCG@10']):>7}"
              f"{r['P@10']:>8.4f}{p(r['p_P@10']):>7}{ratio:>9}{seconds:>9}")


def bench(collection: str, models: list[str], seeds: list[int], threads: int) -> list[dict]:
    corpus_path, topics_path, qrels_path = COLLECTIONS[collection]
    corpus = open_corpus(str(corpus_path))
    store = TermStore.for_corpus(corpus, None)
    store.ensure(corpus, None, progress=False)
    topics = read_topics(topics_path)
    queries = {qid: topic.text("title") for qid, topic in topics.items()}
    qrels = read_qrels(qrels_path)
    candidates = make_ranker("bm25", corpus=corpus).rank(queries, depth=100)
    candidates.name = "bm25"
    embeddings = load_embeddings("w2v-gnews-26k")
    baseline = evaluate(candidates, qrels, MEASURES)
    rows = [_row("bm25", "-", baseline, None, None)]
    for model in models:
        alone, mixed = [], []
        seconds = []
        for seed in seeds:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = train_folds(model, store, embeddings, queries, qrels, candidates, 100, corpus=corpus, folds=5,
                                     seed=seed, threads=threads, device="cpu")
            seconds.append(result.seconds)
            alone.append(evaluate(result.run, qrels, MEASURES))
            mixed.append(evaluate(interpolate(result.run, candidates, WEIGHT, model), qrels, MEASURES))
            rows.append(_row(model, str(seed), alone[-1], baseline, result.seconds))
            print(f"  {collection} {model} seed {seed}: MAP {alone[-1].means['MAP']:.4f}, {result.seconds:.0f} s", file=sys.stderr)
        rows.append(_row(model, "mean", _averaged(alone, model), baseline, float(np.mean(seconds))))
        for seed, result in zip(seeds, mixed):
            rows.append(_row(f"{model}+bm25", str(seed), result, baseline, None))
        rows.append(_row(f"{model}+bm25", "mean", _averaged(mixed, model), baseline, None))
    _print_table(collection, baseline.n_queries, rows)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collections", default="vaswani,time")
    parser.add_argument("--models", default="drmm,matchpyramid")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", default=None, help="write every row here")
    args = parser.parse_args()
    models = [m for m in args.models.split(",") if m]
    seeds = [int(s) for s in args.seeds.split(",")]
    everything = {}
    for collection in [c for c in args.collections.split(",") if c]:
        everything[collection] = bench(collection, models, seeds, args.threads)
    print("\ngoals (issue 26), on the mean of the seeds:")
    for collection, rows in everything.items():
        for r in rows:
            if r["seed"] != "mean":
                continue
            model = r["system"].split("+")[0]
            if "+" in r["system"]:
                met = r["MAP"] > rows[0]["MAP"] and r["p_MAP"] < 0.05
                print(f"  {collection} {r['system']}: MAP {r['MAP']:.4f} vs bm25 {rows[0]['MAP']:.4f}, p {r['p_MAP']:.3f} "
                      f"→ {'significantly above' if met else 'not significantly above'}")
            else:
                met = r["map_ratio"] >= GOALS[model]
                print(f"  {collection} {model}: MAP {r['map_ratio']:.3f} × bm25 (p {r['p_MAP']:.3f}); goal ≥ {GOALS[model]:.2f} "
                      f"→ {'met' if met else 'not met'}")
    if args.json:
        Path(args.json).write_text(json.dumps(everything, indent=1))
        frame = pd.concat({c: pd.DataFrame(rows) for c, rows in everything.items()})
        print(f"\nwrote {args.json} ({len(frame)} rows)")


if __name__ == "__main__":
    main()
