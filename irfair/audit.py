"""The GSR audit: runs + qrels + topics + corpus + embeddings → GSR beside the perfect and random runs,
with effectiveness. ``audit(...)`` is the Python twin of ``irfair audit``.

Depth: with ``depth="auto"`` each query's lists are cut at K = its number of relevant documents, the
length of the perfect run; with an integer N every list is cut at N (the perfect run at min(N, K)).
Perfect run: all relevant documents (grade > 0) by grade, equal grades sharing their rank weight.
Random run: for each query, K documents drawn without replacement (seeded) from the audit's
document pool (every document the audited lists and the perfect runs contain, over all queries).
Queries without relevant documents are not audited (there is no perfect run for them); they and
every other excluded query are counted with their reason.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .collection import Qrels, Run, Topic, check_run_queries, read_qrels, read_run, read_topics, relevant_docs
from .corpus import Corpus, open_corpus
from .doc_terms import TermStore
from .embeddings import Embeddings, load_embeddings
from .errors import IrfairInputError
from .evaluate import DEFAULT_MEASURES, EvaluationResult, evaluate
from .gender import GenderDirection, gender_direction
from .genderedness import GenderednessModel, list_genderedness, rank_weights, tied_rank_weights
from .gsr import GSRResult, PairedGSRTest, fit_gsr, paired_gsr_test, relative_gsr

PERFECT = "perfect"
RANDOM = "random"

REASON_NO_RELEVANT = "no relevant documents"
REASON_QUERY_OOV = "no query term in the embedding vocabulary"
REASON_NOT_IN_RUN = "query not in run"
REASON_NO_MEASURABLE = "no document with a measurable term"


@dataclass
class SystemAudit:
    """One audited system: its GSR, relative GSR and paired test against the perfect run, effectiveness."""

    name: str
    kind: str
    gsr: GSRResult
    relative_gsr: float
    vs_perfect: PairedGSRTest | None
    evaluation: EvaluationResult | None
    source: str | None = None


@dataclass
class AuditResult:
    """Everything an audit found; ``table()`` and ``per_query()`` give DataFrame views."""

    systems: dict[str, SystemAudit]
    embeddings: str
    direction: GenderDirection
    depth: str | int
    query_field: str
    counts: dict[str, int] = field(default_factory=dict)
    measures: tuple[str, ...] = DEFAULT_MEASURES

    def __getitem__(self, name: str) -> SystemAudit:
        return self.systems[name]

    @property
    def perfect(self) -> SystemAudit:
        """The perfect run built from the qrels."""
        return self.systems[PERFECT]

    def table(self) -> pd.DataFrame:
        """One row per system: GSR, CI, relative GSR, paired p vs perfect, r, queries used, measures."""
        rows = []
        for audit in self.systems.values():
            g = audit.gsr
            row = {
                "system": audit.name,
                "GSR": g.slope,
                "CI low": g.ci_low,
                "CI high": g.ci_high,
                "rel. GSR": audit.relative_gsr,
                "p vs perfect": audit.vs_perfect.p_value if audit.vs_perfect else float("nan"),
                "r": g.r,
                "queries": g.n_queries,
                "excluded": g.n_excluded,
            }
            for measure in self.measures:
                row[measure] = audit.evaluation.means[measure] if audit.evaluation else float("nan")
            rows.append(row)
        return pd.DataFrame(rows).set_index("system")

    def per_query(self) -> pd.DataFrame:
        """Long table: system, qid, query, g(q), g_q(L), K, used, reason and each measure."""
        frames = []
        for audit in self.systems.values():
            frame = audit.gsr.per_query.copy()
            frame.insert(0, "system", audit.name)
            for measure in self.measures:
                values = audit.evaluation.per_query[measure] if audit.evaluation else pd.Series(dtype=float)
                frame[measure] = frame["qid"].map(values)
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)

    def to_dict(self) -> dict:
        """JSON-ready summary."""

        def clean(value):
            if isinstance(value, float) and not np.isfinite(value):
                return None
            return value

        systems = {}
        for name, audit in self.systems.items():
            g = audit.gsr
            systems[name] = {
                "kind": audit.kind,
                "source": audit.source,
                "gsr": clean(g.slope),
                "intercept": clean(g.intercept),
                "r": clean(g.r),
                "p_value": clean(g.p_value),
                "ci95": [clean(g.ci_low), clean(g.ci_high)],
                "relative_gsr": clean(audit.relative_gsr),
                "vs_perfect": None
                if audit.vs_perfect is None
                else {
                    "difference": clean(audit.vs_perfect.difference),
                    "ci95": [clean(audit.vs_perfect.ci_low), clean(audit.vs_perfect.ci_high)],
                    "p_value": clean(audit.vs_perfect.p_value),
                    "n_queries": audit.vs_perfect.n_queries,
                },
                "n_queries": g.n_queries,
                "n_excluded": g.n_excluded,
                "excluded": g.excluded,
                "measures": {} if audit.evaluation is None else {k: clean(v) for k, v in audit.evaluation.means.items()},
                "queries_missing_from_run": None if audit.evaluation is None else audit.evaluation.n_missing,
            }
        return {
            "embeddings": self.embeddings,
            "gender_direction": {
                "explained_variance_ratio": self.direction.explained_variance_ratio,
                "pairs_used": [list(p) for p in self.direction.pairs_used],
                "pairs_missing": [list(p) for p in self.direction.pairs_missing],
            },
            "depth": self.depth,
            "query_field": self.query_field,
            "counts": self.counts,
            "systems": systems,
        }


def _load_topics(topics) -> dict[str, Topic]:
    if isinstance(topics, Mapping):
        return {str(q): t if isinstance(t, Topic) else Topic(str(q), str(t)) for q, t in topics.items()}
    return read_topics(topics)


def _load_runs(runs) -> list[Run]:
    if isinstance(runs, (str, Path, Run)):
        runs = [runs]
    if isinstance(runs, Mapping):
        loaded = [r if isinstance(r, Run) else Run.from_lists(str(name), r) for name, r in runs.items()]
    else:
        loaded = [r if isinstance(r, Run) else read_run(r) for r in runs]
    names: dict[str, int] = {}
    for run in loaded:
        if run.name in (PERFECT, RANDOM) or run.name in names:
            names[run.name] = names.get(run.name, 1) + 1
            run.name = f"{run.name}-{names[run.name]}"
        names.setdefault(run.name, 1)
    return loaded


def audit(
    runs,
    qrels,
    topics,
    corpus,
    embeddings="w2v-gnews-26k",
    *,
    depth: str | int = "auto",
    query_field: str = "title",
    n_bootstrap: int = 1000,
    seed: int = 0,
    random_baseline: bool = True,
    measures: Sequence[str] = DEFAULT_MEASURES,
    cache_dir: str | Path | None = None,
    progress: bool = False,
) -> AuditResult:
    """Audit runs for gender stereotype reinforcement beside the perfect (and a random) run.

    ``runs``: run file paths, :class:`Run` objects, or ``{name: {qid: [doc_id, ...]}}``;
    ``qrels``/``topics``: paths or parsed mappings; ``corpus``: anything :func:`open_corpus` takes;
    ``embeddings``: a name, a path or loaded :class:`Embeddings`. Raises IrfairInputError on bad input.
    """
    if depth != "auto" and (not isinstance(depth, int) or depth < 1):
        raise IrfairInputError(None, None, f"depth must be 'auto' or a positive integer, not {depth!r}")
    topic_map = _load_topics(topics)
    qrel_map: Qrels = qrels if isinstance(qrels, Mapping) else read_qrels(qrels)
    run_list = _load_runs(runs)
    for run in run_list:
        check_run_queries(run, topic_map, topics)
    corpus_obj: Corpus = open_corpus(corpus)
    emb: Embeddings = load_embeddings(embeddings, cache_dir)
    direction = gender_direction(emb)

    qids = list(topic_map)
    perfect_lists: dict[str, list[str]] = {}
    perfect_weights: dict[str, np.ndarray] = {}
    cut: dict[str, int] = {}
    for qid in qids:
        relevant = relevant_docs(qrel_map, qid)
        if not relevant:
            continue
        k = len(relevant) if depth == "auto" else min(depth, len(relevant))
        cut[qid] = len(relevant) if depth == "auto" else depth
        perfect_lists[qid] = [doc for doc, _ in relevant[:k]]
        perfect_weights[qid] = tied_rank_weights([grade for _, grade in relevant[:k]])

    system_lists = {run.name: {qid: run.doc_ids(qid, cut[qid]) for qid in cut if qid in run.ranking} for run in run_list}
    pool = sorted({doc for lists in [perfect_lists, *system_lists.values()] for docs in lists.values() for doc in docs})
    random_lists: dict[str, list[str]] = {}
    if random_baseline and pool:
        rng = np.random.default_rng(seed)
        for qid in cut:
            size = min(cut[qid], len(pool))
            random_lists[qid] = [pool[i] for i in rng.choice(len(pool), size=size, replace=False)]

    store = TermStore.for_corpus(corpus_obj, cache_dir)
    missing = store.ensure(corpus_obj, set(pool), progress=progress)
    if missing:
        _raise_missing(missing, run_list, perfect_lists, qrels, corpus)
    model = GenderednessModel(store, emb, direction)

    query_rows = {}
    for qid in qids:
        text = topic_map[qid].text(query_field)
        tokens = model.query_tokens(text)
        g_q, n_used, _ = model.query_genderedness(text)
        query_rows[qid] = (text, tokens, g_q, n_used)

    def per_query_table(lists: Mapping[str, list[str]], weights_of) -> pd.DataFrame:
        records = []
        for qid in qids:
            text, tokens, g_q, _ = query_rows[qid]
            record = {"qid": qid, "query": text, "query_genderedness": g_q, "list_genderedness": float("nan"),
                      "depth": cut.get(qid, 0), "n_docs": 0, "n_docs_unmeasurable": 0, "used": False, "reason": ""}
            if qid not in cut:
                record["reason"] = REASON_NO_RELEVANT
            elif np.isnan(g_q):
                record["reason"] = REASON_QUERY_OOV
            elif not lists.get(qid):
                record["reason"] = REASON_NOT_IN_RUN
            else:
                docs = lists[qid]
                doc_g = model.document_genderedness(docs, tokens)
                record["n_docs"] = len(docs)
                record["n_docs_unmeasurable"] = int(np.isnan(doc_g).sum())
                record["list_genderedness"] = list_genderedness(doc_g, weights_of(qid, len(docs)))
                if np.isnan(record["list_genderedness"]):
                    record["reason"] = REASON_NO_MEASURABLE
                else:
                    record["used"] = True
            records.append(record)
        return pd.DataFrame.from_records(records)

    def plain(qid: str, n: int) -> np.ndarray:
        return rank_weights(n)  # a system's rank weights do not depend on the query

    perfect_gsr = fit_gsr(PERFECT, per_query_table(perfect_lists, lambda qid, n: perfect_weights[qid]), n_bootstrap, seed)
    perfect_run = Run.from_lists(PERFECT, perfect_lists)
    systems = {
        PERFECT: SystemAudit(PERFECT, "perfect", perfect_gsr, 0.0, None, evaluate(perfect_run, qrel_map, measures, qids))
    }
    entries = [(run.name, "system", system_lists[run.name], run, run.path) for run in run_list]
    if random_lists:
        entries.insert(0, (RANDOM, "random", random_lists, Run.from_lists(RANDOM, random_lists), None))
    for name, kind, lists, run, source in entries:
        result = fit_gsr(name, per_query_table(lists, plain), n_bootstrap, seed)
        systems[name] = SystemAudit(
            name=name,
            kind=kind,
            gsr=result,
            relative_gsr=relative_gsr(result.slope, perfect_gsr.slope),
            vs_perfect=paired_gsr_test(result, perfect_gsr, n_bootstrap, seed),
            evaluation=evaluate(run, qrel_map, measures, qids),
            source=source,
        )

    counts = {
        "topics": len(qids),
        "queries_with_relevant": len(cut),
        "qrels_queries_not_in_topics": sum(1 for q in qrel_map if q not in topic_map),
        "queries_without_measurable_term": sum(1 for q in cut if np.isnan(query_rows[q][2])),
        "documents_read": len(pool),
        "documents_without_measurable_term": int(np.sum(model.doc_counts[store.rows(pool)] == 0)) if pool else 0,
    }
    return AuditResult(systems, emb.name, direction, depth, query_field, counts, tuple(measures))


def _raise_missing(missing: set[str], runs: list[Run], perfect_lists, qrels, corpus) -> None:
    name = getattr(corpus, "name", None) or str(corpus)
    for run in runs:
        for (qid, doc_id), line in sorted(run.line_of.items(), key=lambda item: item[1]):
            if doc_id in missing:
                raise IrfairInputError(run.path or run.name, line, f"document {doc_id} (query {qid}) is not in the corpus {corpus}")
        for qid, hits in run.ranking.items():
            for doc_id, _ in hits:
                if doc_id in missing:
                    raise IrfairInputError(run.name, None, f"document {doc_id} (query {qid}) is not in the corpus {name}")
    doc_id = sorted(missing)[0]
    qid = next(q for q, docs in perfect_lists.items() if doc_id in docs)
    line = None
    if isinstance(qrels, (str, Path)):
        for number, text in enumerate(Path(qrels).read_text(encoding="utf-8").splitlines(), start=1):
            parts = text.split()
            if len(parts) == 4 and parts[0] == qid and parts[2] == doc_id:
                line = number
                break
    raise IrfairInputError(qrels if isinstance(qrels, (str, Path)) else "qrels", line,
                           f"relevant document {doc_id} (query {qid}) is not in the corpus {corpus}")
