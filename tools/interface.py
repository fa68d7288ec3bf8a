"""The course's interface wording in one catalog, ``notebooks/zh/translations/_interface.po``: the checkers' lines,
the set-up cell's line, course.py's messages, the generated cells' words, the practice copies' note (:data:`SOURCES`).

The English stays in the code, marked ``_("...")`` (or ``N_`` in a table); ``sync`` extracts it with Babel, updates
the catalog as it does the notebooks', and compiles it into :func:`mo_path` for :mod:`utils.language` (standard
gettext). The ``.mo`` is committed: Colab and a practice download run the notebooks straight from the repository,
and course.py reads it before ``.venv`` (and Babel) exists. Sync also writes the Chinese notebooks' stored checker
and set-up lines in Chinese (:func:`chinese_outputs`), so that the page shows what a run prints.
"""

from __future__ import annotations

import io
import re
import string
from pathlib import Path

import nbformat
from babel.messages import mofile
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file

from utils import language

from . import manifest
from .catalogs import INTERFACE, by_context, load, new_catalog

#: the code whose marked strings the catalog holds (relative to the repository)
SOURCES = ("utils/exercises/*.py", "utils/setup_cell.py", "utils/cli.py", "tools/bootstrap.py", "tools/cli.py",
           "tools/commands.py", "tools/run.py", "tools/generated.py", "tools/practice.py")
#: gettext's keywords: ``_`` (a message translated where it is), ``N_`` (one of a table, translated where it is used)
KEYWORDS = {"_": None, "N_": None}
_TOOLS_ROOT = Path(__file__).resolve().parent.parent  # the code is read where it is (a course copy has none)


def mo_path() -> Path:
    """Where sync writes the compiled Chinese catalog (in the course that ``manifest`` points at)."""
    return manifest.ROOT / language.LOCALE_DIR.relative_to(_TOOLS_ROOT) / "zh" / "LC_MESSAGES" / (
        language.DOMAIN + ".mo")


def template() -> Catalog:
    """The English of every marked string of :data:`SOURCES`, in the order of the files, each with its file."""
    catalog = new_catalog(INTERFACE)
    for pattern in SOURCES:
        for path in sorted(_TOOLS_ROOT.glob(pattern)):
            where = path.relative_to(_TOOLS_ROOT).as_posix()
            for _lineno, message, _comments, context in extract_from_file("python", path, KEYWORDS):
                catalog.add(message, "", locations=[(where, None)], context=context)  # (a repeat adds its file)
    return catalog


def planned_mo() -> tuple[Path, bytes]:
    """The ``.mo`` as sync writes it: the stored catalog compiled, fuzzy messages left out (English instead)."""
    buffer = io.BytesIO()
    mofile.write_mo(buffer, load(INTERFACE) or new_catalog(INTERFACE), use_fuzzy=False)
    return mo_path(), buffer.getvalue()


def fields(text: str) -> set[str]:
    """The names of the ``{fields}`` of a message (empty where its braces are not a template)."""
    try:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError:
        return set()


# --- the Chinese notebooks' stored outputs ------------------------------------------------------------------

#: the fewest characters outside its fields a message needs to stand for a whole output line
_WHOLE_LINE_LITERAL = 6
#: a cell that calls the exercises' module (a checker), whose lines the catalog holds
_CALLS_EXERCISES = re.compile(r"\bexercises\.\w+")


class _Lines:
    """Renders English lines that the catalog's messages make in Chinese."""

    def __init__(self, catalog: Catalog | None) -> None:
        self.exact = by_context(catalog).get(None, {})
        patterns = [(len(re.sub(r"\{[^}]*\}", "", english)), _pattern(english), chinese)
                    for english, chinese in self.exact.items() if fields(english) and "\n" not in english]
        self.patterns = sorted(patterns, key=lambda item: -item[0])  # the most literal text first

    def render(self, text: str, nested: bool = False) -> str:
        if text in self.exact:
            return self.exact[text]
        for literal, pattern, chinese in self.patterns:
            if literal < _WHOLE_LINE_LITERAL and not nested:
                continue  # "{names} and {last}" is part of a checker's line, not a line: it would match PyTorch's own
            if found := pattern.fullmatch(text):
                values = {name: self.render(value, nested=True) for name, value in found.groupdict().items()}
                if nested and "names" in values and ", " in self.exact:  # a list, "a, b and c": "a、b 和 c"
                    values["names"] = self.exact[", "].join(values["names"].split(", "))
                # each field replaced by the text found for it (already formatted: no format spec applied)
                return "".join(literal + (values[name] if name is not None else "")
                               for literal, name, _spec, _conversion in string.Formatter().parse(chinese))
        return text


def _pattern(template: str) -> re.Pattern:
    """A regular expression that matches what ``template.format(...)`` makes, each field a named group."""
    parts, seen = [], set()
    for literal, name, _spec, _conversion in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if name is not None:
            parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
            seen.add(name)
    return re.compile("".join(parts), re.S)


def chinese_outputs(nb: nbformat.NotebookNode, catalog: Catalog | None) -> nbformat.NotebookNode:
    """The stream outputs of ``nb``'s set-up cell and of its cells that call the exercises' module, in Chinese
    (in place, and returned): each line matched against the catalog's English, its ``{fields}`` too."""
    from .generated import SETUP_ID

    lines = _Lines(catalog)
    for cell in nb.cells:
        if cell.cell_type == "code" and (_CALLS_EXERCISES.search(cell.source) or cell.get("id") == SETUP_ID):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "stream":
                    output["text"] = "\n".join(map(lines.render, output["text"].split("\n")))
    return nb
