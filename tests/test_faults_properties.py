"""Property: whatever bytes a run, qrels, topics or embedding file holds (random bytes, a truncation, a
mutation of a valid file), the CLI either exits 0 with the numbers a strict, independent reading of the
same files gives, or exits 2 with one line naming the file — never a traceback, never a partial output.

The independent readers below follow the documented formats (README "Inputs"); numbers are compared
with ``irfair.audit`` / the gender direction computed on what they read."""
from __future__ import annotations

import json
import math
import re
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from faults_data import run_cli
from helpers import hand_embeddings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irfair.audit import audit
from irfair.embeddings import Embeddings
from irfair.errors import IrfairWarning
from irfair.trec import Run, Topic

SETTINGS = settings(max_examples=50, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

DOCS = {
    "d1": "The woman is a nurse and she met the girl", "d2": "The man is a doctor and he met the boy",
    "d3": "A nurse at the table", "d4": "She is a doctor", "d5": "He is a nurse", "d6": "The boy and the table",
    "d7": "A woman and a man", "d8": "The doctor met the nurse",
}
TOPICS = {"1": "nurse", "2": "doctor", "3": "table nurse"}
QRELS = "1 0 d1 1\n1 0 d3 2\n1 0 d5 1\n2 0 d2 1\n2 0 d4 1\n3 0 d3 1\n3 0 d6 0\n"
RUN = "".join(f"{q} Q0 {d} {r + 1} {10 - r}.5 t\n" for q, docs in (("1", "d3 d1 d5 d2 d8"), ("2", "d4 d2 d8 d1"), ("3", "d6 d3 d1"))
              for r, d in enumerate(docs.split()))
TOPICS_TEXT = "".join(f"<top>\n<num> Number: {q}\n<title> {t}\n</top>\n\n" for q, t in TOPICS.items())


def _vec_text() -> str:
    emb = hand_embeddings()
    rows = [w + " " + " ".join(f"{x:.4f}" for x in v) for w, v in zip(emb.words, np.asarray(emb.vectors))]
    return f"{len(emb)} {emb.dim}\n" + "\n".join(rows) + "\n"


def _bin_bytes() -> bytes:
    emb = hand_embeddings()
    body = b"".join(w.encode() + b" " + np.asarray(v, dtype="<f4").tobytes() + b"\n" for w, v in zip(emb.words, np.asarray(emb.vectors)))
    return f"{len(emb)} {emb.dim}\n".encode() + body


EXTENSIONS = {"run": "run", "qrels": "qrels", "topics": "topics", "embeddings": "vec", "binary embeddings": "bin"}


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny")
    (folder / "docs.trec").write_text("".join(f"<DOC>\n<DOCNO>{d}</DOCNO>\n<TEXT>\n{t}\n</TEXT>\n</DOC>\n" for d, t in DOCS.items()))
    for name, text in {"run": RUN, "qrels": QRELS, "topics": TOPICS_TEXT, "vec": _vec_text()}.items():
        (folder / f"valid.{name}").write_text(text)
    (folder / "valid.bin").write_bytes(_bin_bytes())
    return folder


def mutated(valid: bytes):
    """Random bytes, or the valid bytes truncated, with bytes deleted, inserted or replaced, or lines
    deleted, repeated or swapped."""
    lines = valid.splitlines(keepends=True)
    index = st.integers(0, len(valid))
    line = st.integers(0, len(lines) - 1)
    noise = st.binary(min_size=1, max_size=8) | st.sampled_from([b"\n", b" ", b"\t", b"\x00", b"nan", b"-1", b"\xff\xfe", b"<top>"])
    return st.one_of(
        st.binary(max_size=300),
        index.map(lambda k: valid[:k]),
        st.tuples(index, st.integers(1, 20)).map(lambda t: valid[: t[0]] + valid[t[0] + t[1]:]),
        st.tuples(index, noise).map(lambda t: valid[: t[0]] + t[1] + valid[t[0]:]),
        st.tuples(index, noise).map(lambda t: valid[: t[0]] + t[1] + valid[t[0] + len(t[1]):]),
        line.map(lambda i: b"".join(lines[:i] + lines[i + 1:])),
        line.map(lambda i: b"".join(lines[: i + 1] + lines[i:])),
        st.tuples(line, line).map(lambda t: b"".join(_swapped(lines, *t))),
    )


def _swapped(lines, i, j):
    out = list(lines)
    out[i], out[j] = out[j], out[i]
    return out


class Rejected(Exception):
    """The independent reader rejects the file."""


def _text(data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Rejected("not UTF-8") from None
    if not text.strip():
        raise Rejected("empty")
    return text


def read_run_independently(data: bytes) -> Run:
    """6 whitespace-separated columns; integer rank, finite score; a (query, document) pair once;
    ranked by score, then document id, both descending."""
    ranking: dict[str, list[tuple[str, float]]] = {}
    seen = set()
    for line in _text(data).splitlines():
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 6:
            raise Rejected("columns")
        qid, _, doc, rank, score, _ = fields
        try:
            int(rank)
            value = float(score)
        except ValueError:
            raise Rejected("number") from None
        if not math.isfinite(value) or (qid, doc) in seen:
            raise Rejected("score or repeat")
        seen.add((qid, doc))
        ranking.setdefault(qid, []).append((doc, value))
    return Run("mutated", {q: sorted(h, key=lambda x: (x[1], x[0]), reverse=True) for q, h in ranking.items()})


def read_qrels_independently(data: bytes) -> dict[str, dict[str, int]]:
    """4 whitespace-separated columns, an integer grade, a (query, document) pair once."""
    qrels: dict[str, dict[str, int]] = {}
    for line in _text(data).splitlines():
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 4:
            raise Rejected("columns")
        try:
            grade = int(fields[3])
        except ValueError:
            raise Rejected("grade") from None
        if fields[2] in qrels.setdefault(fields[0], {}):
            raise Rejected("repeat")
        qrels[fields[0]][fields[2]] = grade
    return qrels


def read_vectors_independently(data: bytes) -> tuple[list[str], np.ndarray]:
    """Optional 'count dim' header, then per line a word (no part of it a number) and dim finite
    numbers; every line ends with a line break; no blank line; as many rows as the header says."""
    if not data.endswith(b"\n"):
        raise Rejected("last line")
    words, rows, count, dim = [], [], None, None
    for number, raw in enumerate(data.split(b"\n")[:-1], start=1):
        try:
            text = raw.decode("utf-8").rstrip("\r").rstrip(" ")
        except UnicodeDecodeError:
            raise Rejected("utf-8") from None
        fields = text.split(" ")
        if number == 1 and len(fields) == 2 and all(re.fullmatch("[0-9]+", f) for f in fields):
            count, dim = int(fields[0]), int(fields[1])
            if count < 1 or dim < 1:
                raise Rejected("header")
            continue
        if dim is None:
            dim = len(fields) - 1
        if not text.strip() or dim < 1 or len(fields) < dim + 1:
            raise Rejected("row")
        word = fields[: len(fields) - dim]
        if not word[0] or any(_is_number(part) for part in word):
            raise Rejected("word")
        try:
            values = [float(x) for x in fields[len(fields) - dim:]]
        except ValueError:
            raise Rejected("number") from None
        row = np.array(values, dtype=np.float64).astype(np.float32)
        if not np.isfinite(row).all():
            raise Rejected("finite")
        words.append(" ".join(word))
        rows.append(row)
    if not rows or (count is not None and count != len(rows)):
        raise Rejected("count")
    return words, np.vstack(rows)


def read_binary_independently(data: bytes) -> tuple[list[str], np.ndarray]:
    """'count dim' line, then per word: the word (UTF-8, no line break), a space, dim little-endian
    float32 (finite); only line breaks after the last word."""
    header, _, rest = data.partition(b"\n")
    fields = header.split()
    if len(fields) != 2 or not all(re.fullmatch(rb"[0-9]+", f) for f in fields) or min(int(f) for f in fields) < 1:
        raise Rejected("header")
    count, dim = int(fields[0]), int(fields[1])
    words, rows, position = [], [], 0
    for _ in range(count):
        space = rest.find(b" ", position)
        if space < 0 or space - position > 4096:
            raise Rejected("word")
        try:
            word = rest[position:space].lstrip(b"\n").decode("utf-8")
        except UnicodeDecodeError:
            raise Rejected("utf-8") from None
        vector = rest[space + 1: space + 1 + 4 * dim]
        if not word or "\n" in word or "\r" in word or len(vector) != 4 * dim:
            raise Rejected("record")
        row = np.frombuffer(vector, dtype="<f4").astype(np.float32)
        if not np.isfinite(row).all():
            raise Rejected("finite")
        words.append(word)
        rows.append(row)
        position = space + 1 + 4 * dim
    if rest[position:].strip(b"\n"):
        raise Rejected("trailing data")
    return words, np.vstack(rows)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _audit_args(folder: Path, files: dict[str, Path], out: Path) -> list[str]:
    return ["audit", files["run"], "--qrels", files["qrels"], "--topics", files["topics"], "--corpus", folder / "docs.trec",
            "--embeddings", files["embeddings"], "--bootstrap", "0", "--no-random", "--no-plots", "--no-cache", "--quiet",
            "--bias-measures", "gsr", "--out", out]


def _numbers(summary: dict) -> dict:
    return {(name, key): value for name, system in summary["systems"].items() for key, value in system.items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)}


_examples = iter(range(10**9))


def _check(folder: Path, kind: str, data: bytes) -> None:
    """One example: ``kind``'s file replaced by ``data``, the others valid."""
    n = next(_examples)
    files = {name: folder / f"valid.{name}" for name in ("run", "qrels", "topics")}
    files["embeddings"] = folder / "valid.vec"
    role = "embeddings" if "embeddings" in kind else kind
    files[role] = folder / f"mutated-{n}.{EXTENSIONS[kind]}"
    files[role].write_bytes(data)
    out = folder / f"out-{n}"
    code, printed, err = run_cli(_audit_args(folder, files, out))
    assert code in (0, 2), err
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("irfair: error: ") and str(files[role]) in err, err
        assert not out.exists()
        return
    assert all(line.startswith("irfair: warning: ") for line in err.splitlines()), err
    summary = json.loads((out / "audit.json").read_text())
    per_query = (out / "per_query.csv").read_text()
    if kind == "topics":
        topics = _topics_as_printed(per_query, data)
    else:
        topics = {q: Topic(q, t) for q, t in TOPICS.items()}
    runs = {"mutated": read_run_independently(data)} if kind == "run" else [files["run"]]
    reader = read_binary_independently if kind == "binary embeddings" else read_vectors_independently
    words, vectors = reader(files["embeddings"].read_bytes())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IrfairWarning)  # the CLI printed it; checked above
        expected = audit(runs, read_qrels_independently(files["qrels"].read_bytes()), topics, folder / "docs.trec",
                         Embeddings(files["embeddings"].name, words, vectors), n_bootstrap=0, random_baseline=False, cache_dir=False,
                         bias_measures=("gsr",))
    want = _numbers(json.loads(json.dumps(expected.to_dict())))
    got = {("mutated" if kind == "run" and name == files["run"].stem else name, key): value
           for (name, key), value in _numbers(summary).items()}
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


def _topics_as_printed(per_query: str, data: bytes) -> dict[str, Topic]:
    """The topics the audit used (per_query.csv), each checked against the file: its id and its query
    words must be in the file's text, in that order, and no topic tag may have leaked into a query."""
    import csv
    import io

    text = data.decode("utf-8")
    topics = {}
    for row in csv.DictReader(io.StringIO(per_query)):
        if row["system"] == "perfect":
            qid, query = row["qid"], row["query"]
            assert qid in text and not re.search(r"<\s*/?\s*(top|num|title|desc|narr)\s*>", query, re.IGNORECASE)
            assert re.search(r"\s+".join(map(re.escape, query.split())), text) or not query.split()
            topics[qid] = Topic(qid, query)
    return topics


@contextmanager
def _no_drawings(result, y_range, png=True, jobs=None, cache_dir=None):
    yield {name: (lambda: (b"", "<svg></svg>")) for name in result.systems}


@pytest.mark.parametrize("kind", EXTENSIONS)
def test_mutated_inputs_give_correct_numbers_or_one_line(collection, kind, monkeypatch):
    # the scatter plots (matplotlib, ~0.3 s an audit) have nothing to do with reading inputs
    monkeypatch.setattr("irfair.presentation.report.scatter_drawings", _no_drawings)
    valid = (collection / f"valid.{EXTENSIONS[kind]}").read_bytes()
    _check(collection, kind, valid)  # the valid file itself: exit 0, the independent numbers

    @SETTINGS
    @given(data=mutated(valid))
    def check(data):
        _check(collection, kind, data)

    check()
