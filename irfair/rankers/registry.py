"""Every ranker irfair can run, declared once as data: its name, family, parameters with defaults, and
what it needs (embeddings, a Lucene index, relevance judgements for training). The CLI's ``--ranker``
choices and options, ``irfair study`` and :func:`irfair.make_ranker` all read this table."""
from __future__ import annotations

import re
from dataclasses import dataclass

LEXICAL = "lexical"
EMBEDDING = "embedding"
NEURAL = "neural"


@dataclass(frozen=True)
class Parameter:
    """One ranker parameter: name (a Python identifier; ``--name-with-dashes`` on the command line),
    default, type, a help text and its valid range (``low``/``high`` inclusive; ``above`` exclusive) or,
    for a text parameter, its ``choices``; ``needs``: the flag parameter without which it is not used."""

    name: str
    default: float | int | bool | str
    type: type
    help: str
    low: float | None = None
    high: float | None = None
    above: float | None = None
    choices: tuple[str, ...] = ()
    needs: str | None = None
    pattern: tuple[str, str] | None = None  # a text parameter's form: (regular expression, its words)

    def problem(self, value: float | str) -> str | None:
        """Why ``value`` is out of range (None when it is valid), e.g. ``must be at least 3``."""
        if self.choices:
            return None if value in self.choices else f"must be one of {', '.join(self.choices)}"
        if self.pattern is not None:
            return None if re.fullmatch(self.pattern[0], str(value).strip().lower()) else f"must be {self.pattern[1]}"
        if self.type is bool:
            return None
        if value != value or value in (float("inf"), float("-inf")):
            return "must be a finite number"
        if self.low is not None and value < self.low:
            return f"must be at least {self.low:g}"
        if self.above is not None and value <= self.above:
            return f"must be greater than {self.above:g}"
        if self.high is not None and value > self.high:
            return f"must be at most {self.high:g}"
        return None

    @property
    def flag(self) -> str:
        """The command-line option, e.g. ``--top-n``."""
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class RankerSpec:
    """A ranker as data: ``make_ranker(name, ...)`` builds it from its family's module."""

    name: str
    family: str
    description: str
    parameters: tuple[Parameter, ...] = ()
    needs_embeddings: bool = False
    needs_qrels: bool = False

    @property
    def defaults(self) -> dict[str, object]:
        """``{parameter: default}``."""
        return {p.name: p.default for p in self.parameters}

    @property
    def ranks_corpus(self) -> bool:
        """True when the ranker ranks a whole corpus; False for re-rankers that need candidates."""
        return self.family != NEURAL

    @property
    def reranks(self) -> bool:
        """True when the ranker can re-score another run's candidates."""
        return self.family != LEXICAL


# Defaults chosen by the experiments recorded in docs/rankers/neural.md and irfair/rankers/neural/train.py.
_NEURAL_PARAMETERS = (
    Parameter("top_n", 100, int, "candidates re-ranked per query", low=1),
    Parameter("folds", 5, int, "cross-validation folds over queries (at least 3)"),  # checked when the ranker is built
    Parameter("epochs", 10, int, "training epochs at most (early stopping on the validation fold's MAP)", low=1),
    Parameter("learning_rate", 0.01, float, "Adam's learning rate", above=0),
    Parameter("query_length", 0, int, "content tokens of each query used, 0 for the whole query", low=0),
    Parameter("seed", 0, int, "random seed of training", low=0, high=2**32 - 1),
    Parameter("interpolate", False, bool, "mix in the candidates' own scores (see --interpolation-weight)"),
    Parameter("interpolation_weight", 0.5, float, "weight of the candidates' min-max scores under --interpolate",
              low=0, high=1, needs="interpolate"),
    Parameter("batch_size", 32, int, "training triples per step", low=1, high=65536),
    Parameter("device", "auto", str, "where to train: auto (MatchPyramid on a GPU when torch sees one, DRMM on the CPU), "
              "cpu, cuda (the current card) or cuda:N", pattern=(r"auto|cpu|cuda(?::[0-9]+)?", "auto, cpu, cuda or cuda:N")),
)
_MATCHPYRAMID_PARAMETERS = (
    Parameter("doc_len", 300, int, "document tokens in the matching matrix", low=1),
    Parameter("matching", "cosine", str, "matching matrix of query and document words",
              choices=("indicator", "cosine", "gaussian")),
)

RANKERS: dict[str, RankerSpec] = {spec.name: spec for spec in (
    RankerSpec("bm25", LEXICAL, "BM25 through Lucene (Anserini defaults)",
               (Parameter("k1", 0.9, float, "BM25 term-frequency saturation", low=0),
                Parameter("b", 0.4, float, "BM25 length normalisation", low=0, high=1))),
    RankerSpec("qlm", LEXICAL, "query likelihood with Dirichlet smoothing through Lucene",
               (Parameter("mu", 1000.0, float, "Dirichlet smoothing of the query likelihood model", above=0),)),
    RankerSpec("tfidf", LEXICAL, "Lucene's classic TF-IDF similarity"),
    RankerSpec("add", EMBEDDING, "cosine of mean unit word vectors (Vulić & Moens)", needs_embeddings=True),
    RankerSpec("si", EMBEDDING, "cosine of self-information weighted word vectors (Vulić & Moens)", needs_embeddings=True),
    RankerSpec("drmm", NEURAL, "DRMM (Guo et al. 2016), K-fold cross-validated re-ranker", _NEURAL_PARAMETERS,
               needs_embeddings=True, needs_qrels=True),
    RankerSpec("matchpyramid", NEURAL, "MatchPyramid (Pang et al. 2016), K-fold cross-validated re-ranker",
               _NEURAL_PARAMETERS + _MATCHPYRAMID_PARAMETERS, needs_embeddings=True, needs_qrels=True),
)}


def rankers_of(family: str) -> tuple[str, ...]:
    """Names of the rankers of one family, in registry order."""
    return tuple(name for name, spec in RANKERS.items() if spec.family == family)
