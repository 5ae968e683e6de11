"""Audit what a pyserini pipeline retrieves, by changing one line:

    searcher = LuceneSearcher("indexes/robust04")                       # before
    searcher = AuditingSearcher(LuceneSearcher("indexes/robust04"),      # after
                                qrels="qrels.robust04.txt", topics="topics.robust04.txt")
    ...                                       # the pipeline runs unchanged
    searcher.audit(embeddings="w2v-gnews-26k").table()

The wrapper accepts any searcher whose ``search(q, k)`` returns hits with ``.docid`` and ``.score``
(and ``batch_search(queries, qids, k, ...)`` returning ``{qid: hits}``). A plain ``search(q, k)`` call
is matched to its query id through the topics (exact query text, title or description), or takes
``qid=`` directly; a query that cannot be matched gets the id ``adhoc-N`` and is counted. Documents for
the audit come from ``corpus=`` or, by default, from the searcher's own index (stored raw text).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ..audit import AuditResult, audit
from ..trec import Topic, read_topics


class AuditingSearcher:
    """Wraps a searcher, records (qid, query, ranked doc ids) of every search, audits them on demand."""

    def __init__(self, searcher, qrels, topics=None, corpus=None, name: str = "searcher") -> None:
        self._searcher = searcher
        self.qrels = qrels
        self.topics: dict[str, Topic] = {}
        if topics is not None:
            self.topics = dict(topics) if isinstance(topics, Mapping) else read_topics(topics)
            self.topics = {q: t if isinstance(t, Topic) else Topic(q, str(t)) for q, t in self.topics.items()}
        self._qid_of_text = {}
        for qid, topic in self.topics.items():
            for text in (topic.description, topic.title):
                if text:
                    self._qid_of_text[" ".join(text.split())] = qid
        self.corpus = corpus
        self.name = name
        self.recorded: dict[str, list[str]] = {}
        self.queries: dict[str, str] = {}
        self.unmatched = 0

    def __getattr__(self, attribute):
        return getattr(self._searcher, attribute)

    def _record(self, qid: str | None, query: str, hits) -> None:
        if qid is None:
            qid = self._qid_of_text.get(" ".join(query.split()))
        if qid is None:
            self.unmatched += 1
            qid = f"adhoc-{self.unmatched}"
        self.recorded[str(qid)] = [hit.docid for hit in hits]
        self.queries[str(qid)] = query

    def search(self, q: str, k: int = 10, *args, qid: str | None = None, **kwargs):
        """The wrapped searcher's ``search``, recorded."""
        hits = self._searcher.search(q, k, *args, **kwargs)
        self._record(qid, q, hits)
        return hits

    def batch_search(self, queries: Sequence[str], qids: Sequence[str], k: int = 10, *args, **kwargs):
        """The wrapped searcher's ``batch_search``, recorded."""
        results = self._searcher.batch_search(queries, qids, k, *args, **kwargs)
        for query, qid in zip(queries, qids):
            self._record(str(qid), query, results.get(qid, []))
        return results

    def _default_corpus(self):
        if self.corpus is not None:
            return self.corpus
        index_dir = getattr(self._searcher, "index_dir", None)
        if index_dir is None:
            raise ValueError("give corpus= (the searcher exposes no index_dir to read documents from)")
        from ..corpus import LuceneIndexCorpus

        return LuceneIndexCorpus(Path(index_dir))

    def audit(self, embeddings="w2v-gnews-26k", **kwargs) -> AuditResult:
        """GSR audit of everything searched so far (same result object as :func:`irfair.audit`)."""
        searched = {qid: Topic(qid, text) for qid, text in self.queries.items()}  # g(q) of the text searched
        return audit({self.name: self.recorded}, self.qrels, searched, self._default_corpus(), embeddings, **kwargs)


def audit_lists(lists: Mapping[str, Sequence[str]], qrels, topics, corpus, embeddings="w2v-gnews-26k",
                name: str = "system", **kwargs) -> AuditResult:
    """Audit in-memory results ``{qid: [doc_id, ...]}`` (best first)."""
    return audit({name: lists}, qrels, topics, corpus, embeddings, **kwargs)
