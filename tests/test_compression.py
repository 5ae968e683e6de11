"""Compressed inputs told by their first bytes: gzip, bzip2 and xz decoded, unix compress named, damage one line."""
import bz2
import gzip
import lzma

import pytest

from irfair.compression import compression_of, plain_name, read_bytes, sniff
from irfair.errors import IrfairInputError

TEXT = b"301 Q0 FBIS3-1 1 2.5 run\n" * 200
PACKED = {"gzip": gzip.compress(TEXT), "bzip2": bz2.compress(TEXT), "xz": lzma.compress(TEXT)}


def test_magic_numbers():
    # the leading bytes of each format's specification: RFC 1952 (1f 8b), bzip2 ("BZh", block size, "1AY&SY"), xz (fd '7zXZ' 00),
    # compress(1) (1f 9d)
    assert [sniff(data[:10]) for data in PACKED.values()] == ["gzip", "bzip2", "xz"]
    assert sniff(b"\x1f\x9d\x90abc") == "compress"
    assert sniff(b"301 Q0") is None and sniff(b"") is None and sniff(b"\x1f") is None
    assert sniff(b"BZh5 Q0 doc 1 2.0 run") is None  # a run whose first query id begins "BZh" is text
    assert sniff(bz2.compress(b"")) == "bzip2"  # an empty stream has its own magic


@pytest.mark.parametrize("kind", sorted(PACKED))
def test_every_kind_is_read_whatever_its_name(tmp_path, kind):
    for name in ("run.txt", "run.gz", "run"):  # the name never decides
        path = tmp_path / name
        path.write_bytes(PACKED[kind])
        assert compression_of(path) == kind
        assert read_bytes(path) == TEXT
    plain = tmp_path / "plain.gz"
    plain.write_bytes(TEXT)
    assert compression_of(plain) is None and read_bytes(plain) == TEXT


@pytest.mark.parametrize("kind", sorted(PACKED))
def test_truncated_and_damaged_streams_are_one_line(tmp_path, kind):
    path = tmp_path / "cut.run"
    path.write_bytes(PACKED[kind][: len(PACKED[kind]) // 2])
    with pytest.raises(IrfairInputError, match=r"cut\.run: damaged or truncated compressed file"):
        read_bytes(path)
    path.write_bytes(PACKED[kind][:10] + b"\x00" * 64)
    with pytest.raises(IrfairInputError, match="damaged or truncated compressed file"):
        read_bytes(path)


def test_unix_compress_is_named(tmp_path):
    path = tmp_path / "run.Z"
    path.write_bytes(b"\x1f\x9d\x90" + b"\x00" * 20)
    with pytest.raises(IrfairInputError, match=r"unix compress \(\.Z\) data: a run file must be plain, gzip, bzip2 or xz"):
        read_bytes(path, "run")


def test_plain_name():
    assert [plain_name(n) for n in ("bm25.run.gz", "a/qlm.txt.BZ2", "x.xz", "FB396001.0Z", "run.tar", ".gz")] == [
        "bm25.run", "qlm.txt", "x", "FB396001", "run.tar", ".gz"]
