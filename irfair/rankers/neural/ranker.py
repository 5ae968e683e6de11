"""DRMM and MatchPyramid as :class:`irfair.rankers.Ranker` objects: re-rankers of another run's
candidates, trained by K-fold cross-validation over queries each time they re-rank (:mod:`.train`)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ...corpus import Corpus, TermStore
from ...embeddings import Embeddings, load_embeddings
from ...errors import IrfairInputError
from ...gender.debias import debiased
from ...trec import Qrels, Run
from ..registry import RankerSpec
from .train import run_name, train_and_rerank


@dataclass
class NeuralRanker:
    """A neural re-ranker with its training settings (see :func:`train_and_rerank`)."""

    model: str
    store: TermStore
    embeddings: Embeddings
    corpus: Corpus
    qrels: Qrels
    params: dict
    folds_file: Path | None = None
    log_path: Path | None = None
    progress: bool = False

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
        run = train_and_rerank(self.model, self.store, self.embeddings, queries, self.qrels, candidates, p["top_n"],
                               corpus=self.corpus, folds=p["folds"], folds_file=self.folds_file, epochs=p["epochs"],
                               doc_len=p["doc_len"], seed=p["seed"], progress=self.progress, log_path=self.log_path,
                               interpolate_first_stage=p["interpolate"])
        if depth is not None:
            run.ranking = {qid: hits[:depth] for qid, hits in run.ranking.items()}
        return run


def build(spec: RankerSpec, context, params: dict) -> NeuralRanker:
    """The registry's builder."""
    if params["folds"] < 3:
        raise IrfairInputError(None, None, "--folds must be at least 3 (train, validation and test folds)")
    embeddings = debiased(load_embeddings(context.embeddings, context.cache_dir), context.variant, context.cache_dir)
    return NeuralRanker(spec.name, context.term_store(), embeddings, context.corpus, context.qrels, params,
                        context.folds_file, context.log_path, context.progress)
