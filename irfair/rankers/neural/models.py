"""DRMM (Guo et al., CIKM 2016) and MatchPyramid (Pang et al., AAAI 2016) as torch modules."""
from __future__ import annotations

import torch
from torch import nn


class DRMM(nn.Module):
    """Matching network (feed-forward over each query term's histogram) + IDF term gating.

    score(q, d) = Σ_i g_i · z_i, z_i = MLP(histogram_i) (n_bins → hidden → 1, tanh),
    g = softmax over the query's real terms of w · idf_i.
    """

    def __init__(self, n_bins: int = 30, hidden: int = 5) -> None:
        super().__init__()
        self.matching = nn.Sequential(nn.Linear(n_bins, hidden), nn.Tanh(), nn.Linear(hidden, 1), nn.Tanh())
        self.gate = nn.Linear(1, 1, bias=False)

    def forward(self, histograms: torch.Tensor, idf: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """histograms (B, Lq, n_bins), idf (B, Lq), mask (B, Lq) bool → scores (B,)."""
        z = self.matching(histograms).squeeze(-1)
        logits = self.gate(idf.unsqueeze(-1)).squeeze(-1).masked_fill(~mask, float("-inf"))
        gates = torch.softmax(logits, dim=1)
        return (gates * z).sum(dim=1)


class MatchPyramid(nn.Module):
    """2-D convolution over the query×document cosine matrix, dynamic (adaptive) max pooling to a fixed
    size, then an MLP."""

    def __init__(self, channels: int = 8, kernel: tuple[int, int] = (3, 3), pool: tuple[int, int] = (3, 10), hidden: int = 32) -> None:
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, channels, kernel, padding=(kernel[0] // 2, kernel[1] // 2)), nn.ReLU())
        self.pool = nn.AdaptiveMaxPool2d(pool)
        self.mlp = nn.Sequential(nn.Flatten(), nn.Linear(channels * pool[0] * pool[1], hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, matrices: torch.Tensor) -> torch.Tensor:
        """matrices (B, Lq, Ld) → scores (B,)."""
        return self.mlp(self.pool(self.conv(matrices.unsqueeze(1)))).squeeze(-1)


def pairwise_hinge_loss(positive: torch.Tensor, negative: torch.Tensor, margin: float = 1.0) -> torch.Tensor:
    """mean(max(0, margin − s(q, d+) + s(q, d−)))."""
    return torch.clamp(margin - positive + negative, min=0).mean()
