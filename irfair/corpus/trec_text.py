"""THE text of a TREC SGML document (TREC disks 4&5, Robust04): one definition, used by every route into
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

Speed (issue 24): the markup is cut into text and tags by one regular-expression split in C, and each
tag is one lookup in a memoised state machine (:class:`_Machine`: the open elements → the next ones, and
where the text after the tag goes); tidying uses string replacement and line splitting. A document with
a raw-text element (``script``, ``title``, ...) is read by the general loop, which finds each raw
text's end by searching. ``tests/trec_text_reference.py`` keeps the rule as first written, and a
property test holds this module to it on random markup.
"""
from __future__ import annotations

import hashlib
import html
import re
import threading
from itertools import repeat

# the version of this rule. The caches built from the text it gives (term stores, Lucene indexes, document
# vectors) are keyed by it, through the fingerprint of every corpus read with it (:func:`rule_fingerprint`);
# bumped whenever a document's text changes. 2: a self-closing start tag that closes a heading ends the
# heading's text in the general reader too
TEXT_RULE_VERSION = 2

TITLE_FIELDS = frozenset({"headline", "title", "h3", "h4"})
BODY_FIELDS = frozenset({"text", "hl", "head", "ttl", "dd", "date", "lp", "leadpara"})

_NOT_TAGS = (
    r"<!---?>",  # an empty comment
    r"<!--.*?(?:--!?>|\Z)",  # a comment (unclosed: to the end)
    r"<[!?][^>]*(?:>|\Z)",  # <!DOCTYPE>, <![CDATA[...]]>, <?...?>: bogus comments
    r"</(?![A-Za-z])[^>]*(?:>|\Z)",  # </> or </ x>: dropped
)
_TAG = r"""<(/?)([A-Za-z][^\s/>]*)((?:[^>"'=]|=\s*"[^"]*"|=\s*'[^']*'|[="'])*)(?:>|\Z)"""  # end?, name, attributes
_MARKUP = re.compile("|".join([*_NOT_TAGS, _TAG]), re.DOTALL)
# the same markup as one group: split gives [text, markup, text, markup, ..., text], two items per tag
# instead of four. The tag comes first, as the commonest: it matches (< then a letter, or / and a letter)
# where no other alternative does; the others keep their order.
_SPLIT = re.compile("(" + "|".join([re.sub(r"\((?!\?)", "(?:", _TAG), *_NOT_TAGS]) + ")", re.DOTALL)
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


def rule_fingerprint(source: str) -> str:
    """A corpus fingerprint (16 hex digits) from its source's (``source``) and :data:`TEXT_RULE_VERSION`."""
    return hashlib.sha1(f"{source}:trec-text-{TEXT_RULE_VERSION}".encode()).hexdigest()[:16]


def document_text(markup: str) -> str:
    """The text of one TREC SGML document (its markup, with or without ``<DOC>``): title + " " + body."""
    title, body = document_fields(markup)
    return body if title is None else f"{title} {body}"


def document_token_text(markup: str) -> str:
    """Text with exactly the tokens of :func:`document_text` for less work: title and body (or all the
    text of a document without fields) untidied — tidying only changes whitespace, which separates tokens
    either way. For counting terms."""
    if "\ufffd" in markup:
        markup = markup.replace("\ufffd", "")
    title, body, other = _fast_fields(markup) or _fields(markup)
    return other if title is None else f"{title} {body}"


def document_fields(markup: str) -> tuple[str | None, str]:
    """``(title, body)`` of one TREC SGML document, tidied; ``(None, all its text)`` when it has no field."""
    if "\ufffd" in markup:
        markup = markup.replace("\ufffd", "")
    title, body, other = _fast_fields(markup) or _fields(markup)
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
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\t" in text:
        text = text.replace("\t", " ")
    while "  " in text:
        text = text.replace("    ", " ").replace("  ", " ")
    if "\n" in text:  # each line without its end spaces, blank lines left out
        text = "\n".join(filter(None, map(str.strip, text.split("\n"), repeat(" "))))
    return text.strip()


_CLOSED_BY: dict[str, frozenset[str]] = {}  # start tag → the current elements it closes
for _open, _new in _AUTO_CLOSE:
    _CLOSED_BY[_new] = _CLOSED_BY.get(_new, frozenset()) | {_open}
_RAW = _DROPPED_RAW | _KEPT_RAW | _ESCAPABLE_RAW | {"plaintext"}
# where the text after a tag goes: bits of a state's "where"
_TITLE, _BODY, _OTHER = 1, 2, 4


class _Machine:
    """The parse of :func:`_fields` as a memoised state machine: a state is (the open elements, whether a
    field tag has been seen); a transition, keyed by (state, the tag or comment as written), gives the next
    state and where the text after it goes (the other text only until a field tag is seen, after which a
    document's text is its fields); a comment leaves the state as it is.
    Documents of one collection share few states, so nearly every tag is one dictionary lookup. New
    transitions are added under a lock, so threads may share a machine."""

    LIMIT = 200_000  # transitions kept; beyond that (adversarial nesting) the next document gets a new machine

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.states: dict[tuple[tuple[str, ...], bool], int] = {((), False): 0}
        self.keys: list[tuple[tuple[str, ...], bool]] = [((), False)]
        self.wheres: list[int] = [_OTHER]  # where the text after a state's tag goes
        self.transitions: dict[tuple[int, str], tuple[int, int]] = {}

    def state(self, stack: tuple[str, ...], seen: bool) -> int:
        number = self.states.get((stack, seen))
        if number is None:
            number = self.states[(stack, seen)] = len(self.keys)
            self.keys.append((stack, seen))
            # once a field tag is seen, text outside DOCNO is no longer needed: the document has fields
            self.wheres.append(_where(stack) & ~(_OTHER if seen else 0))
        return number

    def step(self, key: tuple[int, str]) -> tuple[int, int]:
        """The transition ``key`` = (state, one piece of markup as written), computed and kept; state −1 for
        a raw-text element (not handled here)."""
        with self.lock:
            return self._step(key)

    def _step(self, key: tuple[int, str]) -> tuple[int, int]:
        number, markup = key
        match = _MARKUP.match(markup)
        end, written, attributes = match.groups()
        stack, seen = self.keys[number]
        name = "" if written is None else written.lower()
        if written is None:  # a comment, <!...>, <?...?> or </ x>: nothing changes
            result = (number, self.wheres[number])
        elif name in _RAW:
            result = (-1, 0)
        else:
            stack = list(stack)
            if name in _IGNORED_TAGS:
                pass
            elif end:
                if name in stack:
                    opened = len(stack) - 1 - stack[::-1].index(name)
                    priority = _END_PRIORITY.get(name, 100)
                    if all(_END_PRIORITY.get(inner, 100) <= priority for inner in stack[opened + 1:]):
                        del stack[opened:]
            else:
                closes = _CLOSED_BY.get(name, frozenset())
                while stack and stack[-1] in closes:
                    stack.pop()
                seen = seen or name in TITLE_FIELDS or name in BODY_FIELDS
                if name not in _VOID and not attributes.rstrip().endswith("/"):
                    stack.append(name)
            state = self.state(tuple(stack), seen)
            result = (state, self.wheres[state])
        self.transitions[key] = result
        return result

    def seen(self, number: int) -> bool:
        return self.keys[number][1]


def _where(stack: list[str]) -> int:
    """Where text goes with these elements open: title, body and/or other text (bits), 0 when not text."""
    if any(name in _NOT_TEXT for name in stack):
        return 0
    return ((_TITLE if any(name in TITLE_FIELDS for name in stack) else 0)
            | (_BODY if any(name in BODY_FIELDS for name in stack) else 0)
            | (0 if "docno" in stack else _OTHER))


_MACHINE = _Machine()


def _fast_fields(markup: str) -> tuple[str | None, str, str] | None:
    """:func:`_fields` for a document without raw-text elements (None for one with them): the markup is
    split into text and tags once, and each tag is one step of :class:`_Machine`."""
    global _MACHINE
    if len(_MACHINE.transitions) >= _Machine.LIMIT:
        _MACHINE = _Machine()
    machine = _MACHINE
    transitions = machine.transitions
    pieces = _SPLIT.split(markup)
    title: list[str] = []
    body: list[str] = []
    other: list[str] = []
    unescape = html.unescape
    text = pieces[0]
    if text:
        other.append(unescape(text) if "&" in text else text)
    state, where = 0, _OTHER
    known = transitions.get
    step = machine.step
    tags = iter(pieces)
    next(tags)
    add_body = body.append
    for markup_piece, text in zip(tags, tags):
        state, where = known((state, markup_piece)) or step((state, markup_piece))
        if where == _BODY:  # most text of a TREC document
            if text:
                add_body(unescape(text) if "&" in text else text)
            continue
        if state < 0:
            return None
        if text and where:
            if "&" in text:
                text = unescape(text)
            if where & _TITLE:
                title.append(text)
            if where & _BODY:
                body.append(text)
            if where & _OTHER:
                other.append(text)
    return ("".join(title) if machine.seen(state) else None), "".join(body), "".join(other)


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
