from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irfair.errors import IrfairInputError, IrfairWarning
from irfair.trec import read_qrels, read_run, read_topics, relevant_docs


def test_time_topics(shared_data):
    topics = read_topics(shared_data / "time" / "topics.time.txt")
    assert len(topics) == 83
    assert topics["1"].title == "KENNEDY ADMINISTRATION PRESSURE ON NGO DINH DIEM TO STOP SUPPRESSING THE BUDDHISTS ."
    assert topics["83"].title.startswith("RED CHINESE BLAMING OF ECONOMIC TROUBLES")
    assert topics["83"].description == topics["83"].title


def test_robust04_topics_title_and_description(shared_data):
    topics = read_topics(shared_data / "robust04" / "topics.robust04.txt")
    assert len(topics) == 250
    assert list(topics)[:2] == ["301", "302"] and list(topics)[-1] == "700"
    assert topics["301"].title == "International Organized Crime"
    assert topics["301"].description.startswith("Identify organizations that participate in international criminal activity")
    assert topics["301"].text("title+desc").startswith("International Organized Crime Identify")


def test_topics_with_closing_tags(shared_data):
    topics = read_topics(shared_data / "vaswani" / "query-text.trec")
    assert len(topics) == 93
    assert topics["1"].title == "MEASUREMENT OF DIELECTRIC CONSTANT OF LIQUIDS BY THE USE OF MICROWAVE TECHNIQUES"


def test_tsv_topics(tmp_path):
    path = tmp_path / "topics.tsv"
    path.write_text("1\tnurse shortage\n2\tfirefighter training\n")
    topics = read_topics(path)
    assert topics["2"].title == "firefighter training"


@pytest.mark.parametrize("header", ["qid\tquery", "query_id\ttext", "ID\ttitle", "\nqid\tquery"])
def test_tsv_topics_header_line_is_not_a_topic(tmp_path, header):
    from irfair.errors import IrfairWarning

    path = tmp_path / "topics.tsv"
    path.write_text(f"{header}\n1\tnurse shortage\n2\tfirefighter training\n")
    with pytest.warns(IrfairWarning, match=r"topics\.tsv: line [12] \('\S+ \S+'\) read as a header, not a topic: 2 topics"):
        topics = read_topics(path)
    assert list(topics) == ["1", "2"]


def test_tsv_header_only_on_the_first_line(tmp_path):
    """A later line whose id is "qid" is a topic like any other (and a repeated one still an error)."""
    import warnings

    path = tmp_path / "topics.tsv"
    path.write_text("1\tnurse shortage\nqid\tquery\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(read_topics(path)) == ["1", "qid"]


def test_tsv_topics_joined_by_cat_skip_the_repeated_header(tmp_path):
    """Two files with headers joined by cat: the second header was read as a topic named query_id."""
    from irfair.errors import IrfairWarning

    path = tmp_path / "topics.tsv"
    path.write_text("query_id\ttext\n1\tnurse shortage\n\nQuery_ID\tText\n2\tfirefighter training\n")
    with pytest.warns(IrfairWarning, match=r"topics\.tsv: 2 lines \(1, 4; 'query_id text'\) read as header lines, not topics: 2 topics"):
        assert list(read_topics(path)) == ["1", "2"]


@pytest.mark.parametrize("text", ["the <topology> of networks", "<top> ranked lists", "a <TOP>list", "<title> and <num>"])
def test_tsv_topics_are_told_by_their_structure_not_by_a_tag_in_the_text(tmp_path, text):
    """'qid<TAB>query' lines whose query holds something like a tag were refused as 'expected TREC <top> blocks'."""
    path = tmp_path / "topics.tsv"
    path.write_text(f"1\t{text}\n2\tfirefighter training\n")
    assert read_topics(path)["1"].title == text


def test_tsv_topics_with_only_a_header_are_an_error(tmp_path):
    """A header and no topic is as empty as an empty file: an error at the topics file, not 'query 1 is not in the
    topics' at the run's first line."""
    path = tmp_path / "topics.tsv"
    path.write_text("qid\tquery\n\n")
    with pytest.raises(IrfairInputError) as info:
        read_topics(path)
    assert str(info.value) == f"{path}: no topics: only the header line 'qid query'; expected 'qid<TAB>query' lines below it"


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("compress", [None, "gzip"])
def test_a_utf8_byte_order_mark_is_not_part_of_the_first_field(shared_data, tmp_path, compress):
    """Windows editors start UTF-8 files with a byte-order mark; kept, it made the first line's query id U+FEFF + "1":
    the run's query 1 was "not in the topics", and the qrels' first judgement was silently dropped from query 1."""
    import gzip

    def with_bom(name: str, text: str) -> Path:
        data = BOM + text.encode("utf-8")
        path = tmp_path / name
        path.write_bytes(gzip.compress(data, mtime=0) if compress else data)
        return path

    topics = read_topics(shared_data / "vaswani" / "query-text.trec")
    tsv = "".join(f"{q}\t{t.title}\n" for q, t in topics.items())
    assert read_topics(with_bom("topics.tsv", tsv)) == topics
    with pytest.warns(IrfairWarning, match="read as a header, not a topic: 93 topics"):
        assert read_topics(with_bom("header.tsv", "qid\tquery\n" + tsv)) == topics
    trec = (shared_data / "vaswani" / "query-text.trec").read_text()
    assert read_topics(with_bom("topics.trec", trec)) == topics
    qrels = read_qrels(with_bom("qrels", "1 0 a 1\n1 0 b 1\n2 0 c 1\n"))
    assert qrels == {"1": {"a": 1, "b": 1}, "2": {"c": 1}}
    run = read_run(with_bom("x.run", "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n"))
    assert list(run.ranking) == ["1"] and run.doc_ids("1") == ["a", "b"]


def test_a_pipe_is_read_once_and_dev_null_is_empty(tmp_path):
    """`irfair audit <(zcat run.gz)` gives a pipe, which can be read once: the fast reader used to read it and the
    line reader (for a byte-order mark, say) then found it empty. /dev/null was "not found"."""
    import gzip
    import os
    import threading

    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    data = gzip.compress(BOM + b"1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n", mtime=0)
    writer = threading.Thread(target=fifo.write_bytes, args=(data,))
    writer.start()
    run = read_run(fifo)
    writer.join()
    assert list(run.ranking) == ["1"] and run.doc_ids("1") == ["a", "b"]
    with pytest.raises(IrfairInputError, match=r"^/dev/null: empty run file$"):
        read_run("/dev/null")


def test_vaswani_topics_as_tsv_with_a_header_count_93(shared_data, tmp_path):
    from irfair.errors import IrfairWarning

    topics = read_topics(shared_data / "vaswani" / "query-text.trec")
    path = tmp_path / "vaswani.tsv"
    path.write_text("qid\tquery\n" + "".join(f"{q}\t{t.title}\n" for q, t in topics.items()))
    with pytest.warns(IrfairWarning, match="93 topics"):
        assert read_topics(path) == topics


def test_qrels_time_and_robust04(shared_data):
    time = read_qrels(shared_data / "time" / "qrels.time.txt")
    assert sum(len(j) for j in time.values()) == 253 and len(time) == 79
    robust = read_qrels(shared_data / "robust04" / "qrels.robust04.txt")
    assert sum(len(j) for j in robust.values()) == 311_410
    assert len(robust) == 249 and "672" not in robust
    assert {g for j in robust.values() for g in j.values()} == {0, 1, 2}
    assert robust["301"]["FBIS3-10082"] == 1 and robust["301"]["FBIS3-10169"] == 0


def test_relevant_docs_sorted_by_grade_then_id():
    qrels = {"1": {"b": 1, "a": 2, "c": 0, "d": 1}}
    assert relevant_docs(qrels, "1") == [("a", 2), ("b", 1), ("d", 1)]
    assert relevant_docs(qrels, "missing") == []


def test_run_orders_by_score_then_docid_descending(tmp_path):
    path = tmp_path / "sys.run"
    path.write_text("1 Q0 a 1 2.0 tag\n1 Q0 c 2 3.5 tag\n1 Q0 b 3 2.0 tag\n2 Q0 x 1 1 tag\n")
    run = read_run(path)
    assert run.name == "sys" and run.tag == "tag"
    assert run.doc_ids("1") == ["c", "b", "a"]
    assert run.doc_ids("1", depth=2) == ["c", "b"]
    assert run.line_of["1", "b"] == 3


@pytest.mark.parametrize(
    "content, line, message",
    [
        ("1 Q0 a 1 2.0 tag\n1 Q0 b 2 tag\n", 2, "expected 6 columns"),
        ("1 Q0 a one 2.0 tag\n", 1, "rank must be an integer"),
        ("1 Q0 a 1 high tag\n", 1, "score must be a number"),
        ("1 Q0 a 1 nan tag\n", 1, "score must be finite"),
        ("1 Q0 a 1 2 t\n1 Q0 a 2 1 t\n", 2, "retrieved twice"),
    ],
)
def test_bad_run_lines_name_file_and_line(tmp_path, content, line, message):
    path = tmp_path / "bad.run"
    path.write_text(content)
    with pytest.raises(IrfairInputError, match=message) as info:
        read_run(path)
    assert info.value.line == line and info.value.path == str(path)
    assert str(info.value).startswith(f"{path}:{line}: ")


@pytest.mark.parametrize(
    "content, line, message",
    [
        ("1 0 a\n", 1, "expected 4 columns"),
        ("1 0 a 1\n1 0 b yes\n", 2, "must be an integer"),
        ("1 0 a 1\n1 0 a 0\n", 2, "judged twice"),
    ],
)
def test_bad_qrels_lines(tmp_path, content, line, message):
    path = tmp_path / "bad.qrels"
    path.write_text(content)
    with pytest.raises(IrfairInputError, match=message) as info:
        read_qrels(path)
    assert info.value.line == line


@pytest.mark.parametrize(
    "content, line, message",
    [
        ("<top>\n<num> Number: 1\n<title> a\n", 1, "never closed"),
        ("<top>\n<title> no number\n</top>\n", 1, "needs one query id"),
        ("<top>\n<num> 1\n<title> a\n</top>\n<top>\n<num> 1\n<title> b\n</top>\n", 5, "appears twice"),
        ("<num> 1\n<top>\n", 1, "outside a <top>"),
    ],
)
def test_bad_topics(tmp_path, content, line, message):
    path = tmp_path / "topics.txt"
    path.write_text(content)
    with pytest.raises(IrfairInputError, match=message) as info:
        read_topics(path)
    assert info.value.line == line


def test_empty_and_missing_files(tmp_path):
    empty = tmp_path / "empty.run"
    empty.write_text("\n\n")
    with pytest.raises(IrfairInputError, match="empty run file"):
        read_run(empty)
    with pytest.raises(IrfairInputError, match="qrels file not found"):
        read_qrels(tmp_path / "nope.txt")


def test_written_runs_read_back_with_the_same_scores(tmp_path):
    """Scores that differ only after the sixth decimal stay distinct: no tie is created by writing."""
    from irfair.trec import Run, read_run, write_run

    run = Run("r", {"1": [("d1", 1 / 3), ("d2", 1 / 3 - 1e-9), ("d3", 2.5e-12)], "2": [("d4", -0.7071067811865476)]})
    write_run(tmp_path / "r.run", run)
    back = read_run(tmp_path / "r.run")
    assert back.ranking == run.ranking


def _both_readers(path):
    from irfair.trec.files import _read_run_columns, _read_run_lines

    fast = _read_run_columns(path, None)
    try:
        strict = _read_run_lines(path, None)
    except IrfairInputError:
        strict = None
    return fast, strict


def test_fast_run_reading_equals_line_by_line_reading(shared_data, tmp_path):
    """The Arrow reader gives the line reader's ranking, tag and line numbers, or leaves the file to it."""
    files = {
        "plain": "1 Q0 b 1 2.5 t\n1 Q0 a 2 2.5 t\n\n2 Q0 c 1 -1e-3 t\n1 Q0 z 3 0.25 t\n",
        "blanks": "  1\tQ0  b 1 2.5 t  \r\n\t\r\n1 Q0 a 2 2.5 t\r\n",
        "trailing text": "1 Q0 b 1 2.5 t more words\n",
        "bad score": "1 Q0 b 1 x t\n",
        "duplicate": "1 Q0 b 1 1 t\n1 Q0 b 2 0.5 t\n",
        "infinite": "1 Q0 b 1 inf t\n",
        "lone CR": "1 Q0 b 1 1 t\r1 Q0 c 2 0.5 t\n",
        "unicode id": "1 Q0 dé 1 1 t\n",
    }
    for label, text in files.items():
        path = tmp_path / f"{label.replace(' ', '_')}.run"
        path.write_bytes(text.encode())
        fast, strict = _both_readers(path)
        if fast is not None:
            assert strict is not None and fast.ranking == strict.ranking and fast.tag == strict.tag, label
            assert dict(fast.line_of) == dict(strict.line_of), label
    fast, strict = _both_readers(tmp_path / "plain.run")
    assert fast is not None and fast.ranking["1"] == [("b", 2.5), ("a", 2.5), ("z", 0.25)]
    assert fast.line_of["2", "c"] == 4 and _both_readers(tmp_path / "blanks.run")[0] is not None
    for label in ("bad_score", "duplicate", "infinite", "lone_CR", "trailing_text"):
        assert _both_readers(tmp_path / f"{label}.run")[0] is None, label
    fast, strict = _both_readers(Path(__file__).resolve().parents[1] / "runs" / "vaswani" / "bm25.run")
    assert fast is not None and fast.ranking == strict.ranking and len(fast.ranking) == 93


@pytest.mark.parametrize("text", ["1 Q0 b 1 2.5 t\n 1 Q0 a 2 1 t\n", "1 Q0 b 1 2.5 t \n1 Q0 a 2 1 t\n", "1 Q0 b 1 2.5 t\n1 Q0 a 2 1 t ",
                                  "1 Q0  b 1 2.5 t\n1 Q0 a 2 1 t\n", " 1 Q0 b 1 2.5 t\n1 Q0 a 2 1 t", "1 Q0 b 1 2.5 t\n \n1 Q0 a 2 1 t\n"])
def test_spaces_at_line_ends_or_doubled_are_read_as_one_blank(tmp_path, text):
    """Each file is the two-line run "1 Q0 b 1 2.5 t / 1 Q0 a 2 1 t" with one irregular space: read on the fast path."""
    path = tmp_path / "r.run"
    path.write_text(text)
    fast, strict = _both_readers(path)
    assert fast is not None and fast.ranking == strict.ranking == {"1": [("b", 2.5), ("a", 1.0)]}
    assert dict(fast.line_of) == dict(strict.line_of)


def test_a_file_listed_by_score_keeps_its_order_but_for_ties(tmp_path):
    """Queries one after the other, scores from high to low, two runs of ties listed by ascending id: read without a
    sort, the ties put in descending id order, as the line reader (and trec_eval) order them."""
    import numpy as np
    import pyarrow as pa

    from irfair.trec.files import _listed_order

    path = tmp_path / "r.run"
    path.write_text("7 Q0 a 1 3 t\n7 Q0 b 2 3 t\n7 Q0 c 3 3 t\n7 Q0 d 4 1 t\n2 Q0 e 1 5 t\n2 Q0 f 2 4 t\n2 Q0 g 3 4 t\n")
    fast, strict = _both_readers(path)
    assert fast.ranking == strict.ranking and fast.doc_ids("7") == ["c", "b", "a", "d"] and fast.doc_ids("2") == ["e", "g", "f"]
    assert dict(fast.line_of) == dict(strict.line_of)
    docs = pa.array(list("abcdefg"))
    codes, scores = np.array([0, 0, 0, 0, 1, 1, 1]), np.array([3, 3, 3, 1, 5, 4, 4.0])
    assert _listed_order(codes, scores, docs).tolist() == [2, 1, 0, 3, 4, 6, 5]
    assert _listed_order(codes, scores[::-1].copy(), docs) is None and _listed_order(codes[::-1].copy(), scores, docs) is None


def test_a_missing_field_beside_a_doubled_space_is_left_to_the_line_reader(tmp_path):
    """Six fields with one empty (the document id missing, two spaces in a row): the line reader names the line."""
    from irfair.trec.files import _read_run_columns
    from irfair.trec.qrels import _read_qrels_columns

    run, qrels = tmp_path / "r.run", tmp_path / "q.txt"
    run.write_text("1 Q0 a 1 2.5 t\n1 Q0  2 1 t\n")
    qrels.write_text("1 0 a 1\n1  b 0\n")
    assert _read_run_columns(run, None) is None and _read_qrels_columns(qrels) is None
    with pytest.raises(IrfairInputError, match=r"r.run:2: expected 6 columns"):
        read_run(run)
    with pytest.raises(IrfairInputError, match=r"q.txt:2: expected 4 columns"):
        read_qrels(qrels)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "10"]), st.sampled_from(["Q0", "q"]), st.sampled_from(["a", "b", "c", "d"]),
                          st.sampled_from(["1", "2", "x", "+3", "1.0"]), st.sampled_from(["1", "0.5", "-2e-3", "nan", "1_0", "3"]),
                          st.sampled_from(["t", "t x"]), st.sampled_from([" ", "\t", "  "]), st.sampled_from(["\n", "\r\n", "\n\n"])),
                min_size=1, max_size=8))
def test_any_run_file_reads_the_same_by_both_readers(tmp_path_factory, rows):
    text = "".join(sep.join(cols) + end for *cols, sep, end in rows)
    path = tmp_path_factory.mktemp("runs") / "r.run"
    path.write_text(text)
    fast, strict = _both_readers(path)
    if fast is not None:
        assert strict is not None and fast.ranking == strict.ranking and dict(fast.line_of) == dict(strict.line_of)


def test_fast_qrels_reading_equals_line_by_line_reading(shared_data, tmp_path):
    from irfair.trec.qrels import _read_qrels_columns, _read_qrels_lines

    for path in (shared_data / "robust04" / "qrels.robust04.txt", shared_data / "vaswani" / "qrels"):
        fast = _read_qrels_columns(path)
        assert fast is not None and fast == _read_qrels_lines(path)
        assert list(fast) == list(_read_qrels_lines(path))  # queries in file order
    twice = tmp_path / "twice.qrels"
    twice.write_text("1 0 a 1\n2 0 b 0\n1 0 a 2\n")
    assert _read_qrels_columns(twice) is None
    with pytest.raises(IrfairInputError, match=r"twice.qrels:3: document a judged twice for query 1"):
        read_qrels(twice)


def test_qrels_comment_lines_are_skipped_as_trec_eval_10_skips_them():
    """trec_eval's qrels.test.with-comments: '#' lines are comments, a '#' inside a document id is not."""
    from helpers import TREC_EVAL

    with_comments = read_qrels(TREC_EVAL / "qrels.test.with-comments")
    plain = read_qrels(TREC_EVAL / "qrels.test")
    assert with_comments["301"].pop("CR#93E-1860") == plain["301"].pop("CR93E-1860") == 0
    assert with_comments == plain


def test_run_comment_lines_and_runid(tmp_path):
    """trec_eval 10 skips run lines whose first non-blank character is '#'; the runid is the last line's tag;
    both readers agree."""
    from irfair.trec.files import _read_run_columns, _read_run_lines

    path = tmp_path / "r.run"
    path.write_text("# made by hand\n1 Q0 a 1 2 first\n  # indented comment\n1 Q0 b 2 1 last\n")
    run = read_run(path)
    assert run.ranking == {"1": [("a", 2.0), ("b", 1.0)]} and run.tag == "last" and run.line_of["1", "b"] == 4
    plain = tmp_path / "p.run"
    plain.write_text("1 Q0 a 1 2 first\n1 Q0 b 2 1 last\n")
    assert _read_run_columns(plain, None).tag == _read_run_lines(plain).tag == "last"


def test_max_depth_drops_documents_before_duplicates_are_checked(tmp_path):
    """trec_eval -M: each query keeps its first M documents (trec_eval's order) and a document listed twice is
    an error only when both lines are kept."""
    path = tmp_path / "dup.run"
    path.write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 a 3 1 t\n2 Q0 c 1 1 t\n2 Q0 c 2 1 t\n")
    with pytest.raises(IrfairInputError, match="retrieved twice"):
        read_run(path)
    with pytest.raises(IrfairInputError, match=r"dup.run:5: document c retrieved twice for query 2 within its first 2 documents"):
        read_run(path, max_depth=2)
    path.write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 a 3 1 t\n2 Q0 c 1 1 t\n")
    run = read_run(path, max_depth=2)
    assert run.ranking == {"1": [("a", 3.0), ("b", 2.0)], "2": [("c", 1.0)]} and run.line_of["1", "a"] == 1
    assert read_run(path, max_depth=1).ranking == {"1": [("a", 3.0)], "2": [("c", 1.0)]}


def test_csv_topics_with_a_header(tmp_path):
    """A CSV export of topics (pandas' to_csv, ir_datasets' queries): the header says which it is; quoted queries
    keep their commas; the header is said in one warning that counts the topics; a row without a query is one line."""
    from irfair.errors import IrfairWarning

    path = tmp_path / "topics.csv"
    path.write_text('query_id,text\n1,nurse shortage\n2,"firefighters, training"\n')
    with pytest.warns(IrfairWarning, match=r"topics\.csv: line 1 \('query_id,text'\) read as the header of CSV topics: 2 topics"):
        topics = read_topics(path)
    assert {q: t.title for q, t in topics.items()} == {"1": "nurse shortage", "2": "firefighters, training"}
    path.write_text("qid,query\n1,nurse\n2\n")
    with pytest.raises(IrfairInputError, match=r"topics\.csv:3: expected 'qid,query' CSV rows under the header 'qid,query'"):
        read_topics(path)
