"""A newcomer's slips with course.py, each answered in one line that says what to do (issue 34): a venv
without pip, a second command during an install, .venv deleted during an install, no command, a typo in
a lab option, (the processes: tests/processes/test_course_py.py)."""

import errno
import importlib
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from tools import bootstrap as entry
from tools import commands
from utils import cli

ROOT = entry.ROOT


def _one_line(text):
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


# --- a venv without pip (Debian and Ubuntu without python3-venv) -----------------------------------

def test_a_python_that_cannot_make_pip_stops_before_making_a_venv(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(entry, "can_make_pip", lambda python: False)
    assert entry.main(["--venv", str(tmp_path / "v"), "run"]) == 1
    assert _one_line(capsys.readouterr().err) == (
        "course.py: this Python cannot put pip into a virtual environment: install python3-venv "
        "(`sudo apt install python3-venv` on Debian and Ubuntu), then run the command again.")
    assert not entry.venv_python(tmp_path / "v").exists()


def test_a_venv_without_pip_is_named_when_pip_cannot_be_added(tmp_path, monkeypatch, capsys):
    venv.EnvBuilder(with_pip=False).create(tmp_path / "v")  # what `python3 -m venv` leaves without python3-venv
    monkeypatch.setattr(entry, "can_make_pip", lambda python: False)
    assert entry.main(["--venv", str(tmp_path / "v"), "run"]) == 1
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("course.py: .venv has no pip, and this Python cannot put pip into a virtual environment: "
                           "install python3-venv (`sudo apt install python3-venv`")


def test_a_venv_without_pip_gets_its_pip_where_python_can_add_it(tmp_path, monkeypatch, capsys):
    venv.EnvBuilder(with_pip=False).create(tmp_path / "v")
    python = entry.venv_python(tmp_path / "v")
    calls = []

    def run(command, **kwargs):
        calls.append(command)
        return subprocess.CompletedProcess(command, 0 if command[1:3] == ["-c", "import ensurepip"] else 1)

    monkeypatch.setattr(entry.subprocess, "run", run)
    entry.ensure_pip(tmp_path / "v", python)
    assert calls[-1] == [str(python), "-m", "ensurepip", "--upgrade", "--default-pip"]
    assert _one_line(capsys.readouterr().out) == ("course.py: .venv has no pip (a virtual environment made without "
                                                  "it); adding it with ensurepip.")


# --- one install at a time ---------------------------------------------------------------------

def test_the_install_lock_is_held_against_a_second_command(tmp_path):
    with entry.install_lock(tmp_path / "v"):
        with open(tmp_path / "v" / entry.LOCK, "a+b") as second:  # another command's open file
            assert not entry._try_lock(second)
    with open(tmp_path / "v" / entry.LOCK, "a+b") as second:
        assert entry._try_lock(second)  # released with the install


def _made(venv_dir, python, base):
    """A stand-in for making the venv: its Python's file, nothing installed."""
    python.parent.mkdir(parents=True, exist_ok=True)
    python.write_text("")


def test_a_venv_deleted_during_the_install_is_one_line(tmp_path, monkeypatch, capsys):
    target = tmp_path / "v"

    def install(python, *args):
        import shutil

        shutil.rmtree(target)  # the learner deletes .venv while pip runs
        raise subprocess.CalledProcessError(1, [str(python), "-m", "pip", "install"])

    monkeypatch.setattr(entry, "ensure_pip", _made)
    monkeypatch.setattr(entry, "install", install)
    monkeypatch.setattr(entry, "choose_installer", lambda probe: ("pip", ""))
    assert entry.main(["--venv", str(target), "run"]) == 1
    assert _one_line(capsys.readouterr().err) == ("course.py: v was deleted during the install; run the command again "
                                                  "to install the course afresh.")


def test_a_failed_install_names_the_command_that_failed(tmp_path, monkeypatch, capsys):
    def pip_fails(python, *args):
        raise subprocess.CalledProcessError(1, [str(python), "-m", "pip", "install"])

    monkeypatch.setattr(entry, "ensure_pip", _made)
    monkeypatch.setattr(entry, "install", pip_fails)
    monkeypatch.setattr(entry, "choose_installer", lambda probe: ("pip", ""))
    monkeypatch.setattr(entry.shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(60e9, 10e9, 50e9))
    assert entry.main(["--venv", str(tmp_path / "v"), "run"]) == 1
    python = entry.venv_python(tmp_path / "v")
    assert _one_line(capsys.readouterr().err) == (f"course.py: setting up {tmp_path / 'v'} failed: `{python} -m pip "
                                                  "install` exited with 1 (its output is above)")


def test_a_stamp_that_cannot_be_written_because_the_venv_is_gone_is_the_same_line(tmp_path, monkeypatch, capsys):
    target = tmp_path / ".venv"
    monkeypatch.setattr(entry, "ensure_pip", _made)
    monkeypatch.setattr(entry, "choose_installer", lambda probe: ("pip", ""))
    monkeypatch.setattr(entry, "install", lambda *args: __import__("shutil").rmtree(target))
    assert entry.main(["--venv", str(target), "run"]) == 1
    assert "course.py: .venv was deleted during the install" in capsys.readouterr().err


# --- no command; a lab option misspelt -----------------------------------------------------------

def test_no_command_lists_the_commands(capsys):
    with pytest.raises(SystemExit) as stop:
        entry.main([])
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert err.startswith(f"{commands.PROG} needs a command; to start, `{commands.PROG} lab` opens the notebooks")
    for command in ("run", "lab", "test", "practice", "check", "install"):
        assert f"\n    {command} " in err, command
    assert "required" not in err


def test_the_commands_are_named_in_the_learners_words_on_each_system(monkeypatch, capsys):
    monkeypatch.setattr(sys, "platform", "win32")
    try:
        importlib.reload(cli)
        windows = importlib.reload(commands)
        assert windows.PROG == "py course.py"
        with pytest.raises(SystemExit):
            windows.parse(["--help"])
    finally:
        monkeypatch.undo()
        importlib.reload(cli)
        importlib.reload(commands)
    assert commands.PROG == "python3 course.py"
    assert capsys.readouterr().out.startswith("usage: py course.py ")


LAB = {"allow-root", "port", "no-browser", "ip", "browser", "notebook-dir", "log-level", "y"}


@pytest.mark.parametrize("args, expected", [
    (["--practise"], "unknown option --practise; did you mean --practice?"),
    (["--port", "8899", "--no-browsr"], "unknown option --no-browsr; did you mean --no-browser?"),
    (["--notebok-dir=x"], "unknown option --notebok-dir=x; did you mean --notebook-dir?"),
    (["--zzz"], "unknown option --zzz; (`"),
])
def test_a_lab_option_typo_is_one_line(args, expected):
    line = commands.lab_option_problem(args, LAB)
    assert line.startswith(expected) and len(line.splitlines()) == 1, line
    assert line.endswith(f"(`{commands.PROG} lab --help` lists JupyterLab's options)")


@pytest.mark.parametrize("args", [
    [], ["--port", "8899", "--no-browser"], ["--port=8899"], ["--ServerApp.token=abc"],
    ["--allow_root"], ["-y"], ["--browser=firefox"], ["--help"],
])
def test_jupyterlabs_own_options_pass(args):
    assert commands.lab_option_problem(args, LAB) == ""


def test_a_lab_typo_stops_before_jupyterlab_with_its_own_options(monkeypatch, capsys):
    """The options are JupyterLab's own (its app's flags and aliases), read in the venv's process."""
    from jupyterlab.labapp import LabApp

    monkeypatch.setattr(LabApp, "launch_instance", lambda *args, **kwargs: pytest.fail("JupyterLab was started"))
    assert commands.call(*commands.parse(["lab", "--practise"])) == 2
    assert _one_line(capsys.readouterr().err).startswith(f"{commands.PROG} lab: unknown option --practise; did you "
                                                         "mean --practice?")
    assert commands.call(*commands.parse(["lab", "--no-browsr"])) == 2
    assert "did you mean --no-browser?" in capsys.readouterr().err


# --- naming notebooks as the files are named; a typo anywhere gets "did you mean" ----------------

@pytest.mark.parametrize("words, numbers", [
    (["01"], ["1"]), (["1"], ["1"]), (["1-3"], ["1", "2", "3"]), (["00", "9"], ["0", "9"]),
    (["notebooks/01_one_hot_matmul.ipynb"], ["1"]), (["01_one_hot_matmul.ipynb", "1"], ["1"]),
    ([str(ROOT / "notebooks" / "03_embedding_vs_linear.ipynb")], ["3"]), ([], []),
])
def test_run_takes_the_notebooks_as_their_files_are_named(words, numbers):
    for command in ("run", "execute"):
        assert commands.parse([command, *words])[0].notebooks == numbers


@pytest.mark.parametrize("word", ["12", "3-1", "1-12", "one", "notebooks/zh/01_one_hot_matmul.ipynb", "x.ipynb"])
def test_a_word_that_names_no_notebook_is_one_line_saying_what_run_takes(word, capsys):
    with pytest.raises(SystemExit) as stop:
        entry.main(["run", word])
    line = _one_line(capsys.readouterr().err)
    assert stop.value.code == 2 and line.startswith(f"{commands.PROG} run: ") and word in line
    assert "(1 or 01), a range (1-3) or its file (notebooks/01_one_hot_matmul.ipynb)" in line


@pytest.mark.parametrize("argv, expected", [
    (["--vnev", "x", "run"], f"{commands.PROG}: unrecognized argument --vnev; did you mean --venv?"),
    (["--constrains=y", "run"], f"{commands.PROG}: unrecognized argument --constrains; did you mean --constraints?"),
    (["--venv", "v", "rnu"], "did you mean run?"),
    (["run", "--devcie", "cuda"], f"{commands.PROG} run: unrecognized argument --devcie; did you mean --device?"),
    (["practice", "--brnach", "x"], "did you mean --branch?"),
    (["site", "--ot", "x"], "did you mean --out?"),
    (["install", "--dve"], "did you mean --dev?"),
])
def test_every_command_and_option_typo_gets_did_you_mean(argv, expected, capsys):
    with pytest.raises(SystemExit) as stop:
        entry.main(argv)
    assert stop.value.code == 2 and expected in _one_line(capsys.readouterr().err)


def test_a_check_option_typo_gets_did_you_mean_in_the_learners_words(capsys):
    with pytest.raises(SystemExit) as stop:
        commands.call(*commands.parse(["check", "--dve"]))
    assert stop.value.code == 2
    assert _one_line(capsys.readouterr().err) == (f"{commands.PROG} check: unrecognized arguments: --dve; did you "
                                                  "mean --dev? (see --help)")


def test_no_hint_says_python_where_the_learner_types_python3():
    """Debian and Ubuntu have no ``python``: the hints say ``python3 course.py`` (``py course.py`` on Windows)."""
    files = [ROOT / "course.py", *(ROOT / "tools").rglob("*.py"), *(ROOT / "utils").rglob("*.py")]
    assert [str(path.relative_to(ROOT)) for path in files if "python course.py" in path.read_text("utf-8")] == []


# --- a read-only checkout (lab machines mount course folders read-only) ------------------------------

def _read_only(*args, **kwargs):
    raise OSError(errno.EROFS, "Read-only file system")


def test_a_read_only_checkout_says_so_and_where_to_copy_it_before_installing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(Path, "mkdir", _read_only)  # the first write of an install: .venv/ for its lock
    for command in ("run", "check", "lab"):
        assert entry.main(["--venv", str(tmp_path / ".venv"), command]) == 1
        assert _one_line(capsys.readouterr().err) == (
            f"course.py: {tmp_path} is read-only, so the course cannot install or write its results there: copy it "
            f"to a folder of yours (`cp -r {tmp_path} ~/{tmp_path.name}`) and run the command in the copy")


@pytest.mark.parametrize("argv", [["run", "0"], ["practice"]])
def test_a_read_only_checkout_with_its_venv_says_so_before_running(argv, monkeypatch, capsys):
    monkeypatch.setattr(Path, "mkdir", _read_only)
    monkeypatch.setattr("tools.run.run_notebooks", lambda *args, **kwargs: pytest.fail("the notebooks ran"))
    assert commands.call(*commands.parse(argv)) == 2
    assert _one_line(capsys.readouterr().err).startswith(f"{commands.PROG} {argv[0]}: {ROOT} is read-only, so the "
                                                         "course cannot install or write its results there: copy it")


# --- an interrupted first install; a full disk ---------------------------------------------------

def test_ctrl_c_in_a_first_install_is_one_line_and_removes_the_half_made_venv(tmp_path, monkeypatch, capsys):
    def interrupted(venv_dir, python, base):
        _made(venv_dir, python, base)  # `python -m venv` made the venv; Ctrl+C came during ensurepip
        raise KeyboardInterrupt

    monkeypatch.setattr(entry, "ensure_pip", interrupted)
    assert entry.main(["--venv", str(tmp_path / ".venv"), "run"]) == 1
    assert _one_line(capsys.readouterr().err) == ("course.py: interrupted; the half-made .venv was removed, so the "
                                                  "next command installs the course afresh.")
    assert not (tmp_path / ".venv").exists()


def test_ctrl_c_in_a_later_install_keeps_the_venv(tmp_path, monkeypatch, capsys):
    _made(tmp_path / ".venv", entry.venv_python(tmp_path / ".venv"), "")  # installed before; the files changed
    monkeypatch.setattr(entry, "ensure_pip", lambda *args: None)
    monkeypatch.setattr(entry, "choose_installer", lambda probe: ("pip", ""))
    monkeypatch.setattr(entry, "install", lambda *args: (_ for _ in ()).throw(KeyboardInterrupt))
    assert entry.main(["--venv", str(tmp_path / ".venv"), "run"]) == 130
    assert _one_line(capsys.readouterr().err) == "course.py: interrupted"
    assert entry.venv_python(tmp_path / ".venv").exists()


def test_a_full_disk_says_the_space_needed_and_removes_the_half_built_venv(tmp_path, monkeypatch, capsys):
    def pip_fills_the_disk(python, *args):
        raise subprocess.CalledProcessError(1, [str(python), "-m", "pip", "install"])  # "No space left on device"

    monkeypatch.setattr(entry, "ensure_pip", _made)
    monkeypatch.setattr(entry, "choose_installer", lambda probe: ("pip", ""))
    monkeypatch.setattr(entry, "install", pip_fills_the_disk)
    monkeypatch.setattr(entry.shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(60e9, 59.9e9, 0.1e9))
    assert entry.main(["--venv", str(tmp_path / ".venv"), "run"]) == 1
    needed = entry.SPACE_NEEDED["pip"] / 1e9
    assert _one_line(capsys.readouterr().err) == (
        f"course.py: setting up .venv failed with too little space on the disk: the course needs about {needed:.1f} "
        "GB there and 0.1 GB is free (the half-built .venv was removed); free some space, then run the command again.")
    assert not (tmp_path / ".venv").exists()
