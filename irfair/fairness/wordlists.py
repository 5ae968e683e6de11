"""Word lists and templates of the papers behind ``irfair.fairness``, each the default of the function
that implements its paper; the others are used only when asked for by name.

* ``"chen2024"`` — the gender swap of Chen, Ji & Evans, "Addressing Both Statistical and Causal Gender
  Fairness in NLP Models" (NAACL Findings 2024), as released with the paper (BiasBios gender swap):
  he↔she, himself↔herself, his→her, him→her, hers→his, her→his (possessive) or him (object),
  Mr→Ms, Ms→Mr, Mrs→Mr. Nothing else is swapped: "poet", "bachelor", names stay. Default of
  :func:`~irfair.fairness.gaps.causal_gaps_from_model` and :func:`~irfair.fairness.reweigh.mitigate`.
* ``"lu2020"`` — the counterfactual data augmentation list of Lu, Mardziel, Wu, Amancharla & Datta,
  "Gender Bias in Neural Natural Language Processing" (2020, supplement): 124 bidirectional pairs
  (``irfair/data/gender_swap_pairs.txt``, "mr."–"mrs." folded into "mr"–"mrs") with the pronoun
  rules above and Ms→Mr. Default of :func:`~irfair.fairness.cda.counterfactual`,
  :func:`~irfair.fairness.cda.augment` and :func:`~irfair.fairness.cda.occupation_bias`.
* ``SCRUBBED_GENDER_WORDS`` — the explicit gender indicators removed from BiasBios ("scrubbed" bios,
  De-Arteaga et al. 2019), which Social Norm Bias (Cheng et al. 2023) removes before training its
  norm scorer so that it cannot learn gender from pronouns and titles.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from types import MappingProxyType

from ..errors import IrfairInputError


@dataclass(frozen=True)
class SwapList:
    """A gender swap: ``words`` maps a lower-case word to its partner; "her" is decided by the
    possessive/object rule; ``titles`` are swapped even right before a name, with or without a period."""

    name: str
    words: Mapping[str, str]
    titles: frozenset[str]


_PRONOUNS = {"he": "she", "she": "he", "himself": "herself", "herself": "himself",
             "him": "her", "his": "her", "hers": "his", "her": "his"}

CHEN2024_TITLES = {"mr": "ms", "ms": "mr", "mrs": "mr"}
LU2020_TITLES = {"mr": "mrs", "mrs": "mr", "ms": "mr"}

SCRUBBED_GENDER_WORDS = frozenset("he she him his her hers himself herself mr mrs ms".split())

COREFERENCE_TEMPLATES = (
    "The [OCCUPATION] ate because he was hungry.",
    "The [OCCUPATION] ran because he was late.",
    "The [OCCUPATION] drove because he was late.",
    "The [OCCUPATION] slept because he was tired.",
    "The [OCCUPATION] cried because he was sad.",
    "The [OCCUPATION] laughed because he was happy.",
    "The [OCCUPATION] was fired because he was lazy.",
    "The [OCCUPATION] was promoted because he was hardworking.",
)
"""The coreference templates of Lu et al. whose wording we could verify (8 of the paper's 20)."""

LANGUAGE_MODEL_TEMPLATES = ("He is a | [OCCUPATION]", "The man is a | [OCCUPATION]")
"""Lu et al.'s language-model templates: the prefix before "|" is the context, the occupation the
continuation whose probability is compared between the male prefix and its counterfactual."""

OCCUPATIONS = tuple(
    "accountant architect artist attorney banker bartender barber bookkeeper builder businessperson butcher "
    "carpenter cashier chef coach dentist designer developer dietician doctor economist editor electrician "
    "engineer farmer filmmaker fisherman jeweler judge lawyer mechanic musician nutritionist nurse optician "
    "painter pharmacist photographer physician pilot plumber politician professor programmer psychologist "
    "receptionist salesperson scientist scholar secretary singer surgeon teacher therapist translator "
    "undertaker veterinarian videographer writer".split()
)
"""Lu et al.'s occupations as far as we could verify them (59, "businessperson" included)."""


@lru_cache(maxsize=1)
def lu2020_pairs() -> Mapping[str, str]:
    """Lower-case word → its partner (both directions) from Lu et al.'s pair list."""
    raw = resources.files("irfair").joinpath("data/gender_swap_pairs.txt").read_text(encoding="utf-8")
    mapping: dict[str, str] = {}
    for line in raw.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        male, female = line.split("\t")
        mapping.setdefault(male, female)
        mapping.setdefault(female, male)
    return MappingProxyType(mapping)


def swap_list(name: str) -> SwapList:
    """The swap list called ``name``: "chen2024" or "lu2020" (see the module docstring)."""
    if not isinstance(name, str) or name not in SWAP_LISTS:
        raise IrfairInputError(None, None, f"unknown swap list {name!r}: expected one of {', '.join(SWAP_LISTS)}")
    return _build(name)


@cache
def _build(name: str) -> SwapList:
    if name == "chen2024":
        return SwapList(name, MappingProxyType({**_PRONOUNS, **CHEN2024_TITLES}), frozenset(CHEN2024_TITLES))
    return SwapList(name, MappingProxyType({**lu2020_pairs(), **_PRONOUNS, **LU2020_TITLES}), frozenset(LU2020_TITLES))


SWAP_LISTS = ("chen2024", "lu2020")
