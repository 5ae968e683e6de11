"""trec_eval 10's measures as data, and trec_eval's ``-m`` syntax for them (usnistgov/trec_eval v10.0,
``measures.c``, ``meas_init.c``; irfair's own code, checked against the outputs of trec_eval's test suite).

A :class:`Family` is one row of trec_eval's measure table: its name, the kind of parameters it takes and their
defaults, what its value is (a double, a count, a string) and how the value over all queries is formed.
:data:`FAMILIES` lists them in trec_eval's order, which is the order ``trec_eval -q`` prints them in;
:data:`NICKNAMES` holds ``official``, ``set`` and ``all_trec``. A measure as irfair evaluates it is a
:class:`TrecEvalMeasure`: a family with one cut-off (``P_10``) or one parameter text (``utility_2,-1,0,0``).

Parameters, as trec_eval reads them (``-m name.params``):

* cut-offs (``P``, ``recall``, ``ndcg_cut``, ...): integers read as C's ``atol`` (``ndcg_cut.23.4`` is 23),
  sorted; one that is not positive, or a duplicate, is an error; labels ``P_5``;
* levels (``iprec_at_recall``, ``Rprec_mult``): numbers read as C's ``atof``, sorted, no duplicates; labels
  ``iprec_at_recall_0.10`` (``%3.2f``);
* numbers (``utility``, ``11pt_avg``, ``set_F``, ``relstring``) and pairs (``ndcg``, ``G``, ``rbp``, ... as
  ``1=3,2=9``): kept in the order given; the label is the name and the text as typed (``11pt_avg_.25,.5,.75``),
  the bare name for the defaults.

irfair reads every label back to its measure (``P_5``, ``ndcg_cut_10``, ``utility_2,-1,0,0``), and, unlike
trec_eval, takes every cut-off asked for: ``-m P.5 -m P.10`` gives P_5 and P_10 (trec_eval keeps the first
list); parameters given for a family replace its defaults where it is named without them, as in trec_eval
(``-m all_trec -m relstring.20`` gives relstring_20 and no relstring_10).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import IrfairInputError

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@dataclass(frozen=True)
class Family:
    """One measure of trec_eval's table.

    ``params``: ``none``, ``cutoffs`` (positive integers), ``levels`` (numbers, one value each), ``numbers``
    or ``pairs`` (one parameter text); ``value``: ``double``, ``count`` (printed as an integer), ``string``
    (relstring, printed per query only) or ``runid``; ``summary``: how the ``all`` value is formed — ``mean``
    over queries, ``sum``, ``geometric`` (trec_eval's gm_: exp of the mean log of max(value, 0.00001)),
    ``queries`` (num_q), ``none``; ``per_query``: printed on each query's lines by ``trec_eval -q``;
    ``trec_eval``: False for irfair's own (RR@k of ir_measures), which trec_eval's syntax does not name.
    """

    name: str
    params: str = "none"
    default: tuple = ()
    value: str = "double"
    summary: str = "mean"
    per_query: bool = True
    trec_eval: bool = True


FAMILIES: tuple[Family, ...] = (
    Family("runid", value="runid", summary="none", per_query=False),
    Family("num_q", value="count", summary="queries", per_query=False),
    Family("num_ret", value="count", summary="sum"),
    Family("num_rel", value="count", summary="sum"),
    Family("num_rel_ret", value="count", summary="sum"),
    Family("map"),
    Family("gm_map", summary="geometric", per_query=False),
    Family("Rprec"),
    Family("bpref"),
    Family("recip_rank"),
    Family("iprec_at_recall", "levels", RECALL_LEVELS),
    Family("P", "cutoffs", CUTOFFS),
    Family("relstring", "numbers", (10.0,), value="string", summary="none"),
    Family("recall", "cutoffs", CUTOFFS),
    Family("infAP"),
    Family("gm_bpref", summary="geometric", per_query=False),
    Family("Rprec_mult", "levels", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    Family("utility", "numbers", (1.0, -1.0, 0.0, 0.0)),
    Family("11pt_avg", "numbers", RECALL_LEVELS),
    Family("binG"),
    Family("G", "pairs"),
    Family("dcg", "pairs"),
    Family("ideal_dcg", "pairs"),
    Family("ndcg", "pairs"),
    Family("ndcg_rel", "pairs"),
    Family("Rndcg", "pairs"),
    Family("ndcg_cut", "cutoffs", CUTOFFS),
    Family("map_cut", "cutoffs", CUTOFFS),
    Family("relative_P", "cutoffs", CUTOFFS),
    Family("success", "cutoffs", (1, 5, 10)),
    Family("set_P"),
    Family("set_relative_P"),
    Family("set_recall"),
    Family("set_map"),
    Family("set_F", "numbers", (1.0,)),
    Family("num_nonrel_judged_ret", value="count", summary="sum"),
    Family("yaap"),
    Family("rbp", "pairs"),
    Family("rbp_resid", "pairs"),
    Family("unj", "cutoffs", (5, 10, 20)),
    Family("recip_rank_cut", "cutoffs", (10,), trec_eval=False),
)
FAMILY: dict[str, Family] = {f.name: f for f in FAMILIES}
ORDER: dict[str, int] = {f.name: i for i, f in enumerate(FAMILIES)}

_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
             "iprec_at_recall", "P")
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall", "set_relative_P",
            "set_map", "set_F"),
    "all_trec": (*_OFFICIAL, "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility", "11pt_avg",
                 "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G",
                 "set_P", "set_recall", "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"),
}
# trec_eval measures that need another relevance format (-R prefs, -R qrels_jg) than a qrels file
NOT_SUPPORTED = ("all_prefs", "prefs", "qrels_jg", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")


@dataclass(frozen=True)
class TrecEvalMeasure:
    """One value of a trec_eval family: ``cutoff`` for cut-off and level families, ``params`` (the text as
    typed, None for the defaults) for number and pair families; ``rel``: a relevance level of its own (an
    ir_measures ``rel=``), None for the evaluation's (``trec_eval -l``)."""

    family: str
    cutoff: float | None = None
    params: str | None = None
    rel: int | None = None

    @property
    def NAME(self) -> str:  # noqa: N802 - the attribute ir_measures measures have
        return self.family

    @property
    def kind(self) -> Family:
        """The :class:`Family` row."""
        return FAMILY[self.family]

    def __str__(self) -> str:
        return label(self)


def label(measure: TrecEvalMeasure) -> str:
    """trec_eval's name of the value: ``map``, ``P_10``, ``iprec_at_recall_0.10``, ``utility_2,-1,0,0``."""
    family = measure.kind
    if family.params == "cutoffs":
        return f"{family.name}_{int(measure.cutoff)}"
    if family.params == "levels":
        return f"{family.name}_{measure.cutoff:3.2f}"
    return family.name if measure.params is None else f"{family.name}_{measure.params}"


def c_atol(text: str) -> int:
    """C's ``atol``: the leading integer of ``text`` (0 when there is none)."""
    match = re.match(r"\s*([+-]?\d+)", text)
    return int(match.group(1)) if match else 0


def c_atof(text: str) -> float:
    """C's ``atof`` for decimal numbers: the leading number of ``text`` (0.0 when there is none)."""
    match = re.match(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)", text)
    return float(match.group(1)) if match else 0.0


def numbers(measure: TrecEvalMeasure) -> tuple[float, ...]:
    """The numbers of a number family's parameter text (its defaults when None)."""
    if measure.params is None:
        return tuple(measure.kind.default)
    return tuple(c_atof(part) for part in measure.params.split(","))


def pairs(measure: TrecEvalMeasure) -> tuple[tuple[str, float], ...]:
    """The ``(name, value)`` pairs of a pair family's parameter text (none for the defaults)."""
    if measure.params is None:
        return ()
    out = []
    for part in measure.params.split(","):
        name, _, value = part.partition("=")
        out.append((name, c_atof(value)))
    return tuple(out)


def _check_pairs(name: str, text: str) -> None:
    """trec_eval's check of ``name=value,...`` (``get_param_pairs``)."""
    last = ","
    for char in text:
        if char in ",=":
            if char == last:
                last = ","
                break
            last = char
    if last != "=":
        raise IrfairInputError(None, None, f"malformed pair parameters {text!r} of {name}: expected name=value,...")


MAX_CUTOFF = 10**9  # past any run's depth; larger numbers overflow the kernels' integer arrays


def _cut_values(name: str, params: str, kind: str) -> list[float]:
    values = sorted(c_atol(p) if kind == "cutoffs" else c_atof(p) for p in params.split(","))
    if kind == "cutoffs" and (values[0] <= 0 or values[-1] > MAX_CUTOFF):
        raise IrfairInputError(None, None, f"{name}.{params}: cut-offs must be integers from 1 to {MAX_CUTOFF:,}")
    if any(a == b for a, b in zip(values, values[1:])):
        raise IrfairInputError(None, None, f"{name}.{params}: a cut-off is given twice")
    return values


@dataclass(frozen=True)
class Spec:
    """One ``-m`` argument read: the families it marks and the parameters it gives one of them."""

    families: tuple[str, ...]
    params: str | None = None


def read_spec(text: str) -> Spec | None:
    """``-m`` syntax (``P.5,10``, ``all_trec``, ``ndcg.1=3``) or a label (``P_10``, ``ndcg_cut_10``,
    ``utility_2,-1,0,0``); None when ``text`` is no trec_eval name. Bad parameters raise IrfairInputError."""
    name, dot, params = text.partition(".")
    if name in NOT_SUPPORTED:
        raise IrfairInputError(None, None, f"trec_eval measure {name!r} needs preference or qrels_jg judgements, which "
                                           "irfair does not read")
    if name in NICKNAMES:
        if dot:
            raise IrfairInputError(None, None, f"{text!r}: a nickname ({name}) takes no parameters")
        return Spec(NICKNAMES[name])
    family = FAMILY.get(name)
    if family is not None and family.trec_eval:
        if not dot:
            return Spec((name,))
        return _with_params(family, params, text)
    for family in sorted(FAMILIES, key=lambda f: -len(f.name)):
        if family.trec_eval and family.params != "none" and text.startswith(family.name + "_"):
            rest = text[len(family.name) + 1:]
            if family.params == "cutoffs" and re.fullmatch(r"\d+", rest) or family.params == "levels" and \
                    re.fullmatch(r"\d*\.?\d+", rest) or family.params in ("numbers", "pairs") and rest:
                return _with_params(family, rest, text)
    return None


def _with_params(family: Family, params: str, text: str) -> Spec:
    if not params:
        raise IrfairInputError(None, None, f"improper measure {text!r}: nothing after the '.'")
    if family.params == "none":
        raise IrfairInputError(None, None, f"{text!r}: trec_eval's {family.name} takes no parameters")
    if family.params in ("cutoffs", "levels"):
        _cut_values(family.name, params, family.params)
    elif family.params == "pairs":
        _check_pairs(family.name, params)
    elif family.name == "utility" and len(params.split(",")) != 4:
        raise IrfairInputError(None, None, f"{text!r}: utility takes 4 coefficients")
    return Spec((family.name,), params)


def expand(specs: Iterable[Spec]) -> list[list[TrecEvalMeasure]]:
    """The measures of each spec: a spec with parameters gives its own; a family named without (``P``,
    ``all_trec``) gives those of every spec with parameters for it (the union of their cut-offs, one measure
    per parameter text), its defaults when there is none."""
    specs = list(specs)
    given: dict[str, list[str]] = {}
    for spec in specs:
        if spec.params is not None:
            given.setdefault(spec.families[0], []).append(spec.params)
    out = []
    for spec in specs:
        measures: list[TrecEvalMeasure] = []
        for name in spec.families:
            measures += family_measures(FAMILY[name], [spec.params] if spec.params is not None else given.get(name))
        out.append(measures)
    return out


def family_measures(family: Family, texts: list[str] | None) -> list[TrecEvalMeasure]:
    """The measures of one family for the parameter texts given (None: its defaults)."""
    if family.params in ("cutoffs", "levels"):
        values = sorted({v for t in texts for v in _cut_values(family.name, t, family.params)}) if texts else family.default
        return [TrecEvalMeasure(family.name, cutoff=v) for v in values]
    if family.params in ("numbers", "pairs"):
        return [TrecEvalMeasure(family.name, params=t) for t in dict.fromkeys(texts)] if texts else [TrecEvalMeasure(family.name)]
    return [TrecEvalMeasure(family.name)]


def print_order(measure: TrecEvalMeasure) -> tuple[int, float]:
    """Sort key of trec_eval's output: the family's place in its table, then the cut-off."""
    return ORDER[measure.family], measure.cutoff or 0.0
