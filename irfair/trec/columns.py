"""Column files (TREC runs and qrels) read at C speed: the file is parsed by Arrow's CSV reader, block by block as
it is decompressed, into typed arrays and validated on the arrays. Line numbers are only needed to report an error: whenever the
fast reading is not certain the file is well-formed (an odd column count, a value that does not parse,
a duplicate, non-UTF-8 bytes), it returns None and the caller reads the file line by line, which names
the line at fault. So both paths accept exactly the same files and give the same result.
"""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from ..compression import line_blocks
from ..errors import IrfairInputError

# line breaks of str.splitlines() other than \n (and \r\n): the line-by-line reader would count lines differently
_OTHER_BREAKS = (b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")
# blanks other than spaces (most files have none, and are not rewritten)
_OTHER_BLANKS = (b"\t", b"\x1f")


def _block_bytes(data: bytes) -> bytes | None:
    """One block of the file (whole lines) with \r\n read as \n, runs of tabs and \x1f made one space; None when it
    holds non-ASCII bytes or line breaks other than \n and \r\n."""
    if not data.isascii():
        return None
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
    if any(mark in data for mark in _OTHER_BREAKS):
        return None
    if any(mark in data for mark in _OTHER_BLANKS):
        data = _normalised(data)
    return data


_BLANK_TABLE = bytes.maketrans(b"\t\x1f", b"  ")


def _normalised(data: bytes) -> bytes:
    """``data`` with every run of blanks made one space and no blank at a line's ends, in a few vectorised passes
    (a regular expression's substitution would hold one object per blank: 50 times the block's size)."""
    data = data.translate(_BLANK_TABLE)
    if b"  " not in data and b" \n" not in data and b"\n " not in data and data[:1] != b" " and data[-1:] != b" ":
        return data
    text = np.frombuffer(data, dtype=np.uint8)
    space = text == 32
    after = np.r_[text[1:], 10]  # the end of the data ends a line
    text = text[~(space & ((after == 32) | (after == 10)))]  # a run keeps its last blank, none before a line's end
    before = np.r_[10, text[:-1]]
    return text[~((text == 32) & (before == 10))].tobytes()  # nor at a line's start


def _line_numbers(data: bytes) -> np.ndarray:
    """1-based numbers of the non-empty lines of ``data`` (the rows Arrow reads), shape (n_rows,)."""
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    if not data.endswith(b"\n"):
        ends = np.r_[ends, len(data)]
    starts = np.r_[0, ends[:-1] + 1]
    return np.flatnonzero(ends > starts) + 1


def read_columns(path: str | Path, names: tuple[str, ...], types: dict[str, str], unique: tuple[str, str] | None = None):
    """``(pyarrow Table, line numbers)`` of the file's columns (``types``: column → ``string``, ``int64`` or
    ``float64``; line numbers: array of int64, one per row), or None when the file is not certainly
    well-formed (see the module docstring). The file is read block by block as it is decompressed, so memory
    holds the parsed columns and one block, never the file's text; ``unique``: two columns whose pairs must not
    repeat, checked in the first rows as soon as they are read, so a file of one line repeated is given to the line
    reader (which names line 2) before more of it is parsed."""
    import pyarrow as pa

    path = Path(path)
    if not path.is_file():  # a pipe can be read once only: by the line reader, which names any fault
        return None
    tables, lines, before = [], [], 0
    try:
        for block in line_blocks(path):
            data = _block_bytes(block)
            if data is None:
                return None
            if data.isspace():
                before += block.count(b"\n")
                continue
            read = _parsed_block(data, names, types)
            if read is None:
                return None
            table, data = read
            if unique is not None and not tables and _repeats(table.slice(0, 10_000), unique):  # the first rows: cheap,
                return None  # and enough for a file of one line repeated (a repeat further down is found once it is read)
            tables.append(table)
            lines.append(_line_numbers(data) + before)
            if len(lines[-1]) != table.num_rows:
                return None
            before += block.count(b"\n")
    except IrfairInputError:
        return None  # the line reader names the problem
    if not tables or sum(t.num_rows for t in tables) == 0:
        return None
    return pa.concat_tables(tables), np.concatenate(lines)


def _repeats(table, columns: tuple[str, str]) -> bool:
    """Whether a pair of values of ``columns`` occurs twice in ``table`` (a few thousand rows: Python's set is quick,
    and Arrow's group_by would load pandas)."""
    pairs = list(zip(table.column(columns[0]).to_pylist(), table.column(columns[1]).to_pylist()))
    return len(set(pairs)) < len(pairs)


def _parsed_block(data: bytes, names: tuple[str, ...], types: dict[str, str]):
    """``(table, the bytes it was read from)`` of one block, or None when it is not certainly well-formed."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as csv

    arrow_types = {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64()}

    def parsed(text: bytes):
        try:
            return csv.read_csv(
                io.BytesIO(text),
                read_options=csv.ReadOptions(column_names=list(names), block_size=1 << 24),
                parse_options=csv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False,
                                               newlines_in_values=False, ignore_empty_lines=True),
                convert_options=csv.ConvertOptions(column_types={n: arrow_types[types.get(n, "string")] for n in names},
                                                   strings_can_be_null=False, quoted_strings_can_be_null=False,
                                                   null_values=[], true_values=[], false_values=[]),
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return None

    # most files have one space between fields and none at a line's ends: read as they are. A stray space adds a
    # field, so such a file fails (then it is read again with its blanks made regular), or, where a field is missing
    # too, gives an empty field (then the regular text has too few fields: the line reader names the line)
    table = parsed(data)
    if table is None:
        regular = _normalised(data)
        if regular == data:
            return None
        data, table = regular, parsed(regular)
        if table is None:
            return None
    elif any(pc.min(pc.binary_length(table.column(n))).as_py() == 0 for n in names if types.get(n, "string") == "string"):
        return None
    return table, data


def numbers(values, fill: int | float | None = None) -> np.ndarray:
    """A pyarrow array (or chunked array) of numbers as a numpy array, read from its buffer: pyarrow's own ``to_numpy``
    imports pandas (0.2 s, and as long again to unload at exit), which reading a run does not need. Nulls become
    ``fill`` (read from the validity bitmap: ``pc.fill_null`` with a Python number imports pandas too, as ``pa.scalar``
    does); without ``fill``, an array with nulls goes through ``to_numpy``."""
    import pyarrow as pa

    array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    if array.null_count and fill is None or not pa.types.is_integer(array.type) and not pa.types.is_floating(array.type):
        return array.to_numpy(zero_copy_only=False)
    dtype = np.dtype(array.type.to_pandas_dtype())
    out = np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array) + array.offset)[array.offset:]
    if array.null_count:
        bits = np.unpackbits(np.frombuffer(array.buffers()[0], dtype=np.uint8), bitorder="little")
        out = out.copy()
        out[~bits[array.offset:array.offset + len(array)].astype(bool)] = fill
    return out


def arrow_indices(indices: np.ndarray):
    """Row numbers (a numpy array) as a pyarrow int64 array, wrapping its buffer (pyarrow converts a numpy array
    through pandas)."""
    import pyarrow as pa

    indices = np.ascontiguousarray(indices, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(indices), [None, pa.py_buffer(indices)])


def string_array(strings: list[str]):
    """Python strings as a pyarrow string array, built from their UTF-8 bytes and offsets: ``pa.array`` of a list
    imports pandas (0.2 s, and as long again to unload at exit) to look for pandas objects in it."""
    import pyarrow as pa

    encoded = [text.encode("utf-8") for text in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    if offsets[-1] < 2**31:
        return pa.Array.from_buffers(pa.string(), len(encoded), [None, pa.py_buffer(offsets.astype(np.int32)),
                                                                 pa.py_buffer(b"".join(encoded))])
    return pa.Array.from_buffers(pa.large_string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def string_parts(strings) -> list[np.ndarray] | None:
    """A pyarrow string array's content as two numpy views, ``[offsets from 0, UTF-8 bytes]``, for a digest: equal
    strings in equal order give equal arrays, however the array was made or sliced. None for an array with nulls or of
    another layout (a chunked array, string views)."""
    import pyarrow as pa

    if not isinstance(strings, pa.Array) or strings.null_count or not (pa.types.is_string(strings.type)
                                                                        or pa.types.is_large_string(strings.type)):
        return None
    _, offsets, data = strings.buffers()
    kind = np.int32 if pa.types.is_string(strings.type) else np.int64
    offsets = np.frombuffer(offsets, dtype=kind, count=len(strings) + 1 + strings.offset)[strings.offset:]
    content = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, dtype=np.uint8)
    return [(offsets - offsets[0]).astype(np.int64), content[offsets[0]:offsets[-1]]]
