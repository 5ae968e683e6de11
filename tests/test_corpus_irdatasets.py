"""``--corpus`` takes an ir_datasets id as ``--topics``/``--qrels`` do (any registered id, not only ids with a
slash); documents that are not on disk are one line, since irfair downloads nothing."""
import re

import pytest

pytest.importorskip("ir_datasets")

from irfair.cli import main  # noqa: E402
from irfair.corpus import IrDatasetsCorpus, open_corpus  # noqa: E402
from irfair.errors import IrfairInputError  # noqa: E402

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


@pytest.fixture()
def vaswani_docs(shared_data, ir_datasets_home):
    """ir_datasets' vaswani documents (docs.txt: id line, text, '   /' line) made from the shared TREC copy, where
    ir_datasets keeps them after its own download; removed afterwards."""
    text = (shared_data / "vaswani" / "corpus" / "doc-text.trec").read_text()
    folder = ir_datasets_home / "vaswani"
    folder.mkdir(parents=True, exist_ok=True)
    docs = re.findall(r"<DOC>\s*<DOCNO>(.*?)</DOCNO>(.*?)</DOC>", text, re.S)
    (folder / "docs.txt").write_text("".join(f"{d.strip()}\n{body.strip(chr(10))}\n   /\n" for d, body in docs))
    yield len(docs)
    for path in sorted(folder.iterdir(), reverse=True):
        if path.is_file():
            path.unlink()


def test_an_id_without_a_slash_is_an_ir_datasets_corpus(vaswani_docs, shared_data, capsys):
    assert vaswani_docs == 11429
    assert isinstance(open_corpus("vaswani"), IrDatasetsCorpus)
    vaswani = shared_data / "vaswani"
    common = [str(ROOT / "runs" / "vaswani" / "bm25.run"), "--qrels", str(vaswani / "qrels"), "--topics",
              str(vaswani / "query-text.trec"), "--bootstrap", "0", "--no-random", "--no-cache", "--quiet", "--format", "tsv"]
    assert main(["audit", *common, "--corpus", "vaswani"]) == 0
    by_id = capsys.readouterr().out
    assert main(["audit", *common, "--corpus", str(vaswani / "corpus")]) == 0
    assert by_id == capsys.readouterr().out  # the same text by either route, so the same numbers
    assert "\nbm25\tsystem\t0.03577488848\t" in by_id


@pytest.mark.parametrize(("dataset", "message"), [
    ("cranfield", r"cranfield/docs\.txt: the documents of ir_datasets id cranfield are not here \(irfair downloads nothing\)"),
    ("beir/scifact", r"beir/scifact: the documents of this ir_datasets id are not available offline \(irfair downloads "
                     r"nothing\): place https://\S+scifact\.zip at \S+source\.zip"),
])
def test_documents_not_on_disk_are_one_line(dataset, message, shared_data, capsys):
    vaswani = shared_data / "vaswani"
    code = main(["audit", str(ROOT / "runs" / "vaswani" / "bm25.run"), "--qrels", str(vaswani / "qrels"), "--topics",
                 str(vaswani / "query-text.trec"), "--corpus", dataset, "--no-cache", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and re.search(message, err), err


def test_an_unknown_name_is_still_not_found():
    with pytest.raises(IrfairInputError, match="corpus not found: expected a file, a folder or an ir_datasets id"):
        open_corpus("no-such-collection")
