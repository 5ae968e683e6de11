"""The ranker registry: one declaration per ranker, read by make_ranker, the CLI and the study."""
import pytest

from irfair.cli import build_parser
from irfair.corpus import InMemoryCorpus
from irfair.errors import IrfairInputError
from irfair.rankers import EMBEDDING, LEXICAL, NEURAL, RANKERS, make_ranker, rankers_of
from irfair.rankers.embedding import EmbeddingRanker
from irfair.rankers.lexical import LexicalRanker

DOCS = {"d1": "nurse nurse woman", "d2": "doctor table", "d3": "table table", "d4": "she nurse"}


def test_registry_declares_every_ranker_once_with_the_papers_defaults():
    assert list(RANKERS) == ["bm25", "qlm", "tfidf", "add", "si", "drmm", "matchpyramid"]
    assert rankers_of(LEXICAL) == ("bm25", "qlm", "tfidf") and rankers_of(EMBEDDING) == ("add", "si")
    assert rankers_of(NEURAL) == ("drmm", "matchpyramid")
    assert RANKERS["bm25"].defaults == {"k1": 0.9, "b": 0.4}  # Anserini's BM25 defaults
    assert RANKERS["qlm"].defaults == {"mu": 1000.0}
    assert RANKERS["drmm"].defaults["top_n"] == 100 and RANKERS["drmm"].defaults["folds"] == 5
    assert not RANKERS["drmm"].ranks_corpus and not RANKERS["bm25"].reranks and RANKERS["add"].reranks


def _subparser(name):
    parser = build_parser()
    action = next(a for a in parser._subparsers._group_actions if a.dest == "command")
    return action.choices[name]


def test_cli_choices_and_defaults_come_from_the_registry():
    rank = _subparser("rank")
    ranker = next(a for a in rank._actions if a.dest == "ranker")
    assert list(ranker.choices) == ["bm25", "qlm", "tfidf", "add", "si"]
    helps = {a.dest: a.help for a in rank._actions}  # an option not given is None; make_ranker takes the registry's default
    assert helps["k1"].endswith("(bm25) (default: 0.9)") and helps["b"].endswith("(default: 0.4)")
    assert helps["mu"].endswith("(qlm) (default: 1000.0)")
    train = _subparser("train")
    assert list(next(a for a in train._actions if a.dest == "ranker").choices) == ["drmm", "matchpyramid"]
    assert {a.dest: a.help for a in train._actions}["top_n"] == "candidates re-ranked per query (default: 100)"


def test_make_ranker_builds_the_same_embedding_ranker_as_the_class(hand):
    corpus = InMemoryCorpus(DOCS)
    made = make_ranker("add", corpus=corpus, embeddings=hand, cache_dir=False)
    assert isinstance(made, EmbeddingRanker) and made.name == "hand_add"
    queries = {"1": "nurse", "2": "doctor"}
    direct = EmbeddingRanker(made.store, hand, "add").rank(queries, depth=3)
    assert made.rank(queries, depth=3).ranking == direct.ranking
    strong = make_ranker("si", corpus=corpus, embeddings=hand, variant="strong", cache_dir=False)
    assert strong.name == "hand-strong_si"


def test_make_ranker_parameters_are_typed_and_checked(tmp_path):
    # what an index folder must hold before Java is asked to open it: a segments_N file with Lucene's codec header
    (tmp_path / "segments_1").write_bytes(bytes.fromhex("3fd76c17") + b"segments")
    bm25 = make_ranker("bm25", corpus=DOCS, index=tmp_path, k1="1.2")  # no JVM is started to build it
    assert isinstance(bm25, LexicalRanker) and bm25.params == {"k1": 1.2, "b": 0.4} and bm25.tag == "bm25_k1=1.2_b=0.4"
    with pytest.raises(IrfairInputError, match="ranker bm25 has no parameter 'mu'"):
        make_ranker("bm25", corpus=DOCS, index=tmp_path, mu=3)
    with pytest.raises(IrfairInputError, match="unknown ranker 'bm26'"):
        make_ranker("bm26", corpus=DOCS)
    with pytest.raises(IrfairInputError, match="needs embeddings"):
        make_ranker("si", corpus=DOCS)
    with pytest.raises(IrfairInputError, match="give qrels"):
        make_ranker("drmm", corpus=DOCS, embeddings="w2v-gnews-26k")
    with pytest.raises(IrfairInputError, match="ranks the whole index"):
        bm25.rerank({}, None)


def test_neural_rankers_only_rerank(hand):
    drmm = make_ranker("drmm", corpus=DOCS, embeddings=hand, qrels={"1": {"d1": 1}}, cache_dir=False, folds=3)
    assert drmm.name == "drmm_hand" and drmm.params["folds"] == 3
    with pytest.raises(IrfairInputError, match="re-ranks candidates"):
        drmm.rank({"1": "nurse"})
    with pytest.raises(IrfairInputError, match="at least 3"):
        make_ranker("matchpyramid", corpus=DOCS, embeddings=hand, qrels={}, cache_dir=False, folds=2)


def test_a_zero_given_on_the_command_line_is_given():
    """Options default to None so that the CLI knows what was given; 0 and 0.0 are given values (`0 in (None, False)`
    is true in Python: --k1 0 and --interpolation-weight 0 fell back to 0.9 and 0.5)."""
    import argparse

    from irfair.cli import options

    parser = argparse.ArgumentParser()
    options.add_ranker_parameters(parser, [RANKERS["bm25"], RANKERS["drmm"]])
    assert options.ranker_parameters(parser.parse_args(["--k1", "0"]), RANKERS["bm25"]) == {"k1": 0.0}
    given = parser.parse_args(["--interpolate", "--interpolation-weight", "0"])
    assert options.ranker_parameters(given, RANKERS["drmm"]) == {"interpolate": True, "interpolation_weight": 0.0}
    assert options.ranker_parameters(parser.parse_args([]), RANKERS["bm25"]) == {}
