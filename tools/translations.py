"""The Chinese edition, ``notebooks/zh/``: translations kept as stamped data, notebooks generated from them.

``notebooks/zh/translations/<stem>.json`` holds, per cell id, the English a translation was made from
(a markdown cell's lines, ``en``; a code cell's comments, ``comments: [{"en", "zh"}]``, so that its code is
the English code by construction), that English's SHA-256 (``sha256``, the *stamp*) and the Chinese
(``zh``). ``_shared.json`` does the same for the set-up cell that ``make sync`` writes into every notebook;
``_titles.json`` stamps each ``title_zh`` of the manifest against its English title, ``_readme.json`` each
``##`` section of README.zh.md against README.md's. A translation is *stale* when the English changed
since its stamp: the check shows the English change until a person updates the Chinese and stamps it
again (``make sync`` never stamps). ``make sync`` writes ``notebooks/zh/`` (:func:`zh_notebook`: the
English cells, ids, code and outputs, with the translations swapped in) and README.zh.md's generated blocks.

    python -m tools.translations check [<stem> ...]          # what is missing, stale or unused
    python -m tools.translations init <stem>                 # add empty entries for every cell
    python -m tools.translations stamp <stem> <cell-id> ...  # mark a translation as up to date
    python -m tools.translations stamp-readme <section> ...  # the same for sections of README.zh.md
    python -m tools.translations stamp-title <stem> ...      # the same for title_zh in tools/manifest.py
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import functools
import hashlib
import io
import json
import re
import sys
import tokenize
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import jsonschema
import nbformat
from IPython.core.inputtransformer2 import TransformerManager

from utils.cli import OneLineParser

from . import generated, manifest, zh_style
from .cli import guard
from .links import MD_TARGET, rebase_links
from .manifest import Notebook

SHARED, TITLES, README_KEY = "_shared", "_titles", "_readme"  # the files beside the notebooks' own
SHARED_IDS = (generated.SETUP_ID,)
UNTRANSLATED = "<!-- 尚未翻译 (untranslated): the English text follows -->"


class TranslationFileError(ValueError):
    """A translation file that is not valid JSON or not in the expected form."""


def translation_path(stem: str) -> Path:
    """``notebooks/zh/translations/<stem>.json`` (``stem`` may be :data:`SHARED`, :data:`TITLES`...)."""
    return manifest.NOTEBOOK_DIR / "zh" / "translations" / f"{stem}.json"


def readme_zh_path() -> Path:
    return manifest.ROOT / manifest.CHINESE.readme


def _repo(path: Path) -> str:
    return path.relative_to(manifest.ROOT).as_posix() if path.is_relative_to(manifest.ROOT) else str(path)


def fingerprint(text: str) -> str:
    """The stamp: SHA-256 (hex) of the English text a translation was made from."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _diff(old: str, new: str, old_name: str, new_name: str) -> str:
    return "\n".join(difflib.unified_diff(old.split("\n"), new.split("\n"), old_name, new_name, lineterm=""))


# --- comments in code, through tokenize --------------------------------------------------------

_DIRECTIVE = r"#\s*(?:noqa\b|type:|fmt:|pragma\b|pylint:|ruff:|isort:)"  # comments that instruct a tool
#: a directive followed by prose, ``# noqa: F401  (only Colab has it)``: the prose is translated
_PRAGMA_PROSE = re.compile(rf"(?P<directive>{_DIRECTIVE}.*?)(?:\s{{2,}}|\s+(?=[(（]))(?P<prose>\S.*)$")


@functools.lru_cache(maxsize=4096)  # a check reads each cell's comments several times
def comment_tokens(source: str) -> tuple[tuple[int, int, int, str], ...]:
    """Every comment in a code cell as ``(line index, start column, end column, text)``, found with
    :mod:`tokenize` (a ``#`` in a string is not one) once IPython's magics and ``!shell`` lines are blanked.
    None in a ``%%`` cell magic; ``ValueError`` for a cell that tokenize cannot read."""
    if source.lstrip().startswith("%%"):
        return ()
    lines, python = source.split("\n"), TransformerManager().transform_cell(source).split("\n")
    if python[-1] == "" and lines[-1] != "":
        python.pop()
    if len(python) == len(lines):  # blank the lines IPython rewrote, keeping the columns
        source = "\n".join(" " * len(old) if old != new else old for old, new in zip(lines, python, strict=True))
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError) as error:
        raise ValueError(f"tokenize cannot read this code cell ({error}); first lines: {source[:80]!r}") from error
    return tuple((tok.start[0] - 1, tok.start[1], tok.end[1], tok.string) for tok in tokens
                 if tok.type == tokenize.COMMENT)


def pragma_directive(text: str) -> str | None:
    """The tool directive of a comment that goes on with prose (``# noqa: F401  (only Colab has it)``
    -> ``# noqa: F401``); None for any other comment."""
    match = _PRAGMA_PROSE.match(text)
    return match.group("directive") if match else None


def translatable_comments(source: str) -> list[str]:
    """The distinct comments of a code cell, in order, without bare tool directives, ``#@title`` lines
    or solution markers."""
    texts = [text for *_, text in comment_tokens(source)
             if not (generated.TITLE_LINE.match(text) or generated.SOLUTION_MARKER.fullmatch(text))
             and (not re.match(_DIRECTIVE, text) or pragma_directive(text))]
    return list(dict.fromkeys(texts))


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


# --- markdown: what a translation must keep ------------------------------------------------------

#: code (fenced, then spans), then formulas (display, then inline): each cut out before the next is looked for
_CODE = [re.compile(r"^(```|~~~).*?^\1", re.M | re.S), re.compile(r"(`+)(.+?)\1", re.S)]
_MATH = [re.compile(r"\$\$(.+?)\$\$", re.S), re.compile(r"\$([^$\n]+?)\$")]
_TEXT_IN_MATH = re.compile(r"\\text\{(?:[^{}]|\{[^{}]*\})*\}")  # words in a formula, which may be translated


def markdown_invariants(text: str) -> dict[str, list[str]]:
    """What a translated markdown cell keeps from the English: code (spans and fenced blocks), formulas
    (but the words in their ``\\text{}``), link targets, and the levels of its headings."""
    found = {"code": [], "formulas": []}
    for key, patterns in (("code", _CODE), ("formulas", _MATH)):
        for pattern in patterns:
            found[key] += [m.group(0) for m in pattern.finditer(text)]
            text = pattern.sub(" ", text)
    return {"code": sorted(set(found["code"])),
            "formulas": sorted({_TEXT_IN_MATH.sub(r"\\text{…}", f) for f in found["formulas"]}),
            "link targets": sorted({match.group(2) for match in MD_TARGET.finditer(text)}),
            "heading levels": [line.split(" ", 1)[0] for line in text.splitlines() if re.match(r"#{1,6} ", line)]}


def _both_ways(key: str, missing: Iterable[str], extra: Iterable[str]) -> list[str]:
    """``<key> missing: ...`` and ``<key> not in the English: ...``, for those that are not empty."""
    return [f"{key} {label}: {', '.join(found)}" for label, found in (("missing", list(missing)),
                                                                     ("not in the English", list(extra))) if found]


def invariant_differences(english: str, chinese: str) -> list[str]:
    """How ``chinese`` fails to keep :func:`markdown_invariants` of ``english`` (empty: it keeps them)."""
    want, got = markdown_invariants(english), markdown_invariants(chinese)
    differences = [difference for key in ("code", "formulas", "link targets") for difference in _both_ways(
        key, [x for x in want[key] if x not in got[key]], [x for x in got[key] if x not in want[key]])]
    if want["heading levels"] != got["heading levels"]:
        differences.append(f"heading levels {got['heading levels']}, expected {want['heading levels']}")
    return differences


_NUMBER = re.compile(r"\d+(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?")  # 0.1195, 50,257 (read as 50257), 2
_RECIPROCAL = re.compile(r"(?<![\d.,])1(?:/| in )(?=\d)")  # the 1 of "1/N" or "1 in N" (Chinese: 只有……的 1/N)
_SCALED = re.compile(r"(\d+(?:\.\d+)?)\s*(thousand|million|billion|万|亿)")  # "1.7 million" is "170 万"
_SCALE = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "万": 10**4, "亿": 10**8}
#: Numbers one language writes as a word and the other in digits ("zero" and 0, 两 and 2, "2-D" and 二维,
#: "November 2026" and 2026 年 11 月): a number in digits on one side only passes where the other has the word.
_NUMBER_WORDS = {**{w: n for n, w in enumerate("zero one two three four five six seven eight nine ten".split())},
                 "zeros": 0, "zeroes": 0, "ones": 1, "once": 1, "single": 1, "twice": 2, "both": 2, "pair": 2,
                 "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "unit": 1,
                 **{m: n for n, m in enumerate("january february march april may june july august september october "
                                               "november december".split(), start=1)},
                 **{c: n for n, c in enumerate("零一二三四五六七八九十")}, "〇": 0, "两": 2, "双": 2}


def _prose(text: str) -> str:
    """``text`` without code, formulas and link targets, which :func:`invariant_differences` compares."""
    for pattern in [*_CODE, *_MATH]:
        text = pattern.sub(" ", text)
    return re.sub(r"\]\([^)]*\)", "] ", text)


def prose_numbers(text: str) -> list[str]:
    """The numbers of a text's prose, sorted, in a form either language's prose compares by."""
    def scaled(match: re.Match) -> str:
        return format((Decimal(match.group(1)) * _SCALE[match.group(2)]).normalize(), "f")

    rest = _SCALED.sub(scaled, _RECIPROCAL.sub("", _prose(text)))
    return sorted(m.group(0).replace(",", "") for m in _NUMBER.finditer(rest))


def number_differences(english: str, chinese: str) -> list[str]:
    """How the numbers of ``chinese``'s prose differ from those of ``english`` (empty: the same)."""
    def as_words(text: str) -> Counter:  # the numbers a text writes as words, for those the other writes in digits
        words = re.findall(r"[A-Za-z]+|[零〇一二两三四五六七八九十双]", _prose(text).lower())
        return Counter(str(_NUMBER_WORDS[word]) for word in words if word in _NUMBER_WORDS)

    en, zh = Counter(prose_numbers(english)), Counter(prose_numbers(chinese))
    return _both_ways("numbers", ((en - zh) - as_words(chinese)).elements(), ((zh - en) - as_words(english)).elements())


def rebase_for_zh(text: str) -> str:
    """A markdown cell's links, written for ``notebooks/``, rewritten for ``notebooks/zh/``: other
    notebooks stay (the link goes to their Chinese twin), the README becomes README.zh.md."""
    return rebase_links(text, manifest.NOTEBOOK_DIR, manifest.CHINESE.folder,
                        {manifest.ENGLISH.readme: manifest.CHINESE.readme})


# --- translation files ----------------------------------------------------------------------------

_LINES = {"type": "array", "items": {"type": "string"}}
_SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
#: ``<stem>.json`` and ``_shared.json``: per cell id, a markdown cell's English and Chinese lines, or a code
#: cell's comments (each with its Chinese), stamped with the SHA-256 of that English
NOTEBOOK_SCHEMA = {"type": "object", "required": ["notebook", "cells"], "properties": {
    "notebook": {"type": "string"},
    "cells": {"type": "object", "additionalProperties": {
        "type": "object", "required": ["type", "sha256"],
        "properties": {"type": {"enum": ["markdown", "code"]}, "sha256": _SHA256},
        "allOf": [{"if": {"properties": {"type": {"const": "markdown"}}},
                   "then": {"required": ["en", "zh"], "properties": {"en": _LINES, "zh": _LINES}}},
                  {"if": {"properties": {"type": {"const": "code"}}},
                   "then": {"required": ["comments"], "properties": {"comments": {"type": "array", "items": {
                       "type": "object", "required": ["en", "zh"],
                       "properties": {"en": {"type": "string"}, "zh": {"type": "string"}}}}}}}]}}}}
#: ``_titles.json`` and ``_readme.json``: per notebook stem (its title) or README.md heading (its section), the
#: English lines a translation was made from and their SHA-256 (see :func:`stamped`)
STAMPS_SCHEMA = {"type": "object", "required": ["stamps"], "properties": {"stamps": {
    "type": "object", "additionalProperties": {"type": "object", "required": ["en", "sha256"],
                                               "properties": {"en": _LINES, "sha256": _SHA256}}}}}


def stamped(text: str) -> dict:
    """The stamp of a translation made from the English ``text``: its lines and their SHA-256."""
    return {"en": text.split("\n"), "sha256": fingerprint(text)}


def english_text(cell: nbformat.NotebookNode) -> str:
    """What a translation of ``cell`` is made from: a markdown cell's source, or a code cell's comments."""
    return "\n".join(translatable_comments(cell.source)) if cell.cell_type == "code" else cell.source


def is_translatable(cell: nbformat.NotebookNode) -> bool:
    """Markdown with text, or code with comments; not the generated header and footer."""
    return cell.get("id") not in (generated.HEADER_ID, generated.FOOTER_ID) and bool(
        cell.source.strip() if cell.cell_type == "markdown" else translatable_comments(cell.source))


def new_entry(cell: nbformat.NotebookNode, old: dict | None = None) -> dict:
    """An entry stamped with the cell's current English, keeping what ``old`` translated of it (markdown:
    the Chinese; code: the translations of comments that did not change)."""
    old = old if old and old["type"] == cell.cell_type else {}
    if cell.cell_type == "markdown":
        return {"type": "markdown", **stamped(cell.source), "zh": old.get("zh", [])}
    known = {pair["en"]: pair["zh"] for pair in old.get("comments", [])}
    return {"type": "code", "sha256": fingerprint(english_text(cell)),
            "comments": [{"en": text, "zh": known.get(text, "")} for text in translatable_comments(cell.source)]}


def _entry_stamp(entry: dict) -> dict:
    """An entry's stamp (:func:`stamped`): a code entry's English is its comments."""
    return entry if entry["type"] == "markdown" else {"en": [pair["en"] for pair in entry["comments"]],
                                                      "sha256": entry["sha256"]}


def _read(stem: str, schema: dict) -> dict | None:
    """``translations/<stem>.json`` (None: no file); :class:`TranslationFileError` naming the file, and the
    place in it, where it is not valid JSON or not in the form ``schema`` describes."""
    path = translation_path(stem)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise TranslationFileError(f"{_repo(path)} is not valid JSON: {error}") from error
    if error := jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(data)):
        raise TranslationFileError(f"{_repo(path)}: {error.json_path}: {error.message}")
    return data


def _write(stem: str, data: dict) -> Path:
    path = translation_path(stem)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path


def load(stem: str) -> dict[str, dict] | None:
    """The entries of ``translations/<stem>.json`` by cell id; None when there is no file."""
    data = _read(stem, NOTEBOOK_SCHEMA)
    if data is not None and data["notebook"] != stem:
        raise TranslationFileError(f'{_repo(translation_path(stem))}: "notebook" is {data["notebook"]!r}, '
                                   f"expected {stem!r}")
    return None if data is None else data["cells"]


def save(stem: str, cells: dict[str, dict], order: list[str]) -> Path:
    """Write ``translations/<stem>.json``: entries in notebook order (``order``), then the rest."""
    ranked = {cell_id: i for i, cell_id in enumerate(order)}
    ordered = dict(sorted(cells.items(), key=lambda item: ranked.get(item[0], len(ranked))))
    return _write(stem, {"notebook": stem, "cells": ordered})


def _stamps(key: str) -> dict[str, dict]:
    """The stamps of :data:`TITLES` or :data:`README_KEY` by name (empty: no file)."""
    return (_read(key, STAMPS_SCHEMA) or {"stamps": {}})["stamps"]


def _restamp(key: str, english: dict[str, str], names: list[str], kind: str) -> None:
    """Stamp the translations of ``names`` against their current English (``english``: name -> text) in
    ``translations/<key>.json``, which keeps the stamps in ``english``'s order and drops those it lacks."""
    if unknown := [name for name in names if name not in english]:
        raise SystemExit(f"unknown {kind} {unknown[0]!r}; expected one of: {', '.join(map(repr, english))}")
    stamps = {**_stamps(key), **{name: stamped(english[name]) for name in names}}
    _write(key, {"stamps": {name: stamps[name] for name in english if name in stamps}})


# --- checking ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Problem:
    """Something a person must fix in the Chinese edition."""

    notebook: str  # a stem, SHARED, or README.zh.md
    cell: str | None  # a cell id (a README's section heading); None for the whole file
    kind: str  # missing | stale | unused | invalid | drift | style
    message: str

    def __str__(self) -> str:
        kind = "section" if self.notebook.endswith(".md") else "cell"
        return f"{self.notebook}: {kind} {self.cell!r}: {self.message}" if self.cell else \
            f"{self.notebook}: {self.message}"


def _command(args: str) -> str:
    return f"`python -m tools.translations {args}`"


def _stamp_problem(stored: dict | None, now: str, label: str, update: str, command: str) -> tuple[str, str] | None:
    """``(kind, message)`` when a translation's stamp (``stored``, None: never stamped) does not match ``now``,
    the current English (``label`` names it in the diff); ``update`` says what a person updates, ``command``
    the :func:`main` command that stamps it again."""
    run = f"run {_command(command)}"
    if stored is None:
        return "missing", f"no stamp: check that {update} translates the English, then {run}"
    english = "\n".join(stored["en"])
    if fingerprint(now) != stored["sha256"]:
        return "stale", (f"stale translation: the English changed since it was translated. Update {update}, then "
                         f"{run}. The English change:\n"
                         + _diff(english, now, f"{label} (English, as translated)", f"{label} (English, now)"))
    if fingerprint(english) != stored["sha256"]:
        return "invalid", f'the stored English ("en") does not match its stamp (edited by hand?): {run}'
    return None


def _style_problems(where: str, slips: list[zh_style.Slip]) -> list[Problem]:
    return [Problem(where, slip.cell, "style", f"{slip.rule}: {slip.text} (see tools/zh_style.py)") for slip in slips]


def _entry_problems(stem: str, cell: nbformat.NotebookNode, entry: dict) -> list[tuple[str, str]]:
    """``(kind, message)`` for each problem of the translation ``entry`` of ``cell``."""
    path, cell_id = _repo(translation_path(stem)), cell.get("id")
    if entry["type"] != cell.cell_type:
        return [("stale", f"the cell is now a {cell.cell_type} cell, but its translation is for a {entry['type']} "
                 "cell: replace the entry")]
    stamp = _stamp_problem(_entry_stamp(entry), english_text(cell), cell_id, f"the Chinese in {path}",
                           f"stamp {stem} {cell_id}")
    if stamp and stamp[0] == "stale":
        return [stamp]  # the rest would only repeat it
    found = [stamp] if stamp else []
    if entry["type"] == "markdown":
        zh = "\n".join(entry["zh"])
        if not zh.strip():
            return [*found, ("missing", f'the translation ("zh") in {path} is empty')]
        kept = {"code, formulas, link targets and headings": invariant_differences(cell.source, zh),
                "numbers": number_differences(cell.source, zh)}
        return found + [("invalid", f"the translation must keep the English's {what}: " + "; ".join(differences))
                        for what, differences in kept.items() if differences]
    comments, translated = translatable_comments(cell.source), {pair["en"]: pair["zh"] for pair in entry["comments"]}
    for text in comments:
        if error := _comment_translation_error(translated.get(text, ""), text):
            found.append(("missing" if error == "has no translation" else "invalid", f"comment {text!r} {error}"))
        elif numbers := number_differences(text, translated[text]):
            found.append(("invalid", f"comment {text!r}: the translation must keep its numbers: " + "; ".join(numbers)))
    return found + [("unused", f"a translation for comment {text!r}, which the cell does not have: delete it")
                    for text in sorted(set(translated) - set(comments))]


def _in_file(stem: str, cell_id: str) -> bool:
    """Whether the translation of cell ``cell_id`` belongs in ``stem``'s file: the set-up cell in :data:`SHARED`'s,
    the others in their notebook's."""
    return (cell_id in SHARED_IDS) == (stem == SHARED)


def _translated_cells(stem: str, english: nbformat.NotebookNode) -> dict[str, nbformat.NotebookNode]:
    """The cells of ``english`` with something to translate in ``stem``'s file, by id."""
    return {cell.get("id"): cell for cell in english.cells if _in_file(stem, cell.get("id")) and is_translatable(cell)}


def check_translation(stem: str, english: nbformat.NotebookNode, cells: dict[str, dict] | None) -> list[Problem]:
    """Problems of the translation ``cells`` (None: no file) of the notebook ``english`` (:data:`SHARED`: of
    its set-up cell)."""
    path = _repo(translation_path(stem))
    if cells is None:
        return [Problem(stem, None, "missing", f"there is no translation, {path}: run {_command(f'init {stem}')} "
                        "and translate every entry")]
    by_id, wanted = {cell.get("id"): cell for cell in english.cells}, _translated_cells(stem, english)
    problems = []
    for cell_id, cell in wanted.items():
        found = _entry_problems(stem, cell, cells[cell_id]) if cell_id in cells else [
            ("missing", f"the {cell.cell_type} cell has no translation in {path} ({_command(f'init {stem}')} adds "
             "an empty entry)")]
        problems += [Problem(stem, cell_id, kind, message) for kind, message in found]
    if stem != SHARED:  # a notebook's own translation: how its Chinese reads
        problems += _style_problems(stem, zh_style.notebook_slips(stem, cells))
    for cell_id in (cid for cid in cells if cid not in wanted and _in_file(stem, cid)):
        why = ("the English notebook has no cell with this id (delete the entry, or move it to the cell's new id)"
               if cell_id not in by_id else
               "the cell has nothing to translate any more (no text, or no comments): delete the entry")
        problems.append(Problem(stem, cell_id, "unused", f"a translation in {path}, but {why}"))
    return problems


def compare_editions(entry: Notebook, planned: nbformat.NotebookNode) -> list[Problem]:
    """The stored Chinese notebook against ``planned``, the one ``make sync`` writes from the English notebook
    and the translations: a hand edit, or English code or outputs that ``make sync`` has not carried over."""
    if not entry.zh.path.is_file():
        return [Problem(entry.stem, None, "missing", f"there is no Chinese notebook {entry.zh.repo_path}: "
                        "run `make sync`")]
    stored = {cell.get("id"): cell for cell in generated.read_notebook(entry.zh.path).cells}
    planned = nbformat.reads(generated.dumps_notebook(planned), as_version=4)  # as it would be stored
    if list(stored) != [cell.get("id") for cell in planned.cells]:
        return [Problem(entry.stem, None, "drift", f"the Chinese notebook's cells {list(stored)} differ from the "
                        f"English notebook's {[cell.get('id') for cell in planned.cells]}: run `make sync`")]
    problems = []
    for new in planned.cells:
        old = stored[new.get("id")]
        if old.source != new.source:
            problems.append(Problem(entry.stem, new.id, "drift", "the cell is not what `make sync` writes from the "
                                    "English and the translation: run `make sync`. The difference:\n"
                                    + _diff(old.source, new.source, "stored", "sync")))
        if {**old, "source": ""} != {**new, "source": ""}:
            problems.append(Problem(entry.stem, new.id, "drift", "the cell's type, metadata or outputs differ from "
                                    "the English: run `make sync`"))
    return problems


def _english_notebooks() -> dict[Notebook, nbformat.NotebookNode]:
    """Every English notebook as ``make sync`` writes it (header, set-up and footer in place)."""
    return {entry: generated.sync_notebook(generated.read_notebook(entry.path), entry) for entry in manifest.NOTEBOOKS}


def check(stems: list[str] | None = None) -> list[Problem]:
    """Everything a person must fix in the Chinese edition (empty: it is complete): for each notebook (or
    only ``stems``) its title, its translation and its stored Chinese notebook; the shared set-up cell,
    Chinese notebooks the manifest does not list, and README.zh.md."""
    problems: list[Problem] = []
    english = _english_notebooks()
    for entry, nb in english.items():
        if not stems or entry.stem in stems:
            problems += _unless_invalid(entry.stem, check_title, entry)
            problems += _unless_invalid(entry.stem, _check_notebook, entry, nb)
    if not stems or SHARED in stems:
        variants = {next(c.source for c in nb.cells if c.get("id") == generated.SETUP_ID): nb
                    for nb in english.values()}  # the set-up cell: each variant once
        for nb in variants.values():
            shared = _unless_invalid(SHARED, lambda nb: check_translation(SHARED, nb, load(SHARED)), nb)
            problems += [problem for problem in shared if problem not in problems]
        listed = {entry.filename for entry in manifest.NOTEBOOKS}
        problems += [Problem(path.stem, None, "unused", f"{_repo(path)} has no English notebook in the manifest: "
                             "delete it (and its translation)")
                     for path in sorted((manifest.NOTEBOOK_DIR / "zh").glob("*.ipynb")) if path.name not in listed]
    if not stems or README_KEY in stems:
        problems += _unless_invalid(_repo(readme_zh_path()), check_readme)
    return problems


def _check_notebook(entry: Notebook, english: nbformat.NotebookNode) -> list[Problem]:
    """The translation of a notebook (``english``, as sync writes it) and its stored Chinese notebook."""
    cells = load(entry.stem)
    problems = check_translation(entry.stem, english, cells)
    with contextlib.suppress(TranslationFileError):  # a broken _shared.json is a problem of SHARED's check
        problems += compare_editions(entry, zh_notebook(entry, english, cells, load(SHARED)))
    return problems


def _unless_invalid(where: str, check_part, *args) -> list[Problem]:
    """``check_part(*args)``, or the problem of a translation file that it cannot read."""
    try:
        return check_part(*args)
    except TranslationFileError as error:
        return [Problem(where, None, "invalid", str(error))]


def problems_summary() -> str:
    """One line for ``make sync``: whether the Chinese edition needs a translator."""
    problems = check()
    if not problems:
        return "Chinese edition: every translation is present and up to date"
    return (f"Chinese edition: {len(problems)} translation problem(s) ({', '.join(sorted({p.kind for p in problems}))})"
            "; `python -m tools.translations check` lists them, and the tests fail until a person fixes them")


# --- the titles and README.zh.md: stamped against the English titles and README.md's sections ----------

def check_title(entry: Notebook) -> list[Problem]:
    """The manifest's ``title_zh`` of ``entry`` against the stamp of its English ``title``."""
    if not entry.title_zh.strip():
        return [Problem(entry.stem, None, "missing", "the manifest entry has no title_zh (tools/manifest.py)")]
    found = _stamp_problem(_stamps(TITLES).get(entry.stem), entry.title, "title",
                           f"title_zh {entry.title_zh!r} in tools/manifest.py", f"stamp-title {entry.stem}")
    return [Problem(entry.stem, None, found[0], f"the title: {found[1]}")] if found else []


def stamp_titles(stems: list[str]) -> None:
    """Mark the ``title_zh`` of ``stems`` as translated from their current English titles."""
    _restamp(TITLES, {entry.stem: entry.title for entry in manifest.NOTEBOOKS}, stems, "notebook")


_INTRO = "(introduction)"  # the name of the text before the first `##` heading
#: what `make sync` writes into both READMEs, left out of the sections' stamps (the titles and
#: notebook 0's ``answer`` and ``fine-print`` cells are stamped on their own; the Start paragraph and the
#: table's words are in tools/generated.py, in both languages)
_GENERATED_BLOCKS = {generated.TABLE_BLOCK: "<!-- notebooks table (generated) -->",
                     generated.ANSWER_BLOCK: "<!-- the answer (generated) -->",
                     generated.FINE_PRINT_BLOCK: "<!-- the fine print (generated) -->",
                     generated.START_BLOCK: "<!-- the start paragraph (generated) -->"}


def readme_sections(text: str) -> list[tuple[str, str]]:
    """``text`` cut at its ``## `` headings outside fenced code: ``(heading, text)`` in order, the first
    the introduction (:data:`_INTRO`); the generated blocks and trailing blank lines left out."""
    for pattern, placeholder in _GENERATED_BLOCKS.items():
        text = pattern.sub(placeholder, text)
    sections, fence = [(_INTRO, [])], None
    for line in text.split("\n"):
        if marker := re.match(r"(```|~~~)", line):
            fence = None if fence == marker.group(1) else (fence or marker.group(1))
        if fence is None and line.startswith("## "):
            sections.append((line.strip(), []))
        sections[-1][1].append(line)
    return [(heading, "\n".join(lines).rstrip()) for heading, lines in sections]


def _english_readme() -> dict[str, str]:
    return dict(readme_sections((manifest.ROOT / manifest.ENGLISH.readme).read_text(encoding="utf-8")))


def check_readme() -> list[Problem]:
    """README.zh.md against README.md: as many ``##`` sections, each stamped against the current text of
    its English section (by order), and the Chinese style."""
    zh_path = readme_zh_path()
    where = _repo(zh_path)
    if not zh_path.is_file():
        return [Problem(where, None, "missing", "there is no Chinese README")]
    english, chinese = _english_readme(), readme_sections(zh_path.read_text(encoding="utf-8"))
    if len(english) != len(chinese):
        return [Problem(where, None, "invalid", f"README.zh.md has {len(chinese) - 1} `##` sections, README.md has "
                        f"{len(english) - 1} ({', '.join(list(english)[1:])}): translate each section, in the "
                        "same order")]
    problems, stamps = [], _stamps(README_KEY)
    for (heading, text), (zh_heading, _) in zip(english.items(), chinese, strict=True):
        if found := _stamp_problem(stamps.get(heading), text, heading, f"the section {zh_heading!r} of README.zh.md",
                                   f"stamp-readme {heading.removeprefix('## ')!r}"):
            problems.append(Problem(where, heading, *found))
    problems += _style_problems(where, zh_style.readme_slips(zh_path.read_text(encoding="utf-8")))
    return problems + [Problem(where, extra, "unused", f"a stamp in {_repo(translation_path(README_KEY))} for a "
                               f"section README.md no longer has: re-stamp the sections ({_command('stamp-readme')} "
                               "<section>) after translating") for extra in stamps if extra not in english]


def stamp_readme(names: list[str] | None) -> list[str]:
    """Stamp the README.zh.md sections whose English headings are ``names`` (``## `` may be left out;
    :data:`_INTRO` for the introduction; None: every section) against the current README.md. Returns their
    headings."""
    english = _english_readme()
    headings = [heading if heading in english else f"## {heading}" for heading in (english if names is None else names)]
    _restamp(README_KEY, english, headings, "README.md section")
    return headings


# --- generating the Chinese notebooks and README ------------------------------------------------------

def zh_cell(cell: nbformat.NotebookNode, entry: dict | None) -> nbformat.NotebookNode:
    """The Chinese twin of an English body cell, given its translation entry (or None): code with the
    translated comments swapped in (a comment without a usable translation stays English); markdown's
    translation, its links rebased to ``notebooks/zh/``, or the English under :data:`UNTRANSLATED`.
    A stale translation is used as it is (the check reports it)."""
    new = copy.deepcopy(cell)
    usable = entry is not None and entry["type"] == cell.cell_type
    if cell.cell_type == "code" and usable:
        new.source = translate_comments(cell.source, {c["en"]: c["zh"] for c in entry["comments"]
                                                      if _comment_translation_error(c["zh"], c["en"]) is None})
    elif cell.cell_type == "markdown" and is_translatable(cell):
        text = "\n".join(entry["zh"]) if usable else ""
        new.source = rebase_for_zh(text) if text.strip() else f"{UNTRANSLATED}\n{rebase_for_zh(cell.source)}"
    return new


def zh_notebook(entry: Notebook, english: nbformat.NotebookNode, cells: dict[str, dict] | None,
                shared: dict[str, dict] | None) -> nbformat.NotebookNode:
    """The Chinese notebook generated from the English one (as ``make sync`` writes it)."""
    nb, made = copy.deepcopy(english), {generated.HEADER_ID: generated.header_source,
                                        generated.FOOTER_ID: generated.footer_source}
    nb.cells = []
    for cell in english.cells:
        if cell.get("id") in made:
            nb.cells.append(generated.markdown_cell(cell.id, made[cell.id](entry.zh)))
        else:
            entries = shared if cell.get("id") in SHARED_IDS else cells
            nb.cells.append(zh_cell(cell, (entries or {}).get(cell.get("id"))))
    return generated.collapse_generated(nb, "zh")


def planned_text_files() -> dict[Path, str]:
    """The Chinese notebooks and README.zh.md, as ``make sync`` writes them."""
    planned, answer, fine_print, shared = {}, None, None, load(SHARED)
    for entry, english in _english_notebooks().items():
        chinese = zh_notebook(entry, english, load(entry.stem), shared)
        planned[entry.zh.path] = generated.dumps_notebook(chinese)
        if entry == generated.answer_notebook():
            answer = generated.answer_cell_source(chinese, entry.zh)
            fine_print = generated.answer_cell_source(chinese, entry.zh, generated.FINE_PRINT_CELL)
    readme = readme_zh_path()
    if not readme.is_file():
        raise FileNotFoundError(f"{_repo(readme)} is missing: the Chinese README holds the table of Chinese notebooks")
    planned[readme] = generated.sync_readme(readme.read_text(encoding="utf-8"), manifest.CHINESE, answer, fine_print)
    return planned


# --- command line ---------------------------------------------------------------------------------------

def _english_for(stem: str) -> dict[str, nbformat.NotebookNode]:
    """The English cells that ``stem``'s translation file covers (:data:`SHARED`: of any notebook), by id."""
    english = {entry.stem: nb for entry, nb in _english_notebooks().items()}
    if stem != SHARED and stem not in english:
        raise SystemExit(f"unknown notebook {stem!r}; expected one of: {', '.join([*english, SHARED])}")
    return _translated_cells(stem, next(iter(english.values())) if stem == SHARED else english[stem])


def init(stem: str) -> list[str]:
    """Add an empty, stamped entry for every cell of ``stem`` that has none. Returns their ids."""
    english, cells = _english_for(stem), load(stem) or {}
    added = [cell_id for cell_id in english if cell_id not in cells]
    save(stem, {**cells, **{cell_id: new_entry(english[cell_id]) for cell_id in added}}, list(english))
    return added


def stamp(stem: str, cell_ids: list[str]) -> None:
    """Mark the translations of ``cell_ids`` as made from the current English (comments that changed lose
    theirs): only for a person who has just brought the Chinese up to date."""
    english, cells = _english_for(stem), load(stem)
    if cells is None:
        raise SystemExit(f"there is no {_repo(translation_path(stem))}; run {_command(f'init {stem}')}")
    for cell_id in cell_ids:
        if cell_id not in english:
            raise SystemExit(f"{stem} has no cell {cell_id!r} with something to translate; cells: {', '.join(english)}")
        if cell_id not in cells:
            raise SystemExit(f"{stem}: cell {cell_id!r} has no translation yet; run {_command(f'init {stem}')} first")
    save(stem, {**cells, **{cell_id: new_entry(english[cell_id], cells[cell_id]) for cell_id in cell_ids}},
         list(english))


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m tools.translations", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("check", help="list what is missing, stale or unused; exit 1 if anything").add_argument(
        "stems", nargs="*", help=f"notebook stems, or {SHARED} or {README_KEY} (default: everything)")
    commands.add_parser("init", help="add an empty entry for every cell that has none").add_argument(
        "stem", help=f"a notebook stem such as 01_one_hot_matmul, or {SHARED}")
    stamp_parser = commands.add_parser("stamp", help="after updating a translation: mark it as up to date")
    stamp_parser.add_argument("stem")
    stamp_parser.add_argument("cell_ids", nargs="+", metavar="cell-id")
    readme_parser = commands.add_parser("stamp-readme", help="after updating sections of README.zh.md: mark them "
                                        "as up to date with README.md")
    readme_parser.add_argument("sections", nargs="*", metavar="section",
                               help=f"English headings without '## ' (e.g. 'Further reading'), or {_INTRO!r}")
    readme_parser.add_argument("--all", action="store_true", help="every section")
    commands.add_parser("stamp-title", help="after updating title_zh in tools/manifest.py: mark it as translated "
                        "from the current English title").add_argument("stems", nargs="+", metavar="stem")
    args = parser.parse_args(argv)

    if args.command == "check":
        if unknown := sorted(set(args.stems) - {e.stem for e in manifest.NOTEBOOKS} - {SHARED, README_KEY}):
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
    elif args.command == "stamp-title":
        stamp_titles(args.stems)
        print(f"stamped the titles of {', '.join(args.stems)} in {_repo(translation_path(TITLES))}; run `make sync`")
    elif args.command == "stamp-readme":
        if not args.sections and not args.all:
            parser.error("name the sections you translated (or --all)")
        headings = stamp_readme(None if args.all else args.sections)
        print(f"stamped {', '.join(headings)} in {_repo(translation_path(README_KEY))}")
    else:
        stamp(args.stem, args.cell_ids)
        print(f"stamped {', '.join(args.cell_ids)} in {_repo(translation_path(args.stem))}; now run `make sync`")
    return 0


if __name__ == "__main__":
    sys.exit(guard(main, "python -m tools.translations"))
