"""A gate for scripts and CI: conditions an audit must not meet (``irfair audit --fail-on``, ``result.check``).

A condition is ``<measure>-<above|below>-perfect`` or ``<measure>-<above|below>:<system>``:

* ``gsr-above-perfect`` — some audited system's GSR is significantly above the perfect run's (ΔGSR > 0 with
  adjusted p < α); ``gsr-below-perfect`` the other way. Only GSR is compared with the perfect run.
* ``gsr-above:bm25`` — some other audited system has significantly higher GSR than ``bm25`` (the pairwise
  comparison's adjusted p < α); ``map-below:bm25`` significantly lower MAP. Any measure of the comparisons
  can be named: ``gsr``, an effectiveness measure (``map``, ``ndcg@100``; case does not matter) or a bias
  column (``rab_tc@10``, ``nfairr@10``).

Each condition met by a system is one :class:`GateFailure`; none means the audit passes.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..bounds import checked
from ..errors import IrfairInputError
from ..numbers import fixed

PERFECT_SUFFIX = "-perfect"
CONDITION = re.compile(r"^(?P<measure>.+?)-(?P<direction>above|below)(?:(?P<perfect>-perfect)|:(?P<system>.+))$")
CONDITION_HELP = "gsr-above-perfect, gsr-below-perfect, <measure>-above:<system> or <measure>-below:<system>"


@dataclass(frozen=True)
class Condition:
    """A parsed condition: the measure as written, ``above``/``below``, and the system compared with (None:
    the perfect run)."""

    text: str
    measure: str
    direction: str
    reference: str | None


def parse_condition(text: str) -> Condition:
    """Parse one condition (see the module docstring); IrfairInputError when it has none of the forms."""
    found = CONDITION.match(text.strip())
    if not found:
        raise IrfairInputError(None, None, f"expected a condition such as {CONDITION_HELP}, not {text!r}")
    return Condition(text.strip(), found["measure"], found["direction"], None if found["perfect"] else found["system"])


@dataclass(frozen=True)
class GateFailure:
    """One system meeting one condition: the difference system − reference on the measure, its adjusted p."""

    condition: str
    system: str
    reference: str
    measure: str
    direction: str
    delta: float
    p_adjusted: float
    alpha: float

    def line(self) -> str:
        """The verdict line printed for it (the reference is named by the condition, so the line stays short)."""
        system = self.system if len(self.system) <= 48 else self.system[:47] + "~"  # the line stays within 100 columns
        return (f"fail {self.condition}: {system}'s {self.measure} is significantly "
                f"{'higher' if self.direction == 'above' else 'lower'} (delta {fixed(self.delta, sign=True)}, "
                f"p_adjusted {self.p_adjusted:.4f} < {self.alpha:g})")


def check(result, conditions: Iterable[str | Condition], alpha: float | None = None) -> list[GateFailure]:
    """Every (condition, system) of ``conditions`` that ``result`` (an :class:`~irfair.audit.result.AuditResult`)
    meets, at ``alpha`` (default: the audit's). Raises IrfairInputError for an unknown measure or system,
    or a pair the audit did not compare (``--baseline``)."""
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
    return failures


def _sign(direction: str) -> float:
    return 1.0 if direction == "above" else -1.0


def _significant(delta: float, p_adjusted: float, direction: str, alpha: float) -> bool:
    return math.isfinite(delta) and math.isfinite(p_adjusted) and p_adjusted < alpha and _sign(direction) * delta > 0


def _check_one(result, condition: Condition, alpha: float) -> list[GateFailure]:
    measure = _measure(result, condition)
    systems = [a for a in result.systems.values() if a.kind == "system"]
    if condition.reference is None:
        if measure != "gsr":
            raise IrfairInputError(None, None, f"{condition.text}: only gsr is compared with the perfect run")
        return [GateFailure(condition.text, a.name, "the perfect run", measure, condition.direction, a.summary()["delta_gsr"],
                            a.delta_gsr_p_adjusted, alpha)
                for a in systems if _significant(a.summary()["delta_gsr"], a.delta_gsr_p_adjusted, condition.direction, alpha)]
    reference = condition.reference
    names = [a.name for a in systems]
    if reference not in names:
        raise IrfairInputError(None, None, f"{condition.text}: {reference!r} is not an audited system (systems: {', '.join(names)})")
    rows = result.comparisons[result.comparisons["measure"] == measure]
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
        if _significant(delta, float(row["p_adjusted"]), condition.direction, alpha):
            failures.append(GateFailure(condition.text, name, reference, measure, condition.direction, delta, float(row["p_adjusted"]),
                                        alpha))
    return failures


def _measure(result, condition: Condition) -> str:
    """The comparisons' name of the condition's measure (matched ignoring case)."""
    known = ["gsr", *result.measures, *result.bias_columns]
    by_case = {m.lower(): m for m in known}
    found = by_case.get(condition.measure.lower())
    if found is None:
        raise IrfairInputError(None, None, f"{condition.text}: unknown measure {condition.measure!r} "
                                           f"(audited: {_listed(['gsr', *result.measures], result.bias_columns)})")
    return found


def _listed(measures: list[str], bias_columns: list[str]) -> str:
    """Measure names for a message, the bias measures' once with their cut-offs when every one has each:
    ``gsr, MAP; rab_tc, nfairr at @5, @10``."""
    names = list(dict.fromkeys(column.rsplit("@", 1)[0] for column in bias_columns))
    cuts = list(dict.fromkeys(column.rsplit("@", 1)[1] for column in bias_columns if "@" in column))
    if not bias_columns or {f"{n}@{k}" for n in names for k in cuts} != set(bias_columns):
        return ", ".join([*measures, *bias_columns])
    return f"{', '.join(measures)}; {', '.join(names)} at @{', @'.join(cuts)}"
