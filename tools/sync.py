"""Regenerate everything derived from the manifest: ``python3 course.py sync``.

Each notebook's generated cells, README.md's table, answer and fine print, CITATION.cff's addresses and
INSTRUCTORS.md's BibTeX entry (:mod:`tools.generated`), the diagrams in ``images/`` (:mod:`tools.images`)
and the Chinese edition (:mod:`tools.translations`). Idempotent: a second run changes nothing. ``--check``
writes nothing and exits 1, listing the files a run would change; the test suite runs it.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from . import interface, manifest, translations
from .generated import (
    CITATION,
    INSTRUCTORS,
    answer_notebook,
    dumps_notebook,
    sync_bibtex,
    sync_citation,
    sync_readme,
)
from .images import COURSE_IMAGES, write_course_images
from .manifest import Notebook

README = manifest.ROOT / manifest.ENGLISH.readme


def planned_text_files(english: dict[Notebook, nbformat.NotebookNode] | None = None,
                       chinese: dict[Notebook, nbformat.NotebookNode] | None = None) -> dict[Path, str]:
    """Every generated text file, as ``sync`` would write it (from ``english`` and ``chinese``, the notebooks
    as sync writes them, where the caller has built them already)."""
    english = english or translations.english_notebooks()
    chinese = chinese or translations.chinese_notebooks(english)
    planned = {entry.path: dumps_notebook(nb) for entry, nb in english.items()}
    planned[README] = sync_readme(README.read_text(encoding="utf-8"), notebook_0=english.get(answer_notebook()))
    citation = manifest.ROOT / CITATION
    if citation.is_file():  # (a scratch copy of the course in the tests may have none)
        planned[citation] = sync_citation(citation.read_text(encoding="utf-8"))
        instructors = manifest.ROOT / INSTRUCTORS
        if instructors.is_file():
            planned[instructors] = sync_bibtex(instructors.read_text(encoding="utf-8"), planned[citation])
    planned.update(translations.planned_chinese_files(english, chinese))
    return planned


def _differs(path: Path, text: str) -> bool:
    return not path.is_file() or path.read_text(encoding="utf-8") != text


def stale_files() -> list[str]:
    """Repository paths that ``sync`` would change (text files; images by name only: their bytes depend on
    the matplotlib version)."""
    present = {p.name for p in manifest.IMAGE_DIR.glob("*.png")}
    mo_path, mo = interface.planned_mo()
    return [str(p.relative_to(manifest.ROOT)) for p, text in planned_text_files().items() if _differs(p, text)] + [
        f"images/{name}" for name in sorted(present ^ set(COURSE_IMAGES))] + (
        [str(mo_path.relative_to(manifest.ROOT))] if not mo_path.is_file() or mo_path.read_bytes() != mo else [])


def sync(check: bool = False) -> int:
    """Write every generated file that differs; ``check``: write nothing, list them and return 1 if any."""
    if check:
        stale = stale_files()
        for path in stale:
            print(f"out of date: {path}")
        if stale:
            print("run `make sync` and commit the result")
        return 1 if stale else 0
    english = translations.english_notebooks()  # each notebook built once, for the files and the check below
    chinese = translations.chinese_notebooks(english)
    for path, text in planned_text_files(english, chinese).items():
        if _differs(path, text):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"updated {path.relative_to(manifest.ROOT)}")
    for stray in manifest.IMAGE_DIR.glob("*.png"):
        if stray.name not in COURSE_IMAGES:
            stray.unlink()
            print(f"removed images/{stray.name}")
    write_course_images(manifest.IMAGE_DIR)
    if interface.write_mo():  # the interface catalog, compiled for the standard library's gettext
        print(f"updated {interface.mo_path().relative_to(manifest.ROOT)}")
    # translations that a person must write or update (sync never stamps them)
    print(translations.problems_summary(english, chinese))
    return 0
