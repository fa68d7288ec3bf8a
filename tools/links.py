"""Relative links in markdown, for the tools that copy or publish notebooks elsewhere.

The Chinese edition (``notebooks/zh/``), the practice copies (``build/practice/``) and
the web site all move a notebook's markdown to another folder; its links to images and
to the README must still reach their files, while links to sibling notebooks, URLs and
anchors stay as they are.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

#: ``https:``, ``mailto:``, ``data:``, ``attachment:``...: a URL, never a relative path.
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
#: The target of a markdown link or image, ``[text](<target>)`` (the angle brackets optional).
MD_TARGET = re.compile(r"(\]\(\s*<?)([^)\s>]+)")
#: The target of an HTML ``src="..."`` or ``href="..."``.
HTML_TARGET = re.compile(r"""((?:src|href)=")([^"]+)(?=")""")


def is_relative(target: str) -> bool:
    """A path relative to the page (not a URL, an anchor or an absolute path)."""
    return bool(target) and not SCHEME.match(target) and not target.startswith(("#", "/"))


def stays(target: str) -> bool:
    """A link that a copy elsewhere keeps as it is: not relative (:func:`is_relative`), or a sibling
    notebook (``02_x.ipynb``), since every copy of the course has siblings of the same names."""
    path = target.partition("#")[0]
    return not is_relative(target) or ("/" not in path and path.endswith(".ipynb"))


def rebase_link(target: str, old_folder: Path, new_folder: Path, renames: dict[str, str] | None = None) -> str:
    """``target``, written for a page in ``old_folder``, rewritten for a copy in ``new_folder``.

    A sibling notebook (``02_x.ipynb``) stays: the copy has siblings of the same names.
    ``renames`` swaps a file's name once its path is rebased, e.g. the Chinese
    edition links to ``README.zh.md`` where the English links to ``README.md``.
    """
    if stays(target):
        return target
    path, hash_sign, fragment = target.partition("#")
    moved = Path(os.path.relpath(os.path.normpath(old_folder / path), new_folder)).as_posix()
    head, _, name = moved.rpartition("/")
    name = (renames or {}).get(name, name)
    return f"{head + '/' if head else ''}{name}{hash_sign}{fragment}"


def rebase_links(source: str, old_folder: Path, new_folder: Path, renames: dict[str, str] | None = None) -> str:
    """Every relative link and image path of a markdown cell, rewritten with :func:`rebase_link`."""
    def rebase(match: re.Match) -> str:
        return match.group(1) + rebase_link(match.group(2), old_folder, new_folder, renames)

    return HTML_TARGET.sub(rebase, MD_TARGET.sub(rebase, source))
