"""``irfair genderedness``: g(w) of words, or the most female and most male queries of a topics file."""
from __future__ import annotations

import argparse
import math

from . import options

HELP = "most female/male queries of a topics file, or g(w) of given words"


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("words", nargs="*", help="words to score (instead of --topics)")
    p.add_argument("--topics", help="TREC topics file")
    options.add_query_field(p)
    p.add_argument("--top", type=int, default=10, help="how many queries to list at each end")
    options.add_embeddings(p)
    options.add_cache(p)


def run(args: argparse.Namespace) -> int:
    from ..cache import resolve_cache_dir
    from ..embeddings import load_embeddings
    from ..errors import IrfairInputError
    from ..gender.direction import gender_direction
    from ..gender.genderedness import queries_by_genderedness
    from ..trec import read_topics

    if not args.words and not args.topics:
        raise IrfairInputError(None, None, "give words to score or --topics FILE")
    emb = load_embeddings(args.embeddings, resolve_cache_dir(options.cache_dir(args)))
    direction = gender_direction(emb)
    print(f"# {emb.name}: gender direction from {len(direction.pairs_used)} pairs, "
          f"explained variance {direction.explained_variance_ratio:.3f}; g > 0 female, g < 0 male")
    if args.words:
        for word, value in zip(args.words, direction.word_genderedness(emb, [w.lower() for w in args.words])):
            print(f"{word}\t{'OOV' if math.isnan(value) else f'{value:+.4f}'}")
        return 0
    topics = read_topics(args.topics)
    scored, unscored = queries_by_genderedness(emb, direction, {q: t.text(args.query_field) for q, t in topics.items()})
    top = max(1, args.top)
    print(f"# most female queries ({len(scored)} scored, {unscored} with no in-vocabulary term)")
    for value, qid, text in reversed(scored[-top:]):
        print(f"{qid}\t{value:+.4f}\t{text}")
    print("# most male queries")
    for value, qid, text in scored[:top]:
        print(f"{qid}\t{value:+.4f}\t{text}")
    return 0
