"""Style checks for the Chinese edition: the slips that make a translation read as translated.

:func:`notebook_slips` reads one notebook's translation (``notebooks/zh/translations/<stem>.json``)
in cell order, :func:`readme_slips` reads README.zh.md; both return :class:`Slip` s:

- ``gloss``: a key term (:data:`KEY_TERMS`) used for the first time in a notebook without its
  English in brackets, ``词元（token）``, or glossed a second time;
- ``times``: a comparative before ``N 倍``, which says "N times smaller" the English way
  (``小 100 倍``, ``窄约 14.5 倍``, ``大 `V/2` 倍``) or is ambiguous (``多花 16 倍`` reads as 17×):
  write ``是……的 N 倍``, ``为原来的 N 分之一`` or ``1/N``;
- ``quotes``: ASCII double quotes around Chinese words: write “……”;
- ``cross-ref``: a reference to another notebook other than ``第 N 课`` (``笔记本 8``).

``python -m tools.translations check`` (and so the test suite) reports them with the other problems
of the edition, as problems of the kind ``style``; ``python -m tools.zh_style`` lists them alone,
and ``--colons`` prints each file's full-width colons per 1,000 Chinese characters (a chain of
them, "X：Y：Z", is an English sentence shape).
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass

from utils.cli import OneLineParser

from . import manifest
from .cli import guard

#: The key terms each notebook glosses once, at its first use: ``{Chinese: English}``
#: (README.zh.md's glossary lists them first).
KEY_TERMS = {"词元": "token", "独热": "one-hot", "词表": "vocabulary", "查表": "lookup", "填充": "padding"}

#: What the checks skip: code blocks, formulas, link targets and HTML comments; a code span becomes ``§``.
_SKIP = re.compile(r"```.*?```|\$\$.*?\$\$|\$[^$\n]+\$|\]\([^)]*\)|<!--.*?-->", re.S)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_CJK = "\u4e00-\u9fff"
#: a comparative right before a number (or a code span) and 倍
_TIMES = re.compile(r"(?:[小窄宽少低高短长快慢轻重]|大(?!约)|多花|多用|多出)了?\s*(?:约|近|超过)?\s*"
                    r"(?:\d[\d,.]*|§)\s*多?\s*倍")
#: ASCII double quotes, paired left to right on a line
_ASCII_QUOTED = re.compile(r'"[^"\n]*"')
_CROSS_REF = re.compile(r"笔记本\s*\d+|第\s*\d+\s*(?:个)?笔记本|notebook\s*\d+", re.I)


@dataclass(frozen=True)
class Slip:
    """One slip: where (a notebook's stem and cell id, or README.zh.md), which rule, and the words."""

    file: str  # a notebook's stem, or README.zh.md
    cell: str | None  # the cell id in that notebook (None for the README)
    rule: str  # gloss | times | quotes | cross-ref
    text: str

    @property
    def where(self) -> str:
        return f"{self.file}: cell {self.cell!r}" if self.cell else self.file

    def __str__(self) -> str:
        return f"{self.where}: {self.rule}: {self.text}"


def prose(text: str) -> str:
    """``text`` without code blocks, formulas, link targets and comments (each replaced by a space), and each
    code span replaced by ``§``."""
    return _CODE_SPAN.sub("§", _SKIP.sub(" ", text))


def _glossed_at(text: str, end: int, english: str) -> bool:
    """Whether the term ending at ``end`` is followed (within four more characters) by ``（english``."""
    return re.match(rf"[{_CJK}]{{0,4}}[（(]\s*{re.escape(english)}\b", text[end:], re.I) is not None


def phrase_slips(file: str, text: str, cell: str | None = None) -> list[Slip]:
    """The ``times``, ``quotes`` and ``cross-ref`` slips of one text (of ``cell`` in ``file``)."""
    text = prose(text)
    found = [Slip(file, cell, "times", m.group(0)) for m in _TIMES.finditer(text)]
    found += [Slip(file, cell, "quotes", m.group(0)) for m in _ASCII_QUOTED.finditer(text)
              if re.search(f"[{_CJK}]", m.group(0))]
    found += [Slip(file, cell, "cross-ref", m.group(0)) for m in _CROSS_REF.finditer(text)]
    return found


def gloss_slips(file: str, texts: list[tuple[str, str]]) -> list[Slip]:
    """The ``gloss`` slips of one notebook's prose, ``[(cell id, text), ...]`` in reading order."""
    found, glossed = [], set()
    for cell, text in texts:
        text = prose(text)
        for term, english in KEY_TERMS.items():
            for match in re.finditer(term, text):
                has_gloss = _glossed_at(text, match.end(), english)
                if term not in glossed and not has_gloss:
                    found.append(Slip(file, cell, "gloss", f"the first {term} has no gloss: write {term}（{english}）"))
                elif term in glossed and has_gloss:
                    again = f"{term}（{english}） glossed again (only the first use is)"
                    found.append(Slip(file, cell, "gloss", again))
                glossed.add(term)
    return found


def _cell_texts(stem: str, cells: dict[str, dict] | None = None) -> list[tuple[str, str, str]]:
    """``(cell id, kind, Chinese)`` of every translated cell, in the translation's (notebook) order. ``cells``:
    the translation's entries (default: read from ``notebooks/zh/translations/<stem>.json``)."""
    if cells is None:
        path = manifest.NOTEBOOK_DIR / "zh" / "translations" / f"{stem}.json"
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    texts = []
    for cell_id, entry in cells.items():
        if entry.get("type") == "markdown":
            texts.append((cell_id, "markdown", "\n".join(entry.get("zh") or [])))
        else:
            texts.append((cell_id, "comments", "\n".join(pair.get("zh") or "" for pair in entry.get("comments", []))))
    return texts


def notebook_slips(stem: str, cells: dict[str, dict] | None = None) -> list[Slip]:
    """Every slip in the translation of notebook ``stem`` (``cells``: its entries, default: read from its file)."""
    texts = _cell_texts(stem, cells)
    found = gloss_slips(stem, [(cid, text) for cid, kind, text in texts if kind == "markdown"])
    for cid, _, text in texts:
        found += phrase_slips(stem, text, cid)
    return found


def readme_slips(text: str | None = None) -> list[Slip]:
    """The ``times``, ``quotes`` and ``cross-ref`` slips of README.zh.md (its glossary introduces the terms)."""
    if text is None:
        text = (manifest.ROOT / manifest.CHINESE.readme).read_text(encoding="utf-8")
    return phrase_slips(manifest.CHINESE.readme, text)


def all_slips() -> list[Slip]:
    return [slip for entry in manifest.NOTEBOOKS for slip in notebook_slips(entry.stem)] + readme_slips()


def colon_density(text: str) -> float:
    """Full-width colons per 1,000 Chinese characters of ``text``'s prose."""
    plain = prose(text)
    chinese = len(re.findall(rf"[{_CJK}]", plain))
    return 1000 * plain.count("：") / chinese if chinese else 0.0


def colon_report() -> list[tuple[str, float]]:
    """``(file, colons per 1,000 Chinese characters)`` for every notebook's translation and README.zh.md."""
    rows = [(entry.stem, colon_density("\n".join(text for _, _, text in _cell_texts(entry.stem))))
            for entry in manifest.NOTEBOOKS]
    readme = (manifest.ROOT / manifest.CHINESE.readme).read_text(encoding="utf-8")
    return [*rows, (manifest.CHINESE.readme, colon_density(readme))]


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m tools.zh_style", description=__doc__.splitlines()[0])
    parser.add_argument("--colons", action="store_true", help="print the colon density of each file instead")
    args = parser.parse_args(argv)
    if args.colons:
        for name, density in colon_report():
            print(f"{density:5.1f}  {name}")
        return 0
    slips = all_slips()
    for slip in slips:
        print(slip)
    print(f"{len(slips)} slip(s)" if slips else "no slips")
    return 1 if slips else 0


if __name__ == "__main__":
    sys.exit(guard(main, "python -m tools.zh_style"))

