"""Rank TIME with the ``add`` ranker in shards of 100 documents in a fresh process (tests only).

    python ranking_driver.py CACHE_DIR threads|workers

``threads``: 40 rankings in this process (shards scored by its threads); ``workers``: two with two local
worker processes and one on a two-worker Dask LocalCluster. Prints the number of distinct runs and the
SHA-256 of the first (:func:`run_digest`). The term store and document vectors come from CACHE_DIR, where
the calling test built them.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

TIME = Path(__file__).resolve().parents[2] / "shared" / "data" / "time"


def run_digest(run) -> str:
    """SHA-256 of a run's lists with every score's exact float (``repr``)."""
    return hashlib.sha256(json.dumps(sorted(run.ranking.items())).encode()).hexdigest()


def time_ranker(cache: Path):
    """The ``add`` ranker over TIME with w2v-gnews-26k, its store and vectors cached in ``cache``; the topics."""
    from irfair.corpus import open_corpus
    from irfair.corpus.termstore import TermStore
    from irfair.embeddings import load_embeddings
    from irfair.rankers.embedding import EmbeddingRanker
    from irfair.trec import read_topics

    corpus = open_corpus(TIME / "time.trec")
    store = TermStore.for_corpus(corpus, cache)
    store.ensure(corpus, None, progress=False)
    topics = {qid: topic.title for qid, topic in read_topics(TIME / "topics.time.txt").items()}
    return EmbeddingRanker(store, load_embeddings("w2v-gnews-26k"), "add", cache_dir=cache, corpus_key="time"), topics


def main(cache: str, mode: str) -> None:
    import irfair.rankers.embedding as embedding

    ranker, topics = time_ranker(Path(cache))
    embedding.SHARD_ROWS = 100
    if mode == "threads":
        runs = [ranker.rank(topics, depth=50) for _ in range(40)]
    else:
        runs = [ranker.rank(topics, depth=50, jobs=2), ranker.rank(topics, depth=50, jobs=2),
                ranker.rank(topics, depth=50, jobs=2, scheduler="local")]
    digests = [run_digest(run) for run in runs]
    print(len(set(digests)), digests[0])


if __name__ == "__main__":
    main(*sys.argv[1:])
