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
