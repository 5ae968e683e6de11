"""K-fold splits of the queries for cross-validated training, and the queries training can use."""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from ...atomic import write_text
from ...errors import IrfairInputError
from ...trec import Qrels, Run, natural_qid_key


def make_folds(qids: Sequence[str], k: int = 5) -> list[list[str]]:
    """Deterministic round-robin split of the sorted query ids into ``k`` folds."""
    ordered = sorted(qids, key=natural_qid_key)
    return [ordered[i::k] for i in range(k)]


def load_or_make_folds(qids: Sequence[str], k: int, path: str | Path | None) -> list[list[str]]:
    """Folds from ``path`` when it exists (every query must be in exactly one fold), else made and written there."""
    if path is not None and Path(path).is_file():
        try:
            folds = json.loads(Path(path).read_text(encoding="utf-8"))["folds"]
            listed = [str(q) for fold in folds for q in fold]
        except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError):
            raise IrfairInputError(path, None, 'folds file must be JSON {"folds": [[qid, ...], ...]}') from None
        missing = sorted(set(qids) - set(listed), key=natural_qid_key)
        if missing or len(listed) != len(set(listed)):
            raise IrfairInputError(path, None, f"folds must list every query once (missing: {', '.join(missing[:5]) or 'none'})")
        wanted = set(qids)
        return [[str(q) for q in fold if str(q) in wanted] for fold in folds]
    folds = make_folds(qids, k)
    if path is not None:
        write_text(path, json.dumps({"folds": folds}, indent=1) + "\n")
    return folds


def training_queries(queries: Mapping[str, str], qrels: Qrels, candidates: Run, k: int,
                     qrels_source: str | Path | None = None) -> list[str]:
    """The queries to re-rank: those of ``queries`` (in their order) with candidates. Refuses
    (IrfairInputError naming ``qrels_source``, the qrels file, when given) when no query of the topics, the
    qrels and the candidates alike has a relevant document — nothing could be learnt — or when fewer
    queries than folds have candidates."""
    with_candidates = [qid for qid in queries if candidates.ranking.get(qid)]
    judged = [qid for qid in with_candidates if any(grade > 0 for grade in qrels.get(qid, {}).values())]
    source = candidates.path or candidates.name
    if not judged:
        raise IrfairInputError(qrels_source, None,
                               f"no query of the topics ({len(queries)}), the qrels ({len(qrels)}) and the candidates "
                               f"({len(candidates.ranking)}) alike has a relevant document: nothing to train on "
                               f"(queries with candidates and topics: {len(with_candidates)})")
    if len(with_candidates) < max(k, 3):
        raise IrfairInputError(source, None, f"neural training needs candidates for at least {max(k, 3)} queries "
                                             f"({k} folds), found {len(with_candidates)}")
    return with_candidates
