"""What an audit found: one :class:`SystemAudit` per system and the :class:`AuditResult` that holds them,
with DataFrame and JSON views. Reports read these objects; they never call back into the audit."""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from ..gender.direction import GenderDirection
from ..measures.effectiveness import DEFAULT_MEASURES, EvaluationResult
from ..measures.gsr import GSRResult, PairedGSRTest
from ..numbers import finite_or_none

PERFECT = "perfect"
RANDOM = "random"


@dataclass
class SystemAudit:
    """One audited system: its GSR, relative GSR and paired test against the perfect run, effectiveness."""

    name: str
    kind: str
    gsr: GSRResult
    relative_gsr: float
    vs_perfect: PairedGSRTest | None
    evaluation: EvaluationResult | None
    source: str | None = None

    def to_dict(self) -> dict:
        """JSON-ready summary of this system."""
        g = self.gsr
        vs = self.vs_perfect
        return {
            "kind": self.kind,
            "source": self.source,
            "gsr": finite_or_none(g.slope),
            "intercept": finite_or_none(g.intercept),
            "r": finite_or_none(g.r),
            "p_value": finite_or_none(g.p_value),
            "ci95": [finite_or_none(g.ci_low), finite_or_none(g.ci_high)],
            "relative_gsr": finite_or_none(self.relative_gsr),
            "vs_perfect": None if vs is None else {
                "difference": finite_or_none(vs.difference),
                "ci95": [finite_or_none(vs.ci_low), finite_or_none(vs.ci_high)],
                "p_value": finite_or_none(vs.p_value),
                "n_queries": vs.n_queries,
            },
            "n_queries": g.n_queries,
            "n_excluded": g.n_excluded,
            "excluded": g.excluded,
            "measures": {} if self.evaluation is None else {k: finite_or_none(v) for k, v in self.evaluation.means.items()},
            "queries_missing_from_run": None if self.evaluation is None else self.evaluation.n_missing,
            "n_evaluated": None if self.evaluation is None else self.evaluation.n_queries,
            "evaluation_complete": None if self.evaluation is None else self.evaluation.complete,
        }


@dataclass
class AuditResult:
    """Everything an audit found; ``table()`` and ``per_query()`` give DataFrame views."""

    systems: dict[str, SystemAudit]
    embeddings: str
    direction: GenderDirection
    depth: str | int
    query_field: str
    counts: dict[str, int] = field(default_factory=dict)
    measures: tuple[str, ...] = DEFAULT_MEASURES

    def __getitem__(self, name: str) -> SystemAudit:
        return self.systems[name]

    @property
    def perfect(self) -> SystemAudit:
        """The perfect run built from the qrels."""
        return self.systems[PERFECT]

    def table(self) -> pd.DataFrame:
        """One row per system: GSR, CI, relative GSR, paired p vs perfect, r, queries used (and excluded) by GSR,
        queries evaluated by the measures (trec_eval's ``num_q``), measures."""
        rows = []
        for audit in self.systems.values():
            g = audit.gsr
            row = {
                "system": audit.name,
                "GSR": g.slope,
                "CI low": g.ci_low,
                "CI high": g.ci_high,
                "rel. GSR": audit.relative_gsr,
                "p vs perfect": audit.vs_perfect.p_value if audit.vs_perfect else float("nan"),
                "r": g.r,
                "queries": g.n_queries,
                "excluded": g.n_excluded,
                "evaluated": audit.evaluation.n_queries if audit.evaluation else 0,
            }
            for measure in self.measures:
                row[measure] = audit.evaluation.means[measure] if audit.evaluation else float("nan")
            rows.append(row)
        return pd.DataFrame(rows).set_index("system")

    def per_query(self) -> pd.DataFrame:
        """Long table: system, qid, query, g(q), g_q(L), K, used, reason and each measure."""
        frames = []
        for audit in self.systems.values():
            frame = audit.gsr.per_query.copy()
            frame.insert(0, "system", audit.name)
            for measure in self.measures:
                values = audit.evaluation.per_query[measure] if audit.evaluation else pd.Series(dtype=float)
                frame[measure] = frame["qid"].map(values)
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)

    def to_dict(self) -> dict:
        """JSON-ready summary."""
        return {
            "embeddings": self.embeddings,
            "gender_direction": {
                "explained_variance_ratio": self.direction.explained_variance_ratio,
                "pairs_used": [list(p) for p in self.direction.pairs_used],
                "pairs_missing": [list(p) for p in self.direction.pairs_missing],
            },
            "depth": self.depth,
            "query_field": self.query_field,
            "counts": self.counts,
            "systems": {name: audit.to_dict() for name, audit in self.systems.items()},
        }
