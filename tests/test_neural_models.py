import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from irfair.rankers.neural.features import LocalVocabulary  # noqa: E402
from irfair.rankers.neural.models import (  # noqa: E402
    DRMM,
    MatchPyramid,
    dynamic_max_pool,
    matching_matrices,
    pairwise_hinge_loss,
    pooling_windows,
)


def test_term_gates_are_a_softmax_of_weighted_idf_over_real_terms():
    model = DRMM(n_bins=2, hidden=1)
    with torch.no_grad():
        model.gate.weight.fill_(0.5)
    gates = model.term_gates(torch.tensor([[1.0, 3.0, 7.0]]), torch.tensor([[True, True, False]]))
    # exp(0.5) / (exp(0.5) + exp(1.5)) = 1 / (1 + e); the padded third term gets nothing
    assert gates[0].tolist() == pytest.approx([1 / (1 + math.e), math.e / (1 + math.e), 0.0])


def _one_unit_drmm() -> DRMM:
    model = DRMM(n_bins=2, hidden=1)
    with torch.no_grad():
        model.matching[0].weight.copy_(torch.tensor([[1.0, 0.0]]))
        model.matching[0].bias.zero_()
        model.matching[2].weight.fill_(1.0)
        model.matching[2].bias.zero_()
        model.gate.weight.zero_()
    return model


def test_one_hinge_step_by_hand():
    model = _one_unit_drmm()
    idf, mask = torch.ones(1, 1), torch.ones(1, 1, dtype=torch.bool)
    positive = model(torch.tensor([[[0.5, 0.0]]]), idf, mask)
    negative = model(torch.tensor([[[0.0, 0.0]]]), idf, mask)
    assert positive.item() == pytest.approx(math.tanh(0.5), abs=1e-6) and negative.item() == 0.0  # linear output
    loss = pairwise_hinge_loss(positive, negative)
    assert loss.item() == pytest.approx(1 - math.tanh(0.5), abs=1e-6)  # 0.53788
    torch.optim.SGD(model.parameters(), lr=0.1).zero_grad()
    loss.backward()
    torch.optim.SGD(model.parameters(), lr=0.1).step()
    # ∂L/∂W₂ = −tanh(0.5); ∂L/∂W₁[0,0] = −(1 − tanh²0.5)·0.5; ∂L/∂b₁ = −(1 − tanh²0.5) + 1; ∂L/∂b₂ = −1 + 1
    t = math.tanh(0.5)
    assert model.matching[2].weight.item() == pytest.approx(1 + 0.1 * t, abs=1e-6)  # 1.046212
    assert model.matching[0].weight[0, 0].item() == pytest.approx(1 + 0.1 * (1 - t * t) * 0.5, abs=1e-6)  # 1.039322
    assert model.matching[0].bias.item() == pytest.approx(-0.1 * t * t, abs=1e-6)  # −0.021355
    assert model.matching[2].bias.item() == 0.0 and model.gate.weight.item() == 0.0  # one term: its gate is 1 whatever w
    beyond = pairwise_hinge_loss(torch.tensor([2.5]), torch.tensor([1.0]))
    assert beyond.item() == 0.0  # a pair ranked right by more than the margin teaches nothing


MATRIX = [[5, 1, 0, 2, 7, 3, 0],
          [0, 4, 4, 1, 0, 0, 6],
          [8, 0, 0, 3, 2, 5, 1]]


def test_dynamic_pooling_windows_by_hand():
    assert pooling_windows(3, 2) == [(0, 2), (1, 3)]  # rows of the 3 × 7 matrix
    assert pooling_windows(7, 3) == [(0, 3), (2, 5), (4, 7)]  # its columns
    assert pooling_windows(2, 3) == [(0, 1), (0, 2), (1, 2)]  # shorter than the windows: positions repeat
    assert pooling_windows(0, 2) == [(0, 1), (0, 1)]


def test_dynamic_max_pool_of_a_3_by_7_matrix_by_hand():
    x = torch.tensor(MATRIX, dtype=torch.float32).view(1, 1, 3, 7)
    pooled = dynamic_max_pool(x, torch.tensor([3]), torch.tensor([7]), (2, 3))
    # rows {0,1} × columns {0..2}, {2..4}, {4..6}; rows {1,2} × the same columns
    assert pooled[0, 0].tolist() == [[5, 7, 7], [8, 4, 6]]
    padded = torch.full((2, 1, 4, 9), 99.0)
    padded[:, :, :3, :7] = x
    both = dynamic_max_pool(padded, torch.tensor([3, 2]), torch.tensor([7, 5]), (2, 3))
    assert both[0, 0].tolist() == [[5, 7, 7], [8, 4, 6]]  # padding (99) never pooled
    # real lengths 2 × 5: rows {0}, {1}; columns {0,1}, {1,2,3}, {3,4}
    assert both[1, 0].tolist() == [[5, 2, 7], [4, 4, 1]]


def test_dynamic_max_pool_passes_gradients_to_each_window_maximum():
    x = torch.tensor(MATRIX, dtype=torch.float32).view(1, 1, 3, 7).requires_grad_()
    dynamic_max_pool(x, torch.tensor([3]), torch.tensor([7]), (2, 3)).sum().backward()
    expected = np.zeros((3, 7))
    for row, column in [(0, 0), (0, 4), (0, 4), (2, 0), (1, 2), (1, 6)]:  # the maxima 5, 7, 7, 8, 4, 6
        expected[row, column] += 1
    assert x.grad[0, 0].tolist() == expected.tolist()


def test_matching_matrices_by_hand(hand):
    vocabulary = LocalVocabulary(hand, ["she", "nurses", "woman", "nurse", "zzz"], {"she": 0.5, "nurses": 0.25})
    tensors = [torch.from_numpy(a) for a in (vocabulary.vectors, vocabulary.known, vocabulary.stem_ids, vocabulary.idf)]
    query = torch.tensor([[0, 1, -1]])  # she, nurses (no vector), padding
    doc = torch.tensor([[2, 3, 4, 0]])  # woman, nurse, zzz, she
    # she·woman = 0.6·0.8 = 0.48; she·nurse = 0.6·0.5 + 0.8·√0.5 = 0.86569; nurses shares nurse's stem
    indicator = matching_matrices("indicator", query, doc, *tensors)
    assert indicator[0, 0].tolist() == [[0, 0, 0, 1], [0, 1, 0, 0], [0, 0, 0, 0]]
    cosine = matching_matrices("cosine", query, doc, *tensors)[0, 0].numpy()
    assert cosine == pytest.approx(np.array([[0.48, 0.86569, 0, 1], [0, 1, 0, 0], [0, 0, 0, 0]]), abs=1e-5)
    gaussian = matching_matrices("gaussian", query, doc, *tensors)[0].numpy()
    # exp(−‖q − d‖²) = exp(2·cos − 2): exp(−1.04) = 0.35345, exp(−0.26863) = 0.76442
    assert gaussian[0] == pytest.approx(np.array([[0.35345, 0.76442, 0, 1], [0, 1, 0, 0], [0, 0, 0, 0]]), abs=1e-5)
    # channel 1: × the query word's IDF (she 0.5, nurses 0.25)
    assert gaussian[1] == pytest.approx(np.array([[0.17673, 0.38221, 0, 0.5], [0, 0.25, 0, 0], [0, 0, 0, 0]]), abs=1e-5)
    with pytest.raises(ValueError, match="indicator, cosine, gaussian"):
        matching_matrices("dot", query, doc, *tensors)


def test_matchpyramid_scores_each_pair_from_its_real_lengths_only():
    torch.manual_seed(0)
    model = MatchPyramid(channels=2, pool=(2, 3), hidden=4)
    x = torch.rand(1, 2, 3, 7)
    padded = torch.zeros(1, 2, 5, 12)  # zero padding, as matching_matrices pads, beyond the real 3 × 7
    padded[:, :, :3, :7] = x
    lengths = (torch.tensor([3]), torch.tensor([7]))
    assert model(padded, *lengths).item() == pytest.approx(model(x, *lengths).item(), abs=1e-6)
