"""The ranking-bias measures of :mod:`irfair.measures.ranking_bias` in the audit, beside GSR, for every
system, the perfect run and the random run.

Which documents each measure reads:

* A system: its own ranking (trec_eval's order) down to each cut-off, whatever the audit's ``depth``
  (which is GSR's); NFaiRR is normalised by the ideal FaiRR over the system's top 100 documents for the
  query (all of them when the run lists fewer) — or, with a background run (``nfairr_background``, the
  authors' convention), over that one run's top documents (200 by default) for every system, the perfect
  and random runs included; a query the background run lacks is then undefined.
* The perfect run: the K relevant documents by grade (min(N, K) with ``depth=N``); documents of equal
  grade are unordered, so each measure gives its expectation over the orders of each tie (see
  :mod:`irfair.measures.ranking_bias`; for TExFAIR ``tie_orders`` in the JSON says whether exactly). The
  random run: its K (or N) drawn documents. Both are their own candidate set, and a cut-off beyond a
  list's length reads the whole list (RaB@20 of a 7-document list is its RaB@7).
* Queries: those with relevant documents (those the perfect run exists for) — GSR's own exclusions (no
  query term in the embeddings, ...) do not apply to the term-based measures. A query missing from a run
  is undefined (NaN) for that run, as is NFaiRR where no candidate has any neutrality; undefined values
  are left out of the mean and counted (``n_undefined``).
* A list whose top t holds no word of the measure's list is counted (``n_no_gendered_word``) and kept in
  the mean with the value the measure gives it: RaB = ARaB = 0, NFaiRR = TExFAIR = 1.

Means over queries carry GSR's expanded BCa bootstrap CI (same seed, same number of resamples; all columns at
once through :func:`irfair.measures.resampling.mean_cis`).
"""
from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..arrays import unique_sorted
from ..cache.arrays import ArraysMemo
from ..corpus import TermStore
from ..errors import IrfairInputError
from ..measures.aggregate import MeasureSummary
from ..measures.exposure_batch import ExposureDocs
from ..measures.gender_counts import GenderedCounts, word_indicators
from ..measures.gender_words import GenderWords, load_gender_words
from ..measures.ranking_bias import (
    EXPOSURE,
    SHARES,
    TIE_STANDARD_ERROR,
    BiasMeasure,
    RankedDocs,
    bias_columns,
    resolve_bias_measures,
    tie_groups,
    with_exposure_model,
    with_rank_bias_weighting,
)
from ..measures.resampling import mean_cis
from ..numbers import finite_or_none
from .exposure import ExposureSetup

GenderWordsSource = str | Path | GenderWords | None


@dataclass(frozen=True)
class NfairrBackground:
    """One run whose top ``depth`` documents per query normalise every system's NFaiRR (its authors' convention)."""

    name: str
    depth: int
    lists: dict[str, list[str]]


DEFAULT_BACKGROUND_DEPTH = 200


@dataclass(frozen=True)
class BiasSetup:
    """The measures an audit computes, the word list each term-based one uses (``words[measure name]``),
    NFaiRR's background run when one normalises every system, and the exposure measures' groups and targets."""

    measures: tuple[BiasMeasure, ...]
    words: dict[str, GenderWords]
    background: NfairrBackground | None = None
    exposure: ExposureSetup | None = None

    @property
    def columns(self) -> dict[str, BiasMeasure]:
        """Every per-query column, ``{column: measure}``, in the measures' order."""
        return bias_columns(self.measures)

    @property
    def depth(self) -> int:
        """How deep a system's ranking is read (the deepest cut-off or candidate set; 0 with GSR alone)."""
        return max((m.depth for m in self.measures if m.per_query is not None), default=0)

    @property
    def names(self) -> tuple[str, ...]:
        """The measures' names."""
        return tuple(m.name for m in self.measures)

    def to_dict(self) -> dict:
        """The setting for ``audit.json``: per measure its paper, columns, cut-offs, parameters and word list."""
        out = {}
        for m in self.measures:
            words = self.words.get(m.name)
            out[m.name] = {
                "title": m.title, "paper": m.paper, "description": m.description, "larger": m.larger,
                "columns": list(m.columns), "headlines": list(m.headlines), "cutoffs": list(m.cutoffs), "variants": list(m.variants),
                "candidates": m.candidates, "parameters": dict(m.parameters), "fairness": m.fairness, "ungendered": m.ungendered,
                "gender_words": None if words is None else word_list_record(words),
            }
            if m.family == EXPOSURE and self.exposure is not None:
                out[m.name]["groups"] = self.exposure.to_dict()
            if m.candidates is not None:
                out[m.name]["normalised_by"] = (f"each list's own top {m.candidates} documents" if self.background is None else
                                                f"the top {self.background.depth} documents of run {self.background.name}")
        return out

    @property
    def normalisation(self) -> str:
        """What NFaiRR is normalised by, in words."""
        if self.background is None:
            depth = next((m.candidates for m in self.measures if m.candidates), None)
            return f"each system's top {depth} documents for the query (the perfect and random runs: their own documents)"
        return f"the top {self.background.depth} documents of the background run {self.background.name} for the query, for every system"


def word_list_record(words: GenderWords) -> dict:
    """Source, sizes and SHA-256 (of the sorted ``word<TAB>label`` lines) of a word list."""
    lines = sorted([f"{w}\tfemale" for w in words.female] + [f"{w}\tmale" for w in words.male])
    return {"source": words.source, "n_female": len(words.female), "n_male": len(words.male),
            "sha256": hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()}


def bias_setup(measures: str | Iterable[str | BiasMeasure] | None = None, gender_words: GenderWordsSource = None,
               rab_weighting: str | Sequence[str] | None = None, exposure_model: str | None = None) -> BiasSetup:
    """Resolve measure names and load word lists: ``gender_words`` (a shipped list's name, a file or a
    :class:`GenderWords`) replaces every measure's own list; None keeps each measure's default.
    ``rab_weighting``: RaB's and ARaB's magnitude variants (any of ``tc``, ``tf``, ``bool``; default theirs);
    ``exposure_model``: EE's browsing model (``trec2022``, ``gerr``, ``rbp``; default ``trec2022``).
    IrfairInputError when words or a weighting are given that no measure of ``measures`` uses."""
    resolved = resolve_bias_measures(measures)
    if rab_weighting is not None:
        resolved = with_rank_bias_weighting(resolved, rab_weighting)
    if exposure_model is not None:
        resolved = with_exposure_model(resolved, exposure_model)
    given = gender_words if isinstance(gender_words, GenderWords) or gender_words is None else load_gender_words(gender_words)
    if given is not None and all(m.per_query is None for m in resolved):
        raise IrfairInputError(None, None, f"gender words {given.source}: no bias measure that counts them (rab, arab, nfairr, "
                               f"texfair) is among the bias measures ({', '.join(m.name for m in resolved)})")
    words = {m.name: given or load_gender_words(m.gender_words) for m in resolved if m.per_query is not None}
    return BiasSetup(resolved, words)


@dataclass(frozen=True)
class SystemBias:
    """One run's bias measures: ``per_query`` (``qid`` and one column per measure column, NaN where
    undefined), the mean with its CI per column, and per column the lists without a gendered word."""

    per_query: pd.DataFrame
    summaries: dict[str, MeasureSummary]
    no_gendered_word: dict[str, int]
    tie_orders: dict[str, dict] = field(default_factory=dict)
    shares: dict[str, dict[str, float | None]] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """``{column: {mean, ci_low, ci_high, n_queries, n_undefined, n_no_gendered_word}}`` for audit.json, with
        ``tie_orders`` where a value is an expectation over the orders of ties (:func:`tie_orders_record`) and
        ``attention_shares`` (AWRF: each group's mean share of the top k's attention over the defined queries)."""
        return {column: {"mean": finite_or_none(s.mean), "ci_low": finite_or_none(s.ci_low), "ci_high": finite_or_none(s.ci_high),
                         "n_queries": s.n_queries, "n_undefined": s.n_undefined,
                         "n_no_gendered_word": self.no_gendered_word[column]}
                | ({"tie_orders": self.tie_orders[column]} if column in self.tie_orders else {})
                | ({"attention_shares": self.shares[column]} if column in self.shares else {})
                for column, s in self.summaries.items()}


def tie_orders_record(values: np.ndarray, errors: np.ndarray) -> dict:
    """How a column's per-query expectations over tie orders were found: ``n_exact`` and ``n_sampled`` queries
    and the Monte Carlo standard error of their mean (sqrt(Σ se²) / n; 0 when every one is exact)."""
    used = np.isfinite(values)
    sampled = used & (errors > 0)
    n = int(used.sum())
    error = float(np.sqrt(np.sum(errors[sampled] ** 2)) / n) if n else None
    return {"n_exact": n - int(sampled.sum()), "n_sampled": int(sampled.sum()), "standard_error": error}


class BiasCounter:
    """Female/male/length counts of the documents an audit measures, one set per word list, from the term store.

    Documents are named by their ids or, where the caller has them, by their rows in the store (arrays of int64)."""

    def __init__(self, setup: BiasSetup, store: TermStore, documents: Iterable[str] | np.ndarray,
                 memo: ArraysMemo | None = None) -> None:
        self.setup = setup
        self.store = store
        # where the documents' counts and the expectations over a list's tie orders are kept (irfair.cache.arrays)
        self.memo = memo
        self._backgrounds: dict[tuple, RankedDocs] = {}
        # in the store's order: its shards are read front to back
        rows = unique_sorted(documents) if isinstance(documents, np.ndarray) else np.sort(store.doc_rows(set(documents)))
        self.rows = rows.astype(np.int64)
        self._position_of: np.ndarray | None = None  # store row → its place in rows (made when first asked)
        # one pass over the store for every word list: each list's female and male counts, and the lengths
        lists = list(dict.fromkeys(setup.words.values()))
        weights = np.concatenate([np.ones((len(store.vocab), 1)), *(word_indicators(store.vocab, words) for words in lists)], axis=1)
        sums = self._term_sums(weights)
        by_list = {words: GenderedCounts(sums[:, 1 + 2 * i], sums[:, 2 + 2 * i], sums[:, 0]) for i, words in enumerate(lists)}
        self.counts = {name: by_list[words] for name, words in setup.words.items()}
        self.groups = None
        if setup.exposure is not None:
            counts = next(self.counts[m.name] for m in setup.measures if m.family == EXPOSURE)
            self.groups = setup.exposure.document_groups(store, self.rows, counts.female, counts.male)

    def _term_sums(self, weights: np.ndarray) -> np.ndarray:
        """The store's :meth:`~irfair.corpus.termstore.TermStore.term_sums` of :attr:`rows`, kept in :attr:`memo`
        under the store's content, the weights and the rows (0.5 s of a warm Robust04-sized audit)."""
        content = self.store.content_id
        if self.memo is None or content is None or not len(self.rows):
            return self.store.term_sums(weights, self.rows)
        return self.memo("counts", [weights, self.rows], content, lambda: (self.store.term_sums(weights, self.rows),),
                         [(len(self.rows), weights.shape[1])])[0]

    def measure(self, qids: Sequence[str], lists: Mapping[str, Sequence[str] | np.ndarray],
                grades: Mapping[str, Sequence[float]] | None = None, n_bootstrap: int = 1000, seed: int = 0) -> SystemBias:
        """Every measure of the setup on ``lists`` (``{qid: doc ids, or store rows, in rank order}``) for ``qids``, in that order.

        ``grades`` (``{qid: grade of each listed document}``): documents of equal grade are unordered (perfect run).
        """
        depth = self.setup.depth
        # a tie that reaches past the depth is read whole: each measure's expectation is over the orders of all its documents
        docs = [lists.get(qid, ())[:depth if grades is None else through_ties(list(grades.get(qid, ())), depth)] for qid in qids]
        lengths = np.array([len(d) for d in docs], dtype=np.int64)
        width = int(lengths.max(initial=0))
        mask = np.arange(width) < lengths[:, None]
        index = self._positions(docs)
        ties = None
        if grades is not None:
            grade = np.zeros(mask.shape)
            grade[mask] = np.fromiter((g for qid, row in zip(qids, docs) for g in list(grades.get(qid, ()))[:len(row)]), dtype=np.float64,
                                      count=len(index))
            ties = tie_groups(grade, mask)

        def batch(values: np.ndarray) -> np.ndarray:
            out = np.zeros(mask.shape)
            out[mask] = values[index]
            return out

        per_query: dict[str, np.ndarray] = {}
        errors: dict[str, np.ndarray] = {}
        shares: dict[str, np.ndarray] = {}
        no_gendered: dict[str, int] = {}
        batches: dict[int, RankedDocs] = {}
        exposure: ExposureDocs | None = None
        for m in self.setup.measures:
            if m.per_query is None:
                continue
            counts = self.counts[m.name]
            key = id(counts)
            if key not in batches:
                batches[key] = RankedDocs(batch(counts.female), batch(counts.male), batch(counts.length), mask, ties,
                                          self._background(qids, counts), tie_memo=self.memo)
            ranked = batches[key]
            if m.family == EXPOSURE:
                exposure = exposure or self._exposure(qids, docs, index, mask)
                ranked = dataclasses.replace(ranked, exposure=exposure)
            for column, values in m.per_query(m, ranked).items():
                if column.endswith(TIE_STANDARD_ERROR):
                    errors[column.removesuffix(TIE_STANDARD_ERROR)] = values
                elif column.endswith(SHARES):
                    shares[column.removesuffix(SHARES)] = values
                else:
                    per_query[column] = values
            for column, cutoff in zip(m.columns, [c for _ in (m.variants or (None,)) for c in m.cutoffs]):
                unseen = ranked.none_within(exposure.grouped(), cutoff) if m.family == EXPOSURE else ranked.no_gendered_word(cutoff)
                no_gendered[column] = int(unseen.sum())
        frame = pd.DataFrame({"qid": list(qids), **per_query})
        columns = list(per_query)
        found = mean_cis(np.array([per_query[c] for c in columns]).reshape(len(columns), len(qids)), n_bootstrap, seed)
        summaries = {c: MeasureSummary(float(found.mean[i]), float(found.ci_low[i]), float(found.ci_high[i]), int(found.n_queries[i]),
                                       len(qids) - int(found.n_queries[i])) for i, c in enumerate(columns)}
        return SystemBias(frame, summaries, no_gendered, {c: tie_orders_record(per_query[c], e) for c, e in errors.items()},
                          {c: self._mean_shares(values) for c, values in shares.items()})

    def _exposure(self, qids: Sequence[str], docs: Sequence[Sequence[str] | np.ndarray], index: np.ndarray,
                  mask: np.ndarray) -> ExposureDocs:
        """The exposure inputs of the batch: each position's groups and grade for its query, and the queries' targets."""
        setup = self.setup.exposure
        groups = np.zeros((*mask.shape, len(setup.labels)))
        groups[mask] = self.groups[index]
        ids = self.store.doc_ids
        grades = np.zeros(mask.shape)
        for row, (qid, listed) in enumerate(zip(qids, docs)):
            relevant = setup.relevant.get(qid, {})
            named = (ids[r] for r in listed.tolist()) if isinstance(listed, np.ndarray) else listed
            grades[row, :len(listed)] = [relevant.get(doc, 0) for doc in named]
        return ExposureDocs(groups, grades, setup.query_targets(qids))

    def _mean_shares(self, values: np.ndarray) -> dict[str, float | None]:
        """Each group's share of the attention averaged over the queries where it is defined (None: none is)."""
        defined = np.isfinite(values).all(axis=1)
        means = values[defined].mean(axis=0) if defined.any() else np.full(values.shape[1], np.nan)
        return {label: finite_or_none(float(v)) for label, v in zip(self.setup.exposure.labels, means)}


    def _positions(self, lists: Sequence[Sequence[str] | np.ndarray]) -> np.ndarray:
        """Where each document of the lists (ids, or store rows) is in :attr:`rows`, one list after the other."""
        if any(len(docs) and not isinstance(docs, np.ndarray) for docs in lists):
            rows = self.store.doc_rows(doc for docs in lists for doc in docs)
        else:
            rows = np.concatenate([np.zeros(0, dtype=np.int64), *(np.asarray(docs, dtype=np.int64) for docs in lists)])
        if self._position_of is None:  # one look-up per document instead of a binary search (MS MARCO: 0.56 s a system)
            self._position_of = np.zeros(int(self.rows[-1]) + 1 if len(self.rows) else 0, dtype=np.int64)
            self._position_of[self.rows] = np.arange(len(self.rows))
        return self._position_of[rows]

    def _background(self, qids: Sequence[str], counts: GenderedCounts) -> RankedDocs | None:
        """NFaiRR's background documents for ``qids`` (the same for every system: built once per word list)."""
        background = self.setup.background
        if background is None:
            return None
        key = (tuple(qids), id(counts))
        if key not in self._backgrounds:
            self._backgrounds[key] = self._background_docs(background, qids, counts)
        return self._backgrounds[key]

    def _background_docs(self, background: NfairrBackground, qids: Sequence[str], counts: GenderedCounts) -> RankedDocs:
        docs = [background.lists.get(qid, [])[:background.depth] for qid in qids]
        lengths = np.array([len(d) for d in docs], dtype=np.int64)
        mask = np.arange(int(lengths.max(initial=0))) < lengths[:, None]
        index = self._positions(docs)
        arrays = []
        for values in (counts.female, counts.male, counts.length):
            out = np.zeros(mask.shape)
            out[mask] = values[index]
            arrays.append(out)
        return RankedDocs(*arrays, mask)


def through_ties(grades: Sequence[float], depth: int) -> int:
    """How many of a list's documents (``grades`` in rank order, equal grades unordered) to read for ``depth``: the
    first ``depth``, and the rest of the tie at position ``depth`` (its documents are as likely as the first to
    stand above the depth)."""
    n = min(depth, len(grades))
    while 0 < n < len(grades) and grades[n] == grades[n - 1]:
        n += 1
    return n


def bias_frame(systems: Mapping[str, tuple[str, SystemBias | None]], setup: BiasSetup) -> pd.DataFrame:
    """Long table, one row per system and column: system, kind, measure, column, mean, ci_low, ci_high,
    n_queries, n_undefined, n_no_gendered_word (``systems``: ``{name: (kind, bias)}``)."""
    rows = []
    for name, (kind, bias) in systems.items():
        if bias is None:
            continue
        for column, measure in setup.columns.items():
            s = bias.summaries[column]
            rows.append({"system": name, "kind": kind, "measure": measure.name, "column": column, "mean": s.mean,
                         "ci_low": s.ci_low, "ci_high": s.ci_high, "n_queries": s.n_queries, "n_undefined": s.n_undefined,
                         "n_no_gendered_word": bias.no_gendered_word[column]})
    return pd.DataFrame(rows, columns=["system", "kind", "measure", "column", "mean", "ci_low", "ci_high", "n_queries",
                                       "n_undefined", "n_no_gendered_word"])
