"""course.py where processes meet: a second command waits for an install, and on POSIX the command runs in
course.py's own process (so Ctrl+C and ``kill`` reach it with nothing in between)."""

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from tools import bootstrap as entry

ROOT = entry.ROOT


def test_a_second_command_waits_for_the_install_saying_so(tmp_path):
    """A second process waits, says so in one line, and goes on once the first is done (no pip traceback).

    No sleep: the test waits for the second's line, then marks the file `released` just before it lets go."""
    released = tmp_path / "released"
    script = textwrap.dedent(f"""
        import sys; sys.path.insert(0, {str(ROOT)!r})
        from tools import bootstrap as course
        from pathlib import Path
        with course.install_lock(Path({str(tmp_path / "v")!r})):
            print("installed after the first" if Path({str(released)!r}).exists() else "installed alongside")
    """)
    with entry.install_lock(tmp_path / "v"):
        second = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        said = second.stdout.readline()
        assert said == ("course.py: another course.py command is installing the course into .venv; waiting "
                        "for it to finish (Ctrl+C stops waiting).\n")
        assert second.poll() is None  # it has said so, and it waits while the lock is held
        released.touch()
    # read() and not communicate(): readline may have buffered more than its line. pytest-timeout guards a hang
    out, err = second.stdout.read(), second.stderr.read()
    second.wait()
    assert second.returncode == 0 and err == ""
    assert out == "installed after the first\n"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX: course.py becomes the command (os.execve)")
def test_course_py_becomes_the_command_in_the_venv(tmp_path):
    """A venv whose installed record is current, and whose "python" is a script that prints its process id and
    arguments: course.py runs it in its own process, with the command line it was given."""
    venv = tmp_path / "v"
    python = entry.venv_python(venv)
    python.parent.mkdir(parents=True)
    python.write_text('#!/bin/sh\necho "$$ $PYTHONUTF8 $*"\n')
    python.chmod(0o755)
    (venv / entry.STAMP).write_text(json.dumps({"hash": entry.install_hash(False, "constraints.txt")}))
    process = subprocess.Popen([sys.executable, str(ROOT / "course.py"), "--venv", str(venv), "run", "3"],
                               stdout=subprocess.PIPE, text=True)
    out, _ = process.communicate()
    assert process.returncode == 0
    assert out == f"{process.pid} 1 -m tools --venv {venv} run 3\n"


def test_plain_pytest_without_the_suites_plugins_points_to_course_py_test():
    """`pytest` in the clone from a Python that has pytest alone (the plugins' autoload off stands for it):
    one line that says to run `python3 course.py test`, in place of "unrecognized arguments: -n --dist ..."."""
    result = subprocess.run([sys.executable, "-m", "pytest", "tests/unit/test_vocab.py"], cwd=ROOT,
                            capture_output=True, text=True,
                            env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert result.returncode == 4, result.stdout + result.stderr
    assert result.stdout == "", result.stdout
    assert result.stderr.strip().splitlines() == [
        f"ERROR: this pytest ({sys.executable}) runs without pytest-xdist or nbval, which the suite's options "
        "(pyproject.toml) need: run the tests with `python3 course.py test` (it installs them into .venv)"]


#: pyenv's Pythons older than 3.10, where it has them (this machine: 2.7 and 3.6 to 3.9)
OLD_PYTHONS = sorted(str(python) for python in Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")).glob(
    "versions/*/bin/python") if re.fullmatch(r"2\.\d+\.\d+|3\.[0-9]\.\d+", python.parent.parent.name))


@pytest.mark.skipif(not OLD_PYTHONS, reason="no Python older than 3.10 on this machine (pyenv's 2.7 and 3.6 serve)")
@pytest.mark.parametrize("python", OLD_PYTHONS, ids=lambda python: Path(python).parent.parent.name)
def test_an_old_python_gets_the_version_line_not_a_syntax_error(python):
    result = subprocess.run([python, "course.py", "run"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 2 and result.stdout == "", result
    assert result.stderr.startswith("course.py: the course needs Python 3.10 or newer; this is "), result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="Ctrl+C is sent here as SIGINT to the process group (POSIX)")
def test_ctrl_c_during_the_first_install_is_one_line_and_leaves_no_venv(tmp_path):
    """The learner presses Ctrl+C as ensurepip or pip runs (the terminal sends SIGINT to its foreground group):
    one line, no KeyboardInterrupt traceback from the install's programs, and no half-made venv for the next run.

    The install's programs run in sessions of their own (bootstrap.APART), and course.py stops only the one it
    started: ensurepip and its pip, which `python -m venv` started, run on after course.py has exited. So the test
    waits for course.py itself (pytest-timeout's limit turns a hang into a failure), then stops those sessions,
    so that nothing it started goes on writing into tmp_path or loading the machine for the tests after it."""
    venv, err = tmp_path / "v", tmp_path / "stderr"
    with err.open("w") as stderr:  # a file, not a pipe: a full pipe that nobody reads would stop course.py's print
        process = subprocess.Popen([sys.executable, "course.py", "--venv", str(venv), "install"], cwd=ROOT,
                                   stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True)
    sessions = set()
    try:
        while not entry.venv_python(venv).exists() and process.poll() is None:
            time.sleep(0.05)  # until `python -m venv` has made the venv (pytest-timeout's limit guards a hang)
        assert process.poll() is None and entry.venv_python(venv).exists(), "course.py ended before making a venv"
        for child in psutil.Process(process.pid).children():
            with contextlib.suppress(ProcessLookupError):  # (one that has just ended)
                sessions.add(os.getsid(child.pid))
        os.killpg(process.pid, signal.SIGINT)
        process.wait()
    finally:
        for session in sessions | ({process.pid} if process.poll() is None else set()):  # each leads its group
            with contextlib.suppress(ProcessLookupError):
                os.killpg(session, signal.SIGKILL)
    # On a busy machine the Ctrl+C can come once pip has started, and ensurepip's pip (in its own session, stopped
    # only above) can print after course.py's line (its warnings about this machine's pip.conf, say): what the
    # interruption adds is one line, and no traceback.
    printed = err.read_text()
    assert printed.splitlines().count("course.py: interrupted; the half-made v was removed, so the next "
                                      "command installs the course afresh.") == 1, printed
    assert "Traceback" not in printed and "KeyboardInterrupt" not in printed, printed
    assert not venv.exists()
