"""What a study runs: :class:`StudyConfig` (validated when made) and :func:`plan`, the list of runs.

Every ranker of the registry takes part: the lexical ones once, each embedding ranker and neural
re-ranker once per ranking embedding and debiasing variant (BM25 always, as the neural candidates).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..bounds import checked
from ..errors import IrfairInputError
from ..gender.debias import VARIANTS
from ..rankers import EMBEDDING, LEXICAL, NEURAL, RANKERS, rankers_of
from ..trec import QUERY_FIELDS

CANDIDATE_RANKER = "bm25"


def short_name(embeddings: str) -> str:
    """``w2v-gnews-26k`` → ``w2v``, ``glove-6b-50d`` → ``glove``, a path → its stem."""
    known = {"w2v-gnews-26k": "w2v", "glove-6b-50d": "glove"}
    return known.get(embeddings, Path(embeddings).stem.replace("_", "-"))


@dataclass(frozen=True)
class SystemSpec:
    """One run of the study: its name, base system (e.g. ``w2v_add``), ranker, embedding and variant."""

    name: str
    system: str
    ranker: str
    embeddings: str | None = None
    variant: str = "regular"

    @property
    def family(self) -> str:
        """The ranker's family in the registry (lexical, embedding or neural)."""
        from ..rankers import RANKERS

        return RANKERS[self.ranker].family


@dataclass(frozen=True)
class StudyConfig:
    """What the study runs. Defaults are the full settings; CI uses a small depth and few epochs."""

    ranker_embeddings: tuple[str, ...] = ("w2v-gnews-26k", "glove-6b-50d")
    measure_embeddings: tuple[str, ...] = ("w2v-gnews-26k", "glove-6b-50d")
    variants: tuple[str, ...] = VARIANTS
    lexical: bool = True
    neural: tuple[str, ...] = rankers_of(NEURAL)
    depth: int = 1000
    neural_candidates: int = 100
    neural_epochs: int = 10
    n_bootstrap: int = 1000
    seed: int = 0
    query_field: str = "title"
    threads: int = 2
    device: str = "auto"  # where the neural rankers train (irfair.rankers.neural.device)

    def __post_init__(self) -> None:
        unknown = [v for v in self.variants if v not in VARIANTS]
        if unknown or "regular" not in self.variants:
            raise IrfairInputError(None, None, f"variants must include regular and be among {', '.join(VARIANTS)}")
        if any(n not in rankers_of(NEURAL) for n in self.neural):
            raise IrfairInputError(None, None, f"neural rankers must be among {', '.join(rankers_of(NEURAL))}")
        if not self.measure_embeddings:
            raise IrfairInputError(None, None, "the study needs at least one measuring embedding set")
        if not (self.lexical or self.neural or self.ranker_embeddings):
            raise IrfairInputError(None, None, "the study has no ranker left: --no-lexical, --neural none and an empty "
                                               "--ranker-embeddings leave none (lexical=False, neural=(), ranker_embeddings=())")
        if self.query_field not in QUERY_FIELDS:
            raise IrfairInputError(None, None, f"query field must be one of {', '.join(QUERY_FIELDS)}")
        for name in ("depth", "neural_candidates", "neural_epochs", "threads"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise IrfairInputError(None, None, f"{name} must be a positive integer, not {value!r}")
        device = next(p for p in RANKERS["drmm"].parameters if p.name == "device")
        if not isinstance(self.device, str) or device.problem(self.device) is not None:
            raise IrfairInputError(None, None, f"device={self.device!r}: expected {device.pattern[1]}")
        for name, bound in (("n_bootstrap", "bootstrap"), ("seed", "seed")):  # one check per number (irfair.bounds)
            object.__setattr__(self, name, checked(bound, getattr(self, name), name))


def plan(config: StudyConfig) -> list[SystemSpec]:
    """Every run the study needs, in order."""
    specs = []
    if config.lexical or config.neural:
        specs += [SystemSpec(r, r, r) for r in rankers_of(LEXICAL) if config.lexical or r == CANDIDATE_RANKER]
    for emb in config.ranker_embeddings:
        for variant in config.variants:
            suffix = "" if variant == "regular" else f"_{variant}"
            for ranker in rankers_of(EMBEDDING):
                system = f"{short_name(emb)}_{ranker}"
                specs.append(SystemSpec(system + suffix, system, ranker, emb, variant))
            for model in config.neural:
                system = f"{model}_{short_name(emb)}"
                specs.append(SystemSpec(system + suffix, system, model, emb, variant))
    return specs
