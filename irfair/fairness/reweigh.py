"""Pre-processing mitigations: reweighting (Kamiran & Calders 2012), oversampling, undersampling, and
their combinations with counterfactual data augmentation (RW-CDA, OS-CDA, US-CDA).

* Reweighting: w(g, y) = P(g) P(y) / P(g, y) = N_g N_y / (N N_{g,y}), so that group and label are
  independent in the weighted data.
* Oversampling: within each label, every group is sampled with replacement up to the size of the
  label's largest group. Undersampling: within each label, every group is sampled without
  replacement down to the size of the label's smallest group.
* X-CDA: the statistical method X is applied to the original examples, then every kept example's
  counterfactual (gender-swapped text, same label, swapped group, same weight) is added. These are
  the combinations of Chen, Ji & Evans (NAACL Findings 2024), so the counterfactuals use that paper's
  swap list (pronouns and titles, ``swap_list="chen2024"``) unless another is named.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from . import _checks
from .cda import counterfactual

METHODS = ("RW", "OS", "US", "CDA", "RW-CDA", "OS-CDA", "US-CDA")


def _labels_and_groups(labels: Sequence, groups: Sequence) -> pd.DataFrame:
    y, g = _checks.sequence("labels", labels), _checks.sequence("groups", groups)
    _checks.same_length(labels=y, groups=g)
    return pd.DataFrame({"y": y, "g": g})


def kamiran_calders_weights(labels: Sequence, groups: Sequence) -> np.ndarray:
    """Weights N_g N_y / (N N_{g,y}) per example, shape (n,)."""
    frame = _labels_and_groups(labels, groups)
    n = len(frame)
    n_g = frame.groupby("g")["y"].transform("size")
    n_y = frame.groupby("y")["g"].transform("size")
    n_gy = frame.groupby(["g", "y"])["y"].transform("size")
    return (n_g * n_y / (n * n_gy)).to_numpy(dtype=np.float64)


def _resample(labels: Sequence, groups: Sequence, seed: int, up: bool) -> np.ndarray:
    _checks.number("seed", seed, low=0, integer=True)
    rng = np.random.default_rng(int(seed))
    frame = _labels_and_groups(labels, groups)
    chosen = []
    for _, within_label in frame.groupby("y", sort=True):
        cells = [cell.index.to_numpy() for _, cell in within_label.groupby("g", sort=True)]
        target = max(map(len, cells)) if up else min(map(len, cells))
        for cell in cells:
            if up:
                extra = rng.choice(cell, size=target - len(cell), replace=True) if target > len(cell) else np.array([], int)
                chosen.append(np.concatenate([cell, extra]))
            else:
                chosen.append(np.sort(rng.choice(cell, size=target, replace=False)))
    return np.sort(np.concatenate(chosen)) if chosen else np.array([], dtype=int)


def oversample(labels: Sequence, groups: Sequence, seed: int = 0) -> np.ndarray:
    """Indices of the oversampled data (originals kept, duplicates added), sorted."""
    return _resample(labels, groups, seed, up=True)


def undersample(labels: Sequence, groups: Sequence, seed: int = 0) -> np.ndarray:
    """Indices of the undersampled data, sorted."""
    return _resample(labels, groups, seed, up=False)


def mitigate(texts: Sequence[str], labels: Sequence, groups: Sequence, method: str, *, seed: int = 0,
             mode: str = "grammatical", swap_list: str = "chen2024") -> pd.DataFrame:
    """Training data after ``method`` (one of RW, OS, US, CDA, RW-CDA, OS-CDA, US-CDA): columns text,
    label, group, weight, is_counterfactual, source (index of the original example)."""
    if method not in METHODS:
        raise _checks.fail(f"method must be one of {', '.join(METHODS)}, not {_checks.short(method)}")
    texts = _checks.texts("texts", texts)
    labels, groups = list(_checks.sequence("labels", labels)), list(_checks.sequence("groups", groups))
    _checks.same_length(texts=texts, labels=labels, groups=groups)
    statistical = method.split("-")[0]
    index = np.arange(len(texts))
    weights = np.ones(len(texts))
    if statistical == "RW":
        weights = kamiran_calders_weights(labels, groups)
    elif statistical == "OS":
        index = oversample(labels, groups, seed)
    elif statistical == "US":
        index = undersample(labels, groups, seed)
    frame = pd.DataFrame({
        "text": [texts[i] for i in index],
        "label": [labels[i] for i in index],
        "group": [groups[i] for i in index],
        "weight": weights[index],
        "is_counterfactual": False,
        "source": index,
    })
    if method.endswith("CDA"):
        distinct = sorted(pd.unique(np.asarray(groups, dtype=object)), key=str)
        if len(distinct) != 2:
            raise _checks.fail(f"CDA needs exactly two groups, found {len(distinct)}")
        other = {distinct[0]: distinct[1], distinct[1]: distinct[0]}
        swapped = frame.assign(
            text=[counterfactual(t, mode, swap_list=swap_list) for t in frame["text"]],
            group=[other[g] for g in frame["group"]],
            is_counterfactual=True,
        )
        frame = pd.concat([frame, swapped], ignore_index=True)
    return frame
