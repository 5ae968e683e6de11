"""Command line: ``irfair <command>``. Each command is a module of this package with ``HELP``,
``configure(parser)`` and ``run(args) -> exit code``; it parses, calls the library and prints."""
from __future__ import annotations

import argparse
import importlib
import shlex
import sys

from .. import __version__
from ..errors import IrfairInputError, MissingExtraError
from . import options

COMMANDS = ("audit", "genderedness", "rank", "index", "train", "study", "fairness", "demo", "pyserini")


def _command(name: str):
    return importlib.import_module(f"{__name__}.{name}")


def build_parser() -> argparse.ArgumentParser:
    """The ``irfair`` parser with one subparser per command of :data:`COMMANDS`."""
    parser = argparse.ArgumentParser(prog="irfair", description="Audit search engines and classifiers for gender bias.",
                                     epilog="irfair COMMAND --help shows a command's options and an example.")
    parser.add_argument("--version", action="version", version=f"irfair {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    shared = options.output_options()
    for name in COMMANDS:
        module = _command(name)
        module.configure(sub.add_parser(name, help=module.HELP, description=module.HELP, epilog=getattr(module, "EXAMPLE", None),
                                        formatter_class=options.HelpFormatter, parents=[shared]))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``irfair`` with ``argv``; returns the exit code (2 for bad input, one line on stderr)."""
    args = build_parser().parse_args(argv)
    args.command_line = shlex.join(["irfair", *(sys.argv[1:] if argv is None else argv)])
    options.apply_output_options(args)
    try:
        return _command(args.command).run(args)
    except (IrfairInputError, MissingExtraError) as exc:
        print(f"irfair: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("irfair: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
