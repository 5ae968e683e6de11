"""Training and re-ranking for DRMM and MatchPyramid: K-fold cross-validation over queries.

Folds: queries (those with candidates) sorted by id (numerically when possible) are dealt round-robin
into K folds; the split is written to a JSON folds file and read back when that file exists. For each
fold f: test = fold f, validation = fold f+1 (mod K), training = the rest. Training pairs: each relevant
candidate of a training query (positive) with a non-relevant document sampled from its top-N candidates
(negative; ``negatives_per_positive`` draws each epoch), pairwise hinge loss, Adam (learning rate 1e-2 for
DRMM, 1e-3 for MatchPyramid unless given). After each epoch the validation queries' candidates are re-ranked
and MAP computed; training stops after ``patience`` epochs without improvement and the best epoch's
weights re-rank the test fold's top-N candidates. Seeds are fixed (numpy and torch, per fold); on the
CPU torch runs deterministic algorithms. A GPU is used when torch sees one.

Positives are the relevant documents *among the candidates*: relevant documents that BM25 did not
retrieve mostly share no query term with the query, and training on them against negatives drawn from
the top-N taught the models to prefer documents with fewer exact matches (on Vaswani: training-set MAP
0.15 instead of 0.20 for DRMM).
"""
from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ...atomic import write_text
from ...corpus.base import Corpus
from ...corpus.termstore import TermStore
from ...embeddings import Embeddings
from ...errors import IrfairInputError, MissingExtraError
from ...measures.effectiveness import evaluate
from ...text import content_tokens
from ...trec import Qrels, Run, natural_qid_key, trec_eval_order
from ..registry import NEURAL, rankers_of
from .features import DEFAULT_BINS, matching_histograms, similarity_matrix

MODELS = rankers_of(NEURAL)
DEFAULT_LEARNING_RATE = {"drmm": 1e-2, "matchpyramid": 1e-3}


def _torch():
    try:
        import torch
    except ImportError:
        raise MissingExtraError("torch", "neural") from None
    return torch


def make_folds(qids: Sequence[str], k: int = 5) -> list[list[str]]:
    """Deterministic round-robin split of the sorted query ids into ``k`` folds."""
    ordered = sorted(qids, key=natural_qid_key)
    return [ordered[i::k] for i in range(k)]


def load_or_make_folds(qids: Sequence[str], k: int, path: str | Path | None) -> list[list[str]]:
    """Folds from ``path`` when it exists (every query must be in exactly one fold), else made and written there."""
    if path is not None and Path(path).is_file():
        try:
            folds = json.loads(Path(path).read_text(encoding="utf-8"))["folds"]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise IrfairInputError(path, None, 'folds file must be JSON {"folds": [[qid, ...], ...]}') from None
        listed = [str(q) for fold in folds for q in fold]
        missing = sorted(set(qids) - set(listed))
        if missing or len(listed) != len(set(listed)):
            raise IrfairInputError(path, None, f"folds must list every query once (missing: {', '.join(missing[:5]) or 'none'})")
        return [[str(q) for q in fold if str(q) in set(qids)] for fold in folds]
    folds = make_folds(qids, k)
    if path is not None:
        write_text(path, json.dumps({"folds": folds}, indent=1) + "\n")
    return folds


class PairFeatures:
    """Model inputs for (qid, doc_id) pairs, computed once (numpy, float16 for similarity matrices)."""

    def __init__(self, model: str, embeddings: Embeddings, query_tokens: Mapping[str, list[str]],
                 doc_tokens: Mapping[str, list[str]], idf: Mapping[str, float], default_idf: float,
                 pairs: Sequence[tuple[str, str]], query_len: int = 10, doc_len: int = 300, n_bins: int = DEFAULT_BINS) -> None:
        self.model = model
        self.row = {pair: i for i, pair in enumerate(pairs)}
        n = len(pairs)
        if model == "drmm":
            self.histograms = np.zeros((n, query_len, n_bins), dtype=np.float32)
            self.idf = np.zeros((n, query_len), dtype=np.float32)
            self.mask = np.zeros((n, query_len), dtype=bool)
            for i, (qid, doc) in enumerate(pairs):
                q = query_tokens[qid][:query_len]
                if not q:
                    continue
                self.histograms[i, : len(q)] = matching_histograms(embeddings, q, doc_tokens[doc], n_bins)
                self.idf[i, : len(q)] = [idf.get(t, default_idf) for t in q]
                self.mask[i, : len(q)] = True
        else:
            self.matrices = np.zeros((n, query_len, doc_len), dtype=np.float16)
            for i, (qid, doc) in enumerate(pairs):
                self.matrices[i] = similarity_matrix(embeddings, query_tokens[qid], doc_tokens[doc], query_len, doc_len)

    def batch(self, pairs: Sequence[tuple[str, str]], device):
        """Tensors for ``pairs`` on ``device``."""
        torch = _torch()
        rows = np.array([self.row[p] for p in pairs])
        if self.model == "drmm":
            mask = self.mask[rows].copy()
            mask[~mask.any(axis=1), 0] = True  # a query without tokens still gets one (zero) term
            return (torch.from_numpy(self.histograms[rows]).to(device), torch.from_numpy(self.idf[rows]).to(device),
                    torch.from_numpy(mask).to(device))
        return (torch.from_numpy(self.matrices[rows].astype(np.float32)).to(device),)


def _new_model(name: str):
    from .models import DRMM, MatchPyramid

    return DRMM() if name == "drmm" else MatchPyramid()


def _score(model, features: PairFeatures, pairs: Sequence[tuple[str, str]], device, batch_size: int = 256) -> np.ndarray:
    torch = _torch()
    model.eval()
    out = []
    with torch.no_grad():
        for start in range(0, len(pairs), batch_size):
            out.append(model(*features.batch(pairs[start : start + batch_size], device)).float().cpu().numpy())
    return np.concatenate(out) if out else np.zeros(0)


def _rerank(model, features, candidates: Mapping[str, list[str]], qids: Sequence[str], device, name: str) -> Run:
    pairs = [(q, d) for q in qids for d in candidates.get(q, [])]
    scores = _score(model, features, pairs, device)
    ranking: dict[str, list[tuple[str, float]]] = {}
    for (qid, doc), score in zip(pairs, scores):
        ranking.setdefault(qid, []).append((doc, float(score)))
    return Run(name, {qid: trec_eval_order(hits) for qid, hits in ranking.items()}, tag=name)


INTERPOLATION_WEIGHTS = tuple(round(0.1 * i, 1) for i in range(11))


def _min_max(hits: list[tuple[str, float]]) -> dict[str, float]:
    scores = np.array([score for _, score in hits])
    span = scores.max() - scores.min() if len(scores) else 0.0
    return {doc: (score - scores.min()) / span if span > 0 else 0.0 for doc, score in hits}


def interpolate(neural: Run, first_stage: Run, weight: float, name: str) -> Run:
    """Per query: weight · minmax(first-stage score) + (1 − weight) · minmax(neural score)."""
    ranking = {}
    for qid, hits in neural.ranking.items():
        a, b = _min_max(hits), _min_max(first_stage.ranking.get(qid, []))
        mixed = [(doc, (1 - weight) * a[doc] + weight * b.get(doc, 0.0)) for doc, _ in hits]
        ranking[qid] = trec_eval_order(mixed)
    return Run(name, ranking, tag=name)


def run_name(model_name: str, embeddings_name: str, interpolated: bool) -> str:
    """``drmm_<embeddings>``, or ``drmm+first-stage_<embeddings>`` when interpolated with the candidates."""
    return f"{model_name}{'+first-stage' if interpolated else ''}_{embeddings_name}"


def train_and_rerank(model_name: str, store: TermStore, embeddings: Embeddings, queries: Mapping[str, str], qrels: Qrels,
                     candidates: Run, top_n: int = 100, *, corpus: Corpus, folds: int = 5, folds_file: str | Path | None = None,
                     epochs: int = 10, batch_size: int = 32, learning_rate: float | None = None, negatives_per_positive: int = 4,
                     query_len: int = 10,
                     doc_len: int = 300, patience: int = 3, seed: int = 0, progress: bool = False,
                     log_path: str | Path | None = None, device: str | None = None, interpolate_first_stage: bool = False) -> Run:
    """Cross-validated training of ``model_name`` and re-ranking of every query's top-N candidates.

    With ``interpolate_first_stage`` the final score of a candidate is
    λ · minmax(candidate score) + (1 − λ) · minmax(model score) per query, λ in {0, 0.1, ..., 1} chosen by
    MAP on each fold's validation queries (never on its test queries) and written to the log."""
    if model_name not in MODELS:
        raise ValueError(f"model must be one of {MODELS}")
    torch = _torch()
    from tqdm.auto import tqdm

    from .models import pairwise_hinge_loss

    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    qids = [q for q in queries if candidates.ranking.get(q)]
    if len(qids) < 3:
        raise IrfairInputError(candidates.path or candidates.name, None, "neural training needs candidates for at least 3 queries")
    fold_lists = load_or_make_folds(qids, folds, folds_file)
    top = {q: candidates.doc_ids(q, top_n) for q in qids}
    relevant = {q: [d for d in top[q] if qrels.get(q, {}).get(d, 0) > 0] for q in qids}
    wanted = {d for docs in top.values() for d in docs}
    doc_tokens = {doc: content_tokens(text, store.stopwords) for doc, text in corpus.iter_docs(wanted)}
    if wanted - doc_tokens.keys():
        raise IrfairInputError(candidates.path or candidates.name, None,
                               f"candidate document {sorted(wanted - doc_tokens.keys())[0]} is not in the corpus {corpus.name}")
    query_tokens = {q: content_tokens(queries[q], store.stopwords) for q in qids}

    matrix = store.matrix()
    df = np.asarray((matrix > 0).sum(axis=0)).ravel()
    n_docs = max(1, matrix.shape[0])
    terms = {t for ts in query_tokens.values() for t in ts}
    idf = {t: math.log(n_docs / df[i]) for t in terms if (i := store.term_id.get(t)) is not None and df[i] > 0}
    pairs = sorted({(q, d) for q in qids for d in top[q]})
    features = PairFeatures(model_name, embeddings, query_tokens, doc_tokens, idf, math.log(n_docs), pairs, query_len, doc_len)

    log_lines = ["fold\tepoch\tloss\tvalidation_MAP"]
    merged: dict[str, list[tuple[str, float]]] = {}
    for fold, test_qids in enumerate(fold_lists):
        torch.manual_seed(seed + fold)
        if device == "cpu":
            torch.use_deterministic_algorithms(True)
        rng = np.random.default_rng(seed + fold)
        validation = fold_lists[(fold + 1) % len(fold_lists)]
        training = [q for i, f in enumerate(fold_lists) if i not in (fold, (fold + 1) % len(fold_lists)) for q in f]
        model = _new_model(model_name).to(device)
        optimiser = torch.optim.Adam(model.parameters(), lr=learning_rate or DEFAULT_LEARNING_RATE[model_name])
        best_map, best_state, waited = -1.0, copy.deepcopy(model.state_dict()), 0
        for epoch in tqdm(range(1, epochs + 1), desc=f"{model_name} fold {fold + 1}/{len(fold_lists)}", disable=not progress):
            triples = []
            for q in training:
                negatives = [d for d in top[q] if qrels.get(q, {}).get(d, 0) <= 0]
                if not negatives:
                    continue
                triples += [(q, p, negatives[i]) for p in relevant[q]
                            for i in rng.integers(len(negatives), size=negatives_per_positive)]
            rng.shuffle(triples)
            model.train()
            losses = []
            for start in range(0, len(triples), batch_size):
                chunk = triples[start : start + batch_size]
                positive = model(*features.batch([(q, p) for q, p, _ in chunk], device))
                negative = model(*features.batch([(q, n) for q, _, n in chunk], device))
                loss = pairwise_hinge_loss(positive, negative)
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                losses.append(float(loss.detach()))
            val_run = _rerank(model, features, top, validation, device, model_name)
            val_map = evaluate(val_run, qrels, ["MAP"], qids=validation).means["MAP"]
            log_lines.append(f"{fold + 1}\t{epoch}\t{np.mean(losses) if losses else float('nan'):.5f}\t{val_map:.4f}")
            if val_map > best_map + 1e-9:
                best_map, best_state, waited = val_map, copy.deepcopy(model.state_dict()), 0
            else:
                waited += 1
                if waited >= patience:
                    break
        model.load_state_dict(best_state)
        test_run = _rerank(model, features, top, test_qids, device, model_name)
        if interpolate_first_stage:
            val_run = _rerank(model, features, top, validation, device, model_name)
            maps = {w: evaluate(interpolate(val_run, candidates, w, model_name), qrels, ["MAP"], qids=validation).means["MAP"]
                    for w in INTERPOLATION_WEIGHTS}
            weight = max(INTERPOLATION_WEIGHTS, key=lambda w: (maps[w], -w))
            log_lines.append(f"{fold + 1}\tinterpolation weight {weight}\t\t{maps[weight]:.4f}")
            test_run = interpolate(test_run, candidates, weight, model_name)
        merged.update(test_run.ranking)
        if device == "cpu":
            torch.use_deterministic_algorithms(False)
    if log_path is not None:
        write_text(log_path, "\n".join(log_lines) + "\n")
    name = run_name(model_name, embeddings.name, interpolate_first_stage)
    return Run(name, {q: merged[q] for q in qids if q in merged}, tag=name)
