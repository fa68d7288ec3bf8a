"""The course's commands (tools/commands.py): one parser, one table of functions; a bad command line or bad
input is one line, without a traceback, naming the command the learner typed."""

import subprocess
import sys

import pytest

from tools import commands, run
from tools.manifest import ROOT


def test_every_command_has_its_function_and_its_help():
    top, parsers = commands.parser()
    assert list(parsers) == list(commands.COMMANDS) and "run" in top.format_help()
    for name, (function, needs, _, text) in commands.COMMANDS.items():
        assert callable(function) and needs in ("", "learner", "dev") and text, name


@pytest.mark.parametrize("name", [name for name, row in commands.COMMANDS.items() if not row[2]])
def test_a_bad_argument_is_one_line(name, capsys):
    with pytest.raises(SystemExit) as stop:
        commands.parse([name, "--no-such-option"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith(f"{commands.PROG} {name}: "), err
    assert err.rstrip().endswith("(see --help)")


def test_bad_input_is_one_line_and_a_bug_keeps_its_traceback(monkeypatch, capsys):
    def bad_input(args, extra):
        raise ValueError("unknown notebook 'nope'; expected one of: 01_x")

    monkeypatch.setitem(commands.COMMANDS, "site", (bad_input, "learner", False, "the site"))
    assert commands.call(*commands.parse(["site"])) == 2
    assert capsys.readouterr().err == f"{commands.PROG} site: unknown notebook 'nope'; expected one of: 01_x\n"

    def bug(args, extra):
        raise KeyError("a bug keeps its traceback")

    monkeypatch.setitem(commands.COMMANDS, "site", (bug, "learner", False, "the site"))
    with pytest.raises(KeyError):
        commands.call(*commands.parse(["site"]))


def test_from_the_command_line():
    """The whole program, as course.py runs it for `python3 course.py run 42`: exit status, one line naming the
    command and the notebooks' numbers, no traceback. (It reads its arguments before it imports Jupyter's
    modules, so this takes a fraction of a second.)"""
    result = subprocess.run([sys.executable, "-m", "tools", "run", "42"], cwd=ROOT, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("python3 course.py run: no notebook 42; the notebooks are 0 to 9: give "), \
        result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr


def test_the_commands_import_jupyter_and_torch_only_when_they_run():
    """So that a bad command line is answered at once (nbformat's schema, papermill and PyTorch take seconds)."""
    heavy = "{'nbformat', 'papermill', 'nbclient', 'torch', 'tqdm', 'jupyterlab', 'pytest'}"
    code = f"import sys, tools.commands, tools.run; print(sorted({heavy} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.stdout == "[]\n", result.stdout + result.stderr


def test_run_speaks_the_learners_words(capsys):
    """`python3 course.py run 3x`, `run --device tpu`: one line each, naming the command the learner typed."""
    with pytest.raises(SystemExit) as stop:  # refused by the parser, before anything is installed
        commands.parse(["run", "3x"])
    assert stop.value.code == 2 and capsys.readouterr().err.startswith("python3 course.py run: '3x' names no notebook")
    assert commands.call(*commands.parse(["run", "--device", "tpu"])) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("python3 course.py run: unknown device 'tpu'; expected one of")


def test_execute_stores_fresh_outputs_then_syncs_only_after_a_good_run(monkeypatch):
    from tools import sync

    calls = []
    monkeypatch.setattr(run, "run_notebooks", lambda numbers, **kw: calls.append(("run", numbers, kw)) or status)
    monkeypatch.setattr(sync, "sync", lambda: calls.append("sync") or 0)
    status = 0
    assert commands.call(*commands.parse(["execute", "3"])) == 0
    assert calls == [("run", ["3"], {"in_place": True}), "sync"]
    calls.clear()
    status = 1
    assert commands.call(*commands.parse(["execute"])) == 1 and calls == [("run", [], {"in_place": True})]
