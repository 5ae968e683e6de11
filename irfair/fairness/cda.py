"""Counterfactual texts and counterfactual data augmentation (Lu et al., "Gender Bias in Neural Natural
Language Processing", 2020), plus their occupation bias score.

Naive intervention: every gendered word is replaced by its partner from the bidirectional pair list
shipped in ``irfair/data/gender_swap_pairs.txt`` (man↔woman, king↔queen, ...) and the pronoun rules
he↔she, himself↔herself, him→her, his→her, hers→his, her→his; case is preserved (He→She, HE→SHE).

Grammatical intervention: the same, except that "her" becomes "his" when it is possessive and "him"
when it is an object, and gendered words tied to a proper name are left alone. Both are decided by
rules, not a tagger: "her" is taken as possessive when the next word is a letter-word that is not a
determiner, preposition, conjunction, pronoun, common adverb or common base verb (lists below), so "her
book" → "his book" but "saw her." / "gave her the book" / "let her go" → "him"; a gendered word followed by
a capitalised word (Queen Elizabeth, Mr Smith) is tied to that name and kept. A part-of-speech tagger can
replace the "her" rule through ``possessive_her=callable(tokens, index) -> bool``.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from importlib import resources

import numpy as np
import pandas as pd

_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")

_PRONOUNS_NAIVE = {"he": "she", "she": "he", "himself": "herself", "herself": "himself",
                   "him": "her", "his": "her", "hers": "his", "her": "his"}

_NOT_A_NOUN_PHRASE = frozenset("""
a an the this that these those some any every each no all both either neither
to in on at for with about from by of into onto over under after before up down out off as than through
during without within across against among around behind beyond near since until upon toward towards
and or but because when while if so yet nor then though although whereas unless
he she it they we you i me him her us them his its their our your my myself himself herself themselves
not very too also just again still even only really already never always often now here there back away
be go come do get make see know feel cry leave stay say tell think take give help find win lose look
is was are were has had have will would can could should may might must shall
""".split())


@lru_cache(maxsize=1)
def swap_pairs() -> dict[str, str]:
    """Lower-case word → its gender partner (both directions), from the shipped list."""
    raw = resources.files("irfair").joinpath("data/gender_swap_pairs.txt").read_text(encoding="utf-8")
    mapping: dict[str, str] = {}
    for line in raw.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        male, female = line.split("\t")
        mapping.setdefault(male, female)
        mapping.setdefault(female, male)
    return mapping


def _match_case(template: str, word: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[0].isupper():
        return word[0].upper() + word[1:]
    return word


def counterfactual(text: str, mode: str = "grammatical", possessive_her: Callable[[str, int, int], bool] | None = None) -> str:
    """``text`` with its gender swapped by the naive or grammatical intervention (see module docstring).

    ``possessive_her(text, start, end)`` may replace the rule that decides whether the "her" at
    ``text[start:end]`` is possessive (grammatical mode only)."""
    if mode not in ("naive", "grammatical"):
        raise ValueError("mode must be 'naive' or 'grammatical'")
    pairs = swap_pairs()
    matches = list(_WORD.finditer(text))
    # the word right after each match, or None when anything but spaces comes first
    following = [
        matches[i + 1].group() if i + 1 < len(matches) and not text[m.end() : matches[i + 1].start()].strip() else None
        for i, m in enumerate(matches)
    ]
    out, last = [], 0
    for match, after in zip(matches, following):
        word = match.group()
        lower = word.lower()
        replacement = _PRONOUNS_NAIVE.get(lower, pairs.get(lower))
        if replacement is not None and mode == "grammatical":
            if lower == "her":
                possessive = (possessive_her(text, match.start(), match.end()) if possessive_her
                              else after is not None and after.lower() not in _NOT_A_NOUN_PHRASE)
                replacement = "his" if possessive else "him"
            elif lower not in _PRONOUNS_NAIVE and after is not None and after[0].isupper():
                replacement = None  # tied to a proper name: Queen Elizabeth, Mr Smith
        out.append(text[last : match.start()])
        out.append(word if replacement is None else _match_case(word, replacement))
        last = match.end()
    out.append(text[last:])
    return "".join(out)


def augment(texts: Sequence[str], labels: Sequence, groups: Sequence | None = None, *, mode: str = "grammatical",
            group_swap: dict | None = None) -> pd.DataFrame:
    """Originals followed by their counterfactuals with the same labels: columns text, label,
    (group, with the swapped group for counterfactuals), is_counterfactual."""
    if len(texts) != len(labels):
        raise ValueError(f"{len(texts)} texts but {len(labels)} labels")
    frame = pd.DataFrame({"text": list(texts), "label": list(labels), "is_counterfactual": False})
    swapped = frame.assign(text=[counterfactual(t, mode) for t in texts], is_counterfactual=True)
    if groups is not None:
        values = list(groups)
        frame["group"] = values
        distinct = sorted(set(values), key=str)
        mapping = group_swap or ({distinct[0]: distinct[1], distinct[1]: distinct[0]} if len(distinct) == 2 else None)
        if mapping is None:
            raise ValueError("group_swap is needed unless there are exactly two groups")
        swapped["group"] = [mapping[g] for g in values]
    return pd.concat([frame, swapped], ignore_index=True)


OCCUPATIONS = (
    "accountant architect artist attorney banker bartender barber bookkeeper builder butcher carpenter cashier "
    "chef coach dentist designer developer dietician doctor economist editor electrician engineer farmer "
    "filmmaker fisherman jeweler judge lawyer mechanic musician nutritionist nurse optician painter pharmacist "
    "photographer physician pilot plumber politician professor programmer psychologist receptionist "
    "salesperson scientist scholar secretary singer surgeon teacher therapist translator undertaker "
    "veterinarian videographer writer"
).split()

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


def occupation_bias(score: Callable[[str], float], templates: Iterable[str] = COREFERENCE_TEMPLATES,
                    occupations: Iterable[str] = OCCUPATIONS) -> pd.DataFrame:
    """Lu et al.'s occupation bias: for each occupation, the mean over templates of
    score(male sentence) − score(female sentence), the female sentence being the grammatical
    counterfactual of the male one. Returns one row per occupation (column ``bias``), sorted."""
    template_list = list(templates)
    rows = []
    for occupation in occupations:
        differences = []
        for template in template_list:
            male = template.replace("[OCCUPATION]", occupation)
            differences.append(score(male) - score(counterfactual(male)))
        rows.append({"occupation": occupation, "bias": float(np.mean(differences))})
    return pd.DataFrame(rows).set_index("occupation").sort_values("bias")


def aggregate_occupation_bias(table: pd.DataFrame) -> dict[str, float]:
    """Mean signed and mean absolute occupation bias over occupations."""
    return {"mean": float(table["bias"].mean()), "mean_abs": float(table["bias"].abs().mean())}
