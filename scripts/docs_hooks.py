"""MkDocs hooks (``hooks:`` in mkdocs.yml). The CLI reference page is made at build time from irfair's own
argparse parsers, so it never goes stale: in ``docs/cli.md`` the line ``<!-- cli-reference -->`` becomes one
section per command with its ``--help`` text, as ``irfair COMMAND --help`` prints it in a terminal of
:data:`WIDTH` columns. The API reference shows docstrings' Sphinx roles as plain code."""
from __future__ import annotations

import os
import re

MARKER = "<!-- cli-reference -->"
# Sphinx roles in docstrings (:class:`Run`): the code they mark stays, the role's name goes
_ROLE = re.compile(r":(?:class|func|mod|meth|attr|data|exc):(?=<code>)")
# Sphinx's ``~`` before a dotted name (:class:`~irfair.audit.gate.GateFailure`) shows its last part only
_TILDE = re.compile(r"<code>~(?:[\w]+\.)*(\w+)</code>")
WIDTH = 78  # what a code block of the site shows without scrolling at 1280 px


def cli_reference() -> str:
    """Markdown: ``irfair --help``, then one section per command of :data:`irfair.cli.COMMANDS`."""
    import argparse

    from irfair.cli import COMMANDS, build_parser

    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(WIDTH)  # argparse wraps help at the terminal width: fix it for a stable page
    try:
        parser = build_parser()
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
        sections = ["## irfair", "", "```text", _fitted(parser.format_help()), "```", ""]
        for name in COMMANDS:
            sections += [f"## irfair {name}", "", "```text", _fitted(commands[name].format_help()), "```", ""]
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous
    return "\n".join(sections)


def _fitted(text: str) -> str:
    """``text`` with the lines argparse leaves long (descriptions and examples kept as written) wrapped at
    :data:`WIDTH`, each continuation indented as its line."""
    import textwrap

    lines = []
    for line in text.rstrip().splitlines():
        indent = line[: len(line) - len(line.lstrip())]
        lines += textwrap.wrap(line, WIDTH, subsequent_indent=indent + "  ", break_on_hyphens=False) if len(line) > WIDTH else [line]
    return "\n".join(lines)


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Fill the CLI reference page's marker."""
    return markdown.replace(MARKER, cli_reference()) if MARKER in markdown else markdown


def on_page_content(html: str, page, config, files) -> str:
    """Drop the names of Sphinx roles before inline code (``:func:`audit``` reads as ``audit``), and a ``~``
    name's module path (``:class:`~irfair.audit.gate.GateFailure``` reads as ``GateFailure``)."""
    return _TILDE.sub(r"<code>\1</code>", _ROLE.sub("", html))
