"""tools.versions: the four environments' constraints, and finding their Python (nothing is installed here)."""

import sys

import pytest
from packaging.requirements import Requirement

from tools import versions
from tools.manifest import ROOT
from utils.env_check import read_requirements


def _pins(text):
    return {Requirement(line).name: str(Requirement(line).specifier) for line in text.splitlines() if line}


def test_oldest_pins_every_requirement_to_its_floor():
    pins = _pins(versions.constraints("oldest"))
    requirements = read_requirements()
    assert set(pins) == {r.name for r in requirements}
    assert pins["torch"] == "==2.2" and pins["numpy"] == "==1.24"
    for requirement in requirements:  # each floor is admitted by its own range
        assert requirement.specifier.contains(pins[requirement.name].removeprefix("=="))


def test_colab_pins_what_the_kernel_imports_and_newest_pins_nothing():
    pins = _pins(versions.constraints("colab"))
    assert pins == {name: f"=={version}" for name, version in versions.COLAB.items() if name != "python"}
    requirements = {r.name: r.specifier for r in read_requirements()}
    for name, version in versions.COLAB.items():  # Colab's versions are ones requirements.txt admits
        if name in requirements:
            assert requirements[name].contains(version), f"requirements.txt excludes Colab's {name} {version}"
    assert versions.constraints("newest") == ""
    assert versions.constraints("pinned") == (ROOT / "constraints.txt").read_text(encoding="utf-8")


def test_a_requirement_without_a_floor_cannot_make_the_oldest_environment(monkeypatch):
    monkeypatch.setattr(versions, "read_requirements", lambda: [Requirement("torch<3")])
    with pytest.raises(ValueError, match=r"torch<3 needs exactly one lower bound"):
        versions.constraints("oldest")
    with pytest.raises(ValueError, match=r"unknown environment 'latest'; expected one of \('pinned', 'oldest'"):
        versions.constraints("latest")


def test_find_python(monkeypatch):
    assert versions.find_python("") == sys.executable  # pinned: the Python running the command
    monkeypatch.setattr(versions.shutil, "which", lambda name: None)  # neither python2.1 nor pyenv
    with pytest.raises(FileNotFoundError, match=r"no Python 2\.1 found .* pass --python PATH"):
        versions.find_python("2.1")


def test_every_environment_names_its_python_and_folder():
    assert set(versions.ENVIRONMENTS) == {"pinned", "oldest", "colab", "newest"}
    assert versions.ENVIRONMENTS["oldest"].python == "3.10" and versions.ENVIRONMENTS["colab"].python == "3.12"
    for env in versions.ENVIRONMENTS.values():
        assert env.folder == ROOT / "build" / "versions" / env.name
