"""The test suite's own pytest plugin (loaded by ``-p tools.pytest_course`` in pyproject.toml): no workers
for the unit tier, the longest files first, nbval's collector replaced by
:class:`tools.pytest_notebooks.ClientNotebook`, and a count of notebook executions at the end.
A tier is a folder (``pytest tests/unit``); pyproject.toml's ``env`` (pytest-env) sets the environment.
"""

import sys
from collections import Counter
from pathlib import Path

import pytest

from utils.cli import COURSE

# jsonschema imports rfc3987_syntax where it is installed (JupyterLab's jupyter-events asks for it), which compiles
# 38 Lark grammars as it is imported: 2 s in every pytest process (nbval imports nbformat, which imports jsonschema).
# It only checks the "iri" format, which no schema validated here uses (nor check-jsonschema's). pytest loads this
# plugin (`-p`) before nbval, so jsonschema finds none here.
if "jsonschema" not in sys.modules:
    sys.modules.setdefault("rfc3987_syntax", None)

#: what a test that executes a notebook records (``record_property(EXECUTIONS, "how: which")``), counted at the end
EXECUTIONS = "notebook executions"
UNIT_TIER = Path(__file__).resolve().parent.parent / "tests" / "unit"


def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """A plain ``pytest`` from a Python without the suite's plugins (not .venv's) is one line that says to run
    ``python3 course.py test``, in place of pytest's "unrecognized arguments: -n --dist loadfile ..."."""
    # the plugins whose options pyproject.toml's addopts pass, by their PyPI names
    plugins = early_config.pluginmanager
    if missing := [name for name in ("pytest-xdist", "nbval") if not plugins.has_plugin(name.removeprefix("pytest-"))]:
        raise pytest.UsageError(
            f"this pytest ({sys.executable}) runs without {' or '.join(missing)}, which the suite's options "
            f"(pyproject.toml) need: run the tests with `{COURSE} test` (it installs them into .venv)")


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which answers for every run
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (pyproject's) for ``pytest tests/unit`` (or a part of it) means no workers: the unit
    tier takes seconds, less than starting workers costs. Otherwise xdist's count of cores (one worker
    more measured the same, with one thread per process: 100.6 s against 102.7 s on 2 cores, and four
    workers 114.4 s). ``-n N`` on the command line still wins."""
    paths = [Path(config.invocation_params.dir, arg.split("::")[0]).resolve() for arg in config.args]
    return 0 if paths and all(path.is_relative_to(UNIT_TIER) for path in paths) else None


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    """nbval's collector for a course notebook becomes :class:`tools.pytest_notebooks.ClientNotebook`."""
    collected = yield
    if file_path.suffix != ".ipynb":
        return collected
    from nbval.plugin import IPyNbFile

    from tools.pytest_notebooks import ClientNotebook, course_notebook

    entry = course_notebook(file_path)
    if entry is None or not any(isinstance(node, IPyNbFile) for node in collected):  # not the course's, or no --nbval
        return collected
    notebook = ClientNotebook.from_parent(parent, path=file_path)
    notebook.entry = entry
    return [notebook if isinstance(node, IPyNbFile) else node for node in collected]


#: Where the longest files are (seconds each on 2 cores: the browser tests 25, a notebook under nbval 5 to 50,
#: the process tests 10 to 20, the site 15), started first: xdist (``--dist loadfile``) hands out whole files in
#: the order collected, and a long one handed out last would leave the other worker idle while it runs.
LONGEST_FIRST = ("tests/clients/", "notebooks/", "tests/processes/", "tests/tooling/test_website.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest files first; a stable sort, so a file's tests, and everything else, keep their order."""
    items.sort(key=lambda item: [not item.nodeid.startswith(start) for start in LONGEST_FIRST])  # False sorts first


def pytest_terminal_summary(terminalreporter) -> None:
    """One line: how many times the suite executed a notebook, and by which check."""
    calls = [report for reports in terminalreporter.stats.values() for report in reports
             if getattr(report, "when", None) == "call"]
    kinds = Counter({"nbval": len({r.nodeid.split("::")[0] for r in calls if ".ipynb::" in r.nodeid})})
    kinds.update(value.split(":")[0] for r in calls for name, value in r.user_properties if name == EXECUTIONS)
    if kinds := +kinds:  # (+ drops a count of 0)
        detail = ", ".join(f"{kind} {count}" for kind, count in kinds.items())
        terminalreporter.write_line(f"{EXECUTIONS}: {kinds.total()} ({detail})")
