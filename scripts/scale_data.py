"""Robust04- or MS MARCO-sized synthetic test data for ``scripts/bench_scale.py`` (not a test; no real documents).

``--size msmarco`` (and ``--fraction``): MS MARCO passage's shape instead — 8,841,823 passages of ~56 words,
6,980 queries (the dev set's), ~1.1 relevant passage per query and no judged non-relevant one, 10 runs at depth
1000 (70 M run lines at the full size). The rest of this text describes the Robust04 size.

Documents: 528,155 (Robust04's count) as JSONL (and, for the SGML reader, the same documents as TREC SGML
with Robust04's markup: LA Times-style fields, paragraphs, character references, Federal Register
comments; see :func:`write_sgml`), lengths drawn from a log-normal distribution with
Robust04's mean of about 480 words (median ~350, long tail), words drawn Zipf-like (exponent ~1.07)
from the GoogleNews subset's lower-case words, so that embeddings cover them and some are gendered.
Topics: 249 (Robust04's judged topics) of 3 mid-frequency words each. Qrels: ~70 relevant documents per
topic (Robust04's 17,412 over 249). Runs: 18 at depth 1000, each query's list drawn from a pool of
documents shared by the runs (so that the audit's pool resembles real runs'), in a run-specific order.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

ROBUST04_DOCS = 528_155
ROBUST04_TOPICS = 249
MEAN_WORDS = 480
# each size: documents, topics, runs, mean words per document, lognormal sigma of the lengths, qrels shape
SIZES = {
    "robust04": {"docs": ROBUST04_DOCS, "topics": ROBUST04_TOPICS, "runs": 18, "mean_words": MEAN_WORDS, "sigma": 0.8,
                 "qrels": "pooled"},
    "msmarco": {"docs": 8_841_823, "topics": 6_980, "runs": 10, "mean_words": 56, "sigma": 0.5, "qrels": "sparse"},
}


def scaled(size: str, fraction: float) -> dict:
    """The settings of ``size`` with its documents and topics multiplied by ``fraction`` (runs and depth kept)."""
    out = dict(SIZES[size])
    out["docs"] = max(1000, round(out["docs"] * fraction))
    out["topics"] = max(10, round(out["topics"] * fraction))
    return out


def vocabulary() -> list[str]:
    """Lower-case alphabetic words of the w2v-gnews-26k subset, in its (frequency) order."""
    from irfair.embeddings import load_embeddings

    seen, words = set(), []
    for word in load_embeddings("w2v-gnews-26k").words:
        lower = word.lower()
        if lower.isalpha() and lower.isascii() and len(lower) > 1 and lower not in seen:
            seen.add(lower)
            words.append(lower)
    return words


def write_corpus(path: Path, n_docs: int, words: list[str], seed: int = 0, mean_words: int = MEAN_WORDS,
                 sigma: float = 0.8) -> int:
    """Write ``n_docs`` JSONL documents; returns the bytes written. Documents are made of 8-word phrases
    drawn from a pool, which keeps generation fast while word frequencies stay Zipf-like."""
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, len(words) + 1, dtype=np.float64)
    probabilities = ranks ** -1.07
    probabilities /= probabilities.sum()
    phrase_ids = rng.choice(len(words), size=(200_000, 8), p=probabilities)
    phrases = [" ".join(words[i] for i in row) for row in phrase_ids]
    lengths = np.maximum(8, rng.lognormal(np.log(mean_words), sigma, size=n_docs)).astype(np.int64)
    lengths = np.maximum(8, lengths * mean_words / lengths.mean()).astype(np.int64)
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        for start in range(0, n_docs, 10_000):
            block = []
            for i in range(start, min(n_docs, start + 10_000)):
                picks = rng.integers(0, len(phrases), size=max(1, lengths[i] // 8))
                text = " ".join(phrases[j] for j in picks)
                block.append(json.dumps({"id": f"DOC{i:07d}", "contents": text}) + "\n")
            chunk = "".join(block)
            out.write(chunk)
            written += len(chunk)
    return written


def write_sgml(jsonl: Path, path: Path, limit_bytes: float | None = None) -> int:
    """The documents of ``jsonl`` as TREC SGML in Robust04's markup (fields ``DATE``, ``HEADLINE`` and
    ``TEXT`` with ``<P>`` paragraphs, a ``BYLINE`` that is not text, a character reference in every fifth
    paragraph, a Federal Register comment in every tenth document), until ``limit_bytes`` are written;
    returns the bytes written."""
    written = 0
    with open(jsonl, encoding="utf-8") as source, open(path, "w", encoding="utf-8") as out:
        for number, line in enumerate(source):
            record = json.loads(line)
            words = record["contents"].split(" ")
            paragraphs = [" ".join(words[i:i + 60]) for i in range(8, len(words), 60)]
            body = "".join(f"<P>\n{text}{' &amp; co.' if k % 5 == 4 else ''}\n</P>\n" for k, text in enumerate(paragraphs))
            comment = "<!-- PJG FTAG 4700 -->\n" if number % 10 == 0 else ""
            document = (f"<DOC>\n<DOCNO> {record['id']} </DOCNO>\n<DOCID> {number} </DOCID>\n<DATE>\n<P>\nJanuary 1, 1989, "
                        f"Sunday, Home Edition\n</P>\n</DATE>\n<HEADLINE>\n<P>\n{' '.join(words[:8])}\n</P>\n</HEADLINE>\n"
                        f"<BYLINE>\n<P>\nBy A. Reporter\n</P>\n</BYLINE>\n{comment}<TEXT>\n{body}</TEXT>\n</DOC>\n")
            out.write(document)
            written += len(document)
            if limit_bytes is not None and written >= limit_bytes:
                break
    return written


def write_collection(folder: Path, n_docs: int = ROBUST04_DOCS, n_topics: int = ROBUST04_TOPICS, n_runs: int = 18,
                     depth: int = 1000, seed: int = 0, mean_words: int = MEAN_WORDS, sigma: float = 0.8,
                     qrels: str = "pooled") -> dict[str, object]:
    """Corpus, topics, qrels and runs under ``folder``; returns their paths. ``qrels``: ``pooled`` (200 judged
    per topic, 35 % relevant, as Robust04) or ``sparse`` (1 relevant, 2 for one query in ten, none judged
    non-relevant, as MS MARCO)."""
    folder.mkdir(parents=True, exist_ok=True)
    words = vocabulary()
    rng = np.random.default_rng(seed)
    paths = {"corpus": folder / "corpus.jsonl", "topics": folder / "topics.tsv", "qrels": folder / "qrels.txt", "runs": []}
    if not paths["corpus"].is_file():
        start = time.perf_counter()
        size = write_corpus(paths["corpus"], n_docs, words, seed, mean_words, sigma)
        print(f"corpus: {n_docs:,} documents, {size / 1e6:,.0f} MB in {time.perf_counter() - start:.0f} s")
    qids = [str(301 + i) for i in range(n_topics)]
    mid = words[200:5000]
    paths["topics"].write_text("".join(f"{q}\t{' '.join(rng.choice(mid, 3, replace=False))}\n" for q in qids))
    pools = {q: rng.choice(n_docs, size=min(n_docs, 3 * depth), replace=False) for q in qids}
    with open(paths["qrels"], "w") as out:
        for q in qids:
            judged = pools[q][:200] if qrels == "pooled" else pools[q][:1 + int(rng.random() < 0.1)]
            relevant = rng.random(len(judged)) < 0.35 if qrels == "pooled" else np.ones(len(judged), dtype=bool)
            out.writelines(f"{q} 0 DOC{d:07d} {int(r)}\n" for d, r in zip(judged, relevant))
    for r in range(n_runs):
        run_path = folder / f"run{r:02d}.run"
        paths["runs"].append(run_path)
        if run_path.is_file():
            continue
        lines = []
        for q in qids:
            docs = rng.permutation(pools[q])[:depth]
            scores = np.sort(rng.random(depth))[::-1] * 20
            lines.extend(f"{q} Q0 DOC{d:07d} {k + 1} {s:.6f} run{r:02d}\n" for k, (d, s) in enumerate(zip(docs, scores)))
        run_path.write_text("".join(lines))
    return paths


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--size", choices=sorted(SIZES), default="robust04")
    parser.add_argument("--fraction", type=float, default=1.0, help="of the size's documents and topics")
    args = parser.parse_args()
    shape = scaled(args.size, args.fraction)
    write_collection(args.folder, shape["docs"], shape["topics"], shape["runs"], mean_words=shape["mean_words"],
                     sigma=shape["sigma"], qrels=shape["qrels"])
