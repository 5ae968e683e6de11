"""The measures of gender bias in rankings, declared as data (as ir_measures declares its measures): each
:class:`BiasMeasure` names its paper, default cut-offs and variants, the word list it uses by default
and the function that turns per-document counts into per-query values. The audit loops over
:data:`BIAS_MEASURES`; nothing branches on a measure's name.

* ``gsr`` — Gender Stereotype Reinforcement (Fabris et al., IP&M 2020), embedding-based: a slope over
  queries, so it has no per-query value and no word list; the audit computes it (:mod:`.gsr`).
* ``rab``, ``arab`` — rank bias and average rank bias (Rekabsaz & Schedl, SIGIR 2020; :mod:`.rab`),
  cut-offs 5, 10, 20, variants ``tc`` (term count) and ``bool``; > 0: the top of the list is male-leaning.
* ``nfairr`` — normalised fairness of retrieval results (Rekabsaz et al., SIGIR 2021; Bigdeli et al.,
  ECIR 2022; :mod:`.nfairr`), normalised by the ideal FaiRR over the query's top ``candidates``
  documents of the same run (100); 1 = as neutral as the candidates allow.
* ``texfair`` — term exposure-based fairness (Abolghasemi et al., ECIR 2024; :mod:`.texfair`); 1 =
  balanced exposure of female and male words.

* ``ee`` — expected exposure of document groups (Diaz et al., CIKM 2020; TREC Fair 2022): EE-L, EE-D, EE-R
  (variants ``l``, ``d``, ``r``), browsing model ``trec2022`` (default), ``gerr`` or ``rbp``.
* ``awrf`` — attention-weighted rank fairness (Sapiezynski et al., WWW 2019) and TREC Fair 2022's nDCG × AWRF
  (``awrf@k``, ``awrf_ndcg@k``). Both read each document's groups (a groups file, or female/male/neither from
  its words) and its grade (:mod:`.exposure_batch`); they are the ``exposure`` family, asked for by name.

Per-document inputs are the counts of :mod:`.gender_counts` laid out as a batch (:class:`RankedDocs`,
shape (n_queries, depth)). Positions whose order is unknown — equal grades in the perfect run — carry a
tie group, and each measure gives its expectation over the orders of the tie (every order equally
likely). RaB, ARaB and FaiRR are linear in the per-document values (magnitude, neutrality), so they take,
at every position of a group, the group's mean value. TExFAIR is a ratio of weighted sums, not linear:
the mean shares would give the expectation of its exposures, not of TExFAIR (five tied documents, one
with a female word, one with a male word, give 1.000 at @3 instead of the mean over their 120 orders,
47/61 = 0.770, and the same value at every cut-off); it is computed over the orders themselves
(:mod:`.tie_orders`: exactly, or from 10,000 seeded orders when a tie has more than 200,000, with the
standard error under ``<column>~tie_se``).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from ..errors import IrfairInputError
from .exposure import BROWSING_MODELS
from .exposure_batch import (
    ExposureDocs,
    attention_shares,
    awrf_batch,
    expected_exposure_batch,
    position_exposure,
    trec_ndcg_batch,
)
from .gender_words import NFAIRR_GENDER_WORDS, RAB_GENDER_WORDS, TEXFAIR_GENDER_WORDS
from .names import DEFAULT_BIAS_MEASURES  # noqa: F401  (what an audit measures by default; the CLI reads .names)
from .nfairr import NEUTRALITY_THRESHOLD, document_neutrality, nfairr_batch
from .rab import MAGNITUDE_VARIANTS, average_rank_bias_batch, gender_magnitude, rank_bias_batch
from .ranked import check_cutoffs
from .texfair import DEFAULT_PATIENCE, texfair_from_shares, texfair_over_tie_orders
from .tie_orders import tie_groups  # noqa: F401  (the audit reads tie labels from here)

HEADLINE_CUTOFF = 10
NFAIRR_CANDIDATES = 100
# the two families of measures: what the lists say (gendered words, embeddings), and who gets seen (exposure of groups)
BIAS = "bias"
EXPOSURE = "exposure"
# per-query key suffix of each group's share of the attention (an array of shape (n_queries, n_labels)): ``awrf@10~shares``
SHARES = "~shares"
# per-query key suffix of the Monte Carlo standard error of a value taken over the orders of ties (TExFAIR of the
# perfect run; 0 where the expectation is exact): ``texfair@10~tie_se`` beside ``texfair@10``
TIE_STANDARD_ERROR = "~tie_se"


@dataclass(frozen=True)
class RankedDocs:
    """Gendered-word counts of each query's documents in rank order, arrays of shape (n_queries, depth).

    ``female``/``male``: occurrences of the list's female/male words; ``length``: tokens; ``mask``: True
    for the documents a list has (padding last); ``ties``: optional int group labels, equal labels in a
    row marking positions whose relative order is unknown; ``background``: the documents NFaiRR is
    normalised by when one run's top documents serve every system (its authors' convention), else None
    (each list's own top candidates).
    """

    female: np.ndarray
    male: np.ndarray
    length: np.ndarray
    mask: np.ndarray
    ties: np.ndarray | None = None
    background: RankedDocs | None = None
    exposure: ExposureDocs | None = None
    tie_memo: Callable | None = None  # where expectations over tie orders are kept (the audit's cache), or None

    def head(self, depth: int) -> RankedDocs:
        """The first ``depth`` positions of every list (without the background and exposure inputs)."""
        cut = slice(0, depth)
        return RankedDocs(self.female[:, cut], self.male[:, cut], self.length[:, cut], self.mask[:, cut],
                          None if self.ties is None else self.ties[:, cut])

    def tie_mean(self, values: np.ndarray) -> np.ndarray:
        """``values`` (shape of the batch) with each tie group's positions set to the group's mean (padding 0)."""
        values = np.where(self.mask, values, 0.0)
        if self.ties is None:
            return values
        n, depth = values.shape
        labels = (np.asarray(self.ties, dtype=np.int64) + np.arange(n)[:, None] * (depth + 1)).ravel()
        weight = self.mask.ravel().astype(np.float64)
        size = n * (depth + 1)
        sums = np.bincount(labels, weights=values.ravel() * weight, minlength=size)
        counts = np.bincount(labels, weights=weight, minlength=size)
        mean = sums[labels] / np.maximum(counts[labels], 1.0)
        return np.where(self.mask, mean.reshape(n, depth), 0.0)

    def no_gendered_word(self, cutoff: int) -> np.ndarray:
        """Shape (n_queries,): True where the list has documents but none of its top ``cutoff`` holds a listed word
        (for tied positions: none of the tie's documents does)."""
        return self.none_within((self.female + self.male) > 0, cutoff)

    def none_within(self, indicator: np.ndarray, cutoff: int) -> np.ndarray:
        """Shape (n_queries,): True where the list has documents but ``indicator`` (bool, shape of the batch) holds for
        none of its top ``cutoff`` (for tied positions: for none of the tie's documents)."""
        found = self.tie_mean(np.asarray(indicator, dtype=np.float64))[:, :cutoff].sum(axis=1)
        return self.mask.any(axis=1) & (found == 0)


PerQuery = Callable[["BiasMeasure", RankedDocs], dict[str, np.ndarray]]


@dataclass(frozen=True)
class BiasMeasure:
    """One measure of gender bias in rankings.

    ``per_query(measure, docs)`` gives ``{column: values of shape (n_queries,)}`` (NaN where undefined);
    ``docs`` holds each query's list down to :attr:`depth`. ``larger`` says what larger values mean;
    :attr:`headlines` are the columns the agreement table compares.
    ``gender_words``: the shipped list it uses unless the audit is given another (None: embedding-based);
    ``ungendered``: its value for a list without any listed word; ``fairness``: True when larger values
    are fairer (NFaiRR, TExFAIR), False when they are more biased (GSR, RaB, ARaB); ``family``: ``bias`` (what
    the lists say) or ``exposure`` (who gets seen: EE, AWRF); ``variant_choices``: the variants it knows;
    ``headline_variants``: those the agreement table and the verdict read (None: every variant).
    """

    name: str
    title: str
    paper: str
    description: str
    larger: str
    per_query: PerQuery | None = None
    cutoffs: tuple[int, ...] = ()
    variants: tuple[str, ...] = ()
    gender_words: str | None = None
    candidates: int | None = None
    parameters: tuple[tuple[str, float | str], ...] = ()
    ungendered: float | None = None
    fairness: bool = False
    family: str = BIAS
    variant_choices: tuple[str, ...] = MAGNITUDE_VARIANTS
    headline_variants: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.per_query is None:
            return
        check_cutoffs(list(self.cutoffs))
        unknown = [v for v in self.variants if v not in self.variant_choices]
        if unknown:
            raise IrfairInputError(None, None, f"{self.name}: expected variants among {', '.join(self.variant_choices)}, "
                                               f"got {unknown[0]!r}")
        if self.candidates is not None and self.candidates < max(self.cutoffs):
            raise IrfairInputError(None, None, f"{self.name}: expected at least as many candidates ({self.candidates}) "
                                               f"as the largest cut-off ({max(self.cutoffs)})")

    def with_options(self, **changes) -> BiasMeasure:
        """A copy with other cut-offs, variants, candidates or parameters (validated)."""
        if "cutoffs" in changes:
            changes["cutoffs"] = tuple(int(c) for c in changes["cutoffs"])
        if "variants" in changes:
            changes["variants"] = tuple(changes["variants"])
        return dataclasses.replace(self, **changes)

    def parameter(self, key: str):
        """The value of one of :attr:`parameters`."""
        return dict(self.parameters)[key]

    def column(self, variant: str | None, cutoff: int) -> str:
        """Column name: ``rab_tc@10`` for a measure with variants, ``nfairr@10`` otherwise."""
        return f"{self.name}_{variant}@{cutoff}" if variant else f"{self.name}@{cutoff}"

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column this measure fills, variant by variant, cut-off by cut-off (``gsr`` for GSR)."""
        if self.per_query is None:
            return (self.name,)
        return tuple(self.column(v, c) for v in (self.variants or (None,)) for c in self.cutoffs)

    @property
    def headlines(self) -> tuple[str, ...]:
        """The columns the agreement table compares: each variant at cut-off 10 (else the first cut-off)."""
        if self.per_query is None:
            return (self.name,)
        cutoff = HEADLINE_CUTOFF if HEADLINE_CUTOFF in self.cutoffs else self.cutoffs[0]
        variants = self.variants or (None,)
        if self.headline_variants is not None:
            variants = tuple(v for v in variants if v in self.headline_variants) or variants[:1]
        return tuple(self.column(v, cutoff) for v in variants)

    @property
    def depth(self) -> int:
        """How deep each list must be read: the largest cut-off, or the candidate set when larger."""
        return max(max(self.cutoffs, default=0), self.candidates or 0)


def _by_cutoff(measure: BiasMeasure, variant: str | None, values: np.ndarray) -> dict[str, np.ndarray]:
    return {measure.column(variant, cutoff): values[:, i] for i, cutoff in enumerate(measure.cutoffs)}


def _rank_bias_columns(batch_function) -> PerQuery:
    def columns(measure: BiasMeasure, docs: RankedDocs) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for variant in measure.variants:
            female = docs.tie_mean(gender_magnitude(docs.female, variant))
            male = docs.tie_mean(gender_magnitude(docs.male, variant))
            # magnitudes already taken (and tie-averaged): "tc" passes them through unchanged
            out |= _by_cutoff(measure, variant, batch_function(female, male, docs.mask, measure.cutoffs, variant="tc"))
        return out
    return columns


def _nfairr_columns(measure: BiasMeasure, docs: RankedDocs) -> dict[str, np.ndarray]:
    threshold = measure.parameter("threshold")
    listed = docs.head(max(measure.cutoffs))
    candidates = docs.background if docs.background is not None else docs.head(measure.candidates or docs.mask.shape[1])
    # tie means over the whole list: a tie reaching past the cut-offs is averaged over all its documents
    omega = docs.tie_mean(document_neutrality(docs.female, docs.male, threshold=threshold))[:, :listed.mask.shape[1]]
    candidate_omega = document_neutrality(candidates.female, candidates.male, threshold=threshold)
    return _by_cutoff(measure, None, nfairr_batch(omega, listed.mask, candidate_omega, candidates.mask, measure.cutoffs))


def _texfair_columns(measure: BiasMeasure, docs: RankedDocs) -> dict[str, np.ndarray]:
    length = np.where(docs.length > 0, docs.length, 1.0)
    shares = [np.where(docs.mask, values, 0.0) for values in
              (docs.female / length, docs.male / length, ((docs.female + docs.male) > 0).astype(np.float64))]
    patience = measure.parameter("patience")
    if docs.ties is None:
        return _by_cutoff(measure, None, texfair_from_shares(*shares, docs.mask, measure.cutoffs, patience=patience))
    values, errors = texfair_over_tie_orders(*shares, docs.mask, docs.ties, measure.cutoffs, patience=patience,
                                             memo=docs.tie_memo)
    return _by_cutoff(measure, None, values) | {f"{measure.column(None, c)}{TIE_STANDARD_ERROR}": errors[:, i]
                                                 for i, c in enumerate(measure.cutoffs)}


def _exposure_inputs(measure: BiasMeasure, docs: RankedDocs) -> ExposureDocs:
    if docs.exposure is None:
        raise IrfairInputError(None, None, f"{measure.name}: the documents' groups and grades are needed (the audit gives them)")
    return docs.exposure


def _ee_columns(measure: BiasMeasure, docs: RankedDocs) -> dict[str, np.ndarray]:
    """EE-L/D/R at each cut-off: positions beyond it expose nothing; tied positions share their tie's mean exposure
    (the perfect run read as the policy that shuffles each grade level)."""
    inputs = _exposure_inputs(measure, docs)
    model, p, u = measure.parameter("model"), measure.parameter("p"), measure.parameter("u")
    exposure = position_exposure(inputs.grades, docs.mask, model, p, u)
    positions = np.arange(docs.mask.shape[1])
    out: dict[str, np.ndarray] = {}
    for cutoff in measure.cutoffs:
        cut = docs.tie_mean(np.where(positions < cutoff, exposure, 0.0))
        targets = inputs.targets.exposure_targets(model, p, u, cutoff)
        values = expected_exposure_batch(cut, inputs.grades, inputs.groups, docs.mask, targets, model)
        out |= {measure.column(v, cutoff): values[v] for v in measure.variants}
    return out


def _awrf_columns(measure: BiasMeasure, docs: RankedDocs) -> dict[str, np.ndarray]:
    """AWRF and nDCG × AWRF at each cut-off, with the Monte Carlo error of the perfect run's expectation over the
    orders of its ties and each group's share of the attention (``~shares``)."""
    inputs = _exposure_inputs(measure, docs)
    targets = inputs.targets.awrf_targets("uniform")
    values, errors = awrf_batch(inputs.groups, docs.mask, targets, measure.cutoffs, docs.ties)
    ndcg = trec_ndcg_batch(inputs.grades, docs.mask, inputs.targets.n_relevant, measure.cutoffs)
    expected_groups = np.stack([docs.tie_mean(inputs.groups[:, :, g]) for g in range(inputs.groups.shape[2])], axis=2)
    out: dict[str, np.ndarray] = {}
    for i, cutoff in enumerate(measure.cutoffs):
        for variant in measure.variants:
            column = measure.column(variant, cutoff)
            factor = ndcg[:, i] if variant else 1.0
            out[column] = factor * values[:, i]
            if docs.ties is not None:
                out[column + TIE_STANDARD_ERROR] = factor * errors[:, i]
        out[measure.column(measure.variants[0], cutoff) + SHARES] = attention_shares(expected_groups, docs.mask, cutoff)
    return out


GSR = BiasMeasure(
    "gsr", "GSR", "Fabris et al., Gender stereotype reinforcement, IP&M 2020",
    "slope of the list's embedding genderedness g_q(L) on the query's g(q) over queries: whether female queries get "
    "female lists and male queries male ones", "more stereotype-reinforcing (0: none; < 0: counter-stereotypical)")
RAB = BiasMeasure(
    "rab", "RaB", "Rekabsaz & Schedl, Do Neural Ranking Models Intensify Gender Bias?, SIGIR 2020 (arXiv 2005.00372)",
    "mean male minus mean female magnitude of the top t documents (term count tc or boolean)",
    "more male-leaning (0: balanced; < 0: female-leaning)", _rank_bias_columns(rank_bias_batch),
    (5, 10, 20), ("tc", "bool"), RAB_GENDER_WORDS, ungendered=0.0)
ARAB = BiasMeasure(
    "arab", "ARaB", RAB.paper, "RaB averaged over the cut-offs 1..t (weighs the very top more)", RAB.larger,
    _rank_bias_columns(average_rank_bias_batch), (5, 10, 20), ("tc", "bool"), RAB_GENDER_WORDS, ungendered=0.0)
NFAIRR = BiasMeasure(
    "nfairr", "NFaiRR", "Rekabsaz, Kopeinik & Schedl, SIGIR 2021 (arXiv 2104.13640); Bigdeli et al., ECIR 2022",
    "rank-discounted document neutrality of the top k, divided by the best the query's candidates allow",
    "fairer (1: the most neutral order of the candidates)", _nfairr_columns, (5, 10, 20), (), NFAIRR_GENDER_WORDS,
    NFAIRR_CANDIDATES, (("threshold", NEUTRALITY_THRESHOLD),), ungendered=1.0,
    fairness=True)
TEXFAIR = BiasMeasure(
    "texfair", "TExFAIR", "Abolghasemi et al., Measuring Bias in a Ranked List using Term-based Representations, "
    "ECIR 2024 (arXiv 2403.05975)",
    "1 minus the rank-biased share of representative documents times the imbalance of female and male term exposure",
    "fairer (1: balanced exposure, or nothing gendered exposed)", _texfair_columns, (5, 10, 20), (), TEXFAIR_GENDER_WORDS,
    None, (("patience", DEFAULT_PATIENCE),), ungendered=1.0, fairness=True)

EE = BiasMeasure(
    "ee", "EE", "Diaz, Mitra, Ekstrand, Biega & Carterette, Evaluating Stochastic Rankings with Expected Exposure, CIKM 2020; "
    "TREC Fair Ranking 2022",
    "expected exposure of the document groups against the exposure an ideal ranking by grade gives them: EE-L = "
    "||e - e*||^2 (l), disparity EE-D = e.e (d), relevance EE-R = e.e* (r)",
    "l: further from the groups' deserved exposure; d: exposure more concentrated; r: more exposure where deserved",
    _ee_columns, (5, 10, 20), ("l", "d", "r"), RAB_GENDER_WORDS,
    parameters=(("model", "trec2022"), ("p", 0.5), ("u", 0.5)), family=EXPOSURE, variant_choices=("l", "d", "r"),
    headline_variants=("l",))
AWRF = BiasMeasure(
    "awrf", "AWRF", "Sapiezynski, Zeng, Robertson, Mislove & Wilson, WWW 2019 companion; TREC Fair Ranking 2022 "
    "(nDCG x AWRF)",
    "1 minus the Jensen-Shannon divergence between the groups' share of the attention in the top k and the "
    "relevant documents' groups mixed half and half with a uniform background; awrf_ndcg: TREC Fair's nDCG x AWRF",
    "fairer (1: the attention is shared as the target)", _awrf_columns, (5, 10, 20), ("", "ndcg"), RAB_GENDER_WORDS,
    fairness=True, family=EXPOSURE, variant_choices=("", "ndcg"))

BIAS_MEASURES: dict[str, BiasMeasure] = {m.name: m for m in (GSR, RAB, ARAB, NFAIRR, TEXFAIR, EE, AWRF)}


def resolve_bias_measures(measures: str | Iterable[str | BiasMeasure] | None = None) -> tuple[BiasMeasure, ...]:
    """Measures from names (a comma-separated string or a sequence; :class:`BiasMeasure` objects pass as they
    are); ``None`` for :data:`DEFAULT_BIAS_MEASURES`. Unknown, repeated or no names raise IrfairInputError."""
    if measures is None:
        return tuple(BIAS_MEASURES[name] for name in DEFAULT_BIAS_MEASURES)
    items = [part.strip() for part in measures.split(",")] if isinstance(measures, str) else list(measures)
    known = ", ".join(BIAS_MEASURES)
    resolved: list[BiasMeasure] = []
    for item in items:
        if isinstance(item, BiasMeasure):
            measure = item
        elif isinstance(item, str) and item.strip().lower() in BIAS_MEASURES:
            measure = BIAS_MEASURES[item.strip().lower()]
        else:
            raise IrfairInputError(None, None, f"expected bias measures among {known}, got {item!r}")
        if any(m.name == measure.name for m in resolved):
            raise IrfairInputError(None, None, f"bias measure {measure.name!r} is listed twice")
        resolved.append(measure)
    if not resolved:
        raise IrfairInputError(None, None, f"expected at least one bias measure among {known}")
    return tuple(resolved)


RANK_BIAS_MEASURES = ("rab", "arab")


def with_rank_bias_weighting(measures: Iterable[BiasMeasure], variants: str | Iterable[str]) -> tuple[BiasMeasure, ...]:
    """``measures`` with RaB's and ARaB's magnitude variants replaced by ``variants`` (any of ``tc``, ``tf``,
    ``bool``, in that order; a comma-separated string or a sequence): ``tf`` and ``bool`` are what RaB's
    authors report, ``tc`` and ``bool`` irfair's default. IrfairInputError when ``measures`` hold neither RaB nor ARaB
    (the weighting would weigh nothing)."""
    chosen = [v.strip() for v in variants.split(",")] if isinstance(variants, str) else [str(v) for v in variants]
    chosen = [v for v in chosen if v]
    unknown = [v for v in chosen if v not in MAGNITUDE_VARIANTS]
    if unknown or not chosen or len(set(chosen)) != len(chosen):
        raise IrfairInputError(None, None, f"RaB weighting: expected one or more of {', '.join(MAGNITUDE_VARIANTS)} (each once), "
                                           f"got {','.join(chosen) or 'none'}")
    measures = tuple(measures)
    if not any(m.name in RANK_BIAS_MEASURES for m in measures):
        raise IrfairInputError(None, None, f"RaB weighting {','.join(chosen)}: neither rab nor arab is among the bias measures "
                                           f"({', '.join(m.name for m in measures)})")
    ordered = tuple(v for v in MAGNITUDE_VARIANTS if v in chosen)
    return tuple(m.with_options(variants=ordered) if m.name in RANK_BIAS_MEASURES else m for m in measures)


def with_exposure_model(measures: Iterable[BiasMeasure], model: str) -> tuple[BiasMeasure, ...]:
    """``measures`` with EE's browsing model set to ``model`` (``trec2022``, ``gerr`` or ``rbp``, p = u = 0.5).
    IrfairInputError for another name, or when EE is not among ``measures``."""
    measures = tuple(measures)
    if model not in BROWSING_MODELS:
        raise IrfairInputError(None, None, f"expected an exposure browsing model among {', '.join(BROWSING_MODELS)}, got {model!r}")
    if not any(m.name == EE.name for m in measures):
        raise IrfairInputError(None, None, f"exposure model {model}: ee is not among the bias measures "
                                           f"({', '.join(m.name for m in measures)})")
    return tuple(m.with_options(parameters=tuple((k, model if k == "model" else v) for k, v in m.parameters))
                 if m.name == EE.name else m for m in measures)


def bias_columns(measures: Iterable[BiasMeasure]) -> dict[str, BiasMeasure]:
    """``{column: measure}`` for every per-query column of ``measures`` (GSR has none)."""
    return {column: m for m in measures if m.per_query is not None for column in m.columns}
