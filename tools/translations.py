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

import copy
import difflib
import functools
import hashlib
import io
import json
import re
import sys
import tokenize
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import nbformat
from IPython.core.inputtransformer2 import TransformerManager

from utils.cli import OneLineParser

from . import generated, manifest, zh_style
from .cli import guard
from .links import MD_TARGET, rebase_links
from .manifest import Notebook

SHARED, TITLES, README_KEY = "_shared", "_titles", "_readme"  # the files beside the notebooks' own
SHARED_IDS = (generated.SETUP_ID,)
#: The sections every notebook has, and their standard Chinese headings.
SECTION_HEADINGS_ZH = {"## What you will learn": "## 你将学到什么", "## Summary": "## 小结", "## Exercises": "## 练习",
                       "## Going deeper": "## 深入一步"}
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


def _diff(old: str | list[str], new: str, name: str) -> str:
    old = old.split("\n") if isinstance(old, str) else old
    return "\n".join(difflib.unified_diff(old, new.split("\n"), f"{name} (English, as translated)",
                                          f"{name} (English, now)", lineterm=""))


# --- comments in code, through tokenize --------------------------------------------------------

_DIRECTIVE = r"#\s*(?:noqa\b|type:|fmt:|pragma\b|pylint:|ruff:|isort:)"  # comments that instruct a tool
#: a directive followed by prose, ``# noqa: F401  (only Colab has it)``: the prose is translated
_PRAGMA_PROSE = re.compile(rf"(?P<directive>{_DIRECTIVE}.*?)(?:\s{{2,}}|\s+(?=[(（]))(?P<prose>\S.*)$")


def comment_tokens(source: str) -> list[tuple[int, int, int, str]]:
    """Every comment in a code cell as ``(line index, start column, end column, text)``, found with
    :mod:`tokenize` (a ``#`` in a string is not one) once IPython's magics and ``!shell`` lines are blanked.
    None in a ``%%`` cell magic; ``ValueError`` for a cell that tokenize cannot read."""
    return list(_comment_tokens(source))


@functools.lru_cache(maxsize=4096)  # a check reads each cell's comments several times (English, Chinese, stored)
def _comment_tokens(source: str) -> tuple[tuple[int, int, int, str], ...]:
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


def strip_comments(source: str) -> str:
    """The code of a cell without its comments: two cells whose code differs only in comments strip equal."""
    lines, drop = source.split("\n"), set()
    for row, start, end, _ in comment_tokens(source):
        lines[row] = (lines[row][:start] + lines[row][end:]).rstrip()
        if not lines[row].strip():
            drop.add(row)
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


def _both_ways(want: list, got: list, key: str) -> list[str]:
    """``<key> missing: ...`` and ``<key> not in the English: ...`` for what one side has and the other lacks."""
    missing, extra = [x for x in want if x not in got], [x for x in got if x not in want]
    return ([f"{key} missing: {', '.join(missing)}"] if missing else []) + (
        [f"{key} not in the English: {', '.join(extra)}"] if extra else [])


def invariant_differences(english: str, chinese: str) -> list[str]:
    """How ``chinese`` fails to keep :func:`markdown_invariants` of ``english`` (empty: it keeps them)."""
    want, got = markdown_invariants(english), markdown_invariants(chinese)
    differences = [d for key in ("code", "formulas", "link targets") for d in _both_ways(want[key], got[key], key)]
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
    differences = []
    for label, a, b in (("missing", english, chinese), ("not in the English", chinese, english)):
        left, extra = prose_numbers(b), []
        words = [_NUMBER_WORDS[w] for w in re.findall(r"[A-Za-z]+|[零〇一二两三四五六七八九十双]", _prose(b).lower())
                 if w in _NUMBER_WORDS]
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


# --- translation files ----------------------------------------------------------------------------

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
    old = old if isinstance(old, dict) and old.get("type") == cell.cell_type else {}
    entry = {"type": cell.cell_type, "sha256": fingerprint(english_text(cell))}
    if cell.cell_type == "markdown":
        return {**entry, "en": cell.source.split("\n"), "zh": list(old.get("zh", []))}
    known = {c.get("en"): c.get("zh", "") for c in old.get("comments", []) if isinstance(c, dict)}
    comments = translatable_comments(cell.source)
    return {**entry, "comments": [{"en": text, "zh": known.get(text, "")} for text in comments]}


def _entry_error(entry: object) -> str | None:
    """Why ``entry`` is not a well-formed entry, or None."""
    def lines(value: object) -> bool:
        return isinstance(value, list) and all(isinstance(line, str) for line in value)

    if not isinstance(entry, dict) or entry.get("type") not in ("markdown", "code"):
        return 'an entry must be an object with "type": "markdown" or "code"'
    if not isinstance(entry.get("sha256"), str):
        return 'an entry needs its stamp, "sha256" (a string)'
    for key in ("en", "zh") if entry["type"] == "markdown" else ():
        if not lines(entry.get(key)):
            return f'a markdown entry needs "{key}": a list of lines (strings)'
    comments = entry.get("comments")
    if entry["type"] == "code" and not (isinstance(comments, list) and all(
            isinstance(c, dict) and isinstance(c.get("en"), str) and isinstance(c.get("zh"), str) for c in comments)):
        return 'a code entry needs "comments": a list of {"en": "# ...", "zh": "# ..."}'
    return None


def _stored_english(entry: dict) -> str:
    return "\n".join(entry["en"] if entry["type"] == "markdown" else [c["en"] for c in entry["comments"]])


def _read(stem: str, key: str, valid, shape: str) -> object | None:
    """``translations/<stem>.json``'s value under ``key`` (None: no file); :class:`TranslationFileError`
    naming the file where it is not valid JSON or ``valid(value)`` is false (``shape`` says what is expected)."""
    path = translation_path(stem)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise TranslationFileError(f"{_repo(path)} is not valid JSON: {error}") from error
    if not (isinstance(data, dict) and valid(data.get(key))):
        raise TranslationFileError(f"{_repo(path)}: expected {shape}")
    if key == "cells" and data.get("notebook") != stem:
        raise TranslationFileError(f'{_repo(path)}: "notebook" is {data.get("notebook")!r}, expected {stem!r}')
    return data[key]


def _write(stem: str, data: dict) -> Path:
    path = translation_path(stem)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path


def load(stem: str) -> dict[str, dict] | None:
    """The entries of ``translations/<stem>.json`` by cell id; None when there is no file."""
    return _read(stem, "cells", lambda cells: isinstance(cells, dict), 'an object with "cells": {cell id: entry}')


def _titles() -> dict[str, dict]:
    """``_titles.json``: per stem, the English title its ``title_zh`` was translated from, and its SHA-256."""
    return _read(TITLES, "titles", lambda titles: isinstance(titles, dict) and all(
        isinstance(t, dict) and isinstance(t.get("sha256"), str) for t in titles.values()),
        '{"titles": {stem: {"en", "sha256"}}}') or {}


def _readme_stamps() -> list[dict]:
    """``_readme.json``: per section of README.md, in order, its heading, the text translated and its SHA-256."""
    return _read(README_KEY, "sections", lambda sections: isinstance(sections, list) and all(
        isinstance(s, dict) and isinstance(s.get("heading"), str) and isinstance(s.get("sha256"), str)
        and isinstance(s.get("en"), list) for s in sections), '{"sections": [{"heading", "sha256", "en"}, ...]}') or []


def save(stem: str, cells: dict[str, dict], order: list[str]) -> Path:
    """Write ``translations/<stem>.json``: entries in notebook order (``order``), then the rest."""
    ranked = {cell_id: i for i, cell_id in enumerate(order)}
    ordered = dict(sorted(cells.items(), key=lambda item: ranked.get(item[0], len(ranked))))
    return _write(stem, {"notebook": stem, "cells": ordered})


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


def _entry_problems(stem: str, cell: nbformat.NotebookNode, entry: dict) -> list[tuple[str, str]]:
    """``(kind, message)`` for each problem of a well-formed entry of a cell of the same type."""
    path, cell_id, now = _repo(translation_path(stem)), cell.get("id"), english_text(cell)
    if fingerprint(now) != entry["sha256"]:  # the rest would only repeat it
        return [("stale", f"stale translation: the English changed since it was translated. Update the Chinese in "
                 f"{path}, then run `python -m tools.translations stamp {stem} {cell_id}`. The English change:\n"
                 + _diff(_stored_english(entry), now, cell_id))]
    found = []
    if fingerprint(_stored_english(entry)) != entry["sha256"]:
        found.append(("invalid", "the stored English (\"en\") does not match its stamp (edited by hand?): run "
                      f"`python -m tools.translations stamp {stem} {cell_id}`"))
    if entry["type"] == "markdown":
        zh = "\n".join(entry["zh"])
        if not zh.strip():
            return [*found, ("missing", f'the translation ("zh") in {path} is empty')]
        if differences := invariant_differences(cell.source, zh):
            found.append(("invalid", "the translation must keep the English's code, formulas, link targets and "
                          "headings: " + "; ".join(differences)))
        if numbers := number_differences(cell.source, zh):
            found.append(("invalid", "the translation must keep the English's numbers: " + "; ".join(numbers)))
        return found
    comments, stored = translatable_comments(cell.source), {pair["en"] for pair in entry["comments"]}
    for pair in (pair for pair in entry["comments"] if pair["en"] in comments):
        if error := _comment_translation_error(pair["zh"], pair["en"]):
            found.append(("missing" if error == "has no translation" else "invalid", f"comment {pair['en']!r} {error}"))
        elif numbers := number_differences(pair["en"], pair["zh"]):
            found.append(("invalid", f"comment {pair['en']!r}: the translation must keep its numbers: "
                          + "; ".join(numbers)))
    found += [("missing", f"comment {text!r} has no translation") for text in comments if text not in stored]
    return found + [("unused", f"a translation for comment {text!r}, which the cell does not have: delete it")
                    for text in sorted(stored - set(comments))]


def check_translation(stem: str, english: nbformat.NotebookNode, cells: dict[str, dict] | None,
                      only: tuple[str, ...] | None = None) -> list[Problem]:
    """Problems of the translation ``cells`` (None: no file) of the notebook ``english``; ``only``: just
    those cell ids (the shared file's set-up cell), which a notebook's own file leaves out."""
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
            found = [("missing", f"the {cell.cell_type} cell has no translation in {path} "
                      f"(`python -m tools.translations init {stem}` adds an empty entry)")]
        elif error := _entry_error(entry):
            found = [("invalid", f"{path}: {error}")]
        elif entry["type"] != cell.cell_type:
            found = [("stale", f"the cell is now a {cell.cell_type} cell, but its translation is for a "
                      f"{entry['type']} cell: replace the entry")]
        else:
            found = _entry_problems(stem, cell, entry)
        problems += [Problem(stem, cell_id, kind, message) for kind, message in found]
    if only is None:  # a notebook's own translation: how its Chinese reads
        problems += [Problem(stem, slip.cell, "style", f"{slip.rule}: {slip.text} (see tools/zh_style.py)")
                     for slip in zh_style.notebook_slips(stem, cells)]
    for cell_id in (cid for cid in cells if cid not in wanted and in_scope(cid)):
        why = ("the English notebook has no cell with this id (delete the entry, or move it to the cell's new id)"
               if cell_id not in by_id else
               "the cell has nothing to translate any more (no text, or no comments): delete the entry")
        problems.append(Problem(stem, cell_id, "unused", f"a translation in {path}, but {why}"))
    return problems


def compare_editions(entry: Notebook) -> list[Problem]:
    """The stored Chinese notebook against the stored English one: the same cells (ids, types, metadata),
    the same code once comments are removed, the same outputs and execution counts."""
    if not entry.zh.path.is_file():
        return [Problem(entry.stem, None, "missing", f"there is no Chinese notebook {entry.zh.repo_path}: "
                        "run `make sync`")]
    english, chinese = generated.read_notebook(entry.path), generated.read_notebook(entry.zh.path)
    en_ids, zh_ids = [cell.get("id") for cell in english.cells], [cell.get("id") for cell in chinese.cells]
    if en_ids != zh_ids:
        return [Problem(entry.stem, None, "drift", f"the Chinese notebook's cells {zh_ids} differ from the English "
                        f"notebook's {en_ids}: run `make sync`")]
    problems = []
    for en, zh in zip(english.cells, chinese.cells, strict=True):
        found = []
        if en.cell_type != zh.cell_type:
            found.append(f"a {zh.cell_type} cell in Chinese, {en.cell_type} in English")
        elif en.metadata != zh.metadata:
            found.append("the cell's metadata (tags) differ from the English")
        if en.cell_type == zh.cell_type == "code":
            try:
                en_code, zh_code = strip_comments(en.source), strip_comments(zh.source)
            except ValueError as error:
                problems += [Problem(entry.stem, en.id, "drift", message) for message in found]
                problems.append(Problem(entry.stem, en.id, "invalid", str(error)))
                continue
            if en_code != zh_code:
                found.append("the code without comments differs from the English:\n" + "\n".join(
                    difflib.unified_diff(en_code.split("\n"), zh_code.split("\n"), "English", "Chinese", lineterm="")))
            if en.outputs != zh.outputs or en.execution_count != zh.execution_count:
                found.append("the outputs differ from the English: run `make sync`")
        problems += [Problem(entry.stem, en.id, "drift", message) for message in found]
    return problems


def _english_notebooks() -> dict[Notebook, nbformat.NotebookNode]:
    """Every English notebook as ``make sync`` writes it (header, set-up and footer in place)."""
    return {entry: generated.sync_notebook(generated.read_notebook(entry.path), entry) for entry in manifest.NOTEBOOKS}


def _check_file(stem: str, english: nbformat.NotebookNode, only: tuple[str, ...] | None = None) -> list[Problem]:
    try:
        return check_translation(stem, english, load(stem), only)
    except TranslationFileError as error:
        return [Problem(stem, None, "invalid", str(error))]


def check(stems: list[str] | None = None) -> list[Problem]:
    """Everything a person must fix in the Chinese edition (empty: it is complete): for each notebook (or
    only ``stems``) its title, its translation and its stored Chinese notebook; the shared set-up cell,
    Chinese notebooks the manifest does not list, and README.zh.md."""
    problems: list[Problem] = []
    english = _english_notebooks()
    for entry, nb in english.items():
        if not stems or entry.stem in stems:
            problems += check_title(entry) + _check_file(entry.stem, nb) + compare_editions(entry)
    if not stems or SHARED in stems:
        variants = {next(c.source for c in nb.cells if c.get("id") == generated.SETUP_ID): nb
                    for nb in english.values()}  # the set-up cell: each variant once
        for nb in variants.values():
            problems += [p for p in _check_file(SHARED, nb, only=SHARED_IDS) if p not in problems]
        listed = {entry.filename for entry in manifest.NOTEBOOKS}
        problems += [Problem(path.stem, None, "unused", f"{_repo(path)} has no English notebook in the manifest: "
                             "delete it (and its translation)")
                     for path in sorted((manifest.NOTEBOOK_DIR / "zh").glob("*.ipynb")) if path.name not in listed]
    if not stems or README_KEY in stems:
        problems += check_readme()
    return problems


def problems_summary() -> str:
    """One line for ``make sync``: whether the Chinese edition needs a translator."""
    problems = check()
    if not problems:
        return "Chinese edition: every translation is present and up to date"
    return (f"Chinese edition: {len(problems)} translation problem(s) ({', '.join(sorted({p.kind for p in problems}))})"
            "; `python -m tools.translations check` lists them, and the tests fail until a person fixes them")


# --- the titles: each title_zh stamped against its English title -----------------------------------

def check_title(entry: Notebook) -> list[Problem]:
    """The manifest's ``title_zh`` of ``entry`` against the stamp of its English ``title``."""
    if not entry.title_zh.strip():
        return [Problem(entry.stem, None, "missing", "the manifest entry has no title_zh (tools/manifest.py)")]
    try:
        stored = _titles().get(entry.stem)
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
    if unknown := [stem for stem in stems if stem not in by_stem]:
        raise SystemExit(f"unknown notebook {unknown[0]!r}; expected one of: {', '.join(by_stem)}")
    titles = {**_titles(), **{stem: {"en": by_stem[stem].title, "sha256": fingerprint(by_stem[stem].title)}
                              for stem in stems}}
    order = {stem: i for i, stem in enumerate(by_stem)}
    _write(TITLES, {"titles": dict(sorted(titles.items(), key=lambda item: order.get(item[0], len(order))))})


# --- README.zh.md: each `##` section stamped against README.md's ---------------------------------------

_INTRO = "(introduction)"  # the name of the text before the first `##` heading
#: what `make sync` writes into both READMEs, left out of the sections' stamps (the titles and
#: notebook 0's ``answer`` cell are stamped on their own)
_GENERATED_BLOCKS = {generated.TABLE_BLOCK: "<!-- notebooks table (generated) -->",
                     generated.ANSWER_BLOCK: "<!-- the answer (generated) -->"}


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


def check_readme() -> list[Problem]:
    """README.zh.md against README.md: as many ``##`` sections, each stamped against the current text of
    its English section (by order), and the Chinese style."""
    zh_path = readme_zh_path()
    where = _repo(zh_path)
    if not zh_path.is_file():
        return [Problem(where, None, "missing", "there is no Chinese README")]
    english = readme_sections((manifest.ROOT / manifest.ENGLISH.readme).read_text(encoding="utf-8"))
    chinese = readme_sections(zh_path.read_text(encoding="utf-8"))
    if len(english) != len(chinese):
        return [Problem(where, None, "invalid", f"README.zh.md has {len(chinese) - 1} `##` sections, README.md has "
                        f"{len(english) - 1} ({', '.join(h for h, _ in english[1:])}): translate each section, in the "
                        "same order")]
    try:
        by_heading = {s["heading"]: s for s in _readme_stamps()}
    except TranslationFileError as error:
        return [Problem(where, None, "invalid", str(error))]
    problems = []
    for (heading, text), (zh_heading, _) in zip(english, chinese, strict=True):
        stored = by_heading.get(heading)
        how = f"`python -m tools.translations stamp-readme {heading.removeprefix('## ')!r}`"
        if stored is None or not stored["sha256"]:
            problems.append(Problem(where, heading, "missing", f"the section {zh_heading!r} has no stamp for the "
                                    f"English section {heading!r}: translate it, then run {how}"))
        elif fingerprint(text) != stored["sha256"]:
            problems.append(Problem(where, heading, "stale", f"stale translation of section {zh_heading!r}: the "
                                    f"English section {heading!r} of README.md changed since it was translated. Update "
                                    f"the Chinese, then run {how}. The English change:\n"
                                    + _diff(stored["en"], text, heading)))
    problems += [Problem(where, None, "style", f"{slip.rule}: {slip.text} (see tools/zh_style.py)")
                 for slip in zh_style.readme_slips(zh_path.read_text(encoding="utf-8"))]
    return problems + [Problem(where, extra, "unused", f"a stamp in {_repo(translation_path(README_KEY))} for a "
                               "section README.md no longer has: re-stamp the sections (`python -m tools.translations "
                               "stamp-readme <section>`) after translating")
                       for extra in by_heading if extra not in {heading for heading, _ in english}]


def stamp_readme(names: list[str]) -> list[str]:
    """Stamp the README.zh.md sections whose English headings are ``names`` (without ``## ``; :data:`_INTRO`
    for the introduction; ``["--all"]``: every section) against the current README.md. Returns their headings."""
    english = readme_sections((manifest.ROOT / manifest.ENGLISH.readme).read_text(encoding="utf-8"))
    known = {heading.removeprefix("## "): i for i, (heading, _) in enumerate(english)}
    names = list(known) if names == ["--all"] else names
    if unknown := [name for name in names if name not in known]:
        raise SystemExit(f"README.md has no section {unknown[0]!r}; sections: {', '.join(map(repr, known))}")
    by_heading = {s["heading"]: s for s in _readme_stamps()}
    stamps = [by_heading.get(heading, {"heading": heading, "sha256": "", "en": []}) for heading, _ in english]
    for i in (known[name] for name in names):  # a section never stamped keeps an empty stamp: still reported
        heading, text = english[i]
        stamps[i] = {"heading": heading, "sha256": fingerprint(text), "en": text.split("\n")}
    _write(README_KEY, {"readme": "README.zh.md", "source": "README.md", "sections": stamps})
    return [english[known[name]][0] for name in names]


# --- generating the Chinese notebooks and README ------------------------------------------------------

def zh_cell(cell: nbformat.NotebookNode, entry: dict | None) -> nbformat.NotebookNode:
    """The Chinese twin of an English body cell, given its translation entry (or None): code with the
    translated comments swapped in (a comment without a usable translation stays English); markdown's
    translation, its links rebased to ``notebooks/zh/``, or the English under :data:`UNTRANSLATED`.
    A stale translation is used as it is (the check reports it)."""
    new = copy.deepcopy(cell)
    usable = entry is not None and _entry_error(entry) is None and entry["type"] == cell.cell_type
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
    planned, answer, shared = {}, None, load(SHARED)
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


# --- command line ---------------------------------------------------------------------------------------

def _english_for(stem: str) -> tuple[nbformat.NotebookNode, list[str]]:
    """The English notebook of ``stem`` (any, for :data:`SHARED`) and the ids of its cells that ``stem``'s
    translation file covers."""
    english = {entry.stem: nb for entry, nb in _english_notebooks().items()}
    if stem != SHARED and stem not in english:
        raise SystemExit(f"unknown notebook {stem!r}; expected one of: {', '.join([*english, SHARED])}")
    nb = next(iter(english.values())) if stem == SHARED else english[stem]
    return nb, [cell.id for cell in nb.cells if is_translatable(cell) and (cell.id in SHARED_IDS) == (stem == SHARED)]


def init(stem: str) -> list[str]:
    """Add an empty, stamped entry for every cell of ``stem`` that has none. Returns their ids."""
    english, order = _english_for(stem)
    cells = load(stem) or {}
    added = [cell_id for cell_id in order if cell_id not in cells]
    by_id = {cell.id: cell for cell in english.cells}
    save(stem, {**cells, **{cell_id: new_entry(by_id[cell_id]) for cell_id in added}}, order)
    return added


def stamp(stem: str, cell_ids: list[str]) -> None:
    """Mark the translations of ``cell_ids`` as made from the current English (comments that changed lose
    theirs): only for a person who has just brought the Chinese up to date."""
    english, order = _english_for(stem)
    cells = load(stem)
    if cells is None:
        raise SystemExit(f"there is no {_repo(translation_path(stem))}; run `python -m tools.translations init {stem}`")
    for cell_id in cell_ids:
        if cell_id not in order:
            raise SystemExit(f"{stem} has no cell {cell_id!r} with something to translate; cells: {', '.join(order)}")
        if cell_id not in cells:
            raise SystemExit(f"{stem}: cell {cell_id!r} has no translation yet; run `python -m tools.translations "
                             f"init {stem}` first")
    by_id = {cell.id: cell for cell in english.cells}
    save(stem, {**cells, **{cell_id: new_entry(by_id[cell_id], cells[cell_id]) for cell_id in cell_ids}}, order)


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
                               help=f"English headings without '## ' (e.g. 'Start'), or {_INTRO!r}")
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
        stamped = stamp_readme(["--all"] if args.all else args.sections)
        print(f"stamped {', '.join(stamped)} in {_repo(translation_path(README_KEY))}")
    else:
        stamp(args.stem, args.cell_ids)
        print(f"stamped {', '.join(args.cell_ids)} in {_repo(translation_path(args.stem))}; now run `make sync`")
    return 0


if __name__ == "__main__":
    sys.exit(guard(main, "python -m tools.translations"))
