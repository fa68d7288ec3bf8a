"""Style checks for the Chinese edition: the slips that make a translation read as translated (the rules:
:data:`KEY_TERMS`, :data:`PHRASE_RULES`, :data:`MAX_RATES`, README.zh.md's 术语表). ``python -m tools.translations
check`` (and so the tests) reports them as problems of the kind ``style``; ``python -m tools.zh_style`` lists them
alone, and ``--rates`` prints each file's full-width colons and semicolons per 1,000 Chinese characters.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

import nbformat
from babel.messages.catalog import Catalog

from utils.cli import OneLineParser

from . import generated, manifest
from .catalogs import by_context, load
from .cli import guard

#: The key terms each notebook glosses once, at its first use: ``{Chinese: English}``
#: (README.zh.md's glossary lists them first). In the opening list (:data:`PREVIEW`) the gloss may wait for the
#: term's first use after it, where the lesson explains it.
KEY_TERMS = {"词元": "token", "独热": "one-hot", "词表": "vocabulary", "查表": "lookup", "填充": "padding",
             "嵌入层": "embedding layer", "多热": "multi-hot", "权重绑定": "weight tying",
             "缓冲区": "buffer", "设备端断言": "device-side assert"}

#: The cell id of each notebook's opening list, "你将学到什么": a key term it names may go unglossed there
PREVIEW = "learn"

#: One word for each term: ``{the word: (its English, a pattern of the other words said for it, or None where
#: no pattern can tell them)}`` (README.zh.md's 术语表 lists each word with its English, after the key terms).
ONE_WORD = {
    "独热行": ("one-hot row", "独热行向量"),
    "多热行": ("multi-hot row", "多热行向量"),
    "缓冲区": ("buffer", r"(?<![A-Za-z_])(?<!\| )buffer(?![A-Za-z_])"),  # not in the 术语表's English column
    "主线": ("main path", "正文"),  # the prose, as against the code, is 文字
    "逐位相同": ("bit for bit", "(?:相同|同样)的比特|比特(?:完全)?相同|逐位(?:一致|相等)"),
    "本课": ("this notebook", "本笔记本"),
    "规模": ("size", "尺寸"),
    "对比": ("versus", r"(?<![A-Za-z])vs\.?(?![A-Za-z])"),
    #: the product of the one-hot (dense or sparse) and the table; 乘法 is the operation, as in 矩阵乘法 `@`
    #: (这个乘法 is left alone: in "1·w 加 0" it is the operation)
    "乘积": ("product", "(?:独热|稠密|稀疏)乘法"),
    "批量": ("batch", "批次"),  # d2l-zh's word
    "词表大小": ("vocabulary size", "词表规模"),
    #: d2l-zh's word; bare LayerNorm in prose too (not in code, not as a gloss, not in the 术语表's English column)
    "层规范化": ("LayerNorm", r"层归一化|(?<![A-Za-z_.])(?<!\| )LayerNorm(?![A-Za-z_(])"),
    "不绑定": ("untied", "未绑定"),
    "FLOP": ("FLOP", None),  # FLOPs is a ``plural`` slip
    #: terms issue 41 found missing from the 术语表: listed, so that it keeps listing them
    "独热矩阵": ("one-hot matrix", None),
    "标准误": ("standard error", None),
    "分片": ("shard", None),
    "隐藏状态": ("hidden state", None),
    "离散程度": ("spread", "分散程度"),  # one word, 第 6 课's timings included
    #: terms round 20's native read found missing from the 术语表; 移动平均 is d2l-zh's word for Adam's averages
    "logit": ("logit", None),
    "叶子": ("leaf", None),
    "视图": ("view", None),
    "就地": ("in place", None),
    "版本计数器": ("version counter", None),
    "移动平均": ("running average", "滑动平均"),
    "内核": ("kernel", None),  # a GPU kernel; Jupyter's is "Jupyter 内核"
    #: an id the table does not have (too large or negative): 错误的 id reads as a valid id that is the wrong one
    "非法的 id": ("bad id", r"错误的? ?id|非法\s*id"),
    "这次运行": ("this run", "本次运行"),  # the run that printed the numbers on screen
    "展开": ("show (a folded cell)", "再打开"),  # a fold is shown (展开); a notebook is opened (打开)
}
#: What the checks skip: code blocks, formulas, link targets and HTML comments; a code span becomes ``§``.
_SKIP = re.compile(r"```.*?```|\$\$.*?\$\$|\$[^$\n]+\$|\]\([^)]*\)|<!--.*?-->", re.S)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_GLOSS = re.compile(r"[（(][A-Za-z][A-Za-z \-]*[)）]")  # English in brackets, left out by the phrase rules
_CJK = "\u4e00-\u9fff"
_N = r"(?:\d[\d,.]*|§|[一二两三四五六七八九十百千万]+)"
#: An italic span (one star each side, on one line), ``**`` pairs (bold) read first: ``**见*中文***`` holds one,
#: ``***中文***`` is one inside bold, ``**中文**`` none; a star followed by a space (a list item, ``a * b``) opens none
_ITALIC = r"(?<!\*)(?:\*\*)*\*(?![\s*])[^*\n]*?[^\s*]\*"
#: At most this many full-width colons and semicolons per 1,000 Chinese characters of a file's prose (d2l-zh, 140
#: chapters: 3.2 and 0.7); more is the English "X: Y" and "A; B; C" carried over (issue 41 measured 16 and 12).
MAX_RATES = {"：": 4.0, "；": 2.0}
#: ... judged over at least this many Chinese characters: in a short text one colon is already "10 per 1,000"
#: (the shortest notebook has over 2,000)
MIN_CHARACTERS = 1000


@dataclass(frozen=True)
class PhraseRule:
    """A slip that a pattern finds: its rule, the pattern, what to write instead, and where it applies."""

    rule: str
    pattern: str
    advice: str = ""
    markdown: bool = True  # in markdown cells and README.zh.md
    comments: bool = True  # in code comments
    must_contain: str = ""  # a pattern the words found must contain, to be a slip
    except_in: str = ""  # the one notebook (its stem) where it is not a slip


#: The slips of a phrase, found in prose without its glosses (独热（one-hot）行向量 is 独热行向量).
PHRASE_RULES = [
    #: ``N 倍`` in an English shape: after a comparative, "N times smaller" (``小 100 倍``, ``多花 16 倍``,
    #: which reads as 17×), a growth (``增长多少倍``), a difference (``相差 10 倍``) or a bound on both sides
    #: (``不超过 20 倍``, ``N 倍以内``): write ``是……的 N 倍``, ``1/N``, ``变为原来的几倍``,
    #: ``大的至少是小的 10 倍``, ``在 1/N 到 N 倍之间``
    PhraseRule("times", rf"(?:(?:[小窄宽少低高短长快慢轻重]|大(?!约)|多花|多用|多出)了?\s*(?:约|近|超过)?"
                        rf"|(?:增长|增加|提高|减少|降低|缩小|扩大)了?\s*(?:约|近)?|相差\s*(?:约|近|至少|超过)?"
                        rf"|不超过|不超出|不到)\s*(?:{_N}|多少|几)\s*多?\s*倍|{_N}\s*倍(?:以内|之内)"),
    #: another word for a term that has one (独热行, never 独热行向量)
    *[PhraseRule("term", other, f"write {word}") for word, (_, other) in ONE_WORD.items() if other],
    #: 持有 "holds" is notebook 8's word for a process and its shard; elsewhere a table or a layer 有/用/共用 it
    PhraseRule("term", "持有", "write 有, 用 or 共用", except_in=manifest.notebook(8).stem),
    #: the part after the exercises, cited, is “深入一步”, in markdown as in a code comment (d2l-zh quotes a
    #: section it cites); its heading, ``## 深入一步``, and its row of README.zh.md's 术语表 are not citations
    PhraseRule("term", r"(?m)(?<!“)(?<!^## )(?<!^\| )深入一步|(?<=“)深入一步(?!”)", "write “深入一步”", comments=False),
    PhraseRule("term", r"(?<!“)深入一步|深入一步(?!”)", "write “深入一步” in a comment", markdown=False),
    #: italics over Chinese, *中文* or ***中文***: Chinese fonts have no italic, so the emphasis is lost or the
    #: characters are slanted by force. A term at its first use is **bold**, a cited section or a printed word is
    #: “quoted”, emphasis is plain (or bold where it carries a contrast). *English* and **中文** are not slips.
    PhraseRule("italics", _ITALIC, "write **bold** for a term, “quotes” for a citation, or plain text",
               comments=False, must_contain=f"[{_CJK}]"),
    #: 对比 between two numbers, "11.7 µs 对比 3.91 ms": there it is 对 (对比 heads a row or a label)
    PhraseRule("term", rf"\d[\d,.]*\s*(?:[A-Za-zµ/%]+\s*)?对比\s*{_N}", "write 对 between two numbers"),
    #: an English plural after a number, a count or code (`V` 个 logits, 多少 FLOPs, 8 GPUs), and FLOPs
    #: anywhere: a Chinese noun has one form (`V` 个 logit, 多少 FLOP). Words ending in -ss, -is, -us or -as are
    #: not plurals (class, axis, corpus, bias), and a unit is not a word (ms: two letters)
    PhraseRule("plural", rf"(?:(?<![A-Za-z0-9_.]){_N}|多少|几)\s*[个次种块]?\s*\**[A-Za-z][A-Za-z-]*[A-Zb-hj-rtv-z]s"
                         r"(?![A-Za-z])|(?<![A-Za-z])FLOPs(?![A-Za-z])", "write the singular"),
    #: ASCII double quotes (paired left to right on a line) around Chinese words: write “……”
    PhraseRule("quotes", r'"[^"\n]*"', must_contain=f"[{_CJK}]"),
    #: a thousands separator in prose (50,257): Chinese text writes 50257, as d2l-zh does (code and outputs keep theirs)
    PhraseRule("digits", r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,])", "write the number without separators"),
    #: 做/作 before a verb that needs no help (做舍入, 作比较, 做规范化, 做修正): write the verb itself
    PhraseRule("verb", "[做作](?:舍入|比较|规范化|修正)", "write the verb alone (舍入, 比较, 规范化, 修正)"),
    #: an English title in 书名号: d2l-zh keeps 《》 for Chinese titles and writes an English one in plain text
    PhraseRule("title", r"《[^》\u4e00-\u9fff]*》", "write an English title in plain text, without 《》"),
    #: a reference to another notebook other than ``第 N 课``
    PhraseRule("cross-ref", r"(?i)笔记本\s*\d+|第\s*\d+\s*(?:个)?笔记本|notebook\s*\d+"),
]


@dataclass(frozen=True)
class Slip:
    """One slip: where (a notebook's stem and cell id, or README.zh.md), which rule, and the words."""

    file: str  # a notebook's stem, or README.zh.md
    cell: str | None  # the cell id in that notebook (None for the README)
    #: gloss | glosses | times | term | verb | title | plural | digits | quotes | italics | cross-ref |
    #: punctuation | glossary
    rule: str
    text: str

    def __str__(self) -> str:
        return f"{self.file}: {f'cell {self.cell!r}: ' if self.cell else ''}{self.rule}: {self.text}"


def prose(text: str) -> str:
    """``text`` without code blocks, formulas, link targets and comments (each a space), each code span a ``§``."""
    return _CODE_SPAN.sub("§", _SKIP.sub(" ", text))


def phrase_slips(file: str, text: str, cell: str | None = None, markdown: bool = True) -> list[Slip]:
    """The slips of :data:`PHRASE_RULES` in the text of ``cell`` in ``file`` (``markdown=False``: its comments)."""
    text = _GLOSS.sub("", prose(text))
    return [Slip(file, cell, rule.rule, f"{match.group(0)}: {rule.advice}" if rule.advice else match.group(0))
            for rule in PHRASE_RULES if (rule.markdown if markdown else rule.comments) and file != rule.except_in
            for match in re.finditer(rule.pattern, text) if re.search(rule.must_contain, match.group(0))]


def chinese_characters(text: str) -> int:
    """How many Chinese characters (U+4E00–U+9FFF) ``text``'s prose has."""
    return len(re.findall(rf"[{_CJK}]", prose(text)))


def punctuation_rates(text: str) -> dict[str, float]:
    """Full-width colons and semicolons per 1,000 Chinese characters of ``text``'s prose (issue 41's measure)."""
    plain, chinese = prose(text), chinese_characters(text)
    return {mark: 1000 * plain.count(mark) / chinese if chinese else 0.0 for mark in MAX_RATES}


def punctuation_slips(file: str, text: str) -> list[Slip]:
    """``punctuation``: a file (``text``: its markdown prose) with more colons or semicolons than :data:`MAX_RATES`
    (none in a text of fewer than :data:`MIN_CHARACTERS` Chinese characters)."""
    if chinese_characters(text) < MIN_CHARACTERS:
        return []
    # the message leaves the rate out (``--rates`` prints it): the same slip reads the same after an edit elsewhere
    return [Slip(file, None, "punctuation", f"more than {MAX_RATES[mark]:g} {mark} per 1,000 Chinese characters of "
                 "prose: rewrite the sentence (two sentences; 是, 即, 就是; a 并列 clause), do not swap the mark for a "
                 "comma; `python -m tools.zh_style --rates` prints the rates")
            for mark, rate in punctuation_rates(text).items() if rate > MAX_RATES[mark]]


def gloss_slips(file: str, texts: list[tuple[str, str]]) -> list[Slip]:
    """The ``gloss`` slips of one notebook's prose, ``[(cell id, text), ...]`` in reading order. Headings do not
    count (a heading names a section; the gloss goes in the sentence that explains the term), and in the
    :data:`PREVIEW` cell a key term's first use may go without its gloss, which then goes on the next use."""
    found, glossed = [], set()
    for cell, text in texts:
        text = re.sub(r"(?m)^#{1,6} .*$", "", prose(text))
        for term, english in KEY_TERMS.items():
            for match in re.finditer(term, text):
                gloss = rf"[{_CJK}]{{0,4}}\**[（(]\s*{re.escape(english)}\b"  # within four more characters
                has_gloss = bool(re.match(gloss, text[match.end():], re.I))
                if cell == PREVIEW and not has_gloss and term not in glossed:
                    continue  # the opening list names it; the lesson glosses it where it explains it
                if (term in glossed) == has_gloss:  # the first use without a gloss, or a later one with one
                    found.append(Slip(file, cell, "gloss", f"{term}（{english}） glossed again (only the first use is)"
                                      if has_gloss else f"the first {term} has no gloss: write {term}（{english}）"))
                glossed.add(term)
    return found


def gloss_pile_slips(file: str, text: str, cell: str | None = None) -> list[Slip]:
    """``glosses``: a sentence of ``text``'s prose with more than one English gloss in brackets (d2l-zh glosses
    one term where it explains it; a second term's gloss goes where that term is explained, or is left out)."""
    return [Slip(file, cell, "glosses", f"{len(glosses)} English glosses in one sentence ({' '.join(glosses)}): "
                 "keep one, gloss the other term where it is explained, or split the sentence")
            for sentence in re.split(r"(?<=[。！？])|\n", prose(text))
            if len(glosses := _GLOSS.findall(sentence)) > 1]


def cell_texts(english: nbformat.NotebookNode, catalog: Catalog | None) -> list[tuple[str, bool, str]]:
    """``(cell id, whether markdown, its Chinese)`` of each translated cell of ``english``, in order, from its
    catalog (a code cell's Chinese: its comments, one a line)."""
    translated = by_context(catalog)
    return [(cell.id, cell.cell_type == "markdown", "\n".join(translated[cell.id].values()))
            for cell in english.cells if cell.get("id") in translated and cell.get("id") != generated.SETUP_ID]


def _cell_texts(entry: manifest.Notebook) -> list[tuple[str, bool, str]]:
    return cell_texts(generated.read_notebook(entry.path), load(entry.stem))


def notebook_slips(stem: str, texts: list[tuple[str, bool, str]]) -> list[Slip]:
    """Every slip in the translation of notebook ``stem`` (``texts``: :func:`cell_texts`)."""
    markdown_texts = [(cell, text) for cell, markdown, text in texts if markdown]
    return gloss_slips(stem, markdown_texts) + [
        slip for cell, text in markdown_texts for slip in gloss_pile_slips(stem, text, cell)] + [
        slip for cell, markdown, text in texts for slip in phrase_slips(stem, text, cell, markdown)] + (
        punctuation_slips(stem, "\n".join(text for _, text in markdown_texts)))


def readme_slips(text: str | None = None) -> list[Slip]:
    """The :data:`PHRASE_RULES` and ``punctuation`` slips of README.zh.md (default: the file), and ``glossary``:
    a key term or :data:`ONE_WORD` word its 术语表 does not list with its English (``| 词元 | token |``)."""
    text = manifest.CHINESE.readme_path.read_text(encoding="utf-8") if text is None else text
    words = {**KEY_TERMS, **{word: english for word, (english, _) in ONE_WORD.items()}}
    missing = [f"no row | {word} | {english} | in the 术语表" for word, english in words.items()
               if not re.search(rf"^\|\s*{re.escape(word)}\s*\|\s*{re.escape(english)}\s*\|", text, re.M)]
    found = phrase_slips(manifest.CHINESE.readme, text) + gloss_pile_slips(manifest.CHINESE.readme, text) + (
        punctuation_slips(manifest.CHINESE.readme, text))
    return found + [Slip(manifest.CHINESE.readme, None, "glossary", message) for message in missing]


def all_slips() -> list[Slip]:
    return [slip for entry in manifest.NOTEBOOKS for slip in notebook_slips(entry.stem, _cell_texts(entry))] + (
        readme_slips())


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m tools.zh_style", description=__doc__.splitlines()[0])
    parser.add_argument("--rates", action="store_true",
                        help="print each file's colons and semicolons per 1,000 Chinese characters instead")
    args = parser.parse_args(argv)
    if args.rates:  # each notebook's translation (its markdown), then README.zh.md
        texts = {entry.stem: "\n".join(text for _, markdown, text in _cell_texts(entry) if markdown)
                 for entry in manifest.NOTEBOOKS}
        texts[manifest.CHINESE.readme] = manifest.CHINESE.readme_path.read_text(encoding="utf-8")
        for name, text in texts.items():
            print("  ".join(f"{rate:5.1f} {mark}" for mark, rate in punctuation_rates(text).items()) + f"  {name}")
        return 0
    slips = all_slips()
    for slip in slips:
        print(slip)
    print(f"{len(slips)} slip(s)" if slips else "no slips")
    return 1 if slips else 0


if __name__ == "__main__":
    sys.exit(guard(main, "python -m tools.zh_style"))

