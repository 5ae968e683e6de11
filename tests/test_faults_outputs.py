"""Outputs that break or collide, as classes: a name's special characters in every format (Markdown ``|``,
a tab or line break in a system name), file names made from system names that would be the same file, and
lines past 100 columns from long names."""
from __future__ import annotations

import shutil

import pytest
from faults_data import make_time_inputs, run_cli


@pytest.fixture(scope="module")
def inputs(shared_data, glove, tmp_path_factory):
    return make_time_inputs(shared_data / "time", tmp_path_factory.mktemp("outputs-inputs"), glove)


def _copies(inputs, folder, names):
    folder.mkdir()
    for source, name in zip(inputs.runs, names):
        shutil.copy(source, folder / f"{name}.run")
    return folder


def _audit(inputs, folder, *extra):
    args = inputs.audit_args(folder, "--permutations", "200", *extra)
    return run_cli(args)


def test_a_pipe_in_a_system_name_stays_in_its_markdown_cell(inputs, tmp_path):
    folder = _copies(inputs, tmp_path / "runs", ["a|b", "c\\d"])
    code, printed, _ = _audit(inputs, folder, "--format", "markdown")
    assert code == 0
    table = [line for line in printed.splitlines() if line.startswith("| ")]
    header_cells = table[0].count(" | ")
    for row in table[:5]:  # the summary: every row has as many unescaped cell separators as its header
        assert row.replace("\\|", "").count(" | ") == header_cells, row
    assert any("| a\\|b |" in row for row in table) and any("| c\\\\d |" in row for row in table)


@pytest.mark.parametrize("name", ["tab\there", "line\rbreak", "bell\x07"])
def test_a_system_name_with_a_control_character_is_one_line(inputs, tmp_path, name):
    folder = _copies(inputs, tmp_path / "runs", [name, "other"])
    code, printed, err = _audit(inputs, folder, "--out", tmp_path / "out")
    assert (code, printed) == (2, "") and err.count("\n") == 1 and "is empty or holds a tab, a line break" in err
    assert not (tmp_path / "out").exists()


def test_names_that_would_share_a_plot_file_are_told_apart_once(inputs, tmp_path):
    folder = _copies(inputs, tmp_path / "runs", ["run a", "run_a", "RUN_A"])
    args = [a for a in inputs.audit_args(folder, "--permutations", "200", "--out", str(tmp_path / "out")) if a != "--no-plots"]
    code, _, err = run_cli(args)
    assert code == 0
    # the folder's runs in name order: RUN_A, run a, run_a (the same file where case is ignored, as on macOS)
    plots = sorted(p.name for p in (tmp_path / "out").glob("scatter_*.png"))
    assert plots == ["scatter_RUN_A.png", "scatter_perfect.png", "scatter_random.png", "scatter_run_a-2.png", "scatter_run_a-3.png"]
    assert err.count("system names that would share scatter plot files are told apart") == 1
    assert "'run a' as run_a-2, 'run_a' as run_a-3" in err


def test_long_names_keep_every_printed_line_within_100_columns(inputs, tmp_path):
    long = "x" * 160
    folder = _copies(inputs, tmp_path / "runs", [long, "short"])
    code, printed, _ = _audit(inputs, folder, "--fail-on", "map-above:short", "--fail-on", "map-below:short")
    assert code in (0, 1) and printed.strip()
    assert max(len(line) for line in printed.splitlines()) <= 100
    assert "x" * 95 + "~" in printed


def test_a_folder_in_place_of_the_output_record_stops_before_anything_moves(inputs, tmp_path):
    """The record of what irfair wrote (.irfair-outputs.json) is written with the outputs, all or nothing: a folder
    in its place is found before any file moves, said as it is, and the folder is left as it was."""
    out = tmp_path / "out"
    assert run_cli(inputs.audit_args(inputs.runs[0], "--permutations", "200", "--out", out))[0] == 0
    (out / ".irfair-outputs.json").unlink()
    (out / ".irfair-outputs.json").mkdir()
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    code, printed, err = run_cli(inputs.audit_args(inputs.runs[1], "--permutations", "200", "--out", out))
    assert (code, printed) == (2, "") and err.count("\n") == 1
    assert "a folder is in the way of irfair's record of the files it wrote here" in err and ".irfair-outputs.json" in err
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    assert not list(out.glob(".irfair-staging-*")) and not list(out.glob("*.kept-*"))


def test_an_input_error_waits_for_the_work_started_beside_the_audit(inputs, tmp_path, monkeypatch):
    """The term store is opened on a thread while the runs are read; a bad run raised while that thread still ran,
    and the process could exit under it ("terminate called without an active exception", exit 134). The error
    now comes once the thread has ended."""
    import threading
    import time

    from irfair.audit import core

    opened = core._open_store

    def slow(corpus, cache):
        time.sleep(1.0)
        return opened(corpus, cache)

    monkeypatch.setattr(core, "_open_store", slow)
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 doc 1 1.0 x\n1 Q0 doc 2 0.5 x\n")
    before = set(threading.enumerate())
    code, _, err = run_cli(inputs.audit_args(bad))
    assert code == 2 and "retrieved twice" in err
    assert [t for t in threading.enumerate() if t not in before and t.is_alive()] == []
