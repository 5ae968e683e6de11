"""Throughput of the neural rankers: training and re-ranking query-document pairs per second, on the CPU
and (when torch sees one) on the GPU, with a synthetic batch of features of realistic shape (10-term
queries; MatchPyramid's two-channel matrices of --doc-len tokens, real lengths drawn at random).

    python scripts/bench_neural.py [--pairs 20000] [--doc-len 300] [--batch 256]
"""
from __future__ import annotations

import argparse
import time

import torch

from irfair.rankers.neural.features import DEFAULT_BINS
from irfair.rankers.neural.models import DRMM, MatchPyramid, pairwise_hinge_loss


def inputs(model: str, n: int, doc_len: int, device: str):
    g = torch.Generator().manual_seed(0)
    if model == "drmm":
        return (torch.rand(n, 10, DEFAULT_BINS, generator=g).to(device), torch.rand(n, 10, generator=g).to(device),
                torch.ones(n, 10, dtype=torch.bool).to(device))
    return (torch.rand(n, 2, 10, doc_len, generator=g).mul(2).sub(1).to(device),
            torch.randint(1, 11, (n,), generator=g).to(device), torch.randint(1, doc_len + 1, (n,), generator=g).to(device))


def measure(model_name: str, device: str, pairs: int, doc_len: int, batch: int) -> tuple[float, float]:
    torch.manual_seed(0)
    model = (DRMM() if model_name == "drmm" else MatchPyramid()).to(device)
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = inputs(model_name, batch * 2, doc_len, device)
    positive = tuple(x[:batch] for x in data)
    negative = tuple(x[batch:] for x in data)
    steps = max(1, pairs // batch)

    def train_step() -> None:
        loss = pairwise_hinge_loss(model(*positive), model(*negative))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()

    for _ in range(3):  # warm-up
        train_step()
    if device == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        train_step()
    if device == "cuda":
        torch.cuda.synchronize()
    train = steps * batch * 2 / (time.perf_counter() - t0)
    model.eval()
    t0 = time.perf_counter()
    with torch.no_grad():
        for _ in range(steps):
            model(*positive)
    if device == "cuda":
        torch.cuda.synchronize()
    rerank = steps * batch / (time.perf_counter() - t0)
    return train, rerank


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--doc-len", type=int, default=300)
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args()
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    print(f"torch {torch.__version__}, CPU threads {torch.get_num_threads()}"
          + (f", GPU {torch.cuda.get_device_name(0)}" if torch.cuda.is_available() else ", no GPU"))
    results = {}
    for model in ("drmm", "matchpyramid"):
        for device in devices:
            train, rerank = measure(model, device, args.pairs, args.doc_len, args.batch)
            results[model, device] = (train, rerank)
            print(f"{model:13s} {device:4s}: training {train:12,.0f} pairs/s   re-ranking {rerank:12,.0f} pairs/s")
        if "cuda" in devices:
            cpu, gpu = results[model, "cpu"], results[model, "cuda"]
            print(f"{model:13s} GPU/CPU: training {gpu[0] / cpu[0]:.1f}×, re-ranking {gpu[1] / cpu[1]:.1f}×")


if __name__ == "__main__":
    main()
