"""Where an audit's numbers come from: irfair's version, the settings, the text pipeline and a fingerprint
of every input, recorded in ``audit.json`` and the HTML report.

Paths are recorded relative to the working folder (:func:`relative_path`), so an audit made in a checkout
reads the same on every machine.

Fingerprints: SHA-256 of a file's bytes (runs, qrels, topics given as files); SHA-256 of a canonical
text form for inputs given as Python objects; the corpus's own fingerprint (for files: path, size and
modification time of each file; see :mod:`irfair.corpus.base`); SHA-256 of the embedding's words and
float32 vectors.
"""
from __future__ import annotations

import datetime
import hashlib
import json
import os
import platform
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from .. import __version__
from ..cache.manifest import file_digest
from ..embeddings import Embeddings
from ..text import GENDERED_FUNCTION_WORDS, TOKENIZER_VERSION, default_stopwords
from ..trec import Run

DEPTH_RULES = {
    "auto": "auto: each query's lists are cut at K = its number of relevant documents (the perfect run's length)",
    "fixed": "{n}: every list is cut at {n} documents; the perfect run at min({n}, K)",
}
TOKENIZER_RULE = ("lower-case; every character that is not a letter or digit becomes a space; pieces of at least 2 "
                  "characters without digits are tokens")


def relative_path(path: str | Path | None) -> str | None:
    """``path`` relative to the working folder (``../shared/data/qrels``), as given when that fails (another drive)."""
    if path is None:
        return None
    try:
        return os.path.relpath(os.path.abspath(path))
    except ValueError:
        return str(path)


def relative_command_line(command_line: str | None) -> str | None:
    """A command line with every absolute path (alone or after ``--option=``) made relative, whether it exists
    yet or not (``--out`` is created by the command: the same command must give the same line)."""
    if not command_line:
        return command_line
    words = []
    for word in shlex.split(command_line):
        option, equals, value = word.partition("=") if word.startswith("--") else ("", "", word)
        if os.path.isabs(value):
            value = relative_path(value)
        words.append(f"{option}{equals}{value}")
    return shlex.join(words)


def sha256_text(text: str) -> str:
    """SHA-256 (hex) of UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _mapping_fingerprint(value) -> str:
    return sha256_text(json.dumps(value, sort_keys=True, default=str, ensure_ascii=False))


def source_fingerprint(source, parsed: Mapping) -> dict:
    """``{"path", "sha256"}`` of a qrels/topics input: a file's bytes; otherwise (an ir_datasets id, a mapping,
    a frame) the canonical JSON of what was read from it, ``parsed``, with the id as its path."""
    if isinstance(source, (str, Path)) and Path(source).is_file():
        return {"path": relative_path(source), "sha256": file_digest(Path(source))}
    return {"path": str(source) if isinstance(source, (str, Path)) else None, "sha256": _mapping_fingerprint(parsed)}


def run_fingerprint(run: Run) -> dict:
    """``{"name", "path", "sha256"}`` of a run: its file's bytes, or its ranked lists when it has no file."""
    if run.path and Path(run.path).is_file():  # the digest taken when the file was read, when it was
        return {"name": run.name, "path": relative_path(run.path), "sha256": run.sha256 or file_digest(Path(run.path))}
    lines = "\n".join(f"{qid} {doc} {score!r}" for qid, hits in run.ranking.items() for doc, score in hits)
    return {"name": run.name, "path": None, "sha256": sha256_text(lines)}


def embeddings_fingerprint(embeddings: Embeddings) -> dict:
    """Name, size and SHA-256 of the words and float32 vectors of an embedding set."""
    digest = hashlib.sha256("\n".join(embeddings.words).encode("utf-8"))
    digest.update(np.ascontiguousarray(embeddings.vectors, dtype=np.float32).tobytes())
    return {"name": embeddings.name, "n_words": len(embeddings), "dim": embeddings.dim, "sha256": digest.hexdigest()}


def stoplist_record(stopwords: frozenset[str]) -> dict:
    """The stoplist used: whether it is irfair's built-in one, its size, SHA-256 and the gendered words kept."""
    words = sorted(stopwords)
    return {
        "name": "irfair built-in English stoplist" if stopwords == default_stopwords() else "custom",
        "n_words": len(words),
        "sha256": sha256_text("\n".join(words)),
        "gendered_words_kept": sorted(GENDERED_FUNCTION_WORDS - stopwords),
    }


def depth_rule(depth: str | int) -> str:
    """The depth rule in words."""
    return DEPTH_RULES["auto"] if depth == "auto" else DEPTH_RULES["fixed"].format(n=depth)


def provenance(*, depth: str | int, query_field: str, inference: dict, measures: Sequence[str],
               random_pool_size: int | None, stopwords: frozenset[str] | None, inputs: dict) -> dict:
    """The provenance record of an audit (``command_line`` is filled in by the command line); ``inference``:
    the resampling setting (seed, n_bootstrap, n_permutations, correction, alpha, ...)."""
    return {
        "irfair_version": __version__,
        "python_version": platform.python_version(),
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command_line": None,
        "seed": inference["seed"],
        "n_bootstrap": inference["n_bootstrap"],
        "n_permutations": inference["n_permutations"],
        "correction": inference["correction"],
        "alpha": inference["alpha"],
        "measures": list(measures),
        "depth": depth,
        "depth_rule": depth_rule(depth),
        "query_field": query_field,
        "random_baseline": None if random_pool_size is None else (
            f"per query, K documents drawn without replacement from all {random_pool_size} documents of the corpus "
            "(sorted by id), generator seeded by (seed, CRC-32 of the query id)"),
        "stoplist": None if stopwords is None else stoplist_record(stopwords),  # None: no document read
        "tokenizer": None if stopwords is None else {"version": TOKENIZER_VERSION, "rule": TOKENIZER_RULE},
        "inputs": inputs,
    }
