"""Every notebook, run once the way learners meet it, checking three clients in one kernel run.

- **Colab**: the notebook is copied alone into an empty folder and run there, with a fake
  `google.colab` module, COURSE_REPO pointing at a local git repository made from this working
  tree, and no network: git may use only local files, Python sockets may reach only the
  loopback, and a stand-in `pip` fails if anything tries to install. The set-up cell must
  fetch the course and the notebook must run to the end.
- **papermill**: its `device` parameter is injected by papermill (`load_notebook_node` and
  `parameterize_notebook`, the steps `papermill.execute_notebook` takes before it runs the
  notebook with nbclient, as here).
- **The practice copy** (`make practice`): the exercise section runs twice. First as the
  practice copy has it, stubs instead of answers: each stub raises and each checker rejects
  it. Then with the worked answers, which every checker must accept. The lesson above the
  exercises is what the practice copy runs too, so it is not run again for it.

nbval (strict, against the stored outputs) is the other run of each notebook.
"""

import copy
import os
import re
import shutil
import subprocess

import nbformat
import pytest
from nbclient import NotebookClient
from papermill.iorw import load_notebook_node
from papermill.parameterize import parameterize_notebook

from tools import course, generated, practice
from tools.course import NOTEBOOKS, ROOT
from tools.kernels import AsyncIPCKernelManager
from tools.pytest_course import count_execution
from tools.run import check_all_cells_executed, stderr_outputs

# the `device` parameter: unset, each notebook's default; the GPU job sets COURSE_DEVICE=cuda
DEVICE = os.environ.get("COURSE_DEVICE")
PRACTICE_SUFFIX = "-practice"
IGNORED = shutil.ignore_patterns(".git", ".venv", "build", "__pycache__", "*.pyc", ".pytest_cache", ".ruff_cache",
                                 ".ipynb_checkpoints")
FOLDER = course.REPO_SLUG.split("/")[1]

# Stand-ins put first on the kernel's PYTHONPATH.
FAKE_MODULES = {
    # a namespace package `google` (it merges with a real one) holding a fake `colab`
    "google/colab/__init__.py": '"""A stand-in for Colab\'s module: the set-up cell only checks that it exists."""\n',
    # `python -m pip` must not run: the packages are all here
    "pip/__init__.py": "",
    "pip/__main__.py": "import sys\nsys.exit('the set-up cell ran pip although every package is installed')\n",
    # no network: Python sockets may connect to the loopback only
    "sitecustomize.py": '''\
import ipaddress
import socket

_connect = socket.socket.connect


def _loopback_only(sock, address):
    if sock.family in (socket.AF_INET, socket.AF_INET6):
        host = address[0]
        try:
            loopback = ipaddress.ip_address(host.split("%")[0]).is_loopback
        except ValueError:
            loopback = host == "localhost"
        if not loopback:
            raise OSError(f"network access is blocked in this test (tried {address})")
    return _connect(sock, address)


socket.socket.connect = _loopback_only
''',
}

CHECK_CELL = """\
import google.colab, utils
print("utils from:", pathlib.Path(utils.__file__).resolve().parent.parent)
print("on Colab:", on_colab, "| the fake module:", google.colab.__doc__.startswith("A stand-in"))
"""


@pytest.fixture(scope="module")
def course_repo(tmp_path_factory):
    """A git repository holding this working tree (committed or not) on the manifest's ref."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed; the set-up cell fetches the course with git")
    repo = tmp_path_factory.mktemp("origin") / FOLDER
    shutil.copytree(ROOT, repo, ignore=IGNORED, symlinks=True)
    git = ["git", "-C", str(repo), "-c", "user.name=test", "-c", "user.email=test@example.invalid",
           "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "--quiet"], check=True)
    subprocess.run([*git, "checkout", "--quiet", "-b", course.REPO_REF], check=True)
    subprocess.run([*git, "add", "--all"], check=True)
    subprocess.run([*git, "commit", "--quiet", "-m", "the working tree"], check=True)
    return repo


@pytest.fixture(scope="module")
def fake_modules(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fake-modules")
    for name, text in FAKE_MODULES.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


@pytest.fixture
def colab_env(monkeypatch, course_repo, fake_modules):
    """The environment the kernel inherits: the override, the stand-ins, no network."""
    monkeypatch.setenv(generated.REPO_OVERRIDE_ENV, course_repo.as_uri())
    monkeypatch.setenv("PYTHONPATH", str(fake_modules))
    monkeypatch.setenv("GIT_ALLOW_PROTOCOL", "file")  # git may not fetch over the network
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    for proxy in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(proxy, "http://127.0.0.1:9")  # discard port: nothing answers
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    return course_repo


def _stream_text(cell):
    return "".join(out.get("text", "") for out in cell.outputs if out.output_type == "stream")




def _stream_text(cell):
    return "".join(out.get("text", "") for out in cell.outputs if out.output_type == "stream")


def _exercises_start(nb):
    return next(i for i, cell in enumerate(nb.cells) if cell.cell_type == "markdown"
                and any(line.strip() == "## Exercises" for line in cell.source.splitlines()))


def client_notebook(entry, folder):
    """The notebook as this test runs it: parameters injected, the practice copy's exercise section
    (ids suffixed, errors allowed) before the worked one, and a last cell that reports where `utils` came from."""
    original = load_notebook_node(str(entry.path))  # as papermill reads it: every cell has metadata.tags
    nb = parameterize_notebook(original, {"device": DEVICE or entry.default_device}, kernel_name="python3",
                               language="python")
    copy_ = practice.practice_notebook(original, entry, course.ENGLISH, folder)
    start, end = _exercises_start(copy_), next(i for i, c in enumerate(copy_.cells) if c.id == generated.FOOTER_ID)
    drills = copy.deepcopy(copy_.cells[start:end])
    for cell in drills:
        cell.id += PRACTICE_SUFFIX
        if cell.cell_type == "code":
            cell.metadata.setdefault("tags", []).append("raises-exception")  # nbclient goes on after an error
    start = _exercises_start(nb)
    check = nbformat.v4.new_code_cell(CHECK_CELL)
    check.id = "test-where-is-utils"
    nb.cells = [*nb.cells[:start], *drills, *nb.cells[start:], check]
    return nb


def check_practice_section(nb):
    """Each stub raises (or defines a function that will), and the checker after it fails."""
    drills = [cell for cell in nb.cells if cell.get("id", "").endswith(PRACTICE_SUFFIX)]
    stubs = [i for i, cell in enumerate(drills) if practice.SOLUTION_TAG in cell.metadata.get("tags", [])]
    assert len(stubs) >= 2, "the practice section has a stub per exercise"
    for index in stubs:
        stub, checker = drills[index], drills[index + 1]
        assert re.search(r"exercises\.check_\w+", checker.source), f"cell {checker.id}: expected a checker"
        stub_errors = [o for o in stub.outputs if o.output_type == "error"]
        if stub_errors:  # a stub that raises at once
            assert stub_errors[0].ename == "NotImplementedError"
            assert re.match(r"Exercise \d+\.\d+", stub_errors[0].evalue), stub_errors[0].evalue
        assert any(o.output_type == "error" for o in checker.outputs), \
            f"the checker {checker.id} accepted the stub of {stub.id}"
    printed = "".join(o.get("text", "") for c in drills if c.cell_type == "code" for o in c.outputs)
    assert "correct:" not in printed


@pytest.mark.parametrize("entry", NOTEBOOKS, ids=[nb.stem for nb in NOTEBOOKS])
def test_a_bare_notebook_fetches_the_course_runs_with_its_parameters_and_rejects_the_stubs(
        colab_env, tmp_path, entry, record_property):
    bare = tmp_path / "content"  # Colab's working folder, empty but for the notebook
    bare.mkdir()
    nb = client_notebook(entry, bare)
    nbformat.write(nb, bare / entry.filename)

    count_execution(record_property, f"bare: {entry.stem}")
    NotebookClient(nb, timeout=600, kernel_name="python3", kernel_manager_class=AsyncIPCKernelManager,
                   resources={"metadata": {"path": str(bare)}}).execute()

    check_all_cells_executed(nb, entry.filename)
    setup = next(cell for cell in nb.cells if cell.get("id") == generated.SETUP_ID)
    assert _stream_text(setup) == f"Set-up: fetched the course into ./{FOLDER}\n"
    assert (bare / FOLDER / generated.COURSE_MARKER).is_file()
    assert _stream_text(nb.cells[-1]).splitlines() == [
        f"utils from: {(bare / FOLDER).resolve()}", "on Colab: True | the fake module: True",
    ]
    injected = [i for i, cell in enumerate(nb.cells) if "injected-parameters" in cell.metadata.get("tags", [])]
    parameters = [i for i, cell in enumerate(nb.cells) if "parameters" in cell.metadata.get("tags", [])]
    assert len(injected) == 1 and injected[0] == parameters[0] + 1, "papermill's cell follows the parameters cell"
    assert f'device = "{DEVICE or entry.default_device}"' in nb.cells[injected[0]].source
    assert not stderr_outputs(nb), f"a warning reached the learner's output: {stderr_outputs(nb)[0]}"
    for cell in nb.cells:
        if not cell.get("id", "").endswith(PRACTICE_SUFFIX):
            errors = [o for o in cell.get("outputs", []) if o.output_type == "error"]
            assert not errors, f"cell {cell.id}: {errors[0].ename}: {errors[0].evalue}"
    check_practice_section(nb)
