"""Every command-line program in tools/ reports a bad command line in one line, without a traceback."""

import importlib
import subprocess
import sys

import pytest

from tools import cli
from tools.manifest import ROOT

PROGRAMS = sorted(path.stem for path in (ROOT / "tools").glob("*.py")
                  if "def main(" in path.read_text(encoding="utf-8"))


def test_the_programs_are_found():
    assert {"run", "practice", "sync", "translations", "versions", "website"} <= set(PROGRAMS)


@pytest.mark.parametrize("name", PROGRAMS)
def test_a_bad_argument_is_one_line(name, capsys):
    module = importlib.import_module(f"tools.{name}")
    with pytest.raises(SystemExit) as stop:
        module.main(["--no-such-option"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith(f"python -m tools.{name}: "), err
    assert err.rstrip().endswith("(see --help)")


@pytest.mark.parametrize("name", PROGRAMS)
def test_each_program_runs_main_under_the_guard(name):
    source = (ROOT / "tools" / f"{name}.py").read_text(encoding="utf-8")
    assert f'sys.exit(guard(main, "python -m tools.{name}"))' in source


def test_the_guard_turns_bad_input_into_one_line(capsys):
    def bad_input():
        raise ValueError("unknown notebook 'nope'; expected one of: 01_x")

    assert cli.guard(bad_input, "python -m tools.x") == 2
    assert capsys.readouterr().err == "python -m tools.x: unknown notebook 'nope'; expected one of: 01_x\n"

    def bug():
        raise KeyError("a bug keeps its traceback")

    with pytest.raises(KeyError):
        cli.guard(bug, "python -m tools.x")


def test_from_the_command_line(tmp_path):
    """The whole program, as a person runs it: exit status 2, one line, no traceback."""
    result = subprocess.run([sys.executable, "-m", "tools.run", "--device", "tpu"], cwd=ROOT, capture_output=True,
                            text=True)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith("python -m tools.run: unknown device 'tpu'; expected one of")
