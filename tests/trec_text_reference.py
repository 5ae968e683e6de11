"""The rule of :mod:`irfair.corpus.trec_text` as it was written before issue 24 made it fast (a regular
expression search per piece of markup and four regular-expression passes to tidy): kept verbatim as the
oracle the fast reader must equal (tests only).

THE text of a TREC SGML document (TREC disks 4&5, Robust04): one definition, used by every route into
irfair — a folder of the original files, raw SGML stored in a pyserini/Anserini index, and ir_datasets.

The rule is the one ir_datasets 0.6.3 applies to ``disks45/nocr`` (parser ``sax``, ``default_text()``):

* **title** = the text inside ``HEADLINE``, ``TITLE``, ``H3`` and ``H4`` elements;
* **body** = the text inside ``TEXT``, ``HL``, ``HEAD``, ``TTL``, ``DD``, ``DATE``, ``LP`` and ``LEADPARA``;
* text = title + " " + body. Text inside both kinds (an ``H4`` within ``TEXT``) counts in both; text in
  no field (``DOCNO``, ``PROFILE``, ``BYLINE``, FBIS ``HEADER`` lines, ...) is not text.

Markup is read the way the HTML parser behind ir_datasets (libxml2 2.14, HTML5 tokenizer) reads it:
tags are removed without adding a space; comments (Federal Register ``<!-- PJG ... -->``), ``<!...>`` and
``<?...>`` are not text; character references are decoded (HTML5 names, e.g. ``&amp;``, ``&blank;``;
unknown ones such as ``&hyph;`` stay as written); ``script``/``style``/``noscript`` content is dropped and
``title``/``textarea`` content is raw text whose tags are then removed; an end tag closes every element
opened after its start tag unless one of them ranks higher (``div``, table parts); a ``<P>``/``<TABLE>``/
``<LI>``/``<FORM>``/``<FIELDSET>`` start tag closes an open heading (``H3``/``H4``); ``<HTML>``,
``<HEAD>`` and ``<BODY>`` tags are ignored (so ``HEAD`` never opens a field), as are self-closing tags.
Undecodable bytes are dropped (U+FFFD removed), whitespace is tidied (runs of spaces and blank lines
collapsed). A document with none of the twelve fields (NPL/Vaswani files) keeps all its text outside
``DOCNO`` instead of being empty.
"""
from __future__ import annotations

import html
import re

TITLE_FIELDS = frozenset({"headline", "title", "h3", "h4"})
BODY_FIELDS = frozenset({"text", "hl", "head", "ttl", "dd", "date", "lp", "leadpara"})

_MARKUP = re.compile(
    r"<!---?>"  # an empty comment
    r"|<!--.*?(?:--!?>|\Z)"  # a comment (unclosed: to the end)
    r"|<[!?][^>]*(?:>|\Z)"  # <!DOCTYPE>, <![CDATA[...]]>, <?...?>: bogus comments
    r"|</(?![A-Za-z])[^>]*(?:>|\Z)"  # </> or </ x>: dropped
    r"""|<(/?)([A-Za-z][^\s/>]*)((?:[^>"'=]|=\s*"[^"]*"|=\s*'[^']*'|[="'])*)(?:>|\Z)""",  # a tag
    re.DOTALL,
)
_IGNORED_TAGS = frozenset({"html", "head", "body"})
_VOID = frozenset("area base basefont br col embed frame hr img input isindex keygen link meta param source track wbr".split())
_DROPPED_RAW = frozenset({"script", "style"})  # raw text, not text
_KEPT_RAW = frozenset({"xmp", "iframe", "noembed", "noframes"})  # raw text kept as written
_ESCAPABLE_RAW = frozenset({"title", "textarea"})  # raw text with references decoded, then tags removed
_NOT_TEXT = frozenset({"noscript"})
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# (open element, start tag that closes it while it is the current element), as libxml2's HTML parser does
_AUTO_CLOSE = frozenset(
    [(h, new) for h in _HEADINGS for new in ("fieldset", "form", "li", "p", "table")]
    + [("p", new) for new in (
        "p address blockquote caption center col colgroup dd dir div dl dt fieldset form frameset hr li menu ol pre "
        "table tbody td tfoot th tr ul").split() + list(_HEADINGS)]
    + [(inline, "p") for inline in ("b", "big", "i", "s", "small", "strike", "tt", "u")]
    + [("a", "fieldset"), ("a", "table"), ("address", "form"), ("address", "li"), ("dir", "form"), ("dl", "form"), ("dl", "li"),
       ("legend", "fieldset"), ("menu", "form"), ("ol", "form"), ("ul", "form"), ("li", "li"), ("dd", "dt"), ("dd", "dd"),
       ("dt", "dt"), ("dt", "dd")]
    + [("pre", new) for new in ("fieldset", "form", "li", "table")]
)
# an end tag is ignored when an element opened after its start tag ranks higher (libxml2's end priorities)
_END_PRIORITY = {"div": 150, "td": 160, "th": 160, "tr": 170, "thead": 180, "tbody": 180, "tfoot": 180, "table": 190}


def document_text(markup: str) -> str:
    """The text of one TREC SGML document (its markup, with or without ``<DOC>``): title + " " + body."""
    title, body = document_fields(markup)
    return body if title is None else f"{title} {body}"


def document_fields(markup: str) -> tuple[str | None, str]:
    """``(title, body)`` of one TREC SGML document, tidied; ``(None, all its text)`` when it has no field."""
    title, body, other = _fields(markup.replace("\ufffd", ""))
    if title is None:
        return None, tidy(other)
    return tidy(title), tidy(body)


# what Anserini's TrecCollection keeps of a document as its raw field: the lines inside these elements
ANSERINI_TREC_TAGS = ("TEXT", "HEADLINE", "TITLE", "HL", "HEAD", "TTL", "DD", "DATE", "LP", "LEADPARA")
_RAW_START = re.compile(r"\s*<(?:DOC|DOCNO|" + "|".join(ANSERINI_TREC_TAGS) + r")>", re.IGNORECASE)


def looks_like_trec_document(raw: str) -> bool:
    """True for raw SGML of one TREC document: the whole document (``<DOC>``, ``<DOCNO>``) or what
    Anserini's ``TrecCollection`` stores of it (starting with one of :data:`ANSERINI_TREC_TAGS`)."""
    return _RAW_START.match(raw) is not None


def tidy(text: str) -> str:
    """Whitespace tidied: CR/LF → LF, tabs → spaces, no spaces at line ends, no blank lines, single spaces."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    text = re.sub(r"\n +", "\n", text)
    text = re.sub(r" +\n", "\n", text)
    text = re.sub(r"\n{2,}", "\n", text)
    return re.sub(r" {2,}", " ", text).strip()


def _raw_end(markup: str, name: str, start: int) -> tuple[int, int]:
    """Where the raw text of element ``name`` from ``start`` ends, and where parsing resumes."""
    end = re.compile(rf"</{name}(?=[\s/>])[^>]*(?:>|\Z)", re.IGNORECASE).search(markup, start)
    return (len(markup), len(markup)) if end is None else (end.start(), end.end())


def _fields(markup: str) -> tuple[str | None, str, str]:
    """``(title, body, other)`` texts, untidied; ``title`` is None when the document has no field element."""
    title: list[str] = []
    body: list[str] = []
    other: list[str] = []
    stack: list[str] = []
    state = {"title": False, "body": False, "skip": False, "docno": False}
    seen_field = False

    def restate() -> None:
        state["title"] = any(name in TITLE_FIELDS for name in stack)
        state["body"] = any(name in BODY_FIELDS for name in stack)
        state["skip"] = any(name in _NOT_TEXT for name in stack)
        state["docno"] = "docno" in stack

    def add(text: str) -> None:
        if not text or state["skip"]:
            return
        if state["title"]:
            title.append(text)
        if state["body"]:
            body.append(text)
        if not state["docno"]:
            other.append(text)

    position = 0
    while position < len(markup):
        match = _MARKUP.search(markup, position)
        if match is None:
            add(html.unescape(markup[position:]))
            break
        add(html.unescape(markup[position:match.start()]))
        position = match.end()
        name = match.group(2)
        if name is None:
            continue
        name = name.lower()
        if name in _IGNORED_TAGS:
            continue
        if match.group(1):  # an end tag
            if name in stack:
                opened = len(stack) - 1 - stack[::-1].index(name)
                priority = _END_PRIORITY.get(name, 100)
                if all(_END_PRIORITY.get(inner, 100) <= priority for inner in stack[opened + 1:]):
                    del stack[opened:]
                    restate()
            continue
        if stack and (stack[-1], name) in _AUTO_CLOSE:  # closed before the tag, even one that opens nothing
            while stack and (stack[-1], name) in _AUTO_CLOSE:
                stack.pop()
            restate()
        seen_field = seen_field or name in TITLE_FIELDS or name in BODY_FIELDS
        if name in _DROPPED_RAW or name in _KEPT_RAW or name in _ESCAPABLE_RAW or name == "plaintext":
            content_end, position = _raw_end(markup, name, position) if name != "plaintext" else (len(markup), len(markup))
            content = markup[match.end():content_end]
            if name in _ESCAPABLE_RAW:
                content = html.unescape(content)
                if "<" in content:
                    content = _fields(content)[2]
            if name not in _DROPPED_RAW:
                stack.append(name)
                restate()
                add(content)
                stack.pop()
            restate()
            continue
        if name in _VOID or match.group(3).rstrip().endswith("/"):
            continue
        stack.append(name)
        restate()
    return ("".join(title) if seen_field else None), "".join(body), "".join(other)


# the reader of TREC SGML files (irfair.corpus.trec_sgml.TrecCorpus._iter_file) as first written: line by line
_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.IGNORECASE | re.DOTALL)


def iter_trec_file(path, keep_text):
    from irfair.corpus.compressed import open_text
    from irfair.errors import IrfairInputError

    block = None
    start = 0
    with open_text(path) as handle:
        for lineno, line in enumerate(handle, start=1):
            upper = line.lstrip()[:6].upper()
            if upper.startswith("<DOC>"):
                if block is not None:
                    raise IrfairInputError(path, lineno, f"<DOC> opened before the document of line {start} was closed with </DOC>")
                block, start = [line.lstrip()[5:]], lineno
            elif upper.startswith("</DOC>"):
                if block is None:
                    raise IrfairInputError(path, lineno, "</DOC> without a matching <DOC>")
                raw = "".join(block)
                match = _DOCNO.search(raw)
                if match is None or not match.group(1):
                    raise IrfairInputError(path, start, "document has no <DOCNO>...</DOCNO>")
                doc_id = match.group(1)
                yield start, doc_id, raw if keep_text is None or doc_id in keep_text else ""
                block = None
            elif block is not None:
                block.append(line)
            elif line.strip():
                raise IrfairInputError(path, lineno, "text outside <DOC> ... </DOC>: expected TREC SGML")
    if block is not None:
        raise IrfairInputError(path, start, "document opened with <DOC> is never closed with </DOC> (a truncated file?)")
