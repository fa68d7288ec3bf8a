"""tools/pytest_notebooks.py: the notebook that nbval's one run executes, and the checks after it.

The run itself is the `notebooks` tier (`pytest notebooks`); these tests build the notebook
and feed the checks made-up outputs, without a kernel.
"""

import copy
import re

import nbformat
import pytest

from tools import generated, manifest, practice
from tools.pytest_notebooks import (
    PRACTICE_SUFFIX,
    _exercises_end,
    check_practice_section,
    client_notebook,
    course_notebook,
)


@pytest.fixture(scope="module")
def built():
    return {entry.stem: client_notebook(entry) for entry in manifest.NOTEBOOKS}


@pytest.mark.parametrize("entry", manifest.NOTEBOOKS, ids=[entry.stem for entry in manifest.NOTEBOOKS])
def test_the_run_is_the_stored_notebook_with_papermills_cell_and_the_stubs(built, entry):
    nb = built[entry.stem]
    stored = nbformat.read(entry.path, as_version=4)
    ids = [cell.id for cell in nb.cells]
    drills = [cell for cell in nb.cells if cell.id.endswith(PRACTICE_SUFFIX)]
    # every stored cell, in order; papermill's cell after the parameters; the stubs before the answers
    assert [i for i in ids if i != "injected-parameters" and not i.endswith(PRACTICE_SUFFIX)] == \
        [cell.id for cell in stored.cells]
    parameters = next(i for i, cell in enumerate(nb.cells) if "parameters" in cell.metadata.get("tags", []))
    assert ids[parameters + 1] == "injected-parameters"
    assert f'device = "{entry.default_device}"' in nb.cells[parameters + 1].source
    assert nb.cells[parameters + 1].execution_count is not None, "nbval compares papermill's cell: it prints nothing"
    answers = [i for i, cell in enumerate(nb.cells)
               if practice.SOLUTION_TAG in cell.metadata.get("tags", []) and not cell.id.endswith(PRACTICE_SUFFIX)]
    assert answers and ids.index(drills[-1].id) < answers[0]
    for cell in drills:
        if cell.cell_type == "code":
            assert "raises-exception" in cell.metadata.tags and cell.execution_count is None and cell.outputs == []
    stubs = [cell for cell in drills if practice.SOLUTION_TAG in cell.metadata.get("tags", [])]
    assert len(stubs) == len(answers) and all("raise NotImplementedError" in cell.source for cell in stubs)
    # what the stored notebook holds is compared as stored
    for cell in stored.cells:
        if cell.cell_type == "code":
            assert next(c for c in nb.cells if c.id == cell.id).outputs == cell.outputs
    # the same test names in every xdist worker
    assert [cell.id for cell in client_notebook(entry).cells] == ids


def test_only_the_manifests_english_notebooks_are_run_this_way():
    entry = manifest.NOTEBOOKS[0]
    assert course_notebook(entry.path) == entry
    assert course_notebook(entry.zh.path) is None
    assert course_notebook(manifest.ROOT / "elsewhere.ipynb") is None


def _error(ename, evalue):
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[])


def _executed(nb, accepted_stub=False, stub_error=None, checker_error=None):
    """``nb`` with outputs as a run gives them: a stub with a top-level raise raises its hint at once (its checker
    then misses a name), any other stub when its checker calls a function of it. ``stub_error`` and
    ``checker_error`` replace those errors."""
    nb = copy.deepcopy(nb)
    drills = [cell for cell in nb.cells if cell.id.endswith(PRACTICE_SUFFIX) and cell.cell_type == "code"]
    for index, cell in enumerate(drills):
        if practice.SOLUTION_TAG in cell.metadata.tags:
            hint = _error("NotImplementedError", re.search(r'NotImplementedError\("(.*)"\)', cell.source).group(1))
            at_once = re.search(r"^raise ", cell.source, re.M)
            cell.outputs = [stub_error or hint] if at_once else []
            rejected = checker_error or (_error("NameError", "name 'x' is not defined") if at_once else hint)
            after = drills[index + 1] if index + 1 < len(drills) else cell
            if "exercises.check_" not in after.source:  # a prediction: its checker, before the stub, waits for a guess
                rejected = checker_error or nbformat.v4.new_output("stream", name="stdout", text="no guess yet: ...\n")
                after = drills[index - 1]
            after.outputs = [] if accepted_stub else [rejected]
    return nb


def test_the_practice_check_passes_when_each_checker_rejects_its_stub(built):
    for stem in ("00_the_answer", "02_embedding_lookup", "05_initialisation"):  # function stubs, plain, mixed
        check_practice_section(_executed(built[stem]))


WRONG_RUNS = {  # what went wrong -> the check's message
    "a checker accepts its stub": ({"accepted_stub": True}, "accepted the stub"),
    "a stub raises something else": ({"stub_error": _error("NameError", "name 'torch' is not defined")},
                                     "raised NameError"),
    "a stub raises another exercise's hint": ({"stub_error": _error("NotImplementedError", "Exercise 9.9: ...")},
                                              "raised NotImplementedError: Exercise 9.9"),
    "a checker fails before it calls the stub's function": ({"checker_error": _error("TypeError", "no len()")},
                                                            "no len()"),
    "a checker turns the stub's error into a hint": (
        {"checker_error": _error("ExerciseError", "f raised RuntimeError: Exercise 2.1: your answer here. Hint: ...")},
        "answered the stub of .* with ExerciseError"),
}


@pytest.mark.parametrize(("run", "message"), WRONG_RUNS.values(), ids=WRONG_RUNS)
def test_the_practice_check_fails_when_a_stub_or_its_checker_misbehaves(built, run, message):
    with pytest.raises(AssertionError, match=message):
        check_practice_section(_executed(built["02_embedding_lookup"], **run))


def test_the_practice_check_wants_the_stub_of_the_practice_copy(built):
    nb = _executed(built["02_embedding_lookup"])
    stub = next(cell for cell in nb.cells if cell.id.endswith(PRACTICE_SUFFIX) and "solution" in cell.metadata.tags)
    stub.source = "x = 1"
    with pytest.raises(AssertionError, match=r"expected a stub that raises NotImplementedError\(\"Exercise N\.M"):
        check_practice_section(nb)


def test_the_drills_stop_at_going_deeper():
    """A part after the exercises that the lesson never needs runs once, after the worked answers, not as a drill."""
    cells = [nbformat.v4.new_markdown_cell("## Exercises\n\n**Exercise 1.1.** ..."), nbformat.v4.new_code_cell("x = 1"),
             nbformat.v4.new_markdown_cell("## Going deeper\n\nMore."), nbformat.v4.new_code_cell("y = x"),
             nbformat.v4.new_markdown_cell("footer")]
    cells[-1].id = generated.FOOTER_ID
    nb = nbformat.v4.new_notebook(cells=cells)
    assert _exercises_end(nb, 0) == 2
    del nb.cells[2:4]
    assert _exercises_end(nb, 0) == 2  # no Going deeper: the footer
