"""Practice copies (`make practice`): outputs cleared, answers stubbed.

That every checker rejects its stub is checked in a kernel by nbval's run of each notebook
(tools/pytest_notebooks.py; the English copies: a translation has the same code, so its stubs
are checked here without one).
"""


import json
import re

import nbformat
import pytest

from tools import manifest, practice
from tools.manifest import NOTEBOOKS, Notebook

CASES = [(entry, edition) for entry in NOTEBOOKS for edition in manifest.available(entry)]
CASE_IDS = [f"{edition.code}-{entry.stem}" for entry, edition in CASES]


def _solutions(nb):
    return [i for i, cell in enumerate(nb.cells) if practice.SOLUTION_TAG in cell.metadata.get("tags", [])]


# --- the stubs ----------------------------------------------------------------------

HINT = "Exercise 3.1: your answer here (see the exercise above), then run its checker cell to check it"
RAISE = f'raise NotImplementedError("{HINT}")'
TITLE = "#@title Worked answer: try the exercise yourself first, then show the code\n"

STUBS = {  # the answer cell (after its title) -> its stub
    "a function keeps its signature and docstring": (
        'import math\n\n\ndef area(r: float) -> float:\n    """Disc area."""\n    ### BEGIN SOLUTION\n'
        "    return math.pi * r * r\n    ### END SOLUTION\n",
        f'import math\n\n\ndef area(r: float) -> float:\n    """Disc area."""\n    {RAISE}\n'),
    "a plain answer is a raise": (
        "### BEGIN SOLUTION\n# why: the comments explain the answer\ntotal = 1024 * 768\n### END SOLUTION",
        RAISE),
    "each region is a raise at its indentation": (
        "### BEGIN SOLUTION\nguess = 2\n### END SOLUTION\n\n\nclass Layer:\n    def forward(self, x):\n"
        "        ### BEGIN SOLUTION\n        return x\n        ### END SOLUTION",
        f"{RAISE}\n\n\nclass Layer:\n    def forward(self, x):\n        {RAISE}"),
}


@pytest.mark.parametrize(("answer", "expected"), STUBS.values(), ids=STUBS)
def test_each_marked_region_becomes_a_raise_that_names_the_exercise(answer, expected):
    stub = practice.stub_source(TITLE + answer, "Exercise 3.1")
    assert stub == expected  # the title line ("Worked answer") goes too
    namespace = {}
    with pytest.raises(NotImplementedError, match=f"^{re.escape(HINT)}$"):
        exec(stub, namespace)  # a plain answer's raise, at once
        namespace["area"](1.0)  # else the function's


def test_chinese_stubs_and_labels():
    stub = practice.stub_source("### BEGIN SOLUTION\ntotal = 1\n### END SOLUTION", "练习 1.2", "zh")
    assert stub == ('raise NotImplementedError("练习 1.2：请在这里写出你的答案（见上面的练习说明），'
                    '然后运行这道练习的检查单元格")')
    cells = [nbformat.v4.new_markdown_cell("**练习 4.2.** 写一个函数"), nbformat.v4.new_code_cell("x = 1")]
    assert practice.exercise_label(cells, 1, "4.9", "zh") == "练习 4.2"


BAD_ANSWERS = {  # the answer cell -> the error, which names the cell
    "x = 1  # no markers": r"^notebooks/01_x.ipynb, cell ex1: no ### BEGIN SOLUTION \.\.\. ### END SOLUTION; expected",
    "### BEGIN SOLUTION\nx = 1": "^notebooks/01_x.ipynb, cell ex1: ### BEGIN SOLUTION without its ### END SOLUTION",
    "### END SOLUTION\nx = 1": r"^notebooks/01_x.ipynb, cell ex1: '### END SOLUTION' out of order; expected each",
    "### BEGIN SOLUTION\n### BEGIN SOLUTION\nx = 1\n### END SOLUTION": r"'### BEGIN SOLUTION' out of order",
}


@pytest.mark.parametrize(("answer", "error"), BAD_ANSWERS.items(),
                         ids=["no markers", "BEGIN without END", "END first", "BEGIN twice"])
def test_an_answer_cell_without_balanced_markers_is_refused_naming_the_notebook_and_cell(answer, error):
    cells = [nbformat.v4.new_markdown_cell("**Exercise 1.1.** Do it."),
             nbformat.v4.new_code_cell(answer, id="ex1", metadata={"tags": ["solution"]})]
    nb = nbformat.v4.new_notebook(cells=cells)
    with pytest.raises(ValueError, match=error):
        practice.practice_notebook(nb, Notebook(1, "01_x", "X"), manifest.ENGLISH, manifest.ROOT / "build" / "practice")


def test_bad_input_is_explained():
    with pytest.raises(ValueError, match=r"no practice texts for language 'fr'; expected one of \['en', 'zh'\]"):
        practice.stub_source("### BEGIN SOLUTION\nx = 1\n### END SOLUTION", "Exercise 1.1", "fr")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    with pytest.raises(ValueError, match="notebooks/01_x.ipynb: no cell is tagged 'solution'"):
        practice.practice_notebook(nb, Notebook(1, "01_x", "X"), manifest.ENGLISH, manifest.ROOT / "build" / "practice")


def test_labels_come_from_the_exercise_text_or_the_position():
    solution = nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["solution"]})
    cells = [nbformat.v4.new_markdown_cell("**Exercise 2.3.** Do it."), nbformat.v4.new_code_cell("y = 0"),
             solution, nbformat.v4.new_markdown_cell("Now another one."), solution]
    assert practice.exercise_label(cells, 2, "2.1") == "Exercise 2.3"
    assert practice.exercise_label(cells, 4, "2.2") == "Exercise 2.2"  # not 2.3 again: that text was the last one's


# --- the copies -----------------------------------------------------------------------


def test_make_practice_writes_one_copy_per_notebook_and_edition(tmp_path):
    (tmp_path / "99_gone.ipynb").write_text("{}")  # a copy of a notebook that left the manifest
    (tmp_path / practice.RECORD).write_text(json.dumps({"99_gone.ipynb": practice._digest("{}")}))
    (tmp_path / "my_notes.ipynb").write_text("{}")  # the learner's own notebook
    written = practice.write_practice(tmp_path)
    expected = {tmp_path / edition.subdir / entry.filename for entry, edition in CASES}
    assert set(written) == expected
    assert {path for path in tmp_path.rglob("*.ipynb")} == expected | {tmp_path / "my_notes.ipynb"}


def test_making_them_again_keeps_a_copy_the_learner_worked_in(tmp_path, capsys):
    practice.write_practice(tmp_path)
    mine = tmp_path / NOTEBOOKS[0].filename
    mine.write_text(mine.read_text(encoding="utf-8").replace("NotImplementedError", "my answer", 1))
    untouched = tmp_path / NOTEBOOKS[1].filename
    untouched.write_text("stale")
    (tmp_path / practice.RECORD).write_text(json.dumps({**json.loads((tmp_path / practice.RECORD).read_text()),
                                                        untouched.name: practice._digest("stale")}))
    assert practice.edited_copies(tmp_path) == [mine]
    work = mine.read_text(encoding="utf-8")
    written = practice.write_practice(tmp_path)
    assert mine not in written and mine.read_text(encoding="utf-8") == work  # the learner's answers stay
    assert untouched in written and untouched.read_text(encoding="utf-8") != "stale"  # an unedited one is renewed
    assert practice.edited_copies(tmp_path) == [mine]  # and it is still theirs next time


def test_a_translation_gets_its_own_practice_copy(bilingual_course, tmp_path):
    written = practice.write_practice(tmp_path)
    zh = tmp_path / "zh" / NOTEBOOKS[0].filename
    assert zh in written and tmp_path / NOTEBOOKS[0].filename in written
    nb = nbformat.read(zh, as_version=4)
    stubs = [nb.cells[i].source for i in _solutions(nb)]
    assert stubs and all(f"练习 {NOTEBOOKS[0].number}." in stub for stub in stubs)
    note = next(cell for cell in nb.cells if cell.id == practice.NOTE_ID)
    assert note.source.startswith("**练习版。**")


@pytest.mark.parametrize(("entry", "edition"), CASES, ids=CASE_IDS)
def test_the_copy_is_current_and_clean(entry, edition):
    """Built from the notebook as it is now (`make practice` writes the same): same cells and ids, no outputs,
    no answers left."""
    original = nbformat.read(edition.path(entry), as_version=4)
    copy = practice.practice_notebook(original, entry, edition, practice.PRACTICE_DIR / edition.subdir)
    nbformat.validate(copy)
    assert [c.id for c in copy.cells if c.id != practice.NOTE_ID] == [c.id for c in original.cells]
    for cell in copy.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    for index in _solutions(original):
        answer, stub = original.cells[index], copy.cells[index + 1]
        assert stub.id == answer.id and "NotImplementedError" in stub.source
        assert answer.metadata["cellView"] == "form", "the notebook folds its answer"
        assert "cellView" not in stub.metadata and "jupyter" not in stub.metadata, "the copy shows its stub"
        compile(stub.source, stub.id, "exec")  # valid Python, in every edition
        marked = re.findall(r"### BEGIN SOLUTION\n(.*?)\n\s*### END SOLUTION", answer.source, re.S)
        written = {line for region in marked for line in region.splitlines() if line.strip()}
        assert marked and not written & set(stub.source.splitlines()), "the worked answer leaked into the stub"
        assert stub.source.count("raise NotImplementedError") == len(marked)
