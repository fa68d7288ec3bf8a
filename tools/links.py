"""The one link rewriter: the Chinese edition, the practice copies, the web site and the README's answer move a
notebook's markdown to another folder or off the repository, and its relative links must still reach their files."""

import os
import re
from pathlib import Path

from . import manifest

#: ``https:``, ``mailto:``, ``data:``, ``attachment:``...: a URL, never a relative path.
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
#: The target of a markdown link or image, ``[text](<target>)`` (the angle brackets optional).
MD_TARGET = re.compile(r"(\]\(\s*<?)([^)\s>]+)")
#: The target of an HTML ``src="..."`` or ``href="..."``.
HTML_TARGET = re.compile(r"""((?:src|href)=")([^"]+)(?=")""")
#: the folders of the editions' notebooks, in the repository
NOTEBOOK_FOLDERS = {Path(os.path.normpath(edition.folder)) for edition in manifest.EDITIONS}


def is_relative(target: str) -> bool:
    """A path relative to the page (not a URL, an anchor or an absolute path)."""
    return bool(target) and not SCHEME.match(target) and not target.startswith(("#", "/"))


def rebase_link(target: str, here: Path, there: Path | None = None, renames: dict[str, str] | None = None,
                siblings_stay: bool = True) -> str:
    """``target``, a link written for a page in folder ``here``, as seen from folder ``there``; without ``there``, its
    address on GitHub (one that leads out of the repository stays: there is nothing to point to). URLs, anchors and
    absolute paths stay; so does a link to a notebook of either edition unless ``siblings_stay`` is false.
    ``renames`` swaps a file's name once its path is rebased (``README.md`` -> ``README.zh.md``)."""
    path, hash_sign, fragment = target.partition("#")
    if not is_relative(target):
        return target
    resolved = Path(os.path.normpath(Path(here) / path))
    if siblings_stay and path.endswith(".ipynb") and resolved.parent in NOTEBOOK_FOLDERS:
        return target  # a notebook of either edition: every copy of the course has both, laid out alike
    moved = Path(os.path.relpath(resolved, there or manifest.ROOT)).as_posix()
    if there is None:
        return target if moved.startswith("../") else manifest.blob_url(moved) + hash_sign + fragment
    head, _, name = moved.rpartition("/")
    name = (renames or {}).get(name, name)
    return f"{head + '/' if head else ''}{name}{hash_sign}{fragment}"


def rebase_links(source: str, here: Path, there: Path | None = None, renames: dict[str, str] | None = None,
                 siblings_stay: bool = True) -> str:
    """Every link and image path of a markdown cell (markdown or HTML), rewritten with :func:`rebase_link`."""

    def rebase(match: re.Match) -> str:
        return match.group(1) + rebase_link(match.group(2), here, there, renames, siblings_stay)

    return HTML_TARGET.sub(rebase, MD_TARGET.sub(rebase, source))
