"""Statistical and causal group gaps (Chen et al., "Addressing Both Statistical and Causal Gender
Fairness in NLP Models", NAACL Findings 2024).

For class c and group g: PPR_{g,c} = P(ŷ = c | G = g), TPR_{g,c} = P(ŷ = c | y = c, G = g),
FPR_{g,c} = P(ŷ = c | y ≠ c, G = g). The gap of class c is rate(a) − rate(b) for the two groups
(a, b) (by default the two group values in sorted order, e.g. F − M), and
GapRMS = sqrt(mean over classes of gap²).

Causal gaps evaluate every example under do(G = a) and do(G = b): the prediction on the original text
for the example's own group and on its counterfactual (gender-swapped) text for the other. The gap
of class c is the mean over examples of 1(ŷ_do(a) = c) − 1(ŷ_do(b) = c): over all examples (PPR),
over those with y = c (TPR), over those with y ≠ c (FPR).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

METRICS = ("PPR", "TPR", "FPR")


@dataclass(frozen=True)
class GroupGaps:
    """Rates per group and class, gaps per class (a − b) and GapRMS per metric, fairlearn-style."""

    kind: str
    groups: tuple[object, object]
    rates: pd.DataFrame
    gaps: pd.DataFrame

    @property
    def gap_rms(self) -> dict[str, float]:
        """sqrt(mean over classes of gap²) for PPR, TPR and FPR (classes with an undefined gap skipped)."""
        return {m: float(np.sqrt(np.nanmean(self.gaps[m].to_numpy(dtype=float) ** 2))) for m in METRICS}

    @property
    def by_group(self) -> pd.DataFrame:
        """Rates with one row per (metric, class) and one column per group."""
        return self.rates

    def difference(self) -> pd.DataFrame:
        """Gaps per class (rows) and metric (columns): rate(a) − rate(b)."""
        return self.gaps


def _binary_groups(groups: np.ndarray, group_values: Sequence | None) -> tuple[object, object]:
    values = tuple(group_values) if group_values is not None else tuple(sorted(pd.unique(groups), key=str))
    if len(values) != 2:
        raise ValueError(f"gaps need exactly two groups, found {len(values)}: {values}")
    return values


def _classes(labels: np.ndarray, predictions: Sequence[np.ndarray], classes: Sequence | None) -> list:
    if classes is not None:
        return list(classes)
    seen = set(pd.unique(labels))
    for p in predictions:
        seen |= set(pd.unique(p))
    return sorted(seen, key=str)


def _mean(mask: np.ndarray, values: np.ndarray) -> float:
    return float(values[mask].mean()) if mask.any() else float("nan")


def statistical_gaps(labels, predictions, groups, *, classes: Sequence | None = None, group_values: Sequence | None = None) -> GroupGaps:
    """PPR/TPR/FPR per group and class, and their gaps between the two groups."""
    y, y_hat, g = np.asarray(labels), np.asarray(predictions), np.asarray(groups)
    a, b = _binary_groups(g, group_values)
    rows, gaps = [], []
    for c in _classes(y, [y_hat], classes):
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
    return GroupGaps("statistical", (a, b), pd.DataFrame(rows).set_index(["metric", "class"]), pd.DataFrame(gaps).set_index("class"))


def causal_gaps(
    labels,
    predictions,
    counterfactual_predictions,
    groups,
    *,
    classes: Sequence | None = None,
    group_values: Sequence | None = None,
) -> GroupGaps:
    """Gaps under do(G = a) vs do(G = b) from predictions on original and counterfactual texts."""
    y = np.asarray(labels)
    original, swapped, g = np.asarray(predictions), np.asarray(counterfactual_predictions), np.asarray(groups)
    a, b = _binary_groups(g, group_values)
    if not np.isin(g, [a, b]).all():
        raise ValueError(f"every example must belong to {a!r} or {b!r} for causal gaps")
    do_a = np.where(g == a, original, swapped)
    do_b = np.where(g == b, original, swapped)
    everyone = np.ones(len(y), dtype=bool)
    rows, gaps = [], []
    for c in _classes(y, [original, swapped], classes):
        hit_a, hit_b = (do_a == c).astype(float), (do_b == c).astype(float)
        masks = {"PPR": everyone, "TPR": y == c, "FPR": y != c}
        for metric, mask in masks.items():
            rows.append({"metric": metric, "class": c, a: _mean(mask, hit_a), b: _mean(mask, hit_b)})
        gaps.append({"class": c, **{m: _mean(mask, hit_a - hit_b) for m, mask in masks.items()}})
    return GroupGaps("causal", (a, b), pd.DataFrame(rows).set_index(["metric", "class"]), pd.DataFrame(gaps).set_index("class"))


def causal_gaps_from_model(predict, texts, labels, groups, *, mode: str = "grammatical", classes: Sequence | None = None,
                           group_values: Sequence | None = None) -> GroupGaps:
    """Causal gaps of a model given as ``predict(list_of_texts) -> labels``: it is run on the original
    texts and on their counterfactuals (:func:`irfair.fairness.cda.counterfactual`)."""
    from .cda import counterfactual

    texts = list(texts)
    original = np.asarray(predict(texts))
    swapped = np.asarray(predict([counterfactual(t, mode) for t in texts]))
    return causal_gaps(labels, original, swapped, groups, classes=classes, group_values=group_values)
