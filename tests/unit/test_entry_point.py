"""course.py, the entry point of `python course.py run` / `test`: the parts that differ by operating
system (venv layout, executables, the Microsoft Store's Python, root) and the commands it builds,
checked on any system. Nothing here installs anything."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import course as entry


def test_the_entry_point_runs_on_the_standard_library_alone():
    """It runs with the system's Python before .venv exists: it, and the tools modules it imports,
    use nothing outside the standard library (-S: no site-packages)."""
    result = subprocess.run([sys.executable, "-S", str(Path(entry.__file__)), "--help"], capture_output=True,
                            text=True, cwd=Path(entry.__file__).parent)
    assert result.returncode == 0, result.stderr
    assert "python3 course.py run" in result.stdout


@pytest.mark.parametrize("platform, python", [
    ("win32", "Scripts/python.exe"), ("darwin", "bin/python"), ("linux", "bin/python"),
])
def test_the_venvs_python_on_each_system(platform, python):
    assert entry.venv_python(Path("v"), platform) == Path("v") / python


def test_this_systems_venv_layout_is_the_one_venv_makes(tmp_path):
    import venv

    venv.EnvBuilder(with_pip=False).create(tmp_path / "v")
    assert entry.venv_python(tmp_path / "v").is_file()


@pytest.mark.parametrize("executable, store", [
    (r"C:\Users\ana\AppData\Local\Microsoft\WindowsApps\python.exe", True),  # the alias (or the Store's stub)
    (r"C:\Users\ana\AppData\Local\Microsoft\WindowsApps\python3.12.exe", True),
    (r"C:\Program Files\WindowsApps\PythonSoftwareFoundation.Python.3.12_3.12.2032.0_x64__qbz5n2kfra8p0"
     r"\python3.12.exe", True),
    (r"C:\Users\ana\AppData\Local\Programs\Python\Python312\python.exe", False),  # python.org's installer
    (r"C:\Users\ana\course\.venv\Scripts\python.exe", False),
    ("/usr/bin/python3", False),
    ("/opt/homebrew/bin/python3.12", False),
])
def test_the_microsoft_store_python_is_recognised(executable, store):
    assert entry.is_store_python(executable) is store


def test_root_is_only_a_posix_thing(monkeypatch):
    monkeypatch.setattr(entry.os, "geteuid", lambda: 0, raising=False)
    assert entry.is_root("linux") and entry.is_root("darwin")
    assert not entry.is_root("win32")
    monkeypatch.setattr(entry.os, "geteuid", lambda: 1000, raising=False)
    assert not entry.is_root("linux")


def test_lab_passes_arguments_through_and_adds_allow_root_for_root():
    args, note = entry.lab_arguments(["--port", "8899", "--no-browser"], practice=False, root=False)
    assert args == ["-m", "jupyterlab", "notebooks", "--port", "8899", "--no-browser"] and note == ""
    args, note = entry.lab_arguments(["--no-browser"], practice=True, root=True)
    assert args == ["-m", "jupyterlab", "build/practice", "--no-browser", "--allow-root"]
    assert note.startswith("Running as root: passing --allow-root")
    args, note = entry.lab_arguments(["--allow-root"], practice=False, root=True)
    assert args.count("--allow-root") == 1 and note == ""


def test_each_command_runs_its_program_with_the_arguments_passed_through():
    assert entry.steps("run", ["--device", "cuda", "3"]) == [["-m", "tools.run", "--device", "cuda", "3"]]
    assert entry.steps("test", ["tests/unit", "-x"]) == [["-m", "pytest", "tests/unit", "-x"]]
    assert entry.steps("check", []) == [["-m", "utils.env_check"]]
    assert entry.steps("execute", ["3"]) == [["-m", "tools.run", "--in-place", "3"], ["-m", "tools.sync"]]
    assert entry.steps("versions", ["oldest", "3"]) == [["-m", "nox", "-s", "oldest", "--", "3"]]
    assert entry.steps("lab", ["--practice"], practice_ready=False) == [
        ["-m", "tools.practice"], ["-m", "jupyterlab", "build/practice"]]  # made first when missing
    assert entry.steps("lab", ["--practice", "--port", "1"]) == [["-m", "jupyterlab", "build/practice", "--port", "1"]]
    with pytest.raises(ValueError, match="unknown command 'fly'"):
        entry.steps("fly", [])


def test_the_command_line_parses_options_before_the_command_and_passes_the_rest():
    args = entry.parse(["--venv", "/tmp/v", "test", "-m", "unit", "--help"])
    assert (args.venv, args.command, args.args) == (Path("/tmp/v"), "test", ["-m", "unit", "--help"])
    assert entry.parse(["run"]).constraints == "constraints.txt"
    assert entry.parse(["--constraints", "", "run"]).constraints == ""


@pytest.mark.parametrize("argv, message", [
    (["fly"], f"{entry.PROG}: argument command: invalid choice: 'fly'"),
    (["--constraints", "nope.txt", "run"], f"{entry.PROG}: no constraints file 'nope.txt'"),
    (["install", "--cpu"], f"{entry.PROG}: install takes only --dev; got --cpu"),
])
def test_a_bad_command_line_is_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        entry.parse(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.startswith(message) and len(err.splitlines()) == 1, err


def test_too_old_a_python_is_told_which_to_use(monkeypatch, capsys):
    monkeypatch.setattr(entry.sys, "version_info", (3, 8, 10))
    assert entry.main(["run"]) == 2
    assert "the course needs Python 3.10 or newer" in capsys.readouterr().err


def test_the_first_install_says_what_it_downloads_and_who_picks_the_build():
    uv = entry.first_install_notice("uv", "linux")
    assert "about 1.3 GB" in uv and "uv picks PyTorch's build" in uv and "NVIDIA driver" in uv
    pip = entry.first_install_notice("pip", "linux")
    assert "2.5 GB more" in pip and "CPU-only build" in pip
    for platform in ("win32", "darwin"):  # PyPI's wheels there have no CUDA libraries to avoid
        assert "CUDA" not in entry.first_install_notice("pip", platform)


def test_the_install_is_redone_only_when_its_files_change(tmp_path, monkeypatch):
    venv = tmp_path / "v"
    python = entry.venv_python(venv)
    python.parent.mkdir(parents=True)
    python.write_text("")
    assert not entry.is_installed(venv, dev=False, constraints="constraints.txt")  # no stamp yet
    stamp = {"hash": entry.install_hash(entry.install_files(True, "constraints.txt"))}
    (venv / entry.STAMP).write_text(json.dumps(stamp))
    assert entry.is_installed(venv, dev=True, constraints="constraints.txt")
    assert entry.is_installed(venv, dev=False, constraints="constraints.txt")  # a dev install serves a learner
    assert not entry.is_installed(venv, dev=True, constraints="")  # other pins
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", entry.CPU_WHEELS)
    assert not entry.is_installed(venv, dev=True, constraints="constraints.txt")  # another index: reinstall


def test_the_pip_command_installs_the_right_file_with_the_pins():
    python = Path("v/bin/python")
    learner = entry.pip_command(python, dev=False, constraints="constraints.txt")
    assert learner[:3] == [str(python), "-m", "pip"] and "--quiet" not in learner  # pip shows its downloads
    assert learner[-4:] == ["-r", str(entry.ROOT / "requirements.txt"), "-c", str(entry.ROOT / "constraints.txt")]
    assert entry.pip_command(python, dev=True, constraints="")[-2:] == ["-r", str(entry.ROOT / "requirements-dev.txt")]


def test_the_programs_get_utf8_on_every_system():
    env = entry.child_environment()
    assert env["PYTHONUTF8"] == "1" and env["PYTHONIOENCODING"] == "utf-8"


def test_clean_keeps_the_venv(tmp_path, monkeypatch):
    monkeypatch.setattr(entry, "ROOT", tmp_path)
    for folder in ("build/notebooks", ".venv/lib/__pycache__", "utils/__pycache__", ".pytest_cache"):
        (tmp_path / folder).mkdir(parents=True)
    entry.clean()
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        ".venv", ".venv/lib", ".venv/lib/__pycache__", "utils"]


def test_one_module_is_named_course():
    assert Path(sys.modules["course"].__file__).resolve() == entry.ROOT / "course.py"
    assert sorted(p.relative_to(entry.ROOT).as_posix() for p in entry.ROOT.glob("*/course.py")) == []


def test_a_program_is_waited_for_through_ctrl_c(monkeypatch):
    """Ctrl+C reaches the program too; course.py keeps waiting for it instead of killing it."""
    class Program:
        waits = 0

        def __init__(self, command, **kwargs):
            self.command = command

        def wait(self):
            Program.waits += 1
            if Program.waits == 1:
                raise KeyboardInterrupt  # the learner pressed Ctrl+C while JupyterLab ran
            return 0

    monkeypatch.setattr(entry.subprocess, "Popen", Program)
    assert entry.run_program(["python", "-m", "jupyterlab"]) == 0 and Program.waits == 2
