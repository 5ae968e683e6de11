"""The README's examples run as written (from a checkout with ../shared/data beside it) and print what the
README says they print."""
import re
import shlex
from pathlib import Path

import pytest

from irfair.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def shell_examples() -> list[tuple[str, str | None]]:
    """``(command, expected stdout or None)`` for every indented ``irfair ...`` example; the expected output
    is the ```text block that follows an example introduced as printing it."""
    examples = []
    lines = README.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("    irfair "):
            command = lines[i].strip()
            while command.endswith("\\"):
                i += 1
                command = command[:-1].rstrip() + " " + lines[i].strip()
            command = re.sub(r"\s+#.*$", "", command)
            expected = None
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and lines[j].startswith("prints") and "```text" in lines[j + 1:j + 4]:
                start = lines.index("```text", j) + 1
                end = lines.index("```", start)
                expected = "\n".join(lines[start:end]) + "\n"
            examples.append((command, expected))
        i += 1
    return examples


EXAMPLES = shell_examples()
WITH_OUTPUT = [(c, e) for c, e in EXAMPLES if e is not None]


@pytest.fixture()
def checkout(tmp_path, shared_data, monkeypatch):
    """A stand-in checkout: runs/ from this repository and ../shared/data beside it; the working directory."""
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(shared_data)
    (tmp_path / "irfair").mkdir()
    (tmp_path / "irfair" / "runs").symlink_to(ROOT / "runs")
    monkeypatch.chdir(tmp_path / "irfair")
    return tmp_path / "irfair"


# examples that need the reader's own data (predictions, trec_eval's test files beside topics and documents,
# a licensed Robust04 copy): their syntax is still checked
USERS_OWN_DATA = ("predictions.csv", "results.test", "qrels.robust04.txt", " /data/", "indexes/robust04")


def users_own(command: str) -> bool:
    return any(marker in command for marker in USERS_OWN_DATA)


def test_examples_are_found():
    """The README keeps the first audit; the other examples live in docs/, run by tests/test_docs.py."""
    commands = [c.split()[1] for c, _ in EXAMPLES]
    assert set(commands) == {"audit"}
    assert len(WITH_OUTPUT) == 1
    assert sum(users_own(c) for c, _ in EXAMPLES) == 0  # a new template must be looked at, not skipped silently


def test_readme_links_to_pages_that_exist():
    links = re.findall(r"\]\((docs/[^)#]+)", README)
    assert len(links) >= 15
    for link in links:
        assert (ROOT / link).is_file(), link


@pytest.mark.parametrize(("command", "expected"), WITH_OUTPUT, ids=[c.split()[1] + str(i) for i, (c, _) in enumerate(WITH_OUTPUT)])
def test_example_prints_what_the_readme_shows(checkout, command, expected, capsys):
    assert main(shlex.split(command)[1:]) == 0
    assert capsys.readouterr().out == expected


def test_every_other_example_parses_and_names_existing_inputs(checkout):
    parser = build_parser()
    made_by_examples = {"time-bm25.run"}
    for command, _ in EXAMPLES:
        argv = [a for a in shlex.split(command)[1:] if not (a.startswith("[") or a.endswith("]"))]
        if argv[0] == "pyserini":  # pyserini's own command line, passed through
            continue
        args = parser.parse_args(argv)
        if users_own(command):
            continue
        for name in ("corpus", "topics", "qrels", "candidates", "rerank"):
            value = getattr(args, name, None)
            if isinstance(value, str) and value not in made_by_examples:
                assert Path(value).exists(), f"{command}: {value}"
        for run in getattr(args, "runs", None) or []:
            assert Path(run).is_file(), run
