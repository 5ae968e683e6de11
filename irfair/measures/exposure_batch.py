"""Expected exposure, AWRF and the TREC Fair score of many ranked lists at once, as the audit computes them:
the per-query definitions of :mod:`.exposure` (exact to their reference programs) over batches of shape
(n_queries, depth), with each document's groups as a multi-hot matrix and its grade for the query.

Inputs, one batch:

* ``groups``: shape (n_queries, depth, n_labels), 1 where the document at that position is in the group (a
  document in two groups counts fully in each; one in none is in ``unknown``, a group of its own);
* ``grades``: shape (n_queries, depth), the document's grade for the query (0: judged non-relevant or unjudged,
  which expected exposure treats alike); ``mask``: True where a list has a document;
* :class:`QueryTargets`: per query the grades and groups of *all* its relevant documents (retrieved or not),
  from which the targets are built once and shared by every system.

The perfect run's documents of equal grade have no order. Expected exposure reads it as the stochastic policy
that shuffles each grade level (Diaz et al.'s ideal policy): each document's exposure is the mean over its
level's positions, so its EE-L is 0 wherever the cut-off holds every relevant document. AWRF reads one
deterministic ranking: its value is the expectation over the orders of the ties (:mod:`.tie_orders`, as
TExFAIR), and the TREC Fair score is nDCG (the same for every order: all listed documents are relevant) times
that expectation.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .exposure import (
    UNKNOWN,
    Background,
    BrowsingModel,
    document_targets,
    group_target,
    js_divergence_rows,
    mix_background,
    trec_discount,
)
from .tie_orders import expected_over_tie_orders

#: the groups irfair reads from a document's own words when no groups file is given
RULE_LABELS = ("female", "male", "neither")
#: the rule's labels that say a document is of no group (its gender unknown, as a page without one in TREC Fair)
RULE_UNGROUPED = ("neither", UNKNOWN)


def groups_from_counts(female: np.ndarray, male: np.ndarray) -> np.ndarray:
    """The documented rule for documents without labels: ``female`` when a document holds more occurrences of the
    list's female words than of its male words, ``male`` when it holds more male ones, ``neither`` otherwise (none,
    or as many of each). Shape (n_docs, 3), one-hot in :data:`RULE_LABELS` order."""
    female, male = np.asarray(female, dtype=np.float64), np.asarray(male, dtype=np.float64)
    return np.stack([female > male, male > female, female == male], axis=1).astype(np.float64)


@dataclass(frozen=True)
class QueryTargets:
    """Per query, in the batch's order: the grades (> 0) of its relevant documents and their groups (shape
    (n_relevant, n_labels)); ``labels`` orders every group vector; ``ungrouped``: the labels that mean "no group"
    (kept out of AWRF's background and of the groups a list is said to show)."""

    labels: tuple[str, ...]
    grades: tuple[np.ndarray, ...]
    groups: tuple[np.ndarray, ...]
    ungrouped: tuple[str, ...] = (UNKNOWN,)

    def exposure_targets(self, model: BrowsingModel, p: float, u: float, length: int,
                         background: Background | None = None) -> np.ndarray:
        """ε* of every query, shape (n_queries, n_labels), as :func:`~.exposure.target_exposure` (TREC 2022:
        normalised and scaled by Σ w(1..``length``)); NaN rows for queries without a relevant document."""
        out = np.full((len(self.grades), len(self.labels)), np.nan)
        for row, (grades, groups) in enumerate(zip(self.grades, self.groups)):
            if len(grades) == 0:
                continue
            docs = {str(i): int(g) for i, g in enumerate(grades)}
            targets = document_targets(docs, model=model, p=p, u=u)
            out[row] = group_target(np.array([targets[doc] for doc in docs]), groups, self.labels, model=model,
                                    length=length, background=background)
        return out

    def awrf_targets(self, background: Background) -> np.ndarray:
        """AWRF's target of every query: the relevant documents' mean group vector mixed with ``background``
        (:func:`~.exposure.awrf`); shape (n_queries, n_labels), NaN rows without a relevant document."""
        out = np.full((len(self.grades), len(self.labels)), np.nan)
        for row, groups in enumerate(self.groups):
            if len(groups):
                out[row] = mix_background(groups.mean(axis=0), self.labels, background, self.ungrouped)
        return out

    @property
    def n_relevant(self) -> np.ndarray:
        """Relevant documents per query, shape (n_queries,)."""
        return np.array([len(g) for g in self.grades], dtype=np.int64)


@dataclass(frozen=True)
class ExposureDocs:
    """The exposure inputs of one batch of lists: ``groups`` (n_queries, depth, n_labels), ``grades`` (n_queries,
    depth) and the queries' :class:`QueryTargets`, in the batch's order."""

    groups: np.ndarray
    grades: np.ndarray
    targets: QueryTargets

    def grouped(self) -> np.ndarray:
        """Shape (n_queries, depth): True where the document is in a group other than the targets' ``ungrouped``."""
        known = np.array([label not in self.targets.ungrouped for label in self.targets.labels])
        return self.groups[:, :, known].sum(axis=2) > 0


def position_exposure(grades: np.ndarray, mask: np.ndarray, model: BrowsingModel, p: float = 0.5,
                      u: float = 0.5) -> np.ndarray:
    """Exposure of every position, shape (n_queries, depth), 0 on padding: TREC 2022's w(i) (float32, as the
    reference), expeval's rbp p^i or gerr p^i (1 − u)^(relevant documents above), i 0-based."""
    n, depth = mask.shape
    if model == "trec2022":
        exposure = np.broadcast_to(trec_discount(depth).astype(np.float64), (n, depth))
    else:
        exposure = np.broadcast_to(p ** np.arange(depth, dtype=np.float64), (n, depth))
        if model == "gerr":
            relevant = ((grades > 0) & mask).astype(np.int64)
            exposure = exposure * (1.0 - u) ** (np.cumsum(relevant, axis=1) - relevant)
    return np.where(mask, exposure, 0.0)


def expected_exposure_batch(exposure: np.ndarray, grades: np.ndarray, groups: np.ndarray, mask: np.ndarray,
                            targets: np.ndarray, model: BrowsingModel) -> dict[str, np.ndarray]:
    """EE-L, EE-D and EE-R of every query (``{"l": ..., "d": ..., "r": ...}``, each shape (n_queries,)).

    ``exposure``: each position's exposure (0 beyond the cut-off; tie-averaged for the perfect run), shape
    (n_queries, depth); ``targets``: ε*, shape (n_queries, n_labels). ε_g = Σ_i e_i [grade_i > 0] a_ig;
    EE-L = ‖ε − ε*‖², EE-D = ε·ε, EE-R = ε·ε* (Diaz et al. 2020, eqs. 4-6, raw). NaN: no relevant document
    (target undefined), an empty list; EE-D (and so on) of gerr/rbp when no relevant document is exposed."""
    relevant = (grades > 0) & mask
    system = np.einsum("qd,qdg->qg", np.where(relevant, exposure, 0.0), groups)
    undefined = np.isnan(targets).any(axis=1) | ~mask.any(axis=1)
    disparity = np.einsum("qg,qg->q", system, system)
    if model != "trec2022":
        disparity = np.where(disparity > 0, disparity, np.nan)
    difference = system - np.nan_to_num(targets)
    values = {"l": np.einsum("qg,qg->q", difference, difference), "d": disparity,
              "r": np.einsum("qg,qg->q", system, np.nan_to_num(targets))}
    return {key: np.where(undefined, np.nan, value) for key, value in values.items()}


def attention_shares(groups: np.ndarray, mask: np.ndarray, cutoff: int) -> np.ndarray:
    """Each group's share of the attention of the top ``cutoff``, Σ_i w_i a_ig / Σ_i w_i with TREC 2022's w (AWRF's
    ranking distribution, awrf.py:79-127); shape (n_queries, n_labels), NaN for an empty list. ``groups`` may be
    tie-averaged (then the expected shares over the orders of the ties)."""
    depth = min(cutoff, mask.shape[1])
    weights = np.where(mask[:, :depth], trec_discount(depth).astype(np.float64), 0.0)
    total = weights.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.einsum("qd,qdg->qg", weights, groups[:, :depth]) / total[:, None]


def awrf_batch(groups: np.ndarray, mask: np.ndarray, targets: np.ndarray, cutoffs: Sequence[int],
               ties: np.ndarray | None = None, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """AWRF@k = 1 − JS(attention shares of the top k ‖ target) of every query and its Monte Carlo standard error,
    each of shape (n_queries, n_cutoffs); NaN for an empty list or a query without relevant document. With ``ties``
    (int labels, equal on adjacent tied positions) the expectation over the orders of each tie
    (:func:`~.tie_orders.expected_over_tie_orders`: exact, or 10,000 orders seeded by (``seed``, row, k), the error
    0 where exact)."""
    out = np.full((mask.shape[0], len(cutoffs)), np.nan)
    errors = np.where(np.isnan(targets).any(axis=1) | ~mask.any(axis=1), np.nan, 0.0)[:, None] + np.zeros(len(cutoffs))
    if ties is None:
        for column, cutoff in enumerate(cutoffs):
            out[:, column] = 1.0 - js_divergence_rows(attention_shares(groups, mask, cutoff), targets)
        return out, errors
    lengths = mask.sum(axis=1)
    for row in range(mask.shape[0]):
        n = int(lengths[row])
        if n == 0 or np.isnan(targets[row]).any():
            continue
        for column, cutoff in enumerate(cutoffs):
            depth = min(int(cutoff), n)
            found = expected_over_tie_orders(groups[row, :n], ties[row, :n], trec_discount(depth).astype(np.float64),
                                             _awrf_of_sums(targets[row]), seed=(seed, row, int(cutoff)))
            out[row, column], errors[row, column] = found.value, found.standard_error
    return out, errors


def _awrf_of_sums(target: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    def measure(sums: np.ndarray) -> np.ndarray:
        return 1.0 - js_divergence_rows(sums, np.broadcast_to(target, sums.shape))
    return measure


def trec_ndcg_batch(grades: np.ndarray, mask: np.ndarray, n_relevant: np.ndarray, cutoffs: Sequence[int]) -> np.ndarray:
    """nDCG@k as TREC Fair 2022 computes it (:func:`~.exposure.trec_ndcg` with its depth set to k): binary gain
    (grade > 0), discount w, ideal over min(R, k) documents, in float32 as the reference; shape
    (n_queries, n_cutoffs), NaN when R = 0."""
    out = np.full((mask.shape[0], len(cutoffs)), np.nan)
    gains = ((grades > 0) & mask).astype(np.float32)
    for column, cutoff in enumerate(cutoffs):
        depth = min(int(cutoff), mask.shape[1])
        discount = trec_discount(int(cutoff))
        for row, r in enumerate(n_relevant.tolist()):
            if r > 0:
                out[row, column] = float(np.sum(gains[row, :depth] * discount[:depth]) / np.sum(discount[:min(r, int(cutoff))]))
    return out
