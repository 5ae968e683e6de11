"""Compressed corpus files: unix ``compress`` decoding checked against an independent encoder and a second
decoder (unlzw3, installed with the ``datasets`` extra); damaged or truncated files give one line naming
the file, for every reader."""
import gzip
import json
import random

import pytest
from disks45_tree import compress_z

from irfair.corpus import open_corpus
from irfair.corpus.compressed import compression_of, read_bytes, unlzw
from irfair.errors import IrfairInputError

unlzw3 = pytest.importorskip("unlzw3")


def _samples() -> list[bytes]:
    rng = random.Random(7)
    words = [bytes(rng.choice(b"abcdefgh ") for _ in range(rng.randint(1, 7))) for _ in range(500)]
    return [
        b"a",
        b"ab" * 300,  # repeats: the string-plus-its-first-byte code appears
        b" ".join(rng.choice(words) for _ in range(40_000)),  # text: the width grows past 9 bits
        bytes(rng.randrange(256) for _ in range(150_000)),  # noise: 16-bit codes and a full table
    ]


@pytest.mark.parametrize("index", range(4))
def test_unlzw_inverts_compress_and_agrees_with_unlzw3(index):
    data = _samples()[index]
    packed = compress_z(data)
    assert packed[:3] == b"\x1f\x9d\x90"
    assert unlzw(packed) == data
    assert unlzw3.unlzw(packed) == data


def test_unlzw_rejects_damage():
    packed = compress_z(b"abracadabra " * 200)
    with pytest.raises(IrfairInputError, match="not a unix compress file"):
        unlzw(b"\x1f\x8b\x08" + packed[3:], "x.Z")
    with pytest.raises(IrfairInputError, match=r"x\.Z: damaged or truncated .*header flags"):
        unlzw(packed[:2] + b"\xff" + packed[3:], "x.Z")
    with pytest.raises(IrfairInputError, match="invalid code"):
        unlzw(packed[:3] + b"\xff\xff\xff\xff" + packed[7:], "x.Z")


def test_compression_by_bytes_not_by_name(tmp_path):
    import bz2
    import lzma

    contents = {"gzip": gzip.compress(b"x"), "bzip2": bz2.compress(b"x"), "xz": lzma.compress(b"x"),
                "compress": compress_z(b"x"), None: b"<DOC>"}
    found = {}
    for kind, data in contents.items():
        for name in ("a.gz", "FB396001.Z", "LA010189", "a.zip"):  # the name never decides
            (tmp_path / name).write_bytes(data)
            found.setdefault(kind, set()).add(compression_of(tmp_path / name))
    assert found == {kind: {kind} for kind in contents}


DOC = "<DOC>\n<DOCNO> {1}{0} </DOCNO>\n<TEXT>\nthe nurse said she was tired {0}\n</TEXT>\n</DOC>\n"


def test_trec_files_in_every_compression(tmp_path):
    def text(prefix):
        return "".join(DOC.format(i, prefix) for i in range(3))

    (tmp_path / "plain").write_text(text("D"))
    (tmp_path / "b.gz").write_bytes(gzip.compress(text("G").encode()))
    (tmp_path / "c.0Z").write_bytes(compress_z(text("Z").encode()))
    docs = dict(open_corpus(tmp_path).iter_docs())
    assert sorted(docs) == ["D0", "D1", "D2", "G0", "G1", "G2", "Z0", "Z1", "Z2"]
    assert docs["Z1"] == " the nurse said she was tired 1"  # no title field: an empty title, then the body
    assert read_bytes(tmp_path / "c.0Z") == text("Z").encode()


def _truncated_gzip(data: bytes) -> bytes:
    packed = gzip.compress(data)
    return packed[: len(packed) * 2 // 3]


@pytest.mark.parametrize("name", ["docs.trec.gz", "docs.jsonl.gz", "docs.Z", "folder/FB1.Z"])
def test_truncated_compressed_corpus_names_the_file(tmp_path, name):
    path = tmp_path / name
    path.parent.mkdir(exist_ok=True)
    if name.endswith("jsonl.gz"):
        data = "".join(json.dumps({"id": f"d{i}", "contents": f"word {i} " * 50}) + "\n" for i in range(200)).encode()
    else:
        data = "".join(DOC.format(i, "D") for i in range(400)).encode()
    if name.endswith(".gz"):
        path.write_bytes(_truncated_gzip(data))
    else:
        packed = compress_z(data)
        path.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(IrfairInputError) as info:
        list(open_corpus(path if "/" not in name else path.parent).iter_docs())
    assert info.value.path == str(path)
    assert "truncated" in info.value.expected or "never closed" in info.value.expected
