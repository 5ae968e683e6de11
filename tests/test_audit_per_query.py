"""Each exclusion reason, exactly, on a hand-made collection (hand embeddings: woman/man, girl/boy, she/he,
nurse, doctor, table)."""
import pytest

from irfair.audit import audit
from irfair.presentation.summary import format_table
from irfair.trec import Topic

DOCS = {"d1": "the woman is a nurse and she", "d2": "the man is a doctor and he", "d3": "she is a girl", "d4": "he is a boy",
        "d5": "table nurse doctor", "d6": "the girl and the boy"}
QRELS = {"1": {"d1": 1}, "2": {"d2": 1}, "3": {"d3": 1}, "4": {"d4": 1}, "5": {"d1": 0},
         "6": {"d1": 1}, "7": {"d2": 1}, "8": {"d6": 1}}
TOPICS = {
    "1": Topic("1", "", "a description only"),   # no title
    "2": Topic("2", "1963 ?!"),                  # text, but no token
    "3": Topic("3", "the of and"),               # stopwords only
    "4": Topic("4", "xyzzy plugh"),              # no word with a vector
    "5": Topic("5", "nurse"),                    # judged, nothing relevant
    "6": Topic("6", "woman nurse"),
    "7": Topic("7", "man doctor"),
    "8": Topic("8", "girl table"),
}


def test_exclusion_reasons_are_exact_and_counted(hand):
    run = {"sys": {"6": ["d1", "d5"], "7": ["d2"]}}
    result = audit(run, QRELS, TOPICS, DOCS, hand, n_bootstrap=0, cache_dir=False)
    reasons = result.perfect.gsr.per_query.set_index("qid")["reason"].to_dict()
    assert reasons == {"1": "no title field", "2": "empty query", "3": "only stopwords",
                       "4": "no term in the embedding vocabulary", "5": "no relevant documents", "6": "", "7": "", "8": ""}
    assert result.query_exclusions == {"no title field": 1, "empty query": 1, "only stopwords": 1,
                                       "no term in the embedding vocabulary": 1, "no relevant documents": 1}
    assert result["sys"].gsr.excluded == {**result.query_exclusions, "query not in run": 1}
    assert result.to_dict()["query_exclusions"] == result.query_exclusions
    assert result.counts["queries_without_genderedness"] == 4
    text = format_table(result)
    assert "queries: 8 topics, 3 used by the perfect run; excluded from every system: 1 no title field; 1 empty query; " \
           "1 only stopwords; 1 no term in the embedding vocabulary; 1 no relevant documents" in text
    assert "also excluded: random 0" not in text and "also excluded: sys 1 query not in run" in text


@pytest.mark.parametrize(("field", "reason"), [("desc", "no desc field"), ("title+desc", "")])
def test_missing_field_is_named(hand, field, reason):
    topics = {"6": Topic("6", "woman nurse", ""), "7": Topic("7", "man doctor", "doctor"), "8": Topic("8", "girl", "girl")}
    result = audit({"sys": {"6": ["d1"]}}, QRELS, topics, DOCS, hand, n_bootstrap=0, query_field=field, cache_dir=False)
    assert result.perfect.gsr.per_query.set_index("qid").loc["6", "reason"] == reason
