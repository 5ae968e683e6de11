"""Benchmark the rankers on a synthetic Zipf corpus (default 500,000 documents of 50-150 tokens).

Prints: Lucene index time (docs/s), BM25 queries/s at depth 1000, term-store tokenisation and
document-vector time, embedding-ranker (add) queries/s against a naive per-document cosine loop over
the same document vectors (timed on a few queries in the same run; ratio printed), and peak memory
(this process and its Java child).

    python scripts/bench_rankers.py [--docs 500000] [--queries 200] [--naive-queries 3]
"""
from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from irfair.corpus import open_corpus
from irfair.corpus.termstore import TermStore
from irfair.embeddings import load_embeddings
from irfair.rankers.embedding import EmbeddingRanker
from irfair.rankers.lexical import LexicalRanker
from irfair.text import default_stopwords


def write_corpus(path: Path, n_docs: int, vocabulary: list[str], seed: int) -> None:
    """Zipf(1.1) documents of 50-150 tokens as JSONL."""
    rng = np.random.default_rng(seed)
    probabilities = 1.0 / np.arange(1, len(vocabulary) + 1) ** 1.1
    probabilities /= probabilities.sum()
    words = np.array(vocabulary)
    with open(path, "w", encoding="utf-8") as handle:
        for start in range(0, n_docs, 10_000):
            count = min(10_000, n_docs - start)
            lengths = rng.integers(50, 150, size=count)
            draws = words[rng.choice(len(words), size=int(lengths.sum()), p=probabilities)]
            offset = 0
            for i, length in enumerate(lengths):
                text = " ".join(draws[offset : offset + length])
                offset += length
                handle.write(json.dumps({"id": f"D{start + i}", "contents": text}) + "\n")


def naive_rank(doc_vectors: np.ndarray, doc_ids: list[str], query_vector: np.ndarray, depth: int) -> list[tuple[str, float]]:
    """One query, one document at a time: cosine in a Python loop, then a full sort."""
    scored = [(doc_ids[i], float(np.dot(doc_vectors[i], query_vector))) for i in range(len(doc_ids))]
    scored.sort(key=lambda s: (-s[1], s[0]))
    return scored[:depth]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=500_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--naive-queries", type=int, default=3)
    parser.add_argument("--depth", type=int, default=1000)
    args = parser.parse_args()

    embeddings = load_embeddings("w2v-gnews-26k")
    stop = default_stopwords()
    vocabulary = [w for w in embeddings.words if w.isalpha() and w.islower() and w not in stop][:20_000]
    rng = np.random.default_rng(1)
    queries = {f"Q{i}": " ".join(rng.choice(vocabulary[100:3000], size=3, replace=False)) for i in range(args.queries)}

    with tempfile.TemporaryDirectory() as work:
        corpus_path = Path(work) / "synthetic.jsonl"
        t0 = time.perf_counter()
        write_corpus(corpus_path, args.docs, vocabulary, seed=0)
        print(f"corpus: {args.docs:,} documents written in {time.perf_counter() - t0:.1f} s")
        corpus = open_corpus(corpus_path)
        cache = Path(work) / "cache"

        from irfair.corpus.lucene_index import build_index

        t0 = time.perf_counter()
        index = build_index(corpus, cache, threads=2, progress=False)
        index_s = time.perf_counter() - t0
        print(f"Lucene index (raw + docvectors + positions, 2 threads): {index_s:.1f} s = {args.docs / index_s:,.0f} docs/s")

        bm25 = LexicalRanker("bm25", {"k1": 0.9, "b": 0.4}, index)
        bm25.rank(dict(list(queries.items())[:5]), depth=10)  # JVM and searcher warm-up
        t0 = time.perf_counter()
        bm25.rank(queries, depth=args.depth)
        bm25_s = time.perf_counter() - t0
        print(f"BM25 batch search, depth {args.depth}: {args.queries / bm25_s:,.1f} queries/s")

        t0 = time.perf_counter()
        store = TermStore.for_corpus(corpus, cache)
        store.ensure(corpus, None, progress=False)
        tokenise_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        ranker = EmbeddingRanker(store, embeddings, "add", cache, corpus_key="synthetic")
        vectors_s = time.perf_counter() - t0
        print(f"term store: {tokenise_s:.1f} s ({args.docs / tokenise_s:,.0f} docs/s); document vectors "
              f"{len(store):,} × {embeddings.dim}: {vectors_s:.1f} s (memory-mapped float32 .npy)")

        t0 = time.perf_counter()
        fast = ranker.rank(queries, depth=args.depth)
        fast_s = time.perf_counter() - t0
        subset = list(queries)[: args.naive_queries]
        t0 = time.perf_counter()
        slow = {q: naive_rank(ranker.doc_vectors, store.doc_ids, ranker.query_vector(queries[q]), args.depth) for q in subset}
        naive_s = (time.perf_counter() - t0) / len(subset)
        agree = all([d for d, _ in fast.ranking[q][:100]] == [d for d, _ in slow[q][:100]] for q in subset)
        print(f"embedding ranker (add), matrix product + top-k: {args.queries / fast_s:,.1f} queries/s")
        print(f"naive per-document cosine loop: {1 / naive_s:,.2f} queries/s ({len(subset)} queries timed); "
              f"top-100 identical: {agree}")
        print(f"speed-up of the embedding ranker over the naive loop: {naive_s * args.queries / fast_s:,.0f}×")

    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    java = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak memory: this process {own:,.0f} MiB, Java indexer {java:,.0f} MiB")


if __name__ == "__main__":
    main()
