"""tools/pytest_notebooks.py: the notebook that nbval's one run executes, and the checks after it.

The run itself is the `notebooks` tier (`pytest notebooks`); these tests build the notebook
and feed the checks made-up outputs, without a kernel.
"""

import copy
import re

import nbformat
import pytest

from tools import manifest, practice
from tools.pytest_notebooks import (
    NOT_ANSWERED,
    check_practice_section,
    client_notebook,
    course_notebook,
)


@pytest.fixture(scope="module")
def built():
    return {entry.stem: client_notebook(entry) for entry in manifest.NOTEBOOKS}


@pytest.mark.parametrize("entry", manifest.NOTEBOOKS, ids=[entry.stem for entry in manifest.NOTEBOOKS])
def test_the_run_is_the_stored_notebook_with_papermills_cell(built, entry):
    nb = built[entry.stem]
    stored = nbformat.read(entry.path, as_version=4)
    ids = [cell.id for cell in nb.cells]
    # every stored cell, in order; papermill's cell after the parameters
    assert [i for i in ids if i != "injected-parameters"] == [cell.id for cell in stored.cells]
    parameters = next(i for i, cell in enumerate(nb.cells) if "parameters" in cell.metadata.get("tags", []))
    assert ids[parameters + 1] == "injected-parameters"
    assert f'device = "{entry.default_device}"' in nb.cells[parameters + 1].source
    assert nb.cells[parameters + 1].execution_count is not None, "nbval compares papermill's cell: it prints nothing"
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


def _stream(text):
    return nbformat.v4.new_output("stream", name="stdout", text=text)


def _executed(nb, learners=None):
    """``nb`` with outputs as a run gives them: each checker cell of the learner's says the exercise is not
    answered yet (or gives ``learners``'s output instead)."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if (cell.cell_type == "code" and "exercises.check_" in cell.source
                and practice.SOLUTION_TAG not in cell.metadata.tags):
            cell.outputs = [learners or _stream(f"{NOT_ANSWERED}write f in the cell above, then run this cell again\n")]
    return nb


def test_the_practice_check_passes_when_each_checker_says_not_answered_yet(built):
    for stem in ("00_the_answer", "02_embedding_lookup", "05_initialisation"):  # functions, predictions, both
        check_practice_section(_executed(built[stem]))


WRONG_RUNS = {  # what the learner's checker cell did -> the check's message
    "it raised on the stub": (_error("NotImplementedError", "Exercise 2.1: your code here"),
                              "raised NotImplementedError on an answer not written yet"),
    "it judged the stub": (_error("ExerciseError", "mean_of_real_tokens returned None"), "raised ExerciseError"),
    "it printed a verdict": (_stream("correct: mean_of_real_tokens matched\n"), r"printed \['correct: "),
    "it printed two lines": (_stream(f"{NOT_ANSWERED}write f\n{NOT_ANSWERED}write g\n"), "instead of one line"),
}


@pytest.mark.parametrize(("output", "message"), WRONG_RUNS.values(), ids=WRONG_RUNS)
def test_the_practice_check_fails_when_a_checker_misbehaves_before_an_answer(built, output, message):
    with pytest.raises(AssertionError, match=message):
        check_practice_section(_executed(built["02_embedding_lookup"], learners=output))


def test_the_practice_check_wants_each_worked_answer_to_run_its_checker(built):
    nb = _executed(built["02_embedding_lookup"])
    worked = next(cell for cell in nb.cells if practice.SOLUTION_TAG in cell.metadata.tags)
    worked.source = re.sub(r"\n\nexercises\.check_.*", "", worked.source, flags=re.S)
    with pytest.raises(AssertionError, match=f"the worked answer {worked.id} runs no checker"):
        check_practice_section(nb)
