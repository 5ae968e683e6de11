"""Female and male word lists for the term-based bias measures (RaB/ARaB, NFaiRR, TExFAIR).

Shipped lists (``irfair/data/gender_words/``, each file's header names its source and licence):

* ``rekabsaz2020`` — the 32 female and 32 male gender-specific words of Rekabsaz & Schedl (SIGIR
  2020), the list behind RaB and ARaB (:mod:`irfair.measures.rab`).
* ``rekabsaz2021`` — the 163 + 163 gender-representative entries of Rekabsaz, Kopeinik & Schedl
  (SIGIR 2021): the 64 words above plus 131 first names per gender, lower-cased. The list behind
  document neutrality and NFaiRR (:mod:`irfair.measures.nfairr`). irfair also uses it for TExFAIR
  (a choice: TExFAIR is compared with NFaiRR on the same lists; its paper's own list was not
  available to us).

A user file (``--gender-words FILE``) has the same format: one entry per line, ``word<TAB>label``
where label is ``female``/``male`` (or ``f``/``m``, any case); a comma may stand for the tab, so the
authors' original ``word,f`` files load unchanged. Blank lines and lines starting with ``#`` are
skipped; words are lower-cased and must be single tokens (no whitespace).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from ..errors import IrfairInputError
from ..trec.lines import read_lines

SHIPPED_GENDER_WORDS = {
    "rekabsaz2020": "data/gender_words/rekabsaz2020_gender_specific.txt",
    "rekabsaz2021": "data/gender_words/rekabsaz2021_gender_representative.txt",
}
RAB_GENDER_WORDS = "rekabsaz2020"
NFAIRR_GENDER_WORDS = "rekabsaz2021"
TEXFAIR_GENDER_WORDS = "rekabsaz2021"

_LABELS = {"female": "female", "f": "female", "male": "male", "m": "male"}
EXPECTED_LINE = "a line '<word><TAB>female|male' (a comma may replace the tab)"
EXPECTED_BOTH = "at least one female and one male word"


@dataclass(frozen=True)
class GenderWords:
    """Two disjoint sets of lower-case words and the name of the list they came from."""

    female: frozenset[str]
    male: frozenset[str]
    source: str

    def swapped(self) -> GenderWords:
        """The same lists with the female and male labels exchanged (for symmetry checks)."""
        return GenderWords(female=self.male, male=self.female, source=f"{self.source} (swapped)")


def parse_gender_words(text: str, source: str) -> GenderWords:
    """Parse the ``word<TAB>female|male`` format; ``source`` names the origin in errors and the result."""
    words: dict[str, set[str]] = {"female": set(), "male": set()}
    label_of: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split("\t") if "\t" in line else line.split(",")
        if len(parts) != 2:
            raise IrfairInputError(source, number, f"expected {EXPECTED_LINE}, got {raw!r}")
        word, label = parts[0].strip().lower(), _LABELS.get(parts[1].strip().lower())
        if not word or label is None or any(ch.isspace() for ch in word):
            raise IrfairInputError(source, number, f"expected {EXPECTED_LINE}, got {raw!r}")
        if label_of.get(word, label) != label:
            raise IrfairInputError(source, number, f"{word!r} is listed as both female and male")
        label_of[word] = label
        words[label].add(word)
    if not words["female"] or not words["male"]:
        raise IrfairInputError(source, None, f"expected {EXPECTED_BOTH}")
    return GenderWords(frozenset(words["female"]), frozenset(words["male"]), source)


@lru_cache(maxsize=len(SHIPPED_GENDER_WORDS))
def _shipped(name: str) -> GenderWords:
    text = resources.files("irfair").joinpath(SHIPPED_GENDER_WORDS[name]).read_text(encoding="utf-8")
    return parse_gender_words(text, name)


def load_gender_words(source: str | Path) -> GenderWords:
    """A shipped list by name (``rekabsaz2020``, ``rekabsaz2021``) or a user file by path.

    Raises :class:`~irfair.errors.IrfairInputError` for a missing or malformed file.
    """
    if isinstance(source, str) and source in SHIPPED_GENDER_WORDS:
        return _shipped(source)
    path = Path(source)
    if not path.is_file():
        names = ", ".join(SHIPPED_GENDER_WORDS)
        raise IrfairInputError(path, None, f"expected a gender word file or one of: {names}")
    return parse_gender_words("\n".join(read_lines(path, "gender word")), str(path))
