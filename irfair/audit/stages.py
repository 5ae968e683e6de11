"""The data the audit's stages hand on (:mod:`.core`): its settings, what it read, the lists it measures, and
every row measured — each a frozen dataclass, so a stage's output cannot change under the next."""
from __future__ import annotations

import functools
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..cache.arrays import ArraysMemo, arrays_memo
from ..corpus import Corpus, TermStore
from ..embeddings import Embeddings
from ..gender.direction import GenderDirection
from ..gender.genderedness import GenderednessModel
from ..trec import Qrels, Run
from .baselines import PerfectRun
from .bias import BiasSetup
from .comparisons import Inference
from .per_query import QueryGenderedness
from .result import SystemAudit


@dataclass(frozen=True)
class AuditConfig:
    """The settings of one audit, checked: what :func:`audit`'s keywords say, with the bias measures resolved."""

    depth: str | int
    query_field: str
    inference: Inference
    measures: tuple
    labels: tuple[str, ...]
    complete: bool
    relevance_level: int
    max_depth: int | None
    random_baseline: bool
    progress: bool
    strict: bool
    bias: BiasSetup
    background_depth: int
    document_groups: object
    group_attribute: str | None


@dataclass(frozen=True)
class Inputs:
    """What the audit reads: topics, qrels, runs (and NFaiRR's background run), the corpus with its term store and
    the embeddings with their gender direction, as given (``sources``: the caller's own arguments, for provenance)."""

    topics: dict
    qrels: Qrels
    runs: list[Run]
    background: Run | None
    corpus: Corpus
    store: TermStore
    embeddings: Embeddings
    direction: GenderDirection
    sources: dict
    cache: Path | None = None  # the cache folder (None: no cache)

    @property
    def qids(self) -> list[str]:
        return list(self.topics)

    @functools.cached_property
    def memo(self) -> ArraysMemo | None:
        """Where the audit keeps the values that take long to compute (:func:`irfair.cache.arrays.arrays_memo`)."""
        return arrays_memo(self.cache)


@dataclass(frozen=True)
class Documents:
    """The lists the audit measures, as rows of the term store: the perfect run's (with its grades), the random run's,
    each system's at GSR's depth and at the bias measures' depth, NFaiRR's background; the bias setup with its
    background and exposure inputs; the perfect run's bias measures (started on a thread); the run documents the
    corpus lacks."""

    perfect: PerfectRun
    random_lists: dict[str, list[str]]
    corpus_size: int | None
    bias: BiasSetup
    perfect_rows: dict[str, np.ndarray]
    background_rows: dict[str, np.ndarray]
    random_rows: dict[str, np.ndarray]
    system_rows: dict[str, dict[str, np.ndarray]]
    bias_rows: dict[str, dict[str, np.ndarray]]
    perfect_bias: Future
    missing: set[str]
    first_missing: str | None


@dataclass(frozen=True)
class Measured:
    """Every row of the audit measured (perfect, random, systems: GSR, effectiveness, bias), the queries' g(q), the
    genderedness model and the distinct documents GSR read."""

    systems: dict[str, SystemAudit]
    queries: dict[str, QueryGenderedness]
    model: GenderednessModel
    needed: np.ndarray
