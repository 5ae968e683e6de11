"""Scatter plots: drawn by worker processes, they are the figures this process draws (same PNG and SVG bytes)."""
import pytest
from helpers import overlap_run

from irfair.audit import audit
from irfair.corpus import open_corpus
from irfair.presentation.plots import scatter_drawings, scatter_svg, shared_y_range
from irfair.trec import read_topics


@pytest.fixture(scope="module")
def result(shared_data, w2v):
    folder = shared_data / "time"
    topics = read_topics(folder / "topics.time.txt")
    docs = dict(open_corpus(folder / "time.trec").iter_docs())
    return audit([overlap_run(topics, docs), overlap_run(topics, docs, idf=False, name="tf")], folder / "qrels.time.txt",
                 folder / "topics.time.txt", folder / "time.trec", w2v, n_bootstrap=50, n_permutations=99, cache_dir=False)


def test_plots_drawn_by_workers_are_those_drawn_here(result, monkeypatch):
    y_range = shared_y_range(result)
    with scatter_drawings(result, y_range, jobs=1) as here:
        drawn_here = {name: get() for name, get in here.items()}
    monkeypatch.setattr("irfair.presentation.plots.WORKERS_FROM", 2)  # workers for the four systems
    with scatter_drawings(result, y_range, jobs=2) as workers:
        drawn_by_workers = {name: get() for name, get in workers.items()}
    assert list(drawn_here) == list(result.systems) == ["perfect", "random", "overlap", "tf"]
    assert drawn_by_workers == drawn_here
    for name, (png, svg) in drawn_here.items():
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and svg == scatter_svg(result, name, y_range)
    with scatter_drawings(result, y_range, png=False, jobs=2) as svg_only:
        assert svg_only["tf"]() == (None, drawn_here["tf"][1])


def test_figures_rendered_by_workers_are_those_rendered_here(result, monkeypatch):
    """A study's scatter plots as PNG and PDF: the same bytes from worker processes as from this one, PDFs undated."""
    from irfair.presentation.plots import rendered_figures, scatter_figure

    sources = {name: (lambda n=name: scatter_figure(result, n)) for name in result.systems}
    with rendered_figures(sources, ("png", "pdf"), jobs=1) as here:
        drawn_here = {key: get() for key, get in here.items()}
    monkeypatch.setattr("irfair.presentation.plots.WORKERS_FROM", 2)
    with rendered_figures(sources, ("png", "pdf"), jobs=2) as workers:
        assert {key: get() for key, get in workers.items()} == drawn_here
    assert list(drawn_here) == ["perfect", "random", "overlap", "tf"]
    for files in drawn_here.values():
        assert files["png"].startswith(b"\x89PNG\r\n\x1a\n") and files["pdf"].startswith(b"%PDF")
        assert b"CreationDate" not in files["pdf"]


def test_a_plot_of_the_same_values_is_read_from_the_cache_and_a_damaged_one_drawn_again(result, tmp_path, monkeypatch, capsys):
    """The figure cache keys a plot by every value it shows: a second audit of the same data draws nothing and writes
    the same bytes; another y range, or a plot without its PNG, is drawn anew; a damaged entry is said and redrawn."""
    import irfair.presentation.plots as plots

    y_range = shared_y_range(result)
    with scatter_drawings(result, y_range, jobs=1) as here:
        expected = {name: get() for name, get in here.items()}
    drawn = []
    real = plots._drawn
    monkeypatch.setattr(plots, "_drawn", lambda data, png: drawn.append((data.system, png)) or real(data, png))

    def drawings(y, png=True):
        drawn.clear()
        with scatter_drawings(result, y, png=png, jobs=1, cache_dir=tmp_path) as got:
            return {name: get() for name, get in got.items()}

    assert drawings(y_range) == expected and len(drawn) == 4  # drawn once, and kept
    assert drawings(y_range) == expected and drawn == []  # read back: nothing drawn
    assert drawings((y_range[0], y_range[1] + 0.1)) != expected and len(drawn) == 4  # other values: other plots
    assert drawings(y_range, png=False) == {name: (None, svg) for name, (_, svg) in expected.items()} and len(drawn) == 4
    entry = next(p for p in (tmp_path / "figures").iterdir() if (p / "figure.png").exists()
                               and (p / "figure.svg").read_text() == expected["tf"][1])
    (entry / "figure.svg").write_text(expected["tf"][1].replace("queries", "QUERIES"))  # same size, other bytes
    capsys.readouterr()
    assert drawings(y_range) == expected and [name for name, _ in drawn] == ["tf"]
    err = capsys.readouterr().err  # the changed file is not irfair's to delete: kept aside
    assert err.startswith("irfair: cache entry ") and err.count("\n") == 1 and entry.name in err
    assert "differs from its checksum); rebuilding (what irfair did not write is kept beside it in" in err
    kept = next(entry.parent.glob(f"{entry.name}.kept-*"))
    assert [p.name for p in kept.iterdir()] == ["figure.svg"]
