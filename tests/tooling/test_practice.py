"""Practice copies (`make practice`): outputs cleared, worked answers left out.

That each answer cell, run as given, gets one "not answered yet" line from its checker is checked in a
kernel by nbval's run of each notebook (the stored outputs of the worked notebook, which holds the same cells).
"""


import json
import re

import nbformat
import pytest

from tools import catalogs, cli, manifest, practice
from tools.generated import SOLUTION_MARKER, read_notebook
from tools.manifest import NOTEBOOKS, Notebook

CASES = [(entry, edition) for entry in NOTEBOOKS for edition in manifest.available(entry)]
CASE_IDS = [f"{edition.code}-{entry.stem}" for entry, edition in CASES]


def _solutions(nb):
    return [i for i, cell in enumerate(nb.cells) if practice.SOLUTION_TAG in cell.metadata.get("tags", [])]


def test_bad_input_is_explained():
    with pytest.raises(ValueError, match=r"no edition 'fr'; the course has \['en', 'zh'\]"):
        catalogs.interface_text(practice.TEXT, "fr")  # the practice note of a language the course does not have
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    with pytest.raises(ValueError, match="notebooks/01_x.ipynb: no cell is tagged 'solution'"):
        practice.practice_notebook(nb, Notebook(1, "01_x", "X"), manifest.ENGLISH, manifest.ROOT / "build" / "practice")


@pytest.mark.parametrize(("entry", "edition"), CASES, ids=CASE_IDS)
def test_each_worked_answer_keeps_nbgraders_markers(entry, edition):
    """An instructor runs nbgrader's generate_assignment on the worked answers: each has its lines between
    ``### BEGIN SOLUTION`` and ``### END SOLUTION``, balanced."""
    nb = nbformat.read(edition.path(entry), as_version=4)
    for index in _solutions(nb):
        cell = nb.cells[index]
        markers = [m.group(1) for line in cell.source.splitlines() if (m := SOLUTION_MARKER.fullmatch(line.strip()))]
        assert markers and markers == ["BEGIN", "END"] * (len(markers) // 2), f"cell {cell.id}: markers {markers}"


# --- the copies -----------------------------------------------------------------------


def test_make_practice_writes_one_copy_per_notebook_and_edition(tmp_path):
    (tmp_path / "99_gone.ipynb").write_text("{}")  # a copy of a notebook that left the manifest
    (tmp_path / practice.RECORD).write_text(json.dumps({"99_gone.ipynb": cli.digest("{}")}))
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
                                                        untouched.name: cli.digest("stale")}))
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
    assert not _solutions(nb)
    note = next(cell for cell in nb.cells if cell.id == practice.NOTE_ID)
    assert note.source.startswith("**练习版。**")


@pytest.mark.parametrize(("entry", "edition"), CASES, ids=CASE_IDS)
def test_the_copy_is_current_and_clean(entry, edition):
    """Built from the notebook as it is now (`make practice` writes the same): its cells but the worked answers,
    no outputs; each exercise keeps its answer cell (a stub or a None guess) and the checker under it."""
    original = nbformat.read(edition.path(entry), as_version=4)
    copy = practice.practice_notebook(original, entry, edition, practice.PRACTICE_DIR / edition.subdir)
    nbformat.validate(copy)
    solutions = _solutions(original)
    assert [c.id for c in copy.cells if c.id != practice.NOTE_ID] == [
        c.id for i, c in enumerate(original.cells) if i not in solutions]
    for cell in copy.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    code = "\n".join(cell.source for cell in copy.cells if cell.cell_type == "code")
    assert "### BEGIN SOLUTION" not in code, "a worked answer is left in the copy"
    for index in solutions:  # the worked answer's checker is the learner's too, in a cell of its own above it
        checks = re.findall(r"exercises\.check_\w+", original.cells[index].source)
        assert checks, f"cell {original.cells[index].id}: the worked answer ends by running its checker"
        assert all(check in code for check in checks), f"cell {original.cells[index].id}: its checker has no cell"


def test_a_practice_copys_language_link_leads_to_the_other_practice_copy(tmp_path):
    """The copies of both editions lie as the notebooks do (zh/ beside the English): switching language from a
    practice copy must land in the other practice copy, not in a notebook with the worked answers."""
    entry = NOTEBOOKS[1]
    english = practice.practice_notebook(read_notebook(entry.path), entry, manifest.ENGLISH, tmp_path)
    chinese = practice.practice_notebook(read_notebook(entry.zh.path), entry, manifest.CHINESE, tmp_path / "zh")
    assert f"](zh/{entry.filename})" in english.cells[0].source
    assert f"](../{entry.filename})" in chinese.cells[0].source
