"""Calibration of the audit's tests and intervals: type-I error, power and coverage under known truths.

A benchmark, not a test. Each scenario draws ``--replications`` independent audits of two systems (five for the
family-wise rows) on n queries and runs irfair's own routines on them — :func:`paired_slope_tests` and
:func:`paired_mean_tests` for the deltas and their CIs, :func:`decide` for the decisions (exact enumeration where
2^n patterns fit, Monte-Carlo rounds otherwise), :func:`mean_cis` and :func:`wild_slope_ci` for one system's intervals —
exactly as an audit calls them (1,000 bootstrap resamples, 10,000 permutations, α = 0.05). The reference each
number is read against is the nominal level (0.05 for a test, 0.95 for an interval), printed with the binomial
standard error of the estimate; the expanded BCa interval the audit printed before is measured beside the
intervals it prints now (the tests inverted; :func:`wild_slope_ci` for one system's GSR).

    python scripts/bench_calibration.py                      # 1,000 replications, 10/20/50/93 queries
    python scripts/bench_calibration.py --replications 200 --sizes 20,50
"""
from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from irfair.measures.intervals import bca_interval, jackknife_slopes
from irfair.measures.resampling import (
    bootstrap_weights,
    decide,
    mean_cis,
    paired_mean_tests,
    paired_slope_tests,
    slopes_from_weights,
    wild_slope_ci,
)

ALPHA = 0.05


@dataclass(frozen=True)
class Scenario:
    """Two systems' per-query values: ``draw(rng, replications, n)`` → (x (n,), a (R, n), b (R, n)), the true delta
    (GSR_a − GSR_b, or E[a − b]) and whether it is a null."""

    name: str
    statistic: str  # "gsr" or "mean"
    delta: float
    draw: Callable


def _gsr(intercept: float = 0.0, slope: float = 0.0, spread: Callable | None = None) -> Callable:
    """Lists of two systems: b = 0.3 g(q) + N(0, 1), a = b + slope · g(q) + intercept + noise (sd 1, or spread(g))."""
    def draw(rng, replications, n):
        x = rng.normal(0.0, 1.0, n)
        b = 0.3 * x + rng.normal(0.0, 1.0, (replications, n))
        scale = spread(x) if spread else 1.0
        return x, b + slope * x + intercept + scale * rng.normal(0.0, 1.0, (replications, n)), b
    return draw


def _mean(noise: Callable, shift: float = 0.0) -> Callable:
    """Differences a − b = shift + noise; b = a Beta(0.5, 2) measure (AP-like)."""
    def draw(rng, replications, n):
        b = rng.beta(0.5, 2.0, (replications, n))
        return None, b + shift + noise(rng, (replications, n)), b
    return draw


def _skewed(rng, shape):
    return rng.exponential(0.2, shape) - 0.2


def _normal(rng, shape):
    return rng.normal(0.0, 0.2, shape)


def _unequal(rng, shape):
    return rng.normal(0.0, 1.0, shape) * rng.lognormal(-2.0, 0.8, shape)


SCENARIOS = (
    Scenario("GSR: exchangeable lists", "gsr", 0.0, _gsr()),
    Scenario("GSR: intercepts apart by 0.5 sd", "gsr", 0.0, _gsr(intercept=0.5)),
    Scenario("GSR: intercepts apart by 1 sd", "gsr", 0.0, _gsr(intercept=1.0)),
    Scenario("GSR: heteroscedastic", "gsr", 0.0, _gsr(spread=lambda x: 0.3 + np.abs(x))),
    Scenario("GSR: slopes differ by 0.25", "gsr", 0.25, _gsr(slope=0.25)),
    Scenario("mean: symmetric differences", "mean", 0.0, _mean(_normal)),
    Scenario("mean: skewed differences", "mean", 0.0, _mean(_skewed)),
    Scenario("mean: heavy-tailed, unequal spread", "mean", 0.0, _mean(_unequal)),
    Scenario("mean: shifted by 0.06", "mean", 0.06, _mean(_normal, 0.06)),
)


def _binomial(share: float, count: int) -> str:
    return f"{share:.3f} ± {np.sqrt(share * (1 - share) / count):.3f}"


def _bca_pairs(scenario: Scenario, x, a, b, n_bootstrap: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The expanded BCa interval of each replication's delta (what the audit printed before the inverted tests)."""
    if scenario.statistic == "mean":
        found = mean_cis(a - b, n_bootstrap, seed)
        return found.ci_low, found.ci_high
    return _bca_slopes(x, a - b, n_bootstrap, seed)


def _bca_slopes(x, y, n_bootstrap: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Expanded BCa intervals of the slopes of each row of y (R, n) on x (n,)."""
    slopes = slopes_from_weights(x, y, bootstrap_weights(len(x), n_bootstrap, seed))
    dx = x - x.mean()
    estimate = (y - y.mean(axis=1, keepdims=True)) @ dx / np.dot(dx, dx)
    return bca_interval(slopes, estimate, jackknife_slopes(x, y), len(x), 0.95, parameters=2)


def pair_row(scenario: Scenario, n: int, args) -> str:
    rng = np.random.default_rng([args.seed, n, SCENARIOS.index(scenario)])
    x, a, b = scenario.draw(rng, args.replications, n)
    options = dict(n_bootstrap=args.bootstrap, n_permutations=args.permutations, seed=args.seed)
    tests = (paired_slope_tests(x, a, b, **options) if scenario.statistic == "gsr" else paired_mean_tests(a, b, **options))
    decisions = decide(tests.terms, tests.usable, args.permutations, args.seed, "none", ALPHA, tests.first_counts,
                       tests.n_queries if tests.skew_corrected else None).decision
    rejected = float(np.mean(decisions == "differs"))
    undecided = float(np.mean(decisions == "undecided"))
    covered = float(np.mean((tests.ci_low <= scenario.delta) & (scenario.delta <= tests.ci_high)))
    low, high = _bca_pairs(scenario, x, a, b, args.bootstrap, args.seed)
    before = float(np.mean((low <= scenario.delta) & (scenario.delta <= high)))
    what = "power" if scenario.delta else "type-I"
    return (f"{scenario.name:<34}{n:>4}  {what:<6} {_binomial(rejected, args.replications):<14}{undecided:>6.3f}  "
            f"{_binomial(covered, args.replications):<14}{before:.3f}")


def family_row(statistic: str, n: int, args, systems: int = 5) -> str:
    """Family-wise error of all pairs of ``systems`` exchangeable systems under Holm, over replications."""
    rng = np.random.default_rng([args.seed, n, 99])
    any_rejected = 0
    pairs = [(i, j) for i in range(systems) for j in range(i + 1, systems)]
    for _ in range(args.replications):
        x = rng.normal(0.0, 1.0, n)
        lists = 0.3 * x + rng.normal(0.0, 1.0, (systems, n)) if statistic == "gsr" else rng.beta(0.5, 2.0, (systems, n))
        a, b = lists[[i for i, _ in pairs]], lists[[j for _, j in pairs]]
        options = dict(n_bootstrap=0, n_permutations=args.permutations, seed=args.seed)
        tests = paired_slope_tests(x, a, b, **options) if statistic == "gsr" else paired_mean_tests(a, b, **options)
        decisions = decide(tests.terms, tests.usable, args.permutations, args.seed, "holm", ALPHA, None,
                           tests.n_queries if tests.skew_corrected else None).decision
        any_rejected += bool(np.any(decisions == "differs"))
    share = any_rejected / args.replications
    name = f"{statistic}: 5 exchangeable systems, Holm"
    return f"{name:<34}{n:>4}  {'FWER':<6} {_binomial(share, args.replications):<14}"


def single_row(statistic: str, n: int, args) -> str:
    """Coverage of one system's interval: a mean of Beta(0.5, 2) values (true mean 0.2), or a GSR slope of 0.3."""
    rng = np.random.default_rng([args.seed, n, 7])
    covered = before = unbounded = 0
    for _ in range(args.replications):
        if statistic == "mean":
            values, truth = rng.beta(0.5, 2.0, n), 0.2
            found = mean_cis(values[None, :], args.bootstrap, args.seed)
            low, high = found.ci_low[0], found.ci_high[0]
            old = low, high  # the mean of one system keeps its expanded BCa interval
        else:
            x = rng.normal(0.0, 1.0, n)
            y, truth = 0.3 * x + rng.normal(0.0, 1.0, n) * (0.3 + np.abs(x)), 0.3
            low, high = wild_slope_ci(x, y, args.bootstrap, args.seed)
            old = [bound[0] for bound in _bca_slopes(x, y[None, :], args.bootstrap, args.seed)]
        covered += low <= truth <= high  # an unbounded interval (NaN: no slope excluded) counts as a miss
        unbounded += bool(np.isnan(low))
        before += old[0] <= truth <= old[1]
    name = f"{statistic} of one system" + (" (heterosc.)" if statistic == "gsr" else " (skewed)")
    return (f"{name:<34}{n:>4}  {'':<6} {'':<14}{unbounded / args.replications:>6.3f}  "
            f"{_binomial(covered / args.replications, args.replications):<14}"
            f"{before / args.replications:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=1000)
    parser.add_argument("--sizes", default="10,20,50,93", help="numbers of queries, comma-separated")
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    started = time.perf_counter()
    print(f"{args.replications} replications; {args.bootstrap} bootstrap resamples, {args.permutations} permutations "
          f"(exact where 2^n fit), alpha {ALPHA}")
    print(f"{'scenario':<34}{'n':>4}  {'rate':<6} {'± binomial se':<14}{'undec.':>7}  {'coverage':<14}BCa before")
    for scenario in SCENARIOS:
        for n in sizes:
            print(pair_row(scenario, n, args), flush=True)
    for statistic in ("gsr", "mean"):
        for n in sizes:
            print(family_row(statistic, n, args), flush=True)
    for statistic in ("gsr", "mean"):
        for n in sizes:
            print(single_row(statistic, n, args), flush=True)
    print(f"nominal: type-I and FWER 0.050, coverage 0.950; {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
