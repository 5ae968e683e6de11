"""``irfair audit``: GSR and the other bias measures of TREC runs beside the perfect and a random run, with
effectiveness and the measures' agreement."""
from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap

from ..measures.names import BIAS_MEASURE_NAMES
from ..measures.names import BROWSING_MODELS as EXPOSURE_MODELS
from ..measures.names import DEFAULT_BIAS_MEASURES as DEFAULT_BIAS_MEASURE_NAMES
from . import options

PARALLEL = True
HELP = ("GSR, RaB/ARaB, NFaiRR and TExFAIR of TREC runs beside the perfect and a random run, with MAP/nDCG@100/P@10 "
        "or any ir_measures measure, and how far the bias measures agree")
EXAMPLE = """example (from the checkout, with ../shared/data beside it):
  irfair audit runs/vaswani/bm25.run runs/vaswani/qlm.run --qrels ../shared/data/vaswani/qrels \\
      --topics ../shared/data/vaswani/query-text.trec --corpus ../shared/data/vaswani/corpus --out audit-vaswani/
  irfair audit ... --format tsv | sed '/^$/,$d' | cut -f1,3,6   # system, gsr, delta_gsr (the summary, not the comparisons)
  irfair audit ... --format latex > table.tex       # booktabs, superscript letters, a caption naming the test
  irfair audit new.run bm25.run ... --fail-on gsr-above-perfect --fail-on gsr-above:bm25   # exit 1 when met
  irfair audit new.run bm25.run ... --fail-on map-below:bm25:0.01   # exit 1 if MAP is lower by more than 0.01,
                                                                    # exit 3 when that cannot be decided"""


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", help="TREC run files (6 columns: qid Q0 doc_id rank score tag; plain, gzip, bzip2 or xz), "
                                           "or folders of them (each *.run/*.txt file a system)")
    p.add_argument("--qrels", required=True, help="TREC qrels file or ir_datasets id (e.g. disks45/nocr/trec-robust-2004)")
    p.add_argument("--topics", default=None, help="TREC topics or qid<TAB>query file, or ir_datasets id (needed with --corpus)")
    p.add_argument("--corpus", default=None, help="TREC SGML/JSONL file or folder, .txt folder, Lucene index or ir_datasets id "
                                                  "(without it: effectiveness only, no GSR or bias measure)")
    p.add_argument("--depth", type=options.depth_type, default="auto", help="auto (= each query's number of relevant documents) or N")
    options.add_query_field(p)
    p.add_argument("--measures", default=None, help="comma-separated ir_measures or trec_eval names (default MAP,nDCG@100,P@10)")
    p.add_argument("-m", "--measure", dest="measure", action="append", default=[],
                   help="one measure, repeatable, as trec_eval -m / ir_measures: nDCG@10, RR@10, P(rel=2)@10, ndcg_cut.10, P.5,10")
    p.add_argument("-c", "--complete", action="store_true",
                   help="average over every query of the qrels, 0 where a run has none (trec_eval -c)")
    p.add_argument("-q", "--per-query", action="store_true",
                   help="also print each run's measures per query, as trec_eval -q (with --format table)")
    p.add_argument("-l", "--level-for-rel", type=options.count_int, default=1,
                   metavar="N", help="lowest grade that counts as relevant in the effectiveness measures (trec_eval -l)")
    p.add_argument("-M", "--max-retrieved", type=options.positive_int, default=None, metavar="N",
                   help="keep only each query's first N documents of every run, dropping the rest when read (trec_eval -M)")
    options.add_inference(p)
    p.add_argument("--no-random", action="store_true", help="leave out the random-run baseline")
    p.add_argument("--no-plots", action="store_true", help="write no scatter plots (report.html keeps its own)")
    p.add_argument("--bias-measures", default=None,
                   help=f"comma-separated bias measures among {', '.join(BIAS_MEASURE_NAMES)} (default: "
                        f"{','.join(DEFAULT_BIAS_MEASURE_NAMES)}). gsr is always computed (listed, it joins the agreement table); "
                        "rab, arab: Rekabsaz & Schedl 2020; nfairr: Rekabsaz et al. 2021; texfair: Abolghasemi et al. 2024; "
                        "fairness of exposure of document groups: ee (expected exposure, Diaz et al. 2020), awrf (AWRF and "
                        "nDCG x AWRF, TREC Fair 2022)")
    p.add_argument("--document-groups", default=None, metavar="FILE",
                   help="groups of the documents for ee/awrf: TSV lines doc_id<TAB>label (or doc_id<TAB>attribute<TAB>label) or "
                        "JSONL objects as TREC Fair distributes them (default: female/male/neither read from each document's "
                        "gendered words)")
    p.add_argument("--group-attribute", default=None, metavar="NAME",
                   help="the attribute of --document-groups to audit (default: its only one, else gender)")
    p.add_argument("--exposure-model", default=None, choices=EXPOSURE_MODELS,
                   help="ee's browsing model: trec2022 (default; 1/log2(max(i,2))), gerr or rbp (expeval, p = u = 0.5)")
    p.add_argument("--gender-words", default=None,
                   help="female/male word list (lines 'word<TAB>female|male') for rab, arab, nfairr and texfair, or a shipped "
                        "list: rekabsaz2020, rekabsaz2021 (default: rekabsaz2020 for rab/arab, rekabsaz2021 for nfairr/texfair)")
    p.add_argument("--rab-weighting", default=None, metavar="tc,tf,bool",
                   help="RaB's and ARaB's magnitude: any of tc (term count), tf (ln(1 + count)), bool; their authors report tf,bool "
                        "(default: tc,bool)")
    p.add_argument("--nfairr-background", default=None, metavar="RUN",
                   help="normalise every system's NFaiRR by this run's top documents for the query, as NFaiRR's authors do "
                        "(default: each system's own top 100)")
    p.add_argument("--nfairr-background-depth", type=options.positive_int, default=None, metavar="N",
                   help="how many of --nfairr-background's documents per query form the normalisation set (default: 200)")
    p.add_argument("--strict", action="store_true",
                   help="a run document missing from the corpus below the audited depth is an error (default: a warning)")
    p.add_argument("--out", default=None,
                   help="folder for audit.json, per_query.csv, comparisons.csv, table.txt/.tsv, agreement.csv, plots and report.html")
    options.add_audit_format(p)
    options.add_embeddings(p, several=True)
    options.add_cache(p)


def run(args: argparse.Namespace) -> int:
    from ..audit import audit
    from ..audit.across_embeddings import agreement_lines, agreement_record, audit_embeddings, split_embeddings
    from ..audit.gate import parse_condition
    from ..errors import IrfairInputError

    if args.per_query and args.format != "table":
        raise IrfairInputError(None, None, f"-q/--per-query prints trec_eval lines after the table, not with --format {args.format}")
    if args.wide and args.format not in ("table", "latex"):
        raise IrfairInputError(None, None, f"--wide widens the terminal table or the LaTeX one, not --format {args.format}")
    conditions = [parse_condition(text) for text in args.fail_on]
    options.check_paths(args, folders=("out",))
    if args.corpus is None and args.embeddings is not None:
        raise IrfairInputError(None, None, "--embeddings needs a corpus: GSR reads the documents (without one, effectiveness only)")
    settings = dict(
        depth=args.depth, query_field=args.query_field, n_bootstrap=args.bootstrap, seed=args.seed, random_baseline=not args.no_random,
        measures=measure_names(args.measures, args.measure), complete=args.complete, cache_dir=options.cache_dir(args),
        progress=options.progress(args), bias_measures=args.bias_measures, gender_words=args.gender_words,
        strict=args.strict, relevance_level=args.level_for_rel, max_depth=args.max_retrieved,
        n_permutations=args.permutations, correction=args.correction, alpha=args.alpha, baseline=args.baseline,
        rab_weighting=args.rab_weighting, nfairr_background=args.nfairr_background,
        nfairr_background_depth=args.nfairr_background_depth, document_groups=args.document_groups,
        group_attribute=args.group_attribute, exposure_model=args.exposure_model,
    )
    if args.corpus is None:  # effectiveness only
        results = {"": audit(args.runs, args.qrels, args.topics, None, **settings)}
    else:
        embeddings = split_embeddings(args.embeddings or options.DEFAULT_EMBEDDINGS)
        results = audit_embeddings(args.runs, args.qrels, args.topics, args.corpus, embeddings, **settings)
    several = len(results) > 1
    for line in agreement_lines(results):  # the answer first: do the embeddings agree?
        print(textwrap.fill(line, 100, subsequent_indent="    ", break_long_words=False) + "\n",
              file=sys.stdout if args.format == "table" else sys.stderr)
    codes = [_report(args, result, conditions, name if several else None) for name, result in results.items()]
    if several and args.format == "json":  # one JSON document: each audit, and where they agree
        print(json.dumps({"audits": {name: result.to_dict() for name, result in results.items()},
                          "across_embeddings": agreement_record(results)}, indent=2, ensure_ascii=False))
    return 1 if 1 in codes else max(codes)


def _report(args: argparse.Namespace, result, conditions, embedding: str | None) -> int:
    """Print (and with --out save) one audit; its exit status: 1 when a --fail-on condition is met, 3 when one could
    not be decided, else 0. ``embedding``: the embedding's name when the audit is one of several (its own header and
    output folder ``OUT/<name>``)."""
    from pathlib import Path

    from ..audit.provenance import relative_command_line
    from ..cache import writable_cache_dir
    from ..presentation.report import render, save_audit

    failures = result.check(conditions, allow_undecided=args.allow_undecided)
    result.provenance["command_line"] = relative_command_line(getattr(args, "command_line", None))
    out = None if not args.out else args.out if embedding is None else str(Path(args.out) / Path(embedding).name)
    paths = save_audit(result, out, plots=not args.no_plots, cache_dir=writable_cache_dir(options.cache_dir(args))) if out else []
    if embedding is not None and args.format != "json":
        print(EMBEDDING_HEADER[args.format].format(embedding))
    for failure in failures:  # the answer to --fail-on comes first, within 100 columns
        print(textwrap.fill(failure.line(), 100, subsequent_indent="    ", break_long_words=False),
              file=sys.stdout if args.format == "table" else sys.stderr)
    if embedding is None or args.format != "json":  # several in JSON: printed together
        label = "tab:irfair-audit" if embedding is None else f"tab:irfair-audit-{Path(embedding).name}"  # one per table
        print(render(result, args.format, args.wide, label), end="")
    if args.per_query:
        print_per_query(result)
    if out and not args.quiet:
        print(f"wrote {len(paths)} files to {out} (open {out.rstrip('/')}/report.html in a browser)", file=sys.stderr)
    if any(f.undecided is None for f in failures):
        return 1
    return 3 if failures else 0  # what is left could not be decided (or --allow-undecided dropped it)


# the line that opens each embedding's audit when several are given, per --format
EMBEDDING_HEADER = {"table": "== embeddings {} ==", "markdown": "## embeddings {}\n", "latex": "% embeddings {}",
                    "tsv": "# embeddings {}"}


def print_per_query(result) -> None:
    """Each audited run's measures per query, as ``trec_eval -q`` prints them (``-q``)."""
    from ..audit.kinds import SYSTEM
    from ..measures.effectiveness import trec_eval_lines

    for audited in result.systems.values():
        if audited.kind == SYSTEM and audited.evaluation is not None:
            print("\n" + "\n".join(trec_eval_lines(audited.evaluation)))


def measure_names(measures: str | None, measure: list[str]) -> tuple[str, ...]:
    """Measures of ``--measures`` (split at commas outside parentheses) and of each ``-m`` (one measure, or a
    trec_eval spec such as ``P.5,10``), in that order; the default set when neither is given."""
    from ..measures.effectiveness import DEFAULT_MEASURES

    listed = [part.strip() for part in re.split(r",(?![^()]*\))", measures or "") if part.strip()]
    return tuple(listed + [m.strip() for m in measure if m.strip()]) or DEFAULT_MEASURES
