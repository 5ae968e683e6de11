"""irfair's settings that may come from the environment, declared once and validated the same way
whatever their source: a command-line flag, an environment variable or a Python argument.

A bad value is an :class:`~irfair.errors.IrfairInputError` naming its source — ``IRFAIR_JOBS='many':
expected a positive integer``, ``--jobs=0: ...``, ``jobs=0: ...`` — raised before any work starts (the CLI
checks the whole environment first; :func:`check_environment` does the same for the Python API). An
environment variable that is set but empty counts as not set.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .bounds import physical_memory
from .errors import IrfairInputError

_ADDRESS_SCHEMES = ("tcp://", "tls://", "inproc://", "ucx://")


def _positive_int(text: str) -> int:
    value = int(text.strip())  # ValueError for 'many', '2.5'
    if value < 1:
        raise ValueError(text)
    return value


def _scheduler(text: str) -> str:
    value = text.strip()
    if value != "local" and not (value.startswith(_ADDRESS_SCHEMES) and len(value) > value.index("//") + 2):
        raise ValueError(text)
    return value


def _folder_path(text: str) -> Path:
    """A folder path, surrounding spaces dropped as for every setting (``IRFAIR_CACHE=" /abs/path"`` is
    ``/abs/path``, not a folder named `` `` in the working folder)."""
    if not text.strip() or "\x00" in text:
        raise ValueError(text)
    return Path(text.strip())


_HEAP_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
MIN_JAVA_HEAP = 64 * 2**20  # below this Anserini cannot index or search even a small collection


def _heap(text: str) -> str:
    """A Java heap size as ``-Xmx`` reads it (digits, then k, m, g or t in either case; no unit: bytes), between
    :data:`MIN_JAVA_HEAP` and this machine's physical memory."""
    match = re.fullmatch(r"([1-9][0-9]{0,15})([kKmMgGtT]?)", text.strip())
    if not match:
        raise ValueError(text)
    size = int(match.group(1)) * _HEAP_UNITS[match.group(2).lower()]
    if not MIN_JAVA_HEAP <= size <= physical_memory():
        raise ValueError(text)
    return text.strip()


def _flag(text: str) -> bool:
    if text.strip() not in ("0", "1"):
        raise ValueError(text)
    return text.strip() == "1"


@dataclass(frozen=True)
class Setting:
    """One setting: its Python name, environment variable, command-line flag (if any), what a valid value
    looks like, and the function that turns text into the value (ValueError when it is not valid)."""

    name: str
    env: str
    flag: str | None
    expected: str
    parse: Callable[[str], object]


SETTINGS = {
    setting.name: setting for setting in (
        Setting("jobs", "IRFAIR_JOBS", "--jobs", "a positive integer", _positive_int),
        Setting("scheduler", "IRFAIR_SCHEDULER", "--scheduler", "'local' or a Dask scheduler address such as tcp://host:8786",
                _scheduler),
        Setting("cache_dir", "IRFAIR_CACHE", "--cache-dir", "a folder path", _folder_path),
        Setting("java_heap", "IRFAIR_JAVA_HEAP", None,
                f"a Java heap size such as 2g or 4096m, from 64m to this machine's memory ({physical_memory() // 2**20}m)", _heap),
        Setting("java_verbose", "IRFAIR_JAVA_VERBOSE", "-v", "0 or 1", _flag),
    )
}


def _invalid(source: str, value: object, setting: Setting) -> IrfairInputError:
    return IrfairInputError(None, None, f"{source}={value!r}: expected {setting.expected}")


def parse(name: str, value: object, source: str | None = None):
    """``value`` (text or a Python value) of setting ``name`` checked, as its type; IrfairInputError naming
    ``source`` (default: the Python argument's name) otherwise."""
    setting = SETTINGS[name]
    if isinstance(value, bool) and setting.parse is not _flag:
        raise _invalid(source or name, value, setting)
    try:
        return setting.parse(str(value))
    except (ValueError, TypeError):
        raise _invalid(source or name, value, setting) from None


def from_environment(name: str):
    """The value of setting ``name`` from its environment variable, checked; None when it is not set (or empty)."""
    setting = SETTINGS[name]
    text = os.environ.get(setting.env, "")
    if not text.strip():
        return None
    return parse(name, text, setting.env)


def check_environment() -> None:
    """Check every irfair setting in the environment; IrfairInputError naming the first variable that is not
    valid. (HOME is checked where the default cache folder is needed: :func:`default_cache_folder`.)"""
    for name in SETTINGS:
        from_environment(name)


def default_cache_folder() -> Path:
    """``$IRFAIR_CACHE`` when set, else ``~/.cache/irfair``; IrfairInputError when neither names a usable
    place (HOME empty, relative, or the file-system root)."""
    configured = from_environment("cache_dir")
    if configured is not None:
        return configured
    home = os.environ.get("HOME")
    if home is None:
        return Path.home() / ".cache" / "irfair"  # the user database's home, as Python finds it
    if not home.strip() or not os.path.isabs(home) or Path(home).resolve() == Path("/"):
        raise IrfairInputError(None, None, f"HOME={home!r} gives no place for the cache: set IRFAIR_CACHE to a folder "
                                           "(export IRFAIR_CACHE=/path/to/cache) or pass --cache-dir")
    return Path(home) / ".cache" / "irfair"
