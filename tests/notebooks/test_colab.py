"""The set-up cell on Colab, for real, once: every notebook's set-up cell is the same generated text
(tests/tooling/test_setup_cell.py checks what it does in each case, without a kernel), so one kernel
runs it the way Colab would, and nbval's runs of the notebooks need not.

The kernel starts in an empty folder with a fake ``google.colab`` module, COURSE_REPO pointing at a
local git repository made from this working tree, and no network (tools/pytest_notebooks.py's
stand-ins: git may use only local files, Python sockets may reach only the loopback, and ``pip`` fails
if anything tries to install). The set-up cell must fetch the course, and the course's helpers must
then come from the fetched copy.
"""

import os
import shutil
import subprocess

import nbformat
import pytest
from nbclient import NotebookClient

from tools import generated, manifest
from tools.kernels import AsyncIPCKernelManager
from tools.pytest_notebooks import offline_environment

FOLDER = manifest.REPO_NAME
IGNORED = shutil.ignore_patterns(".git", ".venv", "build", "__pycache__", "*.pyc", ".pytest_cache", ".ruff_cache",
                                 ".ipynb_checkpoints")
GOOGLE_COLAB = '"""A stand-in for Colab\'s module: the set-up cell only checks that it exists."""\n'
CHECK_CELL = """\
import google.colab, utils.setup_cell, utils.lookup
print("utils from:", pathlib.Path(utils.__file__).resolve().parent.parent)
print("on Colab:", utils.setup_cell.on_colab(), "| the fake module:", google.colab.__doc__.startswith("A stand-in"))
"""
NETWORK_CELL = """\
import socket
try:
    socket.create_connection(("192.0.2.1", 80), timeout=5)  # TEST-NET-1: never a real host
except OSError as error:
    print(error)
"""


def course_origin(folder):
    """A git repository holding this working tree (committed or not) on the manifest's ref:
    what the set-up cell clones, through COURSE_REPO."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed; the set-up cell fetches the course with git")
    repo = folder / FOLDER
    shutil.copytree(manifest.ROOT, repo, ignore=IGNORED, symlinks=True)
    git = ["git", "-C", str(repo), "-c", "user.name=test", "-c", "user.email=test@example.invalid",
           "-c", "commit.gpgsign=false"]
    for args in (["init", "--quiet"], ["checkout", "--quiet", "-b", manifest.REPO_REF], ["add", "--all"],
                 ["commit", "--quiet", "-m", "the working tree"]):
        subprocess.run([*git, *args], check=True)
    return repo


def test_every_notebook_has_the_one_setup_cell_that_runs_here():
    """The English notebooks' (the translation check proves the Chinese ones run the same code)."""
    expected = generated.collapse(nbformat.v4.new_code_cell(generated.setup_source()),
                                  generated.WORDS["setup title"]).source
    for entry in manifest.NOTEBOOKS:
        cells = nbformat.read(entry.path, as_version=4).cells
        assert next(cell for cell in cells if cell.get("id") == generated.SETUP_ID).source == expected, entry.stem


def test_on_colab_the_setup_cell_fetches_the_course_offline_and_the_helpers_come_from_it(tmp_path):
    origin = course_origin(tmp_path / "origin")
    fakes = tmp_path / "fakes"
    (fakes / "google" / "colab").mkdir(parents=True)  # a namespace package `google` (it merges with a real one)
    (fakes / "google" / "colab" / "__init__.py").write_text(GOOGLE_COLAB)
    env = offline_environment()
    env.update({generated.REPO_OVERRIDE_ENV: origin.as_uri(),
                "PYTHONPATH": os.pathsep.join([str(fakes), env["PYTHONPATH"]])})
    content = tmp_path / "content"  # Colab's working folder, empty
    content.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in (
        generated.setup_source(), CHECK_CELL, NETWORK_CELL)])
    NotebookClient(nb, timeout=300, kernel_name="python3", kernel_manager_class=AsyncIPCKernelManager,
                   resources={"metadata": {"path": str(content)}}).execute(env=env)

    said = ["".join(output.get("text", "") for output in cell.outputs) for cell in nb.cells]
    assert said[0] == f"Set-up: fetched the course into ./{FOLDER}\n"
    assert (content / FOLDER / generated.COURSE_MARKER).is_file()
    assert said[1].splitlines() == [f"utils from: {(content / FOLDER).resolve()}",
                                    "on Colab: True | the fake module: True"]
    assert said[2].startswith("network access is blocked in this test (tried ('192.0.2.1', 80))"), said[2]
