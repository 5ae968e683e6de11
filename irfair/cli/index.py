"""``irfair index``: tokenise a corpus into the cache, build its Lucene index and document vectors; or, with
``--pyserini-index DIR``, build a pyserini/Anserini TrecCollection index of it (Java from irfair's install)."""
from __future__ import annotations

import argparse

from . import options

PARALLEL = True
HELP = "tokenise a corpus into the cache, build its Lucene index and document vectors (or a pyserini index)"
EXAMPLE = """example (from the checkout, with ../shared/data beside it):
  irfair index --corpus ../shared/data/vaswani/corpus --embeddings w2v-gnews-26k"""


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--corpus", required=True, help="TREC SGML/JSONL file or folder, .txt folder or ir_datasets id")
    p.add_argument("--embeddings", action="append", default=None,
                   help="also build add/si document vectors for this embedding set (repeatable)")
    p.add_argument("--no-lucene", action="store_true", help="skip the Lucene index")
    p.add_argument("--pyserini-index", metavar="DIR", default=None,
                   help="only build a pyserini TrecCollection index (raw, positions, document vectors) of the corpus in DIR "
                        "(new or empty), holding irfair's text of each document; use it as --index or --corpus")
    p.add_argument("--threads", type=options.positive_int, default=2, help="threads for the Lucene indexer")
    options.add_cache(p, no_cache=False)


def run(args: argparse.Namespace) -> int:
    if args.pyserini_index is not None:
        from ..corpus import open_corpus
        from ..corpus.pyserini_index import build_trec_index, check_target

        check_target(args.pyserini_index)
        count = build_trec_index(open_corpus(args.corpus), args.pyserini_index, threads=args.threads, progress=options.progress(args))
        print(f"pyserini index: {count} documents in {args.pyserini_index}")
        return 0
    from ..rankers.prepare import prepare_corpus

    options.check_paths(args)
    prepared = prepare_corpus(args.corpus, embeddings=args.embeddings or (), lucene=not args.no_lucene, threads=args.threads,
                              cache_dir=options.cache_dir(args), progress=options.progress(args))
    store = prepared.store
    print(f"term store: {len(store)} documents, {len(store.vocab)} terms in {store.folder}")
    if prepared.lucene_index is not None:
        print(f"Lucene index: {prepared.lucene_index}")
    for name, n_docs, dim, without in prepared.document_vectors:
        print(f"document vectors {name}: {n_docs} × {dim} ({without} without a vector)")
    return 0
