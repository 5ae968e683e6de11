import math

import numpy as np
import pytest

from irfair.rankers.neural.features import LocalVocabulary, histogram_bin, matching_histograms, stem, stem_idf


def test_porter_stems_by_hand():
    # Porter (1980): step 1a drops plural s, step 1b -ing/-ed, step 1c y → i, step 5a a final e
    assert [stem(w) for w in ("nurses", "nurse", "liquids", "running", "happy", "is")] == \
        ["nurs", "nurs", "liquid", "run", "happi", "is"]


def test_histogram_bins_by_hand():
    # 31 bins: 29 bins of width 2/29 over [-1, 1] (cosine 1 in the last of them), then same stem, same word
    assert histogram_bin(np.array([-1.0, -0.999, 0.0, 0.99, 1.0])).tolist() == [0, 0, 14, 28, 28]
    assert histogram_bin(np.array([0.5]), n_bins=6).tolist() == [3]  # 4 bins of width 0.5: [0.5, 1] is the last


def test_matching_histogram_of_a_tiny_pair_by_hand(hand):
    # query "nurse" (0.5, 0.5, √0.5) against: woman (0.8, 0.6, 0) cos 0.7 → bin ⌊1.7·14.5⌋ = 24; man (−0.8, 0.6, 0)
    # cos −0.1 → bin ⌊0.9·14.5⌋ = 13; nurse itself → same-word bin 30; "nurses" (no vector) shares the stem "nurs"
    # → same-stem bin 29; "saw" and "zzz" have no vector and another stem → nowhere
    counts = matching_histograms(hand, ["nurse", "zzz"], ["woman", "man", "nurse", "nurses", "saw", "zzz"], log_counts=False)
    expected = np.zeros((2, 31))
    expected[0, [13, 24, 29, 30]] = 1
    expected[1, 30] = 1  # a query word without a vector still finds itself
    assert counts.tolist() == expected.tolist()
    logs = matching_histograms(hand, ["nurse"], ["nurse", "nurse", "man"])
    assert logs[0, 30] == pytest.approx(math.log(3)) and logs[0, 13] == pytest.approx(math.log(2))
    assert matching_histograms(hand, ["nurse"], []).tolist() == [[0.0] * 31]


def test_stem_idf_counts_documents_holding_any_word_of_the_stem():
    vocabulary = ["nurse", "nurses", "table", "doctor"]
    holding = {0: {0, 1}, 1: {1, 2}, 2: {3}, 3: set()}  # term id → documents holding it, N = 4

    def frequencies(groups):
        return 4, [len(set().union(*(holding[t] for t in group))) if group else 0 for group in groups]

    idf = stem_idf(["nurses", "table", "surgeon"], vocabulary, frequencies)
    # nurs: documents {0, 1, 2} → ln(4/3); tabl: {3} → ln 4; surgeon: in no document → ln 4
    assert idf == pytest.approx({"nurses": math.log(4 / 3), "table": math.log(4), "surgeon": math.log(4)})


def test_local_vocabulary_pads_and_marks_words_without_vectors(hand):
    vocabulary = LocalVocabulary(hand, ["nurse", "nurses", "zzz"], {"nurse": 0.5})
    assert vocabulary.known.tolist() == [True, False, False]
    assert vocabulary.vectors[1].tolist() == [0.0, 0.0, 0.0]
    assert vocabulary.stem_ids.tolist() == [0, 0, 1] and vocabulary.idf.tolist() == [0.5, 0.0, 0.0]
    assert vocabulary.ids(["zzz", "nurse"], 3).tolist() == [2, 0, -1]
    assert vocabulary.ids(["zzz", "nurse"], 1).tolist() == [2]
