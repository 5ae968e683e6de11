"""Tokenizer, stoplist and query-term exclusion: the one text pipeline used everywhere in irfair.

Tokens: text is lower-cased, every character that is not a letter or digit becomes a space, and the
resulting pieces are kept when they are alphabetic (no digits) and at least 2 characters long.

Query-term exclusion: before a document's genderedness is measured for a query, every document
token whose *inflection key* equals the key of a query term is removed. The key undoes simple
English plural inflection only (no stemming):

* irregular plurals: women→woman, men→man, children→child, people→person, wives→wife, lives→life,
  and any word of 5+ letters ending in "men" → "...man" (chairmen→chairman, businesswomen→businesswoman);
* "-ies" → "-y" (ladies→lady) for words of 5+ letters;
* "-sses", "-shes", "-ches", "-xes", "-zes" lose "es" (actresses→actress, churches→church);
* any other final "s" is dropped unless the word ends in "ss", "us" or "is" or has 3 letters or fewer
  (nurses→nurse, jobs→job; his, bus, analysis unchanged).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources

_PIECE = re.compile(r"[^\W_]+")

# bumped whenever tokenize(), the stoplist or the inflection keys change what a text becomes
TOKENIZER_VERSION = "1"

GENDERED_FUNCTION_WORDS = frozenset(
    {"he", "she", "him", "her", "his", "hers", "himself", "herself", "mr", "mrs", "ms"}
)

_IRREGULAR_PLURALS = {
    "women": "woman",
    "men": "man",
    "children": "child",
    "people": "person",
    "wives": "wife",
    "lives": "life",
}


def tokenize(text: str) -> list[str]:
    """Split ``text`` into lower-case alphabetic tokens of length >= 2 (digits-bearing pieces dropped)."""
    return [piece for piece in _PIECE.findall(text.lower()) if len(piece) >= 2 and piece.isalpha()]


@lru_cache(maxsize=1)
def default_stopwords() -> frozenset[str]:
    """The built-in English stoplist (276 function words; keeps he/she/him/her/his/hers/... and mr/mrs/ms)."""
    raw = resources.files("irfair").joinpath("data/stopwords_en.txt").read_text(encoding="utf-8")
    words = frozenset(line.strip() for line in raw.splitlines() if line.strip() and not line.startswith("#"))
    return words - GENDERED_FUNCTION_WORDS


def content_tokens(text: str, stopwords: frozenset[str] | None = None) -> list[str]:
    """Tokens of ``text`` without stopwords (the built-in stoplist unless one is given)."""
    stop = default_stopwords() if stopwords is None else stopwords
    return [token for token in tokenize(text) if token not in stop]


@lru_cache(maxsize=262144)
def inflection_key(token: str) -> str:
    """The form of ``token`` used to match query terms in documents (see the module docstring)."""
    if token in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[token]
    if len(token) >= 5 and token.endswith("men"):
        return token[:-3] + "man"
    if len(token) >= 5 and token.endswith("ies"):
        return token[:-3] + "y"
    if token.endswith(("sses", "shes", "ches", "xes", "zes")):
        return token[:-2]
    if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def query_term_keys(query_tokens: Iterable[str]) -> frozenset[str]:
    """Inflection keys of a query's terms: document tokens with these keys are excluded."""
    return frozenset(inflection_key(token) for token in query_tokens)


def without_query_terms(doc_tokens: Iterable[str], query_tokens: Iterable[str]) -> list[str]:
    """``doc_tokens`` with every token matching a query term (same inflection key) removed."""
    keys = query_term_keys(query_tokens)
    return [token for token in doc_tokens if inflection_key(token) not in keys]
