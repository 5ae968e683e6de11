"""Command line: ``irfair <command>``. Each command is a module of this package with ``HELP``,
``configure(parser)`` and ``run(args) -> exit code``; it parses, calls the library and prints.

Whatever goes wrong ends in one line on stderr: bad input or a bad option ``irfair: error: ...``
(exit 2), a file the system refuses to read or write (unreadable, disk full) ``irfair: error: PATH:
REASON`` (exit 2), Ctrl-C ``irfair: interrupted`` (exit 130), SIGTERM or SIGHUP (``kill``, ``timeout``,
Slurm, systemd, a closed terminal) ``irfair: terminated (SIGTERM)`` (exit 128 + the signal's number:
143, 129). Files and cache entries are written atomically and staging folders are removed on the way
out, so nothing half-written stays. Output cut by a closed pipe (``| head``) ends quietly (exit 0).
Warnings of irfair (documented decisions) are one line ``irfair: warning: ...``.
"""
from __future__ import annotations

import argparse
import atexit
import errno
import importlib
import os
import shlex
import signal
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

# OpenBLAS's idle threads spin for about 0.1 s after each product before they sleep: an audit's many mid-sized products
# kept a second core busy for 2 s of CPU time (a fifth of a warm Robust04-sized audit) doing nothing. How a product is
# split over the threads, and so its result, does not change. OpenBLAS reads this when numpy loads it, so it is set
# before anything imports numpy; a value the user set wins.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

from .. import __version__
from ..atomic import WriteFailed
from ..errors import IrfairInputError, IrfairWarning, MissingExtraError, one_line
from ..settings import check_environment
from . import options

COMMANDS = ("audit", "genderedness", "rank", "index", "train", "study", "fairness", "demo", "pyserini", "cache")


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors (unknown option, value out of range, conflicting options) are one
    line ``irfair: error: ...`` instead of usage + message; it exits 2, as argparse does."""

    def error(self, message: str):
        _error(f"error: {message} (see {self.prog} --help)")
        raise SystemExit(2)


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: raised in the main thread, like KeyboardInterrupt, so that every
    ``finally`` (staging folders, locks) runs on the way out."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)


def _terminate(signum, frame):
    raise Terminated(signum)


@contextmanager
def _termination_as_interrupt() -> Iterator[None]:
    """Treat SIGTERM and SIGHUP as Ctrl-C is treated, while the command runs (main thread only; the
    handlers in place before are put back after)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _terminate) for signum in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _os_error_line(exc: OSError) -> str:
    """``PATH: REASON`` for a refused read or write; a failed write says that nothing was left half-written
    (and, for a full disk or a short write, what to do)."""
    where = f"{exc.filename}: " if exc.filename else ""
    reason = exc.strerror or str(exc)
    if isinstance(exc, WriteFailed) or exc.errno in _FULL:
        advice = ": free some space, or choose another --out or --cache-dir" if exc.errno in (*_FULL, None) else ""
        reason += f" (what was being written was removed{advice})"
    return f"{where}{reason}"


def _command(name: str):
    return importlib.import_module(f"{__name__}.{name}")


class _Once(argparse._StoreAction):
    """A single-valued option that refuses to be given twice (argparse keeps the last value in silence, so that
    ``--embeddings a --embeddings b`` audited with b only)."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given_once", {})
        if self.dest in given:
            parser.error(f"argument {'/'.join(self.option_strings)}: given twice ({given[self.dest]!r}, then {values!r}); "
                         "give it once")
        given[self.dest] = values
        super().__call__(parser, namespace, values, option_string)


def _once(parser: argparse.ArgumentParser) -> None:
    """Make every single-valued option of ``parser`` and its subparsers refuse a second value (:class:`_Once`)."""
    for action in parser._actions:
        if type(action) is argparse._StoreAction and action.option_strings:
            action.__class__ = _Once
        elif isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _once(sub)


def build_parser() -> argparse.ArgumentParser:
    """The ``irfair`` parser with one subparser per command of :data:`COMMANDS`."""
    parser = Parser(prog="irfair", description="Audit search engines and classifiers for gender bias.",
                    epilog="irfair COMMAND --help shows a command's options and an example.")
    parser.add_argument("--version", action="version", version=f"irfair {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    shared, parallel = options.output_options(), options.parallel_options()
    for name in COMMANDS:
        module = _command(name)
        parents = [shared, parallel] if getattr(module, "PARALLEL", False) else [shared]
        module.configure(sub.add_parser(name, help=module.HELP, description=module.HELP, epilog=getattr(module, "EXAMPLE", None),
                                        formatter_class=options.HelpFormatter, parents=parents))
    _once(parser)
    return parser


def _one_line_warnings(original):
    """``warnings.showwarning`` printing irfair's warnings as one line, others as ``original`` does."""
    def show(message, category, filename, lineno, file=None, line=None) -> None:
        if issubclass(category, IrfairWarning):
            print(one_line(f"irfair: warning: {message}"), file=sys.stderr)
        else:
            original(message, category, filename, lineno, file, line)
    return show


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so that Python's final flush does not fail on a closed pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _error(text: str) -> None:
    try:
        print(one_line(f"irfair: {text}"), file=sys.stderr)
    except (BrokenPipeError, ValueError):
        pass


def main(argv: list[str] | None = None) -> int:
    """Run ``irfair`` with ``argv``; returns the exit code (2 for bad input, one line on stderr)."""
    try:
        original = warnings.showwarning
        with warnings.catch_warnings(), _termination_as_interrupt():
            warnings.simplefilter("always", IrfairWarning)
            warnings.showwarning = _one_line_warnings(original)
            args = build_parser().parse_args(argv)  # --help, --version and bad options exit here, as argparse does
            args.command_line = shlex.join(["irfair", *(sys.argv[1:] if argv is None else argv)])
            check_environment()  # every IRFAIR_* variable, before any work
            options.apply_output_options(args)
            code = _command(args.command).run(args)
            sys.stdout.flush()
            return code
    except (IrfairInputError, MissingExtraError) as exc:
        _error(f"error: {exc}")
        return 2
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except Terminated as exc:
        _error(f"terminated ({signal.Signals(exc.signum).name})")
        return 128 + exc.signum
    except BrokenPipeError:
        try:
            _quiet_stdout()
        except (OSError, ValueError):
            pass
        return 0
    except OSError as exc:
        _error(f"error: {_os_error_line(exc)}")
        return 2
    except MemoryError:  # one line, never a traceback: what irfair was asked to hold did not fit
        _error("error: out of memory: the inputs or the resamples asked for need more memory than this process may "
               "use (ulimit -v, a container's limit, or the machine's)")
        return 2


def run(argv: list[str] | None = None) -> NoReturn:
    """The ``irfair`` command: :func:`main`, then the process ends with its exit code once Python's own exit work is
    done (threads joined, ``atexit`` handlers run, stdout and stderr flushed), skipping the C++ libraries' static
    destructors. Arrow's thread pool, torn down there, aborted about one exit in fifty after the work and its output
    were complete ("terminate called without an active exception", exit 134: apache/arrow#34314)."""
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's --help, --version and bad options
        code = exc.code
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    try:
        shutdown = getattr(threading, "_shutdown", None)  # what Python's own exit does first: join non-daemon threads
        if shutdown is not None:
            shutdown()
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


if __name__ == "__main__":
    run()
