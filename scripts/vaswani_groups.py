"""Write ``runs/vaswani/groups.jsonl``: document groups for the exposure measures' example with ``--document-groups``
(not a test). Vaswani's physics abstracts carry no gender labels, so this file stands in for one a user would give
(TREC Fair Ranking 2022 distributes its page groups as such JSONL): a document is labelled ``female`` when it holds
a female word of Rekabsaz et al.'s 2021 list (NFaiRR's), ``male`` when it holds a male one, both when it holds
both (a document in two groups counts fully in each); documents without any are left out, so the audit puts them
in ``unknown``. Run from the checkout: ``.venv/bin/python scripts/vaswani_groups.py``.
"""
from __future__ import annotations

import json
from pathlib import Path

from irfair.cache import writable_cache_dir
from irfair.corpus import TermStore, open_corpus
from irfair.measures.gender_counts import word_indicators
from irfair.measures.gender_words import load_gender_words

CORPUS = Path("../shared/data/vaswani/corpus")
OUT = Path("runs/vaswani/groups.jsonl")


def main() -> None:
    corpus = open_corpus(CORPUS)
    store = TermStore.for_corpus(corpus, writable_cache_dir(None))
    store.ensure(corpus, None, progress=False)
    words = load_gender_words("rekabsaz2021")
    ids = sorted(store.doc_ids, key=lambda d: (len(d), d))
    rows = store.doc_rows(ids)
    order = rows.argsort(kind="stable")
    sums = store.term_sums(word_indicators(store.vocab, words), rows[order])
    lines = []
    for (female, male), doc in zip(sums, [ids[i] for i in order]):
        labels = [label for label, count in (("female", female), ("male", male)) if count > 0]
        if labels:
            lines.append((doc, json.dumps({"doc_id": doc, "gender": labels})))
    lines.sort(key=lambda item: (len(item[0]), item[0]))
    OUT.write_text("".join(line + "\n" for _, line in lines), encoding="utf-8")
    print(f"wrote {OUT}: {len(lines)} of {len(ids)} documents labelled")


if __name__ == "__main__":
    main()
