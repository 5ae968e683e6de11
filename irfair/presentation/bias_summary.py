"""The bias measures and their agreement for people: the second and third printed tables (under GSR's),
shared by the printed output, ``table.txt`` and ``report.html``.

Bias table: one row per measure (and variant) and system, one column per cut-off, each cell the mean
over queries with its 95% bootstrap CI. Agreement table: the rows of :meth:`AuditResult.agreement`.
"""
from __future__ import annotations

from ..audit.kinds import SYSTEM
from ..audit.result import AuditResult
from ..measures.ranking_bias import AWRF, EXPOSURE, RANK_BIAS_MEASURES
from .summary import ci, fmt
from .text_table import fixed_width

BIAS_HEADERS = ("measure", "system")
COUNT_HEADERS = ("n_queries", "n_undefined", "n_no_gendered_word")
AGREEMENT_HEADERS = ("measure_a", "measure_b", "kendall_tau", "kendall_p", "n_systems", "pearson_r", "pearson_p", "n_pairs")


def _joined(values: list[int]) -> str:
    return str(values[0]) if len(set(values)) == 1 else "/".join(str(v) for v in values)


def bias_rows(result: AuditResult) -> tuple[list[str], list[list[str]]]:
    """Headers and cells of the bias table: ``measure`` (``rab_tc``, ``nfairr``, ...), ``system``, ``@t`` per
    cut-off (mean [CI]), and the counts (one number, or one per cut-off joined by ``/`` when they differ)."""
    if result.bias is None:
        return [], []
    measures = [m for m in result.bias.measures if m.per_query is not None]
    cutoffs = sorted({c for m in measures for c in m.cutoffs})
    headers = [*BIAS_HEADERS, *(f"@{c}" for c in cutoffs), *COUNT_HEADERS]
    rows = []
    for m in measures:
        for variant in m.variants or (None,):
            label = f"{m.name}_{variant}" if variant else m.name
            for name, audit in result.systems.items():
                if audit.bias is None:
                    continue
                summaries = {c: audit.bias.summaries[m.column(variant, c)] for c in m.cutoffs}
                cells = [f"{fmt(s.mean, sign=True)} {ci(s.ci_low, s.ci_high)}" if (s := summaries.get(c)) else "-" for c in cutoffs]
                counts = [_joined([s.n_queries for s in summaries.values()]), _joined([s.n_undefined for s in summaries.values()]),
                          _joined([audit.bias.no_gendered_word[m.column(variant, c)] for c in m.cutoffs])]
                rows.append([label, name, *cells, *counts])
    return headers, rows


def bias_footnotes(result: AuditResult) -> list[str]:
    """The lines under the bias table: CI setting, sign conventions, word lists, counts and the reference runs."""
    if result.bias is None:
        return []
    settings = result.provenance
    boot = f" ({settings['n_bootstrap']} resamples, seed {settings['seed']}, as for GSR)" if "n_bootstrap" in settings else ""
    measures = [m for m in result.bias.measures if m.per_query is not None]
    lines = [f"mean over the queries with relevant documents [95% BCa bootstrap CI]{boot}"]
    lines += [f"{m.name}: larger = {m.larger}" for m in measures]
    exposure = result.bias.exposure
    by_list: dict[str, list[str]] = {}
    for m in measures:
        if m.family == EXPOSURE and exposure is not None and exposure.groups is not None:
            continue  # groups from a file: no word read
        words = result.bias.words[m.name]
        by_list.setdefault(f"{words.source} ({len(words.female)} female, {len(words.male)} male words)", []).append(m.name)
    if by_list:
        lines.append("word lists: " + "; ".join(f"{', '.join(names)}: {source}" for source, names in by_list.items()))
    lines += [f"nfairr: normalised by the ideal FaiRR over {result.bias.normalisation}" for m in measures if m.candidates]
    lines += exposure_footnotes(result)
    trivial = ", ".join(f"{m.name} = {m.ungendered:g}" for m in measures if m.ungendered is not None)
    seen = ", ".join(m.name for m in measures if m.family == EXPOSURE)
    lines.append("n_no_gendered_word: lists whose top t holds no listed word" + (f" ({trivial} there, kept in the mean)" if trivial else "")
                 + (f" ({seen}: no document of a group other than {'/'.join(exposure.ungrouped)})" if seen else "") + "; "
                 "n_undefined: queries missing from the run" + "".join(f", or {m.name} where no candidate has any neutrality"
                                                                      for m in measures if m.candidates)
                 + "".join(f", or ee_d ({m.parameter('model')}) where no relevant document is exposed" for m in measures
                           if m.name == "ee" and m.parameter("model") != "trec2022"))
    ee = " (ee: the policy that shuffles each tie, its expected exposure)" if any(m.name == "ee" for m in measures) else ""
    lines.append(f"perfect run: equal grades are unordered, so each measure is its mean over the orders of each tie{ee}; the "
                 "perfect and random runs hold K documents per query, a cut-off beyond K reads all K")
    return lines


def exposure_footnotes(result: AuditResult) -> list[str]:
    """Where the exposure measures' groups come from, EE's browsing model, and each system's share of the attention
    at @10 by group (none without an exposure measure)."""
    exposure = result.bias.exposure
    measures = [m for m in result.bias.measures if m.family == EXPOSURE]
    if exposure is None or not measures:
        return []
    lines = [f"{', '.join(m.name for m in measures)}: {exposure.described}"]
    lines += [f"ee: browsing model {m.parameter('model')}, targets from an ideal ranking by grade (relevant documents only)"
              for m in measures if m.name == "ee"]
    found = attention(result)
    if found is not None:
        cutoff, shares = found
        lines.append(f"share of the attention at @{cutoff} ({'/'.join(exposure.labels)}, %): {shares}")
    return lines


def attention(result: AuditResult) -> tuple[str, str] | None:
    """AWRF's headline cut-off and each system's mean share of its attention by group (``perfect 0.0/0.2/99.8;
    bm25 …``), for the verdict and the bias table's notes; None without AWRF."""
    column = next((c for c in result.headlines_of(EXPOSURE) if c.startswith(f"{AWRF.name}@")), None)
    if result.bias is None or result.bias.exposure is None or column is None:
        return None
    shares = "; ".join(f"{name} {shares_text(a.bias.shares[column])}" for name, a in result.systems.items()
                       if a.bias is not None and column in a.bias.shares)
    return column.split("@")[1], shares


def shares_text(shares: dict[str, float | None]) -> str:
    """``1.2/0.7/98.1``: shares in percent to one decimal, in the labels' order (``-`` where undefined)."""
    return "/".join("-" if v is None else f"{100 * v:.1f}" for v in shares.values())


def agreement_rows(result: AuditResult) -> tuple[list[str], list[list[str]]]:
    """Headers and cells of the agreement table."""
    rows = []
    for r in result.agreement().itertuples(index=False):
        rows.append([r.measure_a, r.measure_b, fmt(r.kendall_tau, 3, sign=True), fmt(r.kendall_p, 3), str(r.n_systems),
                     fmt(r.pearson_r, 3, sign=True), fmt(r.pearson_p, 3), str(r.n_pairs)])
    return list(AGREEMENT_HEADERS), rows


def agreement_footnotes(result: AuditResult) -> list[str]:
    """The lines under the agreement table."""
    n = sum(1 for a in result.systems.values() if a.kind == SYSTEM)
    measures = result.bias.measures if result.bias else ()
    biased = ", ".join(m.name for m in measures if not m.fairness)
    fair = ", ".join(m.name for m in measures if m.fairness)
    lines = [f"kendall_tau: Kendall tau-b between the orderings of the {n} audited systems by the two measures (perfect and "
             "random runs left out); pearson_r: Pearson r between per-query values, pooled over the audited systems"]
    lines += [f"{m.name} has no per-query value (a slope over queries)" for m in measures if m.per_query is None]
    if biased and fair:
        lines.append(f"{biased} grow with bias, {fair} with fairness: agreement shows as tau, r > 0 within these groups and "
                     "< 0 across them")
    signed = [m.name for m in measures if m.name in RANK_BIAS_MEASURES]
    if signed and len(measures) > len(signed):
        lines.append(f"signs: gsr > 0 reinforces stereotypes (female queries get female lists); {', '.join(signed)} > 0: the list "
                     "leans male, whatever the query — a direction, not a degree, so their tau and r with the other measures "
                     "compare unlike things (read the magnitude |rab| for a degree)")
    return lines


def format_bias(result: AuditResult) -> str:
    """The bias table and the agreement table with their footnotes ("" when the audit has no bias measure)."""
    headers, rows = bias_rows(result)
    blocks = []
    if rows:
        blocks.append("\n".join(fixed_width(headers, rows) + [""] + bias_footnotes(result)))
    headers, rows = agreement_rows(result)
    if rows:
        blocks.append("\n".join(fixed_width(headers, rows) + [""] + agreement_footnotes(result)))
    return "\n\n".join(blocks)
