"""Group rates with the counts they rest on and their Wilson intervals, and the disparate-impact ratio.

For class c and group g: PPR (selection rate) = k / n over the group's rows, TPR over its positives
(y = c), FPR over its negatives (y ≠ c), k counting the predictions ŷ = c among those n. The
disparate-impact ratio of g is PPR(g) / PPR(h), h the group with the highest selection rate; the EEOC's
four-fifths rule (Uniform Guidelines on Employee Selection Procedures, 29 CFR 1607.4(D)) regards a ratio
below 0.8 as evidence of adverse impact. The comparison with 4/5 is made on the integer counts, so a ratio
of exactly 0.8 is never flagged through floating-point noise.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .intervals import wilson_interval

RATE_BASES = {"PPR": "rows", "TPR": "positives", "FPR": "negatives"}
"""What the n of each rate counts within a group."""

FOUR_FIFTHS = 0.8


def group_rates(labels: np.ndarray, predictions: np.ndarray, groups: np.ndarray, classes: Sequence,
                group_order: Sequence) -> pd.DataFrame:
    """PPR, TPR and FPR of every class and group with their counts and 95 % Wilson intervals. ``labels``,
    ``predictions`` and ``groups`` are arrays of shape (n_rows,); rows whose group is not in ``group_order``
    are left out. Returns a frame indexed (class, group, metric) in the given orders, columns ``k``, ``n``
    (integers), ``rate`` = k / n, ``ci_low``, ``ci_high`` (proportions; NaN where n = 0)."""
    records = []
    for c in classes:
        hit = predictions == c
        for group in group_order:
            in_group = groups == group
            for metric, base in (("PPR", in_group), ("TPR", in_group & (labels == c)), ("FPR", in_group & (labels != c))):
                records.append((c, group, metric, int(np.sum(base & hit)), int(np.sum(base))))
    frame = pd.DataFrame.from_records(records, columns=["class", "group", "metric", "k", "n"])
    k, n = frame["k"].to_numpy(), frame["n"].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        frame["rate"] = np.where(n > 0, k / np.maximum(n, 1), np.nan)
    frame["ci_low"], frame["ci_high"] = wilson_interval(k, n)
    return frame.set_index(["class", "group", "metric"])


@dataclass(frozen=True)
class DisparateImpact:
    """The four-fifths check of one class: ``reference_group`` (highest selection rate; ties: first in the
    group order) and ``by_group``, indexed by group, columns ``selection_rate``, ``ratio`` (selection rate /
    the reference's; NaN when nobody is selected) and ``below_four_fifths`` (bool)."""

    reference_group: object
    by_group: pd.DataFrame

    @property
    def flagged(self) -> list:
        """The groups whose ratio is below 0.8, in group order."""
        return [g for g, below in self.by_group["below_four_fifths"].items() if below]


def disparate_impact(rates: pd.DataFrame, cls: object) -> DisparateImpact:
    """The disparate-impact ratios of class ``cls`` from :func:`group_rates` output (its PPR rows)."""
    selection = rates.xs((cls, "PPR"), level=("class", "metric"))
    counts = [(group, int(row.k), int(row.n)) for group, row in selection.iterrows()]
    # the highest k / n compared exactly (k₁n₂ > k₂n₁), first in order among equals
    reference, k_ref, n_ref = counts[0]
    for group, k, n in counts[1:]:
        if k * n_ref > k_ref * n:
            reference, k_ref, n_ref = group, k, n
    rows = {}
    for group, k, n in counts:
        defined = n > 0 and k_ref > 0
        rows[group] = {"selection_rate": k / n if n else float("nan"),
                       "ratio": (k * n_ref) / (n * k_ref) if defined else float("nan"),
                       "below_four_fifths": defined and 5 * k * n_ref < 4 * n * k_ref}
    frame = pd.DataFrame.from_dict(rows, orient="index").rename_axis("group")
    return DisparateImpact(reference, frame)
