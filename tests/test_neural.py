"""Cross-validated training of the neural rankers on a tiny collection, the ``train`` command, and the
classes of input that cannot train (refused in one line, or one fold left in its candidates' order)."""
import json

import numpy as np
import pytest

pytest.importorskip("torch")

from irfair.cache.manage import scan
from irfair.corpus import InMemoryCorpus  # noqa: E402
from irfair.corpus.termstore import TermStore  # noqa: E402
from irfair.errors import IrfairInputError, IrfairWarning  # noqa: E402
from irfair.measures.effectiveness import evaluate  # noqa: E402
from irfair.rankers.neural.folds import load_or_make_folds, make_folds  # noqa: E402
from irfair.rankers.neural.train import interpolate, train_folds  # noqa: E402
from irfair.trec import Run  # noqa: E402


def test_interpolation_with_first_stage_scores_by_hand():
    neural = Run("n", {"1": [("a", 3.0), ("b", 2.0), ("c", 1.0)]})
    first = Run("f", {"1": [("c", 10.0), ("b", 6.0), ("a", 5.0)]})
    # minmax: neural a 1, b 0.5, c 0; first c 1, b 0.2, a 0 → with weight 0.6: a 0.4, b 0.32, c 0.6
    mixed = interpolate(neural, first, 0.6, "m").ranking["1"]
    assert [d for d, _ in mixed] == ["c", "a", "b"]
    assert [s for _, s in mixed] == pytest.approx([0.6, 0.4, 0.32])


def test_folds_are_deterministic_and_reusable(tmp_path):
    assert make_folds(["10", "2", "1", "3", "11"], 2) == [["1", "3", "11"], ["2", "10"]]
    folds = make_folds(["10", "2", "1", "3", "11"], 3)
    assert folds == [["1", "10"], ["2", "11"], ["3"]]
    path = tmp_path / "folds.json"
    assert load_or_make_folds(["1", "2", "3", "10", "11"], 3, path) == folds
    assert json.loads(path.read_text()) == {"folds": folds}
    path.write_text(json.dumps({"folds": [["1", "2"], ["3", "10"], [11]]}))  # read back, a number as a query id
    with pytest.warns(IrfairWarning, match=r"folds\.json: the folds file's 3 folds are used, not 5 \(--folds\)$"):
        assert load_or_make_folds(["1", "2", "3", "10", "11"], 5, path) == [["1", "2"], ["3", "10"], ["11"]]


QIDS = ["1", "2", "3", "10", "11"]
SHAPE = 'folds file must be JSON {"folds": [[qid, ...], ...]}'
BAD_FOLDS = {  # file text -> (line, what the one-line error says after the path)
    '{"folds": [["1"],': (1, f"{SHAPE}; not JSON (Expecting value)"),
    '[["1", "2"], ["3"], ["10", "11"]]': (None, f'{SHAPE}; found no list under "folds"'),
    '{"folds": ["1 2", "3 10", "11"]}': (None, f"{SHAPE}; fold 1 is a str, not a list"),
    '{"folds": [["1", 2.0], ["3"], ["10", "11"]]}': (None, f"{SHAPE}; fold 1 holds 2.0, not a query id"),
    '{"folds": [["1", "2", "3"], ["10", "11"]]}':
        (None, "folds file holds 2 folds; cross-validation needs at least 3 (training, validation and test folds)"),
    '{"folds": [["1", "2"], ["3"], ["10", "11", "2"]]}': (None, "folds must list every query once; query 2 is in folds 1 and 3"),
    '{"folds": [["1"], ["2"], ["10", "11"]]}': (None, "folds must list every query once; 1 re-ranked query is in no fold (3)"),
    '{"folds": [["1", "2"], ["3", "99"], ["10", "11"], ["98"]]}':
        (None, "fold 4 holds none of the re-ranked queries: nothing to test or validate on"),
}


@pytest.mark.parametrize("text", sorted(BAD_FOLDS))
def test_a_folds_file_that_cannot_split_the_queries_is_refused_in_one_line(text, tmp_path):
    path = tmp_path / "folds.json"
    path.write_text(text)
    line, expected = BAD_FOLDS[text]
    with pytest.raises(IrfairInputError) as caught:
        load_or_make_folds(QIDS, 3, path)
    assert caught.value.message == f"{path}{'' if line is None else f':{line}'}: {expected}"


def test_a_folder_as_folds_file_is_refused_and_queries_beyond_the_topics_are_left_out_with_a_warning(tmp_path):
    with pytest.raises(IrfairInputError, match="^" + str(tmp_path) + ": the folds file is a folder, expected a JSON file$"):
        load_or_make_folds(QIDS, 3, tmp_path)
    path = tmp_path / "folds.json"
    path.write_text(json.dumps({"folds": [["1", "2", "99"], ["3"], ["10", "11", "abc"]]}))
    with pytest.warns(IrfairWarning) as caught:
        assert load_or_make_folds(QIDS, 3, path) == [["1", "2"], ["3"], ["10", "11"]]
    assert [str(w.message) for w in caught] == [
        f"{path}: 2 queries of the folds file are not re-ranked (not in the topics, or without candidates) and are left out: "
        "99, abc"]


TOPICS = ["football", "election", "piano", "volcano", "hospital", "banking", "cooking", "astronomy", "fishing",
          "painting", "chemistry", "railway", "wedding", "poetry", "tennis"]
FILLER = ["report", "week", "city", "people", "time", "government", "year", "group", "company", "service"]


def _tiny_collection():
    """15 one-word queries × 10 candidates in random order; 3 relevant documents per query hold its word."""
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


@pytest.fixture(scope="module")
def tiny():
    docs, queries, qrels, candidates = _tiny_collection()
    corpus = InMemoryCorpus(docs)
    store = TermStore()
    store.ensure(corpus, None, progress=False)
    return corpus, store, queries, qrels, candidates


@pytest.mark.parametrize("model", ["drmm", "matchpyramid"])
def test_training_beats_random_reranking_and_is_reproducible(model, tiny, w2v, tmp_path):
    corpus, store, queries, qrels, candidates = tiny
    kwargs = dict(corpus=corpus, folds=3, epochs=8, doc_len=20, seed=0, device="cpu", threads=1, cache_dir=tmp_path / "cache")
    lines = []
    result = train_folds(model, store, w2v, queries, qrels, candidates, 10, log_path=tmp_path / "log.tsv", report=lines.append,
                         **kwargs)
    random_map = evaluate(candidates, qrels).means["MAP"]
    trained_map = evaluate(result.run, qrels).means["MAP"]
    assert trained_map > random_map + 0.2 and trained_map > 0.8
    assert result.summary() == "3 folds trained on cpu" and result.n_folds == 3
    log = (tmp_path / "log.tsv").read_text().splitlines()
    assert log[0] == "fold\tepoch\tloss\tvalidation_MAP" and log[1] == "all\tdevice cpu, 1 CPU threads\t\t" and len(log) > 3
    assert lines[0] == f"{model}: building the inputs of 150 query-document pairs (15 queries)"
    assert lines[1].startswith(f"{model}: inputs of 150 pairs ready in ") and lines[1].endswith(" s; training on cpu")
    assert lines[2].startswith(f"{model} fold 1/3 epoch 1/8: loss ")
    # the second training reads its inputs from the cache (no corpus pass, nothing built) and gives the same run
    lines.clear()
    again = train_folds(model, store, w2v, queries, qrels, candidates, 10, report=lines.append, **kwargs).run
    assert not any("building" in line for line in lines) and lines[0].startswith(f"{model}: inputs of 150 pairs ready in ")
    assert again.ranking == result.run.ranking  # reproducible on the CPU for a seed and a thread count
    entries = [r for r in scan(tmp_path / "cache", verify=True) if r.kind == "neural"]
    assert [r.state for r in entries] == ["ok"] and entries[0].manifest.counts == {"pairs": 150}


def test_query_length_limits_the_content_tokens_used(tiny, w2v):
    corpus, store, queries, qrels, candidates = tiny
    # with one token kept, "zzz football" becomes "zzz", which no candidate holds: every score ties
    longer = {qid: f"zzz {text}" for qid, text in queries.items()}
    kwargs = dict(corpus=corpus, folds=3, epochs=2, seed=0, device="cpu")
    cut = train_folds("drmm", store, w2v, longer, qrels, candidates, 10, query_length=1, **kwargs).run
    whole = train_folds("drmm", store, w2v, longer, qrels, candidates, 10, **kwargs).run
    assert len({score for _, score in cut.ranking["1"]}) == 1
    assert evaluate(whole, qrels).means["MAP"] > evaluate(candidates, qrels).means["MAP"] + 0.2


def _write_inputs(tmp_path, qrels=None):
    from irfair.trec import Topic, write_qrels, write_run, write_topics

    docs, queries, tiny_qrels, candidates = _tiny_collection()
    (tmp_path / "docs.jsonl").write_text("".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in docs.items()))
    write_topics(tmp_path / "topics.txt", {q: Topic(q, t) for q, t in queries.items()})
    write_qrels(tmp_path / "qrels.txt", tiny_qrels if qrels is None else qrels)
    write_run(tmp_path / "cands.run", candidates)
    return ["train", "--ranker", "drmm", "--corpus", str(tmp_path / "docs.jsonl"), "--topics", str(tmp_path / "topics.txt"),
            "--qrels", str(tmp_path / "qrels.txt"), "--candidates", str(tmp_path / "cands.run"), "--out",
            str(tmp_path / "drmm.run"), "--folds", "3", "--epochs", "3", "--top-n", "10", "--no-cache"]


def test_train_command_writes_run_and_log(w2v, tmp_path, capsys):
    from irfair.cli import main
    from irfair.trec import read_run

    args = _write_inputs(tmp_path) + ["--folds-file", str(tmp_path / "folds.json")]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"wrote {tmp_path / 'drmm.run'}: 15 queries re-ranked (top 10), tag drmm_w2v-gnews-26k; 3 folds trained on cpu;")
    assert "drmm fold 1/3 epoch 1/3: loss" in err  # stderr is not a terminal here: one line per epoch
    run = read_run(tmp_path / "drmm.run")
    _, _, qrels, candidates = _tiny_collection()
    assert len(run.ranking) == 15
    assert evaluate(run, qrels).means["MAP"] > evaluate(candidates, qrels).means["MAP"] + 0.2
    assert json.loads((tmp_path / "folds.json").read_text())["folds"][0][:2] == ["1", "4"]
    assert (tmp_path / "drmm.run.log").read_text().startswith("fold\tepoch")
    interpolated = ["--interpolate", "--quiet", "--out", str(tmp_path / "i.run")]
    base = args[:-2]
    at = base.index("--out")
    base = base[:at] + base[at + 2:]  # an option is given once: this run's --out replaces the first's
    assert main(base + ["--folds-file", str(tmp_path / "folds.json")] + interpolated) == 0
    assert "drmm fold" not in capsys.readouterr().err  # --quiet
    assert "interpolation weight 0.5" in (tmp_path / "i.run.log").read_text()
    assert read_run(tmp_path / "i.run").tag == "drmm+first-stage_w2v-gnews-26k"
    two_folds = list(args[:-2])
    two_folds[two_folds.index("--folds") + 1] = "2"
    assert main(two_folds) == 2
    assert "at least 3" in capsys.readouterr().err


def test_train_refuses_a_two_fold_file_before_the_corpus_is_read(tmp_path, capsys):
    from irfair.cli import main

    args = _write_inputs(tmp_path)
    (tmp_path / "docs.jsonl").unlink()  # never reached
    folds = tmp_path / "folds.json"
    folds.write_text(json.dumps({"folds": make_folds([str(q) for q in range(1, 16)], 2)}))
    assert main(args + ["--folds-file", str(folds)]) == 2
    assert capsys.readouterr().err == (f"irfair: error: {folds}: folds file holds 2 folds; cross-validation needs at least 3 "
                                       "(training, validation and test folds)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cands.run", "folds.json", "qrels.txt", "topics.txt"]


def test_train_help_shows_every_training_option_with_its_default(capsys):
    from irfair.cli import main

    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for shown in ("--seed SEED random seed of training (default: 0)", "--top-n TOP_N candidates re-ranked per query (default: 100)",
                  "--epochs EPOCHS", "(default: 10)", "--learning-rate LEARNING_RATE Adam's learning rate (default: 0.01)",
                  "--query-length QUERY_LENGTH", "0 for the whole query (default: 0)", "--threads THREADS",
                  "--doc-len DOC_LEN document tokens in the matching matrix (matchpyramid) (default: 300)",
                  "--matching {indicator,cosine,gaussian}", "(matchpyramid) (default: cosine)",
                  "--interpolation-weight INTERPOLATION_WEIGHT", "(default: 0.5)"):
        assert shown in text
    assert "(drmm)" not in text


# Input that cannot train, by class. Each class: refused in one line (exit 2, nothing written) when no fold can
# train, or the folds that cannot keep their candidates' order with a counted warning.

NOTHING_SHARED = {  # qrels, and the file the error names
    "qrels of other queries": ({"99": {"1-0": 1}}, "qrels.txt"),
    "qrels without a relevant grade": ({"1": {"1-0": 0, "1-1": 0}, "2": {"2-0": 0}}, "qrels.txt"),
    "no relevant document among the candidates": ({"1": {"elsewhere": 1}, "2": {"nowhere": 2}}, "cands.run"),
}


@pytest.mark.parametrize("case", sorted(NOTHING_SHARED))
def test_nothing_to_train_on_is_refused_in_one_line(case, w2v, tmp_path, capsys):
    from irfair.cli import main

    qrels, named = NOTHING_SHARED[case]
    assert main(_write_inputs(tmp_path, qrels)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) <= 2 and err[-1].startswith(f"irfair: error: {tmp_path / named}: ") and "nothing to train on" in err[-1]
    assert not (tmp_path / "drmm.run").exists() and not (tmp_path / "drmm.run.log").exists()


def _qrels_without_fold_three():
    _, _, qrels, _ = _tiny_collection()
    folds = make_folds(list(qrels), 3)
    return {q: ({d: 0 for d in judged} if q in folds[2] else judged) for q, judged in qrels.items()}, folds


def test_a_fold_without_relevant_training_documents_keeps_its_candidates(w2v, tmp_path, capsys):
    from irfair.cli import main
    from irfair.trec import read_run

    qrels, folds = _qrels_without_fold_three()  # fold 1 trains on fold 3 alone
    assert main(_write_inputs(tmp_path, qrels)) == 0
    out, err = capsys.readouterr()
    assert err.count("irfair: warning: drmm: 1 of 3 folds not trained on cpu, candidates' order kept") == 1
    assert "1 of 3 folds not trained on cpu, candidates' order kept (fold 1: no relevant candidate among its training queries)" in out
    log = (tmp_path / "drmm.run.log").read_text()
    assert "1\tnot trained: no relevant candidate among its training queries" in log
    assert "2\tno relevant candidate in the validation fold" in log  # fold 2 validates on fold 3
    _, _, _, candidates = _tiny_collection()
    run = read_run(tmp_path / "drmm.run")
    assert all(run.doc_ids(q) == candidates.doc_ids(q) for q in folds[0])
    assert all(run.doc_ids(q) != candidates.doc_ids(q) for q in folds[1])


@pytest.mark.parametrize("failing", ["every fold", "fold 2"])
def test_a_loss_that_is_not_finite_stops_its_fold(failing, tiny, w2v, monkeypatch):
    import torch

    from irfair.rankers.neural import models

    corpus, store, queries, qrels, candidates = tiny
    real_loss = models.pairwise_hinge_loss

    def broken(positive, negative, margin=1.0):  # torch's seed is the fold's: seed + fold index
        loss = real_loss(positive, negative, margin)
        return loss * float("nan") if failing == "every fold" or torch.initial_seed() == 1 else loss

    monkeypatch.setattr(models, "pairwise_hinge_loss", broken)
    kwargs = dict(corpus=corpus, folds=3, epochs=2, seed=0, device="cpu")
    if failing == "every fold":
        with pytest.raises(IrfairInputError, match="could not be trained in any fold .loss nan at epoch 1 in fold 1.; no run"):
            train_folds("drmm", store, w2v, queries, qrels, candidates, 10, **kwargs)
        return
    with pytest.warns(IrfairWarning, match=r"1 of 3 folds not trained on cpu, candidates' order kept \(fold 2: loss nan at epoch 1\)"):
        result = train_folds("drmm", store, w2v, queries, qrels, candidates, 10, **kwargs)
    test_queries = make_folds(list(queries), 3)[1]
    assert all(result.run.ranking[q] == candidates.ranking[q] for q in test_queries)
    assert "2\tnot trained: loss nan at epoch 1; candidates' order kept\t\t" in result.log_lines
