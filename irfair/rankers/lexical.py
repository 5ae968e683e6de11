"""Lexical rankers through pyserini/Lucene (extra ``lucene``): BM25 (Anserini defaults k1 = 0.9,
b = 0.4), query likelihood with Dirichlet smoothing (mu = 1000) and Lucene's classic TF-IDF
similarity. Lucene analyses text its own way (Porter stemming, Lucene stoplist); irfair's tokenizer is
used only to measure genderedness. They rank a whole index; re-ranking another run is not offered."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..anserini import prepare_java
from ..corpus import LuceneIndexCorpus
from ..corpus.lucene_index import build_index
from ..errors import IrfairInputError
from ..trec import Run
from .registry import RankerSpec


@dataclass
class LexicalRanker:
    """A named Lucene ranker with its parameters over one index; ``tag`` names both (``bm25_k1=0.9_b=0.4``)."""

    kind: str
    params: dict = field(default_factory=dict)
    index_dir: Path | None = None
    threads: int = 2

    @property
    def tag(self) -> str:
        """Ranker name with its parameters, used as the run's name and tag."""
        return "_".join([self.kind, *(f"{k}={v:g}" for k, v in self.params.items())])

    name = tag

    def searcher(self):
        """A configured pyserini LuceneSearcher over the index."""
        prepare_java()
        from pyserini.search.lucene import LuceneSearcher

        searcher = LuceneSearcher(str(self.index_dir))
        if self.kind == "bm25":
            searcher.set_bm25(self.params["k1"], self.params["b"])
        elif self.kind == "qlm":
            searcher.set_qld(self.params["mu"])
        else:
            from jnius import autoclass

            searcher.set_bm25()
            # Anserini has no tf-idf option; Lucene's ClassicSimilarity is set on the IndexSearcher
            # (after set_bm25, which would otherwise replace it)
            searcher.object.searcher.setSimilarity(autoclass("org.apache.lucene.search.similarities.ClassicSimilarity")())
        return searcher

    def rank(self, queries: Mapping[str, str], depth: int = 1000) -> Run:
        """Batch search of every query (``{qid: text}``) → Run named by ``tag``."""
        searcher = self.searcher()
        qids = [q for q, text in queries.items() if text.strip()]
        results = searcher.batch_search([queries[q] for q in qids], qids, k=depth, threads=self.threads)
        ranking = {
            qid: sorted(((hit.docid, float(hit.score)) for hit in results[qid]), key=lambda h: (h[1], h[0]), reverse=True)
            for qid in qids
            if results.get(qid)
        }
        return Run(self.tag, ranking, tag=self.tag)

    def rerank(self, queries: Mapping[str, str], candidates: Run, depth: int | None = None) -> Run:
        """Not offered: Lucene rankers rank the whole index."""
        raise IrfairInputError(None, None, f"{self.kind} ranks the whole index; re-ranking works with the add and si rankers")


def build(spec: RankerSpec, context, params: dict) -> LexicalRanker:
    """The registry's builder: finds or builds the Lucene index of the context's corpus."""
    if context.index is not None:
        index = context.index
    elif isinstance(context.corpus, LuceneIndexCorpus):
        index = context.corpus.index_dir
    elif context.cache_dir is None:
        raise IrfairInputError(None, None, "a Lucene index needs a cache folder: drop --no-cache or give --index")
    else:
        index = build_index(context.corpus, context.cache_dir, threads=context.threads, progress=context.progress)
    return LexicalRanker(spec.name, params, index, context.threads)
