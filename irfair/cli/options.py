"""Arguments shared by several subcommands, and their conversion into library arguments."""
from __future__ import annotations

import argparse
import os
import sys

from ..bounds import parsed
from ..cache import CacheDir, refuse_inside_cache, writable_cache_dir
from ..errors import IrfairInputError
from ..executor import JOBS_ENV, SCHEDULER_ENV
from ..measures.names import CORRECTIONS
from ..paths import writable_file, writable_folder
from ..rankers import RANKERS, RankerSpec
from ..rankers.registry import Parameter
from ..settings import SETTINGS
from ..trec import QUERY_FIELDS

DEFAULT_EMBEDDINGS = "w2v-gnews-26k"
OUTPUT_FORMATS = ("table", "tsv", "json")
JAVA_VERBOSE_ENV = SETTINGS["java_verbose"].env  # read by irfair.anserini before Java starts


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Every option's help ends with its default (none shown for required options, flags and None);
    descriptions and example epilogs keep their line breaks."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.required or action.default is None or action.default is False or action.default == [] \
                or isinstance(action, argparse._StoreTrueAction):
            return action.help or ""
        return super()._get_help_string(action)


def output_options() -> argparse.ArgumentParser:
    """The options every subcommand shares: ``--quiet`` and ``-v/--verbose`` (``-q`` is left free for
    per-query output, as in trec_eval)."""
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_mutually_exclusive_group()
    group.add_argument("--quiet", action="store_true", help="no progress bars and no progress messages on stderr")
    group.add_argument("-v", "--verbose", action="store_true", help="also show Java/Lucene log messages on stderr")
    return parent


def parallel_options() -> argparse.ArgumentParser:
    """``--jobs`` and ``--scheduler`` for the commands that tokenise corpora or rank them."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--jobs", type=setting_type("jobs"), default=None,
                        help="worker processes for the corpus pass, embedding ranking and an audit's plots (default: every CPU; "
                             "$IRFAIR_JOBS)")
    parent.add_argument("--scheduler", type=setting_type("scheduler"), default=None,
                        help="run that work on Dask: 'local' (a LocalCluster of --jobs workers) or an address such as "
                             "tcp://host:8786 (default: $IRFAIR_SCHEDULER, else local processes)")
    return parent


def apply_output_options(args: argparse.Namespace) -> None:
    """Make ``-v`` reach the JVM's logging (read by :mod:`irfair.anserini` before Java starts), and
    ``--jobs``/``--scheduler`` every parallel step (:mod:`irfair.executor` reads them from the environment)."""
    if getattr(args, "verbose", False):
        os.environ[JAVA_VERBOSE_ENV] = "1"
    if getattr(args, "jobs", None) is not None:
        os.environ[JOBS_ENV] = str(args.jobs)
    if getattr(args, "scheduler", None):
        os.environ[SCHEDULER_ENV] = args.scheduler


def add_format(parser: argparse.ArgumentParser, what: str = "the table") -> None:
    """``--format table|tsv|json`` for what goes to stdout."""
    parser.add_argument("--format", choices=OUTPUT_FORMATS, default="table",
                        help=f"how {what} is printed on stdout: aligned text, tab-separated values or JSON")


AUDIT_FORMATS = ("table", "markdown", "latex", "tsv", "json")


def add_audit_format(parser: argparse.ArgumentParser) -> None:
    """``--format table|markdown|latex|tsv|json`` and ``--wide`` for what ``irfair audit`` prints."""
    parser.add_argument("--format", choices=AUDIT_FORMATS, default="table",
                        help="what stdout carries: the verdict (table), the summary and comparisons as Markdown, as a LaTeX "
                             "table (booktabs, superscript letters for significant differences), as tab-separated values "
                             "(summary, blank line, every comparison) or audit.json")
    parser.add_argument("--wide", action="store_true",
                        help="with --format table: every column, the footnotes, the bias and agreement tables and every GSR "
                             "pair (default: the verdict in 100 columns); with --format latex: a table* (both columns of the "
                             "page) with each measure's 95%% CI")


def add_inference(parser: argparse.ArgumentParser) -> None:
    """Resamples, seed, correction, alpha, baseline and ``--fail-on`` conditions of ``irfair audit``."""
    parser.add_argument("--bootstrap", type=bounded("bootstrap"), default=1000,
                        help="bootstrap resamples of the queries for every CI (0 = none)")
    parser.add_argument("--permutations", type=bounded("permutations"), default=10_000,
                        help="permutations of each paired randomization test (0 = no p-values)")
    parser.add_argument("--seed", type=seed_int, default=0, help="seed of the bootstrap, the permutations and the random run")
    parser.add_argument("--correction", choices=CORRECTIONS, default="holm",
                        help="multiple-comparison correction over the pairs of each measure (bh: Benjamini-Hochberg)")
    parser.add_argument("--alpha", type=probability, default=0.05, help="significance level of the marks, the verdict and --fail-on")
    parser.add_argument("--baseline", default=None, metavar="NAME",
                        help="compare every system with this one only (default: every pair of systems)")
    parser.add_argument("--fail-on", action="append", default=[], metavar="CONDITION",
                        help="exit 1 when the audit meets CONDITION, repeatable: gsr-above-perfect (a system's GSR significantly "
                             "above the perfect run's), gsr-above:NAME, map-below:NAME, <measure>-above|below:NAME for any "
                             "measure of the comparisons, or NAME:MARGIN (map-below:bm25:0.01: not lower by more than 0.01); "
                             "exit 3 when a comparison it needs cannot decide (undecided, too few queries or permutations, "
                             "qrels_mismatch, few_queries)")
    parser.add_argument("--allow-undecided", action="store_true",
                        help="with --fail-on: print what could not be decided, but exit 0 for it")


def bounded(name: str):
    """The argparse type of the number ``name`` of :data:`irfair.bounds.BOUNDS`: the check a Python argument gets."""
    def convert(text: str):
        try:
            return parsed(name, text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"{exc}, found {text!r}") from None
    convert.__name__ = name
    return convert


def probability(text: str) -> float:
    """A number strictly between 0 and 1 (argparse type)."""
    return bounded("alpha")(text)


def log(args: argparse.Namespace):
    """A function printing progress messages on stderr, silent under ``--quiet``."""
    if getattr(args, "quiet", False):
        return lambda line: None
    return lambda line: print(line, file=sys.stderr)


def _integer(text: str, low: int, message: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{message}, found {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"{message}, found {text!r}")
    return value


def setting_type(name: str):
    """The argparse type of an irfair setting (:data:`irfair.settings.SETTINGS`): the one check of its value,
    whether it comes from this flag or from its environment variable."""
    setting = SETTINGS[name]

    def convert(text: str):
        try:
            return setting.parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {setting.expected}, found {text!r}") from None
    convert.__name__ = name
    return convert


def depth_type(text: str) -> str | int:
    """``auto`` or a positive integer (argparse type)."""
    if text == "auto":
        return "auto"
    return _integer(text, 1, "depth must be 'auto' or a positive integer")


def positive_int(text: str) -> int:
    """An integer >= 1 (argparse type)."""
    return _integer(text, 1, "expected a positive integer")


def count_int(text: str) -> int:
    """An integer >= 0 (argparse type), e.g. a number of bootstrap resamples."""
    return _integer(text, 0, "expected an integer >= 0")


def seed_int(text: str) -> int:
    """A random seed: an integer from 0 to 2**32 - 1 (argparse type)."""
    return bounded("seed")(text)


def parameter_type(parameter: Parameter):
    """The argparse type of a ranker parameter: its type, range-checked as the registry says."""
    def convert(text: str):
        try:
            value = parameter.type(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {parameter.type.__name__}, found {text!r}") from None
        problem = parameter.problem(value)
        if problem is not None:
            raise argparse.ArgumentTypeError(f"{problem}, found {text!r}")
        return value
    convert.__name__ = parameter.type.__name__
    return convert


def add_query_field(parser: argparse.ArgumentParser) -> None:
    """``--query-field title|desc|title+desc``."""
    parser.add_argument("--query-field", choices=QUERY_FIELDS, default="title", help="topic field used as the query")


def add_cache(parser: argparse.ArgumentParser, no_cache: bool = True) -> None:
    """``--cache-dir DIR`` and (when ``no_cache``) ``--no-cache``, which exclude each other."""
    group = parser.add_mutually_exclusive_group() if no_cache else parser
    group.add_argument("--cache-dir", default=None, help="cache folder (default $IRFAIR_CACHE or ~/.cache/irfair)")
    if no_cache:
        group.add_argument("--no-cache", action="store_true",
                           help="use no cache folder: tokenised documents, parsed runs and measured values are "
                                "kept in memory only, for this run")


def add_embeddings(parser: argparse.ArgumentParser, only_if_given: bool = False, several: bool = False) -> None:
    """``--embeddings NAME|FILE``; with ``only_if_given`` its value is None unless given (the help still
    names the default), for a command where only some choices use embeddings; ``several``: the command takes a
    comma-separated list (one audit each)."""
    help = "w2v-gnews-26k, glove-6b-50d or a vectors file" + (", or several separated by commas (an audit each, and whether "
                                                               "their conclusions agree)" if several else "")
    unset = only_if_given or several  # None unless given: the command tells a choice from the default
    parser.add_argument("--embeddings", default=None if unset else DEFAULT_EMBEDDINGS,
                        help=f"{help} (default: {DEFAULT_EMBEDDINGS})" if unset else help)


def add_ranker_parameters(parser: argparse.ArgumentParser, specs: list[RankerSpec]) -> None:
    """One option per parameter of the given rankers (``--k1``, ``--top-n``, ...), defaults from the registry
    (shown in the help; the option itself defaults to None, so that :func:`ranker_parameters` knows what was
    given). A parameter only some of the rankers have names them in its help (``(matchpyramid)``)."""
    owners: dict[str, list[str]] = {}
    first: dict[str, Parameter] = {}
    for spec in specs:
        for parameter in spec.parameters:
            owners.setdefault(parameter.name, []).append(spec.name)
            first.setdefault(parameter.name, parameter)
    for name, parameter in first.items():
        label = "" if len(owners[name]) == len(specs) else f" ({', '.join(owners[name])})"
        if parameter.type is bool:
            parser.add_argument(parameter.flag, dest=name, action="store_true", help=parameter.help + label)
        else:
            parser.add_argument(parameter.flag, dest=name, type=parameter_type(parameter), default=None,
                                choices=parameter.choices or None,
                                help=f"{parameter.help}{label} (default: {parameter.default})")


def _given(value: object) -> bool:
    """An option was given: a value (0 and 0.0 included; ``0 in (None, False)`` is true in Python), or a flag set."""
    return value is not None and value is not False


def ranker_parameters(args: argparse.Namespace, spec: RankerSpec) -> dict[str, object]:
    """The values of ``spec``'s parameters given in parsed arguments (make_ranker takes the registry's
    defaults for the others). IrfairInputError when an option of another ranker is given (``--k1`` with ``--ranker add``), or
    an option without the flag it works under (``--interpolation-weight`` without ``--interpolate``)."""
    own = {p.name for p in spec.parameters}
    for other in RANKERS.values():
        for parameter in other.parameters:
            if parameter.name not in own and _given(getattr(args, parameter.name, None)):
                owners = ", ".join(s.name for s in RANKERS.values() if parameter in s.parameters)
                raise IrfairInputError(None, None, f"{parameter.flag} is a parameter of {owners}, not of {spec.name}")
    given = {p.name: getattr(args, p.name) for p in spec.parameters if _given(getattr(args, p.name))}
    for parameter in spec.parameters:
        if parameter.needs and parameter.name in given and parameter.needs not in given:
            needed = next(p for p in spec.parameters if p.name == parameter.needs)
            raise IrfairInputError(None, None, f"{parameter.flag} is used only with {needed.flag}, which is not given")
    return given


def check_paths(args: argparse.Namespace, folders: tuple[str, ...] = (), files: tuple[str, ...] = ()) -> None:
    """Before any work: every output folder and file given (by attribute name of ``args``) must be
    writable or creatable (nothing is created), and the cache folder is created and tested (unless
    ``--no-cache``); IrfairInputError naming the first path that is not."""
    cache = cache_dir(args) if hasattr(args, "cache_dir") else None
    for name in folders:
        if getattr(args, name, None) is not None:
            what = f"output folder (--{name.replace('_', '-')})"
            refuse_inside_cache(getattr(args, name), what, cache)
            writable_folder(getattr(args, name), what)
    for name in files:
        if getattr(args, name, None) is not None:
            what = f"output file (--{name.replace('_', '-')})"
            refuse_inside_cache(getattr(args, name), what, cache)
            writable_file(getattr(args, name), what)
    if hasattr(args, "cache_dir"):
        writable_cache_dir(cache)


def cache_dir(args: argparse.Namespace) -> CacheDir:
    """The library's ``cache_dir`` argument: False for --no-cache, the folder given, or None (default folder)."""
    if getattr(args, "no_cache", False):
        return False
    return args.cache_dir


def progress(args: argparse.Namespace | None = None) -> bool:
    """Progress bars only when stderr is a terminal, and not under ``--quiet``."""
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


def names(text: str) -> tuple[str, ...]:
    """Comma-separated names, blanks dropped."""
    return tuple(x.strip() for x in text.split(",") if x.strip())
