"""A second implementation of trec_eval 10's per-query loops, statement by statement as its C sources run them
(``gain_init.c``, ``m_ndcg.c``, ``m_ndcg_rel.c``, ``m_Rndcg.c``, ``m_G.c``, ``m_rbp.c``, ``m_rbp_resid.c``,
``m_iprec_at_recall.c``, ``m_11pt_avg.c``, ``m_Rprec_mult.c``), one query and one document at a time: the
reference irfair's vectorised kernels are tested against on inputs trec_eval's own test files do not cover
(gain parameters, unsorted levels, negative grades). Test code only.

``rels``: the relevance value of each retrieved document in rank order (grade, -1 not in the qrels, -2 listed
with a negative grade); ``levels``: documents judged per grade 0, 1, ... (trec_eval's rel_levels).
"""
from __future__ import annotations

import functools
import math
import re
from decimal import ROUND_HALF_UP, Decimal


def _div(a, b):
    """a / b as C computes it in doubles: ±inf or NaN for b = 0."""
    if b != 0:
        return a / b
    return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1.0, b)


def setup_gains(pairs, levels):
    entries = [[int(name), value, 0] for name, value in pairs if re.fullmatch(r"[+-]?\d+", name)]
    n_levels = max((g + 1 for g, count in enumerate(levels) if count), default=0)
    for i in range(n_levels):
        for entry in entries:
            if entry[0] == i:
                entry[2] = levels[i]
                break
        else:
            entries.append([i, float(i), levels[i]])
    return sorted(entries, key=functools.cmp_to_key(lambda a, b: int(a[1] - b[1])))


def _log2(x):
    return math.log2(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def get_gain(rel, gains):
    for level, gain, _ in gains:
        if level == rel:
            return gain
    return 0.0


class _Ideal:
    """The walk down the sorted gains (the ``cur_level``/``num_at_level`` lines the measures share)."""

    def __init__(self, gains):
        self.gains, self.level, self.count = gains, len(gains) - 1, 0
        self.gain = gains[-1][1] if gains else 0.0

    def advance(self):
        self.count += 1
        while self.level >= 0 and self.count > self.gains[self.level][2]:
            self.count = 1
            self.level -= 1
            self.gain = self.gains[self.level][1] if self.level >= 0 else 0.0


def ndcg(rels, levels, pairs=()):
    gains = setup_gains(pairs, levels)
    ideal, results_dcg, ideal_dcg, i = _Ideal(gains), 0.0, 0.0, 0
    while i < len(rels) and ideal.gain > 0.0:
        gain = get_gain(rels[i], gains)
        if gain != 0:
            results_dcg += gain / math.log2(i + 2)
        ideal.advance()
        if ideal.gain > 0.0:
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    while i < len(rels):
        gain = get_gain(rels[i], gains)
        if gain != 0:
            results_dcg += gain / math.log2(i + 2)
        i += 1
    while ideal.gain > 0.0:
        ideal.advance()
        if ideal.gain > 0.0:
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    return results_dcg / ideal_dcg if ideal_dcg > 0.0 else 0.0


def ndcg_rel(rels, levels, pairs=()):
    gains = setup_gains(pairs, levels)
    ideal, results_dcg, ideal_dcg, total, n_rel, n_rel_ret, i = _Ideal(gains), 0.0, 0.0, 0.0, 0, 0, 0
    while i < len(rels) and ideal.gain > 0.0:
        gain = get_gain(rels[i], gains)
        if gain != 0:
            results_dcg += gain / math.log2(i + 2)
        ideal.advance()
        if ideal.gain > 0.0:
            n_rel += 1
            ideal_dcg += ideal.gain / math.log2(i + 2)
        if gain > 0:
            total += _div(results_dcg, ideal_dcg)
            n_rel_ret += 1
        i += 1
    while i < len(rels):
        gain = get_gain(rels[i], gains)
        if gain != 0:
            results_dcg += gain / math.log2(i + 2)
        if gain > 0:
            total += _div(results_dcg, ideal_dcg)
            n_rel_ret += 1
        i += 1
    while ideal.gain > 0.0:
        ideal.advance()
        if ideal.gain > 0.0:
            n_rel += 1
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    total += _div((n_rel - n_rel_ret) * results_dcg, ideal_dcg)
    return total / n_rel if total > 0.0 else 0.0


def rndcg(rels, levels, pairs=(), num_rel=None):
    gains = setup_gains(pairs, levels)
    if num_rel == 0:
        return 0.0
    ideal, results_dcg, ideal_dcg, total, changes, i = _Ideal(gains), 0.0, 0.0, 0.0, 0, 0
    old = ideal.gain
    while i < len(rels) and ideal.gain > 0.0:
        gain = get_gain(rels[i], gains)
        ideal.advance()
        if old != ideal.gain:
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                changes += 1
            old = ideal.gain
        if gain != 0:
            results_dcg += gain / math.log2(i + 2)
        if ideal.gain > 0.0:
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    if i < len(rels):
        while i < len(rels):
            gain = get_gain(rels[i], gains)
            if gain != 0:
                results_dcg += gain / math.log2(i + 2)
            i += 1
        if ideal_dcg > 0.0:
            total += results_dcg / ideal_dcg
            changes += 1
    while ideal.gain > 0.0:
        ideal.advance()
        if old != ideal.gain:
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                changes += 1
            old = ideal.gain
        if ideal.gain > 0.0:
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    return total / changes if changes else math.nan


def g_measure(rels, levels, pairs=()):
    gains = setup_gains(pairs, levels)
    ideal, results_g, sum_results, sum_ideal, sum_cost, i = _Ideal(gains), 0.0, 0.0, 0.0, 0.0, 0
    while i < len(rels) and ideal.gain > 0.0:
        gain = get_gain(rels[i], gains)
        sum_results += gain
        ideal.advance()
        if ideal.gain > 0.0:
            sum_ideal += ideal.gain
        sum_cost += ideal.gain if ideal.gain >= 1.0 else 1.0
        if gain != 0:
            results_g += _div(gain, _log2(2 + sum_cost - sum_results))
        i += 1
    while i < len(rels):
        gain = get_gain(rels[i], gains)
        sum_results += gain
        sum_cost += 1.0
        if gain != 0:
            results_g += _div(gain, _log2(2 + sum_cost - sum_results))
        i += 1
    while ideal.gain > 0.0:
        ideal.advance()
        if ideal.gain > 0.0:
            sum_ideal += ideal.gain
    return results_g / sum_ideal if sum_ideal > 0.0 else 0.0


def rbp(rels, levels, pairs=()):
    p = next((value for name, value in reversed(pairs) if name == "p"), 0.9)
    gains = setup_gains(pairs, levels)
    low, high = min((g for _, g, _ in gains), default=0.0), max((g for _, g, _ in gains), default=0.0)
    if low < 0 or high > 1:
        gains = [[level, _div(gain - low, high - low), count] for level, gain, count in gains]
    total, current = 0.0, 1.0
    for rel in rels:
        gain = get_gain(rel, gains)
        if gain != 0:
            total += gain * current
        current *= p
    return (1.0 - p) * total


def rbp_resid(rels, p=0.9):
    total, current, unjudged = 0.0, 1.0, 0
    for rel in rels:
        if rel < 0:
            unjudged += 1
            total += current
        current *= p
    return current + (1 - p) * total if unjudged else 0.0


def _lround(x):
    return int(Decimal(x).quantize(Decimal(1), rounding=ROUND_HALF_UP))  # exact value, halves away from zero


def iprec(rels, num_rel, levels, level=1, summed=False):
    """iprec_at_recall (values per level) or, with ``summed``, 11pt_avg."""
    cutoffs = [_lround(r * num_rel) for r in levels]
    num_rel_ret = sum(1 for rel in rels if rel >= level)
    values, total = [0.0] * len(levels), 0.0
    current = len(levels) - 1
    while current >= 0 and cutoffs[current] > num_rel_ret:
        current -= 1
    precision = num_rel_ret / len(rels)
    best = precision
    so_far = num_rel_ret
    i = len(rels)
    while i > 0 and so_far > 0:
        precision = so_far / i
        best = max(best, precision)
        if rels[i - 1] >= level:
            while current >= 0 and so_far == cutoffs[current]:
                values[current] = best
                total += best
                current -= 1
            so_far -= 1
        i -= 1
    while current >= 0:
        values[current] = best
        total += best
        current -= 1
    return total / len(levels) if summed else values


def rprec_mult(rels, num_rel, multiples, level=1):
    cutoffs = [int(m * num_rel + 0.9) for m in multiples]
    num_rel_ret = sum(1 for rel in rels if rel >= level)
    values = [0.0] * len(multiples)
    current = len(multiples) - 1
    while current >= 0 and cutoffs[current] > len(rels):
        values[current] = num_rel_ret / cutoffs[current]
        current -= 1
    so_far, i = num_rel_ret, len(rels)
    while i > 0 and so_far > 0:
        while current >= 0 and i == cutoffs[current]:
            values[current] = so_far / i
            current -= 1
        if rels[i - 1] >= level:
            so_far -= 1
        i -= 1
    return values
