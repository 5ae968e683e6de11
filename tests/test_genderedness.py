import numpy as np
import pytest
import scipy.sparse as sp

from irfair.corpus import InMemoryCorpus
from irfair.corpus.termstore import TermStore
from irfair.gender import gender_direction
from irfair.gender.genderedness import GenderednessModel, list_genderedness, rank_weights, term_columns, tied_rank_weights
from irfair.gender.naive import naive_list_genderedness


def test_rank_weights_by_hand():
    assert np.allclose(rank_weights(4), [1.0, 1 / np.log2(3), 0.5, 1 / np.log2(5)])
    assert np.allclose(rank_weights(3), [1.0, 0.6309297535714575, 0.5])


def test_tied_grades_share_the_mean_weight_of_their_positions():
    # grades 2,1,1: the two grade-1 documents share (1/log2 3 + 1/log2 4) / 2 = 0.565465
    assert np.allclose(tied_rank_weights([2, 1, 1]), [1.0, 0.5654648767857287, 0.5654648767857287])
    assert np.allclose(tied_rank_weights([1, 1]), [(1 + 1 / np.log2(3)) / 2] * 2)


def test_list_genderedness_skips_unmeasurable_documents():
    # (0.2 * 1 + (-0.1) * 0.5) / (1 + 0.5) = 0.1
    assert list_genderedness(np.array([0.2, np.nan, -0.1]), rank_weights(3)) == pytest.approx(0.1)
    assert np.isnan(list_genderedness(np.array([np.nan]), rank_weights(1)))


@pytest.fixture()
def model(hand):
    docs = {
        "d1": "The woman and the nurses saw a man.",
        "d2": "A nurse.",
        "d3": "",
        "d4": "She met the doctor at the table.",
    }
    corpus = InMemoryCorpus(docs)
    store = TermStore()
    assert store.ensure(corpus, {"d1", "d2", "d3", "d4"}, progress=False) == set()
    return GenderednessModel(store, hand, gender_direction(hand))


def test_document_genderedness_by_hand(model):
    # g: woman 0.8, man -0.8, she 0.6, nurse 0.5, doctor -0.28, table 0; "saw"/"met" out of vocabulary
    g = model.document_genderedness(["d1", "d2", "d3", "d4"], ["nurse"])
    assert g[0] == pytest.approx((0.8 - 0.8) / 2, abs=1e-7)  # "nurses" removed as a query term
    assert np.isnan(g[1])  # only the query term was left
    assert np.isnan(g[2])  # empty document
    assert g[3] == pytest.approx((0.6 - 0.28 + 0.0) / 3, abs=1e-7)
    g_no_query = model.document_genderedness(["d1", "d2"], [])
    assert g_no_query[0] == pytest.approx((0.8 - 0.8) / 2, abs=1e-7)  # "nurses" itself is OOV in the hand set
    assert g_no_query[1] == pytest.approx(0.5, abs=1e-7)


def test_query_genderedness_skips_stopwords_and_oov(model):
    value, used, oov = model.query_genderedness("the woman who saw the nurse")
    assert (used, oov) == (2, 1)  # woman, nurse in vocabulary; "saw" is not
    assert value == pytest.approx((0.8 + 0.5) / 2, abs=1e-7)
    assert np.isnan(model.query_genderedness("the saw")[0])


def test_vectorised_list_matches_naive_implementation(hand, model):
    docs = dict(InMemoryCorpus({
        "d1": "The woman and the nurses saw a man.", "d2": "A nurse.", "d3": "", "d4": "She met the doctor at the table.",
    }).iter_docs())
    ranked = ["d4", "d2", "d1", "d3"]
    direction = gender_direction(hand)
    fast = list_genderedness(model.document_genderedness(ranked, ["nurse"]), rank_weights(4))
    slow = naive_list_genderedness(hand, direction, "nurse", docs, ranked)
    assert fast == pytest.approx(slow, abs=1e-9)


def test_lists_measured_one_after_another_equal_each_measured_by_a_fresh_model(hand, model):
    """The counts of the query terms are kept for the documents read (an audit measures run after run): lists with
    documents read before and new ones, for the same queries and for others, give the values a new model gives."""
    store, direction = model.store, gender_direction(hand)
    calls = [([["d1", "d2"], ["d4"]], [["nurse"], ["doctor"]]),
             ([["d4", "d1", "d3"], ["d2", "d1"]], [["nurse"], ["doctor"]]),  # same queries, d3 new
             ([["d1", "d4"]], [["woman", "table"]]),  # other query terms
             ([["d2", "d4", "d1"], ["d3"]], [["nurse"], ["doctor"]])]  # the first queries again
    for lists, queries in calls:
        found = model.lists_document_genderedness(lists, queries)
        alone = GenderednessModel(store, hand, direction).lists_document_genderedness(lists, queries)
        assert len(found) == len(alone)
        for mine, theirs in zip(found, alone):
            np.testing.assert_array_equal(mine, theirs)  # bit for bit, NaN where NaN
    assert model.lists_document_genderedness([["d1"]], [["woman"]])[0][0] == pytest.approx(-0.8, abs=1e-7)


def test_store_grows_and_model_follows(hand):
    store = TermStore()
    store.ensure(InMemoryCorpus({"a": "woman"}), {"a"}, progress=False)
    model = GenderednessModel(store, hand, gender_direction(hand))
    store.ensure(InMemoryCorpus({"b": "man man she"}), {"b"}, progress=False)
    assert model.document_genderedness(["b"], [])[0] == pytest.approx((-0.8 * 2 + 0.6) / 3, abs=1e-7)


def test_term_columns_equal_scipy_column_indexing():
    """Counts of terms 1 and 3 of a 3 × 5 matrix, with an empty row and a row without either term."""
    dense = np.array([[0, 2, 0, 1, 4], [0, 0, 0, 0, 0], [5, 0, 3, 0, 0]], dtype=np.float64)
    found = term_columns(sp.csr_matrix(dense), np.array([1, 3]))
    assert found.shape == (3, 2) and found.toarray().tolist() == [[2, 1], [0, 0], [0, 0]]
    assert found.indptr.tolist() == [0, 2, 2, 2] and found.indices.tolist() == [0, 1]
