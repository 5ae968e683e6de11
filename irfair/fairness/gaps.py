"""Statistical and causal group gaps (Chen, Ji & Evans, "Addressing Both Statistical and Causal Gender
Fairness in NLP Models", NAACL Findings 2024, §3).

For class c and group g: PPR_{g,c} = P(ŷ = c | G = g), TPR_{g,c} = P(ŷ = c | y = c, G = g),
FPR_{g,c} = P(ŷ = c | y ≠ c, G = g). The gap of class c is rate(protected) − rate(reference) and
GapRMS = sqrt(mean over classes of gap²). The direction is explicit: ``protected_group`` and
``reference_group``; by default, when the two group values are recognisable as female and male
(female/male, f/m, woman/man, women/men, she/he, girl/boy, w/m; any case), female − male as in the
paper; otherwise the first minus the second in sorted order. ``GroupGaps.direction`` says which.

A group column with more than two values (race in UCI Adult: five) gives :class:`MultiGroupGaps`
(:func:`statistical_gaps_by_group`): every value's rates, every value's gaps against one reference
group (by default the largest, most rows; ties in sorted order), their GapRMS, and the spread
max − min over the values of each rate, fairlearn's ``difference()`` between groups.

Causal gaps evaluate every example under do(G = protected) and do(G = reference): the prediction on the
original text for the example's own group and on its counterfactual (gender-swapped) text for the other.
The gap of class c is the mean over examples of 1(ŷ_do(protected) = c) − 1(ŷ_do(reference) = c): over all
examples (PPR), over those with y = c (TPR), over those with y ≠ c (FPR).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import _checks
from .rates import RATE_BASES, group_rates

METRICS = ("PPR", "TPR", "FPR")

_FEMALE = frozenset("female f woman women she girl girls w".split())
_MALE = frozenset("male m man men he boy boys".split())


@dataclass(frozen=True)
class GroupGaps:
    """Rates per group and class, gaps per class (protected − reference) and GapRMS per metric,
    fairlearn-style. ``groups`` is (protected, reference); ``direction`` says how it was chosen."""

    kind: str
    groups: tuple[object, object]
    rates: pd.DataFrame
    gaps: pd.DataFrame
    direction: str

    @property
    def protected_group(self) -> object:
        """The group whose rate comes first in every gap."""
        return self.groups[0]

    @property
    def reference_group(self) -> object:
        """The group the protected group is compared with."""
        return self.groups[1]

    @property
    def gap_rms(self) -> dict[str, float]:
        """sqrt(mean over classes of gap²) for PPR, TPR and FPR (classes with an undefined gap skipped;
        NaN when no class has one)."""
        return _rms(self.gaps)

    @property
    def by_group(self) -> pd.DataFrame:
        """Rates with one row per (metric, class) and one column per group."""
        return self.rates

    def difference(self) -> pd.DataFrame:
        """Gaps per class (rows) and metric (columns): rate(protected) − rate(reference)."""
        return self.gaps


def _rms(gaps: pd.DataFrame) -> dict[str, float]:
    """sqrt(mean over classes of gap²) per metric, classes with an undefined gap skipped (NaN when none has one)."""
    result = {}
    for metric in METRICS:
        values = gaps[metric].to_numpy(dtype=float)
        values = values[np.isfinite(values)]
        result[metric] = float(np.sqrt(np.mean(values**2))) if len(values) else float("nan")
    return result


@dataclass(frozen=True)
class MultiGroupGaps:
    """Rates of every value of a group column, each value's gaps against ``reference_group`` and the spread,
    fairlearn-style: ``by_group`` (rates, one column per value), ``gaps`` (rate(value) − rate(reference)
    per value and class), ``difference()`` (max − min over the values, per class and metric)."""

    kind: str
    groups: tuple[object, ...]
    reference_group: object
    reference_rule: str
    sizes: pd.Series
    rates: pd.DataFrame

    @property
    def by_group(self) -> pd.DataFrame:
        """Rates with one row per (metric, class) and one column per group value."""
        return self.rates

    @property
    def gaps(self) -> pd.DataFrame:
        """rate(value) − rate(reference) for every value but the reference: index (group, class), columns PPR/TPR/FPR."""
        frames = {}
        for group in self.groups:
            if group != self.reference_group:
                difference = self.rates[group] - self.rates[self.reference_group]
                frames[group] = difference.unstack("metric")[list(METRICS)]
        return pd.concat(frames, names=["group"])

    @property
    def gap_rms(self) -> pd.DataFrame:
        """GapRMS of each value's gaps against the reference: index group, columns PPR/TPR/FPR."""
        gaps = self.gaps
        return pd.DataFrame({group: _rms(gaps.loc[group]) for group in gaps.index.unique("group")}).T.rename_axis("group")

    def difference(self) -> pd.DataFrame:
        """max − min over the group values of each rate (NaN-skipping; NaN with fewer than two defined):
        index class, columns PPR/TPR/FPR."""
        rates = self.rates.astype(float)
        spread = (rates.max(axis=1) - rates.min(axis=1)).where(rates.notna().sum(axis=1) >= 2)
        return spread.unstack("metric")[list(METRICS)]


def reference_of(groups: Sequence, reference_group: object = None) -> tuple[object, str]:
    """The reference group among ``groups`` (one entry per example) and how it was chosen: ``reference_group``
    when given, else the largest group (most examples; ties: first in sorted order)."""
    counts = pd.Series(list(groups)).value_counts()
    distinct = sorted(counts.index, key=str)
    if reference_group is not None:
        _checks.member("reference group", reference_group, distinct, "group values")
        return _same(distinct, reference_group), "as given"
    largest = max(distinct, key=lambda v: (counts[v], -distinct.index(v)))
    return largest, f"the largest group ({int(counts[largest]):,} rows)"


def statistical_gaps_by_group(labels: Sequence, predictions: Sequence, groups: Sequence, *, classes: Sequence | None = None,
                              reference_group: object = None) -> MultiGroupGaps:
    """PPR/TPR/FPR of every value of ``groups`` (any number of values) per class, and each value's gaps
    rate(value) − rate(reference) (Chen et al. §3.1 applied to each value in turn); the reference is
    ``reference_group`` or the largest group."""
    y = _checks.sequence("labels", labels)
    y_hat = _checks.sequence("predictions", predictions)
    g = _checks.sequence("groups", groups)
    n = _checks.same_length(labels=y, predictions=y_hat, groups=g)
    if n == 0:
        raise _checks.fail("gaps need at least one example")
    reference, rule = reference_of(g, reference_group)
    distinct = sorted(pd.unique(g), key=str)
    if len(distinct) < 2:
        raise _checks.fail(f"gaps need at least two groups, found {len(distinct)}: {_checks.short(distinct[0], 20)}")
    class_list = _class_list({"labels": y, "predictions": y_hat}, classes)
    rates = group_rates(y, y_hat, g, class_list, distinct)["rate"]  # k / n, NaN for an empty group: the mean of the hits
    rows = [{"metric": metric, "class": c, **{group: float(rates[(c, group, metric)]) for group in distinct}}
            for c in class_list for metric in RATE_BASES]
    sizes = pd.Series({group: int(np.sum(g == group)) for group in distinct}, name="n_rows")
    return MultiGroupGaps("statistical", tuple(distinct), reference, rule, sizes,
                          pd.DataFrame(rows).set_index(["metric", "class"]))


def gap_direction(values: Sequence, protected_group: object = None, reference_group: object = None) -> tuple[object, object, str]:
    """(protected, reference, how it was chosen) for the two group ``values``."""
    distinct = list(values)
    if len(distinct) != 2:
        shown = ", ".join(_checks.short(v, 20) for v in distinct[:6])
        raise _checks.fail(f"gaps need exactly two groups, found {len(distinct)}: {shown}")
    if protected_group is not None:
        _checks.member("protected group", protected_group, distinct, "group values")
    if reference_group is not None:
        _checks.member("reference group", reference_group, distinct, "group values")
    if protected_group is not None and reference_group is not None:
        if protected_group == reference_group:
            raise _checks.fail(f"the protected and reference groups must differ (both {_checks.short(protected_group)})")
        return _same(distinct, protected_group), _same(distinct, reference_group), "as given"
    if protected_group is not None or reference_group is not None:
        given = _same(distinct, protected_group if protected_group is not None else reference_group)
        other = distinct[1] if distinct[0] == given else distinct[0]
        return (given, other, "as given") if protected_group is not None else (other, given, "as given")
    kinds = ["female" if str(v).strip().lower() in _FEMALE else "male" if str(v).strip().lower() in _MALE else None
             for v in distinct]
    if sorted(kinds, key=str) == ["female", "male"]:
        female = distinct[kinds.index("female")]
        male = distinct[kinds.index("male")]
        return female, male, "female − male (recognised group values)"
    first, second = sorted(distinct, key=str)
    return first, second, "sorted order (values not recognised as female/male; set the protected and reference groups to choose)"


def _same(values: list, wanted: object) -> object:
    """The entry of ``values`` equal to ``wanted`` (so the group keeps the data's own type)."""
    return next(v for v in values if v == wanted)


def _prepare(named: dict, groups: object, classes: Sequence | None, protected_group: object, reference_group: object):
    arrays = {name: _checks.sequence(name, values) for name, values in named.items()}
    arrays["groups"] = _checks.sequence("groups", groups)
    n = _checks.same_length(**arrays)
    if n == 0:
        raise _checks.fail("gaps need at least one example")
    protected, reference, how = gap_direction(pd.unique(arrays["groups"]), protected_group, reference_group)
    return arrays, protected, reference, how, _class_list({name: arrays[name] for name in named}, classes)


def _class_list(arrays: dict[str, np.ndarray], classes: Sequence | None) -> list:
    """``classes`` checked against the values of ``arrays``, or those values in sorted order."""
    seen = []
    for values in arrays.values():
        seen.extend(v for v in pd.unique(values) if not any(v == s for s in seen))
    if classes is None:
        return sorted(seen, key=str)
    class_list = list(_checks.sequence("classes", classes))
    if not class_list or len(pd.unique(np.asarray(class_list, dtype=object))) != len(class_list):
        raise _checks.fail("classes must be a non-empty list without repeats")
    for value in seen:
        _checks.member("label or prediction", value, class_list, "classes given")
    return class_list


def _mean(mask: np.ndarray, values: np.ndarray) -> float:
    return float(values[mask].mean()) if mask.any() else float("nan")


def statistical_gaps(labels: Sequence, predictions: Sequence, groups: Sequence, *, classes: Sequence | None = None,
                     protected_group: object = None, reference_group: object = None) -> GroupGaps:
    """PPR/TPR/FPR per group and class and their gaps rate(protected) − rate(reference) (Chen et al. §3.1)."""
    arrays, a, b, how, class_list = _prepare({"labels": labels, "predictions": predictions}, groups, classes,
                                             protected_group, reference_group)
    y, y_hat, g = arrays["labels"], arrays["predictions"], arrays["groups"]
    rows, gaps = [], []
    for c in class_list:
        hit = (y_hat == c).astype(float)
        rates = {}
        for group in (a, b):
            in_group = g == group
            rates[group] = {
                "PPR": _mean(in_group, hit),
                "TPR": _mean(in_group & (y == c), hit),
                "FPR": _mean(in_group & (y != c), hit),
            }
        for metric in METRICS:
            rows.append({"metric": metric, "class": c, a: rates[a][metric], b: rates[b][metric]})
        gaps.append({"class": c, **{m: rates[a][m] - rates[b][m] for m in METRICS}})
    return GroupGaps("statistical", (a, b), pd.DataFrame(rows).set_index(["metric", "class"]),
                     pd.DataFrame(gaps).set_index("class"), how)


def causal_gaps(labels: Sequence, predictions: Sequence, counterfactual_predictions: Sequence, groups: Sequence, *,
                classes: Sequence | None = None, protected_group: object = None, reference_group: object = None) -> GroupGaps:
    """Gaps under do(G = protected) vs do(G = reference) from predictions on original and
    counterfactual texts (Chen et al. §3.2)."""
    arrays, a, b, how, class_list = _prepare(
        {"labels": labels, "predictions": predictions, "counterfactual_predictions": counterfactual_predictions},
        groups, classes, protected_group, reference_group)
    y, original, swapped, g = (arrays[k] for k in ("labels", "predictions", "counterfactual_predictions", "groups"))
    do_a = np.where(g == a, original, swapped)
    do_b = np.where(g == b, original, swapped)
    everyone = np.ones(len(y), dtype=bool)
    rows, gaps = [], []
    for c in class_list:
        hit_a, hit_b = (do_a == c).astype(float), (do_b == c).astype(float)
        masks = {"PPR": everyone, "TPR": y == c, "FPR": y != c}
        for metric, mask in masks.items():
            rows.append({"metric": metric, "class": c, a: _mean(mask, hit_a), b: _mean(mask, hit_b)})
        gaps.append({"class": c, **{m: _mean(mask, hit_a - hit_b) for m, mask in masks.items()}})
    return GroupGaps("causal", (a, b), pd.DataFrame(rows).set_index(["metric", "class"]),
                     pd.DataFrame(gaps).set_index("class"), how)


def causal_gaps_from_model(predict: Callable[[list[str]], Sequence], texts: Sequence[str], labels: Sequence,
                           groups: Sequence, *, mode: str = "grammatical", swap_list: str = "chen2024",
                           classes: Sequence | None = None, protected_group: object = None,
                           reference_group: object = None) -> GroupGaps:
    """Causal gaps of a model given as ``predict(list_of_texts) -> labels``: it is run on the original
    texts and on their counterfactuals (:func:`irfair.fairness.cda.counterfactual`, by default with the
    gaps paper's own swap list, pronouns and titles only)."""
    from .cda import counterfactual

    if not callable(predict):
        raise _checks.fail("predict must be a function of a list of texts")
    text_list = _checks.texts("texts", texts)
    original = _predictions(predict, text_list, "original")
    swapped = _predictions(predict, [counterfactual(t, mode, swap_list=swap_list) for t in text_list], "counterfactual")
    return causal_gaps(labels, original, swapped, groups, classes=classes, protected_group=protected_group,
                       reference_group=reference_group)


def _predictions(predict: Callable, texts: list[str], which: str) -> np.ndarray:
    result = _checks.sequence(f"predict() on the {which} texts", predict(texts))
    if len(result) != len(texts):
        raise _checks.fail(f"predict() returned {len(result)} predictions for {len(texts)} {which} texts")
    return result
