"""Topics and qrels of an ir_datasets id, read from a synthetic source tree in the layout ir_datasets expects
(``$IR_DATASETS_HOME/disks45/04.testset.gz`` and ``qrels.robust2004.txt``), in a fresh process each time
(ir_datasets fixes its home folder when imported); no network: downloads go to a closed local port."""
import gzip
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from helpers import TREC_EVAL

from irfair.trec import irdatasets, read_qrels, read_topics

ROOT = Path(__file__).resolve().parents[1]
ROBUST = "disks45/nocr/trec-robust-2004"


def _python(code: str, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if "proxy" not in key.lower()}
    env.update(IR_DATASETS_HOME=str(home), PYTHONPATH=str(ROOT), HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9",
               IR_DATASETS_DL_TRIES="1")
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=300)


@pytest.fixture(scope="module")
def source(shared_data, tmp_path_factory) -> Path:
    """Topics 301-303 of the official Robust04 topics (gzipped, as NIST serves 04.testset.gz) and trec_eval's
    qrels.test (topics 301-303) as the Robust04 qrels."""
    home = tmp_path_factory.mktemp("ir_datasets")
    (home / "disks45").mkdir()
    blocks = (shared_data / "robust04" / "topics.robust04.txt").read_text().split("</top>")[:3]
    (home / "disks45" / "04.testset.gz").write_bytes(gzip.compress(("</top>".join(blocks) + "</top>\n").encode()))
    (home / "disks45" / "qrels.robust2004.txt").write_bytes((TREC_EVAL / "qrels.test").read_bytes())
    return home


def test_topics_and_qrels_of_an_id(source, shared_data):
    code = ("import json, sys; from irfair.trec import as_qrels, as_topics; t = as_topics(sys.argv[1]); q = as_qrels(sys.argv[1]);"
            "print(json.dumps([{k: [v.title, v.description] for k, v in t.items()}, q]))")
    completed = _python(code, source, ROBUST)
    assert completed.returncode == 0, completed.stderr
    topics, qrels = json.loads(completed.stdout)
    official = read_topics(shared_data / "robust04" / "topics.robust04.txt")
    assert topics == {q: [official[q].title, official[q].description] for q in ("301", "302", "303")}
    assert qrels == read_qrels(TREC_EVAL / "qrels.test")


def test_audit_with_ir_datasets_topics_and_qrels(source, tmp_path):
    """``irfair audit --topics ID --qrels ID`` gives trec_eval's numbers for its test run (out.test: map 0.1785)."""
    docs = {line.split()[2] for name in ("qrels.test", "results.test") for line in (TREC_EVAL / name).read_text().splitlines()}
    texts = ("the woman said she would stay home", "the man said he would stay home")
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text("".join(json.dumps({"id": d, "contents": texts[zlib.crc32(d.encode()) % 2]}) + "\n" for d in sorted(docs)))
    code = "import sys; from irfair.cli import run; run(sys.argv[1:])"
    completed = _python(code, source, "audit", str(TREC_EVAL / "results.test"), "--topics", ROBUST, "--qrels", ROBUST,
                        "--corpus", str(corpus), "--query-field", "desc", "--bootstrap", "0", "--no-random", "--no-cache",
                        "-m", "map", "-q")
    assert completed.returncode == 0, completed.stderr
    assert "map                   \tall\t0.1785" in completed.stdout.splitlines()
    assert "query field desc" in completed.stdout


def test_offline_missing_source_is_one_line_naming_what_to_place_where(tmp_path):
    home = tmp_path / "empty"
    code = "import sys; from irfair.cli import run; run(sys.argv[1:])"
    completed = _python(code, home, "audit", str(TREC_EVAL / "results.test"), "--topics", ROBUST, "--qrels", str(TREC_EVAL / "qrels.test"),
                        "--corpus", str(tmp_path), "--no-cache")
    assert completed.returncode == 2
    assert completed.stderr.count("\n") == 1, completed.stderr
    line = completed.stderr.strip()
    assert line.startswith(f"irfair: error: {ROBUST}: ir_datasets could not read its topics (")
    assert line.endswith(f"place https://trec.nist.gov/data/robust/04.testset.gz at {home / 'disks45' / '04.testset.gz'} (or pass a file)")


def test_an_id_without_a_slash_is_an_id_not_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert irdatasets.dataset_id("vaswani") == "vaswani"
    (tmp_path / "vaswani").write_text("1\tquery\n")
    assert irdatasets.dataset_id("vaswani") is None  # an existing file wins
    assert irdatasets.dataset_id("no-such-thing") is None
