"""The lines of a TREC text file (topics, qrels, runs, word lists), read strictly: UTF-8 (a leading byte-order
mark, as Windows editors write, is dropped), not empty; gzip, bzip2 or xz data is decompressed first, recognised
by its bytes (:mod:`irfair.compression`)."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from ..compression import BLOCK, line_blocks
from ..errors import IrfairInputError

BOM = "\ufeff"


def iter_lines(path: str | Path, what: str, block: int = BLOCK) -> Iterator[str]:
    """The lines of ``path``, a ``what`` file, one at a time as they are decompressed and decoded (memory holds one
    block of the file, never the whole: an error on line 2 of a huge file is said at once), without a leading UTF-8
    byte-order mark (kept, it would join the first line's first field: query 1 read as U+FEFF followed by 1); the
    lines are those of ``str.splitlines``; ``block``: bytes decoded at a time (a small one to look at the first lines
    only). IrfairInputError when missing, damaged, not UTF-8 (naming the line) or blank."""
    file = Path(path)
    if file.is_dir():
        raise IrfairInputError(file, None, f"is a folder, expected a {what} file")
    if not file.exists():  # a pipe (`<(zcat run.gz)`) or a device is read as it comes
        raise IrfairInputError(file, None, f"{what} file not found")
    before, first, blank = 0, True, True
    for data in line_blocks(file, what, block):  # each block ends after a \n: its lines are the file's lines
        try:
            text = data.decode("utf-8", errors="strict")
        except UnicodeDecodeError as exc:
            raise IrfairInputError(file, before + data[: exc.start].count(b"\n") + 1, f"{what} file must be UTF-8 text") from None
        before += data.count(b"\n")
        if first:
            text, first = text.removeprefix(BOM), False
        blank = blank and not text.strip()
        yield from text.splitlines()
    if blank:
        raise IrfairInputError(file, None, f"empty {what} file")


def read_lines(path: str | Path, what: str) -> list[str]:
    """Every line of ``path`` at once (:func:`iter_lines`), for files that are read whole anyway (topics, word lists)."""
    return list(iter_lines(path, what))


def checked_rows(path: str | Path, what: str, columns: str, trailing: bool = False,
                 comment: str | None = None) -> Iterator[tuple[int, list[str]]]:
    """``(line number, fields)`` of every non-blank line, each checked to have the named columns (and, with
    ``trailing``, any text after them, which is dropped). ``comment``: ``"first"`` skips a line whose first
    character is '#' (trec_eval 10's qrels), ``"blank"`` one whose first non-blank character is (its runs)."""
    expected = len(columns.split())
    first = True
    for lineno, line in enumerate(iter_lines(path, what), start=1):
        if comment == "first" and line.startswith("#") or comment == "blank" and line.lstrip().startswith("#"):
            continue
        parts = line.split()
        if parts and (len(parts) < expected if trailing else len(parts) != expected):
            raise IrfairInputError(path, lineno, f"expected {expected} columns '{columns}', found {len(parts)}"
                                                 + line_hint(what, parts, first))
        if parts:
            first = False
            yield lineno, parts[:expected]


# words that name the columns of a TREC file, or of a pandas/CSV export of one (any case)
_HEADER_WORDS = frozenset({"qid", "query", "query_id", "queryid", "topic", "q0", "iter", "iteration", "docid", "doc_id", "docno",
                           "document", "pid", "rank", "score", "tag", "run", "runid", "grade", "rel", "relevance", "label"})


def line_hint(what: str, parts: Sequence[str], first: bool) -> str:
    """``; it looks like …`` saying what a line that cannot be read looks like, when it is something a user would know:
    a header line (at the top of the file), the other kind of file (run and qrels swapped); else ``''``."""
    if first and sum(part.lower() in _HEADER_WORDS for part in parts) >= 2:
        return "; it looks like a header line naming the columns: remove it"
    if what == "run" and len(parts) == 4 and parts[3].lstrip("-").isdigit():
        return "; it looks like a qrels line 'qid iter doc_id grade': were the run and --qrels swapped?"
    if what == "qrels" and len(parts) >= 6 and parts[1].upper() == "Q0":
        return "; it looks like a run line 'qid Q0 doc_id rank score tag': were --qrels and the run swapped?"
    return ""
