import json
import math

import numpy as np
import pytest

from irfair.corpus import InMemoryCorpus
from irfair.corpus.termstore import TermStore
from irfair.measures.effectiveness import evaluate
from irfair.rankers.neural.features import histogram_bin, matching_histograms, similarity_matrix
from irfair.rankers.neural.train import load_or_make_folds, make_folds, train_and_rerank
from irfair.trec import Run


def test_histogram_bins_by_hand():
    # 29 bins of width 2/29 over [-1, 1), the 30th for exact matches
    assert histogram_bin(np.array([-1.0, -0.999, 0.0, 0.99, 1.0])).tolist() == [0, 0, 14, 28, 29]


def test_matching_histograms_by_hand(hand):
    # query "nurse": vs woman 0.5*0.8+0.5*0.6 = 0.7, vs man -0.4+0.3 = -0.1, vs nurse exact, vs "saw" (OOV) nothing
    counts = matching_histograms(hand, ["nurse", "zzz"], ["woman", "man", "nurse", "saw", "zzz"], log_counts=False)
    width = 2 / 29
    assert counts[0].sum() == 3
    assert counts[0, int((0.7 + 1) / width)] == 1 and counts[0, int((-0.1 + 1) / width)] == 1 and counts[0, 29] == 1
    assert counts[1].tolist() == [0.0] * 29 + [1.0]  # an OOV query term still finds its exact match
    logs = matching_histograms(hand, ["nurse"], ["nurse", "nurse", "man"])
    assert logs[0, 29] == pytest.approx(math.log(3))


def test_similarity_matrix_by_hand(hand):
    matrix = similarity_matrix(hand, ["she", "zzz"], ["woman", "she", "zzz", "table"], query_len=3, doc_len=3)
    assert matrix.shape == (3, 3)
    assert matrix[0].tolist() == pytest.approx([0.6 * 0.8, 1.0, 0.0])  # table truncated away
    assert matrix[1].tolist() == pytest.approx([0.0, 0.0, 1.0])  # OOV query word matches itself only
    assert matrix[2].tolist() == [0.0, 0.0, 0.0]


def test_interpolation_with_first_stage_scores_by_hand():
    from irfair.rankers.neural.train import interpolate

    neural = Run("n", {"1": [("a", 3.0), ("b", 2.0), ("c", 1.0)]})
    first = Run("f", {"1": [("c", 10.0), ("b", 6.0), ("a", 5.0)]})
    # minmax: neural a 1, b 0.5, c 0; first c 1, b 0.2, a 0 → with weight 0.6: a 0.4, b 0.32, c 0.6
    mixed = interpolate(neural, first, 0.6, "m").ranking["1"]
    assert [d for d, _ in mixed] == ["c", "a", "b"]
    assert [s for _, s in mixed] == pytest.approx([0.6, 0.4, 0.32])


def test_folds_are_deterministic_and_reusable(tmp_path):
    folds = make_folds(["10", "2", "1", "3", "11"], 2)
    assert folds == [["1", "3", "11"], ["2", "10"]]
    path = tmp_path / "folds.json"
    assert load_or_make_folds(["1", "2", "3", "10", "11"], 2, path) == folds
    path.write_text(json.dumps({"folds": [["1", "2", "3", "10"], ["11"]]}))
    assert load_or_make_folds(["1", "2", "3", "10", "11"], 2, path)[1] == ["11"]


TOPICS = ["football", "election", "piano", "volcano", "hospital", "banking", "cooking", "astronomy", "fishing",
          "painting", "chemistry", "railway", "wedding", "poetry", "tennis"]
FILLER = ["report", "week", "city", "people", "time", "government", "year", "group", "company", "service"]


def _tiny_collection():
    rng = np.random.default_rng(0)
    docs, qrels, candidates = {}, {}, {}
    for i, topic in enumerate(TOPICS):
        qid = str(i + 1)
        ids = []
        for j in range(10):
            doc_id = f"{qid}-{j}"
            words = list(rng.choice(FILLER, size=12))
            if j < 3:
                words += [topic] * int(rng.integers(1, 4))
            else:
                words += [TOPICS[(i + 1 + j) % len(TOPICS)]]
            rng.shuffle(words)
            docs[doc_id] = " ".join(words)
            ids.append(doc_id)
        qrels[qid] = {f"{qid}-{j}": int(j < 3) for j in range(10)}
        order = rng.permutation(ids)
        candidates[qid] = [(d, float(10 - r)) for r, d in enumerate(order)]
    return docs, {str(i + 1): t for i, t in enumerate(TOPICS)}, qrels, Run("random", candidates)


@pytest.mark.parametrize("model", ["drmm", "matchpyramid"])
def test_smoke_training_beats_random_reranking(model, w2v, tmp_path):
    docs, queries, qrels, candidates = _tiny_collection()
    corpus = InMemoryCorpus(docs)
    store = TermStore()
    store.ensure(corpus, None, progress=False)
    kwargs = dict(corpus=corpus, folds=3, epochs=4, doc_len=20, seed=0, device="cpu")
    run = train_and_rerank(model, store, w2v, queries, qrels, candidates, 10, log_path=tmp_path / "log.tsv", **kwargs)
    random_map = evaluate(candidates, qrels).means["MAP"]
    trained_map = evaluate(run, qrels).means["MAP"]
    assert trained_map > random_map + 0.2 and trained_map > 0.8
    log = (tmp_path / "log.tsv").read_text().splitlines()
    assert log[0] == "fold\tepoch\tloss\tvalidation_MAP" and len(log) > 3
    again = train_and_rerank(model, store, w2v, queries, qrels, candidates, 10, **kwargs)
    assert again.ranking == run.ranking  # reproducible on CPU


def test_train_command_writes_run_and_log(w2v, tmp_path, capsys):
    from irfair.cli import main
    from irfair.trec import Topic, read_run, write_qrels, write_run, write_topics

    docs, queries, qrels, candidates = _tiny_collection()
    (tmp_path / "docs.jsonl").write_text("".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in docs.items()))
    write_topics(tmp_path / "topics.txt", {q: Topic(q, t) for q, t in queries.items()})
    write_qrels(tmp_path / "qrels.txt", qrels)
    write_run(tmp_path / "cands.run", candidates)
    args = ["train", "--ranker", "drmm", "--corpus", str(tmp_path / "docs.jsonl"), "--topics", str(tmp_path / "topics.txt"),
            "--qrels", str(tmp_path / "qrels.txt"), "--candidates", str(tmp_path / "cands.run"), "--out",
            str(tmp_path / "drmm.run"), "--folds", "3", "--epochs", "4", "--top-n", "10", "--no-cache",
            "--folds-file", str(tmp_path / "folds.json")]
    assert main(args) == 0
    run = read_run(tmp_path / "drmm.run")
    assert len(run.ranking) == 15
    assert evaluate(run, qrels).means["MAP"] > evaluate(candidates, qrels).means["MAP"] + 0.2
    assert json.loads((tmp_path / "folds.json").read_text())["folds"][0][:2] == ["1", "4"]
    assert (tmp_path / "drmm.run.log").read_text().startswith("fold\tepoch")
    assert main(args[:-2] + ["--folds-file", str(tmp_path / "folds.json"), "--interpolate", "--out", str(tmp_path / "i.run")]) == 0
    assert "interpolation weight" in (tmp_path / "i.run.log").read_text()
    assert read_run(tmp_path / "i.run").tag == "drmm+first-stage_w2v-gnews-26k"
    assert main(args[:-2] + ["--folds", "2"]) == 2
    assert "at least 3" in capsys.readouterr().err
