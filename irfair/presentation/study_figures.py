"""The study's figures, each built by one function (matplotlib, imported only when a figure is drawn):
a GSR scatter grid per measuring embedding, rank changes after debiasing, direct-stereotype bars and the
agreement of g(q) between two embeddings. No figure title sits over its panels; tick labels are thinned
so that they never collide; bins are labelled in words."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..atomic import safe_filename
from .plots import X_LABEL, Y_LABEL, draw_scatter, pyplot, ticker


def _grid(n_panels: int, columns: int, width: float, height: float, **options):
    plt = pyplot()
    rows = math.ceil(n_panels / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(width * columns, height * rows), squeeze=False, **options)
    for ax in list(axes.flat)[n_panels:]:
        ax.axis("off")
    return fig, axes


def grid_figure(result, embeddings: str):
    """All systems' g(q)–g_q(L) scatters in one grid, each with its fitted line and the perfect run's (dashed)."""
    audit = result.audits[embeddings]
    names = list(audit.systems)
    fig, axes = _grid(len(names), 4, 3.3, 2.8, sharex=True, sharey=True)
    for index, (ax, name) in enumerate(zip(axes.flat, names)):
        draw_scatter(ax, result.audits[embeddings], name, point_size=6, legend=False)
        if index + 4 >= len(names):  # the lowest panel of its column keeps its x tick labels
            ax.tick_params(labelbottom=True)
        ax.set_title(f"{name}: GSR {audit[name].gsr.slope:+.3f}", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.xaxis.set_major_locator(ticker().MaxNLocator(4))
    fig.supxlabel(X_LABEL, fontsize=9)
    fig.supylabel(Y_LABEL, fontsize=9)
    fig.tight_layout()
    return fig


def tau_figure(result):
    """Kendall τ distance between the top lists before and after debiasing against |g(q)|: one panel per
    embedding that |g(q)| is measured with (a system's own ranking embedding), so that no axis mixes two."""
    frame = result.rank_changes_per_query.dropna(subset=["abs_g", "kendall_tau_distance"])
    panels = list(dict.fromkeys(frame["g_embeddings"])) if len(frame) else [None]
    fig, axes = _grid(len(panels), min(len(panels), 2), 4.6, 4.0, sharey=True)
    for ax, embeddings in zip(axes.flat, panels):
        part = frame[frame["g_embeddings"] == embeddings] if embeddings else frame
        for (system, variant), group in part.groupby(["system", "variant"]):
            ax.scatter(group["abs_g"], group["kendall_tau_distance"], s=10, alpha=0.6, label=f"{system} ({variant})")
        ax.set_xlabel(f"|g(q)| with {embeddings}" if embeddings else "|g(q)|")
        ax.xaxis.set_major_locator(ticker().MaxNLocator(5))
        if len(part):  # above the panel, never over its points
            ax.legend(fontsize=7, ncol=2, loc="lower left", bbox_to_anchor=(0, 1.01), borderaxespad=0, frameon=False)
        else:
            ax.text(0.5, 0.5, "no debiased embedding ranker in this study\n(--variants, --ranker-embeddings)",
                    ha="center", va="center", fontsize=9, transform=ax.transAxes)
    axes.flat[0].set_ylabel(f"Kendall τ distance, top-{result.tau_depth} lists\nbefore vs after debiasing")
    fig.tight_layout()
    return fig


def favour_figure(result):
    """Stacked bars: share of queries whose list favours male / neither / female documents, per g(q) bin,
    with the bin's number of queries above each bar and the legend above the panels."""
    runs = list(dict.fromkeys(result.favour["run"]))
    fig, axes = _grid(len(runs), 4, 3.4, 3.0, sharey=True)
    colours = {"male": "#4575b4", "balanced": "#d9d9d9", "female": "#d73027"}
    for ax, run in zip(axes.flat, runs):
        table = result.favour[result.favour["run"] == run].set_index("bin")
        bottom = np.zeros(len(table))
        for column in ("male", "balanced", "female"):
            ax.bar(range(len(table)), table[column], bottom=bottom, color=colours[column], label=column)
            bottom += table[column].to_numpy()
        for x, count in enumerate(table["n_queries"]):
            ax.text(x, 1.02, f"{count}", ha="center", va="bottom", fontsize=7)
        ax.set_ylim(0, 1.15)
        ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
        ax.set_xticks(range(len(table)), table.index, rotation=40, ha="right", rotation_mode="anchor", fontsize=7)
        ax.tick_params(axis="y", labelsize=7)
        ax.set_title(run, fontsize=8)
    measured = result.query_genderedness.columns[0]
    fig.supxlabel(f"query genderedness g(q) with {measured}, bin", fontsize=9)
    fig.supylabel("share of queries whose list favours (number above a bar: queries in the bin)", fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / fig.get_figheight()))
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=3, fontsize=8, frameon=False)
    return fig


def agreement_figure(result):
    """Query genderedness under the first two measuring embeddings, one point per query."""
    frame = result.query_genderedness.dropna()
    fig, ax = pyplot().subplots(figsize=(4.8, 4.4))
    a, b = frame.columns[:2]
    ax.scatter(frame[a], frame[b], s=10, alpha=0.7)
    r = np.corrcoef(frame[a], frame[b])[0, 1] if len(frame) > 2 else float("nan")
    ax.set_xlabel(f"g(q) with {a}")
    ax.set_ylabel(f"g(q) with {b}")
    ax.set_title(f"Query genderedness agreement (Pearson r = {r:.3f})", fontsize=10)
    ax.axhline(0, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=0.5)
    ax.xaxis.set_major_locator(ticker().MaxNLocator(5))
    fig.tight_layout()
    return fig


def figures(result) -> dict[str, object]:
    """``{file stem: function returning a figure}`` of every study-level plot."""
    out = {f"plots/{safe_filename(Path(emb).name)}/grid": (lambda e=emb: grid_figure(result, e)) for emb in result.audits}
    out["plots/rank_changes"] = lambda: tau_figure(result)
    out["plots/direct_stereotype"] = lambda: favour_figure(result)
    if result.query_genderedness.shape[1] >= 2:
        out["plots/query_genderedness_agreement"] = lambda: agreement_figure(result)
    return out
