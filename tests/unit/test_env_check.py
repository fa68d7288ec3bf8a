from importlib import metadata

import pytest

from utils import env_check


def test_reads_the_courses_requirements():
    names = [req.name for req in env_check.read_requirements()]
    assert "torch" in names and "nbval" in names
    assert len(names) == len(set(names))


def test_ok_and_fail_lines(tmp_path):
    torch_version = metadata.version("torch")
    req = tmp_path / "requirements.txt"
    req.write_text("# comment\ntorch>=2.0  # inline comment\n\nnot-a-real-package-xyz>=1.0\ntorch<1.0\n")
    statuses = env_check.check_packages(env_check.read_requirements(req))
    assert [s.ok for s in statuses] == [True, False, False]
    assert statuses[0].line() == f"[OK]   torch {torch_version} (required >=2.0)"
    assert statuses[1].line() == "[FAIL] not-a-real-package-xyz not installed (required >=1.0)"
    assert statuses[2].line().startswith("[FAIL] torch")


def test_main_reports_device_and_exit_code(tmp_path, capsys):
    good = tmp_path / "good.txt"
    good.write_text("torch>=2.0\n")
    assert env_check.main(good) == 0
    out = capsys.readouterr().out
    assert "[OK]   torch" in out and "PyTorch" in out and "device for device='auto': " in out
    assert "environment check passed" in out

    bad = tmp_path / "bad.txt"
    bad.write_text("not-a-real-package-xyz>=1.0\n")
    assert env_check.main(bad) == 1
    assert "environment check FAILED: not-a-real-package-xyz" in capsys.readouterr().out


def test_missing_requirements_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no requirements file at"):
        env_check.read_requirements(tmp_path / "missing.txt")
