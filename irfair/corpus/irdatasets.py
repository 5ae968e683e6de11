"""Documents of an ir_datasets id (e.g. ``disks45/nocr/trec-robust-2004``), read from the user's own copy
(extra ``datasets``: ``ir_datasets[unlzw3]``, which also reads the original ``.Z``/``.0Z`` files).

* Text: a TREC document (ir_datasets' ``TrecParsedDoc``) gets :func:`.trec_text.document_text` of its
  marked-up SGML — the rule every other route applies; other documents their ``default_text()``.
* Fingerprint: the id and the files of its document source (names, sizes, modification times), so a
  changed copy gets new cache entries; a source that is not there is an IrfairInputError, even when
  irfair's caches could still answer (irfair never asks ir_datasets to download anything).
  ir_datasets' own document store (``docs_store()``, used to fetch the documents an audit needs) is
  checked against the same fingerprint (``irfair-source`` inside it) and rebuilt, with one line on
  stderr, when the copy changed.
* Files: irfair reads the plain and unix-compressed files itself (its own ``.Z`` decoder) and hands them
  to ir_datasets' parser; a file that ends inside a document (cut short), a damaged ``.Z`` or ``.gz`` file,
  the file count ``disks45`` checks and a missing ``unlzw3`` each give one IrfairInputError naming the file.
"""
from __future__ import annotations

import gzip
import hashlib
import io
import sys
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import IrfairInputError, MissingExtraError
from .base import file_stamp
from .compressed import compression_of, read_bytes
from .disks45 import walk_files
from .trec_text import document_fields, document_text, looks_like_trec_document, rule_fingerprint

STAMP_FILE = "irfair-source"


class IrDatasetsCorpus:
    """Documents of an ir_datasets id (e.g. ``disks45/nocr/trec-robust-2004``), read from the user's own copy."""

    def __init__(self, dataset_id: str) -> None:
        try:
            import ir_datasets
        except ImportError:
            raise MissingExtraError("ir_datasets", "datasets") from None
        try:
            self.dataset = ir_datasets.load(dataset_id)
        except KeyError:
            raise IrfairInputError(None, None, f"unknown ir_datasets id {dataset_id!r}") from None
        if not self.dataset.has_docs():
            raise IrfairInputError(None, None, f"ir_datasets id {dataset_id!r} has no documents")
        self.dataset_id = dataset_id
        self.name = dataset_id.replace("/", "_")
        self._fingerprint: str | None = None
        self._track_files()

    def _handler(self):
        return self.dataset.docs_handler() if hasattr(self.dataset, "docs_handler") else None

    def _track_files(self) -> None:
        """Read each file ir_datasets asks for ourselves where we can (plain and ``.Z`` files, with irfair's
        decoder, checked to end with a closed document) and remember which file it is, to name it when it
        turns out damaged; ir_datasets' parser still makes the documents."""
        handler = self._handler()
        original = getattr(handler, "_docs_iter", None)
        parser = getattr(handler, "_parser", None)
        if original is None or getattr(original, "irfair_tracked", False):
            return

        def tracked(path=None):
            if path is None:  # a handler that reads no file of ours (BEIR, ...): ir_datasets' own iterator
                yield from original()
                return
            path = Path(path)
            tracked.reading = path
            if parser is None or not path.is_file() or compression_of(path) == "gzip":
                yield from original(path)
                return
            data = read_bytes(path)
            if b"<DOC>" in data and not data.rstrip().endswith(b"</DOC>"):
                raise IrfairInputError(path, None, "ends inside a document (a truncated copy?): expected its last <DOC> closed by </DOC>")
            yield from parser(io.BytesIO(data))

        tracked.irfair_tracked = True
        tracked.reading = None
        handler._docs_iter = tracked

    def _reading(self) -> Path | None:
        """The file ir_datasets was reading last (None when untracked)."""
        return getattr(getattr(self._handler(), "_docs_iter", None), "reading", None)

    def source(self) -> Path | None:
        """Where ir_datasets expects the documents (a file or a folder), or None when it does not say."""
        handler = self._handler()
        try:
            return Path(handler.docs_path(force=False))
        except (AttributeError, NotImplementedError, TypeError):
            return None

    def _source_files(self) -> list[Path] | None:
        path = self.source()
        if path is None:
            self._check_downloaded()
            return None
        if not path.exists():  # irfair downloads nothing: a licensed copy is put there by its user
            copy = "the folders FBIS, FR94, FT, LATIMES" if self.dataset_id.startswith("disks45") else "your copy"
            raise IrfairInputError(path, None, f"the documents of ir_datasets id {self.dataset_id} are not here (irfair downloads "
                                               f"nothing): put {copy} there, set IR_DATASETS_HOME, or fetch a public collection with "
                                               "ir_datasets first")
        files = walk_files(path) if path.is_dir() else [path]
        if not files:
            raise IrfairInputError(path, None, f"the documents of ir_datasets id {self.dataset_id} are not here: the folder is empty")
        return files

    def _check_downloaded(self) -> None:
        """For a source ir_datasets would download (no ``docs_path``): every file it downloads must be there already."""
        from ..trec.irdatasets import downloads, placement

        handler = self._handler()
        if handler is None:
            return
        missing = [target for target, _ in downloads(handler) if target is not None and not Path(target).exists()]
        if missing:
            raise IrfairInputError(self.dataset_id, None, "the documents of this ir_datasets id are not available offline (irfair "
                                                          f"downloads nothing): {placement(handler)}")

    def source_fingerprint(self) -> str:
        """Of the id and the source's files (names, sizes, modification times); IrfairInputError when they are
        gone. Marks ir_datasets' document store as built from these files."""
        if self._fingerprint is None:
            files = self._source_files()
            stamp = "unknown-source" if files is None else file_stamp(files)
            self._fingerprint = hashlib.sha1(f"ir_datasets:{self.dataset_id}:{stamp}".encode()).hexdigest()[:16]
        return self._fingerprint

    def fingerprint(self) -> str:
        """Of the source (:meth:`source_fingerprint`) and the version of the text rule of TREC documents."""
        return rule_fingerprint(self.source_fingerprint())

    @staticmethod
    def _markup(doc) -> str | None:
        markup = getattr(doc, "marked_up_doc", None)
        return markup.decode("utf-8", errors="replace") if isinstance(markup, bytes) else markup

    @classmethod
    def _text(cls, doc) -> str:
        markup = cls._markup(doc)
        if markup is not None and looks_like_trec_document(markup):
            return document_text(markup)
        if hasattr(doc, "default_text"):
            return doc.default_text()
        fields = [getattr(doc, name) for name in ("title", "text", "body") if isinstance(getattr(doc, name, None), str)]
        return "\n".join(fields)

    def _fresh_store(self):
        """ir_datasets' document store, emptied first when it was built from another copy of the documents."""
        store = self.dataset.docs_store()
        folder = getattr(store, "path", None)
        if folder is None or not hasattr(store, "built") or not store.built():
            return store
        marker = Path(folder) / STAMP_FILE
        if not marker.is_file() or marker.read_text(encoding="utf-8").strip() != self.source_fingerprint():
            print(f"irfair: ir_datasets' document store {folder} was not built from the documents now at {self.source()}; "
                  "rebuilding it", file=sys.stderr)
            store.clear_cache()
        return store

    def _stamp(self, store) -> None:
        folder = getattr(store, "path", None)
        if folder is not None and Path(folder).is_dir():
            (Path(folder) / STAMP_FILE).write_text(self.source_fingerprint() + "\n", encoding="utf-8")

    def iter_docs(self, wanted: set[str] | None = None) -> Iterator[tuple[str, str]]:
        for doc_id, doc in self._docs(wanted):
            yield doc_id, self._text(doc)

    def iter_fields(self, wanted: set[str] | None = None) -> Iterator[tuple[str, str | None, str]]:
        """``(doc_id, title, body)``: a TREC document's fields (:func:`.trec_text.document_fields`), else ``(None, text)``."""
        for doc_id, doc in self._docs(wanted):
            markup = self._markup(doc)
            if markup is not None and looks_like_trec_document(markup):
                yield (doc_id, *document_fields(markup))
            else:
                yield doc_id, None, self._text(doc)

    def _docs(self, wanted: set[str] | None) -> Iterator[tuple[str, object]]:
        self.source_fingerprint()  # the source must be there, even when a cache could answer
        with self._errors():
            store = self._fresh_store()
            if wanted is not None:
                found = store.get_many(sorted(wanted))
                self._stamp(store)
                yield from found.items()
                return
            for doc in self.dataset.docs_iter():
                yield doc.doc_id, doc

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """ir_datasets' errors while reading, as one IrfairInputError naming the file (or the source)."""
        tracked = getattr(self._handler(), "_docs_iter", None)
        if getattr(tracked, "irfair_tracked", False):
            tracked.reading = None
        try:
            yield
        except ImportError as error:
            if "unlzw3" in str(error):
                raise MissingExtraError("unlzw3 (to read unix-compressed .Z files)", "datasets") from None
            raise
        except RuntimeError as error:
            if "files of the expected" not in str(error):
                raise
            found = str(error).split(" matching")[0].replace("found", "ir_datasets found", 1)
            raise IrfairInputError(self.source(), None, f"{found} for {self.dataset_id} (a partial copy? every file must be there, "
                                                        "or read the folder itself with --corpus FOLDER)") from None
        except (EOFError, zlib.error, gzip.BadGzipFile, ValueError) as error:
            if isinstance(error, ValueError) and not _raised_in(error, "unlzw3"):
                raise
            where = self._reading() or self.source()
            raise IrfairInputError(where, None, f"damaged or truncated compressed file ({type(error).__name__}: {error}); "
                                                "expected a complete copy") from None
        except OSError as error:
            raise IrfairInputError(self._reading() or self.source(), None, f"cannot be read ({error.strerror or error})") from None


def _raised_in(error: BaseException, package: str) -> bool:
    """True when ``error`` was raised by code of ``package`` (its innermost frame)."""
    trace = error.__traceback__
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    return trace is not None and f"{package}" in Path(trace.tb_frame.f_code.co_filename).parts
