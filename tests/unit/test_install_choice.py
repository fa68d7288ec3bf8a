"""course.py's install picks PyTorch's build for the machine: uv's ``--torch-backend auto`` where PyTorch's
own index answers (the CPU-only build without an NVIDIA driver, the CUDA build with one), pip from the
indexes it is configured with where that index does not answer (quickly: it never stalls an install).
Both branches, on any machine: the probes and the installers are stand-ins."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tools import bootstrap as entry


def test_an_index_the_learner_set_for_pip_keeps_pip_without_asking_the_network():
    def probe(url):
        raise AssertionError("the network was asked")

    assert entry.choose_installer({"PIP_EXTRA_INDEX_URL": entry.CPU_WHEELS}, probe) == ("pip", "")
    assert entry.choose_installer({"PIP_INDEX_URL": "https://mirror.example/simple"}, probe) == ("pip", "")


def test_uv_where_pytorchs_index_answers_else_pip_with_one_line():
    assert entry.choose_installer({}, lambda url: True) == ("uv", "")
    installer, why = entry.choose_installer({}, lambda url: False)
    assert installer == "pip" and len(why.splitlines()) == 1
    assert why.startswith("course.py: PyTorch's own index (download.pytorch.org) did not answer within 3 s")


def test_the_probe_gives_up_after_its_timeout_even_where_a_name_look_up_hangs(monkeypatch):
    def hang(*args, **kwargs):
        time.sleep(3)
        raise OSError("timed out")

    monkeypatch.setattr(entry.urllib.request, "urlopen", hang)
    start = time.monotonic()
    assert entry.answers("https://download.pytorch.org/whl/cpu/", seconds=0.2) is False
    assert time.monotonic() - start < 2.5  # a generous bound on a busy machine: 0.2 s asked, not 3


def test_the_probe_reads_an_answer_and_a_refusal(monkeypatch):
    class Response:
        def close(self):
            pass

    monkeypatch.setattr(entry.urllib.request, "urlopen", lambda *a, **k: Response())
    assert entry.answers("https://download.pytorch.org/whl/cpu/") is True

    def refused(*args, **kwargs):
        raise entry.urllib.error.URLError("[Errno -2] Name or service not known")

    monkeypatch.setattr(entry.urllib.request, "urlopen", refused)
    start = time.monotonic()
    assert entry.answers("https://download.pytorch.org/whl/cpu/") is False
    assert time.monotonic() - start < 2.5  # a refusal is an answer: not a wait for the 3 s timeout


def test_the_uv_command_lets_uv_pick_the_build_and_keeps_the_pins(monkeypatch):
    monkeypatch.delenv("UV_TORCH_BACKEND", raising=False)
    python = Path("v/bin/python")
    command = entry.install_command("uv", python, dev=False, constraints="constraints.txt")
    assert command[:5] == [str(python), "-m", "uv", "pip", "install"]
    assert command[command.index("--torch-backend") + 1] == "auto"
    assert command[command.index("--python") + 1] == str(python)
    assert command[-4:] == ["-r", str(entry.ROOT / "requirements.txt"), "-c", str(entry.ROOT / "constraints.txt")]


class Machine:
    """Stand-in for the programs the install runs: pip installing uv, uv picking a build (by whether the
    machine has an NVIDIA driver), pip installing from PyPI, and the query of the installed torch."""

    def __init__(self, driver: bool, uv_works: bool = True):
        self.driver, self.uv_works, self.calls = driver, uv_works, []

    def run(self, command, **kwargs):
        self.calls.append(command)
        if command[1:4] == ["-m", "uv", "pip"]:
            self.torch = "2.13.0+cu130" if self.driver else "2.13.0+cpu"
            return subprocess.CompletedProcess(command, 0 if self.uv_works else 2)
        if command[1:3] == ["-m", "pip"] and "-r" in command:
            self.torch = "2.13.0"
            return subprocess.CompletedProcess(command, 0)
        if command[1] == "-c":  # the installed torch's version
            return subprocess.CompletedProcess(command, 0, stdout=self.torch + "\n")
        return subprocess.CompletedProcess(command, 0)  # pip install uv

    def installers(self):
        return ["uv" if c[1:4] == ["-m", "uv", "pip"] else "pip" for c in self.calls if "-r" in c]


@pytest.mark.parametrize("driver, reachable, installers, line", [
    (False, True, ["uv"], "course.py: no NVIDIA driver found, so PyTorch's CPU-only build was installed (2.13.0+cpu"),
    (True, True, ["uv"], "course.py: an NVIDIA driver was found, so PyTorch's CUDA build was installed (2.13.0+cu130)"),
    (False, False, ["pip"], "course.py: PyTorch's own index (download.pytorch.org) did not answer within 3 s"),
    (True, False, ["pip"], "course.py: PyTorch's own index (download.pytorch.org) did not answer within 3 s"),
])
def test_each_machine_gets_its_build_or_pip(driver, reachable, installers, line, monkeypatch, capsys):
    machine = Machine(driver)
    monkeypatch.setattr(entry.subprocess, "run", machine.run)
    for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "UV_TORCH_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    installer, why = entry.choose_installer(probe=lambda url: reachable)
    entry.install(Path(sys.executable), False, "constraints.txt", installer, why)
    out = capsys.readouterr().out
    assert machine.installers() == installers
    assert [text for text in out.splitlines() if text.startswith("course.py:")] == [out.strip()]
    assert out.startswith(line), out
    if not driver and reachable:  # and how to ask for the CUDA build
        assert "For the CUDA build: delete .venv and run `rm -rf .venv && UV_TORCH_BACKEND=cu130 python3 course.py " \
               "install`" in out


def test_a_failed_uv_install_falls_back_to_pip_with_one_line(monkeypatch, capsys):
    machine = Machine(driver=False, uv_works=False)
    monkeypatch.setattr(entry.subprocess, "run", machine.run)
    entry.install(Path(sys.executable), False, "constraints.txt", "uv", "")
    assert machine.installers() == ["uv", "pip"]
    assert capsys.readouterr().out == ("course.py: uv could not install the course (its output is above), so pip "
                                       "installs it instead.\n")


@pytest.mark.parametrize("version, platform, environ, expected", [
    ("2.13.0+cpu", "win32", {}, '`$env:UV_TORCH_BACKEND="cu130"; py course.py install`'),
    ("2.13.0+cpu", "linux", {"UV_TORCH_BACKEND": "cpu"},
     "course.py: installed PyTorch 2.13.0+cpu (UV_TORCH_BACKEND=cpu)."),
    ("2.13.0", "darwin", {}, "course.py: installed PyTorch 2.13.0."),
])
def test_the_build_note_on_each_system(version, platform, environ, expected):
    note = entry.build_note(version, platform, environ)
    assert expected in note and len(note.splitlines()) == 1


def test_a_chosen_backend_is_part_of_what_the_install_depends_on(monkeypatch):
    monkeypatch.delenv("UV_TORCH_BACKEND", raising=False)
    before = entry.install_hash(False, "constraints.txt")
    monkeypatch.setenv("UV_TORCH_BACKEND", "cu130")
    assert entry.install_hash(False, "constraints.txt") != before
    command = entry.install_command("uv", Path("v/bin/python"), False, "")
    assert command[command.index("--torch-backend") + 1] == "cu130"


@pytest.mark.parametrize("torch, nvidia", [("2.13.0+cu130", "False"), ("2.13.0", "True")])
def test_pypis_cuda_build_is_named_after_the_install_with_its_size_and_the_cpu_way(torch, nvidia, tmp_path,
                                                                                    monkeypatch, capsys):
    """Where PyTorch's index did not answer, pip may take PyPI's CUDA build (a +cu torch, or NVIDIA's libraries
    beside a plain one): one line names it, the venv's size on disk, and how to get the CPU-only build."""
    python = entry.venv_python(tmp_path / ".venv")
    python.parent.mkdir(parents=True)
    python.write_bytes(b"")
    (python.parent / "libcudnn.so").touch()
    os.truncate(python.parent / "libcudnn.so", 300_000_000)  # (sparse: the size without the writing)
    machine = Machine(driver=False)

    def run(command, **kwargs):
        if command[1] == "-c":
            return subprocess.CompletedProcess(command, 0, stdout=f"{torch}\n{nvidia}\n")
        return machine.run(command, **kwargs)

    monkeypatch.setattr(entry.subprocess, "run", run)
    entry.install(python, False, "constraints.txt", "pip", "")
    assert capsys.readouterr().out.splitlines() == [
        f"course.py: pip installed PyPI's CUDA build of PyTorch (torch {torch} with NVIDIA's CUDA libraries): .venv "
        f"takes 0.3 GB. For the CPU-only build (about 1.3 GB): `rm -rf .venv && "
        "PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu python3 course.py install`."]


def test_pypis_cpu_build_gets_no_line(monkeypatch, capsys):
    monkeypatch.setattr(entry.subprocess, "run", Machine(driver=False).run)  # macOS, Windows: torch 2.13.0 alone
    entry.install(Path(sys.executable), False, "constraints.txt", "pip", "")
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("installer", ["pip", "uv"])
def test_a_later_install_is_quiet(installer, monkeypatch, capsys):
    """The first `test` after `run` adds the test suite's tools: no index line again (PyTorch is there), and
    pip and uv quiet (no "Requirement already satisfied" for each package), one line saying what happens."""
    machine = Machine(driver=False)
    monkeypatch.setattr(entry.subprocess, "run", machine.run)
    why = "course.py: PyTorch's own index (download.pytorch.org) did not answer within 3 s, so pip installs ..."
    entry.install(Path(sys.executable), True, "constraints.txt", installer, why, first=False)
    assert all("--quiet" in command for command in machine.calls if "-r" in command), machine.calls
    out = capsys.readouterr().out
    if installer == "pip":
        venv = Path(sys.executable).parent.parent.name
        assert out == f"course.py: bringing {venv} up to date with requirements-dev.txt and constraints.txt.\n"
    else:
        assert out == ""
