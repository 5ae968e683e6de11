"""Warnings as data: what makes an audit's numbers mean less than they seem, one :class:`AuditWarning` per
kind (``audit.json``'s ``warnings``: ``{"kind", "level", "message", ...details}``), printed as one line each.

Kinds, each decided by one function of :data:`DETECTORS` from the :class:`Evidence` an audit gathers:

* ``few_queries`` (warning) — fewer than :data:`MIN_QUERIES` queries in some row's GSR regression: its CI,
  the paired tests and p-values rest on too few queries to be trusted.
* ``qrels_mismatch`` (warning) — the runs and the qrels look like different collections: for every audited
  system fewer than :data:`MIN_JUDGED_SHARE` of its top-10 documents are judged (over all queries both
  have), or most documents of the qrels are not in the corpus (checked when the whole corpus is stored,
  as with the random run).
* ``few_systems`` (note) — the agreement of the bias measures is not computed over fewer than
  :data:`MIN_AGREEMENT_SYSTEMS` audited systems (Kendall's τ over 2 systems is ±1 with p = 1; the exact test
  over n systems cannot go below p = 2/n!, which needs n ≥ 5 to fall under 0.05).
* ``few_permutations`` (warning) — too few permutations for any test of a family to reach α: the smallest p-value
  of B permutations is 1/(B + 1), and Holm or Bonferroni over m tests lift the smallest adjusted one to m/(B + 1);
  a pair that "does not differ" was then never tested. Per family: the pairs of each measure, and the audited
  systems against the perfect run.
* ``few_resamples`` (warning) — fewer than :data:`MIN_RESAMPLES` bootstrap resamples: each 2.5 % tail of a
  95 % CI then holds less than one resample, so the CI is the range of the resamples drawn.
* ``background_coverage`` (warning) — the NFaiRR background run lacks some audited queries: NFaiRR is undefined
  there (it normalises by the background's documents), so it rests on the queries the background holds.
* ``few_shared_queries`` (warning) — pairs compared on fewer queries than either system's own: a pair's delta is over
  the queries both have and may differ from the table's.
* ``tied_runs`` (warning) — runs that give every document of each query one score: the audited order is then
  the document ids', not a ranking.
* ``ties`` (note) — runs whose tied scores were re-ordered by document id, as trec_eval does, with per-run
  counts of queries (reordered anywhere, and within the audited depth): the audit then reads an order other
  than the file's.
* ``documents_not_in_corpus`` (warning) — run documents below the audited depth that the corpus lacks (within
  it, or among the relevant documents, they are an error, as they are everywhere with ``--strict``): they
  count as non-relevant in the effectiveness measures; per-run counts and the first one's file and line.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..measures.resampling import FAMILY_WISE
from .ties import TieReport

MIN_QUERIES = 20
MIN_JUDGED_SHARE = 0.01
MIN_AGREEMENT_SYSTEMS = 5
MIN_RESAMPLES = 40  # 0.025 × 40 = 1: the fewest resamples whose 2.5 % tail holds one
JUDGED_DEPTH = 10


@dataclass(frozen=True)
class AuditWarning:
    """One kind of problem, with its details (counts per system or run) for ``audit.json``."""

    kind: str
    level: str
    message: str
    details: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """``{"kind", "level", "message", ...details}``."""
        return {"kind": self.kind, "level": self.level, "message": self.message, **self.details}

    def line(self) -> str:
        """One line for people: ``warning: few_queries: ...``."""
        return f"{self.level}: {self.kind}: {self.message}"


@dataclass(frozen=True)
class Evidence:
    """What the detectors read: queries in each row's GSR regression, each audited system's share of judged
    documents in its top 10, qrels documents missing from the corpus (None when not checked), the number of
    audited systems and of measures the agreement would compare, and the runs' tie reports."""

    gsr_queries: Mapping[str, int]
    judged_share: Mapping[str, float]
    qrels_documents: int
    qrels_documents_missing: int | None
    n_systems: int
    agreement_measures: int
    ties: Sequence[TieReport] = ()
    missing_documents: Mapping[str, int] = field(default_factory=dict)
    first_missing: str | None = None
    n_permutations: int = 0
    correction: str = "none"
    alpha: float = 0.05
    families: Mapping[str, int] = field(default_factory=dict)
    n_bootstrap: int = 0
    background: str | None = None  # the NFaiRR background run's name
    background_queries: int = 0  # the audited queries it holds
    audited_queries: int = 0
    shared_queries: Mapping[tuple[str, str], int] = field(default_factory=dict)  # per pair: GSR's queries both use
    own_queries: Mapping[str, int] = field(default_factory=dict)  # per system: the queries its GSR uses


def few_queries(evidence: Evidence) -> AuditWarning | None:
    few = {name: n for name, n in evidence.gsr_queries.items() if n < MIN_QUERIES}
    if not few:
        return None
    least = min(few.values())
    return AuditWarning("few_queries", "warning",
                        f"GSR of {len(few)} of {len(evidence.gsr_queries)} runs uses fewer than {MIN_QUERIES} queries "
                        f"(as few as {least}): CIs and p-values are unreliable", {"min_queries": MIN_QUERIES, "systems": few})


def qrels_mismatch(evidence: Evidence) -> AuditWarning | None:
    shares = {name: share for name, share in evidence.judged_share.items()}
    low = bool(shares) and all(share < MIN_JUDGED_SHARE for share in shares.values())
    missing = evidence.qrels_documents_missing
    absent = missing is not None and evidence.qrels_documents > 0 and missing > evidence.qrels_documents / 2
    if not (low or absent):
        return None
    reasons = []
    if low:
        reasons.append(f"at most {100 * max(shares.values()):.2g}% of each system's top {JUDGED_DEPTH} is judged")
    if absent:
        reasons.append(f"{missing} of the {evidence.qrels_documents} judged documents are not in the corpus")
    return AuditWarning("qrels_mismatch", "warning",
                        "runs and qrels look like different collections (or no system finds judged documents): "
                        + "; ".join(reasons) + "; effectiveness and the perfect run mean little",
                        {"judged_share_at_10": shares, "qrels_documents": evidence.qrels_documents,
                         "qrels_documents_missing": missing})


def few_systems(evidence: Evidence) -> AuditWarning | None:
    if evidence.n_systems >= MIN_AGREEMENT_SYSTEMS or evidence.agreement_measures < 2:
        return None
    return AuditWarning("few_systems", "note",
                        f"agreement needs {MIN_AGREEMENT_SYSTEMS} systems, not {evidence.n_systems}: Kendall's tau over fewer "
                        "never reaches p < 0.05", {"n_systems": evidence.n_systems, "min_systems": MIN_AGREEMENT_SYSTEMS})




def few_permutations(evidence: Evidence) -> AuditWarning | None:
    permutations = evidence.n_permutations
    if permutations <= 0:
        return None
    factor = evidence.correction in FAMILY_WISE

    def floor(tests: int) -> float:
        return min(1.0, (tests if factor else 1) / (permutations + 1))

    untestable = {family: m for family, m in evidence.families.items() if m > 0 and floor(m) >= evidence.alpha}
    if not untestable:
        return None
    largest = max(untestable.values()) if factor else 1
    needed = next(b for b in range(int(largest / evidence.alpha) - 1, int(largest / evidence.alpha) + 2)
                  if largest / (b + 1) < evidence.alpha)
    where = "; ".join(f"{family} ({m} test{'s' if m != 1 else ''}): {floor(m):.3g}" for family, m in untestable.items())
    return AuditWarning("few_permutations", "warning",
                        f"{permutations} permutations leave no p_adjusted below alpha {evidence.alpha:g} ({evidence.correction}; "
                        f"smallest possible: {where}): no difference there can be significant; --permutations {needed} or more "
                        "can", {"n_permutations": permutations, "smallest_p_adjusted": {f: floor(m) for f, m in untestable.items()},
                                "permutations_needed": needed})


def few_resamples(evidence: Evidence) -> AuditWarning | None:
    resamples = evidence.n_bootstrap
    if not 0 < resamples < MIN_RESAMPLES:
        return None
    return AuditWarning("few_resamples", "warning",
                        f"95% CIs from {resamples} bootstrap resamples: each 2.5% tail holds less than one resample, so a CI "
                        f"is the range of those drawn; --bootstrap {MIN_RESAMPLES} or more (1000 by default)",
                        {"n_bootstrap": resamples, "min_resamples": MIN_RESAMPLES})


def background_coverage(evidence: Evidence) -> AuditWarning | None:
    if evidence.background is None or evidence.background_queries >= evidence.audited_queries:
        return None
    held, audited = evidence.background_queries, evidence.audited_queries
    return AuditWarning("background_coverage", "warning",
                        f"the NFaiRR background run {evidence.background} holds {held} of the {audited} audited queries: "
                        f"NFaiRR is undefined on the other {audited - held}",
                        {"background": evidence.background, "queries_held": held, "queries_audited": audited})


def ties(evidence: Evidence) -> AuditWarning | None:
    reordered = [t for t in evidence.ties if t.queries_reordered]
    if not reordered:
        return None
    in_depth = sum(t.queries_reordered_in_depth for t in reordered)  # queries, as the count before it
    queries = sum(t.queries_reordered for t in reordered)
    runs = f"{len(reordered)} run{'' if len(reordered) == 1 else 's'}"
    return AuditWarning("ties", "note",
                        f"{runs} {'has' if len(reordered) == 1 else 'have'} ties, ranked by document id as trec_eval does "
                        f"({queries} quer{'y' if queries == 1 else 'ies'} reordered; {in_depth} within the audited depth)",
                        {"runs": [t.to_dict() for t in reordered]})


def tied_runs(evidence: Evidence) -> AuditWarning | None:
    flat = [t.run for t in evidence.ties if t.all_tied]
    if not flat:
        return None
    return AuditWarning("tied_runs", "warning",
                        f"{', '.join(flat)} give{'s' if len(flat) == 1 else ''} every document of a query one score: the "
                        "order audited is the document ids' (trec_eval's rule for ties), not a ranking",
                        {"runs": flat})


def few_shared_queries(evidence: Evidence) -> AuditWarning | None:
    """Pairs compared on fewer queries than either system has: their delta is over the shared queries only, and may
    even have the other sign than the table's difference."""
    own = evidence.own_queries
    # fewer than either system has (few_queries already speaks of systems that have fewer than MIN_QUERIES themselves)
    few = {pair: n for pair, n in evidence.shared_queries.items() if n < max(own.get(pair[0], 0), own.get(pair[1], 0))}
    if not few:
        return None
    (a, b), least = min(few.items(), key=lambda item: item[1])
    return AuditWarning("few_shared_queries", "warning",
                        f"{len(few)} pair{'s are' if len(few) != 1 else ' is'} compared on fewer queries than its systems have "
                        f"(as few as {least}: {a} and {b}): their deltas are over the shared queries only and may not match the "
                        "table", {"pairs": [{"a": a, "b": b, "n_queries": n} for (a, b), n in few.items()]})


def documents_not_in_corpus(evidence: Evidence) -> AuditWarning | None:
    counts = {name: n for name, n in evidence.missing_documents.items() if n}
    if not counts:
        return None
    total = sum(counts.values())
    return AuditWarning("documents_not_in_corpus", "warning",
                        f"{total} run document{'s' if total != 1 else ''} below the audited depth {'are' if total != 1 else 'is'} "
                        f"not in the corpus (first: {evidence.first_missing}); they count as non-relevant (--strict: an error)",
                        {"runs": counts, "first": evidence.first_missing})


DETECTORS: tuple[Callable[[Evidence], AuditWarning | None], ...] = (few_queries, few_shared_queries, few_permutations, few_resamples,
                                                                    qrels_mismatch, documents_not_in_corpus, background_coverage,
                                                                    tied_runs, few_systems, ties)


def detect(evidence: Evidence) -> list[AuditWarning]:
    """Every warning of :data:`DETECTORS` that applies, in their order."""
    return [w for w in (detector(evidence) for detector in DETECTORS) if w is not None]
