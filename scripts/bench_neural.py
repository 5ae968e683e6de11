"""Benchmark (not a test): the neural rankers' real training on a test collection, per device, in one run: the
inputs' building time (cold cache) and reading time (warm cache, the ratio between them), seconds per epoch
and the MAP of the re-ranked run, on the CPU and, where torch sees one, the GPU (GPU/CPU ratios).

    python scripts/bench_neural.py [--collection vaswani|time] [--models drmm,matchpyramid] [--device cpu,cuda]
        [--epochs 3] [--threads 2] [--batch-size 32]
"""
from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from pathlib import Path

import torch

from irfair.corpus import open_corpus
from irfair.corpus.termstore import TermStore
from irfair.embeddings import load_embeddings
from irfair.measures.effectiveness import evaluate
from irfair.rankers import make_ranker
from irfair.rankers.neural.train import train_folds
from irfair.trec import read_qrels, read_topics

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
COLLECTIONS = {
    "vaswani": (DATA / "vaswani" / "corpus", DATA / "vaswani" / "query-text.trec", DATA / "vaswani" / "qrels"),
    "time": (DATA / "time" / "time.trec", DATA / "time" / "topics.time.txt", DATA / "time" / "qrels.time.txt"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collection", default="vaswani", choices=sorted(COLLECTIONS))
    parser.add_argument("--models", default="drmm,matchpyramid")
    parser.add_argument("--device", default="cpu,cuda", help="devices to compare (cuda is left out where torch sees none)")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    devices = [d for d in args.device.split(",") if d == "cpu" or torch.cuda.is_available()]
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"
    print(f"torch {torch.__version__}, {args.threads} CPU threads, {gpu}; {args.collection}, {args.epochs} epochs, "
          f"batch {args.batch_size}")
    corpus_path, topics_path, qrels_path = COLLECTIONS[args.collection]
    corpus, qrels = open_corpus(corpus_path), read_qrels(qrels_path)
    queries = {qid: t.title for qid, t in read_topics(topics_path).items()}
    embeddings = load_embeddings("w2v-gnews-26k")
    store = TermStore.for_corpus(corpus, None)
    store.ensure(corpus, None, progress=False)
    candidates = make_ranker("bm25", corpus=corpus).rank(queries, depth=100)
    results = {}
    with tempfile.TemporaryDirectory() as cache:
        for model in args.models.split(","):
            for device in devices:
                lines = []
                timings = []
                for _ in range(2):  # cold inputs, then warm (read from the cache)
                    lines.clear()
                    started = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        result = train_folds(model, store, embeddings, queries, qrels, candidates, 100, corpus=corpus,
                                             epochs=args.epochs, patience=args.epochs, seed=0, threads=args.threads, device=device,
                                             batch_size=args.batch_size, cache_dir=cache, report=lines.append)
                    ready = next(line for line in lines if " ready in " in line)
                    inputs_seconds = float(ready.split(" ready in ")[1].split(" s")[0])
                    epochs = sum(1 for line in result.log_lines if line.split("\t")[1].isdigit())
                    timings.append((inputs_seconds, (time.perf_counter() - started - inputs_seconds) / max(1, epochs)))
                mean_ap = evaluate(result.run, qrels).means["MAP"]
                results[model, device] = timings
                (cold, per_epoch), (warm, _) = timings
                print(f"{model:13s} {result.device:7s}: inputs built {cold:6.2f} s, read {warm:6.2f} s ({cold / max(warm, 1e-3):5.0f}x); "
                      f"{per_epoch:6.2f} s per epoch; MAP {mean_ap:.4f}")
            if len(devices) == 2:
                print(f"{model:13s} GPU/CPU seconds per epoch: {results[model, devices[1]][0][1] / results[model, 'cpu'][0][1]:.2f}")


if __name__ == "__main__":
    main()
