"""Robust04 the way its users hold it: one synthetic TREC disks 4&5 tree (``disks45_tree.py``: the four
sub-collections' real markup, compressed files, a Congressional Record folder, 2,295 files) read as a
folder, as the ir_datasets id ``disks45/nocr/trec-robust-2004`` and as a pyserini ``TrecCollection``
index (``-storeRaw``, built by Anserini under irfair's Java) gives the same tokens per document — also
those of ir_datasets' own ``default_text()``, a second implementation — and the same audit; Anserini's
recipe run on the original files loses exactly the FBIS header titles; caches follow the copy."""
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from disks45_tree import CONGRESSIONAL_RECORD_IDS, FILES, write_tree

from irfair.audit import audit
from irfair.corpus import open_corpus
from irfair.corpus.pyserini_index import build_trec_index
from irfair.corpus.trec_text import document_text
from irfair.errors import IrfairInputError
from irfair.text import tokenize

ROBUST04 = "disks45/nocr/trec-robust-2004"
MARKERS = {
    "FBIS": {"mkfbisti", "mkfbisf", "mkfbistext", "mkfbish"},
    "FR": {"mkfrusdept", "mkfragency", "mkfraction", "mkfrsummary", "mkfrsigner"},
    "FT": {"mkftdate", "mkftheadline", "mkfttext"},
    "LA": {"mkladate", "mklaheadline", "mklatext"},
}
TOPICS = ("1\tnurse hospital\n2\tsoldier veterans\n3\tfashion designer\n4\tfootball coach\n5\tengineer bridge\n"
          "6\tmother daughter\n7\tschool lunch children\n")
RELEVANT = {"1": ["FBIS3-101", "LA010289-0001"], "2": ["FBIS3-2"], "3": ["FT911-2"], "4": ["LA010189-0002"], "5": ["FBIS3-102"],
            "6": ["LA010189-0001", "FBIS3-1"], "7": ["FR940104-0-00001", "FR940104-1-00001"]}
RUN = {"1": ["FBIS3-101", "FT911-101", "LA010289-0001", "FBIS3-2"], "2": ["FBIS3-1", "FBIS3-2", "LA010289-0002"],
       "3": ["FT911-2", "LA010189-0001"], "4": ["LA010189-0001", "LA010189-0002"], "5": ["FBIS3-102", "FT911-1"],
       "6": ["FBIS3-1", "LA010289-0002", "LA010189-0001"], "7": ["FR940104-0-00002", "FR940104-0-00001", "FR940104-1-00001"]}


@pytest.fixture(scope="module")
def tree(ir_datasets_home) -> Path:
    import ir_datasets

    root = ir_datasets_home / "disks45" / "corpus"
    write_tree(root)
    # ir_datasets fixed its home at import: it must be this session's, never the user's
    assert Path(ir_datasets.load(ROBUST04).docs_handler().docs_path(force=False)) == root
    return root


@pytest.fixture(scope="module")
def routes(tree, tmp_path_factory) -> dict[str, str]:
    index = tmp_path_factory.mktemp("pyserini") / "robust04"
    assert build_trec_index(open_corpus(tree), index, threads=2, progress=False) == 2301
    return {"folder": str(tree), "ir_datasets": ROBUST04, "pyserini": str(index)}


@pytest.fixture()
def judged(tmp_path):
    (tmp_path / "topics.tsv").write_text(TOPICS)
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} 1\n" for q, docs in RELEVANT.items() for d in docs))
    (tmp_path / "sys.run").write_text("".join(f"{q} Q0 {d} {r + 1} {10 - r} sys\n" for q, docs in RUN.items() for r, d in enumerate(docs)))
    return tmp_path


def _markup(doc_id: str) -> str:
    for _, _, docs in FILES:
        for doc in docs:
            if f" {doc_id} </DOCNO>" in doc or f">{doc_id}</DOCNO>" in doc:
                return doc
    raise KeyError(doc_id)


def test_every_route_reads_the_same_tokens(tree, routes, capfd):
    import ir_datasets

    docs = {name: dict(open_corpus(spec).iter_docs()) for name, spec in routes.items()}
    assert "leaving out 2 Congressional Record files (as Robust04 does) and 1 other files" in capfd.readouterr().err
    tokens = {name: {doc_id: tokenize(text) for doc_id, text in route.items()} for name, route in docs.items()}
    assert len(tokens["folder"]) == 2301 and not CONGRESSIONAL_RECORD_IDS & set(tokens["folder"])
    assert tokens["ir_datasets"] == tokens["folder"]
    assert tokens["pyserini"] == tokens["folder"]
    reference = {doc.doc_id: tokenize(doc.default_text()) for doc in ir_datasets.load(ROBUST04).docs_iter()}
    assert reference == tokens["folder"]
    for doc_id, words in tokens["folder"].items():
        prefix = next(p for p in MARKERS if doc_id.startswith(p))
        assert MARKERS[prefix] <= set(words), doc_id  # every field is text
        assert not [w for w in words if w.startswith("nx")], doc_id  # nothing else is: header, byline, comments, tags
    assert tokens["folder"]["FBIS3-1"][:4] == ["actress", "wins", "award", "mkfbisti"]  # the <H3><TI> title leads
    assert "hyph" in tokens["folder"]["FR940104-0-00001"] and "agency" not in tokens["folder"]["FR940104-0-00001"]
    # a few documents fetched by id (ir_datasets' document store) read the same
    wanted = {"FBIS3-101", "FR940104-1-00001", "FT911-101", "LA010289-0002"}
    assert dict(open_corpus(ROBUST04).iter_docs(wanted)) == {d: docs["folder"][d] for d in wanted}


def _audit(judged, corpus, w2v, cache, **options):
    return audit([judged / "sys.run"], judged / "qrels.txt", judged / "topics.tsv", corpus, w2v, n_bootstrap=100, cache_dir=cache,
                 **options)


def test_every_route_gives_the_same_audit(routes, judged, w2v, tmp_path):
    results = {name: _audit(judged, spec, w2v, tmp_path / name) for name, spec in routes.items()}
    folder = results["folder"]
    assert folder["sys"].gsr.n_queries == 7 and folder.perfect.evaluation.means["MAP"] == pytest.approx(1.0)
    # AP by hand: q1 (1 + 2/3)/2, q2 1/2, q3 1, q4 1/2, q5 1, q6 (1 + 2/3)/2, q7 (1/2 + 2/3)/2
    assert folder["sys"].evaluation.means["MAP"] == pytest.approx((5 / 6 + 1 / 2 + 1 + 1 / 2 + 1 + 5 / 6 + 7 / 12) / 7)
    for name in ("ir_datasets", "pyserini"):
        pd.testing.assert_frame_equal(results[name].table(), folder.table())
        pd.testing.assert_frame_equal(results[name].per_query(), folder.per_query())


def test_pyserini_cli_runs_under_irfair_java_and_its_recipe_index_lacks_fbis_titles(tree, tmp_path, capfd):
    source = tmp_path / "disk45"  # Anserini's recipe reads a folder without the Congressional Record
    for relative, _, _ in FILES:
        if "/CR/" not in relative and not relative.endswith(".dtd"):
            (source / relative).parent.mkdir(parents=True, exist_ok=True)
            (source / relative).symlink_to(tree / relative)
    command = [str(Path(sys.executable).with_name("irfair")), "pyserini", "index.lucene", "--collection", "TrecCollection",
               "--input", str(source), "--index", str(tmp_path / "index"), "--generator", "DefaultLuceneDocumentGenerator",
               "--threads", "1", "--storePositions", "--storeDocvectors", "--storeRaw"]
    completed = subprocess.run(command, capture_output=True, text=True, env={"PYTHONPATH": str(Path(__file__).parents[1]),
                                                                             "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert "jdk.incubator.vector not found" not in completed.stderr
    docs = dict(open_corpus(tmp_path / "index").iter_docs())
    assert "FBIS documents in this index have no header, so no title" in capfd.readouterr().err
    assert len(docs) == 14
    for doc_id, text in docs.items():
        markup = _markup(doc_id)
        if doc_id.startswith("FBIS"):  # Anserini keeps the lines inside its content tags: not the header
            markup = re.sub(r"<HEADER>.*?</HEADER>", "", markup, flags=re.DOTALL)
            assert "mkfbisti" not in tokenize(text)
        assert tokenize(text) == tokenize(document_text(markup)), doc_id


@pytest.mark.parametrize("relative, cut, expected", [
    ("NEWS_data/FT/FT911/FT911_2.gz", True, "damaged or truncated compressed file"),
    ("NEWS_data/LATIMES/LA010289.Z", True, "truncated"),  # a code cut in two, or a document never closed
    ("NEWS_data/FT/FT944/FT944_7", False, "ir_datasets found 2294 files of the expected 2295"),
])
def test_a_damaged_copy_gives_one_line_naming_the_file(tree, relative, cut, expected):
    target = tree / relative
    original = target.read_bytes()
    try:
        if cut:
            target.write_bytes(original[: len(original) // 2])
        else:
            target.unlink()
        for route in (ROBUST04, tree) if cut else (ROBUST04,):
            with pytest.raises(IrfairInputError, match=expected) as info:
                list(open_corpus(route).iter_docs())
            assert info.value.path == str(target if cut else tree)
    finally:
        target.write_bytes(original)


def test_a_changed_copy_is_read_again_and_a_vanished_one_is_an_error(tree, judged, w2v, tmp_path, capfd):
    cache = tmp_path / "cache"
    # no random baseline here: it reads the whole corpus in order, not through ir_datasets' document store,
    # whose rebuilding after the copy changed is checked below
    first = _audit(judged, ROBUST04, w2v, cache, random_baseline=False)
    target = tree / "NEWS_data" / "LATIMES" / "LA010189"
    original = target.read_bytes()
    moved = tree.with_name("moved")
    try:
        target.write_bytes(original.replace(b"she raised her daughter alone", b"he raised his son alone, a father"))
        capfd.readouterr()
        second = _audit(judged, ROBUST04, w2v, cache, random_baseline=False)
        assert "ir_datasets' document store" in capfd.readouterr().err  # built from the old copy: rebuilt
        fresh = _audit(judged, ROBUST04, w2v, False, random_baseline=False)
        pd.testing.assert_frame_equal(second.per_query(), fresh.per_query())
        before, after = (r.per_query().set_index(["system", "qid"])["list_genderedness"] for r in (first, second))
        # query 4's list (cut at K = 1) is that document alone, now male-leaning (g < 0 is male); query 1's is untouched
        assert after[("sys", "4")] < before[("sys", "4")]
        assert after[("sys", "1")] == before[("sys", "1")]
        tree.rename(moved)
        with pytest.raises(IrfairInputError, match="are not here"):
            _audit(judged, ROBUST04, w2v, cache)
    finally:
        if moved.exists():
            moved.rename(tree)
        target.write_bytes(original)
