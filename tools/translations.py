"""The Chinese edition, ``notebooks/zh/``: its text in gettext catalogs, its notebooks and README generated from them.

``notebooks/zh/translations/`` holds a catalog (``.po``, read and written with Babel) per notebook, ``_readme.po``
(a message per ``##`` section of README.md) and ``_shared.po`` (the set-up cell, the titles). A message is a markdown
cell, a code cell's comment, a README section or a title: ``msgctxt`` the cell id (the section's heading, the
notebook's stem), ``msgid`` the English, ``msgstr`` the Chinese. ``sync`` updates each catalog from the English and
writes ``notebooks/zh/`` and README.zh.md from them; a translator updates a fuzzy message in a PO editor and clears
the flag. :func:`check` fails until every message is translated and none is fuzzy.

    python -m tools.translations check [<stem> ...]   # what is untranslated, fuzzy (stale) or unused
"""

from __future__ import annotations

import copy
import difflib
import functools
import io
import re
import sys
import tokenize
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import nbformat
from babel.messages.catalog import Catalog, Message
from IPython.core.inputtransformer2 import TransformerManager

from utils.cli import OneLineParser

from . import catalogs, generated, interface, manifest, zh_style
from .catalogs import INTERFACE, README_KEY, SHARED, TranslationFileError, by_context, dumps, load, repo_path
from .cli import guard
from .links import MD_TARGET, rebase_links
from .manifest import Notebook

SHARED_IDS = (generated.SETUP_ID,)  # the cells whose translation is in SHARED's catalog
UNTRANSLATED = "<!-- 尚未翻译 (untranslated): the English text follows -->"
Edition = dict[Notebook, nbformat.NotebookNode]  # the notebooks of an edition, as sync writes them


# --- comments in code, through tokenize --------------------------------------------------------

_DIRECTIVE = r"#\s*(?:noqa\b|type:|fmt:|pragma\b|pylint:|ruff:|isort:)"  # comments that instruct a tool
#: a directive followed by prose, ``# noqa: F401  (only Colab has it)``: the prose is translated
_PRAGMA_PROSE = re.compile(rf"(?P<directive>{_DIRECTIVE}.*?)(?:\s{{2,}}|\s+(?=[(（]))(?P<prose>\S.*)$")


@functools.lru_cache(maxsize=4096)  # a check reads each cell's comments several times
def comment_tokens(source: str) -> tuple[tuple[int, int, int, str], ...]:
    """Every comment in a code cell as ``(line index, start column, end column, text)``, found with :mod:`tokenize`
    (a ``#`` in a string is not one) once IPython's magics and ``!shell`` lines are blanked; none in a ``%%`` cell."""
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
    """The directive of a comment that goes on with prose (``# noqa: F401  (only Colab has it)``), else None."""
    match = _PRAGMA_PROSE.match(text)
    return match.group("directive") if match else None


def translatable_comments(source: str) -> list[str]:
    """The distinct comments of a code cell, in order, but bare tool directives, ``#@title`` lines, solution markers."""
    texts = [text for *_, text in comment_tokens(source)
             if not (generated.TITLE_LINE.match(text) or generated.SOLUTION_MARKER.fullmatch(text))
             and (not re.match(_DIRECTIVE, text) or pragma_directive(text))]
    return list(dict.fromkeys(texts))


def translate_comments(source: str, translations: dict[str, str]) -> str:
    lines = source.split("\n")
    for row, start, end, text in reversed(comment_tokens(source)):
        if text in translations:
            lines[row] = lines[row][:start] + translations[text] + lines[row][end:]
    return "\n".join(lines)


def _comment_translation_error(zh: str, en: str) -> str | None:
    if "\n" in zh or "\r" in zh or not zh.startswith("#"):  # (a blank translation is the check's "untranslated")
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
    """What a translated markdown cell keeps from the English: code, formulas (but the words in their ``\\text{}``),
    link targets, the levels of its headings and its list items (a bullet merged into the one before is missing)."""
    found = {"code": [], "formulas": []}
    for key, patterns in (("code", _CODE), ("formulas", _MATH)):
        for pattern in patterns:
            found[key] += [m.group(0) for m in pattern.finditer(text)]
            text = pattern.sub(" ", text)
    return {"code": sorted(set(found["code"])),
            "formulas": sorted({_TEXT_IN_MATH.sub(r"\\text{…}", f) for f in found["formulas"]}),
            "link targets": sorted({match.group(2) for match in MD_TARGET.finditer(text)}),
            "heading levels": [line.split(" ", 1)[0] for line in text.splitlines() if re.match(r"#{1,6} ", line)],
            "list items": [item.group(1) for item in re.finditer(r"^( *(?:[-*+]|\d+\.)) ", text, re.M)]}


def _both_ways(key: str, missing: Iterable[str], extra: Iterable[str]) -> list[str]:
    return [f"{key} {label}: {', '.join(found)}" for label, found in (("missing", list(missing)),
                                                                     ("not in the English", list(extra))) if found]


_ZH_FLAG = re.compile(r"(course\.py \w+) --zh\b")  # what a Chinese command adds to the English one


def invariant_differences(english: str, chinese: str) -> list[str]:
    """How ``chinese`` fails to keep :func:`markdown_invariants` of ``english`` (empty: it keeps them)."""
    want, got = markdown_invariants(english), markdown_invariants(chinese)
    # the Chinese edition's commands name it (`course.py run --zh`, `practice --zh`): the same code otherwise
    got["code"] = sorted({_ZH_FLAG.sub(r"\1", code) for code in got["code"]})
    differences = [difference for key in ("code", "formulas", "link targets") for difference in _both_ways(
        key, [x for x in want[key] if x not in got[key]], [x for x in got[key] if x not in want[key]])]
    for key in ("heading levels", "list items"):
        if want[key] != got[key]:
            differences.append(f"{key} {got[key]}, expected {want[key]}")
    return differences


_NUMBER = re.compile(r"\d+(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?")  # 0.1195, 50,257 (read as 50257), 2
_RECIPROCAL = re.compile(r"(?<![\d.,])1(?:/| in )(?=\d)")  # the 1 of "1/N" or "1 in N" (Chinese: 只有……的 1/N)
_SCALED = re.compile(r"(\d+(?:\.\d+)?)\s*(thousand|million|billion|trillion|万亿|万|亿)")  # "1.7 million": "170 万"
_SCALE = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12, "万": 10**4, "亿": 10**8,
          "万亿": 10**12}
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


def number_differences(english: str, chinese: str) -> list[str]:
    """How the numbers of ``chinese``'s prose differ from those of ``english`` (empty: the same)."""
    def numbers(text: str) -> Counter:  # in a form either language's prose compares by
        rest = _SCALED.sub(lambda m: format((Decimal(m.group(1)) * _SCALE[m.group(2)]).normalize(), "f"),
                           _RECIPROCAL.sub("", _prose(text)))
        return Counter(sorted(m.group(0).replace(",", "") for m in _NUMBER.finditer(rest)))

    def as_words(text: str) -> Counter:  # the numbers a text writes as words, for those the other writes in digits
        words = re.findall(r"[A-Za-z]+|[零〇一二两三四五六七八九十双]", _prose(text).lower())
        return Counter(str(_NUMBER_WORDS[word]) for word in words if word in _NUMBER_WORDS)

    en, zh = numbers(english), numbers(chinese)
    return _both_ways("numbers", ((en - zh) - as_words(chinese)).elements(), ((zh - en) - as_words(english)).elements())


def rebase_for_zh(text: str) -> str:
    """A markdown cell's links, written for ``notebooks/``, rewritten for ``notebooks/zh/``: other
    notebooks stay (the link goes to their Chinese twin), the README becomes README.zh.md."""
    return rebase_links(text, manifest.NOTEBOOK_DIR, manifest.CHINESE.folder,
                        {manifest.ENGLISH.readme: manifest.CHINESE.readme})


# --- catalogs, from the current English ------------------------------------------------------------

def cell_messages(cells: Iterable[nbformat.NotebookNode]) -> list[tuple[str, str]]:
    """``(cell id, English)``: a markdown cell with text, or each comment of a code cell; not the header and footer."""
    return [(cell.id, text) for cell in cells if cell.get("id") not in (generated.HEADER_ID, generated.FOOTER_ID)
            for text in (translatable_comments(cell.source) if cell.cell_type != "markdown"
                         else [cell.source] if cell.source.strip() else [])]


def notebook_template(stem: str, english: nbformat.NotebookNode) -> Catalog:
    return catalogs.new_catalog(stem, cell_messages(cell for cell in english.cells if cell.get("id") not in SHARED_IDS))


def shared_template(english: Iterable[nbformat.NotebookNode]) -> Catalog:
    """The set-up cell (each variant's comments, once) and the titles of the manifest's notebooks."""
    setup = [cell for nb in english for cell in nb.cells if cell.get("id") in SHARED_IDS]
    titles = [(entry.stem, entry.title) for entry in manifest.NOTEBOOKS]
    return catalogs.new_catalog(SHARED, list(dict.fromkeys(cell_messages(setup))) + titles)


def readme_template() -> Catalog:
    return catalogs.new_catalog(README_KEY, readme_sections(manifest.ENGLISH.readme_path.read_text(encoding="utf-8")))


def update(catalog: Catalog | None, english: Catalog) -> Catalog:
    """A copy of ``catalog`` (None: a new one) brought up to ``english``: a changed English (found by its context, the
    cell id: Babel's fuzzy matching looks across contexts) keeps its Chinese, fuzzy, with its previous msgid; a gone
    one stays obsolete (``#~``) until a person deletes it."""
    catalog = copy.deepcopy(english if catalog is None else catalog)
    previous = {(m.id, m.context): m.previous_id for m in catalog if m.id and m.fuzzy}
    obsolete = dict(catalog.obsolete)
    catalog.update(english, no_fuzzy_matching=True, update_header_comment=True, update_creation_date=False)
    obsolete.update(catalog.obsolete)  # Babel's update forgets the messages that were obsolete before it
    for message in (m for m in catalog if m.id):
        if message.fuzzy and not message.previous_id:  # Babel's update drops previous msgids
            message.previous_id = previous.get((message.id, message.context), [])
        if message.string:
            continue
        candidates = {old.id: key for key, old in obsolete.items() if old.context == message.context and old.string}
        if closest := difflib.get_close_matches(message.id, candidates, 1, cutoff=0):
            old = obsolete.pop(candidates[closest[0]])
            message.string, message.previous_id = old.string, [old.id]
            message.flags.add("fuzzy")
    catalog.obsolete = {key: old for key, old in obsolete.items() if old.string}
    return catalog


# --- checking ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Problem:
    """Something a person must fix in the Chinese edition."""

    notebook: str  # a stem, SHARED, or README.zh.md
    cell: str | None  # a cell id (a README's section heading, a title's stem); None for the whole file
    kind: str  # missing | stale | unused | invalid | style
    message: str

    def __str__(self) -> str:
        where = f" {'section' if self.notebook.endswith('.md') else 'cell'} {self.cell!r}:" if self.cell else ""
        return f"{self.notebook}:{where} {self.message}"


def _opening(english: str) -> str:
    """The start of a message's English, to name it by."""
    return english.split("\n")[0][:60]


def _message_problem(path: str, message: Message) -> tuple[str, str] | None:
    """``(kind, text)`` when ``message`` is untranslated, or fuzzy (its English changed since it was translated)."""
    if not (message.string or "").strip():
        return "missing", f"untranslated: translate {_opening(message.id)!r} in {path}"
    if not message.fuzzy:
        return None
    update = f"update the Chinese in {path} and clear its fuzzy flag"
    if not message.previous_id:
        return "stale", f"marked fuzzy (needs review): {update}"
    diff = difflib.unified_diff(message.previous_id[0].split("\n"), message.id.split("\n"), f"{message.context} "
                                "(English, as translated)", f"{message.context} (English, now)", lineterm="")
    return "stale", (f"stale translation: the English changed since it was translated. {update}. The English "
                     "change:\n" + "\n".join(diff))


def _content_problems(cell: nbformat.NotebookNode, english: str, chinese: str) -> list[tuple[str, str]]:
    """What the Chinese of a markdown cell, or of one comment of a code cell, fails to keep of its English."""
    if cell.cell_type == "markdown":
        kept = {"code, formulas, link targets and headings": invariant_differences(english, chinese),
                "numbers": number_differences(english, chinese)}
        return [("invalid", f"the translation must keep the English's {what}: " + "; ".join(differences))
                for what, differences in kept.items() if differences]
    if error := _comment_translation_error(chinese, english):
        return [("invalid", f"comment {english!r} {error}")]
    if numbers := number_differences(english, chinese):
        return [("invalid", f"comment {english!r}: the translation must keep its numbers: " + "; ".join(numbers))]
    return []


def catalog_problems(name: str, catalog: Catalog | None, english: Catalog,
                     cells: dict[str, nbformat.NotebookNode]) -> list[Problem]:
    """Problems of the catalog ``name`` (None: no file) against the English ``english``: untranslated, fuzzy
    and obsolete messages, and the Chinese of ``cells`` (by id) that does not keep what it must."""
    path = repo_path(catalogs.translation_path(name))
    if catalog is None:
        return [Problem(name, None, "missing", f"there is no catalog {path}: run `python3 course.py sync`, which "
                        "writes it with every message untranslated, and translate them")]
    catalog, problems = update(catalog, english), []
    for message in (m for m in catalog if m.id):
        if found := _message_problem(path, message):
            problems.append(Problem(name, message.context, *found))
        elif message.context in cells:
            problems += [Problem(name, message.context, kind, text) for kind, text in _content_problems(
                cells[message.context], message.id, message.string)]
    return problems + [Problem(name, old.context, "unused", f"an obsolete message (#~) in {path}: its English "
                               f"{_opening(old.id)!r} is gone. Reuse its Chinese, then delete it")
                       for old in catalog.obsolete.values()]


def _style_problems(where: str, slips: list[zh_style.Slip]) -> list[Problem]:
    return [Problem(where, slip.cell, "style", f"{slip.rule}: {slip.text} (see tools/zh_style.py)") for slip in slips]


def check_translation(stem: str, english: nbformat.NotebookNode, catalog: Catalog | None) -> list[Problem]:
    """Problems of the catalog of the notebook ``english`` (as sync writes it) and how its Chinese reads."""
    template_ = notebook_template(stem, english)
    problems = catalog_problems(stem, catalog, template_, {cell.get("id"): cell for cell in english.cells})
    if catalog is not None:
        texts = zh_style.cell_texts(english, update(catalog, template_))
        problems += _style_problems(stem, zh_style.notebook_slips(stem, texts))
    return problems


def english_notebooks() -> Edition:
    """Every English notebook as ``make sync`` writes it (header, set-up and footer in place)."""
    if missing := [entry for entry in manifest.NOTEBOOKS if not entry.path.is_file()]:
        raise FileNotFoundError(f"the manifest lists {missing[0].repo_path}, but the file is missing")
    return {entry: generated.sync_notebook(generated.read_notebook(entry.path), entry) for entry in manifest.NOTEBOOKS}


def check(stems: list[str] | None = None, english: Edition | None = None, chinese: Edition | None = None
          ) -> list[Problem]:
    """Everything a person must fix in the catalogs (every one, or ``stems``') and Chinese notebooks the manifest does
    not list; ``english``, ``chinese``: as sync built them. Whether sync's files are current is ``sync --check``'s."""
    english, problems = english or english_notebooks(), []
    for entry, nb in english.items():
        if not stems or entry.stem in stems:  # (a lambda: loading the catalog is what may fail)
            problems += _unless_invalid(entry.stem, lambda s, nb: check_translation(s, nb, load(s)), entry.stem, nb)
    if not stems or SHARED in stems:
        setup = {cell.get("id"): cell for nb in english.values() for cell in nb.cells if cell.get("id") in SHARED_IDS}
        problems += _unless_invalid(SHARED, lambda: catalog_problems(SHARED, load(SHARED), shared_template(
            english.values()), setup))
        listed = {entry.filename for entry in manifest.NOTEBOOKS}
        problems += [Problem(path.stem, None, "unused", f"{repo_path(path)} has no English notebook in the manifest: "
                             "delete it (and its catalog)")
                     for path in sorted((manifest.NOTEBOOK_DIR / "zh").glob("*.ipynb")) if path.name not in listed]
    if not stems or README_KEY in stems:
        problems += _unless_invalid(repo_path(manifest.CHINESE.readme_path), check_readme, english, chinese)
    if not stems or INTERFACE in stems:
        problems += _unless_invalid(INTERFACE, interface_problems)
    return problems


def interface_problems(catalog: Catalog | None = None) -> list[Problem]:
    """The interface catalog's problems (default: the stored one's): those of every catalog, and a translation
    whose ``{fields}`` differ from its English's (``.format`` would raise KeyError in the learner's kernel)."""
    catalog, fields = load(INTERFACE) if catalog is None else catalog, interface.fields
    return catalog_problems(INTERFACE, catalog, interface.template(), {}) + [
        Problem(INTERFACE, message.id[:60], "invalid", f"the translation must keep the fields "
                f"{sorted(fields(message.id))}, has {sorted(fields(message.string))}") for message in catalog or ()
        if message.id and message.string and fields(message.id) != fields(message.string)]


def _unless_invalid(where: str, check_part, *args) -> list[Problem]:
    """``check_part(*args)``, or the problem of a catalog that Babel cannot read."""
    try:
        return check_part(*args)
    except TranslationFileError as error:
        return [Problem(where, None, "invalid", str(error))]


# --- README.zh.md: one message per section of README.md ------------------------------------------------

_INTRO = "(introduction)"  # the name of the text before the first `##` heading
#: what `make sync` writes into both READMEs, a placeholder in the sections' messages (the titles and notebook 0's
#: cells are translated in their own catalogs, the Start paragraph and the table's words in the interface catalog)
_GENERATED_BLOCKS = {generated.TABLE: "<!-- notebooks table (generated) -->",
                     generated.ANSWER: "<!-- the answer (generated) -->",
                     generated.FINE_PRINT: "<!-- the fine print (generated) -->",
                     generated.START: "<!-- the start paragraph (generated) -->"}


def readme_sections(text: str) -> list[tuple[str, str]]:
    """``text`` cut at its ``## `` headings outside fenced code, as ``(heading, text)`` from :data:`_INTRO` on; the
    generated blocks (a placeholder in their place) and trailing blank lines left out."""
    for block, placeholder in _GENERATED_BLOCKS.items():
        text = block.pattern.sub(placeholder, text)
    sections, fence = [(_INTRO, [])], None
    for line in text.split("\n"):
        if marker := re.match(r"(```|~~~)", line):
            fence = None if fence == marker.group(1) else (fence or marker.group(1))
        if fence is None and line.startswith("## "):
            sections.append((line.strip(), []))
        sections[-1][1].append(line)
    return [(heading, "\n".join(lines).rstrip()) for heading, lines in sections]


def check_readme(english: Edition | None = None, chinese: Edition | None = None) -> list[Problem]:
    """README.zh.md's catalog against README.md's sections, and the style of the README that sync writes."""
    english = english_notebooks() if english is None else english
    where, catalog = repo_path(manifest.CHINESE.readme_path), load(README_KEY)
    problems = [Problem(where, p.cell, p.kind, p.message)
                for p in catalog_problems(README_KEY, catalog, readme_template(), {})]
    # a section's Chinese keeps its `## ` heading: without it, sync would join the section to the one before
    problems += [Problem(where, m.context, "invalid", f"the translation of {m.context!r} must start with its own "
                         "`## ` heading, in Chinese") for m in (catalog or [])
                 if m.id and m.string and m.id.startswith("## ") and not m.string.startswith("## ")]
    return problems + _style_problems(where, zh_style.readme_slips(planned_readme_zh(english, chinese)))


# --- generating the Chinese notebooks and README ------------------------------------------------------

def zh_cell(cell: nbformat.NotebookNode, translated: dict[str, str] | None) -> nbformat.NotebookNode:
    """The Chinese twin of an English body cell, given its messages' Chinese (``{English: Chinese}``): code with the
    usable comments swapped in; markdown's translation, its links rebased, or the English under :data:`UNTRANSLATED`."""
    new, translated = copy.deepcopy(cell), translated or {}
    if cell.cell_type == "code":
        new.source = translate_comments(cell.source, {en: zh for en, zh in translated.items()
                                                      if _comment_translation_error(zh, en) is None})
    elif cell.cell_type == "markdown" and cell.source.strip():
        text = translated.get(cell.source, "")
        new.source = rebase_for_zh(text) if text.strip() else f"{UNTRANSLATED}\n{rebase_for_zh(cell.source)}"
    return new


def chinese_notebooks(english: Edition) -> Edition:
    """The Chinese notebooks generated from the English ones (as ``make sync`` writes them)."""
    setup, interface_catalog = by_context(load(SHARED)), load(INTERFACE)  # each catalog read once, not once a notebook
    made, chinese = {generated.HEADER_ID: generated.header_source, generated.FOOTER_ID: generated.footer_source}, {}
    for entry, nb in english.items():
        own, zh = by_context(update(load(entry.stem), notebook_template(entry.stem, nb))), copy.deepcopy(nb)
        zh.cells = [nbformat.v4.new_markdown_cell(made[cell.id](entry.zh), id=cell.id) if cell.get("id") in made
                    else zh_cell(cell, (setup if cell.get("id") in SHARED_IDS else own).get(cell.get("id")))
                    for cell in nb.cells]
        chinese[entry] = generated.collapse_generated(interface.chinese_outputs(zh, interface_catalog), "zh")
    return chinese


def planned_readme_zh(english: Edition, chinese: Edition | None = None) -> str:
    """README.zh.md as sync writes it: each section of README.md in its Chinese (else the English under
    :data:`UNTRANSLATED`), the generated blocks filled in (the answer and fine print from the Chinese notebook 0)."""
    entry = manifest.notebook(0)
    chinese = chinese or (chinese_notebooks({entry: english[entry]}) if entry in english else {})
    messages = update(load(README_KEY), readme_template())
    text = "\n\n".join(m.string or f"{UNTRANSLATED}\n{m.id}" for m in messages if m.id) + "\n"
    for block, placeholder in _GENERATED_BLOCKS.items():
        text = text.replace(placeholder, f"{block.start}\n{block.end}")
    return generated.sync_readme(text, manifest.CHINESE, chinese.get(entry))


def planned_chinese_files(english: Edition, chinese: Edition) -> dict[Path, str]:
    """The catalogs (updated from the English), the Chinese notebooks and README.zh.md as sync writes them."""
    planned = {entry.zh.path: generated.dumps_notebook(nb) for entry, nb in chinese.items()}
    templates = {entry.stem: notebook_template(entry.stem, nb) for entry, nb in english.items()}
    templates |= {SHARED: shared_template(english.values()), README_KEY: readme_template(),
                  INTERFACE: interface.template()}
    for name, english_catalog in templates.items():
        planned[catalogs.translation_path(name)] = dumps(update(load(name), english_catalog))
    planned[manifest.CHINESE.readme_path] = planned_readme_zh(english, chinese)
    return planned


# --- command line ---------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m tools.translations", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("check", help="list what is untranslated, fuzzy (stale) or unused; exit 1 if anything"
                        ).add_argument("stems", nargs="*", help=f"notebook stems, or {SHARED} or {README_KEY} "
                                       "(default: everything)")
    args = parser.parse_args(argv)
    if unknown := sorted(set(args.stems) - {e.stem for e in manifest.NOTEBOOKS} - {SHARED, README_KEY, INTERFACE}):
        parser.error(f"unknown notebook(s) {unknown}; expected stems from tools/manifest.py, {SHARED} or {README_KEY}")
    problems = check(args.stems or None)
    for problem in problems:
        print(f"{problem}\n")
    print(f"{len(problems)} problem(s)" if problems else "the Chinese edition is complete and up to date")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(guard(main, "python -m tools.translations"))
