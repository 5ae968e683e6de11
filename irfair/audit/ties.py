"""Tied scores in a run: how often trec_eval's tie rule changed the order the file lists.

irfair ranks a run's documents by score, ties by document id descending (trec_eval's rule, see
:mod:`irfair.trec`), so a run whose tied documents are listed in another order is audited in an order
other than the file's. :func:`tie_report` counts where that happened so the audit can say so (the ``ties``
note of :mod:`.alerts`).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from operator import itemgetter

import numpy as np

from ..trec import Run


@dataclass(frozen=True)
class TieReport:
    """Per run: queries with tied scores, tied documents, queries whose order changed (anywhere, and
    within the audited depth)."""

    run: str
    queries_with_ties: int
    tied_documents: int
    queries_reordered: int
    queries_reordered_in_depth: int
    all_tied: bool = False  # every query lists two documents or more, all with one score

    def to_dict(self) -> dict:
        """JSON-ready counts."""
        return {"run": self.run, "queries_with_ties": self.queries_with_ties, "tied_documents": self.tied_documents,
                "queries_reordered": self.queries_reordered, "queries_reordered_in_depth": self.queries_reordered_in_depth}


def tie_report(run: Run, depth: Mapping[str, int]) -> TieReport:
    """Count ties of ``run`` and where ordering them changed the file's order (the file's order is the
    order of its lines; runs not read from a file have none and are reported without reordering).
    ``depth[qid]``: the audited depth of each query."""
    with_ties = tied = reordered = reordered_in_depth = 0
    for qid in _queries_with_ties(run):
        hits = run.ranking[qid]
        scores = list(map(itemgetter(1), hits))
        if len(set(scores)) == len(scores):
            continue
        n_tied = sum(1 for i, s in enumerate(scores) if (i > 0 and scores[i - 1] == s) or (i + 1 < len(scores) and scores[i + 1] == s))
        if not n_tied:
            continue
        with_ties += 1
        tied += n_tied
        hit_lines = getattr(run.line_of, "hit_lines", None)
        lines = hit_lines(qid) if hit_lines is not None else [run.line_of.get((qid, doc)) for doc, _ in hits]
        if any(line is None for line in lines):
            continue
        # by score with ties in the file's order (a stable sort of the file's lines), against trec_eval's order
        in_file = [hit for _, hit in sorted(zip(lines, hits), key=lambda pair: pair[0])]
        file_order = [doc for doc, _ in sorted(in_file, key=lambda hit: -hit[1])]
        ranked = [doc for doc, _ in hits]
        if file_order != ranked:
            reordered += 1
            k = depth.get(qid, 0)
            if file_order[:k] != ranked[:k]:
                reordered_in_depth += 1
    return TieReport(run.name, with_ties, tied, reordered, reordered_in_depth, _all_tied(run))


def _all_tied(run: Run) -> bool:
    """Whether every list of ``run`` gives all its documents one score, and some list has two (a run whose scores
    say nothing: its order is trec_eval's tie-break by document id alone)."""
    columns = run.columns
    if columns is None:
        lists = [hits for hits in run.ranking.values() if hits]
        return bool(lists) and any(len(h) > 1 for h in lists) and all(len({score for _, score in h}) == 1 for h in lists)
    bounds = np.array([b for b in columns.bounds.values() if b[1] > b[0]], dtype=np.int64).reshape(-1, 2)
    if not len(bounds) or not np.any(bounds[:, 1] - bounds[:, 0] > 1):
        return False
    # each list is sorted by score: all tied when its first and last scores are equal
    return bool(np.all(columns.scores[bounds[:, 0]] == columns.scores[bounds[:, 1] - 1]))


def _queries_with_ties(run: Run) -> list[str]:
    """The queries of ``run`` that may hold tied scores: every query, or for a run read into arrays those with two
    equal scores in a row (its lists are sorted by score, so equal scores are neighbours)."""
    columns = run.columns
    if columns is None:
        return list(run.ranking)
    bounds = np.array(list(columns.bounds.values()), dtype=np.int64).reshape(-1, 2)
    tied_rows = np.flatnonzero(columns.scores[1:] == columns.scores[:-1])  # row i ties row i + 1
    # a query's pairs are its rows start .. end - 2 (a pair across two queries is no tie)
    has_ties = np.searchsorted(tied_rows, bounds[:, 0]) < np.searchsorted(tied_rows, bounds[:, 1] - 1)
    return [qid for qid, tied in zip(columns.bounds, has_ties.tolist()) if tied]
