"""Fixtures shared by several test files: a scratch copy of the course, the browser tests' Chromium, and
check-jsonschema."""

import os
import shutil

import pytest

from tools import manifest
from tools.browser import LAUNCH_ARGS, find_chromium
from tools.manifest import ROOT

SCREENSHOTS = ROOT / "build" / "screenshots"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """pytest-playwright's ``browser`` (one per test process) is the system's Chromium, offline."""
    return {**browser_type_launch_args, "executable_path": find_chromium(os.environ), "args": LAUNCH_ARGS}


@pytest.fixture
def check_jsonschema(capsys):
    """``check_jsonschema(schema, *paths)`` asserts that each file validates against check-jsonschema's builtin
    schema ``schema`` (e.g. ``vendor.github-workflows``); its report is the failure's message. The command
    runs in this interpreter: its own takes seconds to start."""
    from check_jsonschema import main

    def check(schema, *paths):
        status = main(["--builtin-schema", schema, *map(str, paths)], standalone_mode=False)
        report = capsys.readouterr()
        assert status == 0, report.out + report.err

    return check


@pytest.fixture(scope="session")
def screenshots():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture
def bilingual_course(tmp_path, monkeypatch):
    """A one-notebook copy of the course whose notebook also has a (stand-in) Chinese edition.

    The modules are pointed at the copy, and the manifest at its first notebook (to keep
    the tests short). The translation changes the title and the exercise labels, as the
    real one will; its links are rebased for notebooks/zh/.
    """
    import nbformat

    from tools.translations import rebase_for_zh

    root = tmp_path / "course"
    shutil.copytree(manifest.NOTEBOOK_DIR, root / "notebooks")
    shutil.copytree(manifest.IMAGE_DIR, root / "images")
    shutil.copy(manifest.ROOT / "README.md", root / "README.md")
    entry = manifest.NOTEBOOKS[0]
    nb = nbformat.read(root / "notebooks" / entry.filename, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = rebase_for_zh(cell.source)  # relative links: the same in any copy of the course
            title = f"# {entry.number}. {entry.title_zh}"
            cell.source = cell.source.replace(f"# {entry.number}. {entry.title}", title)
            cell.source = cell.source.replace("**Exercise ", "**练习 ")
    (root / "notebooks" / "zh").mkdir(exist_ok=True)
    nbformat.write(nb, root / "notebooks" / "zh" / entry.filename)
    monkeypatch.setattr(manifest, "NOTEBOOKS", (entry,))
    monkeypatch.setattr(manifest, "ROOT", root)
    monkeypatch.setattr(manifest, "NOTEBOOK_DIR", root / "notebooks")
    monkeypatch.setattr(manifest, "IMAGE_DIR", root / "images")
    return root


#: The notebooks a course copy keeps: two, so that each has a neighbour to link. The tests
#: that break a copy touch the first; checking all ten each time would cost seconds a call.
COPIED_NOTEBOOKS = 2


@pytest.fixture
def course_copy(tmp_path, monkeypatch):
    """A copy of the course's first notebooks (both editions, translations), READMEs and images,
    with the modules and the manifest pointed at it, and synced: consistent before a test breaks it."""
    from tools import sync  # here, not at the top: pytest-xdist's controller process never needs torch
    kept = manifest.NOTEBOOKS[:COPIED_NOTEBOOKS]
    ignore = shutil.ignore_patterns(*(f"{entry.stem}.*" for entry in manifest.NOTEBOOKS[COPIED_NOTEBOOKS:]))
    shutil.copytree(manifest.NOTEBOOK_DIR, tmp_path / "notebooks", ignore=ignore)
    shutil.copytree(manifest.IMAGE_DIR, tmp_path / "images")
    shutil.copytree(manifest.ROOT / "utils" / "locale", tmp_path / "utils" / "locale")  # the compiled catalog
    for name in ("README.md", "README.zh.md"):
        shutil.copy(manifest.ROOT / name, tmp_path / name)
    monkeypatch.setattr(manifest, "ROOT", tmp_path)
    monkeypatch.setattr(manifest, "NOTEBOOK_DIR", tmp_path / "notebooks")
    monkeypatch.setattr(manifest, "IMAGE_DIR", tmp_path / "images")
    monkeypatch.setattr(manifest, "NOTEBOOKS", kept)
    for path, text in sync.planned_text_files().items():  # the READMEs' tables list the kept notebooks
        path.write_text(text, encoding="utf-8")
    return tmp_path
