"""``irfair fairness``: classifier audit — ε-differential fairness, PPR/TPR/FPR gaps and GapRMS."""
from __future__ import annotations

import argparse

HELP = "classifier audit: ε-differential fairness, PPR/TPR/FPR gaps and GapRMS"


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("predictions", help="CSV with a header line")
    p.add_argument("--label", required=True, help="column of true labels")
    p.add_argument("--prediction", required=True, help="column of predicted labels")
    p.add_argument("--score", default=None, help="numeric score column (mean reported by group)")
    p.add_argument("--groups", required=True, help="protected attribute columns, comma-separated")
    p.add_argument("--gap-group", default=None, help="two-valued column for the gaps (default: first of --groups)")
    p.add_argument("--alpha", type=float, default=1.0, help="Dirichlet smoothing of ε (0 = empirical)")
    p.add_argument("--json", default=None, help="also write the results as JSON to this file")


def run(args: argparse.Namespace) -> int:
    import json

    from ..atomic import write_text
    from ..errors import IrfairInputError
    from ..fairness.report import audit_predictions, format_audit

    groups = [g.strip() for g in args.groups.split(",") if g.strip()]
    if args.alpha < 0:
        raise IrfairInputError(None, None, "--alpha must be >= 0")
    result = audit_predictions(args.predictions, args.label, args.prediction, groups, score=args.score,
                               alpha=args.alpha, gap_group=args.gap_group)
    print(format_audit(result))
    if args.json:
        write_text(args.json, json.dumps(result.to_dict(), indent=2) + "\n")
    return 0
