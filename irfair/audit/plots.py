"""Scatter plots of an audit: g(q) against g_q(L) per system, its fitted line and the perfect run's line
(matplotlib, imported only here and only when a plot is drawn). The panels of one audit share one y range
(:func:`shared_y_range`), so that their slopes can be compared by eye."""
from __future__ import annotations

import io
import math
from pathlib import Path

import numpy as np

from .result import PERFECT, AuditResult

X_LABEL = "query genderedness g(q)  (female > 0 > male)"
Y_LABEL = "list genderedness g_q(L)"


def pyplot():
    """matplotlib's pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def ticker():
    """matplotlib's ticker module."""
    import matplotlib.ticker

    return matplotlib.ticker


def shared_y_range(result: AuditResult, margin: float = 0.05) -> tuple[float, float] | None:
    """The y range holding every system's g_q(L) (with a ``margin`` share of padding); None without any."""
    values = [a.gsr.per_query.loc[a.gsr.per_query["used"], "list_genderedness"].to_numpy(dtype=np.float64)
              for a in result.systems.values()]
    values = np.concatenate(values) if values else np.empty(0)
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return None
    low, high = float(values.min()), float(values.max())
    pad = margin * (high - low) if high > low else max(abs(high), 1e-3) * margin
    return low - pad, high + pad


def draw_scatter(ax, result: AuditResult, system: str, point_size: float = 14, legend: bool = True,
                 y_range: tuple[float, float] | None = None) -> None:
    """One system's queries, its OLS line and (dashed) the perfect run's line on ``ax`` (``y_range``: fixed limits)."""
    audit = result.systems[system]
    frame = audit.gsr.per_query[audit.gsr.per_query["used"]]
    x = frame["query_genderedness"].to_numpy(dtype=np.float64)
    ax.scatter(x, frame["list_genderedness"], s=point_size, alpha=0.7, label="queries")
    if len(x) >= 2 and np.ptp(x) > 0:
        grid = np.linspace(x.min(), x.max(), 50)
        g = audit.gsr
        if math.isfinite(g.slope):
            ax.plot(grid, g.intercept + g.slope * grid, color="C3", label=f"{system}: GSR = {g.slope:+.3f}")
        p = result.perfect.gsr
        if system != PERFECT and math.isfinite(p.slope):
            ax.plot(grid, p.intercept + p.slope * grid, "k--", lw=1, label=f"perfect: GSR = {p.slope:+.3f}")
    ax.axhline(0, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=0.5)
    ax.xaxis.set_major_locator(ticker().MaxNLocator(5))
    ax.yaxis.set_major_locator(ticker().MaxNLocator(6))
    if y_range is not None:
        ax.set_ylim(*y_range)
    if legend:
        ax.legend(fontsize=8, loc="best")


def scatter_figure(result: AuditResult, system: str, y_range: tuple[float, float] | None = None):
    """The figure of one system's scatter plot."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 4.2))
    draw_scatter(ax, result, system, y_range=y_range)
    ax.set_xlabel(X_LABEL)
    ax.set_ylabel(Y_LABEL)
    ax.set_title(f"{system} ({result.embeddings}, {result.systems[system].gsr.n_queries} queries)", fontsize=10)
    fig.tight_layout()
    return fig


# no creation date in the files, so that the same audit writes the same bytes (PNG files carry none)
_UNDATED = {"svg": {"Date": None}, "pdf": {"CreationDate": None}}


def save_figure(fig, path: str | Path) -> None:
    """Save a laid-out figure; the format follows the suffix (png, pdf, svg)."""
    kind = Path(path).suffix.lstrip(".") or "png"
    fig.savefig(path, format=kind, dpi=120, metadata=_UNDATED.get(kind))


def scatter_plot(result: AuditResult, system: str, path: str | Path, y_range: tuple[float, float] | None = None) -> str:
    """Save one system's scatter plot (the format follows the suffix: png, pdf, svg) and return the same
    figure as inline SVG (see :func:`figure_svg`), so that a report does not lay it out a second time."""
    fig = scatter_figure(result, system, y_range)
    save_figure(fig, path)
    return figure_svg(fig)


def figure_svg(fig, close: bool = True) -> str:
    """A figure as inline SVG markup (text kept as text, no XML header); the figure closed unless ``close`` is False."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "irfair"}):
        fig.savefig(buffer, format="svg", metadata=_UNDATED["svg"])
    if close:
        pyplot().close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def scatter_svg(result: AuditResult, system: str, y_range: tuple[float, float] | None = None) -> str:
    """One system's scatter plot as inline SVG."""
    return figure_svg(scatter_figure(result, system, y_range))
