import numpy as np
import pytest

from irfair.embeddings import Embeddings
from irfair.errors import IrfairInputError
from irfair.gender import DEFINITIONAL_PAIRS, gender_direction


def test_hand_built_direction_and_explained_variance(hand):
    # centred pair vectors: ±(0.8,0,0) woman/man, ±(0,0.6,0) girl/boy, ±(0.6,0,0) she/he
    # variance along e0: 2(0.64 + 0.36) = 2, along e1: 2(0.36) = 0.72 → ratio 2 / 2.72
    direction = gender_direction(hand)
    assert np.allclose(direction.vector, [1.0, 0.0, 0.0], atol=1e-7)
    assert direction.explained_variance_ratio == pytest.approx(2 / 2.72, abs=1e-6)  # float32 vectors
    assert len(direction.pairs_used) == 3 and len(direction.pairs_missing) == 7
    g = direction.word_genderedness(hand, ["she", "man", "nurse", "doctor", "unknown"])
    assert np.allclose(g[:4], [0.6, -0.8, 0.5, -0.28], atol=1e-6)
    assert np.isnan(g[4])


def test_orientation_does_not_depend_on_pair_order(hand):
    swapped = gender_direction(hand, [(m, f) for f, m in DEFINITIONAL_PAIRS])
    assert swapped.word_genderedness(hand, ["she"])[0] > 0


def test_too_few_definitional_words_is_a_clear_error():
    emb = Embeddings("tiny", ["woman", "man", "table"], np.eye(3, dtype=np.float32))
    with pytest.raises(IrfairInputError, match="lack the definitional words .*she"):
        gender_direction(emb)


def test_w2v_direction_matches_sklearn_pca_and_known_stereotypes(w2v):
    from sklearn.decomposition import PCA

    direction = gender_direction(w2v)
    assert len(direction.pairs_used) == 10  # Mary/John found through the case rule
    rows = []
    for f, m in DEFINITIONAL_PAIRS:
        a, b = w2v.vector(f).astype(np.float64), w2v.vector(m).astype(np.float64)
        rows += [a - (a + b) / 2, b - (a + b) / 2]
    pca = PCA(n_components=1).fit(np.array(rows))
    assert abs(abs(pca.components_[0] @ direction.vector) - 1) < 1e-9
    assert direction.explained_variance_ratio == pytest.approx(pca.explained_variance_ratio_[0], abs=1e-9)
    g = dict(zip(["she", "he", "nurse", "carpenter", "receptionist", "plumber"],
                 direction.word_genderedness(w2v, ["she", "he", "nurse", "carpenter", "receptionist", "plumber"])))
    assert g["she"] > 0 > g["he"]
    assert g["nurse"] > 0 > g["carpenter"] and g["receptionist"] > g["plumber"]
