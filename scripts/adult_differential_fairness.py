"""Differential fairness case study on UCI Adult (Foulds & Pan): ε-EDF of the training data for every
subset of {race, sex, nationality}, and a logistic regression's smoothed ε (α = 1) on the test split
with its bias amplification, with and without the protected attributes as features.

    python scripts/adult_differential_fairness.py [--data-dir ../shared/data/adult] [--alpha 1]
"""
from __future__ import annotations

import argparse
from pathlib import Path

from irfair.fairness.adult import adult_case_study


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(__file__).resolve().parents[2] / "shared" / "data" / "adult"
    parser.add_argument("--data-dir", default=str(default), help="folder with adult.data and adult.test")
    parser.add_argument("--alpha", type=float, default=1.0)
    args = parser.parse_args()
    table = adult_case_study(args.data_dir, alpha=args.alpha)
    with_pd = __import__("pandas")
    with_pd.set_option("display.width", 200)
    print(table.round(4).to_string())
    for key, value in table.attrs.items():
        print(f"{key}: {value:.4f}")


if __name__ == "__main__":
    main()
