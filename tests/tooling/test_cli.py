"""Every command-line program in tools/ reports a bad command line in one line, without a traceback."""

import importlib
import os
import subprocess
import sys

import pytest

from tools import cli, run
from tools.manifest import ROOT

PROGRAMS = sorted(path.stem for path in (ROOT / "tools").glob("*.py")
                  if "def main(" in path.read_text(encoding="utf-8"))


def test_the_programs_are_found():
    assert {"run", "practice", "sync", "translations", "website"} <= set(PROGRAMS)


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


def test_from_the_command_line():
    """The whole program, as a person runs it from `python3 course.py run 42`: exit status, one line naming the
    command the learner typed and the notebooks' numbers, no traceback. (It reads its arguments before it
    imports Jupyter's modules, so this takes a fraction of a second.)"""
    env = {**os.environ, "COURSE_COMMAND": "python3 course.py run"}
    result = subprocess.run([sys.executable, "-m", "tools.run", "42"], cwd=ROOT, capture_output=True, text=True,
                            env=env, timeout=60)
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr == ("python3 course.py run: no notebook 42; the notebooks are 0 to 9, e.g. "
                             "`python3 course.py run 0 9`\n"), result.stderr


def test_run_imports_jupyter_only_once_its_command_line_is_read():
    """So that a bad command line is answered at once (nbformat's schema, papermill and PyTorch take seconds)."""
    heavy = "{'nbformat', 'papermill', 'nbclient', 'torch', 'tqdm'}"
    result = subprocess.run([sys.executable, "-c", f"import sys, tools.run; print(sorted({heavy} & set(sys.modules)))"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.stdout == "[]\n", result.stdout + result.stderr


def test_run_speaks_the_learners_words_when_course_py_starts_it(monkeypatch, capsys):
    """`python3 course.py run 3x`, `run --device tpu`: one line each, naming the command the learner typed."""
    monkeypatch.setattr(run, "PROG", "python3 course.py run")
    with pytest.raises(SystemExit, match=r"^python3 course.py run: no notebook 3x; the notebooks are 0 to 9"):
        run.main(["3x"])
    assert run.main(["--device", "tpu"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "tools.run" not in err, err
    assert err.startswith("python3 course.py run: unknown device 'tpu'; expected one of"), err


def test_a_device_asked_on_the_command_line_is_answered_as_an_option(monkeypatch):
    import torch

    from utils.devices import resolve_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match=r"^--device cuda was requested, .* Run with --device cpu or --device auto"):
        resolve_device("cuda", option="--device")
    with pytest.raises(RuntimeError, match=r"^device='cuda' was requested, .* Run with device='cpu' or device='auto'"):
        resolve_device("cuda")  # in a notebook
