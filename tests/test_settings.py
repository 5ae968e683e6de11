"""Every setting is checked the same way whatever its source (environment variable, flag, Python argument),
before any work, with one line naming the source; HOME that gives no place for the cache is an error."""
from __future__ import annotations

import os

import pytest
from faults_data import run_cli

from irfair.errors import IrfairInputError
from irfair.settings import SETTINGS, check_environment, default_cache_folder, parse

_MEMORY = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")

# setting -> (bad values, what the error says is expected)
BAD = {
    "jobs": (["many", "0", "-1", "2.5", "1e3"], "a positive integer"),
    "scheduler": (["bogus", "tcp://", "http://host:8786", "local2"], "'local' or a Dask scheduler address such as tcp://host:8786"),
    # sizes -Xmx would read but the JVM refuses (too small, or beyond memory: a JVM traceback before this check)
    "java_heap": (["lots", "0", "2x", "-1g", "99999999999999g", "1k", "1", "63m", "1t" if _MEMORY < 2**40 else "99999t"],
                  f"a Java heap size such as 2g or 4096m, from 64m to this machine's memory ({_MEMORY // 2**20}m)"),
    "java_verbose": (["yes", "2"], "0 or 1"),
}
CASES = [(name, value) for name, (values, _) in BAD.items() for value in values]


def test_every_setting_has_bad_values_here():
    assert set(BAD) | {"cache_dir"} == set(SETTINGS)


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for setting in SETTINGS.values():
        monkeypatch.delenv(setting.env, raising=False)
    monkeypatch.setenv("IRFAIR_CACHE", str(tmp_path / "cache"))
    return monkeypatch


@pytest.mark.parametrize(("name", "value"), CASES)
def test_a_bad_environment_variable_stops_the_cli_before_any_work(clean_env, tmp_path, name, value):
    setting = SETTINGS[name]
    clean_env.setenv(setting.env, value)
    out = tmp_path / "out"
    code, printed, err = run_cli(["audit", "no-such.run", "--qrels", "q", "--topics", "t", "--corpus", "c", "--out", out])
    assert (code, printed) == (2, "")
    assert err == f"irfair: error: {setting.env}={value!r}: expected {BAD[name][1]}\n"
    assert not out.exists() and not (tmp_path / "cache").exists()


@pytest.mark.parametrize(("name", "value"), [case for case in CASES if SETTINGS[case[0]].flag in ("--jobs", "--scheduler")])
def test_the_same_values_as_flags_are_refused_in_the_same_words(clean_env, name, value):
    flag = SETTINGS[name].flag
    code, _, err = run_cli(["rank", "--corpus", "c", "--topics", "t", "--out", "x.run", f"{flag}={value}"])
    assert code == 2 and err.startswith(f"irfair: error: argument {flag}: expected {BAD[name][1]}, found {value!r}")


@pytest.mark.parametrize(("name", "value"), CASES)
def test_the_same_values_as_python_arguments_are_refused(name, value):
    with pytest.raises(IrfairInputError, match=f"^{name}={value!r}: expected ".replace("+", r"\+").replace(".", r"\.")):
        parse(name, value)


def test_good_values_are_read_from_every_source(clean_env):
    clean_env.setenv("IRFAIR_JOBS", " 3 ")
    clean_env.setenv("IRFAIR_SCHEDULER", "tcp://10.0.0.1:8786")
    clean_env.setenv("IRFAIR_JAVA_HEAP", "512m")
    clean_env.setenv("IRFAIR_JAVA_VERBOSE", "")  # empty: not set
    check_environment()
    from irfair.anserini import java_heap
    from irfair.executor import default_jobs, scheduler_of

    assert (default_jobs(), scheduler_of(), java_heap()) == (3, "tcp://10.0.0.1:8786", "512m")
    assert (parse("jobs", 2), parse("scheduler", "local"), parse("java_verbose", "1")) == (2, "local", True)
    with pytest.raises(IrfairInputError, match=r"^jobs=True: expected a positive integer$"):
        parse("jobs", True)


def test_spaces_around_a_cache_path_are_dropped_as_for_every_setting(clean_env, tmp_path, monkeypatch):
    """IRFAIR_CACHE=" /abs/path" silently made the folder './ /abs/path' (other settings strip their spaces)."""
    from irfair.cache import default_cache_dir

    monkeypatch.chdir(tmp_path)
    clean_env.setenv("IRFAIR_CACHE", f" {tmp_path / 'cache'}\t")
    assert default_cache_dir() == tmp_path / "cache" and parse("cache_dir", " c ") == tmp_path.__class__("c")


@pytest.mark.parametrize("home", ["", "relative/home", "/"])
def test_a_home_that_gives_no_place_for_the_cache_is_an_error_naming_irfair_cache(clean_env, tmp_path, home):
    clean_env.delenv("IRFAIR_CACHE")
    clean_env.setenv("HOME", home)
    expected = f"HOME={home!r} gives no place for the cache: set IRFAIR_CACHE to a folder (export IRFAIR_CACHE=/path/to/cache) " \
               "or pass --cache-dir"
    with pytest.raises(IrfairInputError, match=f"^{expected.replace('(', '[(]').replace(')', '[)]')}$"):
        default_cache_folder()
    code, _, err = run_cli(["cache", "info"])
    assert (code, err) == (2, f"irfair: error: {expected}\n")
    assert run_cli(["cache", "info", "--cache-dir", tmp_path / "given"])[0] == 0  # a folder given needs no HOME
    clean_env.setenv("IRFAIR_CACHE", str(tmp_path / "c"))
    assert default_cache_folder() == tmp_path / "c"
    clean_env.delenv("IRFAIR_CACHE")
    clean_env.setenv("HOME", str(tmp_path))
    assert default_cache_folder() == tmp_path / ".cache" / "irfair"


def test_a_cache_variable_naming_a_file_is_an_error_naming_the_variable(clean_env, tmp_path):
    (tmp_path / "file").write_text("not a folder")
    clean_env.setenv("IRFAIR_CACHE", str(tmp_path / "file"))
    code, _, err = run_cli(["genderedness", "nurse"])
    assert (code, err) == (2, f"irfair: error: {tmp_path / 'file'}: the cache folder ($IRFAIR_CACHE) is a file, expected a folder\n")
