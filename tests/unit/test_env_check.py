import os
import shutil
import subprocess
import sys
import types
from importlib import metadata

import pytest

from utils import env_check


def test_reads_the_courses_requirements():
    names = [req.name for req in env_check.read_requirements()]
    assert "torch" in names and "jupyterlab" in names and "pytest" not in names
    assert len(names) == len(set(names))
    dev = [req.name for req in env_check.read_requirements(env_check.DEV_REQUIREMENTS)]
    assert dev[:len(names)] == names and "pytest" in dev  # `-r requirements.txt` read in its place


def test_ok_and_fail_lines(tmp_path):
    torch_version = metadata.version("torch")
    req = tmp_path / "requirements.txt"
    req.write_text("# comment\ntorch>=2.0  # inline comment\n\nnot-a-real-package-xyz>=1.0\ntorch<1.0\n")
    statuses = env_check.check_packages(env_check.read_requirements(req))
    assert [s.ok for s in statuses] == [True, False, False]
    assert statuses[0].line() == f"[OK]   torch {torch_version} (required >=2.0)"
    assert statuses[1].line() == "[FAIL] not-a-real-package-xyz not installed (required >=1.0)"
    assert statuses[2].line().startswith("[FAIL] torch")


def test_main_reports_python_device_and_exit_code(tmp_path, capsys):
    good = tmp_path / "good.txt"
    good.write_text("torch>=2.0\n")
    assert env_check.main(["--requirements", str(good)]) == 0
    out = capsys.readouterr().out
    assert f"Python {sys.version.split()[0]} at {sys.executable}" in out
    assert "[OK]   torch" in out and "PyTorch" in out and "device for device='auto': " in out
    assert "environment check passed" in out

    bad = tmp_path / "bad.txt"
    bad.write_text("not-a-real-package-xyz>=1.0\ntorch<1.0\n")
    assert env_check.main(["--requirements", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "not installed in this Python: not-a-real-package-xyz; outside the required range: torch" in out
    assert f"{sys.executable} -m pip install -r {env_check.REQUIREMENTS} -c {env_check.CONSTRAINTS}" in out


def test_bad_arguments_are_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        env_check.main(["--bogus"])
    assert stop.value.code == 2
    assert capsys.readouterr().err == "python -m utils.env_check: unrecognized arguments: --bogus (see --help)\n"
    assert env_check.main(["--requirements", str(tmp_path / "missing.txt")]) == 2
    assert capsys.readouterr().err.strip().endswith(f"no requirements file at {tmp_path / 'missing.txt'}")


def test_missing_requirements_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no requirements file at"):
        env_check.read_requirements(tmp_path / "missing.txt")


def _fake_kernelspec(monkeypatch, argv):
    spec = types.SimpleNamespace(argv=argv, resource_dir="/somewhere/kernels/python3")
    manager = types.SimpleNamespace(get_kernel_spec=lambda name: spec)
    import jupyter_client.kernelspec

    monkeypatch.setattr(jupyter_client.kernelspec, "KernelSpecManager", lambda: manager)


def test_kernel_check_tells_this_python_from_another(monkeypatch, tmp_path):
    _fake_kernelspec(monkeypatch, ["python", "-m", "ipykernel_launcher", "-f", "{connection_file}"])
    ok, text = env_check.kernel_check()
    assert ok is True and "the Python that starts JupyterLab" in text

    _fake_kernelspec(monkeypatch, [sys.executable, "-m", "ipykernel_launcher"])
    assert env_check.kernel_check() == (True, "Jupyter's 'python3' kernel runs this Python "
                                              "(kernel spec /somewhere/kernels/python3)")

    other = tmp_path / "other" / "bin" / "python"
    _fake_kernelspec(monkeypatch, [str(other), "-m", "ipykernel_launcher"])
    ok, text = env_check.kernel_check()
    assert ok is False and text.startswith(f"Jupyter's 'python3' kernel runs {other}, not this Python")


def test_a_python_without_torch_gets_the_fix(tmp_path):
    """In a bare venv (no torch, no packaging, no Jupyter) the check still runs and says what to do."""
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    check = [str(python), "-m", "utils.env_check"]
    result = subprocess.run(check, cwd=env_check.ROOT, capture_output=True, text=True)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"this Python ({python}) has neither pip nor `packaging`" in result.stdout  # not even pip: one line
    assert f"{python} -m ensurepip" in result.stdout

    # with pip (its copy of `packaging`), and still no torch: the whole report. pip's folder comes from its
    # metadata: importing pip, or finding its spec, makes setuptools' distutils shim warn in this process
    only_pip = tmp_path / "only-pip"
    shutil.copytree(metadata.distribution("pip").locate_file("pip"), only_pip / "pip")
    result = subprocess.run(check, cwd=env_check.ROOT, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(only_pip)})
    assert result.returncode == 1, result.stderr
    assert f"Python {sys.version.split()[0]} at {python}" in result.stdout
    assert "[FAIL] torch not installed" in result.stdout and "[FAIL] PyTorch cannot be imported" in result.stdout
    assert f"{python} -m pip install -r {env_check.REQUIREMENTS}" in result.stdout
    assert "Traceback" not in result.stderr



def test_too_old_a_python_is_told_to_use_a_newer_one_not_to_install_into_it(tmp_path, monkeypatch, capsys):
    requirements = tmp_path / "r.txt"
    requirements.write_text("not-a-real-package-xyz>=1.0\n")
    monkeypatch.setattr(env_check.sys, "version_info", (3, 9, 18))
    monkeypatch.setattr(env_check.platform, "python_version", lambda: "3.9.18")
    assert env_check.main(["--requirements", str(requirements)]) == 1
    out = capsys.readouterr().out
    assert "[FAIL] Python 3.9.18 (the course needs 3.10 or newer)" in out
    assert "- Python 3.9.18 is too old: install Python 3.10 or newer" in out and "-m pip install" not in out
