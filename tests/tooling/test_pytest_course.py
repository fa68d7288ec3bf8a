"""The suite's own plugin, tools/pytest_course.py: how ``pytest -m <tier>`` selects and runs."""

from types import SimpleNamespace

import pytest

from tools import pytest_course
from tools.manifest import ROOT


def _config(markexpr: str):
    return SimpleNamespace(getoption=lambda name, default=None: markexpr if name == "markexpr" else default,
                           rootpath=ROOT)


def test_the_unit_tier_alone_starts_no_workers():
    assert pytest_course.pytest_xdist_auto_num_workers(_config("unit")) == 0
    for markexpr in ("", "tooling", "unit or tooling", "not unit"):
        assert pytest_course.pytest_xdist_auto_num_workers(_config(markexpr)) is None  # xdist decides


@pytest.mark.parametrize("tier", pytest_course.TIERS)
def test_one_tier_collects_only_its_folder(tier):
    config = _config(tier)
    for other in pytest_course.TIERS:
        ignored = pytest_course.pytest_ignore_collect(ROOT / "tests" / other, config)
        assert ignored is (None if other == tier else True), other
    assert pytest_course.pytest_ignore_collect(ROOT / "notebooks", config) is (None if tier == "notebooks" else True)
    assert pytest_course.pytest_ignore_collect(ROOT / "tests" / "conftest.py", config) is None


def test_without_a_single_tier_everything_is_collected():
    for markexpr in ("", "unit or tooling", "not clients"):
        for path in (ROOT / "tests" / "unit", ROOT / "tests" / "clients", ROOT / "notebooks"):
            assert pytest_course.pytest_ignore_collect(path, _config(markexpr)) is None


def test_the_longest_files_start_first_and_the_rest_keep_their_order():
    paths = ["tests/unit/test_a.py", "tests/tooling/test_website.py", "tests/tooling/test_b.py",
             "notebooks/01_x.ipynb", "tests/clients/test_lab.py", "notebooks/00_y.ipynb", "tests/processes/test_c.py"]
    items = [SimpleNamespace(path=ROOT / path, add_marker=lambda marker: None) for path in paths]
    pytest_course.pytest_collection_modifyitems(SimpleNamespace(rootpath=ROOT), items)
    assert [item.path.relative_to(ROOT).as_posix() for item in items] == [
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
