"""Word lists from the GSR paper (Fabris et al., Appendix A and B) and the shipped first-name lists."""
from __future__ import annotations

from functools import lru_cache
from importlib import resources

from ..toy import AGENCY, COMMUNION, FEMALE_JOBS, MALE_JOBS

AGENCY_ADJECTIVES = ("aggressive", "ambitious", "arrogant", "confident", "courageous", "critical", "decisive",
                     "demanding", "hardworking", "independent", "possessive", "proud", "selfish", "strong", "stubborn")
COMMUNION_ADJECTIVES = ("affectionate", "compassionate", "emotional", "generous", "honest", "nurturing", "outgoing",
                        "patient", "polite", "romantic", "sensitive", "unselfish")
SCIENCE = ("astronomy", "chemistry", "einstein", "experiment", "nasa", "physics", "science", "technology")
ARTS = ("art", "dance", "drama", "literature", "novel", "poetry", "shakespeare", "symphony")
CAREER = ("business", "career", "corporation", "executive", "management", "office", "professional", "salary")
FAMILY = ("children", "cousin", "family", "home", "marriage", "parents", "relatives", "wedding")

# (name, expected-female list, expected-male list) for the intrinsic validation of Fig. 1
VALIDATION_SETS = (
    ("communion vs agency", COMMUNION_ADJECTIVES, AGENCY_ADJECTIVES),
    ("arts vs science", ARTS, SCIENCE),
    ("family vs career", FAMILY, CAREER),
    ("female vs male jobs", FEMALE_JOBS, MALE_JOBS),
)

__all__ = ["AGENCY", "COMMUNION", "VALIDATION_SETS", "gendered_entities", "first_names"]


def _lines(path: str) -> list[str]:
    raw = resources.files("irfair").joinpath(path).read_text(encoding="utf-8")
    return [line.strip() for line in raw.splitlines() if line.strip() and not line.startswith("#")]


@lru_cache(maxsize=1)
def gendered_entities() -> dict[str, frozenset[str]]:
    """Fabris et al.'s gendered entity words: ``{"male": {...}, "female": {...}}`` (89 and 81 words)."""
    words: dict[str, set[str]] = {"male": set(), "female": set()}
    for line in _lines("data/gendered_entities.txt"):
        gender, word = line.split("\t")
        words[gender].add(word)
    return {g: frozenset(w) for g, w in words.items()}


@lru_cache(maxsize=1)
def first_names() -> dict[str, frozenset[str]]:
    """Lower-cased unambiguous first names: ``{"male": {...}, "female": {...}}``."""
    return {g: frozenset(_lines(f"data/names/{g}.txt")) for g in ("male", "female")}
