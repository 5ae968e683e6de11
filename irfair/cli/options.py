"""Arguments shared by several subcommands, and their conversion into library arguments."""
from __future__ import annotations

import argparse
import sys

from ..cache import CacheDir
from ..rankers import RankerSpec
from ..trec import QUERY_FIELDS

DEFAULT_EMBEDDINGS = "w2v-gnews-26k"


def depth_type(text: str) -> str | int:
    """``auto`` or a positive integer."""
    if text == "auto":
        return "auto"
    return positive_int(text, "depth must be 'auto' or a positive integer")


def positive_int(text: str, message: str = "must be a positive integer") -> int:
    """A positive integer (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(message) from None
    if value < 1:
        raise argparse.ArgumentTypeError(message)
    return value


def add_query_field(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--query-field", choices=QUERY_FIELDS, default="title", help="topic field used as the query")


def add_cache(parser: argparse.ArgumentParser, no_cache: bool = True) -> None:
    parser.add_argument("--cache-dir", default=None, help="cache folder (default $IRFAIR_CACHE or ~/.cache/irfair)")
    if no_cache:
        parser.add_argument("--no-cache", action="store_true", help="keep tokenised documents in memory only")


def add_embeddings(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--embeddings", default=DEFAULT_EMBEDDINGS, help="w2v-gnews-26k, glove-6b-50d or a vectors file")


def add_ranker_parameters(parser: argparse.ArgumentParser, specs: list[RankerSpec]) -> None:
    """One option per parameter of the given rankers (``--k1``, ``--top-n``, ...), defaults from the registry."""
    seen = set()
    for spec in specs:
        for parameter in spec.parameters:
            if parameter.name in seen:
                continue
            seen.add(parameter.name)
            if parameter.type is bool:
                parser.add_argument(parameter.flag, dest=parameter.name, action="store_true", help=parameter.help)
            else:
                parser.add_argument(parameter.flag, dest=parameter.name, type=parameter.type, default=parameter.default,
                                    help=f"{parameter.help} ({spec.name})")


def ranker_parameters(args: argparse.Namespace, spec: RankerSpec) -> dict[str, object]:
    """The values of ``spec``'s parameters from parsed arguments."""
    return {p.name: getattr(args, p.name) for p in spec.parameters}


def cache_dir(args: argparse.Namespace) -> CacheDir:
    """The library's ``cache_dir`` argument: False for --no-cache, the folder given, or None (default folder)."""
    if getattr(args, "no_cache", False):
        return False
    return args.cache_dir


def progress() -> bool:
    """Progress bars only when stderr is a terminal."""
    return sys.stderr.isatty()


def names(text: str) -> tuple[str, ...]:
    """Comma-separated names, blanks dropped."""
    return tuple(x.strip() for x in text.split(",") if x.strip())
