"""System against system: every pair of the audited systems on every measure, and every row against the
perfect run on GSR, from one matrix of per-query values (:class:`QueryValues`, systems × queries).

For each pair (a, b) and measure: ``delta`` = value(a) − value(b) over the ``n_queries`` queries both have
(the table's difference whenever both systems have the same queries); ``ci95``, the CI that inverts the paired test;
``p``, the paired randomization test (per query, swap the two systems' values; for GSR swap their g_q(L),
GSR_a − GSR_b being the OLS slope of the differences on g(q)); ``p_adjusted``, corrected over the pairs of
that measure. Means are compared for the effectiveness measures (trec_eval's per-query values) and the bias
measures at each cut-off. The perfect and random runs are reference rows, not part of the pairs; every
system's ΔGSR to the perfect run is corrected over the audited systems (the random run alone).
All resampling is :mod:`irfair.measures.resampling`'s.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from ..bounds import checked
from ..cache.arrays import ArraysMemo
from ..errors import IrfairInputError
from ..measures.resampling import (
    CORRECTIONS,
    DECISIONS,
    FAMILY_WISE,
    TEST_NAME,
    Decisions,
    PairedTests,
    decide,
    paired_differences,
    paired_mean_tests,
    paired_slope_tests,
    rejects,
)

GSR = "gsr"
COMPARISON_COLUMNS = ("a", "b", "measure", "test", "delta", "ci95_low", "ci95_high", "p", "p_adjusted", "n_queries", "p_se",
                      "n_permutations", "decision", "wins", "ties", "losses")
CI_NAME = "paired randomization test inverted (deltas); wild bootstrap test inverted (GSR); expanded BCa bootstrap (means)"


@dataclass(frozen=True)
class Inference:
    """How differences are tested: resamples, seed, correction, α and the ``baseline`` the pairs are
    restricted to (None: every pair)."""

    n_bootstrap: int = 1000
    n_permutations: int = 10_000
    seed: int = 0
    correction: str = "holm"
    alpha: float = 0.05
    baseline: str | None = None

    def __post_init__(self) -> None:
        if self.correction not in CORRECTIONS:
            raise IrfairInputError(None, None, f"correction must be one of {', '.join(CORRECTIONS)}, not {self.correction!r}")
        # one check per number (irfair.bounds), numpy scalars taken as numbers and stored as Python ones
        for name, bound in (("n_bootstrap", "bootstrap"), ("n_permutations", "permutations"), ("seed", "seed"), ("alpha", "alpha")):
            object.__setattr__(self, name, checked(bound, getattr(self, name), name))

    def to_dict(self) -> dict:
        """The setting for ``audit.json``, with the test and CI named."""
        return {"test": TEST_NAME, "ci": CI_NAME, **asdict(self)}

    def rejects(self, p: float) -> bool:
        """Whether a corrected p rejects at this audit's α (:func:`~irfair.measures.resampling.rejects`)."""
        return bool(rejects(p, self.alpha))

    def describe_lines(self, family: str = "") -> list[str]:
        """Test, correction (over ``family``) and α; how the permutations were drawn; the CIs and seed: three lines of
        words, each under 100 characters with a short ``family``."""
        over = f" over {family}" if family else ""
        b = self.n_permutations
        return [f"{TEST_NAME} test, {self.correction}{over}, alpha {self.alpha:g}",
                (f"permutations: every sign flip where a pair differs on n queries, 2^n <= {b}; else {b} at random" if b
                 else "permutations: none (--permutations 0: nothing tested)"),
                f"95% CIs: means {self.n_bootstrap} BCa bootstrap resamples; GSR and deltas the tests inverted; seed {self.seed}"]

    def describe(self, family: str = "") -> str:
        """:meth:`describe_lines` as one sentence."""
        return "; ".join(self.describe_lines(family))


@dataclass(frozen=True)
class QueryValues:
    """Per-query values of every audited row on one query axis: ``query_genderedness`` g(q) of shape (n,),
    and per measure a matrix of shape (len(systems), n), NaN where a row has no value (for ``gsr``: g_q(L)
    of the queries each row uses)."""

    qids: tuple[str, ...]
    systems: tuple[str, ...]
    query_genderedness: np.ndarray
    values: dict[str, np.ndarray]

    def rows(self, names) -> np.ndarray:
        """Row positions of ``names``."""
        index = {name: i for i, name in enumerate(self.systems)}
        return np.array([index[name] for name in names], dtype=np.int64)


def query_values(qids, per_system: dict[str, dict[str, pd.Series]], query_genderedness: pd.Series) -> QueryValues:
    """Assemble :class:`QueryValues` from ``{system: {measure: Series indexed by qid}}`` (every system the same
    measures, ``gsr`` first) and g(q) as a Series indexed by qid."""
    qids = tuple(qids)
    axis = pd.Index(qids)
    systems = tuple(per_system)
    measures = list(next(iter(per_system.values()))) if per_system else []

    def placed(series: pd.Series) -> np.ndarray:
        out = np.full(len(qids), np.nan)
        at = axis.get_indexer(series.index)
        out[at[at >= 0]] = series.to_numpy(dtype=np.float64)[at >= 0]
        return out

    values = {m: np.array([placed(per_system[s][m]) for s in systems]).reshape(len(systems), len(qids)) for m in measures}
    return QueryValues(qids, systems, placed(query_genderedness), values)


def pairs_of(systems, baseline: str | None = None) -> list[tuple[str, str]]:
    """Pairs (a, b) compared: every pair in the given order, or with ``baseline`` each other system against
    it (a = the other system, b = the baseline)."""
    systems = list(systems)
    if baseline is None:
        return list(combinations(systems, 2))
    if baseline not in systems:
        raise IrfairInputError(None, None, f"baseline {baseline!r} is not an audited system (systems: {', '.join(systems)})")
    return [(s, baseline) for s in systems if s != baseline]


def compare_to_reference(values: QueryValues, names, reference: str, inference: Inference) -> PairedTests:
    """GSR of each of ``names`` minus the ``reference`` row's (the perfect run), tested as the pairs are."""
    rows = values.rows(names)
    gsr = values.values[GSR]
    # beside the 95% CI, the Bonferroni-simultaneous one over the compared rows (the forest plot draws it)
    simultaneous = 1 - (1 - 0.95) / max(1, len(rows))
    return paired_slope_tests(values.query_genderedness, gsr[rows], np.repeat(gsr[values.rows([reference])], len(rows), axis=0),
                              n_bootstrap=inference.n_bootstrap, n_permutations=inference.n_permutations, seed=inference.seed,
                              p_values=False, simultaneous=simultaneous)


def pairwise(values: QueryValues, systems, inference: Inference, memo: ArraysMemo | None = None) -> pd.DataFrame:
    """One row per measure and pair (:data:`COMPARISON_COLUMNS`), measures in the order of ``values``; read from
    ``memo`` (the audit's cache, :func:`irfair.cache.arrays.arrays_memo`) when these values were compared before with
    the same settings and code (2.4 s of a warm Robust04-sized audit: 24 measures × 153 pairs)."""
    pairs = pairs_of(systems, inference.baseline)
    if not pairs:
        return pd.DataFrame(columns=list(COMPARISON_COLUMNS))
    if memo is None:
        return _pairwise(values, pairs, inference)
    numbers, = memo("comparisons", [values.query_genderedness, *values.values.values()],
                    (values.qids, values.systems, tuple(values.values), pairs, inference),
                    lambda: _numbers_of(_pairwise(values, pairs, inference)), [(len(_NUMBERS), len(pairs) * len(values.values))])
    return _frame_of(numbers, pairs, tuple(values.values))


# the columns of the comparisons kept as numbers (decision: its position in DECISIONS; wins, ties, losses NaN for NA)
_NUMBERS = ("delta", "ci95_low", "ci95_high", "p", "p_adjusted", "n_queries", "p_se", "n_permutations", "decision", "wins",
            "ties", "losses")
_COUNTS = ("wins", "ties", "losses")


def _numbers_of(frame: pd.DataFrame) -> tuple[np.ndarray]:
    """The comparisons' :data:`_NUMBERS` as one float64 array, shape (12, rows): every value exactly (the counts and
    integers are far below 2^53)."""
    codes = {decision: i for i, decision in enumerate(DECISIONS)}
    columns = [frame[c].to_numpy(dtype=np.float64, na_value=np.nan) for c in _NUMBERS if c != "decision"]
    columns.insert(_NUMBERS.index("decision"), np.array([codes[d] for d in frame["decision"]], dtype=np.float64))
    return (np.array(columns, dtype=np.float64).reshape(len(_NUMBERS), len(frame)),)


def _frame_of(numbers: np.ndarray, pairs: list[tuple[str, str]], measures: tuple[str, ...]) -> pd.DataFrame:
    """The comparisons of :func:`_pairwise` from :func:`_numbers_of`'s array: the same columns, values and dtypes."""
    column = dict(zip(_NUMBERS, numbers, strict=True))
    k = len(pairs)
    frame = pd.DataFrame({
        "a": [p[0] for p in pairs] * len(measures), "b": [p[1] for p in pairs] * len(measures),
        "measure": np.repeat(np.array(measures, dtype=object), k), "test": TEST_NAME,
        **{name: column[name] for name in ("delta", "ci95_low", "ci95_high", "p", "p_adjusted")},
        "n_queries": column["n_queries"].astype(np.int64), "p_se": column["p_se"],
        "n_permutations": column["n_permutations"].astype(np.int64),
        "decision": np.array(DECISIONS, dtype=object)[column["decision"].astype(np.int64)],
        **{name: pd.array([None if np.isnan(v) else int(v) for v in column[name]], dtype="Int64") for name in _COUNTS},
    })
    return frame[list(COMPARISON_COLUMNS)]


def _pairwise(values: QueryValues, pairs: list[tuple[str, str]], inference: Inference) -> pd.DataFrame:
    """:func:`pairwise`, computed."""
    a = values.rows([p[0] for p in pairs])
    b = values.rows([p[1] for p in pairs])
    settings = {"n_bootstrap": inference.n_bootstrap, "n_permutations": inference.n_permutations, "seed": inference.seed,
                "p_values": False}  # decided below, per measure (exact, or with the Monte-Carlo error under control)
    tests = {}
    others = [m for m in values.values if m != GSR]
    if GSR in values.values:
        tests[GSR] = paired_slope_tests(values.query_genderedness, values.values[GSR][a], values.values[GSR][b], **settings)
    if others:
        # every mean-type measure in one call: one set of permutations for all of them
        stacked = paired_mean_tests(np.concatenate([values.values[m][a] for m in others]),
                                    np.concatenate([values.values[m][b] for m in others]), **settings)
        k = len(pairs)
        for i, measure in enumerate(others):
            part = slice(i * k, (i + 1) * k)
            tests[measure] = PairedTests(*(getattr(stacked, f)[part] for f in ("delta", "ci_low", "ci_high", "p", "n_queries",
                                                                                  "terms", "usable")),
                                         first_counts=stacked.first_counts[part], skew_corrected=True)
    frames = []
    for measure in values.values:
        test = tests[measure]
        decided = decide_family(test, inference)
        record = win_tie_loss(values.values[measure][a], values.values[measure][b], measure)
        frames.append(pd.DataFrame({
            "a": [p[0] for p in pairs], "b": [p[1] for p in pairs], "measure": measure, "test": TEST_NAME,
            "delta": test.delta, "ci95_low": test.ci_low, "ci95_high": test.ci_high, "p": decided.p,
            "p_adjusted": decided.p_adjusted, "n_queries": test.n_queries.astype(np.int64), "p_se": decided.p_se,
            "n_permutations": decided.n_permutations.astype(np.int64), "decision": decided.decision, **record,
        }))
    return pd.concat(frames, ignore_index=True)[list(COMPARISON_COLUMNS)]


def win_tie_loss(a: np.ndarray, b: np.ndarray, measure: str) -> dict[str, pd.array]:
    """Per pair (rows of ``a`` and ``b``, shape (k, n)), the queries both have where a's value is above b's (``wins``),
    equal up to floating-point noise (``ties``) and below (``losses``), as ranx and PyTerrier count them; missing
    (NA) for GSR, whose per-query values are list genderedness, not a score to win on."""
    k = len(a)
    if measure == GSR:
        missing = pd.array([None] * k, dtype="Int64")
        return {"wins": missing, "ties": missing.copy(), "losses": missing.copy()}
    differences = paired_differences(a, b)
    both = np.isfinite(differences)
    return {name: pd.array(counts.sum(axis=1), dtype="Int64") for name, counts in
            (("wins", both & (differences > 0)), ("ties", both & (differences == 0)), ("losses", both & (differences < 0)))}


def decide_family(test: PairedTests, inference: Inference) -> Decisions:
    """The decisions of one family of tests (:func:`irfair.measures.resampling.decide`) at the audit's settings;
    a row with an undefined delta is not compared."""
    usable = test.usable & np.isfinite(test.delta)
    return decide(test.terms, usable, inference.n_permutations, inference.seed, inference.correction, inference.alpha,
                  test.first_counts, test.n_queries if test.skew_corrected else None)


def comparison_records(frame: pd.DataFrame) -> list[dict]:
    """The comparisons for ``audit.json``: objects with exactly ``a, b, measure, test, delta, ci95, p,
    p_adjusted, n_queries, p_se, n_permutations, decision, wins, ties, losses`` (``ci95`` = [low, high]; null where
    undefined)."""
    def number(value):
        return float(value) if np.isfinite(value) else None

    return [{"a": r.a, "b": r.b, "measure": r.measure, "test": r.test, "delta": number(r.delta),
             "ci95": None if not (np.isfinite(r.ci95_low) and np.isfinite(r.ci95_high)) else [float(r.ci95_low), float(r.ci95_high)],
             "p": number(r.p), "p_adjusted": number(r.p_adjusted), "n_queries": int(r.n_queries), "p_se": number(r.p_se),
             "n_permutations": int(r.n_permutations), "decision": r.decision,
             **{name: None if pd.isna(value) else int(value) for name, value in
                (("wins", r.wins), ("ties", r.ties), ("losses", r.losses))}}
            for r in frame.itertuples(index=False)]


def detectable(ci_low, ci_high, alpha: float, correction: str, power: float = 0.8) -> float:
    """The difference one family of comparisons could detect with probability ``power``: (z_{1−α'/2} + z_power) times
    the median standard error of a delta, read from its 95% bootstrap CI (``ci_low``, ``ci_high``: one per test;
    width / 3.92), α' = α/m under Holm or Bonferroni over the family's m tests (Holm's first step), α otherwise.
    NaN without a CI."""
    from scipy.special import ndtri  # the normal quantile, as scipy.stats.norm.ppf computes it (without its import)

    width = np.asarray(ci_high, dtype=np.float64) - np.asarray(ci_low, dtype=np.float64)
    se = width[np.isfinite(width)] / (2 * ndtri(0.975))
    if not len(se):
        return float("nan")
    level = alpha / len(width) if correction in FAMILY_WISE else alpha
    return float((ndtri(1 - level / 2) + ndtri(power)) * np.median(se))
