import gzip
import json
import sys
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irfair.corpus import InMemoryCorpus, IrDatasetsCorpus, JsonlCorpus, TextDirCorpus, TrecCorpus, open_corpus
from irfair.corpus.base import file_stamp
from irfair.errors import IrfairInputError


def test_time_sgml(shared_data):
    corpus = open_corpus(shared_data / "time" / "time.trec")
    assert isinstance(corpus, TrecCorpus)
    docs = dict(corpus.iter_docs())
    assert len(docs) == 423
    ids = list(docs)
    assert ids[0] == "17" and ids[-1] == "563"
    assert docs["20"].strip().startswith("THE ROAD TO JAIL IS PAVED WITH NONOBJECTIVE ART")
    assert dict(corpus.iter_docs({"18", "563"})).keys() == {"18", "563"}


def test_vaswani_sgml_without_text_tags(shared_data):
    corpus = open_corpus(shared_data / "vaswani" / "corpus")
    docs = dict(corpus.iter_docs())
    assert len(docs) == 11_429
    assert docs["1"].split()[:3] == ["compact", "memories", "have"]
    assert "pattern detection and recognition" in docs["11429"]


def test_disks45_style_tags_and_gzip(tmp_path):
    sgml = (
        "<DOC>\n<DOCNO> FT911-1 </DOCNO>\n<PROFILE>_AN-BEOO</PROFILE>\n<HEADLINE>\nNurse strike\n</HEADLINE>\n"
        "<TEXT>\nShe said the ward was closed.\n</TEXT>\n</DOC>\n"
    )
    path = tmp_path / "ft.gz"
    with gzip.open(path, "wt") as handle:
        handle.write(sgml)
    docs = dict(open_corpus(path).iter_docs())
    assert list(docs) == ["FT911-1"]
    assert docs["FT911-1"].split() == ["Nurse", "strike", "She", "said", "the", "ward", "was", "closed."]


def test_sgml_errors_name_the_line(tmp_path):
    path = tmp_path / "bad.trec"
    path.write_text("<DOC>\n<DOCNO>1</DOCNO>\ntext\n</DOC>\n<DOC>\ntext without docno\n</DOC>\n")
    with pytest.raises(IrfairInputError, match="no <DOCNO>") as info:
        list(open_corpus(path).iter_docs())
    assert info.value.line == 5
    path.write_text("<DOC>\n<DOCNO>1</DOCNO>\n</DOC>\n<DOC>\n<DOCNO>1</DOCNO>\n</DOC>\n")
    with pytest.raises(IrfairInputError, match="appears twice"):
        list(open_corpus(path).iter_docs())


def test_jsonl_contents_or_text(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps({"id": "a", "contents": "x y"}) + "\n" + json.dumps({"id": 2, "text": "z"}) + "\n")
    corpus = open_corpus(path)
    assert isinstance(corpus, JsonlCorpus)
    assert dict(corpus.iter_docs()) == {"a": "x y", "2": "z"}
    path.write_text(json.dumps({"id": "a", "contents": "x"}) + "\n{not json\n")
    with pytest.raises(IrfairInputError, match="not valid JSON") as info:
        list(open_corpus(path).iter_docs())
    assert info.value.line == 2


def test_txt_folder(tmp_path):
    (tmp_path / "d1.txt").write_text("one")
    (tmp_path / "d2.txt").write_text("two")
    corpus = open_corpus(tmp_path)
    assert isinstance(corpus, TextDirCorpus)
    assert dict(corpus.iter_docs({"d2"})) == {"d2": "two"}


def test_missing_corpus_path(tmp_path):
    with pytest.raises(IrfairInputError, match="corpus not found"):
        open_corpus(tmp_path / "nothing-here")


def test_in_memory_fingerprint_changes_with_text():
    assert InMemoryCorpus({"a": "x"}).fingerprint() != InMemoryCorpus({"a": "y"}).fingerprint()


def test_ir_datasets_adapter_reads_subset_and_all(monkeypatch):
    """The real adapter against a stand-in ir_datasets module (no download possible here)."""

    class Doc:
        def __init__(self, doc_id, title, body):
            self.doc_id, self.title, self.body = doc_id, title, body

        def default_text(self):
            return f"{self.title} {self.body}"

    docs = [Doc("LA01", "Nurse", "she works"), Doc("LA02", "Plumber", "he works")]

    class Store:
        def get_many(self, ids):
            return {d.doc_id: d for d in docs if d.doc_id in ids}

    class Dataset:
        def has_docs(self):
            return True

        def docs_store(self):
            return Store()

        def docs_iter(self):
            return iter(docs)

    def load(dataset_id):
        if dataset_id != "disks45/nocr/trec-robust-2004":
            raise KeyError(dataset_id)
        return Dataset()

    monkeypatch.setitem(sys.modules, "ir_datasets", types.SimpleNamespace(load=load))
    corpus = open_corpus("disks45/nocr/trec-robust-2004")
    assert isinstance(corpus, IrDatasetsCorpus)
    assert dict(corpus.iter_docs({"LA02"})) == {"LA02": "Plumber he works"}
    assert len(dict(corpus.iter_docs())) == 2
    with pytest.raises(IrfairInputError, match="unknown ir_datasets id"):
        open_corpus("disks45/nope")


def test_caches_of_trec_text_are_keyed_by_the_text_rule(tmp_path, monkeypatch):
    """A term store, Lucene index or document vectors made when the TREC text rule gave other text is not
    used: a TREC corpus's fingerprint holds the rule's version; JSONL, read without the rule, keeps its own."""
    import irfair.corpus.trec_text as trec_text

    (tmp_path / "c.trec").write_text("<DOC>\n<DOCNO> A </DOCNO>\n<TEXT> x </TEXT>\n</DOC>\n")
    (tmp_path / "c.jsonl").write_text('{"id": "A", "contents": "x"}\n')
    trec, jsonl = open_corpus(tmp_path / "c.trec"), open_corpus(tmp_path / "c.jsonl")
    before = trec.fingerprint(), jsonl.fingerprint()
    assert trec.fingerprint() == trec_text.rule_fingerprint(file_stamp([tmp_path / "c.trec"]))
    monkeypatch.setattr(trec_text, "TEXT_RULE_VERSION", trec_text.TEXT_RULE_VERSION + 1)
    assert trec.fingerprint() != before[0] and jsonl.fingerprint() == before[1]


_OPEN = ["<DOC>", "<doc>", " \x0c<DOC> after", "\x1c<Doc>", "\xa0<DOC>", "<DOC></DOC>"]
_CLOSE = ["</DOC>", "</doc> rest", "  </DOC>", "</DOC> <DOC>"]
_INSIDE = ["<DOCNO>X9</DOCNO>", "<DOCNO>X2</DOCNO>", "<docno>\nX3</docno>", "<DOCNO> </DOCNO>", "<TEXT> words &amp; more </TEXT>",
           "plain text", "", "   ", "\t", "<DOCNO", "é\ufffd", "<DOCNO>X1</DOCNO>", "<TEXT>", "</TEXT>"]
_BETWEEN = ["", " ", "\t", "stray text", "</DOC>", "<DOC>"]


@st.composite
def _sgml_lines(draw):
    """Lines of a TREC SGML file: documents (each opened, mostly given its own DOCNO and closed, with random
    lines inside), with lines between them that are mostly blank."""
    lines = []
    for number in range(draw(st.integers(0, 5))):
        lines += draw(st.lists(st.sampled_from(["", " ", "\t"] if draw(st.integers(0, 7)) else _BETWEEN), max_size=2))
        lines.append(draw(st.sampled_from(_OPEN)))
        if draw(st.integers(0, 9)):
            lines.append(f"<DOCNO> X{number} </DOCNO>")
        lines += draw(st.lists(st.sampled_from(_INSIDE), max_size=3))
        if draw(st.integers(0, 9)):
            lines.append(draw(st.sampled_from(_CLOSE)))
    return lines


@settings(max_examples=150, deadline=None, derandomize=True)
@given(lines=_sgml_lines(), newline=st.sampled_from(["\n", "\r\n", "\r"]), kind=st.sampled_from(["plain", "gz", "Z"]),
       chunk=st.sampled_from([5, 23, 1 << 24]), piece=st.sampled_from([1, 17, 60, 1 << 20]), trailing=st.booleans(),
       wanted=st.sampled_from([None, {"X1"}]))
def test_fast_sgml_reader_equals_the_line_reader(tmp_path_factory, lines, newline, kind, chunk, piece, trailing, wanted):
    """Issue 24 reads SGML files in pieces of whole lines, each decoded once and scanned once for the
    <DOC> lines, and a corpus pass reads a file's byte ranges in workers; on random files (any line ends,
    plain or compressed, text decoded 5 bytes at a time, ranges of one byte and up) both give the
    documents (lines, ids, tokens), or the first error and its line, of the line-by-line reader as first
    written."""
    from disks45_tree import compress_z
    from trec_text_reference import iter_trec_file

    import irfair.corpus.pieces as pieces
    from irfair.corpus.trec_text import document_token_text

    data = (newline.join(lines) + (newline if trailing else "")).encode()
    folder = tmp_path_factory.mktemp("sgml")
    path = folder / {"plain": "a.trec", "gz": "a.gz", "Z": "a.Z"}[kind]
    path.write_bytes({"plain": data, "gz": gzip.compress(data), "Z": compress_z(data)}[kind])

    def outcome(documents):
        found = []
        try:
            found.extend(documents())
        except IrfairInputError as error:
            return found, (str(error), error.line)
        return found, None

    def by_pieces():
        for part in pieces.cut_pieces([path], piece):
            yield from TrecCorpus.piece_documents(part)

    original = pieces.READ_BYTES
    pieces.READ_BYTES = chunk
    try:
        expected = outcome(lambda: iter_trec_file(path, wanted))
        assert outcome(lambda: TrecCorpus._iter_file(path, wanted)) == expected
        read = outcome(by_pieces)
    finally:
        pieces.READ_BYTES = original
    tokens = [(line, doc_id, document_token_text(markup)) for line, doc_id, markup in iter_trec_file(path, None)] if (
        expected[1] is None) else None
    assert read[1] == expected[1]
    if tokens is not None:
        assert read[0] == tokens
