"""Practice copies of the notebooks: ``python3 course.py practice`` (``make practice``).

For every notebook of every edition it writes a copy to ``build/practice/`` (the
Chinese edition to ``build/practice/zh/``) with all outputs cleared and each exercise's
answer cell (tagged ``solution``) turned into a stub: the lines between nbgrader's markers
``### BEGIN SOLUTION`` and ``### END SOLUTION`` become one ``raise NotImplementedError`` with a hint
naming the exercise, so a function answer keeps its signature and docstring. The checker cell after
each stub is left as it is: it rejects the stub until the learner replaces it. Made again, it keeps a copy
the learner has worked in. ``--branch FOLDER`` writes the practice branch's tree instead, which the
site's workflow pushes for learners who never clone (Colab opens the copies there).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
from pathlib import Path

import nbformat

from . import manifest
from .generated import HEADER_ID, SOLUTION_MARKER, SOLUTION_TAG, TITLE_LINE, dumps_notebook, read_notebook
from .links import HTML_TARGET, MD_TARGET, rebase_link, rebase_links, stays
from .manifest import Edition, Notebook, available

PRACTICE_DIR = manifest.ROOT / "build" / "practice"
NOTE_ID = "practice-note"

TEXT = {
    "en": {
        "label": "Exercise {number}",
        "hint": "{label}: your answer here (see the exercise above), then run its checker cell to check it",
        "note": "**Practice copy.** The answer cell of each exercise is replaced by a stub that raises "
                "`NotImplementedError`: write your own answer in its place, then run the exercise's checker cell "
                "(`exercises.check_...`; for a prediction, record your guess where it says `None` first). "
                "The notebook with worked answers is [{name}]({link}).",
    },
    "zh": {
        "label": "练习 {number}",
        "hint": "{label}：请在这里写出你的答案（见上面的练习说明），然后运行这道练习的检查单元格",
        "note": "**练习版。** 每道练习的答案单元格都换成了会抛出 `NotImplementedError` 的占位代码："
                "请在原处写下你自己的答案，然后运行这道练习的检查单元格"
                "（`exercises.check_...`；预测题先把猜测填进写着 `None` 的地方）。"
                "附有参考答案的笔记本是 [{name}]({link})。",
    },
}
_LABEL = re.compile(r"\*\*(?:Exercise|练习)\s*(\d+(?:\.\d+)*)")


def _text(lang: str) -> dict:
    if lang not in TEXT:
        raise ValueError(f"no practice texts for language {lang!r}; expected one of {sorted(TEXT)}")
    return TEXT[lang]


def stub_source(solution: str, label: str, lang: str = "en", where: str = "the answer cell") -> str:
    """The stub that replaces an answer cell: each region between ``### BEGIN SOLUTION`` and ``### END SOLUTION``
    becomes ``raise NotImplementedError(hint)`` at the marker's indentation, ``label`` (``"Exercise 1.2"``)
    leading the hint; the rest stays but for the ``#@title`` line (the stub is not a worked answer).
    ``where`` names the cell in the errors: a cell without markers, or with markers out of order."""
    hint = json.dumps(_text(lang)["hint"].format(label=label), ensure_ascii=False)  # JSON's escapes are Python's
    lines = solution.split("\n")
    stub, inside, regions = [], False, 0
    for line in lines[bool(TITLE_LINE.match(lines[0])):]:  # the title says "Worked answer"
        marker = SOLUTION_MARKER.fullmatch(line.strip())
        if marker is None:
            if not inside:
                stub.append(line)
            continue
        begins = marker.group(1) == "BEGIN"
        if begins == inside:
            raise ValueError(f"{where}: {line.strip()!r} out of order; "
                             "expected each ### BEGIN SOLUTION to be closed by an ### END SOLUTION")
        inside = begins
        if begins:
            regions += 1
            stub.append(line[:len(line) - len(line.lstrip())] + f"raise NotImplementedError({hint})")
    if inside:
        raise ValueError(f"{where}: ### BEGIN SOLUTION without its ### END SOLUTION")
    if not regions:
        raise ValueError(f"{where}: no ### BEGIN SOLUTION ... ### END SOLUTION; "
                         "expected the lines a learner writes between them")
    return "\n".join(stub)


def exercise_label(cells: list, index: int, fallback: str, lang: str = "en") -> str:
    """``Exercise 1.2``: from the nearest markdown cell above ``cells[index]`` that names one."""
    for cell in reversed(cells[:index]):
        if SOLUTION_TAG in cell.metadata.get("tags", []):
            break  # the previous exercise: this one's text had no label
        if cell.cell_type == "markdown" and _LABEL.search(cell.source):
            return _text(lang)["label"].format(number=_LABEL.findall(cell.source)[-1])
    return _text(lang)["label"].format(number=fallback)


def published_links(source: str, folder: Path) -> str:
    """A markdown cell's relative links (written for a page in ``folder``) as addresses in the repository
    on GitHub, for a copy that leaves it; links to sibling notebooks stay (the copies are siblings too)."""
    def absolute(match: re.Match) -> str:
        if stays(match.group(2)):
            return match.group(0)
        path, hash_sign, fragment = rebase_link(match.group(2), folder, manifest.ROOT).partition("#")
        return match.group(1) + manifest.blob_url(path) + hash_sign + fragment

    return HTML_TARGET.sub(absolute, MD_TARGET.sub(absolute, source))


def practice_notebook(nb_node: nbformat.NotebookNode, entry: Notebook, edition: Edition,
                      out_folder: Path, published: bool = False) -> nbformat.NotebookNode:
    """A practice copy of one notebook (a new node; ``nb_node`` is not changed).

    ``published``: for a copy that leaves the repository (the web site, the practice branch that
    Colab opens): its links point into the repository on GitHub instead of to files beside it."""
    practice, solutions = copy.deepcopy(nb_node), 0
    for index, cell in enumerate(practice.cells):
        if cell.cell_type == "markdown":
            cell.source = (published_links(cell.source, edition.folder) if published
                           else rebase_links(cell.source, edition.folder, out_folder))
            continue
        cell.outputs, cell.execution_count = [], None
        cell.metadata.pop("execution", None)
        if SOLUTION_TAG in cell.metadata.get("tags", []):
            solutions += 1
            label = exercise_label(practice.cells, index, f"{entry.number}.{solutions}", edition.code)
            cell.source = stub_source(cell.source, label, edition.code,
                                      where=f"{edition.repo_path(entry)}, cell {cell.get('id')}")
            cell.metadata.pop("cellView", None)  # the stub is for writing in: not folded
            if cell.metadata.get("jupyter", {}).pop("source_hidden", None) and not cell.metadata["jupyter"]:
                del cell.metadata["jupyter"]
    if solutions == 0:
        raise ValueError(f"{edition.repo_path(entry)}: no cell is tagged {SOLUTION_TAG!r}; "
                         "expected one answer cell per exercise")
    link = (manifest.blob_url(edition.repo_path(entry)) if published
            else Path(os.path.relpath(edition.path(entry), out_folder)).as_posix())
    note = nbformat.v4.new_markdown_cell(_text(edition.code)["note"].format(name=edition.repo_path(entry), link=link))
    note.id = NOTE_ID
    after = next((i + 1 for i, cell in enumerate(practice.cells) if cell.get("id") == HEADER_ID), 0)
    practice.cells.insert(after, note)
    return practice


#: In a folder of practice copies: what was written to each, so that a copy the learner has since
#: worked in is kept (never overwritten, never removed) when the copies are made again.
RECORD = ".written.json"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _record(out_dir: Path) -> dict[str, str]:
    return json.loads((out_dir / RECORD).read_text(encoding="utf-8")) if (out_dir / RECORD).is_file() else {}


def edited_copies(out_dir: Path) -> list[Path]:
    """The copies in ``out_dir`` that differ from what was written there: the learner's work."""
    return [out_dir / name for name, digest in _record(out_dir).items()
            if (out_dir / name).is_file() and _digest((out_dir / name).read_text(encoding="utf-8")) != digest]


def write_practice(out_dir: Path = PRACTICE_DIR, published: bool = False) -> list[Path]:
    """Write the practice copy of every notebook of every edition; returns the paths written.

    A copy the learner has worked in since it was written stays as it is (see :func:`edited_copies`),
    and so does any other notebook of theirs in the folder. ``published``: copies for the web site
    and the practice branch (see :func:`practice_notebook`), which nobody edits: nothing is recorded."""
    keep, old_record, record, written = set(edited_copies(out_dir)), _record(out_dir), {}, []
    for entry in manifest.NOTEBOOKS:
        for edition in available(entry):
            target = out_dir / edition.subdir / entry.filename
            name = target.relative_to(out_dir).as_posix()
            if target in keep:
                record[name] = old_record[name]
                continue
            copy_ = practice_notebook(read_notebook(edition.path(entry)), entry, edition, target.parent, published)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text := dumps_notebook(copy_), encoding="utf-8")
            record[name] = _digest(text)
            written.append(target)
    gone = set(out_dir.rglob("*.ipynb")) if published else {out_dir / name for name in set(old_record) - set(record)}
    for stale in gone - set(written) - keep:  # copies of notebooks that are gone, unless worked in
        stale.unlink(missing_ok=True)
    if not published:
        (out_dir / RECORD).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return written


def write_branch(folder: Path) -> list[Path]:
    """The tree of the practice branch (``manifest.PRACTICE_REF``) in ``folder``: every published copy at its
    notebook's path, so that Colab opens it at ``Notebook.practice_colab_url``, and a README. The site's
    workflow (.github/workflows/pages.yml) pushes it as the branch's one commit. Returns the files written."""
    written = write_practice(folder / manifest.ENGLISH.repo_dir, published=True)
    rows = "\n".join(f"- [{entry.number}. {entry.title}]({entry.practice_colab_url}) · "
                     f"[{entry.zh.display_title}]({entry.zh.practice_colab_url})" for entry in manifest.NOTEBOOKS)
    readme = folder / "README.md"
    readme.write_text(f"""\
# Practice copies of the course

This branch is generated from `{manifest.REPO_REF}` by the site's workflow on every push; do not edit it.
Each notebook here is a practice copy: outputs cleared, and each exercise's answer replaced by a
stub for you to write. Open one in Colab:

{rows}

The course itself, with the worked answers: {manifest.repo_url()}. Its web site: {manifest.site_url()}.
""", encoding="utf-8")
    return [*written, readme]
