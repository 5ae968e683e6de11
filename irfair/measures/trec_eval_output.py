"""An evaluation printed as ``trec_eval -q`` prints it (trec_eval 10's ``meas_print_single.c``,
``meas_print_final.c``): ``label<TAB>qid<TAB>value``, the label left-aligned in 22 columns, doubles with 4
decimals, counts as integers, relstring quoted.

Per query (in trec_eval's query order: qids compared as strings), every measure trec_eval prints per query
(not ``runid``, ``num_q``, ``gm_map``, ``gm_bpref``), then the summary over ``all`` (not ``relstring``).
trec_eval's measures are printed in trec_eval's order (its measure table, cut-offs ascending), whatever order
they were asked in; ir_measures' measures follow, in the order given.
"""
from __future__ import annotations

import math

from .trec_eval_measures import TrecEvalMeasure, print_order


def _value(measure: object, value: float) -> str:
    if isinstance(measure, TrecEvalMeasure):
        count = measure.kind.value == "count"
    else:
        count = getattr(measure, "NAME", "").startswith("Num")
    if count and math.isfinite(value) and float(value).is_integer():
        return str(int(value))
    return f"{value:6.4f}"


def _line(label: str, qid: str, text: str) -> str:
    return f"{label:<22}\t{qid}\t{text}"


def print_order_of(measures: dict[str, object]) -> list[str]:
    """Labels in trec_eval's printing order: its own measures by its table, then the others as given."""
    own = [label for label, m in measures.items() if isinstance(m, TrecEvalMeasure)]
    own.sort(key=lambda label: print_order(measures[label]))
    return own + [label for label, m in measures.items() if not isinstance(m, TrecEvalMeasure)]


def trec_eval_lines(result, per_query: bool = True) -> list[str]:
    """The lines of ``trec_eval -q`` (``per_query``) or ``trec_eval`` for an
    :class:`~irfair.measures.effectiveness.EvaluationResult`."""
    measures = result.measures or {label: None for label in result.per_query.columns}
    order = print_order_of(measures)
    lines = []
    if per_query:
        table = result.per_query
        for qid in sorted(map(str, table.index)):
            for label in order:
                measure = measures[label]
                if isinstance(measure, TrecEvalMeasure):
                    if measure.kind.value == "string":
                        lines.append(_line(label, qid, f"'{result.strings[label][qid]}'"))
                        continue
                    if not measure.kind.per_query:
                        continue
                lines.append(_line(label, qid, _value(measure, float(table.at[qid, label]))))
    for label in order:
        measure = measures[label]
        if isinstance(measure, TrecEvalMeasure):
            if measure.kind.value == "runid":
                lines.append(_line("runid", "all", str(result.run_id or result.system)))
                continue
            if measure.kind.summary == "none":
                continue
        lines.append(_line(label, "all", _value(measure, result.means[label])))
    return lines
