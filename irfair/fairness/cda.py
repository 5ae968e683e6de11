"""Counterfactual texts, counterfactual data augmentation and occupation bias (Lu et al., "Gender Bias
in Neural Natural Language Processing", 2020).

Occupation bias uses the paper's own material by default (its supplement, shipped in ``irfair/data``): the 20
coreference templates with its 64 occupations, and the 4 language-model templates with its 59 one-word
occupations, "a" becoming "an" before an occupation that starts with a vowel (the paper adjusts the article).

A counterfactual replaces every gendered word by its partner from a swap list
(:mod:`irfair.fairness.wordlists`: ``"lu2020"``, the CDA paper's 124 pairs, by default here;
``"chen2024"``, pronouns and titles only, for the causal gaps paper). Case is preserved (He→She,
HE→SHE).

* Naive intervention: every listed word is swapped; "her" always becomes "his".
* Grammatical intervention (default): "her" becomes "his" when possessive and "him" when an object;
  a gendered word directly followed by a capitalised word is tied to a name and kept (Queen
  Elizabeth); "bachelor"/"master(s)" naming a degree (followed by "of", "in", "degree", "'s", ...)
  are kept, so "Bachelor of Science" never becomes "Spinster of Science". Titles (Mr, Mrs, Ms) are
  always swapped, with or without a period: "Mr Smith" and "Mr. Smith" alike.

"her" is decided by a documented rule, not a tagger: it is possessive when the next token is a
number ("her 2010 album" → "his 2010 album") or a word that is not a determiner, preposition,
conjunction, pronoun, common adverb or common base verb (list below); before punctuation, the end of
the text or one of those words it is an object ("saw her." / "gave her the book" / "let her go" →
"him"). A part-of-speech tagger can replace the rule through ``possessive_her``.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from . import _checks
from .wordlists import coreference_templates, language_model_templates
from .wordlists import occupations as paper_occupations
from .wordlists import swap_list as _swap_list

_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
_NEXT_TOKEN = re.compile(r"\s*(\S)")
_PRONOUNS = frozenset("he she him his her hers himself herself".split())
_DEGREES = frozenset("bachelor bachelors master masters".split())
_DEGREE_CONTEXT = re.compile(r"(?:['’]s?)?\s+(?:of|in|degree|degrees|program|programme|student|students|thesis)\b"
                             r"|['’]s?(?!\w)", re.IGNORECASE)
PLACEHOLDER = "[OCCUPATION]"

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

MODES = ("naive", "grammatical")


def _match_case(template: str, word: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[0].isupper():
        return word[0].upper() + word[1:]
    return word


def _her_is_possessive(text: str, end: int) -> bool:
    following = _NEXT_TOKEN.match(text, end)
    if following is None:
        return False
    first = following.group(1)
    if first.isdigit():
        return True
    word = _WORD.match(text, following.start(1))
    return word is not None and word.group().lower() not in _NOT_A_NOUN_PHRASE


def _tied_to_name(text: str, end: int) -> bool:
    following = re.match(r" +([A-Za-z])", text[end:])
    return following is not None and following.group(1).isupper()


def counterfactual(text: str, mode: str = "grammatical", *, swap_list: str = "lu2020",
                   possessive_her: Callable[[str, int, int], bool] | None = None) -> str:
    """``text`` with its gender swapped by the naive or grammatical intervention of Lu et al. (§4),
    using the named swap list (module docstring).

    ``possessive_her(text, start, end)`` may replace the rule that decides whether the "her" at
    ``text[start:end]`` is possessive (grammatical mode only)."""
    if not isinstance(text, str):
        raise _checks.fail(f"text must be a string, not {type(text).__name__}")
    if mode not in MODES:
        raise _checks.fail(f"mode must be one of {', '.join(MODES)}, not {_checks.short(mode)}")
    swaps = _swap_list(swap_list)
    out, last = [], 0
    for match in _WORD.finditer(text):
        word = match.group()
        lower = word.lower()
        replacement = swaps.words.get(lower)
        if replacement is None:
            continue
        if mode == "grammatical":
            if lower == "her":
                possessive = (possessive_her(text, match.start(), match.end()) if possessive_her
                              else _her_is_possessive(text, match.end()))
                replacement = "his" if possessive else "him"
            elif lower not in _PRONOUNS and lower not in swaps.titles:
                if _tied_to_name(text, match.end()) or (lower in _DEGREES and _DEGREE_CONTEXT.match(text, match.end())):
                    continue
        out.append(text[last : match.start()])
        out.append(_match_case(word, replacement))
        last = match.end()
    out.append(text[last:])
    return "".join(out)


def augment(texts: Sequence[str], labels: Sequence, groups: Sequence | None = None, *, mode: str = "grammatical",
            swap_list: str = "lu2020", group_swap: dict | None = None) -> pd.DataFrame:
    """Counterfactual data augmentation (Lu et al. §4): the originals followed by their counterfactuals
    with the same labels. Columns text, label, (group, swapped for counterfactuals), is_counterfactual."""
    text_list = _checks.texts("texts", texts)
    label_array = _checks.sequence("labels", labels)
    _checks.same_length(texts=text_list, labels=label_array)
    frame = pd.DataFrame({"text": text_list, "label": label_array, "is_counterfactual": False})
    swapped = frame.assign(text=[counterfactual(t, mode, swap_list=swap_list) for t in text_list], is_counterfactual=True)
    if groups is not None:
        group_array = _checks.sequence("groups", groups)
        _checks.same_length(texts=text_list, groups=group_array)
        frame["group"] = group_array
        swapped["group"] = [_other_group(group_swap, g, group_array) for g in group_array]
    return pd.concat([frame, swapped], ignore_index=True)


def _other_group(group_swap: dict | None, group: object, groups: np.ndarray) -> object:
    if group_swap is None:
        distinct = sorted(pd.unique(groups), key=str)
        if len(distinct) != 2:
            raise _checks.fail(f"group_swap is needed unless there are exactly two groups; found {len(distinct)}: "
                               + ", ".join(_checks.short(g, 20) for g in distinct[:6]))
        return distinct[1] if group == distinct[0] else distinct[0]
    if group not in group_swap:
        raise _checks.fail(f"group_swap has no partner for group {_checks.short(group)}")
    return group_swap[group]


def _swapped(template: str, swap_list: str) -> str:
    """The grammatical counterfactual of a template (before the occupation is filled in, so that the
    occupation itself is never swapped); an error if the template has no gendered word."""
    female = counterfactual(template, "grammatical", swap_list=swap_list)
    if female == template:
        raise _checks.fail(f"template {_checks.short(template)} has no gendered word to swap")
    return female


def _occupation_list(occupations: Sequence[str]) -> list[str]:
    names = _checks.texts("occupations", occupations)
    if not names:
        raise _checks.fail("occupations must not be empty")
    seen = set()
    for name in names:
        if name in seen:
            raise _checks.fail(f"occupation {name!r} is listed twice")
        seen.add(name)
    return names


def _template_list(templates: str | Sequence[str], named: Callable[[str], tuple[str, ...]]) -> list[str]:
    """A template set's name (``"lu2020"``, ...) or the templates themselves."""
    return list(named(templates)) if isinstance(templates, str) else _checks.texts("templates", templates)


def with_article(prefix: str, occupation: str) -> str:
    """``prefix`` with a final article "a" made "an" before an occupation starting with a vowel letter (He is a |
    accountant → He is an), as the paper adjusts it; any other prefix unchanged."""
    head, _, last = prefix.rpartition(" ")
    if last.lower() == "a" and occupation[:1].lower() in "aeiou" and occupation[:1]:
        return f"{head} {last}n" if head else f"{last}n"
    return prefix


def _finite_score(value: object, sentence: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if not np.isfinite(number):
        raise _checks.fail(f"the scorer returned {_checks.short(value)} for {sentence!r}: expected a finite number")
    return number


def occupation_bias(score: Callable[[str], float], templates: str | Sequence[str] = "lu2020",
                    occupations: Sequence[str] | None = None, *, swap_list: str = "lu2020") -> pd.DataFrame:
    """Lu et al.'s occupation bias for coreference (§3, Definition 3): for each occupation o, the mean over
    templates of score(male sentence) − score(female sentence), the female sentence being the template's
    counterfactual with o filled in. ``score(sentence)`` is, e.g., the coreference score of the occupation
    and the pronoun. ``templates``: the paper's 20 (``"lu2020"``, default), ``"lu2020-8"`` or a sequence;
    ``occupations``: the paper's 64 when None. Returns one row per occupation (column ``bias``), sorted by bias."""
    if not callable(score):
        raise _checks.fail("score must be a function of a sentence")
    pairs = []
    for template in _template_list(templates, coreference_templates):
        if PLACEHOLDER not in template:
            raise _checks.fail(f"template {_checks.short(template)} has no {PLACEHOLDER} placeholder")
        pairs.append((template, _swapped(template, swap_list)))
    if not pairs:
        raise _checks.fail("templates must not be empty")
    rows = []
    for occupation in _occupation_list(paper_occupations() if occupations is None else occupations):
        differences = []
        for male, female in pairs:
            male_sentence, female_sentence = male.replace(PLACEHOLDER, occupation), female.replace(PLACEHOLDER, occupation)
            differences.append(_finite_score(score(male_sentence), male_sentence) - _finite_score(score(female_sentence), female_sentence))
        rows.append({"occupation": occupation, "bias": float(np.mean(differences))})
    return pd.DataFrame(rows).set_index("occupation").sort_values("bias")


def language_model_bias(log_probability: Callable[[str, str], float], templates: str | Sequence[str] = "lu2020",
                        occupations: Sequence[str] | None = None, *, swap_list: str = "lu2020") -> pd.DataFrame:
    """Lu et al.'s occupation bias for language models (§3): for each occupation o, the mean over
    templates "prefix | [OCCUPATION]" of log P(o | male prefix) − log P(o | female prefix), with
    ``log_probability(prefix, continuation)`` the model's log-probability of the continuation; a prefix's
    final "a" is "an" before an occupation starting with a vowel. ``templates``: the paper's 4 (``"lu2020"``,
    default), ``"lu2020-2"`` or a sequence; ``occupations``: the paper's 59 one-word occupations when None.
    One row per occupation (column ``bias``), sorted."""
    if not callable(log_probability):
        raise _checks.fail("log_probability must be a function of (prefix, continuation)")
    parsed = []
    for template in _template_list(templates, language_model_templates):
        if template.count("|") != 1:
            raise _checks.fail(f"language-model template {_checks.short(template)} must have one '|' between prefix and continuation")
        prefix, continuation = (part.strip() for part in template.split("|"))
        if PLACEHOLDER not in continuation:
            raise _checks.fail(f"language-model template {_checks.short(template)} needs {PLACEHOLDER} after the '|'")
        parsed.append((prefix, _swapped(prefix, swap_list), continuation))
    if not parsed:
        raise _checks.fail("templates must not be empty")
    rows = []
    for occupation in _occupation_list(paper_occupations(language_model=True) if occupations is None else occupations):
        differences = []
        for male_prefix, female_prefix, continuation in parsed:
            filled = continuation.replace(PLACEHOLDER, occupation)
            male, female = with_article(male_prefix, filled), with_article(female_prefix, filled)
            differences.append(_finite_score(log_probability(male, filled), f"{male} | {filled}")
                               - _finite_score(log_probability(female, filled), f"{female} | {filled}"))
        rows.append({"occupation": occupation, "bias": float(np.mean(differences))})
    return pd.DataFrame(rows).set_index("occupation").sort_values("bias")


def aggregate_occupation_bias(table: pd.DataFrame) -> dict[str, float]:
    """Mean signed and mean absolute occupation bias over occupations."""
    if not isinstance(table, pd.DataFrame) or "bias" not in table.columns or table.empty:
        raise _checks.fail("expected the non-empty table returned by occupation_bias (column 'bias')")
    return {"mean": float(table["bias"].mean()), "mean_abs": float(table["bias"].abs().mean())}
