"""``irfair index --pyserini-index``: a TrecCollection index (Anserini, irfair's Java) whose stored raw text
gives back each document's title and body exactly."""
from irfair.cli import main
from irfair.corpus import open_corpus
from irfair.corpus.pyserini_index import trec_record
from irfair.corpus.trec_text import document_fields
from irfair.text import tokenize


def test_a_record_gives_back_title_and_body():
    title, body = "Nurse & <doctor>", "she said 5 < 6, &hyph; and\n</DOC> on a line"
    record = trec_record("D1", title, body)
    assert record.count("\n</DOC>") == 1  # markup in the text cannot end the document early
    stored = record.split("</DOCNO>\n", 1)[1].rsplit("</DOC>", 1)[0]  # what TrecCollection keeps: its content tags
    assert document_fields(stored) == (title, body)


def test_cli_builds_the_index_and_refuses_a_used_folder(tmp_path, capsys):
    corpus = tmp_path / "docs.trec"
    corpus.write_text("<DOC>\n<DOCNO> D1 </DOCNO>\n<HEADLINE>\nNurse strike\n</HEADLINE>\n<TEXT>\nShe said &amp; left.\n</TEXT>\n</DOC>\n"
                      "<DOC>\n<DOCNO> D2 </DOCNO>\nno fields here, he said\n</DOC>\n")
    used = tmp_path / "used"
    used.mkdir()
    (used / "keep.txt").write_text("x")
    assert main(["index", "--corpus", str(corpus), "--pyserini-index", str(used)]) == 2
    assert "not an empty folder" in capsys.readouterr().err and (used / "keep.txt").is_file()
    assert main(["index", "--corpus", str(corpus), "--pyserini-index", str(tmp_path / "index"), "--threads", "1"]) == 0
    assert "pyserini index: 2 documents" in capsys.readouterr().out
    read_back = dict(open_corpus(tmp_path / "index").iter_docs())
    original = dict(open_corpus(corpus).iter_docs())
    assert {d: tokenize(t) for d, t in read_back.items()} == {d: tokenize(t) for d, t in original.items()}
    assert tokenize(original["D1"]) == ["nurse", "strike", "she", "said", "left"]
    assert not list(tmp_path.glob(".index.build-*"))  # the build folder is gone
