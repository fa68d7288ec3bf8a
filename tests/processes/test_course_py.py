"""course.py's slips where processes meet: a second command waits for an install, ``kill`` of a
backgrounded ``lab`` ends JupyterLab too, and JupyterLab's own options are read from its app."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import course as entry

ROOT = Path(entry.__file__).parent


def test_a_second_command_waits_for_the_install_saying_so(tmp_path):
    """A second process waits, says so in one line, and goes on once the first is done (no pip traceback)."""
    script = textwrap.dedent(f"""
        import sys; sys.path.insert(0, {str(ROOT)!r})
        import course
        with course.install_lock(__import__("pathlib").Path({str(tmp_path / "v")!r})):
            print("installed after the first")
    """)
    with entry.install_lock(tmp_path / "v"):
        second = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        time.sleep(1.5)
        assert second.poll() is None  # waiting
    out, err = second.communicate(timeout=60)
    assert second.returncode == 0 and err == ""
    assert out.splitlines() == ["course.py: another course.py command is installing the course into .venv; waiting "
                                "for it to finish (Ctrl+C stops waiting).", "installed after the first"]


def test_jupyterlabs_options_are_read_from_its_own_app():
    options = entry.lab_options(Path(sys.executable))
    assert options is not None and {"port", "no-browser", "allow-root", "ip"} <= options


# --- kill of course.py ends the program it runs ----------------------------------------------------

@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM and SIGHUP are POSIX signals; Windows has no kill PID")
@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGHUP"])
def test_killing_course_py_ends_its_program_too(tmp_path, signal_name):
    """As `python3 course.py lab ... &` then `kill PID`: the program (a stand-in for JupyterLab that writes
    its pid, then how it ended) gets the signal and is waited for; nothing is left running."""
    child = textwrap.dedent(f"""
        import os, signal, sys, time
        def stop(number, frame):
            open({str(tmp_path / "ended")!r}, "w").write(signal.Signals(number).name)
            sys.exit(0)
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGHUP, stop)
        open({str(tmp_path / "pid")!r}, "w").write(str(os.getpid()))
        time.sleep(60)
    """)
    launcher = textwrap.dedent(f"""
        import sys; sys.path.insert(0, {str(ROOT)!r})
        import course
        sys.exit(course.run_program([sys.executable, "-c", {child!r}]))
    """)
    process = subprocess.Popen([sys.executable, "-c", launcher])
    deadline = time.monotonic() + 60
    while not (tmp_path / "pid").is_file() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert (tmp_path / "pid").is_file(), "the program never started"
    time.sleep(0.2)
    process.send_signal(getattr(signal, signal_name))
    assert process.wait(timeout=60) == 0  # course.py waited for its program, which stopped in its own way
    assert (tmp_path / "ended").read_text() == signal_name
    pid = int((tmp_path / "pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
