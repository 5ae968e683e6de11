"""A gate for scripts and CI: conditions an audit must not meet (``irfair audit --fail-on``, ``result.check``).

A condition is ``<measure>-<above|below>-perfect`` or ``<measure>-<above|below>:<system>[:<margin>]``:

* ``gsr-above-perfect`` — some audited system's GSR is significantly above the perfect run's (its ΔGSR test
  decides "differs", ΔGSR > 0); ``gsr-below-perfect`` the other way. Only GSR is compared with the perfect run.
* ``gsr-above:bm25`` — some other audited system has significantly higher GSR than ``bm25`` (the pairwise
  comparison decides "differs"); ``map-below:bm25`` significantly lower MAP. Any measure of the comparisons
  can be named: ``gsr``, an effectiveness measure (``map``, ``ndcg@100``; case does not matter) or a bias
  column (``rab_tc@10``, ``nfairr@10``).
* ``map-below:bm25:0.01`` — a margin (non-inferiority): MAP may be lower than bm25's, but not significantly by
  more than 0.01: the pair is tested against bm25's per-query values shifted by the margin (for GSR, bm25's
  g_q(L) shifted by margin · g(q), which shifts its GSR by the margin).

Each condition met by a system is one :class:`GateFailure`. A comparison that could not decide (undecided
within its Monte-Carlo error, unable to reach α with these queries or permutations, not compared), no test at
all (``--permutations 0``), or an audit whose qrels do not fit its runs, that has too few queries or too few
permutations for its families (``qrels_mismatch``, ``few_queries``, ``few_permutations``) is a GateFailure too,
marked ``undecided`` with its reason: a gate that could not decide never passes, unless ``allow_undecided``.
None means the audit passes.
"""
from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..bounds import checked
from ..errors import IrfairInputError
from ..measures.resampling import CANNOT_DIFFER, DIFFERS, MAX_ROUNDS, NO_DIFFERENCE, NOT_COMPARED, UNDECIDED, rejects
from ..numbers import fixed
from .kinds import SYSTEM

PERFECT_SUFFIX = "-perfect"
CONDITION = re.compile(r"^(?P<measure>.+?)-(?P<direction>above|below)"
                       r"(?:(?P<perfect>-perfect)|:(?P<system>.+?)(?::(?P<margin>[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?))?)$")
CONDITION_HELP = ("gsr-above-perfect, gsr-below-perfect, <measure>-above:<system> or <measure>-below:<system>, "
                  "optionally with :<margin>")
# warnings whose audits cannot decide a gate: the numbers are not about these runs, or rest on too few queries
UNDECIDING_WARNINGS = ("qrels_mismatch", "few_queries", "few_permutations")


@dataclass(frozen=True)
class Condition:
    """A parsed condition: the measure as written, ``above``/``below``, and the system compared with (None:
    the perfect run)."""

    text: str
    measure: str
    direction: str
    reference: str | None
    margin: float = 0.0


def parse_condition(text: str) -> Condition:
    """Parse one condition (see the module docstring); IrfairInputError when it has none of the forms."""
    found = CONDITION.match(text.strip())
    if not found:
        raise IrfairInputError(None, None, f"expected a condition such as {CONDITION_HELP}, not {text!r}")
    margin = float(found["margin"]) if found["margin"] else 0.0
    if not math.isfinite(margin):
        raise IrfairInputError(None, None, f"{text}: the margin must be a finite number >= 0")
    return Condition(text.strip(), found["measure"], found["direction"], None if found["perfect"] else found["system"], margin)


@dataclass(frozen=True)
class GateFailure:
    """One system meeting one condition: the difference system − reference on the measure, its adjusted p; or,
    with ``undecided`` (the reason), one comparison the condition needed that could not decide."""

    condition: str
    system: str
    reference: str
    measure: str
    direction: str
    delta: float
    p_adjusted: float
    alpha: float
    undecided: str | None = None

    def line(self) -> str:
        """The verdict line printed for it (the reference is named by the condition, so the line stays short)."""
        system = self.system if len(self.system) <= 48 else self.system[:47] + "~"  # the line stays within 100 columns
        if self.undecided is not None:
            return f"undecided {self.condition}: {system} against {self.reference}: {self.undecided}"
        return (f"fail {self.condition}: {system}'s {self.measure} is significantly "
                f"{'higher' if self.direction == 'above' else 'lower'} (delta {fixed(self.delta, sign=True)}, "
                f"p_adjusted {self.p_adjusted:.4f} < {self.alpha:g})")


def check(result, conditions: Iterable[str | Condition], alpha: float | None = None,
          allow_undecided: bool = False) -> list[GateFailure]:
    """Every (condition, system) of ``conditions`` that ``result`` (an :class:`~irfair.audit.result.AuditResult`)
    meets, at ``alpha`` (default: the audit's), and every comparison a condition needed that could not decide
    (``undecided`` set; left out with ``allow_undecided``). Raises IrfairInputError for an unknown measure or
    system, or a pair the audit did not compare (``--baseline``)."""
    alpha = result.inference.alpha if alpha is None else checked("alpha", alpha)
    if isinstance(conditions, (str, Condition)):
        conditions = [conditions]
    try:
        conditions = list(conditions)
    except TypeError:
        raise IrfairInputError(None, None, f"conditions={conditions!r}: expected a condition such as 'map-below:bm25', "
                                           "or a list of them") from None
    for condition in conditions:
        if not isinstance(condition, (str, Condition)):
            raise IrfairInputError(None, None, f"condition {condition!r}: expected text such as 'map-below:bm25' or 'gsr-above-perfect'")
    failures = []
    for condition in conditions:
        parsed = condition if isinstance(condition, Condition) else parse_condition(condition)
        failures += _check_one(result, parsed, alpha)
    return [f for f in failures if f.undecided is None] if allow_undecided else failures


def _audit_reason(result) -> str | None:
    """Why no condition of this audit can be decided, whatever its comparisons say (None: they can be)."""
    if result.inference.n_permutations == 0:
        return "no test was run (--permutations 0)"
    found = [w.kind for w in result.warnings if w.kind in UNDECIDING_WARNINGS]
    return f"the audit warns {', '.join(found)}" if found else None


def _undecided_why(measure: str, n_permutations: int, p_se: float, budget: int) -> str:
    """Why a comparison is undecided: its p still within its Monte-Carlo error of α after the most rounds of
    permutations, or (a mean, stable before them) only the randomization test rejecting, not its skew-corrected
    form (:func:`~irfair.measures.resampling.decide`)."""
    if measure == "gsr" or (p_se > 0 and n_permutations >= MAX_ROUNDS * budget):
        return "undecided: p lies within its Monte-Carlo error of alpha at the most permutations"
    return "undecided: the differences are skewed: the skew-corrected test does not reject"


def _outcome(condition: Condition, system: str, reference: str, measure: str, delta: float, p_adjusted: float,
             decision: str | None, alpha: float, audit_reason: str | None, audit_alpha: float | None = None,
             why: str | None = None) -> GateFailure | None:
    """The failure, undecided item or pass (None) of one comparison for ``condition``. The decision was made at the
    audit's α (``audit_alpha``); at another α it is read from the adjusted p (its Monte-Carlo error not checked again)."""
    if audit_alpha is not None and alpha != audit_alpha and decision in (DIFFERS, NO_DIFFERENCE, UNDECIDED, CANNOT_DIFFER):
        decision = DIFFERS if rejects(p_adjusted, alpha) else NO_DIFFERENCE
    undecided = audit_reason or {UNDECIDED: why or "undecided: p lies within its Monte-Carlo error of alpha at the most "
                                             "permutations",
                                 CANNOT_DIFFER: "cannot differ: too few queries or permutations for any p to reach alpha",
                                 NOT_COMPARED: "not compared: no query both systems have"}.get(decision)
    if undecided is not None:
        return GateFailure(condition.text, system, reference, measure, condition.direction, delta, p_adjusted, alpha, undecided)
    if decision == DIFFERS and math.isfinite(delta) and _sign(condition.direction) * delta > 0:
        return GateFailure(condition.text, system, reference, measure, condition.direction, delta, p_adjusted, alpha)
    return None


def _sign(direction: str) -> float:
    return 1.0 if direction == "above" else -1.0


def _check_one(result, condition: Condition, alpha: float) -> list[GateFailure]:
    measure = _measure(result, condition)
    systems = [a for a in result.systems.values() if a.kind == SYSTEM]
    reason = _audit_reason(result)
    if condition.reference is None:
        if measure != "gsr":
            raise IrfairInputError(None, None, f"{condition.text}: only gsr is compared with the perfect run")
        if condition.margin:
            raise IrfairInputError(None, None, f"{condition.text}: a margin is for a comparison with a system")
        found = [_outcome(condition, a.name, "the perfect run", measure, a.summary()["delta_gsr"], a.delta_gsr_p_adjusted,
                          a.delta_gsr_decision, alpha, reason, result.inference.alpha) for a in systems]
        return [f for f in found if f is not None]
    reference = condition.reference
    names = [a.name for a in systems]
    if reference not in names:
        raise IrfairInputError(None, None, f"{condition.text}: {reference!r} is not an audited system (systems: {', '.join(names)})")
    if condition.margin:
        return _check_margin(result, condition, measure, [n for n in names if n != reference], alpha, reason)
    rows = result.compared(measure)
    audit_alpha = result.inference.alpha
    if measure != "gsr" and alpha != audit_alpha:  # a mean's decision asks its skew-corrected test too: decided again
        rows, audit_alpha = _decided_again(result, measure, rows, alpha), None
    failures = []
    for name in names:
        if name == reference:
            continue
        forward = rows[(rows["a"] == name) & (rows["b"] == reference)]
        backward = rows[(rows["a"] == reference) & (rows["b"] == name)]
        if forward.empty and backward.empty:
            raise IrfairInputError(None, None, f"{condition.text}: the audit did not compare {name} with {reference} "
                                               f"(--baseline {result.inference.baseline})")
        row = forward.iloc[0] if not forward.empty else backward.iloc[0]
        delta = float(row["delta"]) if not forward.empty else -float(row["delta"])
        why = row["why"] if "why" in row.index else _undecided_why(measure, int(row["n_permutations"]), float(row["p_se"]),
                                                                    result.inference.n_permutations)
        found = _outcome(condition, name, reference, measure, delta, float(row["p_adjusted"]), row["decision"], alpha, reason,
                         audit_alpha, why)
        if found is not None:
            failures.append(found)
    return failures


def _decided_again(result, measure: str, rows, alpha: float):
    """The comparisons ``rows`` of a mean measure (its whole family) decided again at ``alpha``, both of its tests
    (:func:`~irfair.audit.comparisons.decide_family`): ``p_adjusted`` and ``decision`` replaced. Without the
    per-query values the decisions cannot be made again: each comparison is then *undecided*."""
    from ..measures.resampling import paired_mean_tests
    from .comparisons import decide_family

    rows = rows.copy()
    values = result.values
    if values is None or result.inference.n_permutations <= 0:
        rows["decision"] = np.where(rows["decision"] == NOT_COMPARED, NOT_COMPARED, UNDECIDED)
        rows["why"] = (f"undecided: a decision at alpha {alpha} (the audit's: {result.inference.alpha}) asks the "
                       "skew-corrected test again, which needs the audit's per-query values")
        return rows
    inference = dataclasses.replace(result.inference, alpha=alpha)
    tests = paired_mean_tests(values.values[measure][values.rows(list(rows["a"]))],
                              values.values[measure][values.rows(list(rows["b"]))], n_bootstrap=0,
                              n_permutations=inference.n_permutations, seed=inference.seed, p_values=False)
    decided = decide_family(tests, inference)
    rows["p_adjusted"], rows["decision"] = decided.p_adjusted, decided.decision
    rows["n_permutations"], rows["p_se"] = decided.n_permutations, decided.p_se
    return rows


def _check_margin(result, condition: Condition, measure: str, names: list[str], alpha: float, reason: str | None) -> list[GateFailure]:
    """``<measure>-below:<reference>:<margin>``: each system against the reference's values moved by the margin in the
    condition's direction (below: down, above: up), the systems one family; a failure only beyond the margin."""
    from ..measures.resampling import paired_mean_tests, paired_slope_tests
    from .comparisons import GSR, decide_family

    values = result.values
    if values is None:
        raise IrfairInputError(None, None, f"{condition.text}: this audit result keeps no per-query values for a margin")
    rows, reference = values.rows(names), values.rows([condition.reference])
    shift = _sign(condition.direction) * condition.margin
    inference = result.inference
    settings = {"n_bootstrap": 0, "n_permutations": inference.n_permutations, "seed": inference.seed, "p_values": False}
    if measure == GSR:
        moved = values.values[GSR][reference] + shift * values.query_genderedness[None, :]
        tests = paired_slope_tests(values.query_genderedness, values.values[GSR][rows], np.repeat(moved, len(rows), axis=0), **settings)
    else:
        moved = values.values[measure][reference] + shift
        tests = paired_mean_tests(values.values[measure][rows], np.repeat(moved, len(rows), axis=0), **settings)
    decided = (decide_family(tests, dataclasses.replace(inference, alpha=alpha)) if inference.n_permutations > 0
               else None)  # at the alpha asked (a margin is always decided here, from the per-query values)
    failures = []
    for i, name in enumerate(names):
        decision = None if decided is None else decided.decision[i]
        p_adjusted = float("nan") if decided is None else float(decided.p_adjusted[i])
        why = None if decided is None else _undecided_why(measure, int(decided.n_permutations[i]), float(decided.p_se[i]),
                                                          inference.n_permutations)
        found = _outcome(condition, name, condition.reference, measure, float(tests.delta[i]), p_adjusted, decision, alpha,
                         reason, why=why)
        if found is not None:  # decided beyond the margin; the line gives the difference itself
            failures.append(dataclasses.replace(found, delta=float(tests.delta[i]) + shift))
    return failures


def _measure(result, condition: Condition) -> str:
    """The comparisons' name of the condition's measure (matched ignoring case)."""
    if condition.measure.lower() == "gsr" and not result.gsr_measured:  # an audit without a corpus
        raise IrfairInputError(None, None, f"{condition.text}: GSR is not measured without a corpus (it reads the documents)")
    known = ["gsr", *result.measures, *result.bias_columns]
    by_case = {m.lower(): m for m in known}
    found = by_case.get(condition.measure.lower())
    if found is None:
        hint = _unaudited_bias_measure(condition.measure)
        raise IrfairInputError(None, None, f"{condition.text}: unknown measure {condition.measure!r} " + (
            hint or f"(audited: {_listed(['gsr', *result.measures], result.bias_columns)})"))
    return found


def _unaudited_bias_measure(name: str) -> str | None:
    """``(ee is not audited: add it to --bias-measures)`` when ``name`` is a column of a bias measure left out."""
    from ..measures.ranking_bias import BIAS_MEASURES

    stem = name.lower().rsplit("@", 1)[0]
    for measure in BIAS_MEASURES.values():
        if stem == measure.name or stem.startswith(measure.name + "_"):
            return f"({measure.name} is not audited: add it to --bias-measures)"
    return None


def _listed(measures: list[str], bias_columns: list[str]) -> str:
    """Measure names for a message, the bias measures' once with their cut-offs when every one has each:
    ``gsr, MAP; rab_tc, nfairr at @5, @10``."""
    names = list(dict.fromkeys(column.rsplit("@", 1)[0] for column in bias_columns))
    cuts = list(dict.fromkeys(column.rsplit("@", 1)[1] for column in bias_columns if "@" in column))
    if not bias_columns or {f"{n}@{k}" for n in names for k in cuts} != set(bias_columns):
        return ", ".join([*measures, *bias_columns])
    return f"{', '.join(measures)}; {', '.join(names)} at @{', @'.join(cuts)}"
