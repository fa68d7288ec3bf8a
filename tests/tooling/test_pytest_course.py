"""The suite's own plugin, tools/pytest_course.py, and the settings in pyproject.toml it relies on."""

import os
from types import SimpleNamespace

from tools import pytest_course
from tools.manifest import ROOT


def _config(*args: str):
    return SimpleNamespace(args=list(args), invocation_params=SimpleNamespace(dir=ROOT))


def test_the_unit_tier_alone_starts_no_workers():
    for args in (["tests/unit"], ["tests/unit/test_bench.py::test_x", str(ROOT / "tests" / "unit")]):
        assert pytest_course.pytest_xdist_auto_num_workers(_config(*args)) == 0
    for args in ([], ["tests"], ["tests/unit", "tests/tooling"], ["notebooks"]):
        assert pytest_course.pytest_xdist_auto_num_workers(_config(*args)) is None  # xdist decides


def test_pytest_env_gives_every_test_process_one_compute_thread(pytestconfig):
    assert "D:OMP_NUM_THREADS=1" in pytestconfig.getini("env")  # D: a value set before pytest started stays
    assert os.environ["OMP_NUM_THREADS"]


def test_pytest_env_lets_the_workers_cache_their_compiled_test_modules():
    """Empty, which Python reads as unset: a PYTHONDONTWRITEBYTECODE=1 from the shell would make every worker
    rewrite and compile the test modules afresh; the workers, kernels and subprocesses inherit this one."""
    assert os.environ["PYTHONDONTWRITEBYTECODE"] == ""


def test_the_longest_files_start_first_and_the_rest_keep_their_order():
    paths = ["tests/unit/test_a.py", "tests/tooling/test_website.py", "tests/tooling/test_b.py",
             "notebooks/01_x.ipynb", "tests/clients/test_lab.py", "notebooks/00_y.ipynb", "tests/processes/test_c.py"]
    items = [SimpleNamespace(nodeid=f"{path}::test") for path in paths]
    pytest_course.pytest_collection_modifyitems(items)
    assert [item.nodeid.removesuffix("::test") for item in items] == [
        "tests/clients/test_lab.py", "notebooks/01_x.ipynb", "notebooks/00_y.ipynb", "tests/processes/test_c.py",
        "tests/tooling/test_website.py", "tests/unit/test_a.py", "tests/tooling/test_b.py"]


def test_the_last_line_counts_the_notebook_executions_by_check():
    reports = [SimpleNamespace(when="call", nodeid=f"notebooks/01_x.ipynb::Cell {i}", user_properties=[])
               for i in (0, 1)]
    reports += [SimpleNamespace(when="call", nodeid="tests/clients/t.py::a", user_properties=[
        (pytest_course.EXECUTIONS, "jupyterlab: 03_x"), ("other", "property")]), SimpleNamespace(when="setup")]
    lines = []
    pytest_course.pytest_terminal_summary(SimpleNamespace(write_line=lines.append, stats={"passed": reports}))
    pytest_course.pytest_terminal_summary(SimpleNamespace(write_line=lines.append, stats={"passed": reports[3:]}))
    assert lines == ["notebook executions: 2 (nbval 1, jupyterlab 1)"]  # and nothing for a run without notebooks
