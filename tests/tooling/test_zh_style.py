"""The Chinese edition's style checker (tools/zh_style.py) catches each slip, and the edition gains no new ones.

Each rule is shown failing on a bad text and passing on the written-in-Chinese form. The
slips the edition still has are listed in KNOWN_SLIPS, which may only shrink: a fixed slip
must leave the list (the test fails while it is listed), and a new one fails until it is fixed.
"""

from collections import Counter

import pytest

from tools import zh_style

#: the slips still in the edition, to be fixed (never add to this list: fix the text)
KNOWN_SLIPS: list[str] = []


@pytest.mark.parametrize(("bad", "good"), [
    ("在这里小了 100 多倍。", "在这里只有原来的 1/100。"),
    ("就是小 100 倍", "就是原来的百分之一"),
    ("窄约 14.5 倍", "宽度约为它的 1/14.5"),
    ("输入比 id 大 `V/2` 倍", "输入是 id 的 `V/2` 倍"),
    ("要多花 16 倍的时间", "耗时会是原来的 16 倍"),
])
def test_a_comparative_before_times_is_a_slip(bad, good):
    assert [slip.rule for slip in zh_style.phrase_slips("cell", bad)] == ["times"]
    assert zh_style.phrase_slips("cell", good) == []


def test_ascii_quotes_around_chinese_are_a_slip_but_not_around_code():
    slips = zh_style.phrase_slips("cell", '动词"吃"和"移动"都跟在动物后面')
    assert [(slip.rule, slip.text) for slip in slips] == [("quotes", '"吃"'), ("quotes", '"移动"')]
    assert zh_style.phrase_slips("cell", '动词“吃”和“移动”；参数是 "auto" 或 "cuda"，代码 `print("你好")`') == []


def test_a_cross_reference_is_written_one_way():
    slips = zh_style.phrase_slips("cell", "见笔记本 4 第 2 节，以及第 3 个笔记本")
    assert [slip.text for slip in slips] == ["笔记本 4", "第 3 个笔记本"]
    assert zh_style.phrase_slips("cell", "见第 4 课第 2 节") == []


def test_a_key_term_is_glossed_at_its_first_use_and_only_there():
    assert zh_style.gloss_slips([("a", "每个词元（token）对应一个 id"), ("b", "词元会被查到")]) == []
    assert zh_style.gloss_slips([("a", "特殊词元（token）在前")]) == []  # a compound ending in the term
    missing = zh_style.gloss_slips([("a", "## 查表的梯度"), ("b", "查表（lookup）只读用到的行")])
    assert [(slip.where, slip.rule) for slip in missing] == [("a", "gloss"), ("b", "gloss")]
    assert "the first 查表 has no gloss" in missing[0].text and "glossed again" in missing[1].text
    twice = zh_style.gloss_slips([("a", "词表（vocabulary）"), ("b", "更大的词表（vocabulary）")])
    assert [slip.where for slip in twice] == ["b"]
    assert zh_style.gloss_slips([("a", "代码 `词表` 不算，公式 $词表$ 也不算"), ("b", "词表（vocabulary）")]) == []


def test_colon_density_counts_full_width_colons_per_thousand_chinese_characters():
    assert zh_style.colon_density("甲：乙") == pytest.approx(500.0)
    assert zh_style.colon_density("`代码：`") == 0.0


def test_the_edition_gains_no_new_slips_and_fixed_ones_leave_the_list():
    now = Counter(str(slip) for slip in zh_style.all_slips())
    known = Counter(KNOWN_SLIPS)
    new, fixed = now - known, known - now
    assert not new, "new slips in the Chinese edition (fix the text; see tools/zh_style.py):\n" + "\n".join(new)
    assert not fixed, "fixed slips still listed in KNOWN_SLIPS: delete these lines:\n" + "\n".join(fixed)
