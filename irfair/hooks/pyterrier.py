"""PyTerrier (extra ``pyterrier``): document genderedness as a transformer, and GSR beside effectiveness for
result frames, compared as ``pt.Experiment`` compares systems.

    import pyterrier as pt
    from irfair.hooks.pyterrier import Genderedness, gsr_experiment

    bm25 >> Genderedness("docs.jsonl")          # adds query_genderedness g(q) and doc_genderedness g_q(d)
    gsr_experiment([bm25, reranked_results], topics, qrels, "docs.jsonl", ["MAP", "nDCG@10"], names=["BM25", "mine"])

GSR is one slope over queries (the OLS slope of g_q(L) on g(q), Fabris et al. Eq. 3), not a mean of
per-query values, so it cannot be one of ``pt.Experiment``'s per-query ``eval_metrics``: ``gsr_experiment``
reports it, with the perfect run's GSR and the relative GSR, beside the measures (averaged as trec_eval
averages). Systems are result frames (``qid, docno, score[, rank]``) or transformers applied to the topics.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import pandas as pd

from ..audit import PERFECT, audit
from ..cache import CacheDir, resolve_cache_dir
from ..corpus import TermStore, open_corpus
from ..embeddings import load_embeddings
from ..errors import IrfairInputError, IrfairWarning, MissingExtraError
from ..gender.direction import gender_direction
from ..gender.genderedness import GenderednessModel
from ..measures.effectiveness import DEFAULT_MEASURES
from ..trec import as_topics

try:
    import pyterrier as pt
except ImportError:
    raise MissingExtraError("python-terrier", "pyterrier") from None


class Genderedness(pt.Transformer):
    """Adds ``query_genderedness`` (g(q)) and ``doc_genderedness`` (g_q(d): the document's mean g(w) without
    stopwords and the query's terms; NaN when no term is left) to a result frame with ``qid``, ``query`` and
    ``docno``. Documents are read from ``corpus`` (anything :func:`irfair.open_corpus` takes)."""

    def __init__(self, corpus, embeddings="w2v-gnews-26k", *, cache_dir: CacheDir = None) -> None:
        self.corpus = open_corpus(corpus)
        cache = resolve_cache_dir(cache_dir)
        self.embeddings = load_embeddings(embeddings, cache)
        self.store = TermStore.for_corpus(self.corpus, cache)
        self.model = GenderednessModel(self.store, self.embeddings, gender_direction(self.embeddings))

    def transform(self, results: pd.DataFrame) -> pd.DataFrame:
        """``results`` with the two columns added (a new frame; rows and their order kept)."""
        absent = [c for c in ("qid", "query", "docno") if c not in results.columns]
        if absent:
            raise IrfairInputError("result frame", None, f"expected columns qid, query and docno; missing {', '.join(absent)}")
        docs = [str(d) for d in results["docno"]]
        missing = self.store.ensure(self.corpus, set(docs), progress=False)
        if missing:
            raise IrfairInputError("result frame", None, f"document {sorted(missing)[0]} is not in the corpus {self.corpus.name}")
        query_g = pd.Series(float("nan"), index=results.index)
        doc_g = pd.Series(float("nan"), index=results.index)
        for (_, query), rows in results.groupby(["qid", "query"], sort=False):
            tokens = self.model.query_tokens(str(query))
            query_g[rows.index] = self.model.query_genderedness(str(query))[0]
            doc_g[rows.index] = self.model.document_genderedness([str(d) for d in rows["docno"]], tokens)
        return results.assign(query_genderedness=query_g.to_numpy(), doc_genderedness=doc_g.to_numpy())


def gsr_experiment(retr_systems: Sequence | Mapping, topics, qrels, corpus, eval_metrics: Sequence = DEFAULT_MEASURES,
                   names: Sequence[str] | None = None, embeddings="w2v-gnews-26k", **audit_options) -> pd.DataFrame:
    """One row per system, the perfect run first: ``name``, ``gsr`` (one slope over queries) with its 95% CI
    (``gsr_ci_low``, ``gsr_ci_high``), ``delta_gsr`` (GSR − GSR(perfect)), ``relative_gsr_pct`` (n/a unless the
    perfect run's GSR is clearly positive), ``n_queries`` (queries GSR uses), ``n_evaluated`` (queries the measures
    average over) and one column per measure — the names of :meth:`irfair.AuditResult.table`.

    When relative GSR is n/a (the perfect run's GSR is not clearly positive, or no bootstrap CI shows it),
    ``relative_gsr_pct`` is NaN on every row, and the reason is given once: an :class:`IrfairWarning` and
    ``table.attrs["relative_gsr_note"]`` (None when relative GSR is given).

    ``retr_systems``: result frames or transformers (applied to the topics), a list (named by ``names``) or
    ``{name: system}``; ``topics``: a frame ``qid, query`` or any shape :func:`irfair.trec.as_topics` takes;
    ``qrels``: a frame ``qid, docno, label`` or any qrels shape; ``audit_options``: :func:`irfair.audit`'s
    keywords (``depth``, ``n_bootstrap``, ``seed``, ``complete``, ``cache_dir``, ...).
    """
    if isinstance(retr_systems, Mapping):
        systems = dict(retr_systems)
    else:
        systems = list(retr_systems)
        labels = list(names) if names is not None else [f"system {i + 1}" for i in range(len(systems))]
        if len(labels) != len(systems) or len(set(labels)) != len(labels):
            raise IrfairInputError(None, None, f"give {len(systems)} distinct names for {len(systems)} systems")
        systems = dict(zip(labels, systems))
    topic_map = as_topics(topics)
    topic_frame = pd.DataFrame({"qid": list(topic_map), "query": [t.title for t in topic_map.values()]})
    results = {name: system if isinstance(system, pd.DataFrame) else system.transform(topic_frame) for name, system in systems.items()}
    result = audit(results, qrels, topic_map, corpus, embeddings, measures=eval_metrics, random_baseline=False, **audit_options)
    table = result.table()
    rows = []
    for name in [n for n, audited in result.systems.items() if audited.kind in (PERFECT, "system")]:
        row = table.loc[name]
        rows.append({"name": name, **{c: row[c] for c in ("gsr", "gsr_ci_low", "gsr_ci_high", "delta_gsr", "relative_gsr_pct")},
                     "n_queries": int(row["n_queries"]), "n_evaluated": int(row["n_evaluated"]), **{m: row[m] for m in result.measures}})
    frame = pd.DataFrame(rows)
    frame.attrs["relative_gsr_note"] = result.relative_gsr_note
    if result.relative_gsr_note:
        warnings.warn(IrfairWarning(f"relative_gsr_pct is NaN: {result.relative_gsr_note}"), stacklevel=2)
    return frame
