"""Every command and code block of the documentation runs: fenced ``bash`` and ``python`` blocks of
``docs/**/*.md`` and README.md carry a marker on the line before them,

* ``<!-- run -->``: the block runs here, from a stand-in checkout (``runs/``, ``scripts/`` and ``docs/`` of
  this repository, ``../shared/data`` beside it), the page's blocks in order in one folder (bash blocks with
  ``bash -e -o pipefail``, python blocks in one namespace per page);
* ``<!-- no-run: why -->``: it cannot run here (licensed data, an install, minutes of work, ...), and says why;

and a ``text`` block marked ``<!-- output -->`` after a run block is what that block prints, line by line
(a line ``...`` stands for any number of lines), so every number a page quotes from a command is checked.
The README's run blocks, each with its output block, are also blocks of a docs page, and run there."""
from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]
CHECKED_LANGUAGES = {"bash", "sh", "shell", "console", "python", "py"}
MARKER = re.compile(r"^<!--\s*(run|output|no-run:\s*(?P<why>.*?))\s*-->$")
FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)")


@dataclass
class Block:
    page: Path
    line: int
    language: str
    code: str
    marker: str | None
    why: str | None


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of ``page`` with the marker on the line before each (None when there is none)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        fence = FENCE.match(lines[i].strip())
        if not fence:
            i += 1
            continue
        start, closing = i, fence.group(1)
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(closing):
            i += 1
        previous = next((lines[j].strip() for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        marker = MARKER.match(previous)
        kind = None if marker is None else marker.group(1).split(":")[0]
        why = None if marker is None else marker.group("why")
        found.append(Block(page, start + 1, fence.group(2).lower(), "\n".join(lines[start + 1:i]) + "\n", kind, why))
        i += 1
    return found


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def test_the_docs_have_runnable_blocks():
    every = [b for page in PAGES for b in blocks(page)]
    assert sum(b.marker == "run" for b in every) >= 10 and sum(b.marker == "output" for b in every) >= 5


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_code_block_says_whether_it_runs(page):
    for block in blocks(page):
        where = f"{_name(page)}:{block.line}"
        if block.language in CHECKED_LANGUAGES:
            assert block.marker in ("run", "no-run"), f"{where}: mark the block <!-- run --> or <!-- no-run: why -->"
            assert block.marker != "no-run" or block.why, f"{where}: <!-- no-run: ... --> must say why"
        if block.marker == "output":
            assert block.language == "text", f"{where}: an output block is a text block"


WIDTH = 100  # what a code block of the site shows at 1280 px without scrolling (and a terminal of 100 columns)


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_command_fits_the_page(page):
    """A reader copies the run blocks: no line of them hides behind a scrollbar."""
    for block in blocks(page):
        if block.marker == "run":
            for number, line in enumerate(block.code.splitlines(), block.line + 1):
                assert len(line) <= WIDTH, f"{_name(page)}:{number}: {len(line)} characters, more than {WIDTH}"


@pytest.fixture()
def checkout(tmp_path, shared_data, monkeypatch):
    """A stand-in checkout (runs/, scripts/ and docs/ of this repository, ../shared/data beside it), the working
    folder. Every page shares the test session's cache folder (conftest.py), so a collection is tokenised once."""
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(shared_data)
    folder = tmp_path / "irfair"
    folder.mkdir()
    for name in ("runs", "scripts", "docs"):
        (folder / name).symlink_to(ROOT / name)
    monkeypatch.chdir(folder)
    return folder


def matches(expected: str, printed: str) -> bool:
    """``printed`` line by line equal to ``expected``, where an expected line ``...`` stands for any number of lines."""
    pattern = "".join(r"(?:.*\n)*?" if line == "..." else re.escape(line) + r"\n" for line in expected.splitlines())
    return re.fullmatch(pattern, printed) is not None


def run_block(block: Block, folder: Path, namespace: dict) -> str:
    """Run one block in ``folder``; what it printed on stdout."""
    if block.language in ("python", "py"):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(block.code, f"{_name(block.page)}:{block.line}", "exec"), namespace)
        return printed.getvalue()
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", COLUMNS="100")
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block.code], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"{_name(block.page)}:{block.line} exited {done.returncode}: {done.stderr[-3000:]}"
    return done.stdout


def examples(page: Path) -> list[tuple[str, str | None]]:
    """``(code, output)`` of every run block of ``page``: its code and the output block after it (None if none)."""
    found, page_blocks = [], blocks(page)
    for i, block in enumerate(page_blocks):
        if block.marker == "run":
            following = page_blocks[i + 1] if i + 1 < len(page_blocks) else None
            found.append((block.code, following.code if following is not None and following.marker == "output" else None))
    return found


README = ROOT / "README.md"
# the README's examples are examples of the docs too (its first audit opens "How to read an audit"): they run there
RUNNABLE = [page for page in PAGES if page != README and any(b.marker == "run" for b in blocks(page))]


def test_the_readme_runs_what_the_docs_run():
    """Each run block of the README, with its output block, is one of a docs page, which runs it (above)."""
    in_docs = {example for page in RUNNABLE for example in examples(page)}
    assert examples(README)
    for code, output in examples(README):
        assert (code, output) in in_docs, f"README.md: the block\n{code}and its output are not a docs page's (run there)"


@pytest.mark.slow
@pytest.mark.parametrize("page", RUNNABLE, ids=_name)
def test_the_pages_blocks_run_and_print_what_the_page_shows(page, checkout):
    namespace: dict = {"__name__": "__docs__"}
    printed = None
    for block in blocks(page):
        if block.marker == "run":
            printed = run_block(block, checkout, namespace)
        elif block.marker == "output":
            assert printed is not None, f"{_name(page)}:{block.line}: an output block follows a run block"
            assert matches(block.code, printed), f"{_name(page)}:{block.line} shows\n{block.code}\nbut it printed\n{printed}"
            printed = None
