"""``irfair fairness``: classifier audit — ε-differential fairness, group rates with counts and Wilson intervals,
PPR/TPR/FPR gaps, GapRMS and the disparate-impact ratio (four-fifths rule)."""
from __future__ import annotations

import argparse

HELP = "classifier audit: ε, group rates with counts and Wilson intervals, gaps, GapRMS, four-fifths rule"
EXAMPLE = """examples:
  irfair fairness predictions.csv --label y --prediction y_hat --groups sex,race --json fairness.json
  irfair fairness predictions.csv --label y --prediction y_hat --groups race --reference-group White"""


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("predictions", help="CSV with a header line (UTF-8, or UTF-16 with a byte-order mark)")
    p.add_argument("--label", required=True, help="column of true labels")
    p.add_argument("--prediction", required=True, help="column of predicted labels")
    p.add_argument("--score", default=None, help="numeric score column (mean reported by group)")
    p.add_argument("--groups", required=True, help="protected attribute columns, comma-separated")
    p.add_argument("--gap-group", default=None,
                   help="column for the gaps (default: first of --groups): two values give rate(protected) − rate(reference); "
                        "more give every value's rates, its gaps against the reference group and the max − min spread")
    p.add_argument("--protected-group", default=None,
                   help="gap = rate(protected) − rate(reference) (default with two values: female − male when recognised)")
    p.add_argument("--reference-group", default=None,
                   help="the group the others are compared with (default with more than two values: the largest)")
    p.add_argument("--positive", default=None,
                   help="the positive label: VALUE vs every other value (default with two values: the second in sorted "
                        "order, e.g. 1 of 0/1; its rates are printed, the other class's are their complements)")
    p.add_argument("--multiclass", action="store_true", help="every label value is a class (default: two values)")
    p.add_argument("--alpha", default="1", help="Dirichlet smoothing of ε, a number >= 0 (0 = empirical)")
    p.add_argument("--json", default=None, help="also write the results as JSON to this file (its folder must exist)")


def run(args: argparse.Namespace) -> int:
    from ..fairness.report import audit_predictions, check_output_path, write_json
    from ..fairness.report_text import format_audit

    if args.json:
        check_output_path(args.json)
    result = audit_predictions(args.predictions, args.label, args.prediction, args.groups, score=args.score,
                               alpha=args.alpha, gap_group=args.gap_group, positive=args.positive,
                               multiclass=args.multiclass, protected_group=args.protected_group,
                               reference_group=args.reference_group)
    print(format_audit(result))
    if args.json:
        write_json(args.json, result)
    return 0
