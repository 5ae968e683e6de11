"""The random baseline does not depend on which runs are audited, nor on the other queries."""
import numpy as np
import pytest
from helpers import overlap_run

from irfair.audit import RANDOM, audit
from irfair.audit.baselines import query_seed, random_run
from irfair.corpus import open_corpus
from irfair.trec import read_topics


def test_each_query_draws_with_its_own_generator():
    pool = [f"doc{i:03d}" for i in range(200)]
    both = random_run({"a": 5, "b": 7}, pool, seed=4)
    alone = random_run({"b": 7}, pool, seed=4)
    assert both["b"] == alone["b"] and len(set(both["a"])) == 5
    # the draw is numpy's choice without replacement from the generator seeded by (seed, CRC-32 of "b")
    expected = np.random.default_rng(query_seed(4, "b")).choice(200, size=7, replace=False)
    assert alone["b"] == [pool[i] for i in expected]
    assert random_run({"b": 7}, pool, seed=5)["b"] != alone["b"]
    assert random_run({"b": 500}, pool, seed=4)["b"].__len__() == 200


@pytest.fixture(scope="module")
def time_runs(shared_data):
    folder = shared_data / "time"
    topics = read_topics(folder / "topics.time.txt")
    docs = dict(open_corpus(folder / "time.trec").iter_docs())
    shallow = overlap_run(topics, docs, depth=3)
    shallow.name = "shallow"
    return folder, overlap_run(topics, docs), shallow, docs


def test_random_gsr_is_the_same_alone_or_with_other_runs(time_runs, w2v):
    folder, run, shallow, docs = time_runs
    args = (folder / "qrels.time.txt", folder / "topics.time.txt", folder / "time.trec", w2v)
    alone = audit([run], *args, n_bootstrap=50, cache_dir=False)
    together = audit([shallow, run], *args, n_bootstrap=50, cache_dir=False)
    assert alone[RANDOM].gsr.slope == together[RANDOM].gsr.slope
    assert alone[RANDOM].gsr.ci_low == together[RANDOM].gsr.ci_low
    assert alone[RANDOM].evaluation.means == together[RANDOM].evaluation.means
    assert alone["overlap"].gsr.slope == together["overlap"].gsr.slope
    # the pool is the whole corpus (423 documents), not the union of the audited lists
    assert alone.counts["documents_in_corpus"] == len(docs) == 423
    assert "423 documents of the corpus" in alone.provenance["random_baseline"]
