from irfair.text import (
    content_tokens,
    default_stopwords,
    inflection_key,
    tokenize,
    without_query_terms,
)


def test_tokenize_lowercases_splits_punctuation_and_drops_short_and_digit_tokens():
    assert tokenize("The MAN'S car-2 is e.g. fast; co-op 42x Café") == ["the", "man", "car", "is", "fast", "co", "op", "café"]


def test_stoplist_keeps_gendered_words():
    stop = default_stopwords()
    assert {"the", "is", "a", "of", "and"} <= stop
    assert not {"he", "she", "him", "her", "his", "hers", "himself", "herself", "mr", "mrs", "ms"} & stop
    assert len(stop) == 276


def test_content_tokens_removes_stopwords_only():
    assert content_tokens("The woman is a nurse and he is her brother") == ["woman", "nurse", "he", "her", "brother"]


def test_inflection_keys():
    cases = {
        "women": "woman", "men": "man", "chairmen": "chairman", "businesswomen": "businesswoman",
        "nurses": "nurse", "actresses": "actress", "churches": "church", "ladies": "lady",
        "boxes": "box", "jobs": "job", "his": "his", "bus": "bus", "analysis": "analysis",
        "class": "class", "woman": "woman",
    }
    assert {word: inflection_key(word) for word in cases} == cases


def test_query_terms_removed_with_simple_inflections():
    doc = ["women", "woman", "nurse", "nurses", "doctor", "womanly"]
    assert without_query_terms(doc, ["woman", "nurses"]) == ["doctor", "womanly"]
