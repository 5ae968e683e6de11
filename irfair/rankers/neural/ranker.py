"""DRMM and MatchPyramid as :class:`irfair.rankers.Ranker` objects: re-rankers of another run's
candidates, trained by K-fold cross-validation over queries each time they re-rank (:mod:`.train`)."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ...corpus import Corpus, TermStore
from ...embeddings import Embeddings, load_embeddings
from ...errors import IrfairInputError
from ...gender.debias import debiased
from ...trec import Qrels, Run
from ..registry import RankerSpec
from .train import TrainingResult, run_name, train_folds


@dataclass
class NeuralRanker:
    """A neural re-ranker with its training settings (see :func:`.train.train_folds`); ``report``
    receives one progress line per epoch (the CLI sets it when stderr is not a terminal), ``training``
    holds the last re-ranking's :class:`.train.TrainingResult`."""

    model: str
    store: TermStore
    embeddings: Embeddings
    corpus: Corpus
    qrels: Qrels
    params: dict
    folds_file: Path | None = None
    log_path: Path | None = None
    progress: bool = False
    threads: int = 2
    report: Callable[[str], None] | None = None
    training: TrainingResult | None = None
    cache_dir: object = None  # where the training inputs are kept (irfair.cache.CacheDir)

    @property
    def name(self) -> str:
        """``drmm_<embeddings>`` (``drmm+first-stage_<embeddings>`` when interpolated)."""
        return run_name(self.model, self.embeddings.name, self.params["interpolate"])

    def rank(self, queries: Mapping[str, str], depth: int = 1000) -> Run:
        """Not offered: a neural ranker re-ranks candidates (e.g. BM25's) it is trained on."""
        raise IrfairInputError(None, None, f"{self.model} re-ranks candidates: give a candidate run (e.g. BM25's)")

    def rerank(self, queries: Mapping[str, str], candidates: Run, depth: int | None = None) -> Run:
        """Cross-validated training and re-ranking of each query's top-N candidates."""
        p = self.params
        self.training = train_folds(
            self.model, self.store, self.embeddings, queries, self.qrels, candidates, p["top_n"], corpus=self.corpus,
            folds=p["folds"], folds_file=self.folds_file, epochs=p["epochs"], learning_rate=p["learning_rate"],
            query_length=p["query_length"], doc_len=p.get("doc_len", 300), matching=p.get("matching", "cosine"),
            seed=p["seed"], threads=self.threads, progress=self.progress, report=self.report, log_path=self.log_path,
            interpolate_first_stage=p["interpolate"], interpolation_weight=p["interpolation_weight"],
            batch_size=p.get("batch_size", 32), device=p.get("device", "auto"), cache_dir=self.cache_dir)
        run = self.training.run
        if depth is not None:
            run.ranking = {qid: hits[:depth] for qid, hits in run.ranking.items()}
        return run


def build(spec: RankerSpec, context, params: dict) -> NeuralRanker:
    """The registry's builder."""
    if params["folds"] < 3:
        raise IrfairInputError(None, None, "--folds must be at least 3 (train, validation and test folds)")
    embeddings = debiased(load_embeddings(context.embeddings, context.cache_dir), context.variant, context.cache_dir)
    return NeuralRanker(spec.name, context.term_store(), embeddings, context.corpus, context.qrels, params,
                        context.folds_file, context.log_path, context.progress, context.threads, cache_dir=context.cache_dir)
