"""The set-up cell that `make sync` writes into every notebook, run here with its side effects recorded.

nbval's run of each notebook (tools/pytest_notebooks.py) runs it for real, in a kernel, in an empty folder.
"""

import subprocess
import sys
import types

import pytest

from tools import course, generated
from tools.course import ROOT

FOLDER = course.REPO_NAME


def _run_setup_cell(monkeypatch, cwd, *, colab, missing=(), git=None):
    """Execute the set-up cell's source here, with subprocess.run recorded instead of run.

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
    exec(compile(generated.setup_source(), "<set-up cell>", "exec"), namespace)
    return namespace, calls


def test_in_a_clone_the_setup_cell_fetches_and_installs_nothing(monkeypatch, capsys):
    namespace, calls = _run_setup_cell(monkeypatch, course.NOTEBOOK_DIR, colab=False, missing={"tqdm"})
    assert capsys.readouterr().out == "Set-up: the course is in a folder above; nothing fetched\n"
    assert calls == []
    assert namespace["COURSE_ROOT"] == ROOT
    assert str(ROOT) in sys.path


def test_on_colab_the_setup_cell_installs_only_what_is_missing(monkeypatch, capsys):
    namespace, calls = _run_setup_cell(monkeypatch, course.NOTEBOOK_DIR, colab=True)
    assert namespace["on_colab"] is True and calls == []  # everything present: no pip

    namespace, calls = _run_setup_cell(monkeypatch, course.NOTEBOOK_DIR, colab=True, missing={"tqdm", "numpy"})
    assert calls == [[sys.executable, "-m", "pip", "install", "--quiet", "numpy>=1.24", "tqdm>=4.65"]]
    assert capsys.readouterr().out.splitlines()[-1] == (
        "Set-up: the course is in a folder above; nothing fetched; pip-installed numpy>=1.24, tqdm>=4.65")


def test_elsewhere_the_setup_cell_clones_the_manifest_address_at_the_pinned_ref(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv(generated.REPO_OVERRIDE_ENV, raising=False)
    namespace, calls = _run_setup_cell(monkeypatch, tmp_path, colab=False)
    target = str(tmp_path / FOLDER)
    assert calls == [["git", "clone", "--quiet", "--depth=1", f"--branch={course.REPO_REF}", course.repo_url(), target]]
    assert sys.path[0] == target
    assert capsys.readouterr().out == f"Set-up: fetched the course into ./{FOLDER}\n"  # no absolute path

    monkeypatch.setenv(generated.REPO_OVERRIDE_ENV, "file:///somewhere/else")
    namespace, calls = _run_setup_cell(monkeypatch, tmp_path, colab=False)
    assert calls[0][-2] == "file:///somewhere/else"


def test_offline_the_setup_cell_says_what_to_do_in_one_line(monkeypatch, tmp_path):
    """No network: git's last line and COURSE_REPO, not a CalledProcessError's traceback."""
    monkeypatch.delenv(generated.REPO_OVERRIDE_ENV, raising=False)
    stderr = "Cloning...\nfatal: unable to access 'https://x/': Could not resolve host: github.com\n"
    offline = lambda args: subprocess.CompletedProcess(args, 128, "", stderr)  # noqa: E731
    with pytest.raises(RuntimeError) as error:
        _run_setup_cell(monkeypatch, tmp_path, colab=False, git=offline)
    message = str(error.value)
    assert message.startswith(f"the set-up could not fetch the course from {course.repo_url()} (fatal: unable to "
                              "access 'https://x/': Could not resolve host: github.com). Open this notebook")
    assert f"set COURSE_REPO to a copy of it before starting Jupyter, e.g. COURSE_REPO=file:///path/to/{FOLDER}" \
        in message and "\n" not in message

    def no_git(args):
        raise FileNotFoundError("git")

    with pytest.raises(RuntimeError, match=r"\(git is not installed\)\. Open this notebook from a clone"):
        _run_setup_cell(monkeypatch, tmp_path, colab=False, git=no_git)


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


@pytest.mark.parametrize("edition", ["en", "zh"])
def test_the_setup_cell_and_every_worked_answer_are_folded_under_a_title(edition):
    """The first screen shows no set-up code, and no answer sits open under its exercise:
    Colab shows a ``cellView: form`` cell as its ``#@title`` line, JupyterLab folds ``source_hidden``."""
    folded = {"setup title": 0, "solution title": 0}
    for entry in course.NOTEBOOKS:
        nb = generated.read_notebook(entry.in_edition(edition).path)
        setup = next(cell for cell in nb.cells if cell.cell_type == "code")
        assert setup.get("id") == generated.SETUP_ID, f"{entry.stem}: the set-up cell is the first code cell"
        for cell in nb.cells:
            if cell.get("id") == generated.SETUP_ID:
                kind = "setup title"
            elif generated.SOLUTION_TAG in cell.metadata.get("tags", []):
                kind = "solution title"
            else:
                assert "cellView" not in cell.metadata, f"{entry.stem}/{cell.get('id')}: only set-up and answers fold"
                continue
            assert cell.source.split("\n")[0] == generated.TITLE_PREFIX + generated.WORDS[edition][kind], cell.get("id")
            assert cell.metadata["cellView"] == "form" and cell.metadata["jupyter"]["source_hidden"] is True
            folded[kind] += 1
        assert [o.text for o in setup.outputs] == ["Set-up: the course is in a folder above; nothing fetched\n"]
    assert folded["setup title"] == len(course.NOTEBOOKS) and folded["solution title"] >= len(course.NOTEBOOKS)


def test_collapse_replaces_an_old_title_and_keeps_the_code():
    cell = generated.nbformat.v4.new_code_cell("#@title old\nx = 1")
    generated.collapse(generated.collapse(cell, "new"), "newer")
    assert cell.source == "#@title newer\nx = 1"
    assert cell.metadata == {"cellView": "form", "jupyter": {"source_hidden": True}}
