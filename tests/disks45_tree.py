"""A synthetic TREC disks 4&5 tree for tests, in the layout and markup ir_datasets expects (``disks45/nocr``).

Four sub-collections with their real SGML fields (FBIS ``<H3><TI>``, ``<H4>``, ``<F P=..>``; Federal
Register ``<!-- PJG -->`` comments, entities and nested tags; FT ``<DATE>``/``<HEADLINE>``/``<BYLINE>``;
LA Times ``<P>`` paragraphs in ``<DATE>``/``<HEADLINE>``/``<TEXT>``), a Congressional Record folder beside
them, some files unix-``compress``ed (``.Z``/``.0Z``, written by :func:`compress_z`) or gzipped, and
one-document filler files up to the 2,295 files ir_datasets checks for.

Every field carries a marker word: ``mk<collection><field>`` for fields that are text (title or body),
``nx<collection><field>`` for markup that is not (it must never become a token).
"""
from __future__ import annotations

import gzip
from pathlib import Path

EXPECTED_FILES = 2295


def compress_z(data: bytes, max_bits: int = 16) -> bytes:
    """``data`` in unix ``compress`` format (LZW, block mode), written independently of irfair's decoder:
    a code is emitted for the longest known string; the width grows from 9 bits when the decoder's table
    (which lags one entry behind) fills the current width, after padding the group of 8 codes."""
    out = bytearray(b"\x1f\x9d" + bytes([0x80 | max_bits]))
    table = {bytes((i,)): i for i in range(256)}
    state = {"next": 257, "decoder_last": 256, "bits": 9, "acc": 0, "held": 0, "section": len(out), "first": True}

    def emit(code: int) -> None:
        bits = state["bits"]
        if not state["first"] and state["decoder_last"] >= (1 << bits) - 1 and bits < max_bits:
            if state["held"]:
                out.append(state["acc"] & 0xFF)
                state["acc"] = state["held"] = 0
            while (len(out) - state["section"]) % bits:
                out.append(0)
            state["section"] = len(out)
            state["bits"] = bits = bits + 1
        state["acc"] |= code << state["held"]
        state["held"] += bits
        while state["held"] >= 8:
            out.append(state["acc"] & 0xFF)
            state["acc"] >>= 8
            state["held"] -= 8
        if not state["first"] and state["decoder_last"] < (1 << bits) - 1:
            state["decoder_last"] += 1
        state["first"] = False

    word = b""
    for byte in data:
        candidate = word + bytes((byte,))
        if candidate in table:
            word = candidate
            continue
        emit(table[word])
        if state["next"] < (1 << max_bits):
            table[candidate] = state["next"]
            state["next"] += 1
        word = bytes((byte,))
    if word:
        emit(table[word])
    if state["held"]:
        out.append(state["acc"] & 0xFF)
    return bytes(out)


def fbis(docno: str, title: str, body: str, h4: str) -> str:
    return f"""<DOC>
<DOCNO> {docno} </DOCNO>
<HT>  "cr00000011094001" </HT>


<HEADER>
<H2>   March Reports nxfbish </H2>
<DATE1>  1 March 1994 nxfbisdate </DATE1>
Article Type:FBIS nxfbisheader
Document Type:FOREIGN MEDIA NOTE--FB PN 94-028
<H3> <TI>      {title} mkfbisti </TI></H3>

</HEADER>

<TEXT>
Language: <F P=105>English mkfbisf </F>
Article Type:CSO

<F P=106> [Text] </F> {body} mkfbistext
<H4>  {h4} mkfbish </H4>
closing words of the despatch.
</TEXT>

</DOC>
"""


def fr94(docno: str, summary: str, action: str) -> str:
    return f"""<DOC>
<DOCNO> {docno} </DOCNO>
<PARENT> {docno} nxfrparent </PARENT>
<TEXT>
{' '}
<!-- PJG FTAG 4700 -->

<!-- PJG STAG 4700 nxfrcomment -->

<!-- PJG ITAG l=90 g=1 f=1 -->

<!-- PJG /ITAG -->

<!-- PJG ITAG l=90 g=1 f=4 -->
Federal Register
<!-- PJG /ITAG -->

<!-- PJG ITAG l=01 g=1 f=1 -->
&blank;/&blank;Vol. 59, No. 2&blank;/&blank;Tuesday, January 4, 1994&blank;/&blank;Rules and Regulations
<!-- PJG 0012 frnewline -->

<!-- PJG /ITAG -->
<USDEPT>DEPARTMENT OF AGRICULTURE mkfrusdept</USDEPT>
<AGENCY>
<!-- PJG ITAG l=55 g=1 f=1 -->
Food and Nutrition Service mkfragency
<!-- PJG /ITAG -->
</AGENCY>
<ACTION>
<!-- PJG ITAG l=10 g=1 f=1 -->
{action} mkfraction&hyph;rule &sect;&sect; 250.1 &amp; more
<!-- PJG /ITAG -->
</ACTION>
<SUMMARY>
{summary} mkfrsummary
</SUMMARY>
<SIGNER>
<!-- PJG ITAG l=06 g=1 f=1 -->
Ellen Haas, mkfrsigner
<!-- PJG /ITAG -->
</SIGNER>
</TEXT>
</DOC>
"""


def ft(docno: str, headline: str, body: str) -> str:
    return f"""<DOC>
<DOCNO>{docno}</DOCNO>
<PROFILE>_AN-BEOA7AAIFT nxftprofile</PROFILE>
<DATE>910514 mkftdate
</DATE>
<HEADLINE>
FT  14 MAY 91 / {headline} mkftheadline
</HEADLINE>
<BYLINE>
By MICHAEL DONNE, Aerospace Correspondent nxftbyline
</BYLINE>
<TEXT>
{body} mkfttext
</TEXT>
<PUB>The Financial Times nxftpub
</PUB>
<PAGE>
London Page 7 Photograph (Omitted). nxftpage
</PAGE>
</DOC>
"""


def latimes(docno: str, headline: str, paragraphs: list[str]) -> str:
    text = "\n".join(f"<P>\n{p}\n</P>" for p in paragraphs)
    return f"""<DOC>
<DOCNO> {docno} </DOCNO>
<DOCID> 1 </DOCID>
<DATE>
<P>
January 1, 1989, Sunday, Home Edition mkladate
</P>
</DATE>
<SECTION>
<P>
Book Review; Page 1; Book Review Desk nxlasection
</P>
</SECTION>
<LENGTH>
<P>
1206 words nxlalength
</P>
</LENGTH>
<HEADLINE>
<P>
{headline} mklaheadline
</P>
</HEADLINE>
<BYLINE>
<P>
By DAVID FREEMAN nxlabyline
</P>
</BYLINE>
<TEXT>
{text}
<P>
mklatext
</P>
</TEXT>
<TYPE>
<P>
Book Review nxlatype
</P>
</TYPE>
</DOC>
"""


def congressional_record(docno: str, body: str) -> str:
    return f"<DOC>\n<DOCNO> {docno} </DOCNO>\n<TTL>\nCongressional Record nxcrttl\n</TTL>\n<TEXT>\n{body} nxcrtext\n</TEXT>\n</DOC>\n"


# (relative path, how it is stored, documents); the words carry the audit's gender signal
FILES = [
    ("NEWS_data/FBIS/FB396001", "plain", [
        fbis("FBIS3-1", "actress wins award", "the actress and her sister spoke", "women in film"),
        fbis("FBIS3-2", "soldier honoured", "the soldier and his brother served", "veterans parade"),
    ]),
    ("NEWS_data/FBIS/FB396002.Z", "compress", [
        fbis("FBIS3-101", "nurse shortage", "nurses and midwives in the hospital", "mothers and daughters"),
        fbis("FBIS3-102", "engineer contract", "the engineer and his team built the bridge", "steel works"),
    ]),
    ("NEWS_data/FR94/01/FR940104.0", "plain", [
        fr94("FR940104-0-00001", "school lunch program for children", "Final rule"),
        fr94("FR940104-0-00002", "grants to farmers and ranchers", "Proposed rule"),
    ]),
    ("NEWS_data/FR94/01/FR940104.1Z", "compress", [
        fr94("FR940104-1-00001", "nutrition for pregnant women and infants", "Interim rule"),
    ]),
    ("NEWS_data/FT/FT911/FT911_1", "plain", [
        ft("FT911-1", "Jubilee of a jet", "the pilot said he flew the aircraft"),
        ft("FT911-2", "Fashion week opens", "the model and her designer showed the collection"),
    ]),
    ("NEWS_data/FT/FT911/FT911_2.gz", "gzip", [
        ft("FT911-101", "Chairman resigns", "the chairman and his board left the company"),
    ]),
    ("NEWS_data/LATIMES/LA010189", "plain", [
        latimes("LA010189-0001", "A mother's story", ["she raised her daughter alone", "the girl became a dancer"]),
        latimes("LA010189-0002", "Football coach", ["the coach told his players", "the quarterback threw the ball"]),
    ]),
    ("NEWS_data/LATIMES/LA010289.Z", "compress", [
        latimes("LA010289-0001", "Nurses strike", ["the nurse said she was tired", "hospital wards were closed"]),
        latimes("LA010289-0002", "Firefighters", ["the firefighter and his crew", "the blaze was put out"]),
    ]),
    ("NEWS_data/CR/CR93H1.Z", "compress", [congressional_record("CR93H-1", "the senator spoke of his bill")]),
    ("NEWS_data/CR/CR93H2", "plain", [congressional_record("CR93H-2", "the congresswoman spoke of her bill")]),
    ("NEWS_data/FBIS/readme.dtd", "plain", ["<!ELEMENT DOC - - (DOCNO, TEXT)>\n"]),
]
CONGRESSIONAL_RECORD_IDS = {"CR93H-1", "CR93H-2"}


def _store(path: Path, how: str, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    if how == "compress":
        path.write_bytes(compress_z(data))
    elif how == "gzip":
        path.write_bytes(gzip.compress(data, mtime=0))
    else:
        path.write_bytes(data)


def write_tree(root: Path) -> dict[str, str]:
    """Write the tree under ``root``; returns ``{doc_id: relative file}`` of every Robust04 document."""
    where: dict[str, str] = {}
    matched = 0
    for relative, how, docs in FILES:
        _store(root / relative, how, "".join(docs))
        for doc in docs:
            if "<DOCNO>" in doc and not relative.startswith("NEWS_data/CR/"):
                where[doc.split("<DOCNO>")[1].split("</DOCNO>")[0].strip()] = relative
        matched += not relative.startswith("NEWS_data/CR/") and not relative.endswith(".dtd")
    for number in range(EXPECTED_FILES - matched):  # one small document per file, FT style
        relative = f"NEWS_data/FT/FT944/FT944_{number + 1}"
        doc_id = f"FT944-{number + 1}"
        _store(root / relative, "plain", ft(doc_id, "Markets", "shares were steady"))
        where[doc_id] = relative
    return where
