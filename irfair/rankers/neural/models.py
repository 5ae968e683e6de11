"""DRMM (Guo et al., CIKM 2016) and MatchPyramid (Pang et al., AAAI 2016; for ad-hoc retrieval: Pang et
al., "A study of MatchPyramid models on ad-hoc retrieval", Neu-IR 2016) as torch modules, their matching
matrices, dynamic pooling and the pairwise hinge loss.

Each choice that departs from the papers is measured in ``docs/rankers/neural.md`` (5-fold CV, 3 seeds,
Vaswani and TIME, BM25 top-100 candidates).
"""
from __future__ import annotations

import torch
from torch import nn

MATCHING = ("indicator", "cosine", "gaussian")


class DRMM(nn.Module):
    """Matching network (feed-forward over each query term's histogram) + IDF term gating network.

    score(q, d) = Σ_i g_i · z_i (paper eq. 1), z_i = W₂ · tanh(W₁ · h_i + b₁) + b₂ (``n_bins → hidden → 1``;
    31 bins, see :mod:`.features`),
    g_i = exp(w · idf_i) / Σ_j exp(w · idf_j) over the query's terms (eq. 4, TGN with IDF).

    The paper applies tanh to every layer, the output included; under a hinge margin of 1, half the score's
    range (−1, 1), the model ranked below its own candidates: MAP Vaswani 0.201 / TIME 0.554 with the output
    tanh, 0.253 / 0.620 with a linear output, 0.248 / 0.624 with the tanh and a margin of 0.1 (BM25 0.261 /
    0.594). The output is linear.
    """

    def __init__(self, n_bins: int = 31, hidden: int = 5) -> None:
        super().__init__()
        self.matching = nn.Sequential(nn.Linear(n_bins, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        self.gate = nn.Linear(1, 1, bias=False)

    def term_gates(self, idf: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """g, shape (B, Lq): softmax of w · idf over each query's real terms (``mask``), 0 on padding."""
        logits = self.gate(idf.unsqueeze(-1)).squeeze(-1).masked_fill(~mask, float("-inf"))
        return torch.softmax(logits, dim=1)

    def forward(self, histograms: torch.Tensor, idf: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """histograms (B, Lq, n_bins), idf (B, Lq), mask (B, Lq) bool, at least one True per row → scores (B,)."""
        z = self.matching(histograms).squeeze(-1)
        return (self.term_gates(idf, mask) * z).sum(dim=1)


def pooling_windows(length: int, n_windows: int) -> list[tuple[int, int]]:
    """Dynamic pooling windows over the real ``length`` of one axis: window i covers positions
    [⌊i·L/n⌋, ⌈(i+1)·L/n⌉) — the rule of adaptive max pooling, applied to the real length and not to the
    padded one. When L < n, windows are single positions and positions repeat (the paper's dynamic pooling
    of short texts). A length of 0 counts as 1."""
    length = max(1, length)
    return [(i * length // n_windows, -(-(i + 1) * length // n_windows)) for i in range(n_windows)]


def _pooling_index(lengths: torch.Tensor, n_windows: int) -> tuple[torch.Tensor, int]:
    """For each row of a batch, the positions of its windows (:func:`pooling_windows`), each window padded
    to the widest one ``k`` by repeating its last position: (B, n_windows · k) int64, and k."""
    length = lengths.clamp(min=1).unsqueeze(1)
    i = torch.arange(n_windows, device=lengths.device).unsqueeze(0)
    start = torch.div(i * length, n_windows, rounding_mode="floor")
    end = -torch.div(-(i + 1) * length, n_windows, rounding_mode="floor")
    k = int((end - start).max())
    offsets = torch.arange(k, device=lengths.device).view(1, 1, k)
    positions = torch.minimum(start.unsqueeze(-1) + offsets, end.unsqueeze(-1) - 1)
    return positions.reshape(len(lengths), n_windows * k), k


def dynamic_max_pool(x: torch.Tensor, query_lengths: torch.Tensor, doc_lengths: torch.Tensor,
                     pool: tuple[int, int]) -> torch.Tensor:
    """Max over each pair's dynamic windows: x (B, C, Lq, Ld), real lengths (B,) → (B, C, pool[0], pool[1]).

    The windows' positions are gathered into a (pool[0]·kq) × (pool[1]·kd) grid, where each window fills
    kq × kd cells (repeating its last position), and one max pool of size (kq, kd) takes each window's max.
    """
    batch, channels, _, doc_size = x.shape
    rows, kq = _pooling_index(query_lengths, pool[0])
    x = torch.gather(x, 2, rows.view(batch, 1, -1, 1).expand(batch, channels, rows.shape[1], doc_size))
    columns, kd = _pooling_index(doc_lengths, pool[1])
    x = torch.gather(x, 3, columns.view(batch, 1, 1, -1).expand(batch, channels, x.shape[2], columns.shape[1]))
    return nn.functional.max_pool2d(x, (kq, kd))


def matching_matrices(kind: str, query_ids: torch.Tensor, doc_ids: torch.Tensor, vectors: torch.Tensor,
                      known: torch.Tensor, stem_ids: torch.Tensor, idf: torch.Tensor) -> torch.Tensor:
    """MatchPyramid's input: (B, 2, Lq, Ld) from local word ids (−1 for padding) of queries (B, Lq) and
    documents (B, Ld). Channel 0, the matching matrix M_ij (0 on padding):

    * ``indicator``: 1 when q_i and d_j share a stem, else 0;
    * ``cosine``: cos(q_i, d_j) (1 when they share a stem, 0 when either has no vector);
    * ``gaussian``: exp(−‖q_i − d_j‖²) = exp(2·cos − 2) for unit vectors (1 for a shared stem, 0 when
      either has no vector).

    Channel 1, M_ij · idf_i, with the query word's IDF divided by ln N (``idf``, per local word):
    MatchPyramid has no notion of term importance; without this channel it ranked Vaswani at MAP 0.188,
    with it at 0.219 (indicator matching, pooling 10 × 1), cosine matching 0.160 → 0.175 (pooling 3 × 10;
    one seed each).
    """
    if kind not in MATCHING:
        raise ValueError(f"matching must be one of {', '.join(MATCHING)}")
    query_real, doc_real = query_ids >= 0, doc_ids >= 0
    q, d = query_ids.clamp(min=0), doc_ids.clamp(min=0)
    real = query_real.unsqueeze(2) & doc_real.unsqueeze(1)
    same = (stem_ids[q].unsqueeze(2) == stem_ids[d].unsqueeze(1)) & real
    if kind == "indicator":
        matrix = same.to(vectors.dtype)
    else:
        cosine = torch.bmm(vectors[q], vectors[d].transpose(1, 2))
        both_known = (known[q] & query_real).unsqueeze(2) & (known[d] & doc_real).unsqueeze(1)
        similarity = cosine if kind == "cosine" else torch.exp(2 * cosine - 2)
        matrix = torch.where(same, torch.ones_like(similarity), torch.where(both_known, similarity, torch.zeros_like(similarity)))
    weight = (idf[q] * query_real).unsqueeze(2)
    return torch.stack([matrix, matrix * weight], dim=1)


class MatchPyramid(nn.Module):
    """One 2-D convolution (ReLU) over the matching matrices, dynamic max pooling from each pair's real
    query and document lengths to ``pool``, and an MLP (``hidden`` ReLU units, linear output).

    Sizes chosen by experiment (``docs/rankers/neural.md``; MAP of BM25 top-100 re-ranked, Vaswani
    unless said): ``pool`` (5, 1), 8 kernels of 3 × 3, 16 hidden units. The earlier static pooling to
    3 × 10 over padded matrices, with 8 kernels, 32 units and learning rate 1e-3, fitted its ~55 training
    queries (training loss → 0) and ranked at 0.175; pooling the real lengths to 3 × 10 with 4 kernels and
    8 units at 1e-2: 0.193, 5 × 5: 0.195, 10 × 10: 0.172, 20 × 5: 0.198, 10 × 1: 0.219 (one seed each).
    Pooling the whole document into one column keeps, for each query window, its best-matching place,
    found by 3 × 3 kernels that see neighbouring words; more columns split short abstracts into windows
    of a few words (TIME, longer: 5 × 3 0.565 against 5 × 1 0.589). At 5 × 1 (3 seeds): 4 kernels and
    8 units 0.221, 8 and 16 0.229, 16 and 32 0.223; kernels 3 × 5 0.218, 1 × 5 0.198 (4 and 8).
    """

    def __init__(self, channels: int = 8, kernel: tuple[int, int] = (3, 3), pool: tuple[int, int] = (5, 1),
                 hidden: int = 16, in_channels: int = 2) -> None:
        super().__init__()
        self.pool = pool
        self.conv = nn.Conv2d(in_channels, channels, kernel, padding=(kernel[0] // 2, kernel[1] // 2))
        self.mlp = nn.Sequential(nn.Flatten(), nn.Linear(channels * pool[0] * pool[1], hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, matrices: torch.Tensor, query_lengths: torch.Tensor, doc_lengths: torch.Tensor) -> torch.Tensor:
        """matrices (B, in_channels, Lq, Ld), real lengths (B,) → scores (B,)."""
        features = torch.relu(self.conv(matrices))
        return self.mlp(dynamic_max_pool(features, query_lengths, doc_lengths, self.pool)).squeeze(-1)


def pairwise_hinge_loss(positive: torch.Tensor, negative: torch.Tensor, margin: float = 1.0) -> torch.Tensor:
    """mean(max(0, margin − s(q, d⁺) + s(q, d⁻))) over the batch (DRMM eq. 5)."""
    return torch.clamp(margin - positive + negative, min=0).mean()
