"""Files of a study: tables as CSV and one Markdown report, plots as PNG and PDF (matplotlib, lazily)."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from ..atomic import safe_filename, write_outputs
from ..audit.report import scatter_plot


def to_markdown(frame: pd.DataFrame, digits: int = 4) -> str:
    """A DataFrame as a GitHub Markdown table (index included)."""
    table = frame.reset_index() if not isinstance(frame.index, pd.RangeIndex) else frame

    def cell(value) -> str:
        if isinstance(value, (float, np.floating)):
            return "n/a" if not math.isfinite(value) else f"{value:.{digits}f}"
        return str(value)

    header = "| " + " | ".join(map(str, table.columns)) + " |"
    rule = "|" + "|".join("---" for _ in table.columns) + "|"
    rows = ["| " + " | ".join(cell(v) for v in row) + " |" for row in table.itertuples(index=False)]
    return "\n".join([header, rule, *rows])


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> None:
    fig.savefig(path, format=path.suffix.lstrip("."), dpi=120, bbox_inches="tight")


def grid_plot(result, embeddings: str, path: Path) -> None:
    """All systems' g(q)–g_q(L) scatters in one grid, each with its fitted line and the perfect run's."""
    plt = _pyplot()
    audit = result.audits[embeddings]
    names = list(audit.systems)
    columns = 4
    rows = math.ceil(len(names) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.2 * columns, 2.7 * rows), sharex=True, sharey=True, squeeze=False)
    perfect = audit.perfect.gsr
    for ax, name in zip(axes.flat, names):
        g = audit[name].gsr
        used = g.per_query[g.per_query["used"]]
        ax.scatter(used["query_genderedness"], used["list_genderedness"], s=6, alpha=0.6)
        x = used["query_genderedness"].to_numpy()
        if len(x) > 1 and np.ptp(x) > 0:
            grid = np.linspace(x.min(), x.max(), 20)
            ax.plot(grid, g.intercept + g.slope * grid, color="C3")
            ax.plot(grid, perfect.intercept + perfect.slope * grid, "k--", lw=0.8)
        ax.set_title(f"{name}: {g.slope:+.3f}", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    fig.supxlabel("query genderedness g(q)  (female > 0 > male)")
    fig.supylabel("list genderedness g_q(L)")
    fig.suptitle(f"GSR per system, measured with {embeddings} (dashed: perfect run)")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def tau_plot(result, path: Path) -> None:
    """Kendall τ distance between top-100 lists before and after debiasing against |g(q)|."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.2))
    frame = result.rank_changes_per_query.dropna()
    for (system, variant), group in frame.groupby(["system", "variant"]):
        ax.scatter(group["abs_g"], group["kendall_tau_distance"], s=10, alpha=0.6, label=f"{system} ({variant})")
    ax.set_xlabel("|g(q)|  (query genderedness, absolute)")
    ax.set_ylabel("Kendall τ distance, top-100 before vs after")
    ax.set_title("Rank changes after debiasing")
    if len(frame):
        ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def favour_plot(result, path: Path) -> None:
    """Stacked bars: share of queries whose list favours male / neither / female documents, per g(q) bin."""
    plt = _pyplot()
    runs = list(dict.fromkeys(result.favour["run"]))
    columns = 4
    rows = math.ceil(len(runs) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.4 * columns, 2.8 * rows), sharey=True, squeeze=False)
    colours = {"male": "#4575b4", "balanced": "#d9d9d9", "female": "#d73027"}
    for ax, run in zip(axes.flat, runs):
        table = result.favour[result.favour["run"] == run].set_index("bin")
        bottom = np.zeros(len(table))
        for column in ("male", "balanced", "female"):
            ax.bar(range(len(table)), table[column], bottom=bottom, color=colours[column], label=column)
            bottom += table[column].to_numpy()
        ax.set_xticks(range(len(table)), table.index, rotation=60, fontsize=6)
        ax.set_title(run, fontsize=8)
    for ax in list(axes.flat)[len(runs):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.supxlabel("bin of query genderedness g(q)")
    fig.supylabel("share of queries")
    fig.suptitle("Direct stereotypes: lists with more male / female documents")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def agreement_plot(result, path: Path) -> None:
    """Query genderedness under the first two measuring embeddings, one point per query."""
    plt = _pyplot()
    frame = result.query_genderedness.dropna()
    fig, ax = plt.subplots(figsize=(4.8, 4.4))
    a, b = frame.columns[:2]
    ax.scatter(frame[a], frame[b], s=10, alpha=0.7)
    r = np.corrcoef(frame[a], frame[b])[0, 1] if len(frame) > 2 else float("nan")
    ax.set_xlabel(f"g(q) with {a}")
    ax.set_ylabel(f"g(q) with {b}")
    ax.set_title(f"Query genderedness agreement (Pearson r = {r:.3f})")
    ax.axhline(0, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=0.5)
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def write_study(result, out_dir: str | Path) -> list[Path]:
    """Write every table (CSV), ``study.md`` and every plot (PNG + PDF) under ``out_dir``, all-or-nothing."""
    tables = {
        "gsr": result.gsr, "effectiveness": result.effectiveness, "reliability": result.reliability,
        "rank_changes": result.rank_changes, "direct_stereotype": result.direct_stereotype,
        "favour_shares": result.favour, "intrinsic_validation": result.validation,
    }
    writers = {f"{name}.csv": (lambda p, t=table: t.to_csv(p)) for name, table in tables.items()}
    writers["rank_changes_per_query.csv"] = lambda p: result.rank_changes_per_query.to_csv(p, index=False)
    markdown = ["# GSR study", ""]
    titles = {
        "gsr": "GSR (absolute and relative to the perfect run) per measuring embedding",
        "effectiveness": "Effectiveness (% change vs regular; * p < 0.05, ** p < 0.01, paired t-test)",
        "reliability": "Reliability across measuring embeddings",
        "rank_changes": "Rank changes after debiasing (Kendall τ distance of top-100 lists) against |g(q)|",
        "direct_stereotype": "Direct stereotypes: gap(q) = (m + 1)/(f + 1) over each list",
        "intrinsic_validation": "Intrinsic validation of genderedness (one-tailed permutation tests)",
    }
    for name, title in titles.items():
        markdown += [f"## {title}", "", to_markdown(tables[name]), ""]
    writers["study.md"] = lambda p: p.write_text("\n".join(markdown), encoding="utf-8")
    for emb, audit in result.audits.items():
        folder = f"plots/{safe_filename(Path(emb).name)}"
        for suffix in ("png", "pdf"):
            writers[f"{folder}/grid.{suffix}"] = lambda p, e=emb: grid_plot(result, e, p)
            for name in audit.systems:
                writers[f"{folder}/scatter_{safe_filename(name)}.{suffix}"] = lambda p, a=audit, n=name: scatter_plot(a, n, p)
    for suffix in ("png", "pdf"):
        writers[f"plots/rank_changes.{suffix}"] = lambda p: tau_plot(result, p)
        writers[f"plots/direct_stereotype.{suffix}"] = lambda p: favour_plot(result, p)
        if result.query_genderedness.shape[1] >= 2:
            writers[f"plots/query_genderedness_agreement.{suffix}"] = lambda p: agreement_plot(result, p)
    return write_outputs(out_dir, writers)
