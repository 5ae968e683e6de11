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
from dataclasses import dataclass
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


@dataclass(frozen=True)
class ScatterData:
    """Everything one system's scatter plot shows, and nothing else (the figure cache keys a drawing by it): the
    used queries' g(q) (``x``) and g_q(L) (``y``), the system's fitted line, the perfect run's (None for the perfect
    run itself, or when not finite), the title's embeddings and query count, the shared y range."""

    system: str
    embeddings: str
    n_queries: int
    x: np.ndarray
    y: np.ndarray
    slope: float
    intercept: float
    perfect_line: tuple[float, float] | None
    y_range: tuple[float, float] | None

    def digest(self) -> str:
        """SHA-256 (hex) of every value drawn: equal digests, equal figures (with :func:`drawing_code`)."""
        import hashlib
        import json

        scalars = json.dumps([self.system, self.embeddings, self.n_queries, repr(self.slope), repr(self.intercept),
                              None if self.perfect_line is None else [repr(v) for v in self.perfect_line],
                              None if self.y_range is None else [repr(v) for v in self.y_range]])
        digest = hashlib.sha256(scalars.encode())
        for values in (self.x, self.y):
            digest.update(str(len(values)).encode() + b":" + np.ascontiguousarray(values, dtype=np.float64).tobytes())
        return digest.hexdigest()


def scatter_data(result: AuditResult, system: str, y_range: tuple[float, float] | None = None) -> ScatterData:
    """What :func:`scatter_figure` draws of ``system``."""
    gsr = result.systems[system].gsr
    frame = gsr.per_query[gsr.per_query["used"]]
    perfect = result.perfect.gsr
    perfect_line = (perfect.intercept, perfect.slope) if system != PERFECT and math.isfinite(perfect.slope) else None
    return ScatterData(system, result.embeddings, gsr.n_queries, frame["query_genderedness"].to_numpy(dtype=np.float64),
                       frame["list_genderedness"].to_numpy(dtype=np.float64), gsr.slope, gsr.intercept, perfect_line,
                       None if y_range is None else (float(y_range[0]), float(y_range[1])))


def draw_scatter(ax, result: AuditResult, system: str, point_size: float = 14, legend: bool = True,
                 y_range: tuple[float, float] | None = None) -> None:
    """One system's queries, its OLS line and (dashed) the perfect run's line on ``ax`` (``y_range``: fixed limits)."""
    draw_scatter_data(ax, scatter_data(result, system, y_range), point_size, legend)


def draw_scatter_data(ax, data: ScatterData, point_size: float = 14, legend: bool = True) -> None:
    """:func:`draw_scatter` from the values drawn."""
    x = data.x
    # thousands of points (MS MARCO's 6,980 queries) drawn as one image inside the SVG: 1 MB of vector points each
    ax.scatter(x, data.y, s=point_size, alpha=0.7, label="queries", rasterized=len(x) > RASTERIZED_ABOVE)
    if len(x) >= 2 and np.ptp(x) > 0:
        grid = np.linspace(x.min(), x.max(), 50)
        if math.isfinite(data.slope):
            ax.plot(grid, data.intercept + data.slope * grid, color="C3",
                    label=f"{data.system}: GSR = {fixed(data.slope, 3, sign=True)}")
        if data.perfect_line is not None:
            intercept, slope = data.perfect_line
            ax.plot(grid, intercept + slope * grid, "k--", lw=1, label=f"perfect: GSR = {fixed(slope, 3, sign=True)}")
    ax.axhline(0, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=0.5)
    ax.xaxis.set_major_locator(ticker().MaxNLocator(5))
    ax.yaxis.set_major_locator(ticker().MaxNLocator(6))
    if data.y_range is not None:
        ax.set_ylim(*data.y_range)
    if legend:
        ax.legend(fontsize=8, loc="best")


def scatter_figure(result: AuditResult, system: str, y_range: tuple[float, float] | None = None):
    """The figure of one system's scatter plot."""
    return scatter_data_figure(scatter_data(result, system, y_range))


def scatter_data_figure(data: ScatterData):
    """:func:`scatter_figure` from the values drawn."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 4.2))
    draw_scatter_data(ax, data)
    ax.set_xlabel(X_LABEL)
    ax.set_ylabel(Y_LABEL)
    ax.set_title(f"{data.system} ({data.embeddings}, {data.n_queries} queries)", fontsize=10)
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


class Drawings(dict):
    """``{key: get}`` of :func:`scatter_drawings`, with ``ready``: whether every ``get`` gives a drawing already made
    (read from the cache), drawing and writing nothing, waiting for no worker process: only then may a process
    forked from this one call them."""

    ready = False


def drawings_ready(drawings: dict) -> bool:
    """Whether every ``get`` of ``drawings`` gives a drawing already made (:class:`Drawings`)."""
    return bool(getattr(drawings, "ready", False))


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


def _drawn(data: ScatterData, png: bool) -> tuple[bytes | None, str]:
    """``(PNG bytes or None, inline SVG)`` of one system's scatter plot, laid out once for both."""
    fig = scatter_data_figure(data)
    image = None
    if png:
        buffer = io.BytesIO()
        save_figure(fig, buffer, "png")
        image = buffer.getvalue()
    return image, figure_svg(fig)


@contextmanager
def scatter_drawings(result: AuditResult, y_range: tuple[float, float] | None, png: bool = True,
                     jobs: int | None = None, cache_dir: Path | None = None):
    """Every system's scatter plot, ``{system: get}`` where ``get()`` gives ``(PNG bytes or None, inline SVG)``, as
    :func:`drawn_by_workers` draws them (a context manager). With ``cache_dir``, a plot of the same values drawn by
    the same code before is read from the cache, and one drawn now is kept there (:mod:`.figure_cache`)."""
    data = {name: scatter_data(result, name, y_range) for name in result.systems}
    if cache_dir is None:
        with drawn_by_workers({name: functools.partial(_drawn, d, png) for name, d in data.items()}, jobs) as drawn:
            yield drawn
        return
    from .figure_cache import cached_drawing, load_drawing, scatter_entry, write_drawing

    entries = {name: scatter_entry(cache_dir, d, png) for name, d in data.items()}
    found = {name: cached_drawing(entry) for name, entry in entries.items()}
    missing = {name: functools.partial(_drawn, data[name], png) for name, drawing in found.items() if drawing is None}
    with drawn_by_workers(missing, jobs) as drawn:
        def kept(name: str):
            return entries[name].obtain(load_drawing, lambda staging: write_drawing(staging, drawn[name]()))

        got = Drawings({name: ((lambda drawing=found[name]: drawing) if found[name] is not None
                               else functools.cache(functools.partial(kept, name))) for name in data})
        got.ready = not missing
        yield got


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
