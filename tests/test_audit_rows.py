"""Store rows of run files kept in the cache: a second audit of the same files looks nothing up and measures the
same; a damaged entry is said, looked up again and replaced."""
import numpy as np
import pytest

from irfair.audit import audit, rows
from irfair.toy import toy_direct


@pytest.fixture(scope="module")
def toy_files(tmp_path_factory):
    return toy_direct().write(tmp_path_factory.mktemp("toy1"))


def _audit(paths, cache):
    return audit([paths["S"], paths["N"]], paths["qrels"], paths["topics"], paths["corpus"], "glove-6b-50d", n_bootstrap=20,
                 cache_dir=cache)


def test_a_second_audit_reads_its_store_rows_from_the_cache(toy_files, tmp_path, monkeypatch, capsys):
    """First audit: both runs' rows looked up and kept (one entry each beside the runs' own). Second: none looked up,
    the same GSR and per-query table. rows.npy cut short: said on stderr, looked up again, the same numbers."""
    cache = tmp_path / "cache"
    looked_up = []
    original = rows._looked_up_rows
    monkeypatch.setattr(rows, "_looked_up_rows", lambda runs, store: looked_up.append(len(runs)) or original(runs, store))
    first = _audit(toy_files, cache)
    assert looked_up == [2] and len(list((cache / "runs").glob("[!.]*-rows-*"))) == 2
    second = _audit(toy_files, cache)
    assert looked_up == [2, 0]
    assert first.table()["gsr"].tolist() == second.table()["gsr"].tolist()
    assert first.per_query().equals(second.per_query())
    entry = sorted((cache / "runs").glob("S.run-rows-*"))[0]
    saved = np.load(entry / "rows.npy")
    # the store holds job i's man then woman (rows 2i, 2i + 1); S lists the woman for the 10 female jobs, the man for
    # the 10 male ones
    assert saved.dtype == np.int32 and saved.tolist() == [*range(1, 20, 2), *range(20, 40, 2)]
    (entry / "rows.npy").write_bytes((entry / "rows.npy").read_bytes()[:-4])
    capsys.readouterr()
    third = _audit(toy_files, cache)
    assert looked_up == [2, 0, 1] and "is damaged (rows.npy has" in capsys.readouterr().err
    assert third.table()["gsr"].tolist() == first.table()["gsr"].tolist()
    assert np.array_equal(np.load(entry / "rows.npy"), saved)
