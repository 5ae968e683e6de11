"""Lexical rankers through pyserini/Lucene (extra ``lucene``): BM25 (Anserini defaults k1 = 0.9,
b = 0.4), query likelihood with Dirichlet smoothing (mu = 1000) and Lucene's classic TF-IDF
similarity. Lucene analyses text its own way (Porter stemming, Lucene stoplist); irfair's tokenizer is
used only to measure genderedness."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..collection import Run
from ..lucene import prepare_java

LEXICAL = ("bm25", "qlm", "tfidf")


@dataclass(frozen=True)
class LexicalRanker:
    """A named Lucene ranker with its parameters; ``tag`` names both (e.g. ``bm25_k1=0.9_b=0.4``)."""

    name: str
    params: dict = field(default_factory=dict)

    @classmethod
    def create(cls, name: str, k1: float = 0.9, b: float = 0.4, mu: float = 1000.0) -> "LexicalRanker":
        if name == "bm25":
            return cls(name, {"k1": k1, "b": b})
        if name == "qlm":
            return cls(name, {"mu": mu})
        if name == "tfidf":
            return cls(name, {})
        raise ValueError(f"lexical ranker must be one of {LEXICAL}, not {name!r}")

    @property
    def tag(self) -> str:
        return "_".join([self.name, *(f"{k}={v:g}" for k, v in self.params.items())])

    def searcher(self, index_dir: str | Path):
        """A configured pyserini LuceneSearcher over ``index_dir``."""
        prepare_java()
        from pyserini.search.lucene import LuceneSearcher

        searcher = LuceneSearcher(str(index_dir))
        if self.name == "bm25":
            searcher.set_bm25(self.params["k1"], self.params["b"])
        elif self.name == "qlm":
            searcher.set_qld(self.params["mu"])
        else:
            from jnius import autoclass

            searcher.set_bm25()
            # Anserini has no tf-idf option; Lucene's ClassicSimilarity is set on the IndexSearcher
            # (after set_bm25, which would otherwise replace it)
            searcher.object.searcher.setSimilarity(autoclass("org.apache.lucene.search.similarities.ClassicSimilarity")())
        return searcher

    def rank(self, index_dir: str | Path, queries: Mapping[str, str], depth: int = 1000, threads: int = 2) -> Run:
        """Batch search of every query (``{qid: text}``) → Run named by ``tag``."""
        searcher = self.searcher(index_dir)
        qids = [q for q, text in queries.items() if text.strip()]
        results = searcher.batch_search([queries[q] for q in qids], qids, k=depth, threads=threads)
        ranking = {
            qid: sorted(((hit.docid, float(hit.score)) for hit in results[qid]), key=lambda h: (h[1], h[0]), reverse=True)
            for qid in qids
            if results.get(qid)
        }
        return Run(self.tag, ranking, tag=self.tag)
