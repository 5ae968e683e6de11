"""Benchmark: what the conclusions add to an audit — every pair of systems compared on every measure (paired
bootstrap CI, 10,000-permutation randomization test, Holm), ΔGSR to the perfect run, the measures' CIs,
influence and the Pareto front — on the README's 10 Vaswani runs, and the pairwise comparisons alone at
Robust04's size (18 systems × 249 queries × 22 measures, synthetic values).

Each cost is printed with its ratio to a reference timed in the same run: the whole warm audit for Vaswani,
and for the matrix path the same comparisons made one pair at a time (the same functions called per pair,
timed on a subset of pairs and scaled).

    python scripts/bench_audit.py [--vaswani ../shared/data/vaswani] [--repeat 3] [--loop-pairs 20]
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from irfair.audit import audit
from irfair.audit.comparisons import Inference, QueryValues, pairwise
from irfair.audit.conclusions import conclude

ROOT = Path(__file__).resolve().parents[1]


def best_of(repeat: int, work) -> float:
    """The fastest of ``repeat`` timings of ``work()`` in seconds (the machine is shared: the minimum is the signal)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def vaswani(folder: Path, repeat: int) -> None:
    runs = sorted((ROOT / "runs" / "vaswani").glob("*.run"))
    inputs = (runs, folder / "qrels", folder / "query-text.trec", folder / "corpus")
    result = audit(*inputs)  # warms the cache
    whole = best_of(repeat, lambda: audit(*inputs))
    systems = {name: a for name, a in result.systems.items()}
    qids = list(result.perfect.gsr.per_query["qid"])
    inference = result.inference
    conclusions = best_of(repeat, lambda: conclude(systems, qids, result.measures, result.bias_columns, inference))
    found = conclude(systems, qids, result.measures, result.bias_columns, inference)
    user = [a.name for a in result.audited]
    pairs = best_of(repeat, lambda: pairwise(found.values, user, inference))
    n = len(result.comparisons)
    print(f"Vaswani, {len(user)} runs, {len(qids)} queries, {n} comparisons ({n // max(1, len(user) * (len(user) - 1) // 2)} measures × "
          f"{len(user) * (len(user) - 1) // 2} pairs), {inference.n_permutations} permutations, {inference.n_bootstrap} resamples:")
    print(f"  whole warm audit                          {whole:7.3f} s   (reference)")
    print(f"  conclusions (pairs, ΔGSR, CIs, influence) {conclusions:7.3f} s   {conclusions / whole:6.1%} of the audit (target < 2 s)")
    print(f"  pairwise comparisons alone                {pairs:7.3f} s   {pairs / whole:6.1%} of the audit")


def synthetic(n_systems: int, n_queries: int, n_measures: int, loop_pairs: int, repeat: int) -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(0, 0.05, n_queries)
    values = {"gsr": 0.1 * x + rng.normal(0, 0.02, (n_systems, n_queries))}
    for m in range(n_measures - 1):
        values[f"m{m}"] = np.clip(rng.normal(0.3, 0.2, (n_systems, n_queries)), 0, 1)
    names = tuple(f"s{i}" for i in range(n_systems))
    matrix = QueryValues(tuple(str(q) for q in range(n_queries)), names, x, values)
    inference = Inference()
    together = best_of(repeat, lambda: pairwise(matrix, names, inference))
    all_pairs = n_systems * (n_systems - 1) // 2
    timed = [(names[i], names[j]) for i in range(n_systems) for j in range(i + 1, n_systems)][:loop_pairs]

    def one_at_a_time() -> None:
        for a, b in timed:
            pairwise(matrix, [a, b], inference)

    loop = best_of(1, one_at_a_time) / len(timed) * all_pairs
    print(f"synthetic, {n_systems} systems × {n_queries} queries × {n_measures} measures = {all_pairs * n_measures} comparisons:")
    print(f"  one pair at a time ({len(timed)} pairs timed, scaled to {all_pairs}) {loop:7.2f} s   (reference)")
    print(f"  every pair at once (matrices)                  {together:7.2f} s   {loop / together:5.1f}× faster")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vaswani", type=Path, default=ROOT.parent / "shared" / "data" / "vaswani")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--loop-pairs", type=int, default=20)
    args = parser.parse_args()
    vaswani(args.vaswani, args.repeat)
    synthetic(18, 249, 22, args.loop_pairs, args.repeat)


if __name__ == "__main__":
    main()
