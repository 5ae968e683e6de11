"""TREC topic files (``<top><num><title><desc>...`` or ``qid<TAB>query`` lines) and the :class:`Topic` they
are read into: parsed strictly, every bad line reported with file and line."""
from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..atomic import write_text
from ..errors import IrfairInputError, IrfairWarning
from .lines import read_lines

QUERY_FIELDS = ("title", "desc", "title+desc")


@dataclass(frozen=True)
class Topic:
    """One TREC topic: its id, title and (possibly empty) description."""

    qid: str
    title: str
    description: str = ""

    def text(self, field: str = "title") -> str:
        """The query text for ``field``: "title", "desc" or "title+desc"."""
        if field == "title":
            return self.title
        if field == "desc":
            return self.description
        if field == "title+desc":
            return f"{self.title} {self.description}".strip()
        raise ValueError(f"query field must be one of {QUERY_FIELDS}, not {field!r}")


_TAG = re.compile(r"<\s*(/?)\s*(top|num|title|desc|narr)\s*>", re.IGNORECASE)
_FIELD_PREFIX = {
    "num": re.compile(r"^\s*number\s*:\s*", re.IGNORECASE),
    "desc": re.compile(r"^\s*description\s*:\s*", re.IGNORECASE),
    "narr": re.compile(r"^\s*narrative\s*:\s*", re.IGNORECASE),
}


def read_topics(path: str | Path) -> dict[str, Topic]:
    """Read TREC topics (``<top><num><title><desc>...``, closing tags optional) or ``qid<TAB>query`` lines (a
    first line naming the columns, ``qid<TAB>query``, ``query_id<TAB>text``, ..., is a header: skipped, with a
    warning that says so and counts the topics); plain, gzip, bzip2 or xz, told by its bytes.

    Returns ``{qid: Topic}`` in file order. Raises IrfairInputError naming the line of any malformed topic.
    """
    lines = read_lines(path, "topics")
    if not any(_TOP_LINE.match(line) for line in lines):  # by structure: a line that opens a <top> block
        first = next((line for line in lines if line.strip()), "")
        if "\t" not in first and first.partition(",")[0].strip().strip('"').lower() in QID_HEADERS and "," in first:
            return _read_csv_topics(path, lines)  # a CSV export with its header: qid,query (pandas, ir_datasets)
        return _read_tsv_topics(path, lines)
    topics: dict[str, Topic] = {}
    fields: dict[str, list[str]] | None = None
    opened: set[str] = set()
    current: str | None = None
    start_line = 0
    for lineno, line in enumerate(lines, start=1):
        pos = 0
        for match in _TAG.finditer(line):
            if fields is not None and current is not None:
                fields[current].append(line[pos : match.start()])
            closing, tag = match.group(1) == "/", match.group(2).lower()
            pos = match.end()
            if tag == "top" and not closing:
                if fields is not None:
                    raise IrfairInputError(path, lineno, f"<top> opened before the topic of line {start_line} was closed with </top>")
                fields, current, start_line, opened = {"num": [], "title": [], "desc": [], "narr": []}, None, lineno, set()
            elif tag == "top":
                if fields is None:
                    raise IrfairInputError(path, lineno, "</top> without a matching <top>")
                topic = _topic_from_fields(path, start_line, fields)
                if topic.qid in topics:
                    raise IrfairInputError(path, start_line, f"topic {topic.qid} appears twice")
                topics[topic.qid] = topic
                fields, current = None, None
            elif fields is None:
                raise IrfairInputError(path, lineno, f"<{tag}> outside a <top> ... </top> block")
            elif not closing and tag in opened:
                raise IrfairInputError(path, lineno, f"<{tag}> appears twice in the topic of line {start_line}")
            else:
                current = None if closing else tag
                opened.add(tag)
        if fields is not None and current is not None:
            fields[current].append(line[pos:])
    if fields is not None:
        raise IrfairInputError(path, start_line, "topic opened with <top> is never closed with </top>")
    if not topics:
        raise IrfairInputError(path, None, "no topics found: expected TREC <top> blocks")
    return topics


def _topic_from_fields(path: str | Path, line: int, fields: dict[str, list[str]]) -> Topic:
    def clean(name: str) -> str:
        text = " ".join(" ".join(fields[name]).split())
        prefix = _FIELD_PREFIX.get(name)
        return prefix.sub("", text) if prefix else text

    qid = clean("num")
    if not qid or len(qid.split()) != 1:
        raise IrfairInputError(path, line, f"topic needs one query id in <num>, found {qid!r}")
    return Topic(qid=qid, title=clean("title"), description=clean("desc"))


# first fields of a header line of a qid<TAB>query file (any case): no topic file numbers its topics so
QID_HEADERS = frozenset({"qid", "query_id", "queryid", "query-id", "id", "topic", "topic_id", "topicid", "num", "number"})


def tsv_header(line: str) -> bool:
    """True when ``line`` is the header of a ``qid<TAB>query`` file: its first field is a column name of
    :data:`QID_HEADERS` (``qid``, ``query_id``, ``id``, ...)."""
    first = line.partition("\t")[0].strip().lower()
    return "\t" in line and first in QID_HEADERS


_TOP_LINE = re.compile(r"\s*<top\s*>", re.IGNORECASE)


def _read_tsv_topics(path: str | Path, lines: list[str]) -> dict[str, Topic]:
    """``qid<TAB>query`` lines; a header line (the first line, when it names the columns, and the same line repeated
    below, as ``cat`` of two files makes it) is skipped, with one warning that names them and counts the topics."""
    topics: dict[str, Topic] = {}
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    headers = []
    if first is not None and tsv_header(lines[first]):  # the header, and the same line again further down
        fields = lines[first].lower().split()
        headers = [i for i, line in enumerate(lines) if i == first or (tsv_header(line) and line.lower().split() == fields)]
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if lineno - 1 in headers:
            continue
        qid, sep, query = line.partition("\t")
        if not sep or not qid.strip():
            raise IrfairInputError(path, lineno, "expected TREC <top> blocks or 'qid<TAB>query' lines")
        qid = qid.strip()
        if qid in topics:
            raise IrfairInputError(path, lineno, f"topic {qid} appears twice")
        topics[qid] = Topic(qid=qid, title=" ".join(query.split()))
    if headers:
        names = " ".join(lines[headers[0]].split())
        if not topics:
            raise IrfairInputError(path, None, f"no topics: only the header line {names!r}; expected 'qid<TAB>query' lines below it")
        where = (f"line {headers[0] + 1} ({names!r}) read as a header, not a topic" if len(headers) == 1 else
                 f"{len(headers)} lines ({', '.join(str(i + 1) for i in headers[:5])}{', ...' if len(headers) > 5 else ''}; "
                 f"{names!r}) read as header lines, not topics")
        warnings.warn(IrfairWarning(f"{path}: {where}: {len(topics)} topic{'' if len(topics) == 1 else 's'}"), stacklevel=2)
    return topics


def _read_csv_topics(path: str | Path, lines: list[str]) -> dict[str, Topic]:
    """``qid,query`` CSV rows (quoted fields as CSV quotes them) under a header naming the columns (skipped, said in
    one warning with the count); the query is the second column."""
    import csv

    topics: dict[str, Topic] = {}
    numbered = [(lineno, line) for lineno, line in enumerate(lines, start=1) if line.strip()]
    header = numbered[0]
    for (lineno, _), row in zip(numbered[1:], csv.reader(line for _, line in numbered[1:])):
        if len(row) < 2 or not row[0].strip():
            raise IrfairInputError(path, lineno, f"expected 'qid,query' CSV rows under the header {header[1].strip()!r}")
        qid = row[0].strip()
        if qid in topics:
            raise IrfairInputError(path, lineno, f"topic {qid} appears twice")
        topics[qid] = Topic(qid=qid, title=" ".join(row[1].split()))
    if not topics:
        raise IrfairInputError(path, None, f"no topics: only the header line {header[1].strip()!r}; expected 'qid,query' rows below it")
    warnings.warn(IrfairWarning(f"{path}: line {header[0]} ({header[1].strip()!r}) read as the header of CSV topics: "
                                f"{len(topics)} topic{'' if len(topics) == 1 else 's'}"), stacklevel=3)
    return topics


def write_topics(path: str | Path, topics: Mapping[str, Topic]) -> None:
    """Write ``topics`` as TREC topics with title and description, atomically."""
    blocks = [
        f"<top>\n<num> Number: {t.qid}\n<title> {t.title}\n<desc> Description:\n{t.description}\n</top>\n"
        for t in topics.values()
    ]
    write_text(path, "\n".join(blocks))
