"""Shipped gender word lists and the user-file loader (irfair.measures.gender_words)."""
from __future__ import annotations

import pytest

from irfair.errors import IrfairInputError
from irfair.measures.gender_words import (
    EXPECTED_BOTH,
    EXPECTED_LINE,
    load_gender_words,
    parse_gender_words,
)


def test_rekabsaz2020_list_has_the_papers_32_words_per_gender():
    """GenderBias_IR's wordlist_genderspecific.txt: 32 male words (boy … stepson), 32 female (daughter … women)."""
    words = load_gender_words("rekabsaz2020")
    assert (len(words.female), len(words.male)) == (32, 32)
    assert {"he", "him", "his", "himself", "boy", "stepson"} <= words.male
    assert {"she", "her", "hers", "herself", "daughter", "women"} <= words.female
    assert not words.female & words.male


def test_rekabsaz2021_list_adds_131_lower_cased_first_names_per_gender():
    """FairnessRetrievalResults' wordlist_gender_representative.txt: 326 lines, 163 per gender,
    the 64 words of the 2020 list plus names from 'Willie' (first male name) to 'Retha' (last line)."""
    words = load_gender_words("rekabsaz2021")
    old = load_gender_words("rekabsaz2020")
    assert (len(words.female), len(words.male)) == (163, 163)
    assert old.female <= words.female and old.male <= words.male
    assert {"willie", "john", "jaiden"} <= words.male
    assert {"mary", "retha", "freida"} <= words.female
    assert not words.female & words.male


def test_user_file_accepts_tabs_commas_short_labels_and_comments(tmp_path):
    path = tmp_path / "words.tsv"
    path.write_text("# my list\n\nQueen\tfemale\nking,m\nnun\tF\n monk , MALE \n", encoding="utf-8")
    words = load_gender_words(path)
    assert words.female == {"queen", "nun"}
    assert words.male == {"king", "monk"}
    assert words.source == str(path)


def test_swapped_exchanges_the_lists():
    words = parse_gender_words("she\tfemale\nhe\tmale\n", "inline")
    assert words.swapped().female == {"he"} and words.swapped().male == {"she"}


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("she\tfemale\nhe\tman\n", 2, EXPECTED_LINE),
        ("she\tfemale\nhe\n", 2, EXPECTED_LINE),
        ("she\tfemale\nhe\tmale\textra\n", 2, EXPECTED_LINE),
        ("two words\tfemale\nhe\tmale\n", 1, EXPECTED_LINE),
        ("she\tfemale\nhe\tmale\nShe\tmale\n", 3, "both female and male"),
    ],
)
def test_malformed_lines_name_the_line(tmp_path, text, line, message):
    path = tmp_path / "bad.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(IrfairInputError, match=message) as error:
        load_gender_words(path)
    assert error.value.line == line
    assert error.value.path == str(path)


def test_a_list_needs_both_genders_and_a_file_must_exist(tmp_path):
    with pytest.raises(IrfairInputError, match=EXPECTED_BOTH):
        parse_gender_words("she\tfemale\n", "inline")
    with pytest.raises(IrfairInputError, match="rekabsaz2020, rekabsaz2021"):
        load_gender_words(tmp_path / "missing.txt")


def test_a_user_file_is_read_as_the_run_files_are(tmp_path):
    """Not UTF-8: one line naming the file and line (was a UnicodeDecodeError traceback); a byte-order mark is not part
    of the first word (was silently the word U+FEFF + "she"); gzip is read by its bytes."""
    import gzip

    latin = tmp_path / "latin.txt"
    latin.write_bytes("she\tfemale\ncaf\u00e9\tfemale\nhe\tmale\n".encode("latin-1"))
    with pytest.raises(IrfairInputError) as error:
        load_gender_words(latin)
    assert str(error.value) == f"{latin}:2: gender word file must be UTF-8 text"
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbfshe\tfemale\nhe\tmale\n")
    assert load_gender_words(bom).female == frozenset({"she"})
    packed = tmp_path / "words.txt.gz"
    packed.write_bytes(gzip.compress(b"she\tfemale\nhe\tmale\n", mtime=0))
    assert load_gender_words(packed).male == frozenset({"he"})
