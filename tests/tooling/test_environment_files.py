"""requirements.txt (the learner's ranges), requirements-dev.txt (the test suite's), constraints.txt
(pins) and environment.yml agree, and the learner's files hold no test tool."""

import ast
import re
import sys
from importlib import metadata

import yaml
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tools.manifest import ROOT
from utils.env_check import DEV_REQUIREMENTS, read_requirements

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
    for req in read_requirements(DEV_REQUIREMENTS):  # the learner's and the test suite's
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
    from tools import manifest

    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert set(env) <= {"name", "channels", "dependencies"}, "no prefix: or variables: (they pin one machine)"
    names = {re.match(r"[A-Za-z0-9_.-]+", dep).group(0) for dep in env["dependencies"]}
    assert {"jupyterlab", "ipykernel", "pytorch"} <= names
    assert "urlpath=lab/tree/notebooks" in manifest.binder_url()
    readme = (ROOT / "README.md").read_text()
    assert f"]({manifest.binder_url()})" in readme and "environment.yml" in readme


# --- the learner's install and the maintainers' ------------------------------------------------

#: The programs and pytest plugins the test suite runs: a learner never needs them.
TEST_TOOLS = {"pytest", "pytest-xdist", "pytest-timeout", "nbval", "ruff", "check-jsonschema", "playwright"}


def _names(requirements):
    return {canonicalize_name(r.name) for r in requirements}


def _dev_only():
    """The requirements that requirements-dev.txt adds to requirements.txt."""
    return _names(read_requirements(DEV_REQUIREMENTS)) - _names(read_requirements())


def _closure(names):
    """Every distribution that installing ``names`` installs (from the installed metadata, extras followed)."""
    found, todo = set(), [(canonicalize_name(n), frozenset()) for n in names]
    while todo:
        name, extras = todo.pop()
        if (name, extras) in found:
            continue
        found.add((name, extras))
        for text in metadata.requires(name) or []:
            req = Requirement(text)
            if req.marker is None or any(req.marker.evaluate({"extra": extra}) for extra in extras | {""}):
                todo.append((canonicalize_name(req.name), frozenset(req.extras)))
    return {name for name, _ in found}


def _optional_imports(tree):
    """The import statements inside ``try: ... except ImportError`` (the code runs without them)."""
    optional = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
                isinstance(h.type, ast.Name) and h.type.id in ("ImportError", "ModuleNotFoundError")
                for h in node.handlers):
            optional |= {id(inner) for statement in node.body for inner in ast.walk(statement)}
    return optional


def _third_party_imports(*paths):
    """Top-level modules imported by the Python files under ``paths`` that are neither the
    standard library nor the course's own packages (nor imported only where they may be
    missing), as the distributions that provide them."""
    modules = set()
    for path in paths:
        for file in [path] if path.is_file() else sorted(path.rglob("*.py")):
            tree = ast.parse(file.read_text(encoding="utf-8"))
            optional = _optional_imports(tree)
            for node in ast.walk(tree):
                if id(node) in optional:
                    continue
                if isinstance(node, ast.Import):
                    modules |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules.add(node.module.split(".")[0])
    local = {file.stem for file in (ROOT / "tests").rglob("*.py")}  # e.g. tests/processes/fault_injection.py
    modules -= set(sys.stdlib_module_names) | local | {"utils", "tools", "tests", "course", "__future__", "pip"}
    providers = metadata.packages_distributions()
    return {canonicalize_name(dist) for module in modules for dist in providers.get(module, [module])}


def test_the_learners_files_hold_no_test_tool():
    learner = _names(read_requirements())
    assert not learner & TEST_TOOLS, f"requirements.txt names test tools: {sorted(learner & TEST_TOOLS)}"
    assert TEST_TOOLS <= _dev_only(), f"requirements-dev.txt lacks {sorted(TEST_TOOLS - _dev_only())}"
    assert "-r requirements.txt" in DEV_REQUIREMENTS.read_text().splitlines(), "the dev file includes the learner's"
    conda = " ".join(yaml.safe_load((ROOT / "environment.yml").read_text())["dependencies"])
    for tool in TEST_TOOLS | _dev_only():
        assert not re.search(rf"(^|\s){re.escape(tool)}([<>=!~ ]|$)", conda), f"environment.yml names {tool}"


def test_the_learners_file_installs_what_the_notebooks_and_helpers_import():
    """utils/ is what the notebooks import: each package it needs is named in requirements.txt itself."""
    imported = _third_party_imports(ROOT / "utils")
    assert imported <= _names(read_requirements()), f"utils/ imports {sorted(imported - _names(read_requirements()))}"


def test_the_dev_file_installs_what_the_test_suite_imports():
    """Each package the tests import comes with the learner's install or is named in requirements-dev.txt,
    and nothing in requirements-dev.txt is already named in requirements.txt."""
    learner = _names(read_requirements())
    imported = _third_party_imports(ROOT / "tests", *sorted((ROOT / "tools").glob("pytest_*.py")))
    missing = imported - _closure(learner) - _dev_only()
    assert not missing, f"the tests import {sorted(missing)}, which neither requirements file installs"
    assert not _dev_only() & learner


def test_constraints_pin_everything_both_files_install():
    pinned = {name for name, _, marker in _pins() if marker is None or marker.evaluate()}
    installed = _closure(_names(read_requirements(DEV_REQUIREMENTS)))
    assert installed - pinned == set(), f"constraints.txt does not pin {sorted(installed - pinned)}"
