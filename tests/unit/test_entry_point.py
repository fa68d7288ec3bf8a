"""course.py, the entry point of `python3 course.py run` / `test`: the parts that differ by operating
system (venv layout, executables, the Microsoft Store's Python, root) and the commands it builds,
checked on any system. Nothing here installs anything."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tools import bootstrap as entry
from tools import commands


def test_the_entry_point_runs_on_the_standard_library_alone():
    """It runs with the system's Python before .venv exists: it, and the tools modules it imports,
    use nothing outside the standard library (-S: no site-packages)."""
    result = subprocess.run([sys.executable, "-S", str(entry.ROOT / "course.py"), "--help"], capture_output=True,
                            text=True, cwd=entry.ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: python3 course.py") and "\n    run " in result.stdout


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


@pytest.mark.parametrize("argv, command, needs", [
    (["run", "3"], "run", "learner"), (["test", "-m", "unit"], "test", "dev"), (["install"], "install", "learner"),
    (["install", "--dev"], "install", "dev"), (["sync", "--check"], "sync", "dev"), (["clean"], "clean", ""),
])
def test_each_command_says_what_it_needs_from_the_venv(argv, command, needs):
    args, _ = commands.parse(argv)
    assert args.command == command and commands.needs(args) == needs


def test_the_command_line_parses_options_before_the_command_and_passes_the_programs_own_on():
    args, extra = commands.parse(["--venv", "/tmp/v", "test", "tests/unit", "--help"])
    assert (args.venv, args.command, extra) == (Path("/tmp/v"), "test", ["tests/unit", "--help"])
    args, extra = commands.parse(["lab", "--port", "8899", "--practice", "--no-browser"])
    assert args.practice and extra == ["--port", "8899", "--no-browser"]
    args, extra = commands.parse(["run", "--device", "cuda", "3", "4"])
    assert (args.device, args.notebooks, extra) == ("cuda", ["3", "4"], [])
    assert commands.parse(["run"])[0].constraints == "constraints.txt"
    assert commands.parse(["--constraints", "", "run"])[0].constraints == ""


def test_versions_runs_the_noxfile_session_named_first(monkeypatch):
    calls = []
    def run(argv, **kwargs):
        calls.append(argv)
        return subprocess.CompletedProcess(argv, 0)

    monkeypatch.setattr(commands.subprocess, "run", run)
    args, extra = commands.parse(["versions", "oldest", "3"])
    assert commands.versions(args, extra) == 0
    assert calls == [[sys.executable, "-m", "nox", "-s", "oldest", "--", "3"]]
    with pytest.raises(ValueError, match="needs an environment"):
        commands.versions(args, [])


@pytest.mark.parametrize("argv, message", [
    (["fly"], f"{commands.PROG}: argument command: invalid choice: 'fly'"),
    (["rnu"], "did you mean run? (see --help)"),
    (["--constraints", "nope.txt", "run"], f"{commands.PROG}: no constraints file 'nope.txt'"),
    (["install", "--cpu"], f"{commands.PROG} install: unrecognized argument --cpu"),
    (["run", "--devcie", "cuda"], f"{commands.PROG} run: unrecognized argument --devcie; did you mean --device?"),
    (["sync", "--chek"], f"{commands.PROG} sync: unrecognized argument --chek; did you mean --check?"),
])
def test_a_bad_command_line_is_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        commands.parse(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and message in err and len(err.splitlines()) == 1, err


def test_a_bad_command_line_stops_before_anything_is_installed(monkeypatch, capsys):
    monkeypatch.setattr(entry, "ensure_venv", lambda *args: pytest.fail("an install started"))
    with pytest.raises(SystemExit):
        entry.main(["run", "--devcie", "cuda"])


def test_on_posix_course_py_becomes_the_command(monkeypatch, tmp_path):
    """os.execve: one process, the venv's Python running ``-m tools`` with the same arguments, UTF-8 set."""
    calls = []

    def execve(path, argv, env):  # the real one never returns
        calls.append((path, argv, env))
        raise SystemExit(0)

    monkeypatch.setattr(entry.os, "execve", execve)
    monkeypatch.setattr(entry.os, "chdir", lambda path: calls.append(path))
    monkeypatch.setattr(entry.subprocess, "Popen", lambda *a, **k: pytest.fail("a second process was started"))
    with pytest.raises(SystemExit):
        entry.run_in_venv(Path("v/bin/python"), ["run", "3"], platform="linux")
    assert calls[0] == entry.ROOT
    path, argv, env = calls[1]
    assert (path, argv) == ("v/bin/python", ["v/bin/python", "-m", "tools", "run", "3"]) and env["PYTHONUTF8"] == "1"


def test_on_windows_course_py_starts_the_command_once_and_returns_its_status(monkeypatch):
    """Windows has no execve that keeps the console's process: the command is started and waited for, through
    Ctrl+C (which reaches it too, from the same console), and its exit status is course.py's."""
    started = []

    class Program:
        waits = 0

        def __init__(self, command, **kwargs):
            started.append((command, kwargs["env"]["PYTHONUTF8"]))

        def wait(self):
            Program.waits += 1
            if Program.waits == 1:
                raise KeyboardInterrupt  # the learner pressed Ctrl+C while JupyterLab ran
            return 3

    monkeypatch.setattr(entry.os, "execve", lambda *args: pytest.fail("execve on Windows"))
    monkeypatch.setattr(entry.os, "chdir", lambda path: None)
    monkeypatch.setattr(entry.subprocess, "Popen", Program)
    python = Path(r"v\Scripts\python.exe")
    assert entry.run_in_venv(python, ["lab"], platform="win32") == 3 and Program.waits == 2
    assert started == [([str(python), "-m", "tools", "lab"], "1")]


def test_clean_needs_no_venv(monkeypatch):
    monkeypatch.setattr(entry, "ensure_venv", lambda *args: pytest.fail("an install started"))
    monkeypatch.setitem(commands.COMMANDS, "clean", (lambda args, extra: 0, "", False, "clean"))
    assert entry.main(["clean"]) == 0


def test_too_old_a_python_is_told_which_to_use():
    import course

    assert course.too_old((3, 8, 10)).startswith("course.py: the course needs Python 3.10 or newer; this is ")
    assert course.too_old((3, 10, 0)) is None and course.too_old(sys.version_info) is None


def test_course_py_parses_in_old_pythons_to_reach_its_version_check():
    """No f-string, annotation or other newer syntax (ast's grammar of 3.4; Python 2.7's: the process test)."""
    import ast

    ast.parse((entry.ROOT / "course.py").read_text(encoding="utf-8"), feature_version=(3, 4))


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
    stamp = {"hash": entry.install_hash(True, "constraints.txt")}
    (venv / entry.STAMP).write_text(json.dumps(stamp))
    assert entry.is_installed(venv, dev=True, constraints="constraints.txt")
    assert entry.is_installed(venv, dev=False, constraints="constraints.txt")  # a dev install serves a learner
    assert not entry.is_installed(venv, dev=True, constraints="")  # other pins
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", entry.CPU_WHEELS)
    assert not entry.is_installed(venv, dev=True, constraints="constraints.txt")  # another index: reinstall


def test_the_pip_command_installs_the_right_file_with_the_pins():
    python = Path("v/bin/python")
    learner = entry.install_command("pip", python, dev=False, constraints="constraints.txt")
    assert learner[:3] == [str(python), "-m", "pip"] and "--quiet" not in learner  # pip shows its downloads
    assert learner[-4:] == ["-r", str(entry.ROOT / "requirements.txt"), "-c", str(entry.ROOT / "constraints.txt")]
    dev = entry.install_command("pip", python, dev=True, constraints="")
    assert dev[-2:] == ["-r", str(entry.ROOT / "requirements-dev.txt")]


def test_the_programs_get_utf8_on_every_system():
    env = entry.child_environment()
    assert env["PYTHONUTF8"] == "1" and env["PYTHONIOENCODING"] == "utf-8"


def test_clean_keeps_the_venv(tmp_path, monkeypatch):
    monkeypatch.setattr(commands, "ROOT", tmp_path)
    for folder in ("build/notebooks", ".venv/lib/__pycache__", "utils/__pycache__", ".pytest_cache"):
        (tmp_path / folder).mkdir(parents=True)
    commands.clean(None, [])
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        ".venv", ".venv/lib", ".venv/lib/__pycache__", "utils"]


def test_one_module_is_named_course():
    import course  # noqa: F401

    assert Path(sys.modules["course"].__file__).resolve() == entry.ROOT / "course.py"
    assert sorted(p.relative_to(entry.ROOT).as_posix() for p in entry.ROOT.glob("*/course.py")) == []


def test_a_venv_is_made_from_the_python_asked_for(tmp_path, monkeypatch):
    ran = []
    monkeypatch.setattr(entry, "can_make_pip", lambda python: True)
    monkeypatch.setattr(entry.subprocess, "run", lambda command, **kwargs: ran.append(command))
    entry.ensure_pip(tmp_path / "v", tmp_path / "v" / "bin" / "python", "/usr/bin/python3.10")
    assert ran == [["/usr/bin/python3.10", "-m", "venv", str(tmp_path / "v")]]


def test_run_lab_and_practice_take_the_chinese_edition_with_zh(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr("tools.run.run_notebooks", lambda numbers, **kwargs: calls.append((numbers, kwargs)) or 0)
    assert commands.call(*commands.parse(["run", "--zh", "03"])) == 0
    assert calls == [(["3"], {"device": None, "out": commands.ROOT / "build" / "notebooks" / "zh", "markdown": False,
                              "edition": "zh"})]
    assert commands.parse(["run", "3"])[0].zh is False
    args, extra = commands.parse(["lab", "--zh", "--port", "8899"])
    assert args.zh and extra == ["--port", "8899"]
    root = commands.ROOT
    assert commands.lab_arguments(False, "zh") == [f"--ServerApp.root_dir={root}",
                                                   str(root / "notebooks" / "zh" / "00_the_answer.ipynb")]
    assert commands.lab_arguments(True, "zh")[1] == str(root / "build" / "practice" / "zh" / "00_the_answer.ipynb")
    folders = lambda: sorted(path.parent.name for path in tmp_path.rglob("*.ipynb"))  # noqa: E731
    assert commands.call(*commands.parse(["practice", "--zh", "--out", str(tmp_path)])) == 0
    assert folders() == ["zh"] * 10  # the Chinese copies only
    assert commands.call(*commands.parse(["practice", "--out", str(tmp_path)])) == 0
    assert commands.call(*commands.parse(["practice", "--zh", "--out", str(tmp_path)])) == 0
    assert folders() == [tmp_path.name] * 10 + ["zh"] * 10  # the English copies kept
