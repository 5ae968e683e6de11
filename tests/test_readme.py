"""The README is a short introduction in a fixed order, and every number it quotes is printed by a command
that runs in the tests. Its commands run in tests/test_docs.py (blocks marked ``<!-- run -->``, output
blocks compared line by line); here, what a newcomer relies on: the length, the order of the sections, the
first audit's length, the links, and that each number of its text is one that a checked output block shows."""
import re
from pathlib import Path

from test_docs import blocks

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TEXT = README.read_text(encoding="utf-8")
LINES = TEXT.splitlines()
# the pages whose output blocks the README's numbers are taken from (each block checked by test_docs.py)
SOURCES = [README, ROOT / "docs" / "how-to-read-an-audit.md", ROOT / "docs" / "getting-started.md"]
NUMBER = re.compile(r"(?<![\w.])[−+-]?\d+\.\d+(?:e[−+-]?\d+)?(?![\w.])")
VERSION = re.compile(r"\b\d+\.\d+\.\d+\b|Python 3\.11")


def heading_line(title: str) -> int:
    """The 1-based line of the README's ``## title``."""
    return LINES.index(f"## {title}") + 1


def prose() -> str:
    """The README without its fenced blocks and without version numbers."""
    kept, fenced = [], False
    for line in LINES:
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            kept.append(VERSION.sub("", line))
    return "\n".join(kept)


def checked_numbers() -> list[float]:
    """Every number printed in an output block of the README and the pages it quotes from."""
    found = []
    for page in SOURCES:
        for block in blocks(page):
            if block.marker == "output":
                found += [float(n) for n in NUMBER.findall(block.code)]
    return found


def test_the_readme_is_short_and_in_order():
    assert len(LINES) <= 300
    sections = ["Install", "A first audit", "How to read the numbers", "Documentation"]
    assert [heading_line(s) for s in sections] == sorted(heading_line(s) for s in sections)
    assert heading_line("How to read the numbers") <= 120
    picture = next(i for i, line in enumerate(LINES, 1) if line.startswith("!["))
    assert picture < heading_line("Install")
    assert (ROOT / re.search(r"\]\(([^)]+)\)", LINES[picture - 1]).group(1)).is_file()


def test_the_readme_names_its_commands():
    for command in ("make demo", "make test", "make docs"):
        assert command in TEXT


def test_the_first_audit_prints_at_most_40_lines():
    shown = [b for b in blocks(README) if b.marker == "output"]
    assert len(shown) == 1 and len(shown[0].code.splitlines()) <= 40
    runs = [b for b in blocks(README) if b.marker == "run"]
    assert len(runs) == 1 and runs[0].code.startswith("irfair audit runs/vaswani/*.run")


def test_every_block_of_the_readme_says_whether_it_runs():
    for block in blocks(README):
        assert block.marker in ("run", "no-run", "output"), f"README.md:{block.line}"


def test_readme_links_to_pages_that_exist():
    links = re.findall(r"\]\(((?:docs/|CHANGELOG|LICENSE)[^)#]*)", TEXT)
    assert len(links) >= 15
    for link in links:
        assert (ROOT / link).is_file(), link


def test_every_number_of_the_text_is_printed_by_a_checked_command():
    """A number quoted in the text (``+0.0462``, ``0.31``, ``−0.0934``) rounds from one that an output
    block shows: an output that changes makes the text wrong, and this test says where."""
    printed = checked_numbers()
    quoted = NUMBER.findall(prose())
    assert len(quoted) >= 20
    for text in quoted:
        value = float(text.replace("−", "-"))
        decimals = len(text.split(".")[1].split("e")[0])
        exponent = "e" in text
        assert any((f"{p:.{decimals}e}" if exponent else f"{p:.{decimals}f}") == f"{value:.{decimals}{'e' if exponent else 'f'}}"
                   for p in printed), f"README quotes {text}, which no checked output block prints"
