"""The full GSR study (Fabris et al., Section 4) on one collection: every ranker × {regular, hard, strong}
embeddings, audited with GSR under each measuring embedding; effectiveness with paired t-tests;
reliability across measuring embeddings; rank changes after debiasing against |g(q)|; direct
stereotypes; intrinsic validation. Resumable: run files already in ``<out>/runs/`` are reused.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from .audit import PERFECT, RANDOM, AuditResult, audit
from .collection import Qrels, Topic, read_qrels, read_run, read_topics, relevant_docs, write_run
from .corpus import Corpus, open_corpus
from .debias import VARIANTS, debiased
from .doc_terms import TermStore
from .embeddings import load_embeddings
from .evaluate import DEFAULT_MEASURES, paired_t_test
from .gender import gender_direction
from .stereotype import document_gender, favour_shares, intrinsic_validation, list_gaps

LEXICAL_RANKERS = ("bm25", "qlm", "tfidf")
EMBEDDING_RANKERS = ("add", "si")
GENDERED_BINS = (-1.0, -0.1, -0.05, -0.02, 0.02, 0.05, 0.1, 1.0)


def short_name(embeddings: str) -> str:
    """``w2v-gnews-26k`` → ``w2v``, ``glove-6b-50d`` → ``glove``, a path → its stem."""
    known = {"w2v-gnews-26k": "w2v", "glove-6b-50d": "glove"}
    return known.get(embeddings, Path(embeddings).stem.replace("_", "-"))


@dataclass(frozen=True)
class SystemSpec:
    """One run of the study: ranker family and name, base system (e.g. w2v_add), embedding, variant."""

    name: str
    system: str
    family: str
    embeddings: str | None = None
    variant: str = "regular"


@dataclass
class StudyConfig:
    """What the study runs. Defaults are the full settings; CI uses a small depth and few epochs."""

    ranker_embeddings: tuple[str, ...] = ("w2v-gnews-26k", "glove-6b-50d")
    measure_embeddings: tuple[str, ...] = ("w2v-gnews-26k", "glove-6b-50d")
    variants: tuple[str, ...] = VARIANTS
    lexical: bool = True
    neural: tuple[str, ...] = ("drmm", "matchpyramid")
    depth: int = 1000
    neural_candidates: int = 100
    neural_epochs: int = 10
    n_bootstrap: int = 1000
    seed: int = 0
    query_field: str = "title"
    threads: int = 2


def plan(config: StudyConfig) -> list[SystemSpec]:
    """Every run the study needs, in order."""
    specs = []
    if config.lexical or config.neural:
        specs += [SystemSpec(r, r, "lexical") for r in LEXICAL_RANKERS if config.lexical or r == "bm25"]
    for emb in config.ranker_embeddings:
        for variant in config.variants:
            suffix = "" if variant == "regular" else f"_{variant}"
            for scheme in EMBEDDING_RANKERS:
                system = f"{short_name(emb)}_{scheme}"
                specs.append(SystemSpec(system + suffix, system, scheme, emb, variant))
            for model in config.neural:
                system = f"{model}_{short_name(emb)}"
                specs.append(SystemSpec(system + suffix, system, model, emb, variant))
    return specs


@dataclass
class StudyResult:
    """The tables of a study (DataFrames) and the audits they came from, one per measuring embedding."""

    specs: list[SystemSpec]
    audits: dict[str, AuditResult]
    gsr: pd.DataFrame
    effectiveness: pd.DataFrame
    reliability: pd.DataFrame
    rank_changes: pd.DataFrame
    rank_changes_per_query: pd.DataFrame
    direct_stereotype: pd.DataFrame
    favour: pd.DataFrame
    validation: pd.DataFrame
    query_genderedness: pd.DataFrame
    files: list[Path] = field(default_factory=list)


def _build_runs(specs, corpus: Corpus, store: TermStore, topics: Mapping[str, Topic], qrels: Qrels, config: StudyConfig,
                runs_dir: Path, cache_dir: Path | None, progress: bool, log: Callable[[str], None]) -> dict[str, Path]:
    queries = {qid: t.text(config.query_field) for qid, t in topics.items()}
    paths = {spec.name: runs_dir / f"{spec.name}.run" for spec in specs}
    todo = [s for s in specs if not paths[s.name].is_file()]
    for spec in specs:
        if spec not in todo:
            log(f"reusing {paths[spec.name]}")
    if not todo:
        return paths
    store.ensure(corpus, None, progress=progress)
    index = None
    for spec in todo:
        log(f"ranking {spec.name}")
        if spec.family == "lexical":
            from .lucene import build_index
            from .rankers.lexical import LexicalRanker

            if index is None:
                if cache_dir is None:
                    raise ValueError("the lexical rankers need a cache folder for their Lucene index")
                index = build_index(corpus, cache_dir, threads=config.threads, progress=progress)
            run = LexicalRanker.create(spec.name).rank(index, queries, depth=config.depth, threads=config.threads)
        else:
            emb = debiased(load_embeddings(spec.embeddings, cache_dir), spec.variant, cache_dir)
            if spec.family in EMBEDDING_RANKERS:
                from .rankers.embedding import EmbeddingRanker

                ranker = EmbeddingRanker(store, emb, spec.family, cache_dir, corpus_key=f"{corpus.name}-{corpus.fingerprint()}")
                run = ranker.rank(queries, depth=config.depth)
            else:
                from .rankers.neural.train import train_and_rerank

                candidates = read_run(paths["bm25"])
                run = train_and_rerank(spec.family, store, emb, queries, qrels, candidates, config.neural_candidates,
                                       corpus=corpus, folds_file=runs_dir / "folds.json", epochs=config.neural_epochs,
                                       seed=config.seed, progress=progress, log_path=runs_dir / f"{spec.name}.log")
        run.name = spec.name
        write_run(paths[spec.name], run, tag=spec.name)
    return paths


def _stars(p: float) -> str:
    return "**" if p < 0.01 else "*" if p < 0.05 else ""


def kendall_tau_distance(before: Sequence[str], after: Sequence[str], k: int = 100) -> float:
    """(1 − τ_b)/2 between two top-k lists over the union of their documents; a document missing from a
    list is ranked (tied) just after its last element. 0 = same order, 1 = reversed."""
    a, b = list(before[:k]), list(after[:k])
    union = list(dict.fromkeys(a + b))
    if len(union) < 2:
        return 0.0
    rank_a = {d: i for i, d in enumerate(a)}
    rank_b = {d: i for i, d in enumerate(b)}
    x = [rank_a.get(d, len(a)) for d in union]
    y = [rank_b.get(d, len(b)) for d in union]
    tau = stats.kendalltau(x, y).statistic
    return float((1 - tau) / 2) if np.isfinite(tau) else 0.0


def run_study(corpus, topics, qrels, out_dir: str | Path, config: StudyConfig | None = None,
              cache_dir: str | Path | None = None, progress: bool = False, log: Callable[[str], None] = print) -> StudyResult:
    """Run (or resume) the study and write its tables (CSV + Markdown) and plots under ``out_dir``."""
    config = config or StudyConfig()
    out = Path(out_dir)
    runs_dir = out / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    corpus_obj = open_corpus(corpus)
    topic_map = topics if isinstance(topics, Mapping) else read_topics(topics)
    qrel_map = qrels if isinstance(qrels, Mapping) else read_qrels(qrels)
    cache = Path(cache_dir) if cache_dir is not None else None
    specs = plan(config)
    store = TermStore.for_corpus(corpus_obj, cache)
    paths = _build_runs(specs, corpus_obj, store, topic_map, qrel_map, config, runs_dir, cache, progress, log)
    runs = [read_run(paths[s.name], name=s.name) for s in specs]

    audits = {}
    for emb in config.measure_embeddings:
        log(f"auditing {len(runs)} runs with {emb}")
        audits[emb] = audit(runs, qrel_map, topic_map, corpus_obj, load_embeddings(emb, cache), n_bootstrap=config.n_bootstrap,
                            seed=config.seed, query_field=config.query_field, cache_dir=cache)
    first = audits[config.measure_embeddings[0]]

    gsr_rows = []
    for name, kind in [(PERFECT, "perfect"), (RANDOM, "random")] + [(s.name, "system") for s in specs]:
        spec = next((s for s in specs if s.name == name), None)
        row = {"system": spec.system if spec else name, "variant": spec.variant if spec else "-", "run": name}
        for emb, result in audits.items():
            label = short_name(emb)
            row[f"GSR [{label}]"] = result[name].gsr.slope
            row[f"rel. GSR [{label}]"] = result[name].relative_gsr
        gsr_rows.append(row)
    gsr = pd.DataFrame(gsr_rows).set_index(["system", "variant"])

    effectiveness_rows = []
    for name in [PERFECT, RANDOM] + [s.name for s in specs]:
        spec = next((s for s in specs if s.name == name), None)
        evaluation = first[name].evaluation
        row = {"system": spec.system if spec else name, "variant": spec.variant if spec else "-"}
        regular = None
        if spec is not None and spec.variant != "regular":
            regular = first[next(s.name for s in specs if s.system == spec.system and s.variant == "regular")].evaluation
        for measure in DEFAULT_MEASURES:
            value = evaluation.means[measure]
            row[measure] = value
            if regular is not None:
                base = regular.means[measure]
                row[f"{measure} %"] = 100 * (value - base) / base if base else float("nan")
                row[f"{measure} sig."] = _stars(paired_t_test(evaluation, regular, measure)[1])
            else:
                row[f"{measure} %"] = float("nan")
                row[f"{measure} sig."] = ""
        effectiveness_rows.append(row)
    effectiveness = pd.DataFrame(effectiveness_rows).set_index(["system", "variant"])

    query_g = pd.DataFrame({
        short_name(emb): result.perfect.gsr.per_query.set_index("qid")["query_genderedness"] for emb, result in audits.items()
    })
    reliability_rows = []
    names = list(audits)
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            a, b = audits[names[i]], audits[names[j]]
            systems = [n for n in a.systems if n in b.systems]
            x = np.array([a[n].gsr.slope for n in systems])
            y = np.array([b[n].gsr.slope for n in systems])
            rho = stats.spearmanr(x, y)
            both = query_g[[short_name(names[i]), short_name(names[j])]].dropna()
            r = stats.pearsonr(both.iloc[:, 0], both.iloc[:, 1]) if len(both) > 2 else None
            reliability_rows.append({
                "embeddings": f"{short_name(names[i])} vs {short_name(names[j])}",
                "Spearman rho of system GSR": rho.statistic, "p (rho)": rho.pvalue, "systems": len(systems),
                "Pearson r of g(q)": r.statistic if r else float("nan"), "p (r)": r.pvalue if r else float("nan"),
                "queries": len(both),
            })
    reliability = pd.DataFrame(reliability_rows)

    rank_rows, change_rows = [], []
    for spec in specs:
        if spec.family not in EMBEDDING_RANKERS or spec.variant == "regular":
            continue
        regular_name = next(s.name for s in specs if s.system == spec.system and s.variant == "regular")
        before = next(r for r in runs if r.name == regular_name)
        after = next(r for r in runs if r.name == spec.name)
        g_column = short_name(spec.embeddings) if short_name(spec.embeddings) in query_g else query_g.columns[0]
        for qid in topic_map:
            if qid in before.ranking and qid in after.ranking:
                change_rows.append({"system": spec.system, "variant": spec.variant, "qid": qid,
                                    "abs_g": abs(query_g[g_column].get(qid, np.nan)),
                                    "kendall_tau_distance": kendall_tau_distance(before.doc_ids(qid), after.doc_ids(qid))})
        frame = pd.DataFrame([r for r in change_rows if r["system"] == spec.system and r["variant"] == spec.variant]).dropna()
        r = stats.pearsonr(frame["abs_g"], frame["kendall_tau_distance"]) if len(frame) > 2 and frame["kendall_tau_distance"].std() > 0 else None
        rank_rows.append({"system": spec.system, "variant": spec.variant, "mean tau distance": frame["kendall_tau_distance"].mean(),
                          "Pearson r (|g(q)|, tau distance)": r.statistic if r else float("nan"),
                          "p": r.pvalue if r else float("nan"), "queries": len(frame)})
    rank_changes = pd.DataFrame(rank_rows)
    changes_per_query = pd.DataFrame(change_rows)

    cut = {qid: len(relevant_docs(qrel_map, qid)) for qid in topic_map if relevant_docs(qrel_map, qid)}
    lists = {PERFECT: {q: [d for d, _ in relevant_docs(qrel_map, q)] for q in cut}}
    for run in runs:
        lists[run.name] = {q: run.doc_ids(q, cut[q]) for q in cut if q in run.ranking}
    needed = sorted({d for per in lists.values() for docs in per.values() for d in docs})
    store.ensure(corpus_obj, set(needed), progress=progress)
    genders = document_gender(store, needed)
    perfect_gaps = list_gaps(lists[PERFECT], genders)
    direct_rows, favour_frames = [], []
    g_first = query_g.iloc[:, 0]
    for name, per_query in lists.items():
        gaps = list_gaps(per_query, genders)
        delta = (gaps["gap"] - perfect_gaps["gap"].reindex(gaps.index)).dropna()
        direct_rows.append({"run": name, "mean gap": gaps["gap"].mean(), "mean delta gap vs perfect": delta.mean(),
                            "queries": len(gaps), "queries without a female document": int(gaps["no_female_doc"].sum())})
        shares = favour_shares(gaps, g_first, GENDERED_BINS)
        shares.insert(0, "run", name)
        favour_frames.append(shares.reset_index())
    direct = pd.DataFrame(direct_rows).set_index("run")
    favour = pd.concat(favour_frames, ignore_index=True)
    favour["bin"] = favour["bin"].astype(str)

    validation_frames = []
    for emb in config.measure_embeddings:
        embeddings = load_embeddings(emb, cache)
        table = intrinsic_validation(embeddings, gender_direction(embeddings))
        table.insert(0, "embeddings", short_name(emb))
        validation_frames.append(table.reset_index())
    validation = pd.concat(validation_frames, ignore_index=True)

    result = StudyResult(specs, audits, gsr, effectiveness, reliability, rank_changes, changes_per_query, direct, favour,
                         validation, query_g)
    from .study_report import write_study

    result.files = write_study(result, out)
    return result
