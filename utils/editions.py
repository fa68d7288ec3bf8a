"""The editions of the course: the English notebooks and their translations.

English is ``notebooks/``; the Chinese edition mirrors it in ``notebooks/zh/`` under
the same file names. A translation is optional: :func:`available` lists the editions
in which a notebook exists. The practice copies and the static site use this.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import course
from .course import Notebook


@dataclass(frozen=True)
class Edition:
    code: str  # ISO 639-1 language code, e.g. "zh"
    name: str  # the language's own name, for links: "English", "中文"
    subdir: str  # folder under notebooks/, "" for English

    @property
    def folder(self) -> Path:
        """Absolute folder of this edition's notebooks."""
        return course.NOTEBOOK_DIR / self.subdir if self.subdir else course.NOTEBOOK_DIR

    @property
    def repo_dir(self) -> str:
        """The folder inside the repository, with forward slashes."""
        return f"notebooks/{self.subdir}" if self.subdir else "notebooks"

    def path(self, entry: Notebook) -> Path:
        return self.folder / entry.filename

    def repo_path(self, entry: Notebook) -> str:
        return f"{self.repo_dir}/{entry.filename}"


ENGLISH = Edition("en", "English", "")
CHINESE = Edition("zh", "中文", "zh")
EDITIONS: tuple[Edition, ...] = (ENGLISH, CHINESE)


def available(entry: Notebook) -> list[Edition]:
    """The editions in which this notebook exists (English first)."""
    return [edition for edition in EDITIONS if edition.path(entry).is_file()]


def edition(code: str) -> Edition:
    """The edition with this language code."""
    for candidate in EDITIONS:
        if candidate.code == code:
            return candidate
    raise ValueError(f"no edition {code!r}; the course has {[e.code for e in EDITIONS]}")
