"""Benchmark: list genderedness for 250 queries × 1000-deep runs over a synthetic 100k-document corpus.

Compares irfair's cached, vectorised path (tokenise every document once into a term store, one
sparse product for per-document sums, per query only its own terms subtracted) with the naive
reference path (irfair.gender.naive: re-tokenise every retrieved document for every query), timed in the
same run. The naive path is timed on a subset of queries and scaled to all of them (printed).

    python scripts/bench_gsr.py [--docs 100000] [--queries 250] [--depth 1000] [--naive-queries 20]
"""
from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np

from irfair.corpus import InMemoryCorpus
from irfair.corpus.termstore import TermStore
from irfair.embeddings import load_embeddings
from irfair.gender import gender_direction
from irfair.gender.genderedness import GenderednessModel, list_genderedness, rank_weights
from irfair.gender.naive import naive_list_genderedness
from irfair.text import default_stopwords


def synthetic_collection(n_docs: int, n_queries: int, depth: int, vocabulary: list[str], seed: int = 0):
    """Zipf-distributed documents (~200 tokens) and 3-term queries over ``vocabulary``; random runs."""
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, len(vocabulary) + 1)
    probabilities = 1.0 / ranks**1.1
    probabilities /= probabilities.sum()
    words = np.array(vocabulary)
    lengths = rng.integers(100, 300, size=n_docs)
    draws = rng.choice(len(vocabulary), size=int(lengths.sum()), p=probabilities)
    docs, start = {}, 0
    for i, length in enumerate(lengths):
        docs[f"D{i}"] = " ".join(words[draws[start : start + length]])
        start += length
    queries = {f"Q{q}": " ".join(words[rng.choice(2000, size=3, replace=False) + 100]) for q in range(n_queries)}
    doc_ids = list(docs)
    runs = {qid: [doc_ids[i] for i in rng.choice(n_docs, size=depth, replace=False)] for qid in queries}
    return docs, queries, runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=250)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--naive-queries", type=int, default=20)
    args = parser.parse_args()

    embeddings = load_embeddings("w2v-gnews-26k")
    direction = gender_direction(embeddings)
    stop = default_stopwords()
    vocabulary = [w for w in embeddings.words if w.isalpha() and w.islower() and w not in stop][:20_000]
    t0 = time.perf_counter()
    docs, queries, runs = synthetic_collection(args.docs, args.queries, args.depth, vocabulary)
    print(f"synthetic collection: {len(docs):,} documents, {len(queries)} queries × {args.depth} "
          f"(generated in {time.perf_counter() - t0:.1f} s)")

    with tempfile.TemporaryDirectory() as cache:
        corpus = InMemoryCorpus(docs, name="bench")
        t0 = time.perf_counter()
        store = TermStore.for_corpus(corpus, cache)
        store.ensure(corpus, None, progress=False)
        model = GenderednessModel(store, embeddings, direction)
        tokenise_s = time.perf_counter() - t0

        def vectorised_pass(model: GenderednessModel) -> dict[str, float]:
            weights = rank_weights(args.depth)
            return {
                qid: list_genderedness(model.document_genderedness(runs[qid], model.query_tokens(text)), weights)
                for qid, text in queries.items()
            }

        t0 = time.perf_counter()
        fast = vectorised_pass(model)
        query_s = time.perf_counter() - t0
        cold_s = tokenise_s + query_s

        t0 = time.perf_counter()
        reopened = TermStore.for_corpus(corpus, cache)
        warm_model = GenderednessModel(reopened, embeddings, direction)
        vectorised_pass(warm_model)
        warm_s = time.perf_counter() - t0

    subset = list(queries)[: args.naive_queries]
    t0 = time.perf_counter()
    slow = {qid: naive_list_genderedness(embeddings, direction, queries[qid], docs, runs[qid]) for qid in subset}
    naive_subset_s = time.perf_counter() - t0
    naive_s = naive_subset_s / len(subset) * len(queries)
    worst = max(abs(fast[q] - slow[q]) for q in subset)

    pairs = len(queries) * args.depth
    print(f"vectorised, cold (tokenise {len(docs):,} docs once + {len(queries)} queries): {cold_s:8.2f} s "
          f"(tokenise {tokenise_s:.2f} s = {len(docs) / tokenise_s:,.0f} docs/s; queries {query_s:.2f} s)")
    print(f"vectorised, warm (term store reloaded from cache):             {warm_s:8.2f} s "
          f"({pairs / warm_s:,.0f} query-document pairs/s)")
    print(f"naive (re-tokenise per query), {len(subset)} queries timed, scaled to {len(queries)}: {naive_s:8.2f} s "
          f"({len(subset) * args.depth / naive_subset_s:,.0f} query-document pairs/s)")
    print(f"max |difference| between the two paths on the timed queries: {worst:.2e}")
    print(f"speed-up: cold {naive_s / cold_s:.1f}×, warm {naive_s / warm_s:.1f}× (target ≥ 50×)")


if __name__ == "__main__":
    main()
