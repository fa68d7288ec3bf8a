"""requirements.txt (ranges), constraints.txt (pins) and environment.yml agree."""

import re

import yaml
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tools.course import ROOT
from utils.env_check import read_requirements

# conda-forge names that differ from PyPI's
CONDA_TO_PYPI = {"pytorch": "torch"}
SUPPORTED_PYTHONS = ("3.10", "3.11", "3.12", "3.13")


def _pins():
    """(name, version, marker or None) for each line of constraints.txt."""
    pins = []
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        req = Requirement(line)
        (spec,) = req.specifier
        assert spec.operator == "==", f"constraints.txt must pin with ==: {line}"
        pins.append((canonicalize_name(req.name), spec.version, req.marker))
    return pins


def _pinned_version(name, python):
    env = {"python_version": python, "python_full_version": f"{python}.0",
           "sys_platform": "linux", "platform_machine": "x86_64", "platform_system": "Linux"}
    matches = [v for n, v, m in _pins() if n == canonicalize_name(name) and (m is None or Marker(str(m)).evaluate(env))]
    assert len(matches) == 1, f"{name}: expected one pin for Python {python} on Linux, found {matches}"
    return matches[0]


def test_every_requirement_is_pinned_within_its_range_for_each_python():
    for req in read_requirements():
        for python in SUPPORTED_PYTHONS:
            version = _pinned_version(req.name, python)
            assert req.specifier.contains(version, prereleases=True), (req.name, python, version)


def test_torch_is_pinned_to_the_tested_release():
    for python in SUPPORTED_PYTHONS:
        assert _pinned_version("torch", python) == "2.13.0"


def test_environment_yml_lists_the_same_packages_and_ranges():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert env["channels"] == ["conda-forge"]
    conda = {}
    for dep in env["dependencies"]:
        assert isinstance(dep, str), f"unexpected pip section or mapping in environment.yml: {dep}"
        name, spec = re.match(r"([A-Za-z0-9_.-]+)(.*)", dep).groups()
        conda[canonicalize_name(CONDA_TO_PYPI.get(name, name))] = spec.replace(" ", "")
    assert conda.pop("python") == ">=3.10"
    assert conda.pop("pip") == ""
    requirements = {canonicalize_name(r.name): str(r.specifier) for r in read_requirements()}
    assert conda == requirements


def test_environment_yml_is_what_binder_needs():
    """repo2docker builds Binder from environment.yml: no machine-specific prefix, JupyterLab for ?urlpath=lab."""
    from tools import course

    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert set(env) <= {"name", "channels", "dependencies"}, "no prefix: or variables: (they pin one machine)"
    names = {re.match(r"[A-Za-z0-9_.-]+", dep).group(0) for dep in env["dependencies"]}
    assert {"jupyterlab", "ipykernel", "pytorch"} <= names
    assert "urlpath=lab/tree/notebooks" in course.binder_url()
    readme = (ROOT / "README.md").read_text()
    assert f"]({course.binder_url()})" in readme and "environment.yml" in readme
