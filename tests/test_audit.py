import math

import numpy as np
import pytest
from helpers import overlap_run

from irfair.audit import PERFECT, RANDOM, audit
from irfair.audit.rows import StoreRows
from irfair.corpus import open_corpus
from irfair.corpus.termstore import TermStore
from irfair.errors import IrfairInputError
from irfair.gender import gender_direction
from irfair.gender.genderedness import tied_rank_weights
from irfair.gender.naive import naive_list_genderedness
from irfair.toy import AGENCY, COMMUNION, FEMALE_JOBS, toy_direct, toy_indirect
from irfair.trec import as_runs, read_qrels, read_topics, relevant_docs


def _toy_audit(toy, embeddings):
    return audit(toy.runs, toy.qrels, toy.topics, toy.docs, embeddings, n_bootstrap=200)


@pytest.mark.parametrize("embedding_fixture", ["w2v", "glove"])
@pytest.mark.parametrize("make_toy", [toy_direct, toy_indirect])
def test_toys_give_equal_and_opposite_slopes(request, embedding_fixture, make_toy):
    embeddings = request.getfixturevalue(embedding_fixture)
    result = _toy_audit(make_toy(), embeddings)
    s, n, cs = (result[name].gsr.slope for name in ("S", "N", "CS"))
    assert s > 0
    assert s == pytest.approx(-cs, abs=1e-9)
    assert abs(n) < 1e-9
    assert abs(result.perfect.gsr.slope) < 1e-9
    assert math.isnan(result["S"].relative_gsr)  # perfect-run GSR is 0


def _expected_toy_slope(embeddings, per_job_list_genderedness):
    direction = gender_direction(embeddings)
    jobs = [job for job in per_job_list_genderedness if job in embeddings]
    x = direction.word_genderedness(embeddings, jobs)
    y = np.array([per_job_list_genderedness[job] for job in jobs])
    return np.polyfit(x, y, 1)[0], len(jobs)


def test_toy_direct_slope_from_word_vectors(w2v):
    """S's list is one document whose only measured word is man or woman: the slope is that of
    g(woman)/g(man) against g(job), worked out straight from the vectors."""
    direction = gender_direction(w2v)
    g_woman, g_man = direction.word_genderedness(w2v, ["woman", "man"])
    jobs = toy_direct().topics
    expected, n = _expected_toy_slope(w2v, {t.title: g_woman if t.title in FEMALE_JOBS else g_man for t in jobs.values()})
    result = _toy_audit(toy_direct(), w2v)
    assert n == 12 and result["S"].gsr.n_queries == 12
    assert result["S"].gsr.excluded == {"no term in the embedding vocabulary": 8}
    assert result["S"].gsr.slope == pytest.approx(expected, abs=1e-9)


def test_toy_indirect_slope_from_word_vectors(glove):
    direction = gender_direction(glove)

    def weighted(adjectives):
        g = direction.word_genderedness(glove, list(adjectives))
        w = 1 / np.log2(np.arange(2, len(adjectives) + 2))
        keep = ~np.isnan(g)
        return float(np.dot(w[keep], g[keep]) / w[keep].sum())

    lists = {t.title: weighted(COMMUNION if t.title in FEMALE_JOBS else AGENCY) for t in toy_indirect().topics.values()}
    expected, n = _expected_toy_slope(glove, lists)
    result = _toy_audit(toy_indirect(), glove)
    assert n == 20
    assert result["S"].gsr.slope == pytest.approx(expected, abs=1e-9)


@pytest.fixture(scope="module")
def time_collection(shared_data):
    folder = shared_data / "time"
    topics = read_topics(folder / "topics.time.txt")
    qrels = read_qrels(folder / "qrels.time.txt")
    docs = dict(open_corpus(folder / "time.trec").iter_docs())
    return folder, topics, qrels, docs


def test_time_perfect_run_matches_naive_implementation(time_collection, w2v, tmp_path):
    folder, topics, qrels, docs = time_collection
    run = overlap_run(topics, docs)
    result = audit([run], folder / "qrels.time.txt", folder / "topics.time.txt", folder / "time.trec", w2v,
                   n_bootstrap=200, cache_dir=tmp_path)
    direction = gender_direction(w2v)
    perfect = result.perfect.gsr.per_query.set_index("qid")
    used = perfect[perfect["used"]]
    assert len(used) == 79 and result.perfect.gsr.excluded == {"no relevant documents": 4}
    for qid in used.index:
        relevant = relevant_docs(qrels, qid)
        expected = naive_list_genderedness(w2v, direction, topics[qid].title, docs, [d for d, _ in relevant],
                                           tied_rank_weights([g for _, g in relevant]))
        assert used.loc[qid, "list_genderedness"] == pytest.approx(expected, abs=1e-9)
    x = used["query_genderedness"].to_numpy()
    assert result.perfect.gsr.slope == pytest.approx(np.polyfit(x, used["list_genderedness"].to_numpy(), 1)[0], abs=1e-12)
    # the system's lists are cut at K = number of relevant documents
    system = result["overlap"].gsr.per_query.set_index("qid")
    for qid in ("1", "2", "50"):
        k = len(relevant_docs(qrels, qid))
        assert system.loc[qid, "depth"] == k
        expected = naive_list_genderedness(w2v, direction, topics[qid].title, docs, run.doc_ids(qid, k))
        assert system.loc[qid, "list_genderedness"] == pytest.approx(expected, abs=1e-9)
    assert result.perfect.evaluation.means["MAP"] == pytest.approx(1.0)
    assert set(result.table().index) == {PERFECT, RANDOM, "overlap"}


@pytest.mark.slow
def test_vaswani_system_beats_random_and_gsr_is_near_zero(shared_data, w2v):
    """Vaswani has little gendered language: GSR stays near 0 while the system beats the random run."""
    folder = shared_data / "vaswani"
    topics = read_topics(folder / "query-text.trec")
    docs = dict(open_corpus(folder / "corpus").iter_docs())
    result = audit([overlap_run(topics, docs, 100)], folder / "qrels", topics, docs, w2v, n_bootstrap=200)
    system, random = result["overlap"], result[RANDOM]
    assert system.evaluation.means["MAP"] > 0.15 > 0.01 > random.evaluation.means["MAP"]
    assert abs(system.gsr.slope) < 0.2 and system.gsr.n_queries == 93


def test_fixed_depth_and_no_random(time_collection, w2v):
    folder, topics, qrels, docs = time_collection
    run = overlap_run(topics, docs)
    result = audit([run], qrels, topics, docs, w2v, depth=5, random_baseline=False, n_bootstrap=0)
    assert set(result.systems) == {PERFECT, "overlap"}
    table = result["overlap"].gsr.per_query
    assert (table.loc[table["used"], "n_docs"] <= 5).all()
    assert np.isnan(result["overlap"].gsr.ci_low)


def test_in_memory_lists_and_bad_inputs(time_collection, w2v):
    folder, topics, qrels, docs = time_collection
    lists = {"sys": {"1": ["268", "288"], "2": ["17"]}}
    result = audit(lists, qrels, topics, docs, w2v, n_bootstrap=0)
    assert result["sys"].gsr.excluded["query not in run"] == 77
    with pytest.raises(IrfairInputError, match="query 999 is not in the topics"):
        audit({"sys": {"999": ["17"]}}, qrels, topics, docs, w2v)
    with pytest.raises(IrfairInputError, match="document nope .* is not in the corpus"):
        audit({"sys": {"1": ["nope"]}}, qrels, topics, docs, w2v)
    with pytest.raises(IrfairInputError, match="depth must be"):
        audit(lists, qrels, topics, docs, w2v, depth=0)


def test_a_relevant_document_missing_from_the_corpus_is_found_in_compressed_qrels(time_collection, w2v, tmp_path):
    """The error names the line of gzip qrels, read as they were read (was a UnicodeDecodeError traceback)."""
    import gzip

    folder, topics, qrels, docs = time_collection
    text = (folder / "qrels.time.txt").read_text() + "1 0 NOPE 1\n"
    packed = tmp_path / "qrels.gz"
    packed.write_bytes(gzip.compress(text.encode(), mtime=0))
    with pytest.raises(IrfairInputError) as info:
        audit({"sys": {"1": ["268"]}}, packed, topics, docs, w2v, n_bootstrap=0, n_permutations=0, random_baseline=False)
    assert str(info.value) == f"{packed}:{text.count(chr(10))}: relevant document NOPE (query 1) is not in the corpus given in memory"


def test_store_rows_of_file_and_in_memory_runs(tmp_path):
    """A store holding d1, d2 (rows 0, 1): the file run's d3 and the dict run's d4 are not stored; once the store is
    given d3 (row 2), its row is found; lists cut at each query's depth, as rows."""
    store = TermStore()
    store.add([("d1", "nurse"), ("d2", "plumber")])
    path = tmp_path / "a.run"
    path.write_text("1 Q0 d1 1 3 t\n1 Q0 d3 2 2 t\n2 Q0 d2 1 1 t\n")
    runs = as_runs([path, {"1": {"d2": 1.0, "d4": 0.5}}])
    assert runs[0].columns is not None and runs[1].columns is None
    listed = StoreRows(runs, store)
    assert listed.unstored == {"d3", "d4"} and StoreRows(runs[:1], store).unstored == {"d3"}
    store.add([("d3", "nurse she")])
    listed.update()
    found = listed.lists(runs[0], {"1": 5, "2": 1, "3": 1})
    assert {qid: rows.tolist() for qid, rows in found.items()} == {"1": [0, 2], "2": [1]}
    assert listed.lists(runs[0], {"1": 1})["1"].tolist() == [0] and listed.lists(runs[1], {"1": 1})["1"].tolist() == [1]
