"""Helpers for tests: hand-built embeddings, a simple deterministic run and the path of trec_eval's test files."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from irfair.embeddings import Embeddings

# trec_eval 10's own test files and expected outputs (../shared/data/trec_eval; see ../shared/data/README.md)
TREC_EVAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec_eval"


def hand_embeddings() -> Embeddings:
    """3-d unit vectors whose definitional pairs differ along e0 (woman/man 0.8, she/he 0.6) and e1
    (girl/boy 0.6): gender direction e0, explained variance 2/2.72 (worked out in test_gender)."""
    vectors = {
        "woman": (0.8, 0.6, 0.0), "man": (-0.8, 0.6, 0.0),
        "girl": (0.0, 0.6, 0.8), "boy": (0.0, -0.6, 0.8),
        "she": (0.6, 0.0, 0.8), "he": (-0.6, 0.0, 0.8),
        "nurse": (0.5, 0.5, np.sqrt(0.5)), "doctor": (-0.28, 0.96, 0.0),
        "table": (0.0, 0.0, 1.0),
    }
    return Embeddings("hand", list(vectors), np.array(list(vectors.values()), dtype=np.float32))


def overlap_run(topics, corpus_docs, depth=50, idf=True, name="overlap"):
    """A deterministic run for tests: documents scored by Σ over query terms of idf·log(1 + tf) (without idf:
    Σ log(1 + tf))."""
    import math
    from collections import Counter

    from irfair.text import content_tokens
    from irfair.trec import Run

    bags = {doc_id: Counter(content_tokens(text)) for doc_id, text in corpus_docs.items()}
    df = Counter(term for bag in bags.values() for term in bag)
    n = len(bags)
    ranking = {}
    for qid, topic in topics.items():
        terms = set(content_tokens(topic.title))
        scored = []
        for doc_id, bag in bags.items():
            score = sum((math.log(n / df[t]) if idf else 1.0) * math.log1p(bag[t]) for t in terms if t in bag)
            if score > 0:
                scored.append((round(score, 6), doc_id))
        scored.sort(key=lambda s: (-s[0], s[1]))
        if scored:
            ranking[qid] = [(doc_id, score) for score, doc_id in scored[:depth]]
    return Run(name, ranking)
