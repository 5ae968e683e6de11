"""Faults that need real processes: audits running at once on one cold cache, a process killed with
SIGKILL while it builds each kind of cache entry, Ctrl-C, and output into a closed pipe.

Every result is compared with the same computation done once, in this process, without a cache."""
from __future__ import annotations

import collections
import json
import signal

import numpy as np
import pytest
from faults_data import make_time_inputs, run_cli, run_driver, start_cli

from irfair.cache.manage import scan
from irfair.corpus import TermStore, open_corpus
from irfair.embeddings import load_embeddings
from irfair.gender.debias import debiased
from irfair.rankers.embedding import EmbeddingRanker


@pytest.fixture(scope="module")
def inputs(shared_data, glove, tmp_path_factory):
    return make_time_inputs(shared_data / "time", tmp_path_factory.mktemp("fault-inputs"), glove)


@pytest.fixture(scope="module")
def reference(inputs, tmp_path_factory):
    """Each run audited alone, without a cache: (printed table, audit.json)."""
    results = []
    for run in inputs.runs:
        out = tmp_path_factory.mktemp("reference")
        code, printed, err = run_cli(inputs.audit_args(run, "--no-cache", "--out", out))
        assert code == 0 and err == ""
        results.append((printed.replace(str(out), "OUT"), json.loads((out / "audit.json").read_text())))
    return results


def _numbers(summary: dict) -> dict[tuple[str, str], float]:
    """Every number of audit.json's systems, keyed by (system, field)."""
    values = {}
    for system, fields in summary["systems"].items():
        for field, value in fields.items():
            if isinstance(value, float):
                values[system, field] = value
            elif isinstance(value, dict):
                values.update({(system, f"{field}.{k}"): v for k, v in value.items() if isinstance(v, float)})
    return values


def _assert_same_audit(summary: dict, expected: dict) -> None:
    got, want = _numbers(summary), _numbers(expected)
    assert got.keys() == want.keys() and len(want) > 20
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key


@pytest.mark.parametrize("repeat", range(2))
def test_four_audits_at_once_on_one_cold_cache(inputs, reference, tmp_path, repeat):
    cache = tmp_path / "cache"
    outs = [tmp_path / f"out{i}" for i in range(4)]
    processes = [start_cli(inputs.audit_args(run, "--cache-dir", cache, "--out", out)) for run, out in zip(inputs.runs, outs)]
    for process, out, (printed, summary) in zip(processes, outs, reference):
        stdout, stderr = process.communicate(timeout=300)
        assert (process.returncode, stderr) == (0, "")
        assert stdout.replace(str(out), "OUT") == printed
        _assert_same_audit(json.loads((out / "audit.json").read_text()), summary)
    code, printed, _ = run_cli(["cache", "verify", "--cache-dir", cache])
    assert code == 0 and "0 damaged" in printed
    store = TermStore.for_corpus(open_corpus(inputs.folder / "time.trec"), cache)
    wanted = {doc for run in inputs.runs for line in run.read_text().splitlines() for doc in [line.split()[2]]}
    assert wanted <= set(store.doc_ids)  # every process's documents made it into the one store
    entries = scan(cache)
    assert sorted({r.kind for r in entries} - {"runs", "figures"}) == ["embeddings", "terms", "values"]
    # values shared where their inputs are the same: the perfect run's TExFAIR over its tie orders (the qrels'), the
    # perfect and the random run's document genderedness (1 + 1) and the counts of the perfect run's documents (1);
    # runs A and B list the same documents within the audited depth (3 system lists of genderedness, 3 sets of
    # documents measured), not within their whole depth (4 sets counted, 4 runs evaluated)
    labels = collections.Counter(r.path.name.rsplit("-", 1)[0] for r in entries if r.kind == "values")
    assert labels == {"texfair": 1, "genderedness": 2 + 3, "measurable": 3, "counts": 1 + 4, "evaluation": 4}, labels
    # the scatter plots of the four --out folders, 3 each (equal plots shared): at most 12, all whole
    assert 3 <= len([r for r in entries if r.kind == "figures"]) <= 12
    # each run file parsed once (its store rows are kept too when its process found the store complete)
    parsed = sorted(r.path.name.rsplit("-", 1)[0] for r in entries if r.kind == "runs" and "-rows-" not in r.path.name)
    assert parsed == sorted(run.name for run in inputs.runs) and {r.state for r in entries} == {"ok"}


def _time_corpus(inputs):
    return open_corpus(inputs.folder / "time.trec")


def _store_contents(store: TermStore):
    return store.doc_ids, store.vocab, store.matrix().toarray()


def _build(kind: str, inputs, cache):
    """What a process builds for ``kind`` (with ``cache``; in memory when ``cache`` is None)."""
    if kind == "embeddings":
        emb = load_embeddings(inputs.vectors, cache)
        return emb.words, np.asarray(emb.vectors)
    corpus = _time_corpus(inputs)
    if kind == "terms":
        store = TermStore.for_corpus(corpus, cache)
        store.ensure(corpus, None, progress=False)
        return _store_contents(store)
    if kind == "docvectors":
        store = TermStore.for_corpus(corpus, cache)
        store.ensure(corpus, None, progress=False)
        return np.asarray(EmbeddingRanker(store, load_embeddings(inputs.vectors, cache), "si", cache, corpus_key=corpus.name).doc_vectors)
    if kind == "debiased":
        emb = debiased(load_embeddings(inputs.vectors), "hard", cache)
        return emb.words, np.asarray(emb.vectors)
    raise ValueError(kind)


KILLS = [("embeddings", "build"), ("embeddings", "manifest"), ("embeddings", "published"),
         ("terms", "build"), ("terms", "swap"), ("terms", "manifest"), ("docvectors", "build"), ("debiased", "build")]
_expected: dict[str, tuple] = {}


@pytest.mark.parametrize(("kind", "point"), KILLS)
def test_killed_while_building_then_rebuilt_with_identical_numbers(inputs, tmp_path, capsys, kind, point):
    cache = tmp_path / "cache"
    args = [inputs.vectors] if kind in ("embeddings", "debiased") else [inputs.folder / "time.trec", inputs.vectors]
    killed = run_driver(kind, point, "KILL", cache, *args)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    states = {r.state for r in scan(cache, kinds=[kind])}
    published = point == "published" or (kind == "terms" and point != "swap")  # a store publishes every 100 documents here
    assert states <= {"ok", "unfinished"} and ("ok" in states) == published
    expected = _expected.setdefault(kind, _build(kind, inputs, None))
    capsys.readouterr()
    rebuilt = _build(kind, inputs, cache)
    assert capsys.readouterr().err == ""  # nothing published was damaged: nothing to report
    for got, want in zip(rebuilt, expected):
        assert np.array_equal(np.asarray(got), np.asarray(want))
    assert {(r.kind, r.state) for r in scan(cache, verify=True)} <= {(k, "ok") for k in ("embeddings", "terms", "docvectors", "debiased")}


def _check_index(index) -> list[str]:
    """Lucene's own CheckIndex of ``index``: its statistics lines, timings removed."""
    import re
    import subprocess

    from irfair.anserini import prepare_java, pyserini_jar

    command = [str(prepare_java()), "-cp", str(pyserini_jar()), "org.apache.lucene.index.CheckIndex", str(index)]
    output = subprocess.run(command, capture_output=True, text=True, timeout=300).stdout
    return [re.sub(r" \[took [0-9.]+ sec\]", "", line.strip()) for line in output.splitlines()
            if "documents;" in line or "test:" in line or "No problems" in line]


def test_killed_while_building_a_lucene_index(inputs, tmp_path):
    from irfair.corpus.lucene_index import build_index

    cache = tmp_path / "cache"
    killed = run_driver("lucene", "build", "KILL", cache, inputs.folder / "time.trec")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert [r.state for r in scan(cache)] == ["unfinished", "unfinished"]  # the build folder and the JSON folder
    rebuilt = build_index(_time_corpus(inputs), cache, threads=1, progress=False)
    assert [r.state for r in scan(cache, verify=True)] == ["ok"]
    # the statistics of a clean, uninterrupted build of TIME (Anserini 1.6 analyzer)
    checked = _check_index(rebuilt)
    assert checked[0] == "0.00% total deletions; 423 documents; 0 deletions"
    assert "test: terms, freq, prox...OK [15114 terms; 117853 terms/docs pairs; 174122 tokens]" in checked
    assert checked[-1] == "No problems were detected with this index." and all("OK" in line for line in checked[1:-1])


def test_ctrl_c_while_building_the_term_store(inputs, reference, tmp_path):
    cache, out = tmp_path / "cache", tmp_path / "out"
    stopped = run_driver("cli", "build", "INT", cache, *inputs.audit_args(inputs.runs[1], "--cache-dir", cache, "--out", out))
    assert (stopped.returncode, stopped.stdout, stopped.stderr) == (130, "", "irfair: interrupted\n")
    assert not out.exists()
    assert {r.state for r in scan(cache, verify=True)} == {"ok"}  # what was published is whole; no build left behind
    code, printed, err = run_cli(inputs.audit_args(inputs.runs[1], "--cache-dir", cache, "--out", out))
    assert (code, err) == (0, "") and printed.replace(str(out), "OUT") == reference[1][0]


def test_output_into_a_closed_pipe_ends_quietly(inputs, reference, tmp_path):
    out = tmp_path / "out"
    process = start_cli(inputs.audit_args(inputs.runs[0], "--no-cache", "--out", out))
    process.stdout.close()  # `| head -0`: the reader is gone before anything is printed
    assert process.wait(timeout=300) == 0
    assert process.stderr.read() == ""
    _assert_same_audit(json.loads((out / "audit.json").read_text()), reference[0][1])
