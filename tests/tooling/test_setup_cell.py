"""The set-up cell that `make sync` writes into every notebook, run here with its side effects recorded.

tests/notebooks/test_colab.py runs it for real, in a kernel, as on Colab: in an empty folder, offline, fetching
the course from a local origin.
"""

import subprocess
import sys
import types

import pytest
import setuptools
import tomllib

from tools import generated, manifest
from tools.manifest import ROOT

FOLDER = manifest.REPO_NAME


def _run_setup_cell(monkeypatch, cwd, *, colab, missing=(), git=None, source=None):
    """Execute the set-up cell's source (``source``, else the English one) here, with subprocess.run recorded
    instead of run.

    ``git``: what a `git` command does instead (a function of its arguments); by default it succeeds."""
    calls = []
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "path", list(sys.path))

    def fake_run(args, **kwargs):
        calls.append(list(args))
        if args[0] == "git" and git is not None:
            return git(args)
        return subprocess.CompletedProcess(args, 0, "", "")

    monkeypatch.setattr(subprocess, "run", fake_run)
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
    exec(compile(source or generated.setup_source(), "<set-up cell>", "exec"), namespace)
    return namespace, calls


@pytest.mark.parametrize("where, colab, missing, said, pip", [
    ("clone", False, {"tqdm"}, "the course is in a folder above; nothing fetched", False),  # no pip off Colab
    ("clone", True, set(), "the course is in a folder above; nothing fetched", False),
    ("clone", True, {"tqdm", "numpy"}, "the course is in a folder above; nothing fetched; pip-installed it, "
                                       "with numpy, tqdm", True),
    ("fetched earlier", False, {"utils"}, f"using the course fetched earlier into ./{FOLDER}", False),
    ("installed", False, set(), "the course is installed; nothing fetched", False),
])
def test_where_the_course_is_found_nothing_is_fetched(monkeypatch, tmp_path, capsys, where, colab, missing, said, pip):
    cwd = {"clone": manifest.NOTEBOOK_DIR, "fetched earlier": tmp_path, "installed": tmp_path}[where]
    if where == "fetched earlier":
        (tmp_path / FOLDER / generated.COURSE_MARKER).parent.mkdir(parents=True)
        (tmp_path / FOLDER / generated.COURSE_MARKER).touch()
    _, calls = _run_setup_cell(monkeypatch, cwd, colab=colab, missing=missing)
    assert capsys.readouterr().out == f"Set-up: {said}\n"
    assert calls == ([[sys.executable, "-m", "pip", "install", "--quiet", "-e", str(ROOT)]] if pip else [])
    root = {"clone": ROOT, "fetched earlier": tmp_path / FOLDER, "installed": None}[where]
    assert root is None or str(root) in sys.path


def test_elsewhere_the_setup_cell_clones_the_manifest_address_at_the_pinned_ref(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv(generated.REPO_OVERRIDE_ENV, raising=False)
    _, calls = _run_setup_cell(monkeypatch, tmp_path, colab=False, missing={"utils"})
    target = str(tmp_path / FOLDER)
    assert calls == [["git", "clone", "--quiet", "--depth=1", f"--branch={manifest.REPO_REF}", manifest.repo_url(),
                      target]]
    assert sys.path[0] == target
    assert capsys.readouterr().out == f"Set-up: fetched the course into ./{FOLDER}\n"  # no absolute path

    monkeypatch.setenv(generated.REPO_OVERRIDE_ENV, "file:///somewhere/else")
    _, calls = _run_setup_cell(monkeypatch, tmp_path, colab=False, missing={"utils"})
    assert calls[0][-2] == "file:///somewhere/else"


def test_offline_the_setup_cell_says_what_to_do_in_one_line(monkeypatch, tmp_path):
    """No network: git's last line and COURSE_REPO, not a CalledProcessError's traceback."""
    monkeypatch.delenv(generated.REPO_OVERRIDE_ENV, raising=False)
    stderr = "Cloning...\nfatal: unable to access 'https://x/': Could not resolve host: github.com\n"
    offline = lambda args: subprocess.CompletedProcess(args, 128, "", stderr)  # noqa: E731
    with pytest.raises(RuntimeError) as error:
        _run_setup_cell(monkeypatch, tmp_path, colab=False, missing={"utils"}, git=offline)
    message = str(error.value)
    assert message.startswith(f"the set-up could not fetch the course from {manifest.repo_url()} (fatal: unable to "
                              "access 'https://x/': Could not resolve host: github.com). Open this notebook")
    assert f"set COURSE_REPO to a copy of it before starting Jupyter, e.g. COURSE_REPO=file:///path/to/{FOLDER}" \
        in message and "\n" not in message
    assert error.value._render_traceback_() == [f"SetupError: {message}"]  # what Jupyter shows: this line alone

    # the Chinese edition's set-up cell says the same in Chinese, git's words and the commands kept
    zh_notebook = generated.read_notebook(manifest.NOTEBOOK_DIR / "zh" / "00_the_answer.ipynb")
    zh_setup = next(cell.source for cell in zh_notebook.cells if cell.get("id") == generated.SETUP_ID)
    with pytest.raises(RuntimeError) as error:
        _run_setup_cell(monkeypatch, tmp_path, colab=False, missing={"utils"}, git=offline, source=zh_setup)
    assert str(error.value).startswith(f"环境设置单元格无法从 {manifest.repo_url()} 获取课程（fatal: unable to access")
    assert f"COURSE_REPO=file:///path/to/{FOLDER}" in str(error.value) and "could not" not in str(error.value)

    missing = "fatal: '/x' does not appear to be a git repository\nfatal: Could not read\n\nthe repository exists.\n"
    with pytest.raises(RuntimeError, match=r"\(fatal: '/x' does not appear to be a git repository\)"):  # its first
        _run_setup_cell(monkeypatch, tmp_path, colab=False, missing={"utils"},  # fatal line, not its last line
                        git=lambda args: subprocess.CompletedProcess(args, 128, "", missing))

    def no_git(args):
        raise FileNotFoundError("git")

    with pytest.raises(RuntimeError, match=r"\(git is not installed\)\. Open this notebook from a clone"):
        _run_setup_cell(monkeypatch, tmp_path, colab=False, missing={"utils"}, git=no_git)

    # the reasons the cell words itself (no git, or git failing without a fatal: line) are Chinese there too
    for key in generated.SETUP_REASONS:  # each a literal of the template, which the Chinese cell swaps
        assert f'"{generated.WORDS[key]}"' in generated.setup_source()
    with pytest.raises(RuntimeError) as error:
        _run_setup_cell(monkeypatch, tmp_path, colab=False, missing={"utils"}, git=no_git, source=zh_setup)
    assert f"获取课程（{generated.words('zh')['no git']}）。" in str(error.value) and "git is" not in str(error.value)
    silent = lambda args: subprocess.CompletedProcess(args, 1, "", "")  # noqa: E731
    with pytest.raises(RuntimeError) as error:
        _run_setup_cell(monkeypatch, tmp_path, colab=False, missing={"utils"}, git=silent, source=zh_setup)
    assert f"获取课程（{generated.words('zh')['git failed']}）。" in str(error.value)


def test_the_package_needs_what_requirements_txt_lists_for_the_course():
    """pyproject.toml's dependencies (what `pip install -e .` and Colab's set-up install) are requirements.txt's
    `# the course` block, and the package is `utils` with its subpackages."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    start = lines.index("# the course") + 1
    assert project["dependencies"] == lines[start:lines.index("", start)]
    assert sorted(setuptools.find_packages(ROOT, include=["utils", "utils.*"])) == sorted(
        ".".join(path.parent.relative_to(ROOT).parts) for path in (ROOT / "utils").rglob("__init__.py"))


def test_the_setup_cell_is_short():
    assert len(generated.setup_source().splitlines()) <= 26


@pytest.mark.parametrize("edition", ["en", "zh"])
def test_the_setup_cell_and_every_worked_answer_are_folded_under_a_title(edition):
    """The first screen shows no set-up code, and no answer sits open under its exercise:
    Colab shows a ``cellView: form`` cell as its ``#@title`` line, JupyterLab folds ``source_hidden``."""
    folded = {"setup title": 0, "solution title": 0, "answer title": 0, "measured title": 0, "check title": 0}
    for entry in manifest.NOTEBOOKS:
        nb = generated.read_notebook(entry.in_edition(edition).path)
        body = [cell for cell in nb.cells if cell.get("id") not in generated.GENERATED_IDS]
        setup = nb.cells[generated.setup_position(body) + 1]
        assert setup.get("id") == generated.SETUP_ID, f"{entry.stem}: the set-up cell comes before the parameters cell"
        above = [cell for cell in nb.cells[:nb.cells.index(setup)] if cell.cell_type == "code"]
        assert not [cell.id for cell in above if "utils" in cell.source], "the cells above the set-up need no helpers"
        for cell in nb.cells:
            if cell.get("id") == generated.SETUP_ID:
                kind = "setup title"
            elif generated.SOLUTION_TAG in cell.metadata.get("tags", []):
                kind = "solution title"
            elif generated.ANSWER_TAG in cell.metadata.get("tags", []):  # a lesson prediction's checks
                kind = "answer title"
            elif generated.MEASURED_TAG in cell.metadata.get("tags", []):  # the measured answers, at the end
                kind = "measured title"
                assert cell.metadata["jupyter"]["outputs_hidden"] is True, f"{entry.stem}/{cell.id}: output shows"
            elif generated.CHECK_TAG in cell.metadata.get("tags", []):  # a check the lesson need not read
                kind = "check title"
            else:
                assert "cellView" not in cell.metadata, f"{entry.stem}/{cell.get('id')}: only set-up and answers fold"
                continue
            assert cell.source.split("\n")[0] == generated.TITLE_PREFIX + generated.words(edition)[kind], cell.get("id")
            assert cell.metadata["cellView"] == "form" and cell.metadata["jupyter"]["source_hidden"] is True
            folded[kind] += 1
        expected = {"en": "Set-up: the course is in a folder above; nothing fetched\n",
                    "zh": "环境设置：课程就在上层文件夹中，没有下载任何内容\n"}[edition]
        assert [o.text for o in setup.outputs] == [expected]
    assert folded["setup title"] == len(manifest.NOTEBOOKS) and folded["solution title"] >= len(manifest.NOTEBOOKS)
    assert folded["measured title"] >= len(manifest.NOTEBOOKS) - 2  # every end part: notebooks 4 and 8 have none
    assert folded["check title"] >= 1  # notebook 8's copy check


def test_the_measured_answers_at_the_end_are_tagged_and_nothing_else_is():
    """Every code cell under a "What the ... measured" heading (the answers, stored) is tagged to fold with its
    output, and no other cell is: a learner scrolling past a question meets no printed answer."""
    for entry in manifest.NOTEBOOKS:
        inside, expected, tagged = False, [], []
        for cell in generated.read_notebook(entry.path).cells:
            if cell.cell_type == "markdown" and cell.source.startswith("#"):
                first = cell.source.split("\n")[0]
                inside = first.startswith("### What the") and "measured" in first
            elif inside and cell.cell_type == "code":
                expected.append(cell.id)
            if generated.MEASURED_TAG in cell.metadata.get("tags", []):
                tagged.append(cell.id)
        assert tagged == expected, entry.stem


def test_collapse_replaces_an_old_title_and_keeps_the_code():
    cell = generated.nbformat.v4.new_code_cell("#@title old\nx = 1")
    generated.collapse(generated.collapse(cell, "new"), "newer")
    assert cell.source == "#@title newer\nx = 1"
    assert cell.metadata == {"cellView": "form", "jupyter": {"source_hidden": True}}
