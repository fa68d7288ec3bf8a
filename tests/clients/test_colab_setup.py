"""The set-up cell, the way Colab meets it: a notebook alone, with no course beside it.

Each notebook is copied alone into an empty folder and run there with nbclient, with a
fake `google.colab` module, COURSE_REPO pointing at a local git repository made from this
working tree, and no network: git may use only local files, Python sockets may reach only
the loopback, and a stand-in `pip` fails if anything tries to install. The set-up cell
must fetch the course and the notebook must run to the end.
"""

import shutil
import subprocess
import sys
import types

import nbformat
import pytest
from nbclient import NotebookClient

from tools import course, generated
from tools.course import NOTEBOOKS, ROOT
from tools.run import check_all_cells_executed

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


@pytest.mark.parametrize("entry", NOTEBOOKS, ids=[nb.stem for nb in NOTEBOOKS])
def test_a_bare_notebook_fetches_the_course_and_runs(colab_env, tmp_path, entry):
    bare = tmp_path / "content"  # Colab's working folder, empty but for the notebook
    bare.mkdir()
    nb = nbformat.read(entry.path, as_version=4)
    check = nbformat.v4.new_code_cell(CHECK_CELL)
    check.id = "test-where-is-utils"
    nb.cells.append(check)
    nbformat.write(nb, bare / entry.filename)

    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(bare)}}).execute()

    check_all_cells_executed(nb, entry.filename)
    setup = next(cell for cell in nb.cells if cell.get("id") == generated.SETUP_ID)
    assert _stream_text(setup) == f"fetched the course into {bare / FOLDER}\n"
    assert (bare / FOLDER / "utils" / "course.py").is_file()
    assert _stream_text(nb.cells[-1]).splitlines() == [
        f"utils from: {(bare / FOLDER).resolve()}", "on Colab: True | the fake module: True",
    ]
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert not (output.output_type == "stream" and output.name == "stderr"), output.text


def _run_setup_cell(monkeypatch, cwd, *, colab, missing=()):
    """Execute the set-up cell's source here, with subprocess.run recorded instead of run."""
    calls = []
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(subprocess, "run", lambda args, **kwargs: calls.append(list(args)))
    if colab:
        google = types.ModuleType("google")
        google.colab = types.ModuleType("google.colab")
        monkeypatch.setitem(sys.modules, "google", google)
        monkeypatch.setitem(sys.modules, "google.colab", google.colab)
    else:
        monkeypatch.setitem(sys.modules, "google.colab", None)  # `import google.colab` raises ImportError
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in missing else find_spec(name, *a))
    namespace = {}
    exec(compile(generated.setup_source(), "<set-up cell>", "exec"), namespace)
    return namespace, calls


def test_in_a_clone_the_setup_cell_fetches_and_installs_nothing(monkeypatch):
    namespace, calls = _run_setup_cell(monkeypatch, course.NOTEBOOK_DIR, colab=False, missing={"tqdm"})
    assert calls == []
    assert namespace["COURSE_ROOT"] == ROOT
    assert str(ROOT) in sys.path


def test_on_colab_the_setup_cell_installs_only_what_is_missing(monkeypatch):
    namespace, calls = _run_setup_cell(monkeypatch, course.NOTEBOOK_DIR, colab=True)
    assert namespace["on_colab"] is True and calls == []  # everything present: no pip

    namespace, calls = _run_setup_cell(monkeypatch, course.NOTEBOOK_DIR, colab=True, missing={"tqdm", "numpy"})
    assert calls == [[sys.executable, "-m", "pip", "install", "--quiet", "numpy>=1.24", "tqdm>=4.65"]]


def test_elsewhere_the_setup_cell_clones_the_manifest_address_at_the_pinned_ref(monkeypatch, tmp_path):
    monkeypatch.delenv(generated.REPO_OVERRIDE_ENV, raising=False)
    namespace, calls = _run_setup_cell(monkeypatch, tmp_path, colab=False)
    target = str(tmp_path / FOLDER)
    assert calls == [["git", "clone", "--quiet", "--depth=1", f"--branch={course.REPO_REF}", course.repo_url(), target]]
    assert sys.path[0] == target

    monkeypatch.setenv(generated.REPO_OVERRIDE_ENV, "file:///somewhere/else")
    namespace, calls = _run_setup_cell(monkeypatch, tmp_path, colab=False)
    assert calls[0][-2] == "file:///somewhere/else"


def test_colab_requirements_come_from_the_course_block(tmp_path):
    assert generated.colab_requirements() == {
        "torch": "torch>=2.2", "numpy": "numpy>=1.24", "matplotlib": "matplotlib>=3.7", "tqdm": "tqdm>=4.65",
    }
    bad = tmp_path / "requirements.txt"
    bad.write_text("numpy>=1.24\n")
    with pytest.raises(ValueError, match="has no '# the course' block"):
        generated.colab_requirements(bad)
    bad.write_text("# the course\nscikit-learn>=1.0\n")
    with pytest.raises(ValueError, match="'scikit-learn>=1.0' in '# the course': expected a plain package name"):
        generated.colab_requirements(bad)
    bad.write_text("# the course\n\ntorch\n")
    with pytest.raises(ValueError, match="block is empty"):
        generated.colab_requirements(bad)
