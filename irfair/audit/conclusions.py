"""From per-system results to conclusions: every row's ΔGSR to the perfect run with its corrected p, the
CIs of the effectiveness means, each system's most influential queries, the pairwise comparisons and the
GSR–effectiveness trade-off — all from one :class:`~.comparisons.QueryValues` matrix, so every resample
(:mod:`irfair.measures.resampling`) is drawn over the same query positions."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..cache.arrays import ArraysMemo
from ..measures.gsr import PairedGSRTest
from ..measures.resampling import mean_cis
from .comparisons import GSR, Inference, QueryValues, compare_to_reference, decide_family, pairwise, query_values
from .influence import influence
from .kinds import SYSTEM
from .result import PERFECT, SystemAudit
from .tradeoff import tradeoff


@dataclasses.dataclass(frozen=True)
class Conclusions:
    """The systems with ΔGSR, measure CIs and influence filled in; the comparisons; the trade-off."""

    systems: dict[str, SystemAudit]
    comparisons: pd.DataFrame
    tradeoff: pd.DataFrame | None
    values: QueryValues


def audit_values(systems: dict[str, SystemAudit], qids: Sequence[str], measures: Sequence[str],
                 bias_columns: Sequence[str]) -> QueryValues:
    """Per-query values of every row: g_q(L) of the queries it uses (``gsr``), each effectiveness measure
    (trec_eval's per-query values) and each bias column."""
    perfect = systems[PERFECT].gsr.per_query.set_index("qid")
    per_system = {}
    for name, audit in systems.items():
        table = audit.gsr.per_query.set_index("qid")
        columns = {GSR: table["list_genderedness"].where(table["used"])}
        for measure in measures:
            columns[measure] = audit.evaluation.per_query[measure] if audit.evaluation is not None else pd.Series(dtype=float)
        bias = audit.bias.per_query.set_index("qid") if audit.bias is not None else pd.DataFrame()
        for column in bias_columns:
            columns[column] = bias[column] if column in bias else pd.Series(dtype=float)
        per_system[name] = columns
    return query_values(qids, per_system, perfect["query_genderedness"])


def conclude(systems: dict[str, SystemAudit], qids: Sequence[str], measures: Sequence[str], bias_columns: Sequence[str],
             inference: Inference, memo: ArraysMemo | None = None) -> Conclusions:
    """Everything beyond each system's own numbers (see the module docstring); the comparisons kept in ``memo`` (the
    audit's cache, :func:`irfair.cache.arrays.arrays_memo`) when there is one."""
    values = audit_values(systems, qids, measures, bias_columns)
    names = list(systems)
    others = [n for n in names if n != PERFECT]
    updated = dict(systems)
    if others:
        # the audited systems are one family, the random run a family of its own: each is tested, corrected and given
        # its simultaneous interval on its own
        audited = [n for n in others if systems[n].kind == SYSTEM]
        for family in [audited, *([n] for n in others if systems[n].kind != SYSTEM)]:
            if not family:
                continue
            tests = compare_to_reference(values, family, PERFECT, inference)
            decided = decide_family(tests, inference)
            for i, name in enumerate(family):
                vs = PairedGSRTest(float(tests.delta[i]), float(tests.ci_low[i]), float(tests.ci_high[i]), float(decided.p[i]),
                                   int(tests.n_queries[i]), float(tests.wide_low[i]), float(tests.wide_high[i]))
                updated[name] = dataclasses.replace(systems[name], vs_perfect=vs, delta_gsr_p_adjusted=float(decided.p_adjusted[i]),
                                                    delta_gsr_decision=decided.decision[i])
    rows = values.rows(names)
    for measure in measures:
        cis = mean_cis(values.values[measure][rows], inference.n_bootstrap, inference.seed)
        for i, name in enumerate(names):
            ci = updated[name].measure_ci | {measure: (float(cis.ci_low[i]), float(cis.ci_high[i]))}
            updated[name] = dataclasses.replace(updated[name], measure_ci=ci)
    for name in names:
        updated[name] = dataclasses.replace(updated[name], influence=influence(updated[name].gsr))
    user = [n for n in names if systems[n].kind == SYSTEM]
    comparisons = pairwise(values, user, inference, memo)
    frontier = None
    if measures and user:
        first = measures[0]
        frontier = tradeoff(values, user, first, [systems[n].gsr.slope for n in user],
                            [systems[n].evaluation.means[first] if systems[n].evaluation else np.nan for n in user], inference)
    return Conclusions(updated, comparisons, frontier, values)
