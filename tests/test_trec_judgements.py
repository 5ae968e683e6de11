"""Qrels and topics from files, dicts, PyTerrier/ir_measures frames, ranx and ir_measures/ir_datasets records."""

import ir_measures
import pandas as pd
import pytest
from helpers import TREC_EVAL
from ir_datasets.formats import GenericQuery, TrecQrel, TrecQuery

from irfair.errors import IrfairInputError
from irfair.trec import Topic, as_qrels, as_topics, read_qrels

QRELS = {"1": {"a": 1, "b": 0}, "2": {"c": 2}}


def test_qrels_in_every_shape_are_the_same():
    rows = [(q, d, g) for q, judged in QRELS.items() for d, g in judged.items()]
    shapes = [
        QRELS,
        {1: {"a": 1.0, "b": 0}, 2: {"c": 2}},                                                   # int ids, a float grade
        pd.DataFrame(rows, columns=["qid", "docno", "label"]),                                   # PyTerrier
        pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"]),                        # ir_measures
        [ir_measures.Qrel(q, d, g) for q, d, g in rows],
        [TrecQrel(q, d, g, "0") for q, d, g in rows],                                           # ir_datasets
    ]
    for shape in shapes:
        assert as_qrels(shape) == QRELS
    judged = {"1": {"a": 1}}
    assert as_qrels(judged) is not judged


def test_qrels_file_equals_its_frame():
    frame = pd.read_csv(TREC_EVAL / "qrels.test", sep=" ", names=["qid", "iteration", "docno", "label"], dtype={"qid": str})
    assert as_qrels(frame) == read_qrels(TREC_EVAL / "qrels.test") == as_qrels(str(TREC_EVAL / "qrels.test"))


@pytest.mark.parametrize(("qrels", "message"), [
    ({"1": {"a": 0.5}}, "relevance grade must be an integer"),
    (pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "label": [1, 0]}), "row 1: document a judged twice"),
    (pd.DataFrame({"qid": ["1"], "docno": ["a"]}), "expected a column 'label' or 'relevance'"),
    ({"1": ["a"]}, "query 1: expected {doc_id: grade}"),
    (3.5, "cannot read qrels from float"),
])
def test_bad_qrels(qrels, message):
    with pytest.raises(IrfairInputError, match=message):
        as_qrels(qrels)


def test_topics_in_every_shape():
    expected = {"301": Topic("301", "international organized crime", "How much?"), "302": Topic("302", "polio", "")}
    assert as_topics(pd.DataFrame({"qid": ["301", "302"], "query": ["international  organized crime", "polio"],
                                   "description": ["How much?", ""]})) == expected
    assert as_topics([TrecQuery("301", "international organized crime", "How much?", "narrative"),
                      TrecQuery("302", "polio", "", "")]) == expected
    assert as_topics([GenericQuery("302", "polio")]) == {"302": expected["302"]}
    assert as_topics({"302": "polio"}) == {"302": expected["302"]}


def test_duplicate_topic_and_unknown_topics_source(tmp_path, monkeypatch):
    with pytest.raises(IrfairInputError, match="topic 1 appears twice"):
        as_topics(pd.DataFrame({"qid": [1, "1"], "query": ["a", "b"]}))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(IrfairInputError, match="topics file not found, nor a known ir_datasets id"):
        as_topics("nope/nothing")
    with pytest.raises(IrfairInputError, match="qrels file not found, nor a known ir_datasets id"):
        as_qrels("qrels.txt")


@pytest.mark.slow
def test_ranx_qrels():
    import ranx

    assert as_qrels(ranx.Qrels({"1": {"a": 1, "b": 0}, "2": {"c": 2}})) == QRELS
