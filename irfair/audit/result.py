"""What an audit found: one :class:`SystemAudit` per system and the :class:`AuditResult` that holds them,
with DataFrame and JSON views. Reports read these objects; they never call back into the audit.

One naming scheme, snake_case, is used by ``table()``, ``audit.json``, the CSV files and the README
(:data:`SUMMARY_COLUMNS`); effectiveness columns are named by their measure (``MAP``, ``nDCG@100``).

* ``delta_gsr`` = GSR − GSR(perfect) over the queries both runs use, with its 95% CI (the paired test inverted)
  (``delta_gsr_ci_low``, ``delta_gsr_ci_high``), the two-sided p of the paired randomization test
  (``delta_gsr_p``) and that p corrected over the audited systems (``delta_gsr_p_adjusted``; the random
  run is a family of its own); see :mod:`.comparisons`.
* ``relative_gsr_pct`` = 100 · (GSR − GSR(perfect)) / GSR(perfect), as the paper reports it, only when
  the perfect run's GSR is positive and its 95% CI excludes 0; otherwise NaN (``n/a``) and
  :attr:`AuditResult.relative_gsr_note` says why — a ratio to a value that may be 0 or negative
  explodes and flips sign.

The ranking-bias measures beside GSR (:mod:`.bias`) add, per column such as ``rab_tc@10``, the mean
over queries and its CI (``rab_tc@10``, ``rab_tc@10_ci_low``, ``rab_tc@10_ci_high``) after the
effectiveness columns of ``table()``, the per-query values to ``per_query()``, and
``bias_measures``, ``systems.<name>.bias`` and ``agreement`` to the JSON. Each effectiveness measure has
its CI too (``MAP_ci_low``, ``MAP_ci_high``).

Beyond the table: ``comparisons`` (every pair of audited systems on every measure, :mod:`.comparisons`),
``tradeoff`` (GSR against the first effectiveness measure, the Pareto front, :mod:`.tradeoff`), each
system's ``influence`` (the queries that move its GSR most, :mod:`.influence`), ``warnings``
(:mod:`.alerts`) and :meth:`AuditResult.check` (:mod:`.gate`).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..gender.direction import GenderDirection
from ..measures.effectiveness import DEFAULT_MEASURES, EvaluationResult
from ..measures.gsr import ZERO_SLOPE, GSRResult, PairedGSRTest
from ..measures.resampling import DIFFERS
from ..numbers import finite_or_none, fixed
from .agreement import agreement_table
from .alerts import MIN_AGREEMENT_SYSTEMS, AuditWarning
from .bias import BiasSetup, SystemBias, bias_frame
from .comparisons import COMPARISON_COLUMNS, Inference, QueryValues, comparison_records
from .gate import GateFailure, check
from .influence import INFLUENCE_COLUMNS
from .kinds import KINDS, PERFECT, RANDOM, SYSTEM  # noqa: F401  (PERFECT, RANDOM, KINDS: imported from here too)

SUMMARY_COLUMNS = (
    "kind", "gsr", "gsr_ci_low", "gsr_ci_high", "delta_gsr", "delta_gsr_ci_low", "delta_gsr_ci_high", "delta_gsr_p",
    "delta_gsr_p_adjusted", "relative_gsr_pct", "r", "r_p_value", "intercept", "n_queries", "n_excluded", "n_evaluated",
)


def relative_gsr_note(perfect: GSRResult) -> str | None:
    """Why relative GSR cannot be read against this perfect run (None when it can)."""
    slope, low, high = perfect.slope, perfect.ci_low, perfect.ci_high
    if not math.isfinite(slope):
        return "relative GSR is n/a: the perfect run has no GSR"
    if abs(slope) < ZERO_SLOPE:
        return "relative GSR is n/a: the perfect run's GSR is 0"
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"relative GSR is n/a: the perfect run's GSR ({fixed(slope, sign=True)}) has no 95% CI to show it differs from 0"
    if slope <= 0:
        return f"relative GSR is n/a: the perfect run's GSR ({fixed(slope, sign=True)}) is not positive"
    if low <= ZERO_SLOPE:
        return (f"relative GSR is n/a: the perfect run's GSR ({fixed(slope, sign=True)}) has a 95% CI "
                f"[{fixed(low, sign=True)}, {fixed(high, sign=True)}] that covers 0")
    return None


def relative_gsr_pct(slope: float, perfect: GSRResult) -> float:
    """100 · (GSR − GSR(perfect)) / GSR(perfect) in percent; NaN when :func:`relative_gsr_note` gives a reason."""
    if relative_gsr_note(perfect) is not None or not math.isfinite(slope):
        return float("nan")
    return 100.0 * (slope - perfect.slope) / perfect.slope


@dataclass
class SystemAudit:
    """One audited system: its GSR, relative GSR (percent, NaN when n/a), the paired test of
    GSR − GSR(perfect) with its corrected p, its effectiveness (``measure_ci``: the 95% bootstrap CI of each
    measure's mean) and the queries that move its GSR most (``influence``, :mod:`.influence`)."""

    name: str
    kind: str
    gsr: GSRResult
    relative_gsr: float
    vs_perfect: PairedGSRTest | None
    evaluation: EvaluationResult | None
    source: str | None = None
    bias: SystemBias | None = None
    delta_gsr_p_adjusted: float = float("nan")
    delta_gsr_decision: str | None = None  # irfair.measures.resampling.DECISIONS; None for the perfect run
    measure_ci: dict[str, tuple[float, float]] = field(default_factory=dict)
    influence: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=list(INFLUENCE_COLUMNS)), repr=False)

    def summary(self) -> dict:
        """The :data:`SUMMARY_COLUMNS` of this system (NaN where undefined)."""
        g, vs = self.gsr, self.vs_perfect
        nan = float("nan")
        perfect = (0.0 if math.isfinite(g.slope) else nan, nan, nan, nan, nan)  # no GSR (no corpus): no delta either
        delta = perfect if self.kind == PERFECT else (
            (nan,) * 5 if vs is None else (vs.difference, vs.ci_low, vs.ci_high, vs.p_value, self.delta_gsr_p_adjusted))
        return {
            "kind": self.kind, "gsr": g.slope, "gsr_ci_low": g.ci_low, "gsr_ci_high": g.ci_high,
            "delta_gsr": delta[0], "delta_gsr_ci_low": delta[1], "delta_gsr_ci_high": delta[2], "delta_gsr_p": delta[3],
            "delta_gsr_p_adjusted": delta[4], "relative_gsr_pct": self.relative_gsr, "r": g.r, "r_p_value": g.p_value,
            "intercept": g.intercept,
            "n_queries": g.n_queries, "n_excluded": g.n_excluded,
            "n_evaluated": self.evaluation.n_queries if self.evaluation is not None else 0,
        }

    def to_dict(self) -> dict:
        """JSON-ready summary of this system: the summary columns, its source, exclusions and measures."""
        out = {key: finite_or_none(value) for key, value in self.summary().items()}
        out.update({
            "source": self.source,
            "delta_gsr_decision": self.delta_gsr_decision,
            "excluded": dict(self.gsr.excluded),
            "measures": {} if self.evaluation is None else {k: finite_or_none(v) for k, v in self.evaluation.means.items()},
            "measures_ci": {k: [finite_or_none(float(v)) for v in pair] for k, pair in self.measure_ci.items()},
            "n_queries_missing_from_run": None if self.evaluation is None else self.evaluation.n_missing,
            "evaluation_complete": None if self.evaluation is None else self.evaluation.complete,
            "bias": {} if self.bias is None else self.bias.to_dict(),
            "influence": [{k: finite_or_none(v.item() if hasattr(v, "item") else v) for k, v in row.items()}
                          for row in self.influence.to_dict(orient="records")],
        })
        return out


@dataclass
class AuditResult:
    """Everything an audit found; ``table()`` and ``per_query()`` give DataFrame views, ``to_dict()`` the JSON."""

    systems: dict[str, SystemAudit]
    embeddings: str
    direction: GenderDirection
    depth: str | int
    query_field: str
    counts: dict[str, int] = field(default_factory=dict)
    measures: tuple[str, ...] = DEFAULT_MEASURES
    provenance: dict = field(default_factory=dict)
    warnings: list[AuditWarning] = field(default_factory=list)
    ties: list[dict] = field(default_factory=list)
    bias: BiasSetup | None = None
    inference: Inference = field(default_factory=Inference)
    comparisons: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=list(COMPARISON_COLUMNS)))
    tradeoff: pd.DataFrame | None = None
    values: QueryValues | None = field(default=None, repr=False)  # per-query values of the comparisons (not saved)
    # where the agreement's numbers are kept (the audit's cache, irfair.cache.arrays; not saved, not copied)
    memo: Callable | None = field(default=None, repr=False, compare=False)

    def __setattr__(self, name: str, value) -> None:
        # the tables below are computed once and kept; setting any field (a result built by hand, then edited)
        # forgets them
        self.__dict__.pop("_views", None)
        object.__setattr__(self, name, value)

    def __getstate__(self) -> dict:
        # a copy (copy.deepcopy, pickle) starts without the kept tables: it may be edited before it is shown
        return {k: (None if k == "memo" else v) for k, v in self.__dict__.items() if k != "_views"}

    def _view(self, key: tuple, compute) -> pd.DataFrame:
        """The table ``compute()`` gives, computed on the first call for ``key`` and kept (a copy is returned, so
        that a caller's changes stay its own)."""
        views = self.__dict__.setdefault("_views", {})
        if key not in views:
            views[key] = compute()
        return views[key].copy()

    def __getitem__(self, name: str) -> SystemAudit:
        return self.systems[name]

    @property
    def perfect(self) -> SystemAudit:
        """The perfect run built from the qrels."""
        return self.systems[PERFECT]

    @property
    def audited(self) -> list[SystemAudit]:
        """The user's systems (neither the perfect nor the random run), in the order given."""
        return [a for a in self.systems.values() if a.kind == SYSTEM]

    @property
    def gsr_measured(self) -> bool:
        """Whether GSR (and the bias measures) were measured: False for an audit without a corpus, which reads no
        document and has no gender direction (:mod:`.effectiveness_only`)."""
        return self.direction is not None

    @property
    def letters(self) -> dict[str, str]:
        """A letter per audited system (a, b, ..., z; none beyond 26 systems), for marks of significant
        differences in tables."""
        names = [a.name for a in self.audited]
        return {} if len(names) > 26 else {name: chr(ord("a") + i) for i, name in enumerate(names)}

    def check(self, conditions, alpha: float | None = None, allow_undecided: bool = False) -> list[GateFailure]:
        """The conditions of ``conditions`` (``gsr-above-perfect``, ``gsr-above:bm25``, ``map-below:bm25:0.01``, ...)
        that this audit meets, one :class:`~irfair.audit.gate.GateFailure` per system (:mod:`.gate`), and those it
        could not decide (``undecided`` set, unless ``allow_undecided``); an empty list passes. ``alpha``: default
        the audit's."""
        return check(self, conditions, alpha, allow_undecided)

    @property
    def relative_gsr_note(self) -> str | None:
        """Why relative GSR is n/a for every system (None when it is reported)."""
        return relative_gsr_note(self.perfect.gsr)

    @property
    def query_exclusions(self) -> dict[str, int]:
        """Queries left out of every system's GSR, counted per reason (the perfect run's exclusions)."""
        return dict(self.perfect.gsr.excluded)

    def table(self) -> pd.DataFrame:
        """One row per system (index ``system``): the :data:`SUMMARY_COLUMNS`, then per measure its mean and
        CI (``MAP``, ``MAP_ci_low``, ``MAP_ci_high``), then per bias column its mean and CI (computed once)."""
        return self._view(("table",), self._table)

    def _table(self) -> pd.DataFrame:
        rows = []
        nan = float("nan")
        for audit in self.systems.values():
            row = {"system": audit.name, **audit.summary()}
            for measure in self.measures:
                low, high = audit.measure_ci.get(measure, (nan, nan))
                row |= {measure: audit.evaluation.means[measure] if audit.evaluation else nan,
                        f"{measure}_ci_low": low, f"{measure}_ci_high": high}
            for column in self.bias_columns:
                s = audit.bias.summaries[column] if audit.bias else None
                row |= {column: s.mean, f"{column}_ci_low": s.ci_low, f"{column}_ci_high": s.ci_high} if s else {}
            rows.append(row)
        measures = [f"{c}{suffix}" for c in self.measures for suffix in ("", "_ci_low", "_ci_high")]
        bias = [f"{c}{suffix}" for c in self.bias_columns for suffix in ("", "_ci_low", "_ci_high")]
        return pd.DataFrame(rows, columns=["system", *SUMMARY_COLUMNS, *measures, *bias]).set_index("system")

    @property
    def bias_columns(self) -> tuple[str, ...]:
        """The per-query columns of the ranking-bias measures (``rab_tc@5``, ..., ``texfair@20``)."""
        return () if self.bias is None else tuple(self.bias.columns)

    @property
    def bias_headlines(self) -> tuple[str, ...]:
        """The headline columns of the term-based bias measures (``rab_tc@10``, ..., ``texfair@10``; not GSR's)."""
        measures = () if self.bias is None else self.bias.measures
        return tuple(c for m in measures if m.per_query is not None for c in m.headlines)

    def headlines_of(self, family: str) -> tuple[str, ...]:
        """The headline columns of one family of measures: ``bias`` (what the lists say: RaB, ..., TExFAIR) or
        ``exposure`` (who gets seen: EE-L, AWRF, nDCG × AWRF)."""
        measures = () if self.bias is None else self.bias.measures
        return tuple(c for m in measures if m.per_query is not None and m.family == family for c in m.headlines)

    def bias_table(self) -> pd.DataFrame:
        """One row per system and bias column: mean, CI, queries averaged, undefined, without a gendered word."""
        if self.bias is None:
            return bias_frame({}, BiasSetup((), {}))
        return bias_frame({name: (a.kind, a.bias) for name, a in self.systems.items()}, self.bias)

    def agreement(self, min_systems: int = MIN_AGREEMENT_SYSTEMS) -> pd.DataFrame:
        """Agreement of the bias measures over the audited systems (:mod:`.agreement`), on each measure's
        headline columns (GSR; RaB and ARaB tc@10 and bool@10; NFaiRR@10; TExFAIR@10); no rows with fewer
        than ``min_systems`` audited systems (the ``few_systems`` note says why; computed once)."""
        return self._view(("agreement", min_systems), lambda: self._agreement(min_systems))

    def _agreement(self, min_systems: int) -> pd.DataFrame:
        measures = () if self.bias is None else self.bias.measures
        audited = self.audited
        if len(audited) < min_systems:
            return agreement_table(pd.DataFrame())
        values = {}
        for m in measures:
            for column in m.headlines:
                values[column] = [a.gsr.slope if m.per_query is None else
                                  (a.bias.summaries[column].mean if a.bias else float("nan")) for a in audited]
        frames = [a.bias.per_query[list(self.bias_headlines)] for a in audited if a.bias is not None]
        return agreement_table(pd.DataFrame(values, index=[a.name for a in audited]),
                               pd.concat(frames, ignore_index=True) if frames else None, self.memo)

    def per_query(self) -> pd.DataFrame:
        """Long table: system, qid, query, query_genderedness, list_genderedness, depth, n_docs,
        n_docs_unmeasurable, used, reason, one column per measure, then one per bias column (NaN for
        queries without relevant documents, which the bias measures do not cover; computed once)."""
        return self._view(("per_query",), self._per_query)

    def _per_query(self) -> pd.DataFrame:
        frames = []
        for audit in self.systems.values():
            frame = audit.gsr.per_query.copy()
            frame.insert(0, "system", audit.name)
            qids = pd.Index(frame["qid"])
            # each system's values looked up by qid, column by column as a map would, then joined in one step
            added = {}
            for measure in self.measures:
                values = audit.evaluation.per_query[measure] if audit.evaluation else pd.Series(dtype=float)
                added[measure] = values.reindex(qids).to_numpy()
            bias = audit.bias.per_query.set_index("qid").reindex(qids) if audit.bias else pd.DataFrame()
            for column in self.bias_columns:
                added[column] = bias[column].to_numpy() if column in bias else np.full(len(frame), np.nan)
            frames.append(pd.concat([frame, pd.DataFrame(added, index=frame.index)], axis=1))
        return pd.concat(frames, ignore_index=True)

    def compared(self, measure: str | None = None, *, against: str | None = None, differing: bool = False) -> pd.DataFrame:
        """The comparisons (:data:`~irfair.audit.comparisons.COMPARISON_COLUMNS`) answering one question: those of
        ``measure`` (its family; all measures when None), those with ``against`` as the reference ``b`` (a baseline's
        view), and only those that differ (``differing``: decided "differs" at the audit's α), in their order."""
        frame = self.comparisons
        keep = np.ones(len(frame), dtype=bool)
        if measure is not None:
            keep &= (frame["measure"] == measure).to_numpy()
        if against is not None:
            keep &= (frame["b"] == against).to_numpy()
        if differing:
            keep &= (frame["decision"] == DIFFERS).to_numpy()
        return frame[keep]

    # what is shown of an audit is irfair.presentation's, the layer above this one: loaded by name when first asked for
    def save(self, out_dir, plots: bool = True, html: bool = True) -> list:
        """Write what ``irfair audit --out out_dir`` writes; returns the files written."""
        return _presentation().save_audit(self, out_dir, plots=plots, html=html)

    def to_text(self, wide: bool = False) -> str:
        """What ``irfair audit`` prints (``wide``: as ``--wide``)."""
        return _presentation().to_text(self, wide)

    def to_markdown(self) -> str:
        """The summary and comparisons as ``--format markdown`` prints them."""
        return _presentation().format_markdown(self)

    def to_latex(self, wide: bool = False, label: str = "tab:irfair-audit") -> str:
        """The booktabs table ``--format latex`` prints (``wide``: a ``table*`` with every measure's CI)."""
        return _presentation().format_latex(self, wide, label)

    def _repr_html_(self) -> str:
        """A notebook's view: the verdict's sentences and table, as report.html opens."""
        return _presentation().repr_html(self)

    def to_dict(self) -> dict:
        """JSON-ready summary (the schema is ``irfair/data/audit.schema.json``)."""
        direction = self.direction
        return {
            "schema": "irfair-audit/2",
            "provenance": self.provenance,
            "embeddings": self.embeddings,
            "gender_direction": None if direction is None else {
                "explained_variance_ratio": finite_or_none(float(direction.explained_variance_ratio)),
                "pairs_used": [list(p) for p in direction.pairs_used],
                "pairs_missing": [list(p) for p in direction.pairs_missing],
            },
            "depth": self.depth,
            "query_field": self.query_field,
            "measures": list(self.measures),
            "counts": dict(self.counts),
            "query_exclusions": self.query_exclusions,
            "relative_gsr_note": self.relative_gsr_note,
            "inference": self.inference.to_dict(),
            "warnings": [w.to_dict() for w in self.warnings],
            "ties": list(self.ties),
            "systems": {name: audit.to_dict() for name, audit in self.systems.items()},
            "bias_measures": {} if self.bias is None else self.bias.to_dict(),
            "agreement": [{k: finite_or_none(v) if isinstance(v, float) else v for k, v in row.items()}
                          for row in self.agreement().to_dict(orient="records")],
            "comparisons": comparison_records(self.comparisons),
            "tradeoff": None if self.tradeoff is None else {
                "measure": self.measures[0] if self.measures else None,
                "systems": {name: {"gsr": finite_or_none(float(r.gsr)), "measure": finite_or_none(float(r.measure)),
                                   "on_front": bool(r.on_front), "front_share": finite_or_none(float(r.front_share))}
                            for name, r in self.tradeoff.iterrows()},
                "n_queries": int(self.tradeoff["n_queries"].iloc[0]) if len(self.tradeoff) else 0,
            },
        }


def _presentation():
    """:mod:`irfair.presentation`, imported by name: it sits above the audit and renders its result."""
    import importlib

    return importlib.import_module("irfair.presentation")


def audit_schema() -> dict:
    """The JSON Schema of ``audit.json`` shipped with irfair (``irfair/data/audit.schema.json``)."""
    import json
    from importlib import resources

    return json.loads(resources.files("irfair").joinpath("data/audit.schema.json").read_text(encoding="utf-8"))
