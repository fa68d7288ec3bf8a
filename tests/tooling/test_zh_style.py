"""The Chinese edition's style checker (tools/zh_style.py): each slip is caught, in a notebook's
translation and in README.zh.md, and fails the translation check (``python -m tools.translations
check``, which the suite runs); the written-in-Chinese form passes."""

import copy
import json

import pytest

from tools import generated, manifest, translations, zh_style

STEM = manifest.notebook(1).stem


def _english():
    return generated.read_notebook(manifest.notebook(1).path)


def _translation():
    path = translations.translation_path(STEM)
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _style_problems(cells):
    return [p for p in translations.check_translation(STEM, _english(), cells) if p.kind == "style"]


@pytest.mark.parametrize(("bad", "good"), [
    ("在这里小了 100 多倍。", "在这里只有原来的 1/100。"),
    ("就是小 100 倍", "就是原来的百分之一"),
    ("窄约 14.5 倍", "宽度约为它的 1/14.5"),
    ("输入比 id 大 `V/2` 倍", "输入是 id 的 `V/2` 倍"),
    ("要多花 16 倍的时间", "耗时会是原来的 16 倍"),
])
def test_a_comparative_before_times_is_a_slip(bad, good):
    assert [slip.rule for slip in zh_style.phrase_slips("nb", bad)] == ["times"]
    assert zh_style.phrase_slips("nb", good) == []


def test_ascii_quotes_around_chinese_are_a_slip_but_not_around_code():
    slips = zh_style.phrase_slips("nb", '动词"吃"和"移动"都跟在动物后面')
    assert [(slip.rule, slip.text) for slip in slips] == [("quotes", '"吃"'), ("quotes", '"移动"')]
    assert zh_style.phrase_slips("nb", '动词“吃”和“移动”；参数是 "auto" 或 "cuda"，代码 `print("你好")`') == []


def test_a_cross_reference_is_written_one_way():
    slips = zh_style.phrase_slips("nb", "见笔记本 4 第 2 节，以及第 3 个笔记本")
    assert [slip.text for slip in slips] == ["笔记本 4", "第 3 个笔记本"]
    assert zh_style.phrase_slips("nb", "见第 4 课第 2 节") == []


def test_a_key_term_is_glossed_at_its_first_use_and_only_there():
    assert zh_style.gloss_slips("nb", [("a", "每个词元（token）对应一个 id"), ("b", "词元会被查到")]) == []
    assert zh_style.gloss_slips("nb", [("a", "特殊词元（token）在前")]) == []  # a compound ending in the term
    missing = zh_style.gloss_slips("nb", [("a", "## 查表的梯度"), ("b", "查表（lookup）只读用到的行")])
    assert [(slip.cell, slip.rule) for slip in missing] == [("a", "gloss"), ("b", "gloss")]
    assert "the first 查表 has no gloss" in missing[0].text and "glossed again" in missing[1].text
    twice = zh_style.gloss_slips("nb", [("a", "词表（vocabulary）"), ("b", "更大的词表（vocabulary）")])
    assert [slip.cell for slip in twice] == ["b"]
    code_and_formulas = [("a", "代码 `词表` 不算，公式 $词表$ 也不算"), ("b", "词表（vocabulary）")]
    assert zh_style.gloss_slips("nb", code_and_formulas) == []


def test_colon_density_counts_full_width_colons_per_thousand_chinese_characters():
    assert zh_style.colon_density("甲：乙") == pytest.approx(500.0)
    assert zh_style.colon_density("`代码：`") == 0.0


def test_the_edition_reads_cleanly_now():
    assert _style_problems(_translation()) == []
    assert zh_style.all_slips() == [], "\n".join(map(str, zh_style.all_slips()))


@pytest.mark.parametrize(("slip", "rule"), [
    ("窄约 14.5 倍", "times"), ('动词"吃"', "quotes"), ("见笔记本 4", "cross-ref"), ("词元（token）", "gloss"),
])
def test_a_cell_with_a_slip_fails_the_translation_check(slip, rule):
    cells = copy.deepcopy(_translation())
    summary = cells["summary"]
    summary["zh"] = [*summary["zh"], f"- {slip}。"]  # the summary comes after the first gloss of every term
    problems = _style_problems(cells)
    assert [(p.cell, p.kind) for p in problems] == [("summary", "style")]
    assert problems[0].message.startswith(f"{rule}: ")


def test_a_comment_with_a_slip_fails_too():
    cells = copy.deepcopy(_translation())
    pair = cells["imports"]["comments"][0]
    pair["zh"] = pair["zh"] + "（见笔记本 2）"
    assert [(p.cell, p.message.split(":")[0]) for p in _style_problems(cells)] == [("imports", "cross-ref")]


def test_a_slip_in_readme_zh_fails_the_readme_check(tmp_path, monkeypatch):
    readme = tmp_path / "README.zh.md"
    readme.write_text(translations.readme_zh_path().read_text(encoding="utf-8") + '\n动词"吃"要多花 16 倍的时间。\n',
                      encoding="utf-8")
    monkeypatch.setattr(translations, "readme_zh_path", lambda: readme)
    style = [p for p in translations.check_readme() if p.kind == "style"]
    assert sorted(p.message.split(":")[0] for p in style) == ["quotes", "times"]
