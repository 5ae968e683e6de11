"""The cache deletes only what it can prove it wrote: a user's files inside a folder given as ``--cache-dir``
(at its top, inside every cache-kind folder, inside irfair's own entries, behind links) survive ``irfair cache
clear|verify|info``, an audit that builds entries beside them, and the rebuild of a damaged entry."""
from __future__ import annotations

import hashlib
import json
import os

import pytest
from faults_data import make_time_inputs, run_cli

from irfair.cache import KINDS
from irfair.cache.manage import scan
from irfair.errors import one_line


@pytest.fixture(scope="module")
def inputs(shared_data, glove, tmp_path_factory):
    return make_time_inputs(shared_data / "time", tmp_path_factory.mktemp("ownership-inputs"), glove)


def _plant_user_files(root, outside) -> dict[str, str]:
    """A user's folder that happens to have sub-folders named like cache kinds: files, nested folders, a folder
    named like an entry but without a manifest, a file named like an entry, links to files and folders elsewhere."""
    (outside / "precious").mkdir(parents=True)
    (outside / "precious" / "thesis.tex").write_text("my thesis")
    (outside / "notes.txt").write_text("notes")
    files = {"README.txt": "my folder", "glove.6B.50d.txt": "the 0.1 0.2\n"}
    for kind in KINDS:
        files[f"{kind}/glove.6B.50d.txt"] = "the 0.1 0.2\n"
        files[f"{kind}/sub/deeper/data.bin"] = "\x00\x01"
        files[f"{kind}/results-0123456789abcdef/run.txt"] = "q0 Q0 d1 1 1.0 me\n"  # an entry's name, no manifest
        files[f"{kind}/time-fedcba9876543210"] = "a file with an entry's name"
        # named like irfair's build leftovers, and folders whose forged manifests list the user's files with other
        # sizes and checksums and name inputs that do not give the folder's name: nothing proves irfair wrote them
        files[f"{kind}/.build-results-0123456789abcdef-zz/keep.txt"] = "named like a killed build"
        for forged in (".old-results-0123456789abcdef-1-2", "forged-0123456789abcdef"):
            files[f"{kind}/{forged}/data.txt"] = "my data"
            files[f"{kind}/{forged}/MANIFEST.json"] = json.dumps(
                {"format": 2, "kind": kind, "key": {"irfair_cache_format": 2, "mine": True}, "counts": {}, "created": "",
                 "files": {"data.txt": [3, "0" * 64]}})
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for kind in KINDS:
        os.symlink(outside / "precious", root / kind / "linked-0123456789abcdef")
        os.symlink(outside / "notes.txt", root / kind / "notes-link")
    return files


FOREIGN = 9 * len(KINDS)  # what _plant_user_files puts in each kind folder: 9 items irfair did not write


def _digests(*folders) -> dict[str, str]:
    """Every file below ``folders`` (links not followed) and every link target: what must not change."""
    seen = {}
    for folder in folders:
        for base, dirs, names in os.walk(folder):
            for name in names + [d for d in dirs if os.path.islink(os.path.join(base, d))]:
                path = os.path.join(base, name)
                if os.path.islink(path):
                    seen[path] = "link to " + os.readlink(path)
                else:
                    with open(path, "rb") as handle:
                        seen[path] = hashlib.sha256(handle.read()).hexdigest()
    return seen


def _user_part(digests: dict[str, str], root) -> dict[str, str]:
    """The digests of the user's files only (irfair's entries, leftovers and locks left out)."""
    owned = {str(r.path) for r in scan(root) if r.state != "foreign"}
    return {path: d for path, d in digests.items()
            if not any(path == o or path.startswith(o + os.sep) for o in owned) and not os.path.basename(path).endswith(".lock")}


def test_a_users_folder_given_as_cache_survives_every_cache_command_and_an_audit(inputs, tmp_path):
    root, outside = tmp_path / "work", tmp_path / "elsewhere"
    root.mkdir()
    _plant_user_files(root, outside)
    before = _digests(root, outside)

    code, printed, err = run_cli(["cache", "clear", "--cache-dir", root])
    assert code == 2 and printed == ""
    assert err == (f"irfair: error: {root}: holds no irfair cache entry, only {FOREIGN} items irfair did not write: is it the right "
                   "--cache-dir? nothing removed (--force to clear anyway)\n")
    code, printed, _ = run_cli(["cache", "clear", "--force", "--cache-dir", root])
    assert (code, printed) == (0, f"removed 0 entries (0.0 MB) from {root}; left {FOREIGN} items irfair did not write\n")
    code, printed, _ = run_cli(["cache", "verify", "--cache-dir", root])
    assert code == 0 and printed.count("\nforeign: ") + printed.startswith("foreign: ") == FOREIGN
    assert printed.splitlines()[-1] == f"verified 0 entries in {root}: 0 damaged; {FOREIGN} items irfair did not write, left as they are"
    assert run_cli(["cache", "info", "--cache-dir", root])[0] == 0
    assert _digests(root, outside) == before

    code, _, err = run_cli(inputs.audit_args(inputs.runs[0], "--cache-dir", root, "--out", tmp_path / "out"))
    assert (code, err) == (0, "")
    built = [r for r in scan(root) if r.state != "foreign"]
    # runs: the run file parsed, and its rows in the term store; figures: the scatter plots of --out; values: the
    # perfect run's TExFAIR over the orders of its ties, the document genderedness of the perfect run, the random run
    # and the system, the documents' counts (those of the perfect run, those of the others), the measured ones, and
    # the run's evaluation
    assert {r.kind for r in built} == {"terms", "embeddings", "runs", "figures", "values"} and {r.state for r in built} == {"ok"}
    values = len([r for r in built if r.kind == "values"])
    assert values == 1 + 3 + 2 + 1 + 1
    assert _user_part(_digests(root, outside), root) == before

    code, printed, _ = run_cli(["cache", "clear", "--cache-dir", root])
    figures = len([r for r in built if r.kind == "figures"])  # one per system, the perfect and the random run
    size = printed.split('(')[1].split(')')[0]
    assert figures == 3 and code == 0 and printed == f"removed {4 + values + figures} entries ({size}) from {root}; " \
                                    f"left {FOREIGN} items irfair did not write\n"
    assert [r for r in scan(root) if r.state != "foreign"] == []
    assert _user_part(_digests(root, outside), root) == before


def test_files_put_inside_irfair_entries_are_kept_when_the_entry_is_cleared_or_rebuilt(inputs, tmp_path):
    root = tmp_path / "cache"
    args = inputs.audit_args(inputs.runs[0], "--cache-dir", root)
    assert run_cli(args)[0] == 0
    store = next((root / "terms").glob("time-*"))
    (store / "my-notes.txt").write_text("keep me")  # the entry is now damaged (an unexpected file)
    code, _, err = run_cli(args)
    kept = next((root / "terms").glob(f"{store.name}.kept-*"))
    assert code == 0 and err == one_line(f"irfair: cache entry {store} is damaged (unexpected file my-notes.txt); rebuilding "
                                         f"(what irfair did not write is kept beside it in {kept.name})") + "\n"
    assert [p.name for p in kept.iterdir()] == ["my-notes.txt"] and (kept / "my-notes.txt").read_text() == "keep me"

    vectors = next((root / "embeddings").glob("vectors.vec-*"))
    (vectors / "sub").mkdir()
    (vectors / "sub" / "mine.txt").write_text("mine too")
    code, printed, _ = run_cli(["cache", "clear", "--kind", "embeddings", "--cache-dir", root])
    kept = next((root / "embeddings").glob(f"{vectors.name}.kept-*"))
    assert code == 0 and printed.splitlines()[0] == f"kept files irfair did not write, found inside its entries: {kept}"
    assert (kept / "sub" / "mine.txt").read_text() == "mine too" and [p.name for p in kept.iterdir()] == ["sub"]
    assert not vectors.exists()


def test_a_link_inside_an_entry_is_not_followed_when_the_entry_is_removed(inputs, tmp_path):
    """An entry's manifest names ``shard/x`` while ``shard`` has become a link to a user's folder: the file
    behind the link is not deleted."""
    import json

    from irfair.cache.manifest import MANIFEST

    root = tmp_path / "cache"
    assert run_cli(inputs.audit_args(inputs.runs[0], "--cache-dir", root))[0] == 0
    store = next((root / "terms").glob("time-*"))
    manifest = json.loads((store / MANIFEST).read_text())
    shard = next(rel.split("/")[0] for rel in manifest["files"] if "/" in rel)
    user = tmp_path / "user"
    user.mkdir()
    for rel in manifest["files"]:
        if rel.startswith(shard + "/"):
            (user / rel.split("/", 1)[1]).write_text("the user's own file")
    before = _digests(user)
    (store / shard).rename(tmp_path / "moved-shard")
    os.symlink(user, store / shard)
    assert run_cli(["cache", "clear", "--kind", "terms", "--cache-dir", root])[0] == 0
    assert _digests(user) == before


def test_no_output_is_written_inside_the_cache_folders_entries(inputs, tmp_path):
    """--out inside a cache entry (or a kind folder) is one line, exit 2, before any work: the entry is not
    reported damaged and rebuilt, no report is moved aside; --out beside the kind folders is fine."""
    root = tmp_path / "cache"
    assert run_cli(inputs.audit_args(inputs.runs[0], "--cache-dir", root))[0] == 0
    store = next((root / "terms").glob("time-*"))
    before = _digests(root)
    for out in (store / "report", root / "terms", root / "embeddings" / "new"):
        code, printed, err = run_cli(inputs.audit_args(inputs.runs[0], "--cache-dir", root, "--out", out))
        kind = out.relative_to(root).parts[0]
        assert (code, printed) == (2, "") and err == one_line(
            f"irfair: error: {out}: the output folder (--out) is inside irfair's cache folder {root / kind}; "
            "write outputs elsewhere") + "\n"
    assert _digests(root) == before and {r.state for r in scan(root)} == {"ok"}
    assert run_cli(inputs.audit_args(inputs.runs[0], "--cache-dir", root, "--out", root / "audit"))[0] == 0


def test_a_replaced_entrys_files_linked_into_its_successor_are_removed_without_hashing(tmp_path, monkeypatch):
    """A term store republished as it grows links its unchanged shards into the new entry: removing the old entry
    hashes only its files that are not the new entry's own (b.bin, replaced), never the linked one (a.bin), and
    leaves nothing behind."""
    from irfair.cache import CacheEntry
    from irfair.cache import entry as entry_module

    entry = CacheEntry(tmp_path, "terms", "x", {"k": 1})
    with entry.locked(), entry.staging() as staging:
        (staging / "a.bin").write_bytes(b"a" * 1000)
        (staging / "b.bin").write_bytes(b"b" * 10)
        first = entry.publish(staging, {})
    hashed = []
    digest = entry_module.file_digest
    monkeypatch.setattr(entry_module, "file_digest", lambda path: hashed.append(path.name) or digest(path))
    with entry.locked(), entry.staging() as staging:
        os.link(entry.folder / "a.bin", staging / "a.bin")
        (staging / "b.bin").write_bytes(b"c" * 10)
        entry.publish(staging, {}, known={"a.bin": first.files["a.bin"]})
    assert hashed == ["b.bin", "b.bin"]  # the new b.bin's checksum, then the old one's proof
    assert sorted(p.name for p in tmp_path.joinpath("terms").iterdir() if not p.name.startswith(".")) == [entry.folder.name]
    assert (entry.folder / "a.bin").read_bytes() == b"a" * 1000 and (entry.folder / "b.bin").read_bytes() == b"c" * 10
