"""The study's tables, one named function each, from the audits and runs (Fabris et al., Section 4)."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from ..audit import PERFECT, RANDOM, AuditResult, SystemAudit
from ..corpus import TermStore
from ..embeddings import Embeddings
from ..gender.direction import gender_direction
from ..gender.stereotype import document_gender, favour_shares, intrinsic_validation, list_gaps
from ..measures.effectiveness import DEFAULT_MEASURES
from ..measures.resampling import DIFFERS, NOT_COMPARED, UNDECIDED, bootstrap_weights, percentile_ci, slopes_from_weights
from ..rankers import EMBEDDING
from ..trec import Run
from .plan import SystemSpec, short_name

TAU_DEPTH = 100
# per measuring embedding, each column suffixed with its short name (gsr_w2v, delta_gsr_p_glove, ...)
GSR_COLUMNS = ("gsr", "gsr_ci_low", "gsr_ci_high", "delta_gsr", "delta_gsr_ci_low", "delta_gsr_ci_high", "delta_gsr_p",
               "relative_gsr_pct", "relative_gsr_pct_ci_low", "relative_gsr_pct_ci_high")
GENDERED_BINS = (-1.0, -0.1, -0.05, -0.02, 0.02, 0.05, 0.1, 1.0)
# the bins above in words (each right-closed: "-0.05 to -0.02" is -0.05 < g(q) <= -0.02)
BIN_LABELS = ("<= -0.10", "-0.10 to -0.05", "-0.05 to -0.02", "-0.02 to 0.02", "0.02 to 0.05", "0.05 to 0.10", "> 0.10")


VALIDATION_COLUMNS = {"mean g (female set)": "mean_g_female_set", "mean g (male set)": "mean_g_male_set",
                      "p (one-tailed)": "p_one_tailed", "words used": "words_used"}


def bin_label(interval: pd.Interval) -> str:
    """A readable label for a ``pd.cut`` interval of :data:`GENDERED_BINS` (``(-1.001, -0.1]`` → ``<= -0.10``)."""
    right = float(interval.right)
    return BIN_LABELS[min(range(len(BIN_LABELS)), key=lambda i: abs(GENDERED_BINS[i + 1] - right))]


def _rows(specs: Sequence[SystemSpec]) -> list[tuple[str, SystemSpec | None]]:
    """(run name, spec) for the perfect and random runs, then every spec."""
    return [(PERFECT, None), (RANDOM, None)] + [(s.name, s) for s in specs]


def _regular_of(specs: Sequence[SystemSpec], spec: SystemSpec) -> str:
    return next(s.name for s in specs if s.system == spec.system and s.variant == "regular")


def _stars(p: float, decision: str) -> str:
    """* for a difference the audit decided, ** when its corrected p is also below 0.01, ? when undecided."""
    if decision == DIFFERS:
        return "**" if p < 0.01 else "*"
    return "?" if decision == UNDECIDED else ""


def embedding_column(column: str, embeddings: str) -> str:
    """A study column measured with ``embeddings``: ``gsr`` with ``w2v-gnews-26k`` → ``gsr_w2v``."""
    return f"{column}_{short_name(embeddings)}"


def measure_column(measure: str) -> str:
    """An effectiveness measure as a column name, lower case as the audit's bias columns: ``MAP`` → ``map``,
    ``nDCG@100`` → ``ndcg@100``."""
    return measure.lower()


def relative_gsr_ci(system: SystemAudit, perfect: SystemAudit, n_bootstrap: int, seed: int) -> tuple[float, float]:
    """95% percentile CI of relative GSR, 100 · (GSR − GSR(perfect)) / GSR(perfect) in percent, from a paired
    bootstrap over the queries both runs use (the same resampled queries in numerator and denominator);
    NaN when relative GSR is n/a, with fewer than 3 such queries or no resamples."""
    nan = (float("nan"), float("nan"))
    if not math.isfinite(system.relative_gsr) or n_bootstrap <= 0:
        return nan
    a = system.gsr.per_query[system.gsr.per_query["used"]].set_index("qid")
    b = perfect.gsr.per_query[perfect.gsr.per_query["used"]].set_index("qid")
    common = a.index.intersection(b.index)
    if len(common) < 3:
        return nan
    x = a.loc[common, "query_genderedness"].to_numpy(dtype=np.float64)
    lists = np.stack([a.loc[common, "list_genderedness"].to_numpy(dtype=np.float64),
                      b.loc[common, "list_genderedness"].to_numpy(dtype=np.float64)])
    slopes = slopes_from_weights(x, lists, bootstrap_weights(len(common), n_bootstrap, seed))  # the same resamples for both
    with np.errstate(invalid="ignore", divide="ignore"):
        low, high = percentile_ci(100.0 * (slopes[:, 0] - slopes[:, 1]) / slopes[:, 1])
    return float(low), float(high)


def gsr_table(specs: Sequence[SystemSpec], audits: Mapping[str, AuditResult], n_bootstrap: int = 1000,
              seed: int = 0) -> pd.DataFrame:
    """GSR, delta_gsr (GSR − GSR(perfect)) and relative_gsr_pct with its 95% CI (n/a unless the perfect run's GSR
    is clearly positive, see :mod:`irfair.audit.result`; the CI from ``n_bootstrap`` paired resamples) of every
    run under each measuring embedding, columns :data:`GSR_COLUMNS` suffixed by :func:`embedding_column`; index
    (system, variant)."""
    rows = []
    for name, spec in _rows(specs):
        row = {"system": spec.system if spec else name, "variant": spec.variant if spec else "-", "run": name}
        for emb, result in audits.items():
            summary = result[name].summary()
            low, high = (float("nan"),) * 2 if name == PERFECT else relative_gsr_ci(result[name], result.perfect, n_bootstrap, seed)
            summary.update(relative_gsr_pct_ci_low=low, relative_gsr_pct_ci_high=high)
            for column in GSR_COLUMNS:
                row[embedding_column(column, emb)] = summary[column]
        rows.append(row)
    return pd.DataFrame(rows).set_index(["system", "variant"])


def effectiveness_table(specs: Sequence[SystemSpec], audit: AuditResult) -> pd.DataFrame:
    """MAP, nDCG@100, P@10 per run (columns ``map``, ``ndcg@100``, ``p@10``) with, for a debiased variant, the
    change against its regular variant in percent (``map_change_pct``) and the audit's own answer to whether they
    differ: its paired randomization test's p, corrected over the audit's pairs of that measure (``map_p``), and
    its decision as stars (``map_sig``: * differs at α 0.05, ** and p below 0.01, ? undecided; empty otherwise)."""
    rows = []
    for name, spec in _rows(specs):
        evaluation = audit[name].evaluation
        row = {"system": spec.system if spec else name, "variant": spec.variant if spec else "-"}
        regular = _regular_of(specs, spec) if spec is not None and spec.variant != "regular" else None
        for measure in DEFAULT_MEASURES:
            value, column = evaluation.means[measure], measure_column(measure)
            row[column] = value
            base = audit[regular].evaluation.means[measure] if regular is not None else float("nan")
            p, decision = _compared(audit, measure, name, regular) if regular is not None else (float("nan"), "")
            row[f"{column}_change_pct"] = 100 * (value - base) / base if regular is not None and base else float("nan")
            row[f"{column}_p"] = p
            row[f"{column}_sig"] = _stars(p, decision)
        rows.append(row)
    return pd.DataFrame(rows).set_index(["system", "variant"])


def _compared(audit: AuditResult, measure: str, a: str, b: str) -> tuple[float, str]:
    """The audit's corrected p and decision for ``measure`` between runs ``a`` and ``b`` (either order); NaN and
    "not compared" when the audit has no such comparison."""
    frame = audit.compared(measure)
    found = frame[((frame["a"] == a) & (frame["b"] == b)) | ((frame["a"] == b) & (frame["b"] == a))]
    if found.empty:
        return float("nan"), NOT_COMPARED
    return float(found["p_adjusted"].iloc[0]), str(found["decision"].iloc[0])


def query_genderedness_table(audits: Mapping[str, AuditResult]) -> pd.DataFrame:
    """g(q) per query (rows) under each measuring embedding (columns, short names)."""
    return pd.DataFrame({
        short_name(emb): result.perfect.gsr.per_query.set_index("qid")["query_genderedness"] for emb, result in audits.items()
    })


RELIABILITY_COLUMNS = ["embeddings", "spearman_rho_gsr", "spearman_p", "n_systems", "pearson_r_query_g", "pearson_p", "n_queries"]
RANK_CHANGE_COLUMNS = ["system", "variant", "g_embeddings", "mean_tau_distance", "pearson_r_abs_g_tau", "pearson_p", "n_queries"]
RANK_CHANGE_PER_QUERY_COLUMNS = ["system", "variant", "g_embeddings", "qid", "abs_g", "kendall_tau_distance"]


def reliability_table(audits: Mapping[str, AuditResult], query_g: pd.DataFrame) -> pd.DataFrame:
    """For each pair of measuring embeddings: Spearman ρ of the systems' GSR (``spearman_rho_gsr``, ``spearman_p``,
    over ``n_systems``) and Pearson r of g(q) (``pearson_r_query_g``, ``pearson_p``, over ``n_queries``); no
    row (the columns still named) with one measuring embedding."""
    rows = []
    names = list(audits)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            a, b = audits[first], audits[second]
            systems = [n for n in a.systems if n in b.systems]
            rho = stats.spearmanr([a[n].gsr.slope for n in systems], [b[n].gsr.slope for n in systems])
            both = query_g[[short_name(first), short_name(second)]].dropna()
            r = stats.pearsonr(both.iloc[:, 0], both.iloc[:, 1]) if len(both) > 2 else None
            rows.append({
                "embeddings": f"{short_name(first)} vs {short_name(second)}",
                "spearman_rho_gsr": rho.statistic, "spearman_p": rho.pvalue, "n_systems": len(systems),
                "pearson_r_query_g": r.statistic if r else float("nan"), "pearson_p": r.pvalue if r else float("nan"),
                "n_queries": len(both),
            })
    return pd.DataFrame(rows, columns=RELIABILITY_COLUMNS)


def kendall_tau_distance(before: Sequence[str], after: Sequence[str], k: int = TAU_DEPTH) -> float:
    """(1 − τ_b)/2 between two top-k lists over the union of their documents; a document missing from a
    list is ranked (tied) just after its last element. 0 = same order, 1 = reversed."""
    a, b = list(before[:k]), list(after[:k])
    union = list(dict.fromkeys(a + b))
    if len(union) < 2:
        return 0.0
    rank_a = {d: i for i, d in enumerate(a)}
    rank_b = {d: i for i, d in enumerate(b)}
    tau = stats.kendalltau([rank_a.get(d, len(a)) for d in union], [rank_b.get(d, len(b)) for d in union]).statistic
    return float((1 - tau) / 2) if np.isfinite(tau) else 0.0


def rank_change_tables(specs: Sequence[SystemSpec], runs: Mapping[str, Run], qids: Sequence[str],
                       query_g: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Kendall τ distance of each debiased embedding ranker's lists from its regular variant's, per query,
    and per system its mean and Pearson r with |g(q)|: ``(summary, per_query)``. |g(q)| is measured with the
    system's own ranking embedding when it is a measuring one (else the first), named in ``g_embeddings``.
    Without a debiased embedding ranker both tables have no row, their columns still named."""
    summary, per_query = [], []
    for spec in specs:
        if spec.family != EMBEDDING or spec.variant == "regular":
            continue
        before, after = runs[_regular_of(specs, spec)], runs[spec.name]
        g_column = short_name(spec.embeddings) if short_name(spec.embeddings) in query_g else query_g.columns[0]
        rows = [{"system": spec.system, "variant": spec.variant, "g_embeddings": g_column, "qid": qid,
                 "abs_g": abs(query_g[g_column].get(qid, np.nan)),
                 "kendall_tau_distance": kendall_tau_distance(before.doc_ids(qid), after.doc_ids(qid))}
                for qid in qids if qid in before.ranking and qid in after.ranking]
        per_query += rows
        frame = pd.DataFrame(rows, columns=["abs_g", "kendall_tau_distance"]).dropna()
        varies = len(frame) > 2 and frame["kendall_tau_distance"].std() > 0
        r = stats.pearsonr(frame["abs_g"], frame["kendall_tau_distance"]) if varies else None
        summary.append({"system": spec.system, "variant": spec.variant, "g_embeddings": g_column,
                        "mean_tau_distance": frame["kendall_tau_distance"].mean(),
                        "pearson_r_abs_g_tau": r.statistic if r else float("nan"),
                        "pearson_p": r.pvalue if r else float("nan"), "n_queries": len(frame)})
    return pd.DataFrame(summary, columns=RANK_CHANGE_COLUMNS), pd.DataFrame(per_query, columns=RANK_CHANGE_PER_QUERY_COLUMNS)


def direct_stereotype_tables(lists: Mapping[str, Mapping[str, Sequence[str]]], store: TermStore,
                             query_g: pd.Series) -> tuple[pd.DataFrame, pd.DataFrame]:
    """gap(q) = (m + 1)/(f + 1) of every run's lists (``lists[run][qid]``, the perfect run's included) and
    the shares of lists favouring male/female documents per g(q) bin with the bin's number of queries
    (``n_queries``): ``(per run, favour shares)``."""
    needed = sorted({d for per in lists.values() for docs in per.values() for d in docs})
    genders = document_gender(store, needed)
    perfect_gaps = list_gaps(lists[PERFECT], genders)
    direct_rows, favour_frames = [], []
    for name, per_query in lists.items():
        gaps = list_gaps(per_query, genders)
        delta = (gaps["gap"] - perfect_gaps["gap"].reindex(gaps.index)).dropna()
        direct_rows.append({"run": name, "mean_gap": gaps["gap"].mean(), "mean_delta_gap": delta.mean(),
                            "n_queries": len(gaps), "n_queries_no_female_doc": int(gaps["no_female_doc"].sum())})
        shares = favour_shares(gaps, query_g, GENDERED_BINS)
        binned = pd.cut(gaps.join(query_g.rename("g"), how="inner")["g"].dropna(), bins=GENDERED_BINS, include_lowest=True)
        shares["n_queries"] = binned.value_counts().reindex(shares.index).fillna(0).astype(int)
        shares.insert(0, "run", name)
        favour_frames.append(shares.reset_index())
    favour = pd.concat(favour_frames, ignore_index=True)
    favour["bin"] = favour["bin"].map(bin_label).astype(str)
    return pd.DataFrame(direct_rows).set_index("run"), favour


def validation_table(embeddings: Mapping[str, Embeddings]) -> pd.DataFrame:
    """Intrinsic validation (Fig. 1 of the paper) under each measuring embedding ``{name: Embeddings}``: mean g(w)
    of each set (``mean_g_female_set``, ``mean_g_male_set``), the one-tailed permutation p and the words used."""
    frames = []
    for name, vectors in embeddings.items():
        table = intrinsic_validation(vectors, gender_direction(vectors)).rename(columns=VALIDATION_COLUMNS)
        table.insert(0, "embeddings", short_name(name))
        frames.append(table.reset_index())
    return pd.concat(frames, ignore_index=True)
