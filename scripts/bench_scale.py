"""Robust04-sized benchmark: each of irfair's steps beside its peer, measured in the same run (not a test).

    python scripts/bench_scale.py /tmp/scale            # 528,155 documents (~1.4 GB), 249 topics, 18 runs
    python scripts/bench_scale.py /tmp/scale --docs 50000 --runs 6   # a quick look

Data (synthetic, see scripts/scale_data.py) is written once into the folder and reused. Printed, each
with the ratio to its peer: BM25 through ``irfair rank`` vs Anserini's own Java CLI on the same index;
evaluation of one run (MAP, nDCG@100, P@10) vs pytrec_eval alone, both as processes; the ``add`` ranker
in-process vs a bare matrix product + argpartition on the same vectors; the corpus pass (tokenising and
counting) in MB/s per core with 1 and 2 jobs and on a two-worker Dask LocalCluster; the audit of every
run cold (empty cache) and warm; peak memory of each process.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale_data import ROBUST04_DOCS, write_collection  # noqa: E402

PYTHON = sys.executable
IRFAIR = str(Path(sys.executable).with_name("irfair"))


def timed(command: list[str], env: dict | None = None) -> tuple[float, float]:
    """(wall seconds, peak resident memory of the process in GiB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{done.stderr[-2000:]}")
    peak = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 2**20
    return wall, peak


def row(label: str, ours: float, peer: float, unit: str = "s", peer_label: str = "") -> None:
    print(f"{label:<58} {ours:9.2f} {unit:<5} {peer_label:<34} {peer:9.2f} {unit:<5} ratio {ours / peer:5.2f}")


def bm25(paths, cache: Path, env: dict) -> None:
    from irfair.anserini import java_heap, prepare_java, pyserini_jar
    from irfair.corpus import open_corpus
    from irfair.corpus.lucene_index import build_index

    start = time.perf_counter()
    index = build_index(open_corpus(paths["corpus"]), cache, threads=2, progress=False)
    print(f"Lucene index (irfair index, once): {time.perf_counter() - start:.0f} s")
    with tempfile.TemporaryDirectory() as work:
        ours, _ = timed([IRFAIR, "rank", "--corpus", str(paths["corpus"]), "--index", str(index), "--topics", str(paths["topics"]),
                         "--ranker", "bm25", "--out", f"{work}/bm25.run", "--quiet"], env)
        theirs, _ = timed([str(prepare_java()), f"-Xmx{java_heap()}", "-cp", str(pyserini_jar()), "io.anserini.search.SearchCollection",
                           "-index", str(index), "-topics", str(paths["topics"]), "-topicReader", "TsvString", "-output",
                           f"{work}/anserini.run", "-bm25", "-hits", "1000", "-threads", "2"])
    row("BM25, 249 queries, depth 1000 (irfair rank)", ours, theirs, peer_label="Anserini SearchCollection")


def evaluation(paths, env: dict) -> None:
    run, qrels = str(paths["runs"][0]), str(paths["qrels"])
    ours_code = ("from irfair.trec import read_run, read_qrels\nfrom irfair.measures.effectiveness import evaluate\n"
                 f"print(evaluate(read_run({run!r}), read_qrels({qrels!r})).means)")
    peer_code = ("import pytrec_eval\nqrels, run = {}, {}\n"
                 f"for line in open({qrels!r}):\n    q, _, d, g = line.split(); qrels.setdefault(q, {{}})[d] = int(g)\n"
                 f"for line in open({run!r}):\n    q, _, d, _, s, _ = line.split(); run.setdefault(q, {{}})[d] = float(s)\n"
                 "e = pytrec_eval.RelevanceEvaluator(qrels, {'map', 'ndcg_cut.100', 'P.10'})\nprint(len(e.evaluate(run)))")
    ours, _ = timed([PYTHON, "-c", ours_code], env)
    theirs, _ = timed([PYTHON, "-c", peer_code], env)
    row("evaluation of one 249k-line run, as a process", ours, theirs, peer_label="pytrec_eval alone (own parsing)")


def add_ranker(paths, cache: Path) -> None:
    from irfair.rankers import make_ranker
    from irfair.trec import read_topics

    queries = {q: t.title for q, t in read_topics(paths["topics"]).items()}
    start = time.perf_counter()
    ranker = make_ranker("add", corpus=paths["corpus"], embeddings="w2v-gnews-26k", cache_dir=cache)
    print(f"term store + document vectors for add (once): {time.perf_counter() - start:.0f} s")
    ranker.rank(queries, depth=1000)
    start = time.perf_counter()
    ranker.rank(queries, depth=1000)
    ours = time.perf_counter() - start
    vectors = np.vstack([ranker.query_vector(text) for text in queries.values()])
    documents = np.asarray(ranker.doc_vectors)
    start = time.perf_counter()
    for first in range(0, len(vectors), 64):
        block = vectors[first:first + 64] @ documents.T
        np.argpartition(block, block.shape[1] - 1000, axis=1)[:, -1000:]
    theirs = time.perf_counter() - start
    row(f"add ranker in-process, {len(documents):,} × {documents.shape[1]} vectors", ours, theirs,
        peer_label="bare GEMM + argpartition")


def corpus_pass(paths, megabytes: int) -> None:
    from irfair.corpus import open_corpus
    from irfair.corpus.counting import TermCounter, count_in_parallel
    from irfair.text import default_stopwords

    texts, size = [], 0
    for _, text in open_corpus(paths["corpus"]).iter_docs():
        texts.append(text)
        size += len(text.encode())
        if size >= megabytes * 1e6:
            break
    batches = [texts[i:i + 2000] for i in range(0, len(texts), 2000)]
    rates = {}
    for label, jobs, scheduler in (("1 job", 1, None), ("2 jobs", 2, None), ("2-worker Dask LocalCluster", 2, "local")):
        counter = TermCounter(default_stopwords(), [], {})
        start = time.perf_counter()
        for _ in count_in_parallel(batches, counter, jobs=jobs, scheduler=scheduler):
            pass
        rates[label] = size / 1e6 / (time.perf_counter() - start)
    print(f"corpus pass (tokenise + count, {size / 1e6:.0f} MB): " +
          ", ".join(f"{label} {rate:.1f} MB/s ({rate / (1 if label == '1 job' else 2):.1f} per core)" for label, rate in rates.items()))


def audits(paths, cache: Path, env: dict) -> None:
    with tempfile.TemporaryDirectory() as work:
        command = [IRFAIR, "audit", *map(str, paths["runs"]), "--qrels", str(paths["qrels"]), "--topics", str(paths["topics"]),
                   "--corpus", str(paths["corpus"]), "--cache-dir", str(cache / "audit"), "--out", work, "--quiet"]
        cold, cold_peak = timed(command, env)
        warm, warm_peak = timed(command, env)
    print(f"audit of {len(paths['runs'])} runs × 249 queries: cold {cold:.1f} s (peak {cold_peak:.2f} GiB), "
          f"warm {warm:.1f} s (peak {warm_peak:.2f} GiB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="where the data is written (and reused)")
    parser.add_argument("--docs", type=int, default=ROBUST04_DOCS)
    parser.add_argument("--runs", type=int, default=18)
    parser.add_argument("--pass-mb", type=int, default=200, help="megabytes of text for the corpus-pass rates")
    parser.add_argument("--skip", default="", help="comma-separated steps to skip: bm25,eval,add,pass,audit")
    args = parser.parse_args()
    paths = write_collection(args.folder, args.docs, n_runs=args.runs)
    cache = args.folder / "cache"
    env = {**os.environ, "IRFAIR_CACHE": str(cache)}
    skip = set(args.skip.split(","))
    print(json.dumps({"documents": args.docs, "runs": len(paths["runs"]), "cores": os.cpu_count()}))
    steps = {"eval": lambda: evaluation(paths, env), "pass": lambda: corpus_pass(paths, args.pass_mb),
             "audit": lambda: audits(paths, cache, env), "add": lambda: add_ranker(paths, cache),
             "bm25": lambda: bm25(paths, cache, env)}
    for name, step in steps.items():
        if name not in skip:
            step()


if __name__ == "__main__":
    main()
