"""A TREC disks 4&5 folder is read as Robust04 reads it: ir_datasets' four globs (any letter case), the
Congressional Record and other files left out with one line, compressed files read; its fingerprint
follows its files, so a changed copy is read again."""
import gzip
import os

from disks45_tree import compress_z, fbis, ft, latimes

from irfair.corpus import TermStore, TrecCorpus, open_corpus
from irfair.corpus.disks45 import disks45_files, sub_collection_of
from irfair.text import tokenize


def _tree(root):
    files = {
        "fbis/FB396001.Z": compress_z(fbis("FBIS3-1", "actress wins", "she spoke", "women").encode()),
        "ft/FT911/ft911_1.gz": gzip.compress(ft("FT911-1", "jet", "he flew").encode()),
        "LATIMES/LA010189": latimes("LA010189-0001", "mother", ["she raised her daughter"]).encode(),
        "FR94/01/FR940104.0Z": compress_z(b"<DOC>\n<DOCNO> FR940104-0-00001 </DOCNO>\n<TEXT>\nrule\n</TEXT>\n</DOC>\n"),
        "FR94/readfrcg": b"read me\n",
        "FBIS/FBISDTD": b"<!ELEMENT DOC - - (DOCNO, TEXT)>\n",  # matched by FB*, holds no document
        "CR/HFILES/CR93H1": b"<DOC>\n<DOCNO> CR93H-1 </DOCNO>\n<TEXT>\nsenator\n</TEXT>\n</DOC>\n",
        "CR93H2.Z": compress_z(b"<DOC>\n<DOCNO> CR93H-2 </DOCNO>\n<TEXT>\nsenator\n</TEXT>\n</DOC>\n"),
    }
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


def test_layout_by_ir_datasets_globs(tmp_path):
    assert sub_collection_of(tmp_path.joinpath("x/FBIS/FB396001.Z").relative_to(tmp_path)) == "FBIS"
    assert [sub_collection_of(p) for p in map(lambda s: tmp_path.joinpath(s).relative_to(tmp_path), [
        "FR94/01/FR940104.0Z", "FR94/FR940104.0Z", "FT/FT911/FT911_1", "FT/FT911_1", "LATIMES/LA010189", "CR/CR93H1"])] == [
        "FR94", None, "FT", None, "LATIMES", None]
    _tree(tmp_path)
    files = disks45_files(tmp_path)
    assert [p.name for p in files.robust04] == ["FBISDTD", "FB396001.Z", "FR940104.0Z", "ft911_1.gz", "LA010189"]  # by name
    assert [p.name for p in files.congressional_record] == ["CR93H1", "CR93H2.Z"]
    assert [p.name for p in files.other] == ["readfrcg"]
    assert disks45_files(tmp_path / "CR") is None


def test_folder_leaves_out_the_congressional_record_in_one_line(tmp_path, capsys):
    _tree(tmp_path)
    corpus = open_corpus(tmp_path)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "reading 4 files" in err[0] and "leaving out 2 Congressional Record files" in err[0]
    assert "2 other files (e.g. FBISDTD)" in err[0]
    docs = dict(corpus.iter_docs())
    assert isinstance(corpus, TrecCorpus) and sorted(docs) == ["FBIS3-1", "FR940104-0-00001", "FT911-1", "LA010189-0001"]
    assert "actress" in tokenize(docs["FBIS3-1"]) and "mkladate" in tokenize(docs["LA010189-0001"])


def test_a_changed_copy_is_read_again(tmp_path):
    tree = tmp_path / "disks45"
    _tree(tree)
    cache = tmp_path / "cache"
    corpus = open_corpus(tree)
    before = corpus.fingerprint()
    store = TermStore.for_corpus(corpus, cache)
    assert store.ensure(corpus, {"LA010189-0001"}, progress=False) == set()
    assert "daughter" in store.vocab
    target = tree / "LATIMES" / "LA010189"
    stat = target.stat()
    target.write_bytes(latimes("LA010189-0001", "mother", ["she raised her son"]).encode())
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same time: the size still tells
    changed = open_corpus(tree)
    assert changed.fingerprint() != before
    again = TermStore.for_corpus(changed, cache)
    assert again.folder != store.folder
    again.ensure(changed, {"LA010189-0001"}, progress=False)
    assert "son" in again.vocab and "daughter" not in again.vocab
