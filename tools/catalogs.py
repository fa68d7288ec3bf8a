"""The Chinese edition's gettext catalogs, ``notebooks/zh/translations/*.po``: where they are, and how they are
read and written (with Babel), for :mod:`tools.translations`, which keeps them up to date and checks them, and
:mod:`tools.zh_style`, which reads their Chinese."""

from __future__ import annotations

import datetime
import io
import re
from collections.abc import Iterable
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import PoFileError, read_po, unescape, write_po

from . import manifest

SHARED, README_KEY, INTERFACE = "_shared", "_readme", "_interface"  # the catalogs beside the notebooks' own


class TranslationFileError(ValueError):
    """A catalog that Babel cannot read."""


def translation_path(name: str) -> Path:
    """``notebooks/zh/translations/<name>.po``, ``name`` a notebook's stem or one of the three names above."""
    return manifest.NOTEBOOK_DIR / "zh" / "translations" / f"{name}.po"


_HEADER = ("# The Chinese edition of the nn.Embedding course: {what}.\n# msgctxt: {context}; msgid: the English; "
           "msgstr: the Chinese. `python3 course.py sync` updates it\n# from the English; CONTRIBUTING.md says how "
           "to translate it.")
_CREATED = datetime.datetime(2026, 11, 29, tzinfo=datetime.timezone.utc)  # fixed: a catalog changes with its text
_WHAT = {SHARED: ("the set-up cell and the notebooks' titles", "the cell id, or the notebook's stem for its title"),
         README_KEY: ("README.zh.md, one message per section of README.md", "the English section's heading"),
         INTERFACE: ("the interface wording: the checkers' lines, course.py's messages, the generated cells",
                     "none (the English is in the code, #: says which file)")}


def new_catalog(name: str, messages: Iterable[tuple[str, str]] = ()) -> Catalog:
    """A catalog for ``name``, with the header every catalog of the course has and ``messages`` (``(context,
    English)``) untranslated."""
    what, context = _WHAT.get(name, (f"notebook {name}", "the cell id"))
    catalog = Catalog(locale="zh_CN", project=manifest.REPO_SLUG.split("/")[1], version="1",
                      msgid_bugs_address="the course's issue tracker (README.md)", fuzzy=False,
                      header_comment=_HEADER.format(what=what, context=context),
                      last_translator="the course's translators", language_team="Chinese (Simplified)",
                      creation_date=_CREATED, revision_date=_CREATED)
    for key, english in messages:
        catalog.add(english, "", context=key)
    return catalog


_UNWRAPPED = 1_000_000  # a line width that wraps nothing: a msgid's lines are its lines, a diff shows the change
_QUOTED = r'"(?:[^"\\]|\\.)*"'  # one string of a .po file


def dumps(catalog: Catalog) -> str:
    """The catalog as a ``.po`` file: in the English's order, lines unwrapped (a diff shows the changed line),
    a fuzzy message with its previous msgid (and only a fuzzy one)."""
    for message in catalog:
        if not message.fuzzy:  # its English is current: no previous one (a translator may clear the flag by hand)
            message.previous_id = []
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=_UNWRAPPED, include_previous=True)
    # Babel writes a previous msgid on one line (a narrower width would wrap it inside its strings, at a space or a
    # hyphen, and loads could not tell): each of its strings gets a line, as gettext's msgmerge writes it
    return re.sub(r"^#\| msgid (.*)$", lambda line: "#| msgid " + "\n#| ".join(re.findall(_QUOTED, line.group(1))),
                  buffer.getvalue().decode("utf-8"), flags=re.M)


def loads(text: str, where: str = "the catalog") -> Catalog:
    """A catalog from ``.po`` text, with the previous msgid of its fuzzy messages (Babel 2.18's ``read_po``
    reads the ``#|`` lines as translator comments, python-babel/babel#206; here they become ``previous_id``)."""
    try:
        catalog = read_po(io.BytesIO(text.encode("utf-8")), abort_invalid=True)
    except (PoFileError, ValueError) as error:
        raise TranslationFileError(f"{where} is not a catalog that Babel reads: {error}") from error
    for message in catalog:
        previous = [comment[1:].strip() for comment in message.user_comments if comment.startswith("|")]
        message.user_comments = [comment for comment in message.user_comments if not comment.startswith("|")]
        if previous and message.fuzzy:
            msgid = " ".join(line for line in previous if not line.startswith("msgctxt")).removeprefix("msgid")
            message.previous_id = ["".join(unescape(quoted) for quoted in re.findall(_QUOTED, msgid))]
    return catalog


def repo_path(path: Path) -> str:
    """``path`` as the messages name it: inside the repository, with ``/`` (as it is, outside)."""
    return path.relative_to(manifest.ROOT).as_posix() if path.is_relative_to(manifest.ROOT) else str(path)


def load(name: str) -> Catalog | None:
    """The catalog ``translations/<name>.po`` as stored; None when there is none."""
    path = translation_path(name)
    return loads(path.read_text(encoding="utf-8"), repo_path(path)) if path.is_file() else None


_LOADED: dict[tuple[Path, int], dict[str, str]] = {}  # the interface catalog's Chinese, by file and change time


def interface_text(english: str, edition: str) -> str:
    """``english`` (a message of the interface catalog) in the language of ``edition`` (a code: ``en``, ``zh``):
    the catalog's translation, or the English where it has none (the translations' check reports it)."""
    if manifest.edition(edition) == manifest.ENGLISH:  # (an unknown code is a ValueError)
        return english
    path = translation_path(INTERFACE)
    key = (path, path.stat().st_mtime_ns if path.is_file() else 0)
    if key not in _LOADED:
        _LOADED[key] = by_context(load(INTERFACE)).get(None, {})
    return _LOADED[key].get(english) or english


def by_context(catalog: Catalog | None) -> dict[str, dict[str, str]]:
    """``{context: {English: Chinese}}`` of the translated messages; a fuzzy one is used as it is (the check
    reports it) until a person updates it."""
    found: dict[str, dict[str, str]] = {}
    for message in catalog or ():
        if message.id and message.string:
            found.setdefault(message.context, {})[message.id] = message.string
    return found
