"""noxfile.py: the four environments' sessions, what each installs and runs (nothing is installed here;
`python course.py versions NAME` runs one for real)."""

import importlib
import os
from types import SimpleNamespace

import pytest
from packaging.requirements import Requirement

from tools.manifest import ROOT
from utils.env_check import read_requirements


@pytest.fixture(scope="module")
def noxfile():
    """The noxfile, imported once (nox registers each session as it is defined); PYENV_VERSION, which it sets
    for nox's run, stays as it was."""
    pyenv = os.environ.get("PYENV_VERSION")
    try:
        return importlib.import_module("noxfile")
    finally:
        if pyenv is None:
            os.environ.pop("PYENV_VERSION", None)
        else:
            os.environ["PYENV_VERSION"] = pyenv


def _pins(text):
    return {Requirement(line).name: str(Requirement(line).specifier) for line in text.splitlines() if line}


def _session(noxfile, name, *posargs):
    """Runs session ``name`` with a stand-in for nox's Session; returns what it installed and ran."""
    calls = []
    session = SimpleNamespace(name=name, posargs=list(posargs), install=lambda *a, **k: calls.append((a, k)),
                              run=lambda *a, **k: calls.append((a, k)))
    getattr(noxfile, name)(session)
    return calls


def test_oldest_pins_every_requirement_to_its_floor(noxfile):
    pins = _pins(noxfile.floors())
    requirements = read_requirements()
    assert set(pins) == {r.name for r in requirements}
    assert pins["torch"] == "==2.2" and pins["numpy"] == "==1.24"
    for requirement in requirements:  # each floor is admitted by its own range
        assert requirement.specifier.contains(pins[requirement.name].removeprefix("=="))


def test_colabs_versions_are_ones_requirements_txt_admits(noxfile):
    requirements = {r.name: r.specifier for r in read_requirements()}
    for name, version in noxfile.COLAB.items():
        if name in requirements:
            assert requirements[name].contains(version), f"requirements.txt excludes Colab's {name} {version}"


def test_a_requirement_without_a_floor_cannot_make_the_oldest_environment(noxfile, monkeypatch):
    monkeypatch.setattr(noxfile, "read_requirements", lambda: [Requirement("torch<3")])
    with pytest.raises(ValueError, match=r"torch<3 needs exactly one lower bound"):
        noxfile.floors()


@pytest.mark.parametrize("name, python", [("pinned", None), ("oldest", "3.10"), ("colab", "3.12"), ("newest", "3.13")])
def test_each_session_installs_under_its_constraints_and_runs_the_notebooks(noxfile, monkeypatch, tmp_path,
                                                                              name, python):
    monkeypatch.chdir(tmp_path)  # the sessions write build/versions/NAME/ where nox runs them: the course's root
    (tmp_path / "constraints.txt").write_text("the lock\n")
    calls = _session(noxfile, name, "3", "5")
    assert getattr(noxfile, name).python == python
    (install, env), report, (run, _) = calls
    pins = (tmp_path / install[-1]).read_text()
    assert install[:4] == ("--upgrade", "-r", "requirements.txt", "-c")
    assert env == {"env": {"PIP_CONSTRAINT": os.devnull}}  # the environment's constraints, not the machine's
    assert pins == {"pinned": "the lock\n", "oldest": noxfile.floors(), "newest": "",
                    "colab": "torch==2.11.0\nnumpy==2.0.2\nmatplotlib==3.10.0\nipykernel==6.17.1\n"}[name]
    assert report[0][:2] == ("python", "-c")
    assert run == ("python", "-m", "tools", "run", "--out", os.path.join("build", "versions", name, "notebooks"),
                   "3", "5")


def test_nox_alone_runs_no_session_and_keeps_its_venvs_in_build(noxfile):
    assert noxfile.nox.options.sessions == [] and noxfile.nox.options.envdir == "build/nox"
    assert (ROOT / "noxfile.py").is_file()
