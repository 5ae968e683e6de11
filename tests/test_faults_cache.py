"""Damaged and unfinished cache entries: each is reported in one line, rebuilt, and gives the numbers of
a clean build; ``irfair cache info|verify|clear``; the study's run files with their manifests."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest
from faults_data import make_time_inputs, run_cli

import irfair.cache.manifest as manifest_module
from irfair.cache.entry import new_build_folder
from irfair.cache.manage import scan
from irfair.cache.manifest import MANIFEST, VERIFIED, EntryDamaged, file_digest, validate_folder
from irfair.corpus import InMemoryCorpus, TermStore, open_corpus
from irfair.embeddings import load_embeddings
from irfair.errors import one_line


@pytest.fixture(scope="module")
def inputs(shared_data, glove, tmp_path_factory):
    return make_time_inputs(shared_data / "time", tmp_path_factory.mktemp("cache-inputs"), glove)


CORPUS = {f"d{i}": f"the {'nurse she' if i % 2 else 'plumber he'} met word{chr(97 + i)} and word{chr(98 + i)}" for i in range(9)}


def _built_store(cache) -> TermStore:
    corpus = InMemoryCorpus(CORPUS, name="nine")
    store = TermStore.for_corpus(corpus, cache)
    store.ensure(corpus, None, progress=False)
    return store


def _rewrite_manifest(folder, **changes) -> None:
    """Make the manifest agree with the files as they are now (a damage that also fooled the manifest)."""
    manifest = json.loads((folder / MANIFEST).read_text())
    for rel in manifest["files"]:
        manifest["files"][rel] = [(folder / rel).stat().st_size, file_digest(folder / rel)]
    manifest["counts"].update(changes)
    (folder / MANIFEST).write_text(json.dumps(manifest))


def _truncate_vocab(folder) -> None:
    lines = (folder / "vocab.txt").read_text().splitlines(keepends=True)
    (folder / "vocab.txt").write_text("".join(lines[: len(lines) // 2]))
    return len(lines) // 2


# damage, the reason reported, and the files irfair cannot prove it wrote (kept aside, never deleted) among
# those of the entry as built: a file whose size or checksum differs from the manifest's is not irfair's to delete
DAMAGES = {
    "doc_ids.txt missing": (lambda f: (f / "shard-00000" / "doc_ids.txt").unlink(), "shard-00000/doc_ids.txt is missing", None),
    "vocab shorter than the shards": (_truncate_vocab, "vocab.txt has ", lambda built: {"vocab.txt"}),
    "vocab shorter, manifest fooled too": (lambda f: _rewrite_manifest(f, terms=_truncate_vocab(f)), "term ids outside the", None),
    "manifest missing": (lambda f: (f / MANIFEST).unlink(), "its manifest is missing", lambda built: built - {MANIFEST}),
    "manifest cut short": (lambda f: (f / MANIFEST).write_text((f / MANIFEST).read_text()[:40]), "its manifest is unreadable",
                           lambda built: built),
    "counts changed in place": (lambda f: (f / "shard-00000" / "counts.npy").write_bytes(
        (f / "shard-00000" / "counts.npy").read_bytes()[:-4] + b"\x07\x00\x00\x00"), "counts.npy differs from its checksum",
        lambda built: {"shard-00000/counts.npy"}),
    "an unexpected file": (lambda f: (f / "shard-00001").mkdir() or (f / "shard-00001" / "x.npy").write_text("mine"),
                           "unexpected file shard-00001/x.npy", lambda built: {"shard-00001/x.npy"}),
}


def _files_below(folder) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("damage", DAMAGES)
def test_damaged_term_store_is_reported_and_rebuilt(tmp_path, capsys, damage):
    expected = _built_store(None)
    folder = _built_store(tmp_path).folder
    built = _files_below(folder)
    harm, reason, foreign = DAMAGES[damage]
    harm(folder)
    capsys.readouterr()
    rebuilt = _built_store(tmp_path)
    err = capsys.readouterr().err
    kept = list(folder.parent.glob(f"{folder.name}.kept-*"))
    said = one_line(f"irfair: cache entry {folder} is damaged (")  # long paths are abbreviated in error lines
    assert err.startswith(said[:said.index("…") if "…" in said else len(said)]) and err.count("\n") == 1 and reason in err
    if foreign is None:
        assert err.endswith("); rebuilding\n") and kept == []
    else:  # what the manifest does not list is moved aside, not deleted
        assert err.endswith(f"); rebuilding (what irfair did not write is kept beside it in {kept[0].name})\n") and len(kept) == 1
        assert _files_below(kept[0]) == foreign(built)
    assert rebuilt.doc_ids == expected.doc_ids and rebuilt.vocab == expected.vocab
    assert (rebuilt.matrix() != expected.matrix()).nnz == 0
    assert [r.state for r in scan(tmp_path, verify=True)] == ["ok"] + ["foreign"] * len(kept)
    _built_store(tmp_path)
    assert capsys.readouterr().err == ""  # rebuilt once, then trusted


def test_a_verified_entry_is_hashed_again_only_when_a_file_changed(tmp_path, monkeypatch, capsys):
    folder = _built_store(tmp_path).folder
    now = manifest_module.time.time_ns()
    clock = {"now": now + 1 * 10**9}
    monkeypatch.setattr(manifest_module.time, "time_ns", lambda: clock["now"])
    hashed = []
    monkeypatch.setattr(manifest_module, "file_digest", lambda path: hashed.append(path) or file_digest(path))

    def validated_in_a_new_process():
        manifest_module._validated.clear()
        hashed.clear()
        return validate_folder(folder)

    manifest = validated_in_a_new_process()
    assert not (folder / VERIFIED).exists()  # files younger than 2 s: a rewrite within the clock's tick would not show
    clock["now"] = now + 10 * 10**9
    (folder / VERIFIED).write_text("my notes")  # a file irfair did not write is neither trusted nor replaced
    validated_in_a_new_process()
    assert (folder / VERIFIED).read_text() == "my notes" and len(hashed) == len(manifest.files)
    (folder / VERIFIED).unlink()
    outside = tmp_path / "outside.txt"
    outside.write_text("mine")
    (folder / VERIFIED).symlink_to(outside)  # nor written through a link
    validated_in_a_new_process()
    assert outside.read_text() == "mine" and (folder / VERIFIED).is_symlink()
    (folder / VERIFIED).unlink()
    manifest = validated_in_a_new_process()
    assert len(hashed) == len(manifest.files) and (folder / VERIFIED).is_file()  # hashed once, and recorded
    assert json.loads((folder / VERIFIED).read_text())["content_id"] == manifest.content_id
    validated_in_a_new_process()
    assert hashed == []  # trusted: every file has the size, times and inode recorded
    clock["now"] = now + 2 * 24 * 3600 * 10**9  # for a day: damage beneath the file system is found the day after
    validated_in_a_new_process()
    assert len(hashed) == len(manifest.files)
    validated_in_a_new_process()
    assert hashed == []
    record = json.loads((folder / VERIFIED).read_text())
    record["stamp"][0][3] += 1  # a record of another ctime is not this entry as it stands
    (folder / VERIFIED).write_text(json.dumps(record))
    validated_in_a_new_process()
    assert len(hashed) == len(manifest.files)
    counts = folder / "shard-00000" / "counts.npy"  # a byte changed in place, its size and mtime put back
    before = counts.stat()
    data = bytearray(counts.read_bytes())
    data[-1] ^= 1
    counts.write_bytes(bytes(data))
    os.utime(counts, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(EntryDamaged, match="counts.npy differs from its checksum"):
        validated_in_a_new_process()
    counts.write_bytes(bytes(data[:-1]) + bytes([data[-1] ^ 1]))  # as it was: trusted again after one more hashing
    clock["now"] = manifest_module.os.stat(counts).st_ctime_ns + 10 * 10**9
    validated_in_a_new_process()
    assert len(hashed) == len(manifest.files)
    validated_in_a_new_process()
    assert hashed == []
    (folder / "shard-00000" / "doc_ids.txt").unlink()  # replaced: the record goes with the entry, nothing is kept
    _built_store(tmp_path)
    assert "is damaged (shard-00000/doc_ids.txt is missing); rebuilding\n" in capsys.readouterr().err
    assert list(folder.parent.glob(f"{folder.name}.kept-*")) == []


def test_damaged_store_in_an_audit_keeps_the_numbers(inputs, tmp_path):
    args = inputs.audit_args(inputs.runs[0], "--cache-dir", tmp_path)
    code, clean, err = run_cli(args)
    assert (code, err) == (0, "")
    folder = next((tmp_path / "terms").glob("time-*"))
    (folder / "shard-00000" / "doc_ids.txt").unlink()
    code, printed, err = run_cli(args)
    assert code == 0 and printed == clean
    assert err == f"irfair: cache entry {folder} is damaged (shard-00000/doc_ids.txt is missing); rebuilding\n"


def test_half_written_embeddings_entry_is_rebuilt(inputs, tmp_path, capsys):
    expected = load_embeddings(inputs.vectors)
    load_embeddings(inputs.vectors, tmp_path)
    folder = next((tmp_path / "embeddings").glob("vectors.vec-*"))
    vectors = folder / "vectors.npy"
    vectors.write_bytes(vectors.read_bytes()[: vectors.stat().st_size // 2])
    capsys.readouterr()
    again = load_embeddings(inputs.vectors, tmp_path)
    assert "vectors.npy has" in capsys.readouterr().err
    assert again.words == expected.words and np.array_equal(np.asarray(again.vectors), expected.vectors)
    assert isinstance(again.vectors, np.memmap)


def test_cache_command_info_verify_clear(inputs, tmp_path):
    store = _built_store(tmp_path)
    load_embeddings(inputs.vectors, tmp_path)
    code, printed, _ = run_cli(["cache", "info", "--cache-dir", tmp_path])
    lines = printed.splitlines()
    assert code == 0 and lines[0].startswith(f"cache folder {tmp_path}: 2 entries")
    terms = next(line for line in lines if line.startswith("terms\t"))
    # 15 terms: nurse, she, plumber, he, met and worda ... wordj ("the", "and" are stopwords)
    assert "absent 0, complete 1, documents 9, shards 1, terms 15" in terms and "built from corpus=nine" in terms
    assert any(line.startswith("embeddings\tvectors.vec-") and "words " in line for line in lines)
    # a build killed long ago (irfair's mark inside), a user's folder named like one (no mark), an entry with a file
    # edited, a folder named like an entry whose manifest is unreadable, and an entry of an older irfair (no
    # manifest): only what carries proof is irfair's
    build = new_build_folder(tmp_path / "terms", store.folder.name)
    (build / "part").write_text("half-built")
    lookalike = tmp_path / "terms" / f".build-{store.folder.name}-zz"
    lookalike.mkdir()
    (lookalike / "mine.txt").write_text("a user's file")
    (tmp_path / "terms" / "v1-old-store").mkdir()
    unreadable = tmp_path / "terms" / "damaged-0123456789abcdef"
    unreadable.mkdir()
    (unreadable / MANIFEST).write_text("{")
    vocab = store.folder / "vocab.txt"
    vocab.write_text(vocab.read_text() + "edited\n")
    code, printed, _ = run_cli(["cache", "verify", "--cache-dir", tmp_path])
    assert code == 1
    assert f"damaged: {store.folder} (vocab.txt has " in printed
    assert f"foreign: {tmp_path / 'terms' / 'v1-old-store'} (not written by irfair (not an irfair entry name)" in printed
    assert f"foreign: {unreadable} (not written by irfair (its MANIFEST.json does not name the inputs" in printed
    assert f"foreign: {lookalike} (not written by irfair" in printed
    assert printed.splitlines()[-1] == (f"verified 2 entries in {tmp_path}: 1 damaged, 1 unfinished builds "
                                        "(removed by the next build or irfair cache clear); 3 items irfair did not write, "
                                        "left as they are")
    code, printed, _ = run_cli(["cache", "clear", "--kind", "terms", "--cache-dir", tmp_path])
    assert code == 0 and printed.splitlines()[-1].startswith("removed 2 entries")
    assert printed.splitlines()[-1].endswith(f"from {tmp_path}; left 3 items irfair did not write")
    # the edited file differs from its checksum: kept aside with nothing else, never deleted
    (kept,) = (tmp_path / "terms").glob(f"{store.folder.name}.kept-*")
    assert printed.splitlines()[0].startswith(f"kept files irfair did not write, found inside its entries: {kept}")
    assert _files_below(kept) == {"vocab.txt"} and (kept / "vocab.txt").read_text().endswith("edited\n")
    assert (lookalike / "mine.txt").read_text() == "a user's file" and (unreadable / MANIFEST).read_text() == "{"
    assert not build.exists() and not list((tmp_path / "terms").glob(f".{lookalike.name}*.lock"))
    assert sorted((r.kind, r.state) for r in scan(tmp_path)) == [("embeddings", "ok")] + [("terms", "foreign")] * 4
    assert run_cli(["cache", "verify", "--cache-dir", tmp_path])[0] == 0


def test_study_run_files_are_reused_only_when_whole_and_built_from_the_same_inputs(inputs, tmp_path, capsys):
    from irfair.study.plan import StudyConfig, plan
    from irfair.study.runs import build_runs
    from irfair.trec import read_qrels, read_topics

    corpus = open_corpus(inputs.folder / "time.trec")
    topics, qrels = read_topics(inputs.folder / "topics.time.txt"), read_qrels(inputs.folder / "qrels.time.txt")
    config = StudyConfig(ranker_embeddings=(str(inputs.vectors),), variants=("regular",), lexical=False, neural=(), depth=20)
    specs = plan(config)
    store = TermStore.for_corpus(corpus, tmp_path / "cache")
    log: list[str] = []

    def build(config=config):
        log.clear()
        return build_runs(specs, corpus, store, topics, qrels, config, tmp_path, tmp_path / "cache", False, log.append)

    paths = build()
    assert log == ["ranking vectors_add", "ranking vectors_si"]
    clean = paths["vectors_add"].read_text()
    build()
    assert log == [f"reusing {paths['vectors_add']}", f"reusing {paths['vectors_si']}"]
    paths["vectors_add"].write_text(clean[: len(clean) // 2])  # a file cut short
    capsys.readouterr()
    build()
    assert capsys.readouterr().err.startswith(f"irfair: cache entry {paths['vectors_add']} is damaged (it has ")
    assert paths["vectors_add"].read_text() == clean and log[0] == "ranking vectors_add"
    deeper = StudyConfig(ranker_embeddings=(str(inputs.vectors),), variants=("regular",), lexical=False, neural=(), depth=25)
    build(deeper)
    assert log[0] == f"rebuilding {paths['vectors_add']} (built from other inputs or settings)"
    (tmp_path / f".{paths['vectors_si'].name}.manifest.json").unlink()  # killed between the file and its manifest, or the user's
    old = paths["vectors_si"].read_bytes()
    capsys.readouterr()
    build(deeper)
    assert f"rebuilding {paths['vectors_si']} (no manifest: unfinished, or not written by this version of irfair)" in log
    kept = next(tmp_path.glob("vectors_si.run.kept-*"))  # moved aside, never overwritten
    assert kept.read_bytes() == old
    said = f"irfair: {paths['vectors_si']} had no manifest (irfair may not have written it): kept as {kept.name}\n"
    assert capsys.readouterr().err == said
