"""Document groups for fairness of exposure (``--document-groups FILE``): document id → one or more labels of one
attribute, as TREC Fair Ranking distributes them. Plain, gzip, bzip2 or xz (recognised by their bytes).

* **TSV**: ``doc_id<TAB>label`` or ``doc_id<TAB>attribute<TAB>label``, one label a line (a document on several
  lines is in several groups; ``#`` starts a comment line). Two and three fields do not mix in one file.
* **JSONL** (a file whose first non-blank character is ``{``): one object a line with the document's id under
  ``id``, ``doc_id``, ``docno`` or ``page_id`` and each attribute as a key whose value is a label, a list of labels,
  or null / [] (no label): ``{"page_id": "12", "gender": ["female"], "geographic_location": ["Europe"]}``.

One attribute is audited: ``attribute`` names it; without a name, the file's only attribute, else ``gender``
when the file has it. A document without a label of that attribute (listed with none, or not listed) is in
``unknown``, a group of its own (:data:`UNKNOWN`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import IrfairInputError
from .lines import iter_lines

WHAT = "document groups"
#: the group of a document without a label (irfair.measures.exposure uses this one)
UNKNOWN = "unknown"
ID_KEYS = ("id", "doc_id", "docno", "page_id")
PREFERRED_ATTRIBUTE = "gender"
TSV_ATTRIBUTE = "group"


@dataclass(frozen=True)
class DocumentGroups:
    """Each listed document's labels (``of``; an empty tuple: listed without a label), every label met in the
    attribute (``labels``, sorted, ``unknown`` last), the attribute and the file it came from."""

    of: dict[str, tuple[str, ...]]
    labels: tuple[str, ...]
    attribute: str
    source: str

    def to_dict(self) -> dict:
        """For audit.json: source, attribute, labels and how many documents each label holds."""
        sizes = {label: 0 for label in self.labels}
        for labels in self.of.values():
            for label in labels or (UNKNOWN,):
                sizes[label] += 1
        return {"source": self.source, "attribute": self.attribute, "labels": list(self.labels),
                "n_documents": len(self.of), "documents_per_label": sizes}


def read_document_groups(path: str | Path, attribute: str | None = None) -> DocumentGroups:
    """The groups of ``path`` (TSV or JSONL, see the module docstring) for ``attribute``. IrfairInputError naming
    the file and line for a line of the wrong shape, an id given twice with other labels in JSONL, a label
    ``unknown`` (reserved), an attribute the file lacks, or a choice left open (several attributes, none named)."""
    lines = iter_lines(path, WHAT)
    found: dict[str, dict[str, list[str]]] = {}  # attribute -> doc -> labels
    kind = None
    for number, text in enumerate(lines, start=1):
        stripped = text.strip()
        if not stripped or (kind != "jsonl" and stripped.startswith("#")):
            continue
        if kind is None:
            kind = "jsonl" if stripped.startswith("{") else "tsv"
        if kind == "jsonl":
            _json_line(path, number, stripped, found)
        else:
            kind = _tsv_line(path, number, text, found, kind)
    if kind is None:
        raise IrfairInputError(path, None, f"expected {WHAT} (doc_id<TAB>label lines or JSONL objects), found none")
    chosen = _attribute(path, sorted(found), attribute)
    of = {doc: tuple(dict.fromkeys(labels)) for doc, labels in found[chosen].items()}
    labels = sorted({label for values in of.values() for label in values})
    if not labels:
        raise IrfairInputError(path, None, f"no document has a label of {chosen!r}: every group would be unknown")
    return DocumentGroups(of, (*labels, UNKNOWN), chosen, str(path))


def _label(path, number: int, value) -> str:
    if not isinstance(value, str) or not value.strip() or value != value.strip():
        raise IrfairInputError(path, number, f"expected a label (a non-empty string), got {value!r}"[:90])
    if value == UNKNOWN:
        raise IrfairInputError(path, number, f"the label {UNKNOWN!r} is reserved (no group): leave such documents out")
    return value


def _tsv_line(path, number: int, text: str, found: dict, kind: str) -> str:
    fields = text.rstrip("\r\n").split("\t")
    shape = {2: "tsv2", 3: "tsv3"}.get(len(fields))
    if shape is None:
        raise IrfairInputError(path, number, f"expected doc_id<TAB>label or doc_id<TAB>attribute<TAB>label, got {len(fields)} field(s)")
    if any(not f.strip() for f in fields):
        empty = ("doc_id", "label") if shape == "tsv2" else ("doc_id", "attribute", "label")
        raise IrfairInputError(path, number, f"expected a {next(n for n, f in zip(empty, fields) if not f.strip())}, got an empty field")
    if kind not in ("tsv", shape):
        raise IrfairInputError(path, number, f"expected {2 if kind == 'tsv2' else 3} tab-separated fields as on the lines "
                                             f"before, got {len(fields)}")
    doc, attribute = fields[0].strip(), TSV_ATTRIBUTE if shape == "tsv2" else fields[1].strip()
    found.setdefault(attribute, {}).setdefault(doc, []).append(_label(path, number, fields[-1].strip()))
    return shape


def _json_line(path, number: int, text: str, found: dict) -> None:
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise IrfairInputError(path, number, f"expected one JSON object a line: {exc.msg}") from None
    if not isinstance(record, dict):
        raise IrfairInputError(path, number, f"expected a JSON object, got {type(record).__name__}")
    keys = [k for k in ID_KEYS if k in record]
    if len(keys) > 1:
        raise IrfairInputError(path, number, f"expected one document id, got {len(keys)} keys: {', '.join(keys)}")
    if len(keys) != 1 or not isinstance(record[keys[0]], (str, int)) or isinstance(record[keys[0]], bool) or record[keys[0]] == "":
        raise IrfairInputError(path, number, f"expected the document id (a string or integer) under {', '.join(ID_KEYS)}")
    doc = str(record[keys[0]])
    for attribute, value in record.items():
        if attribute == keys[0]:
            continue
        values = [] if value is None else value if isinstance(value, list) else [value]
        labels = [_label(path, number, v) for v in values]
        held = found.setdefault(attribute, {})
        if doc in held:
            raise IrfairInputError(path, number, f"document {doc} is listed twice")
        held[doc] = labels


def _attribute(path, attributes: list[str], wanted: str | None) -> str:
    if wanted is not None:
        if wanted not in attributes:
            raise IrfairInputError(path, None, f"expected the attribute {wanted!r}, found {', '.join(attributes) or 'none'}")
        return wanted
    if len(attributes) == 1:
        return attributes[0]
    if PREFERRED_ATTRIBUTE in attributes:
        return PREFERRED_ATTRIBUTE
    raise IrfairInputError(path, None, f"attributes {', '.join(attributes)}: name one with --group-attribute")
