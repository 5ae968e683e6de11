"""Every Python example of docs/measures/*.md runs and its assertions hold."""
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs" / "measures"
EXAMPLES = [(page.name, i, code) for page in sorted(DOCS.glob("*.md"))
            for i, code in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S))]


def test_every_page_has_an_example():
    assert {name for name, _, _ in EXAMPLES} == {page.name for page in DOCS.glob("*.md")}


@pytest.mark.parametrize(("page", "index", "code"), EXAMPLES, ids=[f"{p}-{i}" for p, i, _ in EXAMPLES])
def test_example_runs(page, index, code):
    exec(compile(code, f"{page} example {index}", "exec"), {})
