"""Robust04-sized benchmark: each of irfair's steps beside its peer, measured in the same run (not a test).

    python scripts/bench_scale.py /tmp/scale            # 528,155 documents (~1.4 GB), 249 topics, 18 runs
    python scripts/bench_scale.py /tmp/scale --docs 50000 --runs 6   # a quick look

Data (synthetic, see scripts/scale_data.py) is written once into the folder and reused. Printed, each
with the ratio to its peer: BM25 through ``irfair rank`` vs Anserini's own Java CLI on the same index;
evaluation of one run (MAP, nDCG@100, P@10) vs pytrec_eval alone, both as processes, and where each
process spends its time; the ``add`` ranker in-process vs a bare matrix product + argpartition on the
same vectors; reading TREC SGML (the same documents as JSONL beside it); the corpus pass (reading,
tokenising and counting into a term store) over SGML and JSONL in MB/s per worker with 1 and 2 local
jobs and on a two-worker Dask LocalCluster (started before the clock, its start-up printed apart), with
each worker's CPU time; the audit of every run cold (empty cache) and warm (the faster of two runs), with
their CPU time and peak memory, and a profile of the warm audit by stage (the main thread's wall and CPU time,
the waits for its threads and worker processes, and their CPU time).

Timings on a shared machine are noisy: ratios are measured in the same run, and CPU seconds (which other
processes do not inflate much) are printed beside wall seconds.
"""
from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale_data import SIZES, scaled, write_collection, write_sgml  # noqa: E402

PYTHON = sys.executable
GOALS: dict[str, tuple[float, float, str]] = {}  # issue 24's goals: name → (measured, goal, ">=" or "<=")
IRFAIR = str(Path(sys.executable).with_name("irfair"))


def timed(command: list[str], env: dict | None = None) -> tuple[float, float, float]:
    """(wall seconds, peak resident memory of the process in GiB, CPU seconds of the process and its children): the
    process's own peak, from wait4 (the children's maximum of getrusage would carry a cold audit's peak over to the
    warm ones after it)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        if process.returncode != 0:
            err.seek(0)
            raise SystemExit(f"failed: {' '.join(command)}\n{err.read().decode(errors='replace')[-2000:]}")
    return wall, usage.ru_maxrss / 2**20, usage.ru_utime + usage.ru_stime


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
        ours, _, _ = timed([IRFAIR, "rank", "--corpus", str(paths["corpus"]), "--index", str(index), "--topics", str(paths["topics"]),
                         "--ranker", "bm25", "--out", f"{work}/bm25.run", "--quiet"], env)
        theirs, _, _ = timed([str(prepare_java()), f"-Xmx{java_heap()}", "-cp", str(pyserini_jar()), "io.anserini.search.SearchCollection",
                           "-index", str(index), "-topics", str(paths["topics"]), "-topicReader", "TsvString", "-output",
                           f"{work}/anserini.run", "-bm25", "-hits", "1000", "-threads", "2"])
    row("BM25, 249 queries, depth 1000 (irfair rank)", ours, theirs, peer_label="Anserini SearchCollection")


_OURS_EVALUATION = """\
import time
started = time.perf_counter()
import numpy
imported_numpy = time.perf_counter()
from irfair.trec import read_run, read_qrels
from irfair.measures.effectiveness import evaluate
imported = time.perf_counter()
run = read_run({run!r})
read = time.perf_counter()
qrels = read_qrels({qrels!r})
read_both = time.perf_counter()
means = evaluate(run, qrels).means
done = time.perf_counter()
print(means)
print("PROFILE", dict(numpy=imported_numpy - started, imports=imported - imported_numpy, read_run=read - imported,
                     read_qrels=read_both - read, evaluate=done - read_both))
"""
_PEER_EVALUATION = """\
import time
started = time.perf_counter()
import pytrec_eval
imported = time.perf_counter()
qrels, run = {{}}, {{}}
for line in open({qrels!r}):
    q, _, d, g = line.split(); qrels.setdefault(q, {{}})[d] = int(g)
for line in open({run!r}):
    q, _, d, _, s, _ = line.split(); run.setdefault(q, {{}})[d] = float(s)
read = time.perf_counter()
e = pytrec_eval.RelevanceEvaluator(qrels, {{'map', 'ndcg_cut.100', 'P.10'}})
print(len(e.evaluate(run)))
done = time.perf_counter()
print("PROFILE", dict(imports=imported - started, read_run_and_qrels=read - imported, evaluate=done - read))
"""


def evaluation(paths, env: dict, repeats: int = 3) -> None:
    """Both as processes (best of ``repeats``), then where each spent its time (from inside the process)."""
    run, qrels = str(paths["runs"][0]), str(paths["qrels"])
    best = {}
    for label, code in (("ours", _OURS_EVALUATION), ("peer", _PEER_EVALUATION)):
        timings = []
        for _ in range(repeats):
            start = time.perf_counter()
            done = subprocess.run([PYTHON, "-c", code.format(run=run, qrels=qrels)], env=env, capture_output=True, text=True)
            wall = time.perf_counter() - start
            if done.returncode != 0:
                raise SystemExit(f"evaluation failed:\n{done.stderr[-2000:]}")
            profile = eval(done.stdout.split("PROFILE", 1)[1])  # a dict printed by our own code above
            timings.append((wall, profile))
        best[label] = min(timings, key=lambda timing: timing[0])
    row("evaluation of one 249k-line run, as a process", best["ours"][0], best["peer"][0], peer_label="pytrec_eval alone (own parsing)")
    GOALS["evaluation / pytrec_eval <= 1.5"] = (best["ours"][0] / best["peer"][0], 1.5, "<=")
    for label, (wall, profile) in best.items():
        parts = ", ".join(f"{name} {seconds:.3f}" for name, seconds in profile.items())
        print(f"  {label}: {wall:.3f} s = start-up {wall - sum(profile.values()):.3f}, {parts}")


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


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def pass_inputs(paths, megabytes: int) -> tuple[Path, Path]:
    """The first ``megabytes`` of the corpus as JSONL and as TREC SGML (the same documents), written once."""
    folder = Path(paths["corpus"]).parent
    jsonl, sgml = folder / f"pass-{megabytes}mb.jsonl", folder / f"pass-{megabytes}mb.trec"
    if not jsonl.is_file():
        written = 0
        with open(paths["corpus"], encoding="utf-8") as source, open(jsonl, "w", encoding="utf-8") as out:
            for line in source:
                out.write(line)
                written += len(line)
                if written >= megabytes * 1e6:
                    break
    if not sgml.is_file():
        write_sgml(jsonl, sgml)
    return jsonl, sgml


def sgml_reading(jsonl: Path, sgml: Path) -> None:
    """MB/s of reading the SGML file into documents' text (exact, tidied) and into the corpus pass's token
    text, beside reading the same documents from JSONL; one core, CPU time."""
    from irfair.corpus import open_corpus
    from irfair.corpus.pieces import cut_pieces

    def rate(path: Path, read) -> float:
        start = time.process_time()
        count = sum(1 for _ in read())
        return path.stat().st_size / 1e6 / (time.process_time() - start), count

    trec = open_corpus(sgml)
    text, n_docs = rate(sgml, trec.iter_docs)
    tokens, _ = rate(sgml, lambda: (doc for piece in cut_pieces(trec.paths) for doc in trec.piece_documents(piece)))
    reference, _ = rate(jsonl, open_corpus(jsonl).iter_docs)
    print(f"reading TREC SGML ({sgml.stat().st_size / 1e6:.0f} MB, {n_docs:,} documents, one core, CPU time): "
          f"text {text:.0f} MB/s, token text for counting {tokens:.0f} MB/s; the same documents as JSONL {reference:.0f} MB/s "
          f"(ratio {text / reference:.2f})")
    GOALS["SGML reading MB/s per core >= 100"] = (text, 100, ">=")


def corpus_pass(paths, megabytes: int) -> None:
    """The whole-corpus pass into an in-memory term store, over SGML and JSONL: MB/s overall and per worker
    with 1 and 2 local jobs and on a two-worker Dask LocalCluster started beforehand, and MB per CPU
    second of the workers (how fast a worker is, whatever else shares the machine)."""
    import dask
    from dask.distributed import Client, LocalCluster

    from irfair.corpus import open_corpus
    from irfair.corpus.termstore import TermStore

    jsonl, sgml = pass_inputs(paths, megabytes)
    sgml_reading(jsonl, sgml)
    start = time.perf_counter()
    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):  # as irfair.executor starts it
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    client.run(importlib.import_module, "irfair.corpus.termstore")  # local workers are forked with irfair imported
    print(f"  (two-worker Dask LocalCluster started, irfair imported in its workers, in {time.perf_counter() - start:.1f} s; "
          "not counted below)")
    saved = {name: os.environ.get(name) for name in ("IRFAIR_JOBS", "IRFAIR_SCHEDULER")}
    try:
        for path in (sgml, jsonl):
            corpus, size = open_corpus(path), path.stat().st_size / 1e6
            rates = {}
            for label, jobs, scheduler in (("1 job", 1, None), ("2 jobs", 2, None), ("Dask, 2 workers", 2, cluster.scheduler_address)):
                os.environ["IRFAIR_JOBS"] = str(jobs)
                os.environ.pop("IRFAIR_SCHEDULER", None) if scheduler is None else os.environ.update(IRFAIR_SCHEDULER=scheduler)
                dask_cpu = client.run(time.process_time) if scheduler else {}
                wall, cpu, children = time.perf_counter(), time.process_time(), _children_cpu()
                TermStore().ensure(corpus, None, progress=False)
                wall, cpu, children = time.perf_counter() - wall, time.process_time() - cpu, _children_cpu() - children
                workers = (sum(client.run(time.process_time)[w] - dask_cpu[w] for w in dask_cpu) if scheduler else
                           children if jobs > 1 else cpu)
                rates[label] = (size / wall / jobs, size / workers)
                print(f"corpus pass, {path.suffix[1:]} ({size:.0f} MB), {label:<16} {size / wall:7.1f} MB/s = "
                      f"{size / wall / jobs:6.1f} per worker; workers' CPU {workers:5.1f} s ({size / workers:5.1f} MB per CPU s); "
                      f"this process {cpu:4.1f} s")
            GOALS[f"Dask corpus pass ({path.suffix[1:]}) MB/s per worker >= 20"] = (rates["Dask, 2 workers"][0], 20, ">=")
            GOALS[f"Dask per worker / one local job ({path.suffix[1:]}) >= 1"] = (
                rates["Dask, 2 workers"][0] / rates["1 job"][0], 1.0, ">=")
            print(f"  Dask per worker / one local job: wall {rates['Dask, 2 workers'][0] / rates['1 job'][0]:.2f}, "
                  f"CPU {rates['Dask, 2 workers'][1] / rates['1 job'][1]:.2f}; / 2 local jobs (as many workers "
                  f"as cores either way): wall {rates['Dask, 2 workers'][0] / rates['2 jobs'][0]:.2f}")
    finally:
        for name, value in saved.items():
            os.environ.pop(name, None) if value is None else os.environ.update({name: value})
        client.close()
        cluster.close()


def dask_pass(paths) -> None:
    """The pass over the whole corpus (JSONL) on a two-worker Dask LocalCluster started beforehand, into a term store
    in this process: MB/s overall and per worker, each worker's CPU time and peak memory, this process's CPU time and
    peak memory (it merges the workers' counts), and the workers an MS MARCO v2-sized corpus would need."""
    import dask
    from dask.distributed import Client, LocalCluster

    from irfair.corpus import open_corpus
    from irfair.corpus.termstore import TermStore

    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    client.run(importlib.import_module, "irfair.corpus.termstore")
    path = Path(paths["corpus"])
    size = path.stat().st_size / 1e6
    saved = {name: os.environ.get(name) for name in ("IRFAIR_JOBS", "IRFAIR_SCHEDULER")}
    os.environ.update(IRFAIR_JOBS="2", IRFAIR_SCHEDULER=cluster.scheduler_address)
    try:
        before = client.run(time.process_time)
        wall, cpu = time.perf_counter(), time.process_time()
        store = TermStore()
        store.ensure(open_corpus(path), None, progress=False)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        worker_cpu = {w: t - before[w] for w, t in client.run(time.process_time).items()}
        worker_peak = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20)
    finally:
        for name, value in saved.items():
            os.environ.pop(name, None) if value is None else os.environ.update({name: value})
        client.close()
        cluster.close()
    client_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    docs = len(store)
    print(f"corpus pass on Dask, 2 workers, whole corpus ({docs:,} documents, {size:,.0f} MB JSONL): {wall:.0f} s = "
          f"{size / wall:.1f} MB/s = {size / wall / 2:.1f} MB/s per worker; workers' CPU "
          f"{', '.join(f'{t:.0f} s' for t in worker_cpu.values())} ({size / sum(worker_cpu.values()):.1f} MB per worker-CPU s); "
          f"workers' peak memory {', '.join(f'{m:.2f} GiB' for m in worker_peak.values())}; this process: CPU {cpu:.0f} s, "
          f"peak {client_peak:.2f} GiB")
    v2 = 138_364_198 * size * 1e6 / docs  # MS MARCO v2's passages at this corpus's bytes per document
    rate = size / wall / 2  # MB/s per worker, this process's merging included
    worker_rate = size / sum(worker_cpu.values())  # MB per worker-CPU second
    workers = math.ceil(v2 / 1e6 / worker_rate / 3600)
    client = cpu * v2 / (size * 1e6)  # this process's merging, seconds, at its rate here
    print(f"  MS MARCO v2 (138,364,198 passages, ~{v2 / 1e9:.0f} GB at these bytes per passage): its tokenising and "
          f"counting take {v2 / 1e6 / worker_rate / 3600:.1f} worker-CPU hours ({worker_rate:.1f} MB per worker-CPU s), so "
          f"{workers} one-core worker{'s' if workers != 1 else ''} would finish within the hour; this process's merging "
          f"would take {client / 3600:.1f} h at its rate here ({rate:.1f} MB/s per worker overall; it merged {cpu / wall:.0%} "
          "of the wall time)")


# stages of an audit, for its profile: (stage, path prefixes under irfair/, function-name fragments); first match wins
STAGES = (
    ("start-up and imports", ("<import>",), ()),
    ("waiting for other threads and worker processes", ("<waiting>",), ()),
    ("bootstrap, tests and their intervals", ("audit/agreement.py", "audit/comparisons.py", "audit/conclusions.py",
                                              "measures/resampling.py", "measures/inverted_intervals.py", "measures/intervals.py"),
     ("bootstrap", "resample", "percentile_ci", "paired", "query_mean_ci")),
    ("per-query list genderedness", (), ("list_genderedness", "rank_weights")),
    ("document genderedness lookup", ("gender/",), ("genderedness",)),
    ("evaluation", ("measures/effectiveness.py", "measures/trec_kernels.py", "measures/trec_judged.py"), ()),
    ("bias measures (GSR fits, RaB/ARaB, NFaiRR, TExFAIR, all cut-offs)", ("measures/", "audit/bias.py"), ()),
    ("reading runs, qrels, topics", ("trec/",), ()),
    ("corpus, term store, embeddings (cache)", ("corpus/", "cache/", "embeddings", "audit/rows.py"), ()),
    ("writing outputs (JSON, CSV, tables, plots, HTML)", ("presentation/", "atomic.py"), ()),
    ("audit assembly (other irfair code)", ("",), ()),
)
# run in the profiled process: every 2 ms, the innermost irfair function on the main thread's stack (or the import
# machinery, or a wait for a thread or a worker process of the audit) is charged the wall time and the main thread's
# CPU time since the last sample; at the end, the CPU time of the whole process and of its children
_SAMPLED_AUDIT = """\
import json, os, resource, sys, threading, time
from irfair.cli import main
marker, main_thread, spent, stop = os.sep + "irfair" + os.sep, threading.main_thread().ident, {{}}, threading.Event()
clock = time.pthread_getcpuclockid(main_thread)
def sample():
    last, last_cpu = time.perf_counter(), time.clock_gettime(clock)
    while not stop.wait(0.002):
        frame, owner = sys._current_frames().get(main_thread), "<other>"
        now, cpu = time.perf_counter(), time.clock_gettime(clock)
        if frame is not None and (os.sep + "concurrent" + os.sep in frame.f_code.co_filename
                                  or frame.f_code.co_name == "wait" and frame.f_code.co_filename.endswith("threading.py")):
            owner = "<waiting>"
            frame = None
        while frame is not None:
            name = frame.f_code.co_filename
            if "importlib" in name or name.startswith("<frozen"):
                owner = "<import>"
                break
            if marker in name and "site-packages" not in name:
                owner = name.split(marker, 1)[1] + ":" + frame.f_code.co_name
                break
            frame = frame.f_back
        wall_cpu = spent.setdefault(owner, [0.0, 0.0])
        wall_cpu[0] += now - last
        wall_cpu[1] += cpu - last_cpu
        last, last_cpu = now, cpu
sampler = threading.Thread(target=sample, daemon=True)
sampler.start()
main({arguments!r})
stop.set()
sampler.join()  # the last sample is in before the profile is written (it raced json.dump)
usage = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
json.dump({{"owners": spent, "main_cpu": time.clock_gettime(clock), "process_cpu": usage[0].ru_utime + usage[0].ru_stime,
           "children_cpu": usage[1].ru_utime + usage[1].ru_stime}}, open({out!r}, "w"))
"""


def stage_of(owner: str) -> str:
    """The stage of :data:`STAGES` of a sampled ``path:function`` (or ``<import>``, ``<waiting>``)."""
    path, _, function = owner.partition(":")
    for stage, prefixes, names in STAGES:
        if any(path.startswith(prefix) for prefix in prefixes) or any(name in function for name in names):
            return stage
    return stage


def audits(paths, cache: Path, env: dict, shape: dict | None = None) -> None:
    """The audit of every run with an empty cache folder of its own (cold), again twice (warm: the faster), and a fourth
    time sampled."""
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as work:
        arguments = [*map(str, paths["runs"]), "--qrels", str(paths["qrels"]), "--topics", str(paths["topics"]),
                     "--corpus", str(paths["corpus"]), "--cache-dir", str(Path(work) / "cache"), "--out", work, "--quiet"]
        command = [IRFAIR, "audit", *arguments]
        cold, cold_peak, cold_cpu = timed(command, env)
        warm_runs = [timed(command, env) for _ in range(2)]  # the faster of two: another process may take a core for a while
        warm, warm_peak, warm_cpu = min(warm_runs)
        profile = Path(work) / "audit-profile.json"
        profiled, _, _ = timed([PYTHON, "-c", _SAMPLED_AUDIT.format(arguments=["audit", *arguments], out=str(profile))], env)
        sampled = json.loads(profile.read_text())
        seconds: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        for owner, (wall, cpu) in sampled["owners"].items():
            stage = seconds["other (outside any irfair function)" if owner == "<other>" else stage_of(owner)]
            stage[0] += wall
            stage[1] += cpu
    shape = shape or {"topics": 249, "docs": 528_155}
    print(f"audit of {len(paths['runs'])} runs × {shape['topics']:,} queries: cold {cold:.1f} s (CPU {cold_cpu:.1f} s, peak "
          f"{cold_peak:.2f} GiB), warm {warm:.1f} s (CPU {warm_cpu:.1f} s, peak {warm_peak:.2f} GiB; the faster of "
          f"{' and '.join(f'{run[0]:.1f} s' for run in warm_runs)})")
    lines, docs, peak = len(paths["runs"]) * shape["topics"] * 1000, shape["docs"], max(cold_peak, warm_peak) * 2**30
    print(f"  growth row: {lines:,} run lines, {docs:,} documents; per run line cold {1e6 * cold / lines:.2f} µs, warm "
          f"{1e6 * warm / lines:.2f} µs, peak {peak / lines:.0f} bytes; per document cold {1e6 * cold / docs:.1f} µs, "
          f"peak {peak / docs:.0f} bytes")
    GOALS["warm audit seconds < 10"] = (warm, 10, "<=")
    GOALS["cold audit seconds < 60"] = (cold, 60, "<=")
    GOALS["audit peak GiB < 4"] = (max(cold_peak, warm_peak), 4, "<=")
    total = sum(wall for wall, _ in seconds.values())
    main_cpu, process_cpu, children_cpu = sampled["main_cpu"], sampled["process_cpu"], sampled["children_cpu"]
    print(f"  profile of a warm audit by stage (the main thread sampled every 2 ms in another run of {profiled:.1f} s; wall "
          f"scaled to the warm {warm:.1f} s; CPU: the main thread's {main_cpu:.1f} s; other threads "
          f"{process_cpu - main_cpu:.1f} s, worker processes {children_cpu:.1f} s):")
    print(f"    {'stage':<68} {'wall':>8} {'share':>7} {'main CPU':>9}")
    for stage, (wall, cpu) in sorted(seconds.items(), key=lambda item: -item[1][0]):
        print(f"    {stage:<68} {wall / total * warm:6.2f} s {100 * wall / total:5.1f} % {cpu:7.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="where the data is written (and reused)")
    parser.add_argument("--size", choices=sorted(SIZES), default="robust04",
                        help="robust04 (528,155 documents, 249 topics, 18 runs) or msmarco (8.8 M passages, 6,980 queries, 10 runs)")
    parser.add_argument("--fraction", type=float, default=1.0, help="of the size's documents and topics (runs and depth kept)")
    parser.add_argument("--pass-mb", type=int, default=200, help="megabytes of text for the corpus-pass rates")
    parser.add_argument("--skip", default="", help="comma-separated steps to skip: bm25,eval,add,pass,audit")
    parser.add_argument("--only", default="", help="comma-separated steps to run (default: all not skipped); dask (the "
                        "whole corpus on a 2-worker Dask cluster) runs only when named here")
    args = parser.parse_args()
    shape = scaled(args.size, args.fraction)
    paths = write_collection(args.folder, shape["docs"], shape["topics"], shape["runs"], mean_words=shape["mean_words"],
                             sigma=shape["sigma"], qrels=shape["qrels"])
    cache = args.folder / "cache"
    env = {**os.environ, "IRFAIR_CACHE": str(cache)}
    skip = set(args.skip.split(","))
    only = set(filter(None, args.only.split(",")))
    run_lines = len(paths["runs"]) * shape["topics"] * 1000
    print(json.dumps({"size": args.size, "fraction": args.fraction, "documents": shape["docs"], "topics": shape["topics"],
                      "runs": len(paths["runs"]), "run_lines": run_lines, "cores": os.cpu_count()}))
    steps = {"eval": lambda: evaluation(paths, env), "pass": lambda: corpus_pass(paths, args.pass_mb),
             "audit": lambda: audits(paths, cache, env, shape), "add": lambda: add_ranker(paths, cache),
             "bm25": lambda: bm25(paths, cache, env), "dask": lambda: dask_pass(paths)}
    for name, step in steps.items():
        if name not in skip and (not only or name in only) and (name != "dask" or name in only):  # dask: when asked
            step()
    if GOALS:
        print("issue 24 goals (this run; timings on a shared machine are noisy):")
        for goal, (measured, target, sense) in GOALS.items():
            met = measured >= target if sense == ">=" else measured <= target
            print(f"  {'met    ' if met else 'NOT MET'} {goal:<52} measured {measured:8.2f}")


if __name__ == "__main__":
    main()
