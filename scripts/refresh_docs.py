"""Run the run blocks of documentation pages, as tests/test_docs.py runs them, and write what each printed into
the output block after it, where that differs (a developer's tool after a change of output; not a test).

    .venv/bin/python scripts/refresh_docs.py docs/getting-started.md README.md ...

An output block holding a ``...`` line (any lines) is never rewritten: it is reported when it no longer matches,
for a person to edit. The README's blocks are those of a docs page: refresh the page, then copy.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_docs import blocks, matches, run_block  # noqa: E402


def refresh(page: Path, checkout: Path) -> list[str]:
    """Rewrite the output blocks of ``page`` that differ from what their run blocks print; returns what was done."""
    lines = page.read_text(encoding="utf-8").splitlines(keepends=True)
    said, printed, namespace, replacements = [], None, {"__name__": "__docs__"}, []
    for block in blocks(page):
        if block.marker == "run":
            try:
                printed = run_block(block, checkout, namespace)
            except AssertionError as failed:  # a block that fails (a cmp of a figure, say): said, and the page goes on
                said.append(f"{page.name}:{block.line}: failed: {str(failed).splitlines()[0][:200]}")
                printed = None
        elif block.marker == "output" and printed is not None:
            if not matches(block.code, printed):
                if any(line == "..." for line in block.code.splitlines()):
                    said.append(f"{page.name}:{block.line}: differs, and holds '...': edit it by hand")
                else:
                    start = block.line  # the fence is line block.line (1-based); the code starts after it
                    replacements.append((start, start + len(block.code.splitlines()), printed))
                    said.append(f"{page.name}:{block.line}: rewritten")
            printed = None
    for start, end, text in reversed(replacements):
        lines[start:end] = [text if text.endswith("\n") else text + "\n"]
    page.write_text("".join(lines), encoding="utf-8")
    return said


def main(pages: list[str]) -> int:
    import os

    shared = ROOT.parent / "shared" / "data"
    for name in pages:
        with tempfile.TemporaryDirectory() as work:
            (Path(work) / "shared").mkdir()
            (Path(work) / "shared" / "data").symlink_to(shared)
            checkout = Path(work) / "irfair"
            checkout.mkdir()
            for folder in ("runs", "scripts", "docs"):
                (checkout / folder).symlink_to(ROOT / folder)
            here = os.getcwd()
            os.chdir(checkout)
            try:
                for line in refresh((ROOT / name).resolve(), checkout):
                    print(line)
            finally:
                os.chdir(here)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
