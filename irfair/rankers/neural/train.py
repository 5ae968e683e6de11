"""Training and re-ranking for DRMM and MatchPyramid: K-fold cross-validation over queries.

Folds (:mod:`.folds`): for each fold f, test = fold f, validation = fold f+1 (mod K), training = the rest.
Training pairs: each relevant candidate of a training query (positive) with ``negatives`` non-relevant
documents drawn from its top-N candidates each epoch; pairwise hinge loss (margin 1), Adam. After each
epoch the validation queries are re-ranked and their MAP computed; training stops after ``patience``
epochs without improvement and the best epoch's weights re-rank the test fold. When the validation fold
has no relevant candidate, every epoch is trained and the last one kept (said in the log).

Decisions, each measured on Vaswani and TIME (BM25 top-100 candidates, 5-fold CV, mean MAP of 3 seeds;
``docs/rankers/neural.md`` has them all):

* whole queries by default (``query_length`` 0): the earlier cut to 10 content tokens took DRMM's MAP
  from 0.190 to 0.183 on Vaswani (the paper's set-up) and from 0.620 to 0.610 on TIME, and drops most of
  the words of long (description) queries;
* positives are the relevant documents *among the candidates*; negatives are drawn from all top-N
  candidates (from the top 20 only, Vaswani's DRMM fell to 0.100); 4 negatives per positive (DRMM
  1: 0.221, 4: 0.224, 16: 0.220; MatchPyramid 8: 0.213 against 0.229 with 4);
* Adam at 1e-2 for both models (DRMM at 3e-2: 0.248 / 0.624, at 3e-3 over 30 epochs: 0.252 / 0.618,
  against 0.253 / 0.620; Adagrad at 0.1, the paper's optimiser: 0.253 / 0.622; MatchPyramid at 1e-3:
  0.179 against 0.193, one seed), at most 10 epochs with patience 3 (DRMM 30 epochs with patience 10:
  0.251 / 0.609; MatchPyramid 20 with patience 5: 0.226 against 0.229);
* interpolation with the candidates' scores at a fixed weight (0.5 by default): choosing the weight
  per fold on its ~18 validation queries gave DRMM+BM25 0.260 (Vaswani) / 0.601 (TIME) against
  0.264 / 0.621 at 0.5 — the choice follows the noise of few queries.

Reproducibility: seeds are fixed (numpy and torch, per fold) and torch runs deterministic algorithms on every
device (on a GPU with ``CUBLAS_WORKSPACE_CONFIG`` set before the first cuBLAS call, :mod:`.device`): a run is
byte-identical for a given seed, device and (on the CPU) thread count. ``device`` (``auto``, ``cpu``, ``cuda``,
``cuda:N``): ``auto`` trains MatchPyramid on a GPU when torch sees one, DRMM on the CPU, where it is faster.

The inputs (DRMM's histograms, MatchPyramid's word ids) are built once per collection, candidates, queries and
settings, kept in the cache (``neural`` entries, :mod:`.inputs_cache`) and moved to the device once: a second
training of the same collection reads them (no corpus pass), and a batch is a slice on the device. The loss is
summed on the device and read once per epoch, not once per step.

Training that cannot learn is refused: no query with candidates and a relevant document
(:func:`.folds.training_queries`), or no fold that could train. A fold whose training queries hold no
relevant candidate, or whose loss becomes NaN or infinite, keeps its test queries in the candidates'
order; it is counted in :class:`TrainingResult`, written in the log and warned about.
"""
from __future__ import annotations

import copy
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...atomic import write_text
from ...corpus.base import Corpus
from ...corpus.termstore import TermStore
from ...embeddings import Embeddings
from ...errors import IrfairInputError, IrfairWarning, MissingExtraError
from ...measures.effectiveness import evaluate
from ...text import content_tokens
from ...trec import Qrels, Run, trec_eval_order
from ..registry import NEURAL, rankers_of
from .device import reproducible, resolve_device
from .features import stem_idf
from .folds import load_or_make_folds, make_folds, training_queries
from .inputs import PairInputs
from .inputs_cache import cached_inputs, inputs_key

__all__ = ["MODELS", "TrainingResult", "interpolate", "load_or_make_folds", "make_folds", "run_name",
           "train_folds"]

MODELS = rankers_of(NEURAL)
DEFAULT_LEARNING_RATE = {"drmm": 1e-2, "matchpyramid": 1e-2}


def _torch():
    try:
        import torch
    except ImportError:
        raise MissingExtraError("torch", "neural") from None
    return torch


@dataclass
class TrainingResult:
    """A cross-validated re-ranking: the run, the number of folds, those that kept their candidates' order
    (``(fold, why)``, folds numbered from 1), the training log's lines and the training time in seconds."""

    run: Run
    n_folds: int
    untrained_folds: list[tuple[int, str]] = field(default_factory=list)
    log_lines: list[str] = field(default_factory=list)
    seconds: float = 0.0
    device: str = "cpu"

    def summary(self) -> str:
        """One clause for a closing line: ``5 folds trained on cpu`` or ``1 of 5 folds not trained (...)``."""
        if not self.untrained_folds:
            return f"{self.n_folds} folds trained on {self.device}"
        reasons = "; ".join(f"fold {fold}: {why}" for fold, why in self.untrained_folds)
        return (f"{len(self.untrained_folds)} of {self.n_folds} folds not trained on {self.device}, candidates' order kept "
                f"({reasons})")


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


def _new_model(name: str):
    from .models import DRMM, MatchPyramid

    return DRMM() if name == "drmm" else MatchPyramid()


def _score(model, inputs: PairInputs, pairs: Sequence[tuple[str, str]], device, batch_size: int = 256) -> np.ndarray:
    torch = _torch()
    model.eval()
    out = []
    with torch.no_grad():
        for start in range(0, len(pairs), batch_size):
            out.append(model(*inputs.batch(pairs[start : start + batch_size], device)).float().cpu().numpy())
    return np.concatenate(out) if out else np.zeros(0)


def _rerank(model, inputs: PairInputs, top: Mapping[str, list[str]], qids: Sequence[str], device, name: str) -> Run:
    pairs = [(q, d) for q in qids for d in top[q]]
    scores = _score(model, inputs, pairs, device)
    ranking: dict[str, list[tuple[str, float]]] = {qid: [] for qid in qids}
    for (qid, doc), score in zip(pairs, scores):
        ranking[qid].append((doc, float(score)))
    return Run(name, {qid: trec_eval_order(hits) for qid, hits in ranking.items()}, tag=name)


def _doc_frequencies(store: TermStore) -> Callable[[list[list[int]]], tuple[int, list[int]]]:
    def count(groups: list[list[int]]) -> tuple[int, list[int]]:
        columns = sorted({t for group in groups for t in group})
        if not columns:
            return len(store.doc_ids), [0] * len(groups)
        counts = store.column_counts(np.array(columns)).tocsc()
        position = {t: i for i, t in enumerate(columns)}
        frequencies = []
        for group in groups:
            held = counts[:, [position[t] for t in group]] if group else None
            frequencies.append(0 if held is None else int((np.asarray(held.sum(axis=1)).ravel() > 0).sum()))
        return len(store.doc_ids), frequencies
    return count


def _training_triples(training: Sequence[str], top: Mapping[str, list[str]], relevant: Mapping[str, set[str]],
                      negatives_per_positive: int, rng: np.random.Generator) -> list[tuple[str, str, str]]:
    triples = []
    for q in training:
        negatives = [d for d in top[q] if d not in relevant[q]]
        if not negatives:
            continue
        triples += [(q, p, negatives[i]) for p in top[q] if p in relevant[q]
                    for i in rng.integers(len(negatives), size=negatives_per_positive)]
    rng.shuffle(triples)
    return triples


def _train_fold(model_name: str, inputs: PairInputs, top: Mapping[str, list[str]], relevant: Mapping[str, set[str]],
                qrels: Qrels, training: Sequence[str], validation: Sequence[str], rng: np.random.Generator, fold: str,
                log_lines: list[str], *, epochs: int, batch_size: int, learning_rate: float, negatives_per_positive: int,
                patience: int, device: str, progress: bool, say: Callable[[str], None]):
    """Train one fold's model (``fold``: "2/5"), appending to ``log_lines``: ``(model at its best epoch, None)``,
    or ``(None, why it could not train)``."""
    torch = _torch()
    from tqdm.auto import tqdm

    from . import models

    number = fold.split("/")[0]
    if not any(relevant[q] and len(relevant[q]) < len(top[q]) for q in training):
        return None, "no relevant candidate among its training queries"
    early_stopping = any(relevant[q] for q in validation)
    if not early_stopping:
        log_lines.append(f"{number}\tno relevant candidate in the validation fold: every epoch trained, the last kept\t\t")
    model = _new_model(model_name).to(device)
    optimiser = torch.optim.Adam(model.parameters(), lr=learning_rate)
    best_map, best_state, waited = -1.0, copy.deepcopy(model.state_dict()), 0
    for epoch in tqdm(range(1, epochs + 1), desc=f"{model_name} fold {fold}", disable=not progress):
        model.train()
        losses = []  # on the device: read once per epoch (a read per step would wait for the device every step)
        triples = _training_triples(training, top, relevant, negatives_per_positive, rng)
        for start in range(0, len(triples), batch_size):
            chunk = triples[start : start + batch_size]
            positive = model(*inputs.batch([(q, p) for q, p, _ in chunk], device))
            negative = model(*inputs.batch([(q, n) for q, _, n in chunk], device))
            loss = models.pairwise_hinge_loss(positive, negative)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            losses.append(loss.detach())
        epoch_losses = torch.stack(losses).double().cpu().numpy() if losses else np.zeros(0)
        if not np.isfinite(epoch_losses).all():
            return None, f"loss {epoch_losses[~np.isfinite(epoch_losses)][0]} at epoch {epoch}"
        if not all(torch.isfinite(p).all() for p in model.parameters()):
            return None, f"weights not finite at epoch {epoch}"
        val_map = float("nan")
        if early_stopping:
            val_map = evaluate(_rerank(model, inputs, top, validation, device, model_name), qrels, ["MAP"], qids=validation).means["MAP"]
        mean_loss = float(np.mean(epoch_losses)) if len(epoch_losses) else float("nan")
        log_lines.append(f"{number}\t{epoch}\t{mean_loss:.5f}\t{val_map:.4f}")
        say(f"{model_name} fold {fold} epoch {epoch}/{epochs}: loss {mean_loss:.4f}, validation MAP {val_map:.4f}")
        if not early_stopping or val_map > best_map + 1e-9:
            best_map, best_state, waited = val_map, copy.deepcopy(model.state_dict()), 0
        else:
            waited += 1
            if waited >= patience:
                break
    model.load_state_dict(best_state)
    return model, None


def train_folds(model_name: str, store: TermStore, embeddings: Embeddings, queries: Mapping[str, str], qrels: Qrels,
                candidates: Run, top_n: int = 100, *, corpus: Corpus, folds: int = 5, folds_file: str | Path | None = None,
                epochs: int = 10, batch_size: int = 32, learning_rate: float | None = None, negatives_per_positive: int = 4,
                query_length: int = 0, doc_len: int = 300, matching: str = "cosine", patience: int = 3, seed: int = 0,
                threads: int | None = None, progress: bool = False, report: Callable[[str], None] | None = None,
                log_path: str | Path | None = None, device: str | None = None, interpolate_first_stage: bool = False,
                interpolation_weight: float = 0.5, cache_dir=None) -> TrainingResult:
    """Cross-validated training of ``model_name`` and re-ranking of every query's top-N candidates.

    ``query_length``: content tokens of a query used (0: all); ``doc_len``: MatchPyramid's document tokens;
    ``matching``: MatchPyramid's matching matrix (indicator, cosine, gaussian); ``threads``: torch CPU
    threads while training (None: torch's setting); ``progress``: progress bars; ``report``: called with one
    line per epoch (for logs that are not terminals). With ``interpolate_first_stage`` a candidate's final
    score is λ · minmax(candidate score) + (1 − λ) · minmax(model score) per query, λ = ``interpolation_weight``.
    ``device``: ``auto`` (None), ``cpu``, ``cuda`` or ``cuda:N`` (:mod:`.device`); ``batch_size``: training triples
    per step; ``cache_dir``: where the inputs are kept (None: the default cache folder, False: not kept).
    """
    if model_name not in MODELS:
        raise ValueError(f"model must be one of {MODELS}")
    started = time.perf_counter()
    say = report or (lambda line: None)
    device = resolve_device(device, model_name)
    qids = training_queries(queries, qrels, candidates, folds)
    fold_lists = load_or_make_folds(qids, folds, folds_file)
    top = {q: candidates.doc_ids(q, top_n) for q in qids}
    relevant = {q: {d for d in top[q] if qrels.get(q, {}).get(d, 0) > 0} for q in qids}
    if not any(relevant.values()):
        raise IrfairInputError(candidates.path or candidates.name, None,
                               f"no candidate in the top {top_n} of any query is relevant: nothing to train on; no run written")
    inputs = _inputs(model_name, store, embeddings, queries, candidates, corpus, top, query_length, doc_len, matching,
                     progress, say, cache_dir, device)
    log_lines = ["fold\tepoch\tloss\tvalidation_MAP",
                 f"all\tdevice {device}{f', {threads} CPU threads' if device == 'cpu' and threads else ''}\t\t"]
    settings = dict(epochs=epochs, batch_size=batch_size, learning_rate=learning_rate or DEFAULT_LEARNING_RATE[model_name],
                    negatives_per_positive=negatives_per_positive, patience=patience, device=device, progress=progress, say=say)
    with reproducible(device, threads if device == "cpu" else None):
        merged, untrained = _each_fold(model_name, inputs, fold_lists, top, relevant, qrels, candidates, top_n, seed,
                                       log_lines, settings, interpolation_weight if interpolate_first_stage else None)
    if len(untrained) == len(fold_lists):
        raise IrfairInputError(candidates.path or candidates.name, None,
                               f"{model_name} could not be trained in any fold ({untrained[0][1]} in fold 1); no run written")
    if interpolate_first_stage:
        log_lines.append(f"all\tinterpolation weight {interpolation_weight} (candidates' scores)\t\t")
    if log_path is not None:
        write_text(log_path, "\n".join(log_lines) + "\n")
    name = run_name(model_name, embeddings.name, interpolate_first_stage)
    run = Run(name, {q: merged[q] for q in qids}, tag=name)
    result = TrainingResult(run, len(fold_lists), untrained, log_lines, time.perf_counter() - started, device)
    if untrained:
        warnings.warn(f"{model_name}: {result.summary()}", IrfairWarning, stacklevel=2)
    return result


def _inputs(model_name: str, store: TermStore, embeddings: Embeddings, queries: Mapping[str, str], candidates: Run,
            corpus: Corpus, top: dict[str, list[str]], query_length: int, doc_len: int, matching: str, progress: bool,
            say: Callable[[str], None], cache_dir, device: str) -> PairInputs:
    """The model's inputs for every (query, top candidate) pair, read from the cache or built (one corpus pass over the
    candidates) and kept there."""
    from tqdm.auto import tqdm

    qids = list(top)
    wanted = {d for docs in top.values() for d in docs}
    query_tokens = {q: content_tokens(queries[q], store.stopwords) for q in qids}
    if query_length > 0:
        query_tokens = {q: tokens[:query_length] for q, tokens in query_tokens.items()}
    idf = stem_idf(sorted({t for ts in query_tokens.values() for t in ts}), store.vocab, _doc_frequencies(store))
    pairs = sorted({(q, d) for q in qids for d in top[q]})

    def build() -> PairInputs:
        doc_tokens = {doc: content_tokens(text, store.stopwords) for doc, text in corpus.iter_docs(wanted)}
        if wanted - doc_tokens.keys():
            raise IrfairInputError(candidates.path or candidates.name, None,
                                   f"candidate document {sorted(wanted - doc_tokens.keys())[0]} is not in the corpus {corpus.name}")
        say(f"{model_name}: building the inputs of {len(pairs):,} query-document pairs ({len(qids)} queries)")
        with tqdm(total=len(pairs), desc=f"{model_name} inputs", disable=not progress or model_name != "drmm") as bar:
            return PairInputs.build(model_name, embeddings, query_tokens, doc_tokens, idf, len(store.doc_ids), pairs, doc_len=doc_len,
                                    matching=matching, tick=bar.update if progress and model_name == "drmm" else None)

    key = inputs_key(model_name, embeddings, corpus, store.stopwords, query_tokens, idf, pairs, doc_len=doc_len, matching=matching)
    inputs_started = time.perf_counter()
    inputs = cached_inputs(cache_dir, model_name, key, pairs, matching, build)
    say(f"{model_name}: inputs of {len(pairs):,} pairs ready in {time.perf_counter() - inputs_started:.3f} s; training on {device}")
    return inputs


def _each_fold(model_name: str, inputs: PairInputs, fold_lists: list[list[str]], top: dict[str, list[str]],
               relevant: dict[str, set[str]], qrels: Qrels, candidates: Run, top_n: int, seed: int, log_lines: list[str],
               settings: dict, interpolation_weight: float | None) -> tuple[dict[str, list[tuple[str, float]]], list[tuple[int, str]]]:
    """Train on each fold's training queries (validating on the next fold's) and re-rank its test queries: the merged
    rankings, and the folds not trained with why (their test queries keep the candidates' order)."""
    torch = _torch()
    merged: dict[str, list[tuple[str, float]]] = {}
    untrained: list[tuple[int, str]] = []
    for fold, test_qids in enumerate(fold_lists):
        torch.manual_seed(seed + fold)
        following = (fold + 1) % len(fold_lists)
        training = [q for i, f in enumerate(fold_lists) if i not in (fold, following) for q in f]
        model, failure = _train_fold(model_name, inputs, top, relevant, qrels, training, fold_lists[following],
                                     np.random.default_rng(seed + fold), f"{fold + 1}/{len(fold_lists)}", log_lines, **settings)
        if failure is not None:
            untrained.append((fold + 1, failure))
            log_lines.append(f"{fold + 1}\tnot trained: {failure}; candidates' order kept\t\t")
            merged.update({q: list(candidates.ranking[q][:top_n]) for q in test_qids})
            continue
        test_run = _rerank(model, inputs, top, test_qids, settings["device"], model_name)
        if interpolation_weight is not None:
            test_run = interpolate(test_run, candidates, interpolation_weight, model_name)
        merged.update(test_run.ranking)
    return merged, untrained

