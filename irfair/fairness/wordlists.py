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
* Occupation bias (the same paper's supplement): its 20 coreference templates, 4 language-model templates
  and 64 occupations (59 of one word, the language-model list), shipped as ``irfair/data/lu2020_*.txt``;
  the earlier 8-template and 2-template sets stay available by name (``"lu2020-8"``, ``"lu2020-2"``).
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

COREFERENCE_TEMPLATES_8 = (
    "The [OCCUPATION] ate because he was hungry.",
    "The [OCCUPATION] ran because he was late.",
    "The [OCCUPATION] drove because he was late.",
    "The [OCCUPATION] slept because he was tired.",
    "The [OCCUPATION] cried because he was sad.",
    "The [OCCUPATION] laughed because he was happy.",
    "The [OCCUPATION] was fired because he was lazy.",
    "The [OCCUPATION] was promoted because he was hardworking.",
)
"""The 8 coreference templates irfair used before the paper's appendix could be read (a subset of its 20);
template set ``"lu2020-8"``."""

LANGUAGE_MODEL_TEMPLATES_2 = ("He is a | [OCCUPATION]", "The man is a | [OCCUPATION]")
"""The 2 capitalised language-model templates (a subset of the paper's 4); template set ``"lu2020-2"``."""


def _data_lines(name: str) -> tuple[str, ...]:
    """The non-comment lines of a shipped data file."""
    raw = resources.files("irfair").joinpath(f"data/{name}").read_text(encoding="utf-8")
    return tuple(line for line in raw.splitlines() if line.strip() and not line.startswith("#"))


@cache
def coreference_templates(name: str = "lu2020") -> tuple[str, ...]:
    """Coreference templates of occupation bias: ``"lu2020"``, the paper's 20 (its supplement, shipped in
    ``irfair/data/lu2020_coreference_templates.txt``), or ``"lu2020-8"``, 8 of them."""
    if name == "lu2020-8":
        return COREFERENCE_TEMPLATES_8
    if name == "lu2020":
        return _data_lines("lu2020_coreference_templates.txt")
    raise IrfairInputError(None, None, f"unknown coreference template set {name!r}: expected lu2020 or lu2020-8")


@cache
def language_model_templates(name: str = "lu2020") -> tuple[str, ...]:
    """Language-model templates ``prefix | [OCCUPATION]``: ``"lu2020"``, the paper's 4 (``He is a``, ``he is a``,
    ``The man is a``, ``the man is a``; ``irfair/data/lu2020_language_model_templates.txt``), or ``"lu2020-2"``."""
    if name == "lu2020-2":
        return LANGUAGE_MODEL_TEMPLATES_2
    if name == "lu2020":
        return _data_lines("lu2020_language_model_templates.txt")
    raise IrfairInputError(None, None, f"unknown language-model template set {name!r}: expected lu2020 or lu2020-2")


@cache
def occupations(language_model: bool = False) -> tuple[str, ...]:
    """The paper's occupations (64, ``irfair/data/lu2020_occupations.txt``); with ``language_model`` the 59
    one-word ones, as the paper leaves multi-word occupations out of language modelling."""
    names = _data_lines("lu2020_occupations.txt")
    return tuple(n for n in names if " " not in n) if language_model else names


def __getattr__(name: str):
    """``COREFERENCE_TEMPLATES`` (20), ``LANGUAGE_MODEL_TEMPLATES`` (4), ``OCCUPATIONS`` (64) and
    ``LANGUAGE_MODEL_OCCUPATIONS`` (59), read from the shipped files when first used."""
    lazy = {"COREFERENCE_TEMPLATES": coreference_templates, "LANGUAGE_MODEL_TEMPLATES": language_model_templates,
            "OCCUPATIONS": occupations, "LANGUAGE_MODEL_OCCUPATIONS": lambda: occupations(language_model=True)}
    if name in lazy:
        return lazy[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
