"""INSTRUCTORS.md, the page for instructors: its links resolve, its reading times and exercise counts are the
notebooks', its session plans fit those times, its nbgrader script gives the cells the metadata it describes,
and its BibTeX entry is CITATION.cff's."""

import re
import runpy

import nbformat
import pytest
import yaml

from tools import generated, manifest
from tools.manifest import NOTEBOOKS, ROOT

PAGE = ROOT / generated.INSTRUCTORS
TEXT = PAGE.read_text(encoding="utf-8")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """A heading's anchor, as GitHub makes it: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_relative_link_reaches_a_file_and_its_heading():
    links = [link for link in LINK.findall(TEXT) if "://" not in link]
    assert len(links) >= 20, links
    for link in links:
        path, _, anchor = link.partition("#")
        target = ROOT / path if path else PAGE
        assert target.exists(), f"INSTRUCTORS.md: {link} reaches no file"
        if anchor and target.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", target.read_text(encoding="utf-8"), re.M)
            assert anchor in {_slug(heading) for heading in headings}, f"INSTRUCTORS.md: {link}: no such heading"
    for name in ("README.md", "README.zh.md"):  # the READMEs link the page, and its BibTeX
        readme = (ROOT / name).read_text(encoding="utf-8")
        assert "](INSTRUCTORS.md)" in readme and "](INSTRUCTORS.md#citing-the-course)" in readme, name


def _exercises(entry) -> int:
    cells = generated.read_notebook(entry.path).cells
    text = "\n".join(cell.source for cell in cells if cell.cell_type == "markdown")
    return len(set(re.findall(r"\*\*Exercise (\d+\.\d+)", text)))


def test_the_table_of_notebooks_gives_each_ones_reading_time_and_exercises():
    rows = re.findall(r"^\| (\d+) \| \[[^\]]+\]\(([^)]+)\) \| [^|]+ \| (\d+) \+ (\d+) min \| (\d+) \|$", TEXT, re.M)
    assert [int(number) for number, *_ in rows] == [entry.number for entry in NOTEBOOKS]
    for (_, link, lesson, deeper, exercises), entry in zip(rows, NOTEBOOKS, strict=True):
        assert link == entry.repo_path
        assert (int(lesson), int(deeper)) == generated.reading_minutes(entry.path), entry.stem
        assert int(exercises) == _exercises(entry), entry.stem


def _plans():
    """Each session plan: (its length in minutes, [(start, end, the row's text)])."""
    plans = []
    for title, table in re.findall(r"^\*\*(.+?)\*\*\n\n\| Minutes \| What \|\n\| --- \| --- \|\n((?:\|.*\|\n)+)",
                                   TEXT, re.M):
        rows = [(int(start), int(end), what) for start, end, what in re.findall(r"^\| (\d+)–(\d+) \| (.+) \|$",
                                                                                  table, re.M)]
        plans.append((title, rows))
    return plans


def test_the_session_plans_fill_their_time_and_give_each_notebook_its_reading_time():
    plans, timed = _plans(), 0
    assert [title.split(":")[0] for title, _ in plans] == ["50 minutes", "90 minutes", "A second 90 minutes"]
    for title, rows in plans:
        length = int(re.search(r"(\d+) minutes", title).group(1))
        assert rows[0][0] == 0 and rows[-1][1] == length, title
        assert [end for _, end, _ in rows[:-1]] == [start for start, _, _ in rows[1:]], title
        for start, end, what in rows:
            notebook = re.search(r"\(notebooks/(\d\d)_[^)]*\.ipynb\) \((\d+) min to read\)", what)
            if notebook:
                lesson = generated.reading_minutes(manifest.notebook(int(notebook.group(1))).path)[0]
                assert int(notebook.group(2)) == lesson and lesson <= end - start, (title, what)
                timed += 1
    assert timed == 7  # the notebooks the three plans read in class


def _nbgrader_script(tmp_path):
    script = re.search(r"```python\n(# nbgrader_cells\.py.*?)```", TEXT, re.S).group(1)
    path = tmp_path / "nbgrader_cells.py"
    path.write_text(script, encoding="utf-8")
    return path


def _is_checker(cell) -> bool:
    return cell.cell_type == "code" and "exercises.check_" in cell.source


@pytest.mark.parametrize("entry", [manifest.notebook(1), manifest.notebook(3)], ids=lambda entry: entry.stem)
def test_the_nbgrader_script_gives_the_cells_nbgraders_metadata(tmp_path, monkeypatch, entry):
    """What `nbgrader generate_assignment` needs (tried by hand: INSTRUCTORS.md says what it gave): every
    solution cell that the learner writes in is an unfolded nbgrader solution cell that keeps its markers, every
    checker a locked test worth a point, a worked answer after its checker left out, each grade_id once."""
    copy = tmp_path / entry.filename
    copy.write_text(entry.path.read_text(encoding="utf-8"), encoding="utf-8")
    script = _nbgrader_script(tmp_path)
    monkeypatch.setattr("sys.argv", [str(script), str(copy)])
    runpy.run_path(str(script), run_name="__main__")  # as `python nbgrader_cells.py copy.ipynb`, in this process
    before, after = generated.read_notebook(entry.path).cells, nbformat.read(copy, as_version=4).cells
    code = [cell for cell in before if cell.cell_type == "code"]
    after_checker = {cell.id for i, cell in enumerate(code) if i and _is_checker(code[i - 1])}
    kept = [cell for cell in before
            if not (generated.SOLUTION_TAG in cell.metadata.get("tags", []) and cell.id in after_checker)]
    assert [cell.id for cell in after] == [cell.id for cell in kept]
    graded = [cell for cell in after if cell.metadata.get("nbgrader")]
    assert len({cell.metadata.nbgrader["grade_id"] for cell in graded}) == len(graded)
    for cell in after:
        marks = cell.metadata.get("nbgrader")
        if generated.SOLUTION_TAG in cell.metadata.get("tags", []):
            assert marks == {"grade_id": cell.id, "solution": True, "grade": False, "locked": False,
                             "schema_version": 3}
            assert generated.SOLUTION_MARKER.search(cell.source) and not generated.TITLE_LINE.match(cell.source)
            assert "source_hidden" not in cell.metadata.get("jupyter", {}) and "cellView" not in cell.metadata
        elif _is_checker(cell):
            assert marks == {"grade_id": cell.id, "solution": False, "grade": True, "locked": True, "points": 1,
                             "schema_version": 3}
        else:
            assert marks is None
    assert [cell for cell in graded if _is_checker(cell)], "no checker became a test"


def test_the_bibtex_entry_is_written_from_the_citation_file():
    cff = yaml.safe_load((ROOT / generated.CITATION).read_text(encoding="utf-8"))
    block = generated.BIBTEX.pattern.search(TEXT).group(1)
    assert block == generated.bibtex((ROOT / generated.CITATION).read_text(encoding="utf-8"))
    for value in (cff["title"], cff["version"], manifest.repo_url(), str(cff["date-released"])[:4]):
        assert f"{{{value}}}" in block, value
    owner, name = manifest.REPO_SLUG.split("/")  # the address is the entry's alone (tests/tooling/test_publish.py)
    assert not re.search(rf"{owner}(/|\.github\.io/){name}", generated.BIBTEX.pattern.sub("", TEXT))
    people = "authors:\n  - family-names: Lovelace\n    given-names: Ada\n  - name: A Lab\n"
    entry = generated.bibtex(f"title: T\nversion: 1.0.0\ndate-released: 2026-01-02\nrepository-code: u\n{people}")
    assert "  author  = {Lovelace, Ada and {A Lab}}," in entry.splitlines()
    with pytest.raises(ValueError, match="INSTRUCTORS.md has no BibTeX markers"):
        generated.BIBTEX.fill("# For instructors\n", generated.bibtex((ROOT / generated.CITATION).read_text(
            encoding="utf-8")), generated.INSTRUCTORS)
