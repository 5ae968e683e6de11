"""Atomic writes: the mode a written file gets, and the path an error names."""
import os
import stat

import pytest

from irfair.atomic import WriteFailed, write_outputs, write_text


@pytest.fixture
def umask_022():
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_a_written_file_is_readable_by_others_as_open_would_make_it(tmp_path, umask_022):
    write_text(tmp_path / "a.run", "1 Q0 d 1 1.0 x\n")
    # mkstemp makes 0o600; a plain open() under umask 022 makes 0o644
    assert stat.S_IMODE((tmp_path / "a.run").stat().st_mode) == 0o644


def test_a_folder_in_the_way_of_the_file_is_named_not_the_temporary_file(tmp_path):
    (tmp_path / "folds.json").mkdir()
    with pytest.raises(WriteFailed) as caught:
        write_text(tmp_path / "folds.json", "{}")
    assert caught.value.filename == str(tmp_path / "folds.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folds.json"]


def test_a_folder_in_the_way_of_one_output_moves_none_of_them(tmp_path):
    (tmp_path / "b.csv").mkdir()
    (tmp_path / "a.csv").write_text("user's file\n")
    writers = {"a.csv": lambda p: p.write_text("new\n"), "b.csv": lambda p: p.write_text("new\n")}
    with pytest.raises(WriteFailed) as caught:
        write_outputs(tmp_path, writers)
    assert caught.value.filename == str(tmp_path / "b.csv")
    assert (tmp_path / "a.csv").read_text() == "user's file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "b.csv"]


def test_an_output_folder_keeps_the_files_irfair_did_not_write(tmp_path):
    """A study or audit folder may hold the user's own gsr.csv, or an output the user edited: moved aside to
    <name>.kept-<n> with a warning, never replaced; what irfair wrote there (name and SHA-256 in the folder's
    manifest) is replaced without a word."""
    import hashlib
    import json
    import warnings

    from irfair.errors import IrfairWarning

    def text(value):
        return lambda path: path.write_text(value)

    out = tmp_path / "out"
    out.mkdir()
    (out / "gsr.csv").write_text("mine\n")
    (out / "notes.txt").write_text("notes\n")
    with pytest.warns(IrfairWarning, match=r"out/gsr\.csv: irfair did not write this file; kept as gsr\.csv\.kept-1$"):
        write_outputs(out, {"gsr.csv": text("a\n"), "table.txt": text("t\n")})
    assert (out / "gsr.csv.kept-1").read_text() == "mine\n" and (out / "gsr.csv").read_text() == "a\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_outputs(out, {"gsr.csv": text("b\n")})
    (out / "table.txt").write_text("edited\n")
    with pytest.warns(IrfairWarning, match=r"table\.txt: irfair did not write this file; kept as table\.txt\.kept-1$"):
        write_outputs(out, {"table.txt": text("t2\n")})
    assert sorted(p.name for p in out.iterdir()) == [".irfair-outputs.json", "gsr.csv", "gsr.csv.kept-1", "notes.txt", "table.txt",
                                                     "table.txt.kept-1"]
    assert json.loads((out / ".irfair-outputs.json").read_text()) == {
        "files": {"gsr.csv": hashlib.sha256(b"b\n").hexdigest(), "table.txt": hashlib.sha256(b"t2\n").hexdigest()}}


def test_a_new_output_folder_is_renamed_into_place_whole_or_written_into_one_made_meanwhile(tmp_path, umask_022):
    """A new folder is staged beside its place and renamed there (mode 0o755 under umask 022, not mkdtemp's 0o700);
    when another process makes the folder, with a file in it, while the outputs are written, they are written into
    that folder instead, its file kept; no staging folder is left beside either."""
    out = tmp_path / "deep" / "out"
    assert write_outputs(out, {"a.txt": lambda p: p.write_text("a"), "plots/b.txt": lambda p: p.write_text("b")}) == \
        [out / "a.txt", out / "plots" / "b.txt"]
    assert stat.S_IMODE(out.stat().st_mode) == 0o755 and (out / "plots" / "b.txt").read_text() == "b"
    assert sorted(p.name for p in out.parent.iterdir()) == ["out"]

    raced = tmp_path / "raced"

    def meanwhile(path):
        raced.mkdir(exist_ok=True)
        (raced / "theirs.txt").write_text("theirs")
        path.write_text("mine")

    assert write_outputs(raced, {"a.txt": meanwhile}) == [raced / "a.txt"]
    assert (raced / "a.txt").read_text() == "mine" and (raced / "theirs.txt").read_text() == "theirs"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep", "raced"]
    assert not [p for p in raced.iterdir() if p.name.startswith(".irfair-staging")]
