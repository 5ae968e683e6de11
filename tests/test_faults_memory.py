"""Memory bounded by what is held, not by the size of the decompressed input: a small gzip file of a huge text is
read block by block as it is decompressed, and an error near its start is said at once. Run in a process whose
address space is capped (``ulimit -v``), where reading the whole text would end in a MemoryError."""
from __future__ import annotations

import gzip
import resource
import subprocess
import sys

import pytest
from faults_data import process_env

pytestmark = pytest.mark.slow

CAP = 1536 * 2**20  # the process's address space: imports and the Vaswani audit's setup fit, the 400 MB text does not


def _capped():
    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))


def _gzip_of(path, first: bytes, line: bytes, megabytes: int) -> None:
    chunk = line * (2**20 // len(line))
    with gzip.open(path, "wb", compresslevel=1) as handle:
        handle.write(first)
        for _ in range(megabytes):
            handle.write(chunk)


@pytest.mark.parametrize(("first", "said"), [
    (b"", ":2: document FT911-1 retrieved twice for query 1 (first at line 1)"),
    (b"1 Q0 FT911-9 1 1.0 x extra\n1 Q0 FT911-8\n", ":2: expected 6 columns 'qid Q0 doc_id rank score tag', found 3"),
])
def test_a_small_gzip_of_a_huge_run_is_read_within_a_memory_cap(shared_data, tmp_path, first, said):
    """400 MB of text in a 2 MB file: one line repeated (a duplicate at line 2), or a line 2 that is cut short."""
    run = tmp_path / "huge.run.gz"
    _gzip_of(run, first, b"1 Q0 FT911-1 1 1.0 x\n", 400)
    assert run.stat().st_size < 5 * 2**20
    vaswani = shared_data / "vaswani"
    done = subprocess.run([sys.executable, "-m", "irfair", "audit", str(run), "--qrels", str(vaswani / "qrels"), "--topics",
                           str(vaswani / "query-text.trec"), "--corpus", str(vaswani / "corpus"), "--no-cache"],
                          env=process_env(), capture_output=True, text=True, timeout=300, preexec_fn=_capped)
    assert (done.returncode, done.stdout) == (2, "") and done.stderr == f"irfair: error: {run}{said}\n"


def test_run_files_that_would_not_fit_are_refused_before_anything_is_read(shared_data, tmp_path, monkeypatch, capsys):
    """A run file of 1,000,000 bytes (its gzip counted 5 times: a gzip holds ~5 bytes of text per byte) needs 2.3 bytes
    of memory per byte of text: 2,300,000 bytes of the 2,000,000 available is one line before any file is read (exit 2),
    and the same audit with 2,300,000 available gets past the check (to the run's own fault, line 1)."""
    from irfair.audit import inputs
    from irfair.cli import main

    run = tmp_path / "a.run"
    run.write_bytes(b"x" * 1_000_000)
    vaswani = shared_data / "vaswani"
    args = ["audit", str(run), "--qrels", str(vaswani / "qrels"), "--topics", str(vaswani / "query-text.trec"), "--corpus",
            str(vaswani / "corpus"), "--no-cache", "--quiet"]
    monkeypatch.setattr(inputs, "available_memory", lambda: 2_000_000)
    assert main(args) == 2
    assert capsys.readouterr().err == ("irfair: error: 1 run file (1.0 MB of text) would need about 2.3 MB of memory to "
                                       "audit, more than the 2.0 MB available: audit fewer runs at once, or keep each "
                                       "query's first documents with --max-retrieved\n")
    monkeypatch.setattr(inputs, "available_memory", lambda: 2_300_000)
    assert main(args) == 2 and f"{run}:1:" in capsys.readouterr().err
    packed = tmp_path / "b.run.gz"
    packed.write_bytes(b"x" * 200_000)
    monkeypatch.setattr(inputs, "available_memory", lambda: 2_299_999)
    assert main([*args[:1], str(packed), *args[2:]]) == 2 and "1 run file (1.0 MB of text)" in capsys.readouterr().err
