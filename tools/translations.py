"""The Chinese edition, ``notebooks/zh/``: translations kept as data, notebooks generated.

Files
- ``notebooks/zh/translations/<stem>.json``: the translation of one English notebook. For
  every cell that has something to translate, by cell id: the English it was made from
  (``en``), that text's SHA-256 (``sha256``, the *stamp*) and the Chinese (``zh``).
  Markdown cells are translated whole; in code cells only the comments are translated
  (``comments``: a list of ``{"en": "# ...", "zh": "# ..."}``), so the code stays the
  English code by construction. Code cells without comments need no entry.
- ``notebooks/zh/translations/_shared.json``: the same for the set-up cell that
  ``make sync`` writes into every notebook (cell id ``course-setup``).
- ``notebooks/zh/translations/_titles.json``: the English title each ``title_zh`` of the
  manifest was translated from, stamped; a changed ``title`` makes ``title_zh`` stale.
- ``notebooks/zh/<stem>.ipynb``: written by ``make sync`` (:func:`zh_notebook`), never by
  hand: the English notebook's cells, ids, code, metadata and outputs, with each markdown
  cell replaced by its translation and each comment by its translation, under a Chinese
  header and footer (tools/generated.py, the same functions as the English edition's).
- ``README.zh.md``: the README in Chinese; ``make sync`` writes its table of notebooks and its
  answer (the Chinese of notebook 0's ``answer`` cell). Its
  ``##`` sections are stamped, in order, against those of README.md in
  ``notebooks/zh/translations/_readme.json`` (:func:`check_readme`): an edit to a section of
  README.md makes the Chinese section stale until it is updated and re-stamped with
  ``python -m tools.translations stamp-readme '<English heading>'``.

A translation is *stale* when the English it was made from changed: the SHA-256 of the
cell's current English (markdown source, or the list of its comments) differs from the
stamp. :func:`check` reports it with a unified diff of the English change, and keeps
reporting it until a person has updated the Chinese and re-stamped the cell with
``python -m tools.translations stamp <stem> <cell-id>``; ``make sync`` never stamps.

Command line::

    python -m tools.translations check [<stem> ...]          # what is missing, stale or unused
    python -m tools.translations init <stem>                 # add empty entries for every cell
    python -m tools.translations stamp <stem> <cell-id> ...  # mark a translation as up to date
    python -m tools.translations stamp-readme <section> ...  # the same for sections of README.zh.md
    python -m tools.translations stamp-title <stem> ...      # the same for title_zh in tools/manifest.py
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import io
import json
import re
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

import nbformat

from utils.cli import OneLineParser

from . import generated, manifest, zh_style
from .cli import guard
from .links import MD_TARGET, rebase_links
from .manifest import Notebook

SHARED = "_shared"  # the translation file of the cells sync writes into every notebook
SHARED_IDS = (generated.SETUP_ID,)

#: The sections every notebook has, and their standard Chinese headings.
SECTION_HEADINGS_ZH = {
    "## What you will learn": "## 你将学到什么",
    "## Summary": "## 小结",
    "## Exercises": "## 练习",
    "## Going deeper": "## 深入一步",
}

#: Comments that are instructions to tools, not prose: kept as they are.
_DIRECTIVE = r"#\s*(?:noqa\b|type:|fmt:|pragma\b|pylint:|ruff:|isort:)"
PRAGMA = re.compile(_DIRECTIVE)
#: A directive followed by prose, ``# noqa: F401  (only Colab has it)``: the directive, then two
#: spaces (or a space and a bracket), then the prose. The prose is translated; the directive is kept.
_PRAGMA_PROSE = re.compile(rf"(?P<directive>{_DIRECTIVE}.*?)(?:\s{{2,}}|\s+(?=[(（]))(?P<prose>\S.*)$")
UNTRANSLATED = "<!-- 尚未翻译 (untranslated): the English text follows -->"


# --- paths ----------------------------------------------------------------------------

def translations_dir() -> Path:
    return manifest.NOTEBOOK_DIR / "zh" / "translations"


def translation_path(stem: str) -> Path:
    """``notebooks/zh/translations/<stem>.json`` (``stem`` may be :data:`SHARED`)."""
    return translations_dir() / f"{stem}.json"


def readme_zh_path() -> Path:
    return manifest.ROOT / manifest.CHINESE.readme


def _repo(path: Path) -> str:
    return path.relative_to(manifest.ROOT).as_posix()


# --- comments in code, through tokenize --------------------------------------------------

def _python_view(source: str) -> str | None:
    """``source`` with IPython-only lines (magics, ``!shell``, ``obj?``) blanked, so that
    ``tokenize`` reads it as Python; columns are kept. ``None`` for a ``%%`` cell magic."""
    if source.lstrip().startswith("%%"):
        return None
    from IPython.core.inputtransformer2 import TransformerManager

    lines = source.split("\n")
    transformed = TransformerManager().transform_cell(source).split("\n")
    if transformed[-1] == "" and lines[-1] != "":
        transformed.pop()
    if len(transformed) != len(lines):  # a transformation that moved lines: read the source as it is
        return source
    return "\n".join(" " * len(old) if old != new else old for old, new in zip(lines, transformed, strict=True))


def comment_tokens(source: str) -> list[tuple[int, int, int, str]]:
    """Every comment in a code cell as ``(line index, start column, end column, text)``.

    Found with :mod:`tokenize`, so a ``#`` inside a string is not a comment. Raises
    ``ValueError`` when the cell is not Python that tokenize can read.
    """
    view = _python_view(source)
    if view is None:
        return []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(view).readline))
    except (tokenize.TokenError, SyntaxError) as error:
        raise ValueError(f"tokenize cannot read this code cell ({error}); first lines: {source[:80]!r}") from error
    return [(tok.start[0] - 1, tok.start[1], tok.end[1], tok.string) for tok in tokens if tok.type == tokenize.COMMENT]


def pragma_directive(text: str) -> str | None:
    """The tool directive at the start of a comment that goes on with prose
    (``# noqa: F401  (only Colab has it)`` -> ``# noqa: F401``); None for any other comment."""
    match = _PRAGMA_PROSE.match(text)
    return match.group("directive") if match else None


def translatable_comments(source: str) -> list[str]:
    """The distinct comments of a code cell, in order, without bare tool pragmas (``# noqa``
    ...) or ``#@title`` lines. A pragma followed by prose is translatable: its translation
    keeps the directive."""
    seen: dict[str, None] = {}
    for _, _, _, text in comment_tokens(source):
        if generated.TITLE_LINE.match(text):
            continue  # a collapsed cell's title: make sync writes it in each edition's words
        if not PRAGMA.match(text) or pragma_directive(text):
            seen.setdefault(text, None)
    return list(seen)


def strip_comments(source: str) -> str:
    """The code of a cell without its comments (found with tokenize).

    A trailing comment is removed with the spaces before it; a line that held only a
    comment is removed. Two cells whose code differs only in comments strip equal.
    """
    lines = source.split("\n")
    drop = set()
    for row, start, end, _ in comment_tokens(source):
        line = lines[row]
        kept = (line[:start] + line[end:]).rstrip()
        if kept.strip() == "":
            drop.add(row)
        lines[row] = kept
    return "\n".join(line for row, line in enumerate(lines) if row not in drop)


def translate_comments(source: str, translations: dict[str, str]) -> str:
    """``source`` with every comment found in ``translations`` replaced by its translation."""
    lines = source.split("\n")
    for row, start, end, text in reversed(comment_tokens(source)):
        if text in translations:
            lines[row] = lines[row][:start] + translations[text] + lines[row][end:]
    return "\n".join(lines)


def _comment_translation_error(zh: object, en: str = "") -> str | None:
    if not isinstance(zh, str) or not zh.strip():
        return "has no translation"
    if "\n" in zh or "\r" in zh or not zh.startswith("#"):
        return "must be translated as one line that starts with '#'"
    directive = pragma_directive(en)
    if directive and not re.match(re.escape(directive) + r"(\s{2,}|\s+(?=[(（]))\S", zh):
        return f"must keep the tool directive {directive!r}, then two spaces and the translated prose"
    return None


# --- markdown: what a translation must keep --------------------------------------------

_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE_MATH = re.compile(r"\$([^$\n]+?)\$")
_TEXT_IN_MATH = re.compile(r"\\text\{(?:[^{}]|\{[^{}]*\})*\}")


def _formula_form(formula: str) -> str:
    """A formula as the check compares it: the words inside ``\\text{...}`` may be translated."""
    return _TEXT_IN_MATH.sub(r"\\text{…}", formula)


def markdown_invariants(text: str) -> dict[str, list[str]]:
    """What a translated markdown cell keeps from the English: code (spans and fenced
    blocks), formulas, link targets, and the levels of its headings."""
    fences = [m.group(0) for m in _FENCE.finditer(text)]
    rest = _FENCE.sub(" ", text)
    spans = [m.group(0) for m in _CODE_SPAN.finditer(rest)]
    rest = _CODE_SPAN.sub(" ", rest)
    display = [m.group(0) for m in _DISPLAY_MATH.finditer(rest)]
    rest = _DISPLAY_MATH.sub(" ", rest)
    inline = [m.group(0) for m in _INLINE_MATH.finditer(rest)]
    return {
        "code": sorted(set(fences + spans)),
        "formulas": sorted({_formula_form(f) for f in display + inline}),
        "link targets": sorted({match.group(2) for match in MD_TARGET.finditer(rest)}),
        "heading levels": [line.split(" ", 1)[0] for line in rest.splitlines() if re.match(r"#{1,6} ", line)],
    }


def invariant_differences(english: str, chinese: str) -> list[str]:
    """How ``chinese`` fails to keep :func:`markdown_invariants` of ``english`` (empty: it keeps them)."""
    want, got = markdown_invariants(english), markdown_invariants(chinese)
    differences = []
    for key in want:
        if key == "heading levels":
            if want[key] != got[key]:
                differences.append(f"heading levels {got[key]}, expected {want[key]}")
            continue
        missing = [item for item in want[key] if item not in got[key]]
        extra = [item for item in got[key] if item not in want[key]]
        if missing:
            differences.append(f"{key} missing: {', '.join(missing)}")
        if extra:
            differences.append(f"{key} not in the English: {', '.join(extra)}")
    return differences


#: A number in prose: ``0.1195``, ``50,257`` (thousands separators are dropped), ``2``, ``11``.
_NUMBER = re.compile(r"\d+(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?")
#: "N times smaller" is written 只有……的 1/N in Chinese, "1 in N" may be 1/N: the ``1`` of a
#: ratio is not counted, only N.
_RECIPROCAL = re.compile(r"(?<![\d.,])1(?:/| in )(?=\d)")
#: Scale words: "1.7 million" and "170 万" are the same number.
_SCALED = re.compile(r"(\d+(?:\.\d+)?)\s*(thousand|million|billion|万|亿)")
_SCALE = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "万": 10**4, "亿": 10**8}
#: Numbers that one language writes as a word and the other as digits ("zero" and 0, 两 and
#: 2, "2-D" and 二维, "unit variance" and 方差为 1, "November 2026" and 2026 年 11 月): a number
#: that only one side writes in digits is accepted when the other side has it as a word.
_NUMBER_WORDS = {**{w: n for n, w in enumerate("zero one two three four five six seven eight nine ten".split())},
                 "zeros": 0, "zeroes": 0, "ones": 1, "once": 1, "single": 1, "twice": 2, "both": 2, "pair": 2,
                 "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "unit": 1,
                 **{m: n for n, m in enumerate("january february march april may june july august september october "
                                               "november december".split(), start=1)},
                 **{c: n for n, c in enumerate("零一二三四五六七八九十")}, "〇": 0, "两": 2, "双": 2}
_LINK_PART = re.compile(r"\]\([^)]*\)")


def _prose(text: str) -> str:
    """``text`` without code (spans and fenced blocks), formulas and link targets, which
    :func:`invariant_differences` compares exactly."""
    for pattern in (_FENCE, _CODE_SPAN, _DISPLAY_MATH, _INLINE_MATH):
        text = pattern.sub(" ", text)
    return _LINK_PART.sub("] ", text)


def _scaled(match: re.Match) -> str:
    from decimal import Decimal

    value = Decimal(match.group(1)) * _SCALE[match.group(2)]
    return format(value.normalize(), "f")


def prose_numbers(text: str) -> list[str]:
    """The numbers of a text's prose, sorted (a multiset), in a form that compares prose
    written in either language: ``50,257`` is ``50257``, "1.7 million" and "170 万" are
    ``1700000``, and the ``1`` of a ratio ``1/N`` or "1 in N" is not counted."""
    rest = _SCALED.sub(_scaled, _RECIPROCAL.sub("", _prose(text)))
    return sorted(m.group(0).replace(",", "") for m in _NUMBER.finditer(rest))


def _number_words(text: str) -> list[int]:
    words = re.findall(r"[A-Za-z]+|[零〇一二两三四五六七八九十双]", _prose(text).lower())
    return [_NUMBER_WORDS[w] for w in words if w in _NUMBER_WORDS]


def number_differences(english: str, chinese: str) -> list[str]:
    """How the numbers of ``chinese``'s prose differ from those of ``english`` (empty: the same).

    A number written in digits on one side only is accepted where the other side writes it
    as a word (:data:`_NUMBER_WORDS`)."""
    differences = []
    sides = (("missing", english, chinese, chinese), ("not in the English", chinese, english, english))
    for label, a, b, other in sides:
        left, words = prose_numbers(b), _number_words(other)
        extra = []
        for number in prose_numbers(a):
            if number in left:
                left.remove(number)
            elif number.isdigit() and int(number) in words:
                words.remove(int(number))
            else:
                extra.append(number)
        if extra:
            differences.append(f"numbers {label}: {', '.join(extra)}")
    return differences


def rebase_for_zh(text: str) -> str:
    """A markdown cell's links, written for ``notebooks/``, rewritten for ``notebooks/zh/``: other
    notebooks stay (the link goes to their Chinese twin), the README becomes README.zh.md."""
    return rebase_links(text, manifest.NOTEBOOK_DIR, manifest.CHINESE.folder,
                        {manifest.ENGLISH.readme: manifest.CHINESE.readme})


# --- translation files ------------------------------------------------------------------

class TranslationFileError(ValueError):
    """A translation file that is not valid JSON or not in the expected form."""


def fingerprint(text: str) -> str:
    """The stamp: SHA-256 (hex) of the English text a translation was made from."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def english_text(cell: nbformat.NotebookNode) -> str:
    """What a translation of ``cell`` is made from: a markdown cell's source, or the
    comments of a code cell (one per line)."""
    if cell.cell_type == "code":
        return "\n".join(translatable_comments(cell.source))
    return cell.source


def is_translatable(cell: nbformat.NotebookNode) -> bool:
    """Markdown with text, or code with comments. Generated header/footer cells are not."""
    if cell.get("id") in (generated.HEADER_ID, generated.FOOTER_ID):
        return False
    if cell.cell_type == "markdown":
        return bool(cell.source.strip())
    return cell.cell_type == "code" and bool(translatable_comments(cell.source))


def new_entry(cell: nbformat.NotebookNode, old: dict | None = None) -> dict:
    """An entry stamped with the cell's current English. For markdown the Chinese of
    ``old`` is kept (or left empty); for code, the translations of comments that did not
    change are kept and new comments get an empty ``zh``."""
    old = old if isinstance(old, dict) else None
    entry: dict = {"type": cell.cell_type, "sha256": fingerprint(english_text(cell))}
    if cell.cell_type == "markdown":
        entry["en"] = cell.source.split("\n")
        entry["zh"] = list(old.get("zh", [])) if old and old.get("type") == "markdown" else []
    else:
        known = {}
        if old and old.get("type") == "code":
            known = {c.get("en"): c.get("zh", "") for c in old.get("comments", []) if isinstance(c, dict)}
        entry["comments"] = [{"en": text, "zh": known.get(text, "")} for text in translatable_comments(cell.source)]
    return entry


def _entry_error(entry: object) -> str | None:
    """Why ``entry`` is not a well-formed entry, or None."""
    if not isinstance(entry, dict) or entry.get("type") not in ("markdown", "code"):
        return 'an entry must be an object with "type": "markdown" or "code"'
    if not isinstance(entry.get("sha256"), str):
        return 'an entry needs its stamp, "sha256" (a string)'
    if entry["type"] == "markdown":
        for key in ("en", "zh"):
            if not (isinstance(entry.get(key), list) and all(isinstance(line, str) for line in entry[key])):
                return f'a markdown entry needs "{key}": a list of lines (strings)'
    else:
        comments = entry.get("comments")
        if not (isinstance(comments, list) and all(
                isinstance(c, dict) and isinstance(c.get("en"), str) and isinstance(c.get("zh"), str)
                for c in comments)):
            return 'a code entry needs "comments": a list of {"en": "# ...", "zh": "# ..."}'
    return None


def _stored_english(entry: dict) -> str:
    if entry["type"] == "markdown":
        return "\n".join(entry["en"])
    return "\n".join(c["en"] for c in entry["comments"])


def _read_json(path: Path) -> object:
    """A translation file's JSON; :class:`TranslationFileError` naming the file when it is not valid JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise TranslationFileError(f"{_repo(path)} is not valid JSON: {error}") from error


def load(stem: str) -> dict[str, dict] | None:
    """The entries of ``translations/<stem>.json`` by cell id; None when there is no file."""
    path = translation_path(stem)
    if not path.is_file():
        return None
    data = _read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("cells"), dict):
        raise TranslationFileError(f'{_repo(path)}: expected an object with "cells": {{cell id: entry}}')
    if data.get("notebook") != stem:
        raise TranslationFileError(f'{_repo(path)}: "notebook" is {data.get("notebook")!r}, expected {stem!r}')
    return data["cells"]


def save(stem: str, cells: dict[str, dict], order: list[str]) -> Path:
    """Write ``translations/<stem>.json``: entries in notebook order (``order``), then the rest."""
    ranked = {cell_id: i for i, cell_id in enumerate(order)}
    ordered = dict(sorted(cells.items(), key=lambda item: ranked.get(item[0], len(ranked))))
    path = translation_path(stem)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"notebook": stem, "cells": ordered}
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path


# --- checking ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Problem:
    """Something a person must fix in the Chinese edition."""

    notebook: str  # a stem, or SHARED
    cell: str | None  # a cell id; None for the whole notebook
    kind: str  # missing | stale | unused | invalid | drift | style
    message: str

    def __str__(self) -> str:
        kind = "section" if self.notebook.endswith(".md") else "cell"
        where = f"{self.notebook}: {kind} {self.cell!r}" if self.cell else self.notebook
        return f"{where}: {self.message}"


def _stale_message(stem: str, cell_id: str, old: str, new: str) -> str:
    diff = difflib.unified_diff(old.split("\n"), new.split("\n"), f"{cell_id} (English, as translated)",
                                f"{cell_id} (English, now)", lineterm="")
    return (f"stale translation: the English changed since it was translated. Update the Chinese in "
            f"{_repo(translation_path(stem))}, then run `python -m tools.translations stamp {stem} {cell_id}`."
            f" The English change:\n" + "\n".join(diff))


def check_translation(stem: str, english: nbformat.NotebookNode, cells: dict[str, dict] | None,
                      only: tuple[str, ...] | None = None) -> list[Problem]:
    """Problems of the translation ``cells`` (None: no file) of the notebook ``english``.

    ``only`` restricts the check to those cell ids (the shared file checks the set-up cell).
    """
    path = _repo(translation_path(stem))
    if cells is None:
        return [Problem(stem, None, "missing", f"there is no translation, {path}: run "
                        f"`python -m tools.translations init {stem}` and translate every entry")]
    by_id = {cell.get("id"): cell for cell in english.cells}
    in_scope = (lambda cid: cid in only) if only is not None else (lambda cid: cid not in SHARED_IDS)
    wanted = {cid: cell for cid, cell in by_id.items() if in_scope(cid) and is_translatable(cell)}
    problems = []
    for cell_id, cell in wanted.items():
        entry = cells.get(cell_id)
        if entry is None:
            problems.append(Problem(stem, cell_id, "missing", f"the {cell.cell_type} cell has no translation in {path}"
                                    f" (`python -m tools.translations init {stem}` adds an empty entry)"))
            continue
        error = _entry_error(entry)
        if error:
            problems.append(Problem(stem, cell_id, "invalid", f"{path}: {error}"))
            continue
        if entry["type"] != cell.cell_type:
            problems.append(Problem(stem, cell_id, "stale", f"the cell is now a {cell.cell_type} cell, but its "
                                    f"translation is for a {entry['type']} cell: replace the entry"))
            continue
        now = english_text(cell)
        if fingerprint(now) != entry["sha256"]:  # the rest would only repeat it
            problems.append(Problem(stem, cell_id, "stale", _stale_message(stem, cell_id, _stored_english(entry), now)))
            continue
        if fingerprint(_stored_english(entry)) != entry["sha256"]:
            problems.append(Problem(stem, cell_id, "invalid", "the stored English (\"en\") does not match its stamp "
                                    f"(edited by hand?): run `python -m tools.translations stamp {stem} {cell_id}`"))
        if entry["type"] == "markdown":
            if not "\n".join(entry["zh"]).strip():
                problems.append(Problem(stem, cell_id, "missing", f'the translation ("zh") in {path} is empty'))
            else:
                differences = invariant_differences(cell.source, "\n".join(entry["zh"]))
                if differences:
                    problems.append(Problem(stem, cell_id, "invalid", "the translation must keep the English's code, "
                                            "formulas, link targets and headings: " + "; ".join(differences)))
                numbers = number_differences(cell.source, "\n".join(entry["zh"]))
                if numbers:
                    problems.append(Problem(stem, cell_id, "invalid", "the translation must keep the English's "
                                            "numbers: " + "; ".join(numbers)))
        else:
            comments = translatable_comments(cell.source)
            for pair in entry["comments"]:
                if pair["en"] in comments:
                    error = _comment_translation_error(pair["zh"], pair["en"])
                    if error:
                        kind = "missing" if error == "has no translation" else "invalid"
                        problems.append(Problem(stem, cell_id, kind, f"comment {pair['en']!r} {error}"))
                    elif numbers := number_differences(pair["en"], pair["zh"]):
                        problems.append(Problem(stem, cell_id, "invalid", f"comment {pair['en']!r}: the translation "
                                                "must keep its numbers: " + "; ".join(numbers)))
            stored = {pair["en"] for pair in entry["comments"]}
            for text in comments:
                if text not in stored:
                    problems.append(Problem(stem, cell_id, "missing", f"comment {text!r} has no translation"))
            for text in sorted(stored - set(comments)):
                problems.append(Problem(stem, cell_id, "unused", f"a translation for comment {text!r}, which the "
                                        "cell does not have: delete it"))
    if only is None:  # a notebook's translation (not the shared set-up cell): how its Chinese reads
        problems += [Problem(stem, slip.cell, "style", f"{slip.rule}: {slip.text} (see tools/zh_style.py)")
                     for slip in zh_style.notebook_slips(stem, cells)]
    for cell_id in cells:
        if cell_id in wanted or not in_scope(cell_id):
            continue
        if cell_id not in by_id:
            why = "the English notebook has no cell with this id (delete the entry, or move it to the cell's new id)"
        else:
            why = "the cell has nothing to translate any more (no text, or no comments): delete the entry"
        problems.append(Problem(stem, cell_id, "unused", f"a translation in {path}, but {why}"))
    return problems


def compare_editions(entry: Notebook) -> list[Problem]:
    """Problems of the stored Chinese notebook against the stored English one: the same
    cells (ids, types, metadata), the same code once comments are removed (tokenize), the
    same outputs and execution counts."""
    zh_path = entry.zh.path
    if not zh_path.is_file():
        return [Problem(entry.stem, None, "missing", f"there is no Chinese notebook {entry.zh.repo_path}: "
                        "run `make sync`")]
    english, chinese = generated.read_notebook(entry.path), generated.read_notebook(zh_path)
    en_ids = [cell.get("id") for cell in english.cells]
    zh_ids = [cell.get("id") for cell in chinese.cells]
    if en_ids != zh_ids:
        return [Problem(entry.stem, None, "drift", f"the Chinese notebook's cells {zh_ids} differ from the English "
                        f"notebook's {en_ids}: run `make sync`")]
    problems = []
    for en, zh in zip(english.cells, chinese.cells, strict=True):
        if en.cell_type != zh.cell_type:
            problems.append(Problem(entry.stem, en.id, "drift", f"a {zh.cell_type} cell in Chinese, {en.cell_type} "
                                    "in English"))
            continue
        if en.metadata != zh.metadata:
            problems.append(Problem(entry.stem, en.id, "drift", "the cell's metadata (tags) differ from the English"))
        if en.cell_type != "code":
            continue
        try:
            en_code, zh_code = strip_comments(en.source), strip_comments(zh.source)
        except ValueError as error:
            problems.append(Problem(entry.stem, en.id, "invalid", str(error)))
            continue
        if en_code != zh_code:
            diff = difflib.unified_diff(en_code.split("\n"), zh_code.split("\n"), "English", "Chinese", lineterm="")
            problems.append(Problem(entry.stem, en.id, "drift", "the code without comments differs from the English:\n"
                                    + "\n".join(diff)))
        if en.outputs != zh.outputs or en.execution_count != zh.execution_count:
            problems.append(Problem(entry.stem, en.id, "drift", "the outputs differ from the English: run `make sync`"))
    return problems


def _english_notebooks() -> dict[Notebook, nbformat.NotebookNode]:
    """Every English notebook as ``make sync`` writes it (header, set-up and footer in place)."""
    return {entry: generated.sync_notebook(generated.read_notebook(entry.path), entry) for entry in manifest.NOTEBOOKS}


def _check_file(stem: str, english: nbformat.NotebookNode, only: tuple[str, ...] | None = None) -> list[Problem]:
    try:
        cells = load(stem)
    except TranslationFileError as error:
        return [Problem(stem, None, "invalid", str(error))]
    return check_translation(stem, english, cells, only)


def check(stems: list[str] | None = None) -> list[Problem]:
    """Everything a person must fix in the Chinese edition (empty: the edition is complete).

    For each notebook (or only ``stems``): its title, its translation (missing, stale,
    unused or malformed entries) and the stored Chinese notebook against the English;
    then the shared set-up cell and Chinese notebooks the manifest does not list.
    """
    problems: list[Problem] = []
    english = _english_notebooks()
    for entry, nb in english.items():
        if stems and entry.stem not in stems:
            continue
        problems += check_title(entry)
        problems += _check_file(entry.stem, nb)
        problems += compare_editions(entry)
    if not stems or SHARED in stems:
        seen = set()
        for nb in english.values():  # the set-up cell is the same in every notebook: check each variant once
            setup = [cell.source for cell in nb.cells if cell.get("id") == generated.SETUP_ID]
            if setup and setup[0] not in seen:
                seen.add(setup[0])
                problems += [p for p in _check_file(SHARED, nb, only=SHARED_IDS) if p not in problems]
        listed = {entry.filename for entry in manifest.NOTEBOOKS}
        for path in sorted((manifest.NOTEBOOK_DIR / "zh").glob("*.ipynb")):
            if path.name not in listed:
                problems.append(Problem(path.stem, None, "unused", f"{_repo(path)} has no English notebook in the "
                                        "manifest: delete it (and its translation)"))
    if not stems or README_KEY in stems:
        problems += check_readme()
    return problems


TITLES = "_titles"  # the English titles that the manifest's title_zh were translated from


def load_title_stamps() -> dict[str, dict]:
    """``translations/_titles.json``: per notebook stem, the English title its ``title_zh`` was
    translated from (``en``) and that title's SHA-256 (``sha256``)."""
    path = translation_path(TITLES)
    if not path.is_file():
        return {}
    data = _read_json(path)
    titles = data.get("titles") if isinstance(data, dict) else None
    if not isinstance(titles, dict) or not all(isinstance(t, dict) and isinstance(t.get("sha256"), str)
                                               for t in titles.values()):
        raise TranslationFileError(f'{_repo(path)}: expected {{"titles": {{stem: {{"en", "sha256"}}}}}}')
    return titles


def check_title(entry: Notebook) -> list[Problem]:
    """The manifest's ``title_zh`` of ``entry`` against the stamp of its English ``title``."""
    if not entry.title_zh.strip():
        return [Problem(entry.stem, None, "missing", "the manifest entry has no title_zh (tools/manifest.py)")]
    try:
        stored = load_title_stamps().get(entry.stem)
    except TranslationFileError as error:
        return [Problem(entry.stem, None, "invalid", str(error))]
    how = f"then run `python -m tools.translations stamp-title {entry.stem}`"
    if stored is None:
        return [Problem(entry.stem, None, "missing", f"title_zh {entry.title_zh!r} has no stamp in "
                        f"{_repo(translation_path(TITLES))}: check it translates {entry.title!r}, {how}")]
    if stored["sha256"] != fingerprint(entry.title):
        return [Problem(entry.stem, None, "stale", f"stale title: the English title changed from "
                        f"{stored.get('en')!r} to {entry.title!r} since title_zh {entry.title_zh!r} was translated. "
                        f"Update title_zh in tools/manifest.py, {how}")]
    return []


def stamp_titles(stems: list[str]) -> None:
    """Mark the ``title_zh`` of ``stems`` as translated from their current English titles."""
    by_stem = {entry.stem: entry for entry in manifest.NOTEBOOKS}
    for stem in stems:
        if stem not in by_stem:
            raise SystemExit(f"unknown notebook {stem!r}; expected one of: {', '.join(by_stem)}")
    titles = load_title_stamps()
    for stem in stems:
        titles[stem] = {"en": by_stem[stem].title, "sha256": fingerprint(by_stem[stem].title)}
    order = {entry.stem: i for i, entry in enumerate(manifest.NOTEBOOKS)}
    titles = dict(sorted(titles.items(), key=lambda item: order.get(item[0], len(order))))
    path = translation_path(TITLES)
    path.write_text(json.dumps({"titles": titles}, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def problems_summary() -> str:
    """One line for ``make sync``: whether the Chinese edition needs a translator."""
    problems = check()
    if not problems:
        return "Chinese edition: every translation is present and up to date"
    kinds = sorted({p.kind for p in problems})
    return (f"Chinese edition: {len(problems)} translation problem(s) ({', '.join(kinds)}); "
            "`python -m tools.translations check` lists them, and the tests fail until a person fixes them")


# --- generating the Chinese notebooks and README -----------------------------------------

def zh_cell(cell: nbformat.NotebookNode, entry: dict | None) -> nbformat.NotebookNode:
    """The Chinese twin of an English body cell, given its translation entry (or None).

    Code: the English cell (code, metadata, outputs) with the translated comments
    swapped in; a comment without a usable translation stays English. Markdown: the
    translation, with relative links rebased to ``notebooks/zh/``; a cell without one
    shows the English text under an "untranslated" marker. A stale translation is used
    as it is (the check reports it).
    """
    new = copy.deepcopy(cell)
    usable = entry is not None and _entry_error(entry) is None and entry["type"] == cell.cell_type
    if cell.cell_type == "code" and usable:
        swaps = {c["en"]: c["zh"] for c in entry["comments"] if _comment_translation_error(c["zh"], c["en"]) is None}
        new.source = translate_comments(cell.source, swaps)
    elif cell.cell_type == "markdown" and is_translatable(cell):
        text = "\n".join(entry["zh"]) if usable else ""
        new.source = rebase_for_zh(text) if text.strip() else f"{UNTRANSLATED}\n{rebase_for_zh(cell.source)}"
    return new


def zh_notebook(entry: Notebook, english: nbformat.NotebookNode, cells: dict[str, dict] | None,
                shared: dict[str, dict] | None) -> nbformat.NotebookNode:
    """The Chinese notebook generated from the English one (as ``make sync`` writes it)."""
    nb = copy.deepcopy(english)
    out = []
    for cell in english.cells:
        cell_id = cell.get("id")
        if cell_id == generated.HEADER_ID:
            new = generated.markdown_cell(cell_id, generated.header_source(entry.zh))
        elif cell_id == generated.FOOTER_ID:
            new = generated.markdown_cell(cell_id, generated.footer_source(entry.zh))
        elif cell_id in SHARED_IDS:
            new = zh_cell(cell, (shared or {}).get(cell_id))
        else:
            new = zh_cell(cell, (cells or {}).get(cell_id))
        out.append(new)
    nb.cells = out
    return generated.collapse_generated(nb, "zh")


def planned_text_files() -> dict[Path, str]:
    """The Chinese notebooks and README.zh.md, as ``make sync`` writes them."""
    planned, answer = {}, None
    shared = load(SHARED)
    for entry, english in _english_notebooks().items():
        chinese = zh_notebook(entry, english, load(entry.stem), shared)
        planned[entry.zh.path] = generated.dumps_notebook(chinese)
        if entry == generated.answer_notebook():
            answer = generated.answer_cell_source(chinese, entry.zh)
    readme = readme_zh_path()
    if not readme.is_file():
        raise FileNotFoundError(f"{_repo(readme)} is missing: the Chinese README holds the table of Chinese notebooks")
    planned[readme] = generated.sync_readme(readme.read_text(encoding="utf-8"), manifest.CHINESE, answer)
    return planned


# --- README.zh.md: each `##` section stamped against its English source ------------------

README_KEY = "_readme"  # the stamps of README.zh.md's sections: translations/_readme.json
_INTRO = "(introduction)"  # the name of the text before the first `##` heading
#: The blocks `make sync` writes into both READMEs, left out of the sections' stamps: the table of notebooks
#: (from the manifest, whose titles are stamped on their own) and the answer (notebook 0's cell ``answer``,
#: whose translation is stamped as that cell's).
_GENERATED_BLOCKS = {
    generated.TABLE_BLOCK: "<!-- notebooks table (generated) -->",
    generated.ANSWER_BLOCK: "<!-- the answer (generated) -->",
}


def readme_en_path() -> Path:
    return manifest.ROOT / manifest.ENGLISH.readme


def readme_sections(text: str) -> list[tuple[str, str]]:
    """``text`` cut at its ``## `` headings (outside fenced code): ``(heading, section text)``
    pairs in order, the first one the introduction before any heading (named :data:`_INTRO`).
    The generated blocks are left out (:data:`_GENERATED_BLOCKS`: the table of notebooks and the
    answer); trailing blank lines do not count."""
    sections: list[tuple[str, list[str]]] = [(_INTRO, [])]
    fence = None
    for line in text.split("\n"):
        marker = re.match(r"(```|~~~)", line)
        if marker:
            fence = None if fence == marker.group(1) else (fence or marker.group(1))
        if fence is None and line.startswith("## "):
            sections.append((line.strip(), []))
        sections[-1][1].append(line)
    return [(heading, _without_generated_blocks("\n".join(lines)).rstrip()) for heading, lines in sections]


def _without_generated_blocks(text: str) -> str:
    for pattern, placeholder in _GENERATED_BLOCKS.items():
        text = pattern.sub(placeholder, text)
    return text


def _readme_stamps_path() -> Path:
    return translation_path(README_KEY)


def load_readme_stamps() -> list[dict] | None:
    """The stored section stamps of README.zh.md (``None``: no file): per section, in order,
    the English heading, the English text it was translated from and its SHA-256."""
    path = _readme_stamps_path()
    if not path.is_file():
        return None
    data = _read_json(path)
    sections = data.get("sections") if isinstance(data, dict) else None
    if not (isinstance(sections, list) and all(
            isinstance(s, dict) and isinstance(s.get("heading"), str) and isinstance(s.get("sha256"), str)
            and isinstance(s.get("en"), list) for s in sections)):
        raise TranslationFileError(f'{_repo(path)}: expected {{"sections": [{{"heading", "sha256", "en"}}, ...]}}')
    return sections


def _section_name(heading: str) -> str:
    return heading[3:] if heading.startswith("## ") else heading


def check_readme() -> list[Problem]:
    """Problems of README.zh.md against README.md: the same number of ``##`` sections, and
    each Chinese section stamped against the current text of its English section (by order)."""
    zh_path, en_path = readme_zh_path(), readme_en_path()
    where = _repo(zh_path) if zh_path.is_relative_to(manifest.ROOT) else str(zh_path)
    if not zh_path.is_file():
        return [Problem(where, None, "missing", "there is no Chinese README")]
    english = readme_sections(en_path.read_text(encoding="utf-8"))
    chinese = readme_sections(zh_path.read_text(encoding="utf-8"))
    if len(english) != len(chinese):
        return [Problem(where, None, "invalid", f"README.zh.md has {len(chinese) - 1} `##` sections, README.md has "
                        f"{len(english) - 1} ({', '.join(h for h, _ in english[1:])}): translate each section, in the "
                        "same order")]
    try:
        stamps = load_readme_stamps()
    except TranslationFileError as error:
        return [Problem(where, None, "invalid", str(error))]
    by_heading = {s["heading"]: s for s in stamps or []}
    problems = []
    for (heading, text), (zh_heading, _) in zip(english, chinese, strict=True):
        name = _section_name(heading)
        stored = by_heading.get(heading)
        if stored is None or not stored["sha256"]:
            problems.append(Problem(where, heading, "missing", f"the section {zh_heading!r} has no stamp for the "
                                    f"English section {heading!r}: translate it, then run "
                                    f"`python -m tools.translations stamp-readme {name!r}`"))
            continue
        if fingerprint(text) != stored["sha256"]:
            diff = difflib.unified_diff(stored["en"], text.split("\n"), f"{heading} (English, as translated)",
                                        f"{heading} (English, now)", lineterm="")
            problems.append(Problem(where, heading, "stale", f"stale translation of section {zh_heading!r}: the "
                                    f"English section {heading!r} of README.md changed since it was translated. Update "
                                    f"the Chinese, then run `python -m tools.translations stamp-readme {name!r}`. "
                                    "The English change:\n" + "\n".join(diff)))
    problems += [Problem(where, None, "style", f"{slip.rule}: {slip.text} (see tools/zh_style.py)")
                 for slip in zh_style.readme_slips(zh_path.read_text(encoding="utf-8"))]
    headings = {heading for heading, _ in english}
    for extra in [h for h in by_heading if h not in headings]:
        problems.append(Problem(where, extra, "unused", f"a stamp in {_repo(_readme_stamps_path())} "
                                "for a section README.md no longer has: re-stamp the sections "
                                "(`python -m tools.translations stamp-readme <section>`) after translating"))
    return problems


def stamp_readme(names: list[str]) -> list[str]:
    """Stamp the README.zh.md sections whose English headings are ``names`` (without the
    ``## ``; :data:`_INTRO` for the introduction; ``["--all"]`` for every section) against the
    current README.md. Only for a person who has just brought those sections up to date.
    Returns the headings stamped."""
    english = readme_sections(readme_en_path().read_text(encoding="utf-8"))
    known = {_section_name(heading): i for i, (heading, _) in enumerate(english)}
    if names == ["--all"]:
        names = list(known)
    for name in names:
        if name not in known:
            raise SystemExit(f"README.md has no section {name!r}; sections: {', '.join(map(repr, known))}")
    by_heading = {s["heading"]: s for s in load_readme_stamps() or []}
    stamps = [by_heading.get(heading) for heading, _ in english]
    for name in names:
        heading, text = english[known[name]]
        stamps[known[name]] = {"heading": heading, "sha256": fingerprint(text), "en": text.split("\n")}
    # a section never stamped keeps an empty stamp, so the check still reports it
    stamps = [stored or {"heading": heading, "sha256": "", "en": []}
              for stored, (heading, _) in zip(stamps, english, strict=True)]
    path = _readme_stamps_path()
    data = {"readme": "README.zh.md", "source": "README.md", "sections": stamps}
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return [english[known[name]][0] for name in names]


# --- command line -------------------------------------------------------------------------

def _english_for(stem: str) -> nbformat.NotebookNode:
    english = _english_notebooks()
    if stem == SHARED:
        return next(iter(english.values()))
    for entry, nb in english.items():
        if entry.stem == stem:
            return nb
    known = ", ".join([entry.stem for entry in manifest.NOTEBOOKS] + [SHARED])
    raise SystemExit(f"unknown notebook {stem!r}; expected one of: {known}")


def _translatable_ids(stem: str, english: nbformat.NotebookNode) -> list[str]:
    ids = [cell.id for cell in english.cells if is_translatable(cell)]
    return [i for i in ids if i in SHARED_IDS] if stem == SHARED else [i for i in ids if i not in SHARED_IDS]


def init(stem: str) -> list[str]:
    """Add an empty, stamped entry for every cell of ``stem`` that has none. Returns their ids."""
    english = _english_for(stem)
    cells = load(stem) or {}
    by_id = {cell.get("id"): cell for cell in english.cells}
    order = _translatable_ids(stem, english)
    added = [cell_id for cell_id in order if cell_id not in cells]
    for cell_id in added:
        cells[cell_id] = new_entry(by_id[cell_id])
    save(stem, cells, order)
    return added


def stamp(stem: str, cell_ids: list[str]) -> None:
    """Mark the translations of ``cell_ids`` as made from the current English.

    Only for a person who has just brought the Chinese up to date: the stamp is what
    makes a stale translation pass. Comments that changed lose their translation.
    """
    english = _english_for(stem)
    cells = load(stem)
    if cells is None:
        raise SystemExit(f"there is no {_repo(translation_path(stem))}; run `python -m tools.translations init {stem}`")
    order = _translatable_ids(stem, english)
    by_id = {cell.get("id"): cell for cell in english.cells}
    for cell_id in cell_ids:
        if cell_id not in order:
            raise SystemExit(f"{stem} has no cell {cell_id!r} with something to translate; cells: {', '.join(order)}")
        if cell_id not in cells:
            raise SystemExit(f"{stem}: cell {cell_id!r} has no translation yet; run `python -m tools.translations "
                             f"init {stem}` first")
    for cell_id in cell_ids:
        cells[cell_id] = new_entry(by_id[cell_id], cells[cell_id])
    save(stem, cells, order)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m tools.translations", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    check_parser = commands.add_parser("check", help="list what is missing, stale or unused; exit 1 if anything")
    check_parser.add_argument("stems", nargs="*", help=f"notebook stems, or {SHARED} (default: everything)")
    init_parser = commands.add_parser("init", help="add an empty entry for every cell that has none")
    init_parser.add_argument("stem", help=f"a notebook stem such as 01_one_hot_matmul, or {SHARED}")
    stamp_parser = commands.add_parser("stamp", help="after updating a translation: mark it as up to date")
    stamp_parser.add_argument("stem")
    stamp_parser.add_argument("cell_ids", nargs="+", metavar="cell-id")
    readme_parser = commands.add_parser("stamp-readme", help="after updating sections of README.zh.md: mark them "
                                        "as up to date with README.md")
    readme_parser.add_argument("sections", nargs="*", metavar="section",
                               help=f"English headings without '## ' (e.g. 'Start'), or {_INTRO!r}")
    readme_parser.add_argument("--all", action="store_true", help="every section")
    title_parser = commands.add_parser("stamp-title", help="after updating title_zh in tools/manifest.py: mark it as "
                                       "translated from the current English title")
    title_parser.add_argument("stems", nargs="+", metavar="stem")
    args = parser.parse_args(argv)

    if args.command == "check":
        unknown = sorted(set(args.stems) - {entry.stem for entry in manifest.NOTEBOOKS} - {SHARED, README_KEY})
        if unknown:
            parser.error(f"unknown notebook(s) {unknown}; expected stems from tools/manifest.py, {SHARED} or "
                         f"{README_KEY}")
        problems = check(args.stems or None)
        for problem in problems:
            print(f"{problem}\n")
        print(f"{len(problems)} problem(s)" if problems else "the Chinese edition is complete and up to date")
        return 1 if problems else 0
    if args.command == "init":
        added = init(args.stem)
        print(f"{_repo(translation_path(args.stem))}: added {len(added)} empty entr{'y' if len(added) == 1 else 'ies'}"
              f"{': ' + ', '.join(added) if added else ''}")
        print('fill in every "zh", then run `make sync` and `python -m tools.translations check`')
        return 0
    if args.command == "stamp-title":
        stamp_titles(args.stems)
        print(f"stamped the titles of {', '.join(args.stems)} in {_repo(translation_path(TITLES))}; run `make sync`")
        return 0
    if args.command == "stamp-readme":
        if not args.sections and not args.all:
            parser.error("name the sections you translated (or --all)")
        stamped = stamp_readme(["--all"] if args.all else args.sections)
        print(f"stamped {', '.join(stamped)} in {_repo(_readme_stamps_path())}")
        return 0
    stamp(args.stem, args.cell_ids)
    print(f"stamped {', '.join(args.cell_ids)} in {_repo(translation_path(args.stem))}; now run `make sync`")
    return 0


if __name__ == "__main__":
    sys.exit(guard(main, "python -m tools.translations"))
