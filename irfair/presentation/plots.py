"""Scatter plots of an audit: g(q) against g_q(L) per system, its fitted line and the perfect run's line
(matplotlib, imported only here and only when a plot is drawn). The panels of one audit share one y range
(:func:`shared_y_range`), so that their slopes can be compared by eye."""
from __future__ import annotations

import functools
import io
import math
import multiprocessing
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import numpy as np

from ..audit.result import PERFECT, AuditResult
from ..numbers import fixed

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


RASTERIZED_ABOVE = 2000  # queries in a scatter plot above which its points are an image in the SVG


def draw_scatter(ax, result: AuditResult, system: str, point_size: float = 14, legend: bool = True,
                 y_range: tuple[float, float] | None = None) -> None:
    """One system's queries, its OLS line and (dashed) the perfect run's line on ``ax`` (``y_range``: fixed limits)."""
    audit = result.systems[system]
    frame = audit.gsr.per_query[audit.gsr.per_query["used"]]
    x = frame["query_genderedness"].to_numpy(dtype=np.float64)
    # thousands of points (MS MARCO's 6,980 queries) drawn as one image inside the SVG: 1 MB of vector points each
    ax.scatter(x, frame["list_genderedness"], s=point_size, alpha=0.7, label="queries", rasterized=len(x) > RASTERIZED_ABOVE)
    if len(x) >= 2 and np.ptp(x) > 0:
        grid = np.linspace(x.min(), x.max(), 50)
        g = audit.gsr
        if math.isfinite(g.slope):
            ax.plot(grid, g.intercept + g.slope * grid, color="C3", label=f"{system}: GSR = {fixed(g.slope, 3, sign=True)}")
        p = result.perfect.gsr
        if system != PERFECT and math.isfinite(p.slope):
            ax.plot(grid, p.intercept + p.slope * grid, "k--", lw=1, label=f"perfect: GSR = {fixed(p.slope, 3, sign=True)}")
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


def save_figure(fig, path, kind: str | None = None) -> None:
    """Save a laid-out figure to a path or a binary file; the format is ``kind``, else the path's suffix (png, pdf,
    svg)."""
    kind = kind or Path(path).suffix.lstrip(".") or "png"
    fig.savefig(path, format=kind, dpi=120, metadata=_UNDATED.get(kind))


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


T = TypeVar("T")

# figures from which worker processes draw them: a worker takes a quarter of a second to start (matplotlib is
# imported in it), about as long as two or three plots take to draw here
WORKERS_FROM = 8
# what worker processes draw: {key: a function giving the drawing's bytes}, set before they are forked (inherited,
# not pickled)
_jobs: dict[str, Callable] = {}


def _drawn_in_worker(key: str):
    return _jobs[key]()


@contextmanager
def drawn_by_workers(drawings: dict[str, Callable[[], T]], jobs: int | None = None) -> Iterator[dict[str, Callable[[], T]]]:
    """``{key: get}`` where ``get()`` gives ``drawings[key]()``.

    With ``jobs`` > 1 (default :func:`irfair.executor.default_jobs`) and at least :data:`WORKERS_FROM` drawings, they
    are made by that many worker processes forked from this one, from the first call on, while this process writes
    the other outputs (matplotlib holds the GIL, so threads would not help); the bytes are those drawn here, by the
    same code from the same state. Otherwise, or where processes cannot be forked, each is drawn here when asked for."""
    global _jobs
    from ..executor import default_jobs

    jobs = min(default_jobs() if jobs is None else jobs, len(drawings))
    if jobs < 2 or len(drawings) < WORKERS_FROM or "fork" not in multiprocessing.get_all_start_methods():
        yield {key: functools.cache(draw) for key, draw in drawings.items()}
        return
    pyplot()  # imported once here rather than in every worker
    _jobs = dict(drawings)
    try:
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            futures = {key: pool.submit(_drawn_in_worker, key) for key in drawings}
            yield {key: future.result for key, future in futures.items()}
    finally:
        _jobs = {}


def _drawn(result: AuditResult, y_range: tuple[float, float] | None, system: str, png: bool) -> tuple[bytes | None, str]:
    """``(PNG bytes or None, inline SVG)`` of one system's scatter plot, laid out once for both."""
    fig = scatter_figure(result, system, y_range)
    image = None
    if png:
        buffer = io.BytesIO()
        save_figure(fig, buffer, "png")
        image = buffer.getvalue()
    return image, figure_svg(fig)


def scatter_drawings(result: AuditResult, y_range: tuple[float, float] | None, png: bool = True,
                     jobs: int | None = None):
    """Every system's scatter plot, ``{system: get}`` where ``get()`` gives ``(PNG bytes or None, inline SVG)``, as
    :func:`drawn_by_workers` draws them (a context manager)."""
    return drawn_by_workers({name: functools.partial(_drawn, result, y_range, name, png) for name in result.systems}, jobs)


def _rendered(make: Callable, formats: tuple[str, ...]) -> dict[str, bytes]:
    """The figure ``make()`` laid out once and saved in each of ``formats``, then closed."""
    fig = make()
    files = {}
    for kind in formats:
        buffer = io.BytesIO()
        save_figure(fig, buffer, kind)
        files[kind] = buffer.getvalue()
    pyplot().close(fig)
    return files


def rendered_figures(sources: dict[str, Callable], formats: tuple[str, ...], jobs: int | None = None):
    """``{key: get}`` where ``get()`` gives the figure ``sources[key]()`` saved in each of ``formats`` (``{format:
    bytes}``), as :func:`drawn_by_workers` draws them (a context manager)."""
    return drawn_by_workers({key: functools.partial(_rendered, make, formats) for key, make in sources.items()}, jobs)
