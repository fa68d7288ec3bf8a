"""Regenerate everything derived from the manifest: ``python3 course.py sync``.

Each notebook's generated cells, README.md's table, answer and fine print, CITATION.cff's addresses and
INSTRUCTORS.md's BibTeX entry (:mod:`tools.generated`), the diagrams in ``images/`` (:mod:`tools.images`)
and the Chinese edition (:mod:`tools.translations`). Idempotent: a second run changes nothing. ``--check``
writes nothing and exits 1, listing the files a run would change; the test suite runs it.
"""

from __future__ import annotations

from pathlib import Path

from . import manifest, translations
from .generated import (
    CITATION,
    FINE_PRINT_CELL,
    INSTRUCTORS,
    answer_cell_source,
    answer_notebook,
    dumps_notebook,
    read_notebook,
    sync_bibtex,
    sync_citation,
    sync_notebook,
    sync_readme,
)
from .images import COURSE_IMAGES, write_course_images

README = manifest.ROOT / manifest.ENGLISH.readme


def planned_text_files() -> dict[Path, str]:
    """Every generated text file, as ``sync`` would write it."""
    planned, answer, fine_print = {}, None, None
    for entry in manifest.NOTEBOOKS:
        if not entry.path.is_file():
            raise FileNotFoundError(f"the manifest lists {entry.repo_path}, but the file is missing")
        nb_node = sync_notebook(read_notebook(entry.path), entry)
        planned[entry.path] = dumps_notebook(nb_node)
        if entry == answer_notebook():
            answer = answer_cell_source(nb_node, entry)
            fine_print = answer_cell_source(nb_node, entry, FINE_PRINT_CELL)
    planned[README] = sync_readme(README.read_text(encoding="utf-8"), answer=answer, fine_print=fine_print)
    citation = manifest.ROOT / CITATION
    if citation.is_file():  # (a scratch copy of the course in the tests may have none)
        planned[citation] = sync_citation(citation.read_text(encoding="utf-8"))
        instructors = manifest.ROOT / INSTRUCTORS
        if instructors.is_file():
            planned[instructors] = sync_bibtex(instructors.read_text(encoding="utf-8"), planned[citation])
    planned.update(translations.planned_text_files())
    return planned


def _differs(path: Path, text: str) -> bool:
    return not path.is_file() or path.read_text(encoding="utf-8") != text


def stale_files() -> list[str]:
    """Repository paths that ``sync`` would change (text files; images by name only: their bytes depend on
    the matplotlib version)."""
    present = {p.name for p in manifest.IMAGE_DIR.glob("*.png")}
    return [str(p.relative_to(manifest.ROOT)) for p, text in planned_text_files().items() if _differs(p, text)] + [
        f"images/{name}" for name in sorted(present ^ set(COURSE_IMAGES))]


def sync(check: bool = False) -> int:
    """Write every generated file that differs; ``check``: write nothing, list them and return 1 if any."""
    if check:
        stale = stale_files()
        for path in stale:
            print(f"out of date: {path}")
        if stale:
            print("run `make sync` and commit the result")
        return 1 if stale else 0
    for path, text in planned_text_files().items():
        if _differs(path, text):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"updated {path.relative_to(manifest.ROOT)}")
    for stray in manifest.IMAGE_DIR.glob("*.png"):
        if stray.name not in COURSE_IMAGES:
            stray.unlink()
            print(f"removed images/{stray.name}")
    write_course_images(manifest.IMAGE_DIR)
    print(translations.problems_summary())  # translations that a person must write or update (sync never stamps them)
    return 0
