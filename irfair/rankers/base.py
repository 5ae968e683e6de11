"""The :class:`Ranker` protocol and :func:`make_ranker`, which builds any ranker of the registry."""
from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..cache import CacheDir, writable_cache_dir
from ..corpus import Corpus, TermStore, open_corpus
from ..errors import IrfairInputError
from ..settings import check_environment
from ..trec import Qrels, Run, as_qrels
from .registry import EMBEDDING, LEXICAL, NEURAL, RANKERS, RankerSpec


class Ranker(Protocol):
    """What every ranker does: rank a corpus for queries, or re-rank another run's candidates."""

    name: str

    def rank(self, queries: Mapping[str, str], depth: int = 1000) -> Run:
        """``{qid: query text}`` → a run of at most ``depth`` documents per query."""

    def rerank(self, queries: Mapping[str, str], candidates: Run, depth: int | None = None) -> Run:
        """Re-score each query's candidates from ``candidates``; cut at ``depth`` when given."""


@dataclass
class RankerContext:
    """What a ranker is built from besides its parameters: the corpus, the cache folder and, as the
    family needs them, embeddings (name, path or loaded) with their debiasing variant, qrels, an existing
    Lucene index, threads, progress bars and where training writes its folds and log."""

    corpus: Corpus
    cache_dir: Path | None
    embeddings: object = None
    variant: str = "regular"
    qrels: Qrels | None = None
    index: Path | None = None
    threads: int = 2
    progress: bool = False
    folds_file: Path | None = None
    log_path: Path | None = None
    store: TermStore | None = field(default=None, repr=False)

    def term_store(self) -> TermStore:
        """The corpus's term store, complete (tokenised once, cached under the cache folder)."""
        if self.store is None:
            self.store = TermStore.for_corpus(self.corpus, self.cache_dir)
        self.store.ensure(self.corpus, None, progress=self.progress)
        return self.store


_FAMILY_MODULES = {LEXICAL: "irfair.rankers.lexical", EMBEDDING: "irfair.rankers.embedding", NEURAL: "irfair.rankers.neural.ranker"}


def _parameters(spec: RankerSpec, params: Mapping[str, object]) -> dict[str, object]:
    unknown = sorted(set(params) - set(spec.defaults))
    if unknown:
        allowed = ", ".join(spec.defaults) or "none"
        raise IrfairInputError(None, None, f"ranker {spec.name} has no parameter {unknown[0]!r} (parameters: {allowed})")
    values = dict(spec.defaults)
    for parameter in spec.parameters:
        if parameter.name in params and params[parameter.name] is not None:
            try:
                value = parameter.type(params[parameter.name])
            except (TypeError, ValueError):
                raise IrfairInputError(None, None, f"ranker {spec.name}: {parameter.name} must be {parameter.type.__name__}, "
                                                   f"not {params[parameter.name]!r}") from None
            problem = parameter.problem(value)
            if problem is not None:
                raise IrfairInputError(None, None, f"ranker {spec.name}: {parameter.name} {problem}, not {value!r}")
            values[parameter.name] = value
    for parameter in spec.parameters:
        if parameter.needs and params.get(parameter.name) is not None and not values[parameter.needs]:
            raise IrfairInputError(None, None, f"ranker {spec.name}: {parameter.name} is used only with "
                                               f"{parameter.needs}=True")
    return values


def make_ranker(name: str, *, corpus, embeddings=None, variant: str = "regular", cache_dir: CacheDir = None,
                qrels=None, index: str | Path | None = None, threads: int = 2, progress: bool = False,
                folds_file: str | Path | None = None, log_path: str | Path | None = None,
                store: TermStore | None = None, **params) -> Ranker:
    """Build the ranker ``name`` of :data:`RANKERS` with its parameters (defaults from the registry).

    ``corpus``: anything :func:`irfair.open_corpus` takes; ``embeddings``: needed by the embedding and
    neural rankers; ``variant``: regular, hard or strong (debiased embeddings); ``qrels``: needed by the
    neural rankers (cross-validated training); ``cache_dir``: a folder, ``None`` for the default cache
    folder, ``False`` for none (the lexical rankers then need ``index``).
    """
    check_environment()
    spec = RANKERS.get(name)
    if spec is None:
        raise IrfairInputError(None, None, f"unknown ranker {name!r}: expected one of {', '.join(RANKERS)}")
    if spec.needs_embeddings and embeddings is None:
        raise IrfairInputError(None, None, f"ranker {name} needs embeddings")
    if spec.needs_qrels and qrels is None:
        raise IrfairInputError(None, None, f"ranker {name} is trained on relevance judgements: give qrels")
    context = RankerContext(
        corpus=open_corpus(corpus), cache_dir=writable_cache_dir(cache_dir), embeddings=embeddings, variant=variant,
        qrels=None if qrels is None else as_qrels(qrels), index=None if index is None else Path(index),
        threads=threads, progress=progress, folds_file=None if folds_file is None else Path(folds_file),
        log_path=None if log_path is None else Path(log_path), store=store,
    )
    module = importlib.import_module(_FAMILY_MODULES[spec.family])
    return module.build(spec, context, _parameters(spec, params))
