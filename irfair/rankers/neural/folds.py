"""K-fold splits of the queries for cross-validated training, and the queries training can use."""
from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

from ...atomic import write_text
from ...errors import IrfairInputError, IrfairWarning
from ...numbers import first_few
from ...trec import Qrels, Run, natural_qid_key


def make_folds(qids: Sequence[str], k: int = 5) -> list[list[str]]:
    """Deterministic round-robin split of the sorted query ids into ``k`` folds."""
    ordered = sorted(qids, key=natural_qid_key)
    return [ordered[i::k] for i in range(k)]


MIN_FOLDS = 3  # a training, a validation and a test fold
_SHAPE = 'folds file must be JSON {"folds": [[qid, ...], ...]}'


def _read_folds(path: Path) -> list[list[str]]:
    """The folds of a folds file as lists of query ids (text), or IrfairInputError saying what is wrong."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise IrfairInputError(path, exc.lineno, f"{_SHAPE}; not JSON ({exc.msg})") from None
    except UnicodeDecodeError:
        raise IrfairInputError(path, None, f"{_SHAPE}; not UTF-8 text") from None
    if not isinstance(document, dict) or not isinstance(document.get("folds"), list):
        raise IrfairInputError(path, None, f"{_SHAPE}; found no list under \"folds\"")
    folds = []
    for number, fold in enumerate(document["folds"], 1):
        if not isinstance(fold, list):
            raise IrfairInputError(path, None, f"{_SHAPE}; fold {number} is a {type(fold).__name__}, not a list")
        bad = next((q for q in fold if isinstance(q, bool) or not isinstance(q, (str, int))), None)
        if bad is not None:
            raise IrfairInputError(path, None, f"{_SHAPE}; fold {number} holds {json.dumps(bad)}, not a query id")
        folds.append([str(q) for q in fold])
    if len(folds) < MIN_FOLDS:
        held = f"{len(folds)} fold{'' if len(folds) == 1 else 's'}"
        raise IrfairInputError(path, None, f"folds file holds {held}; cross-validation needs at least {MIN_FOLDS} "
                                           "(training, validation and test folds)")
    return folds


def read_folds(path: str | Path, qids: Sequence[str]) -> tuple[list[list[str]], list[str]]:
    """The folds of the folds file ``path`` restricted to ``qids``, and the query ids it lists beyond them.
    IrfairInputError unless it is a JSON file of at least :data:`MIN_FOLDS` folds listing every query of
    ``qids`` exactly once, each fold holding at least one of them."""
    path = Path(path)
    if path.is_dir():
        raise IrfairInputError(path, None, "the folds file is a folder, expected a JSON file")
    folds = _read_folds(path)
    seen: dict[str, int] = {}
    for number, fold in enumerate(folds, 1):
        for qid in fold:
            if qid in seen:
                where = f"in folds {seen[qid]} and {number}" if seen[qid] != number else f"twice in fold {number}"
                raise IrfairInputError(path, None, f"folds must list every query once; query {qid} is {where}")
            seen[qid] = number
    missing = sorted(set(qids) - seen.keys(), key=natural_qid_key)
    if missing:
        are = "query is" if len(missing) == 1 else "queries are"
        raise IrfairInputError(path, None, f"folds must list every query once; {len(missing)} re-ranked {are} in no fold "
                                           f"({first_few(missing)})")
    wanted = set(qids)
    kept = [[q for q in fold if q in wanted] for fold in folds]
    empty = [number for number, fold in enumerate(kept, 1) if not fold]
    if empty:
        raise IrfairInputError(path, None, f"fold {empty[0]} holds none of the re-ranked queries: nothing to test or validate on")
    return kept, sorted(seen.keys() - wanted, key=natural_qid_key)


def load_or_make_folds(qids: Sequence[str], k: int, path: str | Path | None) -> list[list[str]]:
    """Folds from ``path`` when it exists (:func:`read_folds`; the queries it lists beyond ``qids`` are
    left out with one warning, and a count other than ``k`` is said in another), else ``k`` folds made and
    written there."""
    if path is None or not Path(path).exists():
        folds = make_folds(qids, k)
        if path is not None:
            write_text(path, json.dumps({"folds": folds}, indent=1) + "\n")
        return folds
    folds, unknown = read_folds(path, qids)
    if len(folds) != k:
        warnings.warn(f"{path}: the folds file's {len(folds)} folds are used, not {k} (--folds)", IrfairWarning, stacklevel=2)
    if unknown:
        warnings.warn(f"{path}: {len(unknown)} queries of the folds file are not re-ranked (not in the topics, or without "
                      f"candidates) and are left out: {first_few(unknown)}", IrfairWarning, stacklevel=2)
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
