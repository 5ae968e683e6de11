"""The plain-text report of a classification audit (:class:`~irfair.fairness.report.ClassificationAudit`), what
``irfair fairness`` prints: at most 100 columns, the four-fifths verdict first."""
from __future__ import annotations

import math
import textwrap

from ..numbers import fixed
from .gaps import METRICS, GroupGaps, MultiGroupGaps
from .rates import FOUR_FIFTHS, RATE_BASES, DisparateImpact
from .report import ClassificationAudit


def format_audit(result: ClassificationAudit) -> str:
    """Plain-text report of a classification audit, at most 100 columns for group names up to 24 characters:
    the four-fifths verdict first, then ε, one rates table per task, GapRMS and mean scores; every number
    with 4 decimals."""
    classes = (f"classes {result.positive!r} vs the rest" if result.positive is not None
               else "classes " + ", ".join(repr(c) for c in result.classes))
    lines = [line for c, check in result.disparate_impact().items() for line in _wrapped(_four_fifths_line(c, check))]
    lines += [""] if lines else []
    lines += [f"differential fairness ε ({result.n_rows} rows, {classes}; smoothed as set by --alpha)",
              result.epsilon.to_string(float_format=_four), ""]
    if result.rates is not None:
        lines += _task_intro(result)
        for c in result.task_classes:
            lines += _task_lines(result, c) + [""]
    if isinstance(result.gaps, MultiGroupGaps):
        lines += [f"GapRMS against {result.gaps.reference_group} (root mean square over the classes of each gap)",
                  result.gaps.gap_rms.to_string(float_format=_four, na_rep="n/a")]
    else:
        protected, reference = result.gaps.groups
        rms = result.gaps.gap_rms
        lines.append(f"GapRMS of rate({protected}) − rate({reference}) over the classes: "
                     + ", ".join(f"{m} {_four(v)}" for m, v in rms.items()))
    if result.scores_by_group is not None:
        lines.append("mean score by group: " + ", ".join(f"{k} {_four(v)}" for k, v in result.scores_by_group.items()))
    return "\n".join(lines)


def _four(value: float | None) -> str:
    """A printed number: 4 decimals, ``inf``/``-inf`` as such (ε with --alpha 0), NaN as ``n/a``, and no
    ``-0.0000`` (a value that rounds to 0 prints unsigned)."""
    if value is not None and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = fixed(value)
    return "0.0000" if text == "-0.0000" else text


def _four_fifths_line(cls: str, check: DisparateImpact) -> str:
    """One line answering the four-fifths question for class ``cls``."""
    reference = check.by_group.loc[check.reference_group]
    head = f"four-fifths rule, class {cls!r}: highest selection rate {check.reference_group} {_four(reference.selection_rate)}; "
    if not math.isfinite(float(reference.ratio)):
        return head + "no group is selected, so no ratio"
    flagged = check.flagged
    if not flagged:
        return head + f"every group's ratio to it is at least {FOUR_FIFTHS}"
    return head + f"below {FOUR_FIFTHS} of it: " + ", ".join(f"{g} {_four(check.by_group.loc[g, 'ratio'])}" for g in flagged)


def _task_intro(result: ClassificationAudit) -> list[str]:
    """What the rates tables show: the task(s), what k, n and the interval are, and the gap's direction."""
    if result.multiclass:
        task = "one table per class (that class vs the rest)"
    else:
        how = "--positive" if result.positive is not None else "the second value in sorted order; --positive to choose"
        other = next((c for c in result.classes if c != result.positive_class), None)
        task = f"binary task, positive class {result.positive_class!r} ({how})"
        if other is not None:
            task += f"; {other!r} has PPR 1 − PPR, TPR 1 − FPR, FPR 1 − TPR"
    gaps = result.gaps
    if isinstance(gaps, MultiGroupGaps):
        direction = (f"gap = rate − rate({gaps.reference_group}), the reference {gaps.reference_group} being "
                     f"{gaps.reference_rule} (--reference-group to choose another)")
    else:
        direction = f"gap = rate({gaps.groups[0]}) − rate({gaps.groups[1]}), {gaps.direction}"
    sentences = [f"rates in column {result.gap_group!r}: {task}.",
                 "value = k / n: k of the group's n rows (PPR, the selection rate), positives (TPR) or negatives "
                 "(FPR) predicted the class; ci_low, ci_high: its 95 % Wilson score interval.", f"{direction}.",
                 f"di_ratio = PPR / the highest PPR; flag '< 4/5': below {FOUR_FIFTHS} (adverse impact by the EEOC "
                 "four-fifths rule)."]
    return [line for sentence in sentences for line in _wrapped(sentence)] + [""]


def _wrapped(text: str) -> list[str]:
    """``text`` as lines of at most 100 columns (words never split), continuation lines indented by 2."""
    return textwrap.wrap(text, width=100, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)


_WIDTH = 100


def _task_lines(result: ClassificationAudit, cls: str) -> list[str]:
    """The rates table of class ``cls``: one row per group and rate, with k, n, interval, gap and (PPR) the
    disparate-impact ratio and its flag."""
    rates = result.rates.xs(cls, level="class")
    check = result.disparate_impact()[cls]
    reference, with_gap = _gap_groups(result.gaps)
    header = ["group", "rate", "value", "ci_low", "ci_high", "k", "n", "of", "gap", "di_ratio", "flag"]
    rows = []
    for group in check.by_group.index:
        name = str(group) + (" (reference)" if isinstance(result.gaps, MultiGroupGaps) and group == reference else "")
        for metric in METRICS:
            row = rates.loc[(group, metric)]
            gap = row["rate"] - rates.loc[(reference, metric), "rate"] if group in with_gap else None
            impact = check.by_group.loc[group] if metric == "PPR" else None
            rows.append([name if metric == "PPR" else "", metric, _four(row["rate"]), _four(row["ci_low"]),
                         _four(row["ci_high"]), str(int(row["k"])), str(int(row["n"])), RATE_BASES[metric],
                         "-" if gap is None else _four(gap), "" if impact is None else _four(impact.ratio),
                         "< 4/5" if impact is not None and impact.below_four_fifths else ""])
    title = f"class {cls!r}"
    if isinstance(result.gaps, MultiGroupGaps):
        spread = result.gaps.difference().loc[cls]
        title += f"; spread max − min over the {len(result.gaps.groups)} values: " + ", ".join(
            f"{m} {_four(spread[m])}" for m in METRICS)
    rest = max(map(len, _aligned(header[1:], [row[1:] for row in rows], left={0, 6, 9}))) + 2
    room = max(8, _WIDTH - rest)
    for row in rows:  # long group names are cut to keep the table within 100 columns (the JSON has them whole)
        row[0] = row[0] if len(row[0]) <= room else row[0][: room - 1] + "…"
    return [*_wrapped(title), *_aligned(header, rows, left={0, 1, 7, 10})]


def _gap_groups(gaps: GroupGaps | MultiGroupGaps) -> tuple[object, set]:
    """(the group every gap subtracts, the groups that have a gap)."""
    if isinstance(gaps, MultiGroupGaps):
        return gaps.reference_group, {g for g in gaps.groups if g != gaps.reference_group}
    return gaps.groups[1], {gaps.groups[0]}


def _aligned(header: list[str], rows: list[list[str]], left: set[int]) -> list[str]:
    """Text columns two spaces apart: those in ``left`` left-aligned, the others right-aligned; trailing spaces cut."""
    widths = [max(len(cells[i]) for cells in [header, *rows]) for i in range(len(header))]
    return ["  ".join(cell.ljust(w) if i in left else cell.rjust(w) for i, (cell, w) in enumerate(zip(cells, widths))).rstrip()
            for cells in [header, *rows]]
