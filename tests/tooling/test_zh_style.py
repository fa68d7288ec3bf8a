"""The Chinese edition's style checker (tools/zh_style.py): each slip is caught, in a notebook's
translation and in README.zh.md, and fails the translation check (``python -m tools.translations
check``, which the suite runs); the written-in-Chinese form passes."""

import re

import pytest

from tools import catalogs, generated, manifest, translations, zh_style

STEM = manifest.notebook(1).stem


def _english():
    return generated.read_notebook(manifest.notebook(1).path)


def _translation():
    return translations.load(STEM)


def _with_slip(catalog, context, slip):
    """``catalog`` with ``slip`` added to the Chinese of the first message of ``context``."""
    message = next(m for m in catalog if m.context == context)
    message.string += slip
    return catalog


def _style_problems(catalog):
    return [p for p in translations.check_translation(STEM, _english(), catalog) if p.kind == "style"]


def _new_style_problems(catalog):
    """The style problems that ``catalog`` has and notebook 1's catalog has not: each rule is tested whatever
    slips the edition has today."""
    before = {(p.cell, p.message) for p in _style_problems(_translation())}
    return [p for p in _style_problems(catalog) if (p.cell, p.message) not in before]


@pytest.mark.parametrize(("bad", "good"), [
    ("在这里小了 100 多倍。", "在这里只有原来的 1/100。"),
    ("就是小 100 倍", "就是原来的百分之一"),
    ("窄约 14.5 倍", "宽度约为它的 1/14.5"),
    ("输入比 id 大 `V/2` 倍", "输入是 id 的 `V/2` 倍"),
    ("要多花 16 倍的时间", "耗时会是原来的 16 倍"),
    ("`V` 每翻一倍，计数增长多少倍？", "`V` 每翻一倍，计数变为原来的几倍？"),
    ("计数增长了 4 倍", "计数是原来的 4 倍"),
    ("选两个 `V`，且彼此至少相差 10 倍", "选两个 `V`，且大的至少是小的 10 倍"),
    ("概率与 `1/V` 相比，无论偏高还是偏低，都不超过 20 倍", "概率都在 `1/V` 的 1/20 到 20 倍之间"),
    ("概率都在 `1/V` 的 20 倍以内", "概率都在 `1/V` 的二十分之一到 20 倍之间"),
    ("查表快一百倍", "稠密乘积的耗时是查表的一百倍以上"),
])
def test_an_english_shape_of_times_is_a_slip(bad, good):
    assert [slip.rule for slip in zh_style.phrase_slips("nb", bad)] == ["times"]
    assert zh_style.phrase_slips("nb", good) == []


def test_ascii_quotes_around_chinese_are_a_slip_but_not_around_code():
    slips = zh_style.phrase_slips("nb", '动词"吃"和"移动"都跟在动物后面')
    assert [(slip.rule, slip.text) for slip in slips] == [("quotes", '"吃"'), ("quotes", '"移动"')]
    assert zh_style.phrase_slips("nb", '动词“吃”和“移动”；参数是 "auto" 或 "cuda"，代码 `print("你好")`') == []


@pytest.mark.parametrize(("bad", "good"), [
    ("用独热行向量去乘它", "用独热行去乘它"),
    ("把 id 变成**独热（one-hot）行向量**", "把 id 变成**独热（one-hot）行**"),
    ("一个袋就是一个多热行向量", "一个袋就是一个多热行"),
    ("正文声称乘积是精确的", "主线声称乘积是精确的"),
    ("任何顺序都得到相同的比特", "无论按什么顺序相加，结果都逐位相同"),
    ("**相同**，逐位一致", "**相同**，逐位相同"),
    ("先相加再除以 L，所以比特完全相同", "先相加再除以 L，所以结果逐位相同"),
    ("供本笔记本后面的部分使用", "供本课后面的部分使用"),
    ("在 GPT-2 的尺寸上", "在 GPT-2 的规模上"),
    ("| 前向：查表 vs 稠密 |", "| 前向传播：查表对比稠密 |"),
    ("18.3 µs vs. 3.9 ms", "查表对比稠密：18.3 µs 对 3.9 ms"),
    ("冻结的表与 buffer 的对比", "冻结的表与缓冲区（buffer）的对比，`register_buffer`"),
    ("独热乘法的前向传播", "独热乘积的前向传播"),
    ("稠密乘法的耗时随 `V` 增长", "稠密乘积的耗时随 `V` 增长，矩阵乘法 `@` 也一样"),
    ("稀疏乘法在 CPU 上较慢", "稀疏乘积在 CPU 上较慢"),
    ("一个批次的 id", "一个批量的 id"),
    ("词表规模翻一倍", "词表大小翻一倍"),
    ("先经过层归一化", "先经过层规范化"),
    ("最终的 LayerNorm 给出单位方差", "最终的层规范化（LayerNorm）给出单位方差，即 `nn.LayerNorm(d)`"),
    ("未绑定的模型", "不绑定的模型"),
    ("两次运行逐位相等", "两次运行逐位相同"),
    ("各轮计时的分散程度", "各轮计时的离散程度"),
    ("Adam 保存梯度的滑动平均", "Adam 保存梯度的移动平均"),
    ("本次运行的计时", "这次运行的计时"),
    ("做完题再打开", "做完题再展开"),
])
def test_another_word_for_a_term_is_a_slip(bad, good):
    slips = zh_style.phrase_slips("nb", bad)
    assert [slip.rule for slip in slips] == ["term"]
    assert slips[0].text.split("write ")[1] in good.replace("（one-hot）", "")
    assert zh_style.phrase_slips("nb", good) == []
    assert zh_style.phrase_slips("nb", bad, markdown=False) == slips  # the same in a code comment


def test_going_deeper_is_cited_in_quotes_in_markdown_and_comments():
    assert zh_style.phrase_slips("nb", "## 深入一步\n\n推导见“深入一步”。[“深入一步”](#cell-id=x)会测量它。") == []
    assert zh_style.phrase_slips("nb", "| 深入一步 | Going deeper | 练习之后的选读部分 |") == []  # the 术语表's row
    assert zh_style.phrase_slips("nb", "# 见第 1 课的“深入一步”", markdown=False) == []
    for bare in ("推导见深入一步。", "推导见“深入一步。", "推导见深入一步”。", "推导见**深入一步**。", "### 深入一步"):
        slips = zh_style.phrase_slips("nb", bare)
        assert [(slip.rule, slip.text) for slip in slips] == [("term", "深入一步: write “深入一步”")], bare
    for bare in ("# 见深入一步", "# 基准测试程序（深入一步）", "# 深入一步：统计"):
        assert [slip.rule for slip in zh_style.phrase_slips("nb", bare, markdown=False)] == ["term"]


def test_going_deeper_in_italics_is_a_slip_twice():
    for italic in ("推导见*深入一步*。", "推导见***深入一步***。", "**推导见*深入一步***。"):
        assert [slip.rule for slip in zh_style.phrase_slips("nb", italic)] == ["term", "italics"], italic


@pytest.mark.parametrize(("bad", "good", "spans"), [
    ("它会告诉你*回答正确*，或说*还没有作答*。", "它会告诉你“回答正确”，或说“还没有作答”。", 2),  # printed words
    ("*相同*的例外有下面几种。", "**相同**的例外有下面几种。", 1),  # a contrast
    ("**练习 1.1** 叫作*多热*（multi-hot）行", "**练习 1.1** 叫作**多热**（multi-hot）行", 1),  # a term
    ("见下文*半精度*", "见下文“半精度”", 1),  # a section
    ("谁也不知道哪些词*应该*彼此靠近", "谁也不知道哪些词应该彼此靠近", 1),  # emphasis
    ("输出层***就是*** `wte`", "输出层就是 `wte` 本身", 1),  # bold-italic
    ("**见*重复很多次时***", "**见“重复很多次时”**", 1),  # italics inside bold
    ("*版本计数器*和*叶子*", "**版本计数器**和**叶子**", 2),
])
def test_italics_over_chinese_are_a_slip_in_markdown(bad, good, spans):
    assert [slip.rule for slip in zh_style.phrase_slips("nb", bad)] == ["italics"] * spans
    assert zh_style.phrase_slips("nb", good) == []


def test_italics_over_english_code_or_formulas_are_not():
    for text in ("*start and sentences*（起点和句子）列中", "“深入一步”（*Going deeper*）", "`a*b` 和 `c*d` 之间",
                 "$a*b$ 与 $c*d$ 之间", "- 列表项 * 乘号 *", "**粗体**和**粗体**之间"):
        assert zh_style.phrase_slips("nb", text) == [], text
    assert zh_style.phrase_slips("nb", "# 乘积 *不是* 查表", markdown=False) == []  # a code comment is code


def test_chiyou_holds_is_notebook_8s_word_only():
    assert [slip.rule for slip in zh_style.phrase_slips(manifest.notebook(2).stem, "嵌入层持有一张表")] == ["term"]
    assert zh_style.phrase_slips(manifest.notebook(2).stem, "嵌入层有一张表") == []
    assert zh_style.phrase_slips(manifest.notebook(8).stem, "每个进程持有表的一个分片") == []
    assert [slip.rule for slip in zh_style.readme_slips(_readme_zh() + "\n两层持有同一张表\n")
            if slip.rule == "term"] == ["term"]


@pytest.mark.parametrize(("bad", "good"), [
    ("`V` 个 logits", "`V` 个 logit"),
    ("32 × 50257 个 logits", "32 × 50257 个 logit"),
    ("要花多少 FLOPs？", "要花多少 FLOP？"),
    ("每次前向传播 **`2·n·V·d` FLOPs**", "每次前向传播 **`2·n·V·d` 个 FLOP**"),
    ("统计函数花费的 FLOPs", "统计函数花费的 FLOP"),
    ("用 8 GPUs 训练", "用 8 块 GPU 训练"),
    ("三个 tokens", "三个词元"),
])
def test_an_english_plural_after_a_number_or_code_is_a_slip(bad, good):
    assert [slip.rule for slip in zh_style.phrase_slips("nb", bad)] == ["plural"]
    assert [slip.rule for slip in zh_style.phrase_slips("nb", f"# {bad}", markdown=False)] == ["plural"]
    assert zh_style.phrase_slips("nb", good) == []


def test_a_unit_or_a_word_that_only_ends_in_s_is_not_a_plural():
    text = "11.7 µs 对 3.91 ms，约 50 GB/s，即 10⁹ FLOP/s；2 个 class，3 个 axis，`V` 个 bias，在 macOS 上"
    assert [slip.rule for slip in zh_style.phrase_slips("nb", text)] == []


def test_between_two_numbers_versus_is_dui():
    slips = zh_style.phrase_slips("nb", "| 前向传播：查表对比稠密 | 11.7 µs 对比 3.91 ms，334× |")
    assert [(slip.rule, slip.text) for slip in slips] == [("term", "11.7 µs 对比 3.91: write 对 between two numbers")]
    assert zh_style.phrase_slips("nb", "| 前向传播：查表对比稠密 | 11.7 µs 对 3.91 ms，334× |") == []


def test_a_thousands_separator_in_prose_is_a_slip_but_not_in_code():
    slips = zh_style.phrase_slips("nb", "GPT-2 的词表有 50,257 个词元，约 1,000,000 个数")
    advice = "write the number without separators"
    assert [slip.text for slip in slips] == [f"50,257: {advice}", f"1,000,000: {advice}"]
    assert {slip.rule for slip in slips} == {"digits"}
    assert zh_style.phrase_slips("nb", "GPT-2 的词表有 50257 个词元，`V = 50,257`，形状 (2,3)，0.5,1") == []
    assert [slip.rule for slip in zh_style.phrase_slips("nb", "# V = 1,000", markdown=False)] == ["digits"]


def test_a_cross_reference_is_written_one_way():
    slips = zh_style.phrase_slips("nb", "见笔记本 4 第 2 节，以及第 3 个笔记本")
    assert [slip.text for slip in slips] == ["笔记本 4", "第 3 个笔记本"]
    assert zh_style.phrase_slips("nb", "见第 4 课第 2 节") == []


def test_a_key_term_is_glossed_at_its_first_use_and_only_there():
    assert zh_style.gloss_slips("nb", [("a", "每个词元（token）对应一个 id"), ("b", "词元会被查到")]) == []
    assert zh_style.gloss_slips("nb", [("a", "特殊词元（token）在前")]) == []  # a compound ending in the term
    missing = zh_style.gloss_slips("nb", [("a", "- 查表的梯度"), ("b", "查表（lookup）只读用到的行")])
    assert [(slip.cell, slip.rule) for slip in missing] == [("a", "gloss"), ("b", "gloss")]
    assert "the first 查表 has no gloss" in missing[0].text and "glossed again" in missing[1].text
    twice = zh_style.gloss_slips("nb", [("a", "词表（vocabulary）"), ("b", "更大的词表（vocabulary）")])
    assert [slip.cell for slip in twice] == ["b"]
    code_and_formulas = [("a", "代码 `词表` 不算，公式 $词表$ 也不算"), ("b", "词表（vocabulary）")]
    assert zh_style.gloss_slips("nb", code_and_formulas) == []
    assert zh_style.gloss_slips("nb", [("a", "叫作**多热**（multi-hot）行"), ("b", "多热行")]) == []  # in bold


def test_the_opening_list_may_leave_a_key_term_to_be_glossed_where_the_lesson_explains_it():
    later = [("learn", "- 一个句子如何借助词表变成 id"), ("vocab-intro", "由**词表**（vocabulary）规定")]
    assert zh_style.gloss_slips("nb", later) == []
    now = [("learn", "- 借助词表（vocabulary）变成 id"), ("vocab-intro", "由**词表**规定")]
    assert zh_style.gloss_slips("nb", now) == []
    never = zh_style.gloss_slips("nb", [("learn", "- 借助词表变成 id"), ("vocab-intro", "由**词表**规定")])
    assert [(slip.cell, slip.rule) for slip in never] == [("vocab-intro", "gloss")]
    twice = [("learn", "- 借助词表（vocabulary）变成 id"), ("vocab-intro", "由**词表**（vocabulary）规定")]
    assert [slip.cell for slip in zh_style.gloss_slips("nb", twice)] == ["vocab-intro"]
    elsewhere = zh_style.gloss_slips("nb", [("answer", "借助词表变成 id"), ("b", "由**词表**（vocabulary）规定")])
    assert [slip.cell for slip in elsewhere] == ["answer", "b"]  # only the opening list may wait


def test_a_heading_neither_needs_nor_takes_the_gloss():
    assert zh_style.gloss_slips("nb", [("a", "## 1. 词元袋\n\n- 为一组词元（token）给出一个向量")]) == []
    heading = zh_style.gloss_slips("nb", [("a", "### 袋中的填充（padding）\n\n- 填充行")])
    assert [slip.text for slip in heading] == ["the first 填充 has no gloss: write 填充（padding）"]


@pytest.mark.parametrize(("bad", "good"), [
    ("词表（vocabulary）中有 `V = 4` 个词元（token）。", "共 `V = 4` 个词元（token）。"),
    ("**查询**（query）与每个**键**（key）比对打分", "查询（query）与每个键比对打分。键（key）是被比对的向量"),
    ("嵌入层（embedding layer）有表，每个词元（token）对应一行", "嵌入层（embedding layer）有表。\n- 词元（token）"),
])
def test_two_english_glosses_in_one_sentence_are_a_slip(bad, good):
    assert [slip.rule for slip in zh_style.gloss_pile_slips("nb", bad)] == ["glosses"]
    assert zh_style.gloss_pile_slips("nb", good) == []
    assert zh_style.gloss_pile_slips("nb", "GPT-2（`V = 50257`）的词表（vocabulary）") == []  # code is no gloss


@pytest.mark.parametrize(("bad", "good"), [
    ("可能在乘积内部对权重做舍入", "可能在乘积内部把权重舍入"), ("再与 `W[ids]` 作比较", "再与 `W[ids]` 比一比"),
    ("对这一项做规范化", "把这一项也规范化"), ("对两个移动平均做修正", "先修正两个移动平均"),
])
def test_do_before_a_verb_is_a_slip(bad, good):
    assert [slip.rule for slip in zh_style.phrase_slips("nb", bad)] == ["verb"]
    assert zh_style.phrase_slips("nb", good) == []


def test_an_english_title_is_plain_text_and_a_chinese_one_takes_shu_ming_hao():
    assert [slip.rule for slip in zh_style.phrase_slips("nb", "即《Attention Is All You Need》中的 d_model")] == [
        "title"]
    assert zh_style.phrase_slips("nb", "即论文 Attention Is All You Need 中的 d_model，见《动手学深度学习》") == []


@pytest.mark.parametrize(("bad", "good"), [
    ("是嵌入层权重的转置", "是嵌入层（embedding layer）权重的转置"),
    ("**多热行乘以嵌入表**", "**多热（multi-hot）行乘以嵌入表**"),
    ("从而使权重绑定成为可能", "从而使权重绑定（weight tying）成为可能"),
    ("读取一个缓冲区的下一个切片", "读取一个缓冲区（buffer）的下一个切片"),
    ("两者都会触发设备端断言", "两者都会触发**设备端断言**（device-side assert）"),
])
def test_each_key_term_is_glossed_at_its_first_use(bad, good):
    assert [slip.rule for slip in zh_style.gloss_slips("nb", [("a", bad)])] == ["gloss"]
    assert zh_style.gloss_slips("nb", [("a", good)]) == []


def test_the_chinese_is_read_from_the_catalog_in_notebook_order():
    texts = zh_style.cell_texts(_english(), _translation())
    ids = [cell.id for cell in _english().cells]
    assert [ids.index(cell) for cell, *_ in texts] == sorted(ids.index(cell) for cell, *_ in texts)
    [parameters] = [text for cell, markdown, text in texts if cell == "parameters" and not markdown]
    assert parameters.startswith("# 参数单元格（可以修改的设置）\n# ")  # a code cell's comments, one a line
    assert next(text for cell, markdown, text in texts if cell == "learn" and markdown).startswith("## 你将学到什么")


def test_punctuation_rates_count_colons_and_semicolons_per_thousand_chinese_characters_of_prose():
    assert zh_style.punctuation_rates("甲：乙；丙") == pytest.approx({"：": 1000 / 3, "；": 1000 / 3})
    assert zh_style.punctuation_rates("甲乙`代码：；`$a；b$<!-- 注：-->[链接](x：y)") == {"：": 0.0, "；": 0.0}


SHAPES = "这一段正好有十个汉字。" * 100  # 1,000 Chinese characters with no colon and no semicolon


@pytest.mark.parametrize(("bad", "good", "mark"), [
    ("结论：查表更快。原因：它只复制行。", "结论是查表更快，原因在于它只复制行。", "："),
    ("查表复制行；乘积做乘加；两者结果相同。", "查表复制行，乘积则做乘加。两者结果相同。", "；"),
])
def test_a_file_with_the_english_x_colon_y_or_a_semicolon_chain_is_a_slip(bad, good, mark):
    slips = zh_style.punctuation_slips("nb", SHAPES + bad * 3)
    assert [(slip.file, slip.cell, slip.rule) for slip in slips] == [("nb", None, "punctuation")]
    assert slips[0].text.startswith(f"more than {zh_style.MAX_RATES[mark]:g} {mark} per 1,000")
    assert zh_style.punctuation_slips("nb", SHAPES + good * 3) == []
    # at the limit (4 colons, 2 semicolons per 1,000) it passes, and a short text is not judged
    assert zh_style.punctuation_slips("nb", SHAPES + "：" * 4 + "；" * 2) == []
    assert zh_style.punctuation_slips("nb", "这一段正好有十个汉字" * 90 + bad * 3) == []


def test_a_notebooks_rates_are_its_markdowns_and_readme_zhs_its_own():
    texts = [("a", True, SHAPES), ("b", True, "：" * 10), ("c", False, "# 注释：不算：不算：不算")]
    slips = [slip for slip in zh_style.notebook_slips("nb", texts) if slip.rule == "punctuation"]
    assert [slip.text.split(" per")[0] for slip in slips] == ["more than 4 ："]  # 10 colons in 1,000 characters
    readme = [slip for slip in zh_style.readme_slips(_readme_zh() + "\n" + "结论：对。" * 200)
              if slip.rule == "punctuation"]
    assert "more than 4 ：" in [slip.text.split(" per")[0] for slip in readme]


def test_the_rates_command_prints_both_rates_of_every_file(capsys):
    assert zh_style.main(["--rates"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert [row.split()[-1] for row in rows] == [entry.stem for entry in manifest.NOTEBOOKS] + ["README.zh.md"]
    assert all(re.fullmatch(r" *\d+\.\d ：  +\d+\.\d ；  \S+", row) for row in rows), rows


def test_the_edition_reads_cleanly_now():
    assert _style_problems(_translation()) == []
    assert zh_style.all_slips() == [], "\n".join(map(str, zh_style.all_slips()))


@pytest.mark.parametrize(("slip", "rule"), [
    ("窄约 14.5 倍", "times"), ("计数增长多少倍", "times"), ("彼此至少相差 10 倍", "times"),
    ("无论偏高还是偏低，都不超过 20 倍", "times"), ("独热行向量", "term"), ("正文", "term"), ("相同的比特", "term"),
    ("本笔记本", "term"), ("尺寸", "term"), ("查表 vs 乘积", "term"), ("见深入一步", "term"), ("非法 id", "term"),
    ("稠密乘法", "term"), ("一个批次", "term"), ("两层持有同一张表", "term"), ("见**深入一步**", "term"),
    ("`V` 个 logits", "plural"), ("多少 FLOPs", "plural"),
    ('动词"吃"', "quotes"), ("见笔记本 4", "cross-ref"), ("词元（token）", "gloss"), ("见下文*半精度*", "italics"),
    ("即《Attention Is All You Need》", "title"), ("张量（tensor）与视图（view）", "glosses"),
])
def test_a_cell_with_a_slip_fails_the_translation_check(slip, rule):
    catalog = _with_slip(_translation(), "summary", f"\n- {slip}。")  # after the first gloss of every term
    problems = _new_style_problems(catalog)
    assert [(p.cell, p.kind) for p in problems] == [("summary", "style")]
    assert problems[0].message.startswith(f"{rule}: ")


@pytest.mark.parametrize(("slip", "rule"), [
    ("（见笔记本 2）", "cross-ref"), ("，计数增长多少倍", "times"),
    ("，即独热行向量", "term"), ("，供本笔记本使用", "term"), ("，共 `V` 个 logits", "plural"),
])
def test_a_comment_with_a_slip_fails_too(slip, rule):
    catalog = _with_slip(_translation(), "imports", slip)
    assert [(p.cell, p.message.split(":")[0]) for p in _new_style_problems(catalog)] == [("imports", rule)]


def test_a_slip_in_readme_zh_fails_the_readme_check(course_copy):
    path = catalogs.translation_path(translations.README_KEY)
    before = [p for p in translations.check_readme() if p.kind == "style"]
    catalog = _with_slip(translations.load(translations.README_KEY), "## Reuse, citation and contributing",
                         '\n动词"吃"要多花 16 倍的时间。')
    path.write_text(translations.dumps(catalog), encoding="utf-8")
    style = [p for p in translations.check_readme() if p.kind == "style"]
    assert sorted(p.message.split(":")[0] for p in style if p not in before) == ["quotes", "times"]


@pytest.mark.parametrize(("bad", "good", "rules"), [
    ("各轮重复的中间一半彼此相差 2 倍。", "各轮重复中间一半的跨度不超过其中位数的 20%。", ["times"]),
    ("在 GPT-2 的尺寸上，查表 vs 稠密乘积。", "在 GPT-2 的规模上，查表对比稠密乘积。", ["term", "term"]),
    ("正文从不依赖*深入一步*。", "主线从不依赖“深入一步”。", ["term", "term", "italics"]),
])
def test_a_term_or_times_slip_in_readme_zh_is_a_slip(bad, good, rules):
    before = zh_style.readme_slips(_readme_zh())
    for text, expected in ((bad, rules), (good, [])):
        style = zh_style.readme_slips(_readme_zh() + f"\n{text}\n")
        assert [slip.rule for slip in style if slip not in before] == expected


def test_the_readme_glossary_lists_every_term_with_its_english():
    text = _readme_zh()
    assert [slip for slip in zh_style.readme_slips(text) if slip.rule == "glossary"] == []
    without_one = text.replace("| 主线 | main path |", "| 主干 | main path |")
    missing = [slip.text for slip in zh_style.readme_slips(without_one) if slip.rule == "glossary"]
    assert missing == ["no row | 主线 | main path | in the 术语表"]


def _readme_zh():
    return (manifest.ROOT / manifest.CHINESE.readme).read_text(encoding="utf-8")
