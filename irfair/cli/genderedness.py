"""``irfair genderedness``: g(w) of words, or the most female and most male queries of a topics file."""
from __future__ import annotations

import argparse

from ..numbers import finite_or_none, fixed
from ..trec import QUERY_FIELDS
from . import options

HELP = "g(w) of given words, or the most female/male queries of a topics file"
EXAMPLE = """examples:
  irfair genderedness nurse carpenter she                 # g(w) of words: female > 0 > male
  irfair genderedness --topics ../shared/data/robust04/topics.robust04.txt --top 5"""
DEFAULT_TOP = 10


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("words", nargs="*", help="words to score (or give --topics instead)")
    p.add_argument("--topics", help="TREC topics file whose queries to rank by g(q) (instead of words)")
    p.add_argument("--query-field", choices=QUERY_FIELDS, default=None,
                   help="topic field used as the query, with --topics (default title)")
    p.add_argument("--top", type=options.positive_int, default=None,
                   help=f"how many queries to list at each end, with --topics (default {DEFAULT_TOP})")
    options.add_format(p, "the scores table")
    options.add_embeddings(p)
    options.add_cache(p)


def _check(args: argparse.Namespace) -> None:
    from ..errors import IrfairInputError

    if args.words and args.topics:
        raise IrfairInputError(None, None, "give words to score or --topics FILE, not both")
    if not args.words and not args.topics:
        raise IrfairInputError(None, None, "give words to score or --topics FILE")
    if args.words and (args.top is not None or args.query_field is not None):
        raise IrfairInputError(None, None, "--top and --query-field apply to --topics only")


def run(args: argparse.Namespace) -> int:
    import json

    from ..cache import resolve_cache_dir
    from ..embeddings import load_embeddings
    from ..gender.direction import gender_direction
    from ..gender.genderedness import queries_by_genderedness
    from ..trec import read_topics

    _check(args)
    options.check_paths(args)
    emb = load_embeddings(args.embeddings, resolve_cache_dir(options.cache_dir(args)))
    direction = gender_direction(emb)
    header = (f"# {emb.name}: gender direction from {len(direction.pairs_used)} pairs, "
              f"explained variance {direction.explained_variance_ratio:.3f}; g > 0 female, g < 0 male")
    if args.words:
        values = direction.word_genderedness(emb, [w.lower() for w in args.words])
        rows = [{"word": w, "genderedness": finite_or_none(float(v))} for w, v in zip(args.words, values)]
        if args.format == "json":
            print(json.dumps({"embeddings": emb.name, "words": rows}, indent=2))
            return 0
        print("word\tgenderedness" if args.format == "tsv" else header)
        for row in rows:
            value = row["genderedness"]
            print(f"{row['word']}\t{'' if value is None and args.format == 'tsv' else 'OOV' if value is None else fixed(value, sign=True)}")
        return 0
    field = args.query_field or "title"
    topics = read_topics(args.topics)
    scored, unscored = queries_by_genderedness(emb, direction, {q: t.text(field) for q, t in topics.items()})
    top = args.top or DEFAULT_TOP
    female = list(reversed(scored[-top:]))
    male = scored[:top]
    if args.format == "json":
        def rows(items):
            return [{"qid": qid, "genderedness": float(value), "query": text} for value, qid, text in items]

        print(json.dumps({"embeddings": emb.name, "scored": len(scored), "without_vocabulary_term": unscored,
                          "most_female": rows(female), "most_male": rows(male)}, indent=2))
        return 0
    if args.format == "tsv":
        print("end\tqid\tgenderedness\tquery")
        for end, items in (("female", female), ("male", male)):
            for value, qid, text in items:
                print(f"{end}\t{qid}\t{fixed(value, sign=True)}\t{text}")
        return 0
    print(header)
    print(f"# most female queries ({len(scored)} scored, {unscored} with no in-vocabulary term)")
    for value, qid, text in female:
        print(f"{qid}\t{fixed(value, sign=True)}\t{text}")
    print("# most male queries")
    for value, qid, text in male:
        print(f"{qid}\t{fixed(value, sign=True)}\t{text}")
    return 0
