"""Practice copies of the notebooks: ``python3 course.py practice``. A copy of every notebook of every edition in
``build/practice/`` (the Chinese in ``zh/``), its outputs cleared and its worked answers (``solution`` cells) left
out: of each exercise the learner keeps the answer cell (a stub that raises ``NotImplementedError``, or a guess that
is ``None``) and the checker cell under it. Made again, it keeps a copy the learner has worked in. ``--branch
FOLDER`` writes the practice branch's tree instead, which the site's workflow pushes (Colab opens the copies there).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat

from utils.language import N_

from . import manifest
from .catalogs import interface_text
from .cli import digest  # the course's one digest
from .generated import HEADER_ID, SOLUTION_TAG, TEMPLATE_FILES, dumps_notebook, is_worked_answer, read_notebook
from .links import rebase_link, rebase_links
from .manifest import Edition, Notebook, available

PRACTICE_DIR = manifest.ROOT / "build" / "practice"
NOTE_ID = "practice-note"

#: the note at the top of a practice copy, in English (the interface catalog holds its translations)
TEXT = N_("**Practice copy.** The notebook without its worked answers. Under each exercise, put your answer where the "
          "cell raises `NotImplementedError` or holds `None`, then run the checker cell below it. The notebook with "
          "worked answers is [{name}]({link}).")


def practice_notebook(nb_node: nbformat.NotebookNode, entry: Notebook, edition: Edition,
                      out_folder: Path, published: bool = False) -> nbformat.NotebookNode:
    """A practice copy of one notebook (a new node). ``published``: for a copy that leaves the repository (the web
    site, the practice branch that Colab opens): its links point into the repository on GitHub."""
    practice = copy.deepcopy(nb_node)
    if not any(is_worked_answer(cell) for cell in practice.cells):
        raise ValueError(f"{edition.repo_path(entry)}: no cell is tagged {SOLUTION_TAG!r}; "
                         "expected one worked answer per exercise")
    practice.cells = [cell for cell in practice.cells if not is_worked_answer(cell)]
    for cell in practice.cells:
        if cell.cell_type == "markdown":
            cell.source = rebase_links(cell.source, edition.folder, None if published else out_folder)
        else:
            cell.outputs, cell.execution_count = [], None
            cell.metadata.pop("execution", None)
    link = rebase_link(entry.filename, edition.folder, None if published else out_folder, siblings_stay=False)
    note = nbformat.v4.new_markdown_cell(interface_text(TEXT, edition.code).format(name=edition.repo_path(entry),
                                                                                    link=link), id=NOTE_ID)
    after = next((i + 1 for i, cell in enumerate(practice.cells) if cell.get("id") == HEADER_ID), 0)
    practice.cells.insert(after, note)
    return practice


#: what was written to each copy of a folder, so that one the learner has since worked in is kept (never overwritten,
#: never removed) when the copies are made again
RECORD = ".written.json"


def _record(out_dir: Path) -> dict[str, str]:
    return json.loads((out_dir / RECORD).read_text(encoding="utf-8")) if (out_dir / RECORD).is_file() else {}


def edited_copies(out_dir: Path) -> list[Path]:
    """The copies in ``out_dir`` that differ from what was written there: the learner's work."""
    return [out_dir / name for name, recorded in _record(out_dir).items()
            if (out_dir / name).is_file() and digest((out_dir / name).read_text(encoding="utf-8")) != recorded]


def write_practice(out_dir: Path = PRACTICE_DIR, published: bool = False, codes: tuple[str, ...] | None = None
                   ) -> list[Path]:
    """Write the practice copy of every notebook of every edition (of the editions ``codes`` only, where given);
    returns the paths written. A copy the learner has worked in stays as it is, and so does any other notebook of
    theirs in the folder. ``published`` (the site's and the branch's copies, which nobody edits): nothing recorded."""
    keep, old_record, record, written = set(edited_copies(out_dir)), _record(out_dir), {}, []
    for entry in manifest.NOTEBOOKS:
        for edition in available(entry):
            target = out_dir / edition.subdir / entry.filename
            name = target.relative_to(out_dir).as_posix()
            if target in keep or (codes is not None and edition.code not in codes):
                if name in old_record:
                    record[name] = old_record[name]
                continue
            copy_ = practice_notebook(read_notebook(edition.path(entry)), entry, edition, target.parent, published)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text := dumps_notebook(copy_), encoding="utf-8")
            record[name] = digest(text)
            written.append(target)
    gone = set(out_dir.rglob("*.ipynb")) if published else {out_dir / name for name in set(old_record) - set(record)}
    for stale in gone - set(written) - keep:  # copies of notebooks that are gone, unless worked in
        stale.unlink(missing_ok=True)
    if not published:
        (out_dir / RECORD).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return written


def write_branch(folder: Path) -> list[Path]:
    """The tree of the practice branch (``manifest.PRACTICE_REF``) in ``folder``, which the site's workflow pushes
    as its one commit: every published copy at its notebook's path (Colab opens it there), and a README."""
    written = write_practice(folder / manifest.ENGLISH.repo_dir, published=True)
    readme = folder / "README.md"
    readme.write_text(TEMPLATE_FILES.get_template("practice_branch_README.md.j2").render(
        ref=manifest.REPO_REF, notebooks=manifest.NOTEBOOKS, repo_url=manifest.repo_url(), site_url=manifest.site_url()
    ), encoding="utf-8")
    return [*written, readme]
