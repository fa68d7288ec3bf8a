"""The Chinese edition: translations as data, the stale check, and the generated notebooks."""

import json

import nbformat
import pytest

from tools import generated, manifest, sync, translations
from tools.manifest import NOTEBOOKS
from tools.translations import (
    comment_tokens,
    fingerprint,
    invariant_differences,
    translatable_comments,
    translate_comments,
)

# --- comments, through tokenize -------------------------------------------------------------

CELL = """\
%matplotlib inline
import torch  # the library
# a whole-line comment
text = "# not a comment"  # but this is
x = 1  # noqa: F841
!echo hi"""


def test_comments_are_found_with_tokenize_not_by_searching_for_hashes():
    found = [text for _, _, _, text in comment_tokens(CELL)]
    assert found == ["# the library", "# a whole-line comment", "# but this is", "# noqa: F841"]
    assert translatable_comments(CELL) == ["# the library", "# a whole-line comment", "# but this is"]
    assert translatable_comments("y = 1  # same\nz = 2  # same") == ["# same"]  # distinct, in order
    marked = "#@title Worked answer\ndef f():\n    ### BEGIN SOLUTION\n    return 1  # kept\n    ### END SOLUTION"
    assert translatable_comments(marked) == ["# kept"]  # a title and solution markers are directives, not prose


def test_translating_comments_changes_the_comments_and_only_them():
    chinese = translate_comments(CELL, {"# the library": "# 这个库", "# a whole-line comment": "# 整行注释"})
    assert chinese == CELL.replace("# the library", "# 这个库").replace("# a whole-line comment", "# 整行注释")


def test_a_cell_magic_has_no_python_comments_and_broken_code_is_an_error():
    assert comment_tokens("%%bash\necho hi  # a shell comment") == ()
    assert translatable_comments("obj?\nfiles = !ls  # shell\ny = 1  # kept") == ["# kept"]
    with pytest.raises(ValueError, match="tokenize cannot read this code cell"):
        comment_tokens("x = (1,\n")


# --- what a markdown translation must keep ---------------------------------------------------

ENGLISH = "## 2. Ids\n\nThe ids of `vocab` are $i$; see [the README](../README.md).\n\n$$x = 1$$"


def test_a_translation_keeps_code_formulas_links_and_headings():
    good = "## 2. id\n\n`vocab` 的 id 是 $i$；见 [README](../README.md)。\n\n$$x = 1$$"
    assert invariant_differences(ENGLISH, good) == []
    broken = "### 2. id\n\n`vocab2` 的 id 是 $j$；见 [README](README.md)。\n\n$$x = 2$$"
    assert invariant_differences(ENGLISH, broken) == [
        "code missing: `vocab`", "code not in the English: `vocab2`",
        "formulas missing: $$x = 1$$, $i$", "formulas not in the English: $$x = 2$$, $j$",
        "link targets missing: ../README.md", "link targets not in the English: README.md",
        "heading levels ['###'], expected ['##']",
    ]


# --- checking one translation ----------------------------------------------------------------

def _english():
    nb = nbformat.v4.new_notebook()
    cells = [nbformat.v4.new_markdown_cell("## Intro\n\nA `tensor`."),
             nbformat.v4.new_code_cell("x = 1  # one\ny = 2  # two"),
             nbformat.v4.new_code_cell("z = 3")]
    for cell, cell_id in zip(cells, ["intro", "code", "plain"], strict=True):
        cell.id = cell_id
    nb.cells = cells
    return nb


def _translated(nb):
    intro, code = translations.new_entry(nb.cells[0]), translations.new_entry(nb.cells[1])
    intro["zh"] = ["## 简介", "", "一个 `tensor`。"]
    code["comments"] = [{"en": "# one", "zh": "# 一"}, {"en": "# two", "zh": "# 二"}]
    return {"intro": intro, "code": code}


def _problems(nb, cells):
    return [(p.cell, p.kind, p.message) for p in translations.check_translation("01_x", nb, cells)]


def test_a_complete_translation_has_no_problems():
    nb = _english()
    cells = _translated(nb)
    assert cells["intro"]["sha256"] == fingerprint("## Intro\n\nA `tensor`.")
    assert cells["code"]["sha256"] == fingerprint("# one\n# two")  # a code cell's English is its comments
    assert _problems(nb, cells) == []


def test_a_changed_english_markdown_cell_is_stale_with_a_diff_of_the_change():
    nb, cells = _english(), _translated(_english())
    nb.cells[0].source = "## Intro\n\nA `tensor`, twice."
    [(cell, kind, message)] = _problems(nb, cells)
    assert (cell, kind) == ("intro", "stale")
    assert "`python -m tools.translations stamp 01_x intro`" in message
    assert "--- intro (English, as translated)\n+++ intro (English, now)" in message
    assert "\n-A `tensor`.\n+A `tensor`, twice." in message


def test_a_changed_comment_is_stale_but_changed_code_is_not():
    nb, cells = _english(), _translated(_english())
    nb.cells[1].source = "x = 10  # one\ny = 20  # two"
    assert _problems(nb, cells) == []  # the code comes from the English notebook anyway
    nb.cells[1].source = "x = 1  # one\ny = 2  # the second"
    [(cell, kind, message)] = _problems(nb, cells)
    assert (cell, kind) == ("code", "stale") and "\n-# two\n+# the second" in message


def test_missing_empty_and_unused_translations_are_reported():
    nb, cells = _english(), _translated(_english())
    assert _problems(nb, None)[0][1:] == ("missing", "there is no translation, notebooks/zh/translations/01_x.json: "
                                          "run `python -m tools.translations init 01_x` and translate every entry")
    del cells["intro"]
    cells["code"]["comments"][1]["zh"] = ""
    cells["gone"] = translations.new_entry(nb.cells[0])
    cells["plain"] = {"type": "code", "sha256": fingerprint(""), "comments": []}
    assert [(cell, kind) for cell, kind, _ in _problems(nb, cells)] == [
        ("intro", "missing"), ("code", "missing"), ("gone", "unused"), ("plain", "unused")]
    messages = [message for _, _, message in _problems(nb, cells)]
    assert "comment '# two' has no translation" in messages[1]
    assert "the English notebook has no cell with this id" in messages[2]
    assert "nothing to translate any more" in messages[3]


def test_malformed_or_hand_edited_entries_are_reported():
    nb, cells = _english(), _translated(_english())
    cells["intro"]["en"] = ["## Intro", "", "A `tensor`, edited by hand."]
    cells["code"]["comments"][0]["zh"] = "一 (no hash sign)"
    assert [(cell, kind) for cell, kind, _ in _problems(nb, cells)] == [("intro", "invalid"), ("code", "invalid")]
    assert "does not match its stamp" in _problems(nb, cells)[0][2]
    assert "must be translated as one line that starts with '#'" in _problems(nb, cells)[1][2]
    cells["intro"] = translations.new_entry(nb.cells[1])  # an entry for a code cell
    assert _problems(nb, cells)[0][1:] == ("stale", "the cell is now a markdown cell, but its translation is for a "
                                                    "code cell: replace the entry")


def test_a_translation_that_drops_code_is_reported():
    nb, cells = _english(), _translated(_english())
    cells["intro"]["zh"] = ["## 简介", "", "一个张量。"]
    [(cell, kind, message)] = _problems(nb, cells)
    assert (cell, kind) == ("intro", "invalid") and message.endswith("code missing: `tensor`")


def test_stamping_keeps_translations_of_unchanged_comments():
    nb, cells = _english(), _translated(_english())
    nb.cells[1].source = "x = 1  # one\ny = 2  # the second"
    entry = translations.new_entry(nb.cells[1], cells["code"])
    assert entry["comments"] == [{"en": "# one", "zh": "# 一"}, {"en": "# the second", "zh": ""}]
    assert translations.new_entry(nb.cells[0], cells["intro"])["zh"] == cells["intro"]["zh"]
    assert translations.new_entry(nb.cells[0], cells["code"])["zh"] == []  # an entry of another type


# --- generating the Chinese notebook -------------------------------------------------------

def test_the_chinese_cells_keep_code_outputs_and_ids():
    nb, cells = _english(), _translated(_english())
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", text="1\n")]
    nb.cells[1].execution_count = 1
    zh = [translations.zh_cell(cell, cells.get(cell.id)) for cell in nb.cells]
    assert zh[0].source == "## 简介\n\n一个 `tensor`。"
    assert zh[1].source == "x = 1  # 一\ny = 2  # 二"
    assert (zh[1].outputs, zh[1].execution_count, zh[1].id) == (nb.cells[1].outputs, 1, "code")
    assert zh[2] == nb.cells[2]
    fallback = translations.zh_cell(nb.cells[0], None)  # no translation yet: English under a marker
    assert fallback.source == f"{translations.UNTRANSLATED}\n{nb.cells[0].source}"


# --- the course: a copy to break -------------------------------------------------------------

def _new_problems(baseline):
    """Problems of the copy that the real course does not already have (these tests break the copy)."""
    return [p for p in translations.check() if str(p) not in baseline]


@pytest.fixture(autouse=True)
def no_drawing(monkeypatch):
    """`make sync` draws no images in these tests: they are about text, and drawing the six
    images costs seconds per run (tests/tooling/test_images.py checks the drawing)."""
    monkeypatch.setattr(sync, "write_course_images", lambda directory: [])


@pytest.fixture
def baseline(course_copy):
    return {str(p) for p in translations.check()}


def _edit_english(entry, cell_id, edit):
    nb = generated.read_notebook(entry.path)
    cell = next(cell for cell in nb.cells if cell.id == cell_id)
    cell.source = edit(cell.source)
    entry.path.write_text(generated.dumps_notebook(nb), encoding="utf-8")


def test_an_english_edit_fails_until_a_person_updates_the_translation_and_stamps_it(baseline, capsys):
    entry = NOTEBOOKS[0]
    _edit_english(entry, "learn", lambda s: s.replace("## What you will learn", "## What you will learn here"))
    for _ in range(2):  # before and after `make sync`: sync never silences a stale translation
        [problem] = _new_problems(baseline)
        assert (problem.notebook, problem.cell, problem.kind) == (entry.stem, "learn", "stale")
        assert "\n-## What you will learn\n+## What you will learn here" in str(problem)
        assert translations.main(["check"]) == 1
        assert f"{entry.stem}: cell 'learn': stale translation" in capsys.readouterr().out
        assert sync.sync() == 0
        assert "translation problem(s)" in capsys.readouterr().out
    assert sync.stale_files() == []
    # a person updates the Chinese (here: keeps it, the heading is unchanged) and stamps the cell
    assert translations.main(["stamp", entry.stem, "learn"]) == 0
    assert _new_problems(baseline) == []
    stored = json.loads(translations.translation_path(entry.stem).read_text(encoding="utf-8"))
    assert stored["cells"]["learn"]["en"][0] == "## What you will learn here"


def test_a_code_change_reaches_the_chinese_notebook_through_sync(baseline):
    entry = manifest.notebook(1)
    _edit_english(entry, "encode", lambda s: s.replace('"The cat sat on the sofa."', '"The cat sat on the sofa!"'))
    [problem] = _new_problems(baseline)  # the stored Chinese notebook still has the old code
    assert (problem.cell, problem.kind) == ("encode", "drift")
    assert '-sentence = "The cat sat on the sofa."\n+sentence = "The cat sat on the sofa!"' in problem.message
    sync.sync()
    assert _new_problems(baseline) == []
    zh = generated.read_notebook(entry.zh.path)
    assert 'sentence = "The cat sat on the sofa!"' in next(c for c in zh.cells if c.id == "encode").source


def test_a_hand_edit_of_the_chinese_notebook_is_caught(baseline):
    entry = manifest.notebook(1)
    nb = generated.read_notebook(entry.zh.path)
    cell = next(c for c in nb.cells if c.id == "select")
    cell.source = cell.source.replace("d = 4", "d = 5")
    cell.outputs = []
    entry.zh.path.write_text(generated.dumps_notebook(nb), encoding="utf-8")
    problems = _new_problems(baseline)
    assert [(p.cell, p.kind) for p in problems] == [("select", "drift"), ("select", "drift")]
    assert "-d = 5\n+d = 4" in problems[0].message and "outputs differ" in problems[1].message
    assert sync.stale_files() == [entry.zh.repo_path]
    entry.zh.path.unlink()
    assert f"{entry.stem}: there is no Chinese notebook {entry.zh.repo_path}: run `make sync`" in [
        str(p) for p in translations.check()]


def test_init_adds_entries_only_for_cells_without_one(baseline, capsys):
    entry = NOTEBOOKS[0]
    path = translations.translation_path(entry.stem)
    before = path.read_text(encoding="utf-8")
    assert translations.init(entry.stem) == []
    assert path.read_text(encoding="utf-8") == before  # the same file, byte for byte
    data = json.loads(before)
    del data["cells"]["summary"]
    path.write_text(json.dumps(data), encoding="utf-8")
    # missing, and the stored Chinese notebook (with the old translation) is not what `make sync` now writes
    assert [(p.cell, p.kind) for p in _new_problems(baseline)] == [("summary", "missing"), ("summary", "drift")]
    assert translations.main(["init", entry.stem]) == 0
    assert "added 1 empty entry: summary" in capsys.readouterr().out
    assert json.loads(path.read_text(encoding="utf-8"))["cells"]["summary"]["zh"] == []
    # missing, and the stored Chinese notebook (with the old translation) is not what `make sync` now writes
    assert [(p.cell, p.kind) for p in _new_problems(baseline)] == [("summary", "missing"), ("summary", "drift")]


def test_a_new_notebook_without_translation_is_reported(course_copy, monkeypatch):
    new = manifest.Notebook(2, "02_new", "A new notebook")
    nb = generated.read_notebook(NOTEBOOKS[0].path)
    monkeypatch.setattr(manifest, "NOTEBOOKS", (*manifest.NOTEBOOKS, new))
    new.path.write_text(generated.dumps_notebook(nb), encoding="utf-8")
    sync.sync()
    assert new.zh.path.is_file()  # generated, with the English text under "untranslated" markers
    assert translations.UNTRANSLATED in new.zh.path.read_text(encoding="utf-8")
    assert [str(p) for p in translations.check(["02_new"])] == [
        "02_new: the manifest entry has no title_zh (tools/manifest.py)",
        "02_new: there is no translation, notebooks/zh/translations/02_new.json: run "
        "`python -m tools.translations init 02_new` and translate every entry",
    ]


def test_stamp_and_check_reject_what_does_not_exist(course_copy, capsys):
    stem = NOTEBOOKS[0].stem
    with pytest.raises(SystemExit, match=f"{stem} has no cell 'nope' with something to translate"):
        translations.main(["stamp", stem, "nope"])
    with pytest.raises(SystemExit, match="unknown notebook '99_nope'"):
        translations.main(["stamp", "99_nope", "learn"])
    with pytest.raises(SystemExit):
        translations.main(["check", "99_nope"])
    assert "unknown notebook(s) ['99_nope']" in capsys.readouterr().err
    translations.translation_path(stem).write_text("{not json", encoding="utf-8")
    with pytest.raises(translations.TranslationFileError, match=f"translations/{stem}.json is not valid JSON"):
        translations.load(stem)
    [problem] = translations.check([stem])
    assert (problem.cell, problem.kind) == (None, "invalid") and "is not valid JSON" in problem.message
    with pytest.raises(translations.TranslationFileError):
        sync.stale_files()  # `make sync` stops rather than write a notebook from a broken file


def _set(key, value):
    """An edit of a translation file's data: ``value`` at the path ``key`` (keys joined by dots)."""
    def edit(data):
        *parents, last = key.split(".")
        for parent in parents:
            data = data[parent]
        data[last] = value
    return edit


@pytest.mark.parametrize(("stem", "checked", "edit", "error"), [
    ("00_the_answer", "00_the_answer", _set("cells.learn", {"type": "markdown", "en": [], "zh": []}),
     "$.cells.learn: 'sha256' is a required property"),
    ("00_the_answer", "00_the_answer", _set("cells.learn.zh", "一行"),
     "$.cells.learn.zh: '一行' is not of type 'array'"),
    ("00_the_answer", "00_the_answer", _set("cells.learn.type", "raw"),
     "$.cells.learn.type: 'raw' is not one of ['markdown', 'code']"),
    ("_shared", "_shared", _set("cells.course-setup.comments", [{"en": "# x"}]),
     "$.cells['course-setup'].comments[0]: 'zh' is a required property"),
    ("00_the_answer", "00_the_answer", _set("notebook", "01_x"), '"notebook" is \'01_x\', expected \'00_the_answer\''),
    ("_titles", "00_the_answer", _set("stamps.00_the_answer.sha256", "x"),
     "$.stamps['00_the_answer'].sha256: 'x' does not match '^[0-9a-f]{64}$'"),
    ("_readme", "_readme", _set("stamps", [{"heading": "## Start"}]), "$.stamps: [{'heading': '## Start'}] is not of "
     "type 'object'"),
])
def test_a_translation_file_not_in_its_form_is_named_with_the_place_of_the_problem(course_copy, stem, checked, edit,
                                                                                   error):
    path = translations.translation_path(stem)
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    [problem] = translations.check([checked])
    assert (problem.cell, problem.kind) == (None, "invalid")
    assert problem.message == f"notebooks/zh/translations/{stem}.json: {error}"



# --- README.zh.md: sections stamped against README.md -------------------------------------------

def test_readme_sections_are_cut_at_level_two_headings_outside_code():
    text = "# Title\nintro\n\n## One\n```bash\n## not a heading\n```\n\n### Sub\ntext\n\n## Two\nmore\n"
    sections = translations.readme_sections(text)
    assert [heading for heading, _ in sections] == ["(introduction)", "## One", "## Two"]
    assert sections[1][1] == "## One\n```bash\n## not a heading\n```\n\n### Sub\ntext"


def test_the_generated_blocks_are_not_part_of_a_readme_section():
    """The table of notebooks and the answer: `make sync` writes both, so the sections' stamps skip them."""
    text = (f"# Title\n\n{generated.ANSWER_START}\n**Yes and no.**\n\n| a | b |\n{generated.ANSWER_END}\n\n"
            f"intro\n\n## One\n{generated.TABLE_START}\n| 1 | x |\n{generated.TABLE_END}\ntext\n")
    edited = text.replace("Yes and no.", "No and yes.").replace("| 1 | x |", "| 1 | y |")
    assert translations.readme_sections(text) == translations.readme_sections(edited) == [
        ("(introduction)", "# Title\n\n<!-- the answer (generated) -->\n\nintro"),
        ("## One", "## One\n<!-- notebooks table (generated) -->\ntext"),
    ]


def test_the_chinese_answer_in_the_readme_comes_from_the_translation_of_notebook_0(course_copy):
    """README.zh.md's answer is notebook 0's translated `answer` cell: its stamp is that cell's, not the README's."""
    path = translations.translation_path("00_the_answer")
    data = json.loads(path.read_text(encoding="utf-8"))
    answer = data["cells"]["answer"]
    answer["zh"] = [line.replace("作为函数，是", "作为函数，当然是") for line in answer["zh"]]
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    assert sync.stale_files() == ["notebooks/zh/00_the_answer.ipynb", "README.zh.md"]
    assert sync.sync() == 0
    assert "**作为函数，当然是" in translations.readme_zh_path().read_text(encoding="utf-8")
    assert translations.check() == []  # the README's sections are stamped without the answer


def _edit_readme_section(root, old, new):
    readme = root / "README.md"
    text = readme.read_text(encoding="utf-8")
    assert text.count(old) == 1
    readme.write_text(text.replace(old, new), encoding="utf-8")


def test_an_edit_to_a_readme_section_fails_until_the_chinese_section_is_restamped(course_copy, capsys):
    assert translations.check_readme() == []
    _edit_readme_section(course_copy, "3.10 or newer and git", "3.11 or newer and git")
    for _ in range(2):  # before and after `make sync`: sync never silences a stale section
        [problem] = translations.check_readme()
        assert (problem.notebook, problem.cell, problem.kind) == ("README.zh.md", "## Run it on your machine", "stale")
        diff = problem.message.splitlines()
        assert any(line.startswith("-") and "3.10 or newer and git" in line for line in diff)
        assert any(line.startswith("+") and "3.11 or newer and git" in line for line in diff)
        assert "stamp-readme 'Run it on your machine'" in problem.message
        assert translations.main(["check", "_readme"]) == 1
        assert "README.zh.md: section '## Run it on your machine': stale translation: the English changed" in (
            capsys.readouterr().out)
        assert "Update the section '## 在自己的电脑上运行' of README.zh.md" in problem.message
        assert sync.sync() == 0
        assert "translation problem(s)" in capsys.readouterr().out
    # a person updates the Chinese section (here: 3.10 -> 3.11) and re-stamps it
    readme_zh = translations.readme_zh_path()
    text = readme_zh.read_text(encoding="utf-8")
    assert text.count("3.10 或更新版本") == 1
    readme_zh.write_text(text.replace("3.10 或更新版本", "3.11 或更新版本"), encoding="utf-8")
    assert translations.main(["stamp-readme", "Run it on your machine"]) == 0
    assert translations.check_readme() == []
    assert translations.main(["check", "_readme"]) == 0
    # the generated table is not part of a section's text: the titles are stamped on their own
    _edit_readme_section(course_copy, "| 1 | [One-hot", "| 1 | [Changed")
    assert translations.check_readme() == []


def test_a_new_or_unstamped_readme_section_is_reported(course_copy):
    readme = course_copy / "README.md"
    sections = len(translations.readme_sections(readme.read_text(encoding="utf-8"))) - 1  # less the introduction
    readme.write_text(readme.read_text(encoding="utf-8") + "\n## A new section\n\nText.\n", encoding="utf-8")
    [problem] = translations.check_readme()
    assert problem.kind == "invalid"
    assert f"README.zh.md has {sections} `##` sections, README.md has {sections + 1}" in problem.message
    readme_zh = translations.readme_zh_path()
    readme_zh.write_text(readme_zh.read_text(encoding="utf-8") + "\n## 新的一节\n\n文字。\n", encoding="utf-8")
    [problem] = translations.check_readme()
    assert (problem.cell, problem.kind) == ("## A new section", "missing")
    with pytest.raises(SystemExit, match="unknown README.md section '## Nope'"):
        translations.main(["stamp-readme", "Nope"])
    translations.main(["stamp-readme", "A new section"])
    assert translations.check_readme() == []



# --- the hardened checks: lint directives, \\text{} in formulas, titles, numbers ------------------

def test_the_prose_after_a_lint_directive_is_translated_and_the_directive_kept():
    source = "import google.colab  # noqa: F401  (only Colab has it)\nx = 1  # noqa: F841"
    assert translatable_comments(source) == ["# noqa: F401  (only Colab has it)"]  # a bare directive is not prose
    assert translations.pragma_directive("# noqa: F401  (only Colab has it)") == "# noqa: F401"
    assert translations.pragma_directive("# noqa: F841") is None
    en = "# noqa: F401  (only Colab has it)"
    assert translations._comment_translation_error("# noqa: F401  （只有 Colab 上才有这个模块）", en) is None
    for dropped in ("# （只有 Colab 上才有这个模块）", "# noqa（只有 Colab 上才有这个模块）", "# noqa: F401"):
        assert "must keep the tool directive '# noqa: F401'" in translations._comment_translation_error(dropped, en)
    translated = translate_comments(source, {en: "# noqa: F401  （只有 Colab 上才有这个模块）"})
    assert translated == "import google.colab  # noqa: F401  （只有 Colab 上才有这个模块）\nx = 1  # noqa: F841"


def test_the_words_inside_text_in_a_formula_may_be_translated():
    english = r"$$\ell = -\ln p \quad \text{for the next token}$$ and $x_{\text{max}}$"
    assert invariant_differences(english, r"$$\ell = -\ln p \quad \text{对下一个词元}$$ 与 $x_{\text{最大}}$") == []
    # the rest of the formula must still match
    assert invariant_differences(english, r"$$\ell = -\log p \quad \text{对下一个词元}$$ 与 $x_{\text{最大}}$") == [
        r"formulas missing: $$\ell = -\ln p \quad \text{…}$$",
        r"formulas not in the English: $$\ell = -\log p \quad \text{…}$$"]


def test_a_changed_english_title_makes_title_zh_stale_until_stamped(course_copy, monkeypatch):
    from dataclasses import replace

    entry = NOTEBOOKS[0]
    assert translations.check_title(entry) == []
    renamed = replace(entry, title="One-hot vectors, and the product that selects")
    monkeypatch.setattr(manifest, "NOTEBOOKS", (renamed, *manifest.NOTEBOOKS[1:]))
    [problem] = translations.check_title(renamed)
    assert (problem.notebook, problem.kind) == (entry.stem, "stale")
    assert "the title: stale translation" in problem.message
    assert f"\n-{entry.title}\n+{renamed.title}" in problem.message
    assert f"stamp-title {entry.stem}" in problem.message
    assert problem in translations.check([entry.stem])
    assert translations.main(["stamp-title", entry.stem]) == 0  # after updating title_zh
    assert translations.check_title(renamed) == []
    stored = json.loads(translations.translation_path(translations.TITLES).read_text(encoding="utf-8"))
    assert stored["stamps"][entry.stem]["en"] == [renamed.title]


@pytest.mark.parametrize(("english", "chinese"), [
    ("std 0.1195 over 50,257 rows", "在 50257 行上标准差为 0.1195"),
    ("388 times smaller, 1 in 50,257", "只有嵌入层的 1/388，占 1/50,257"),
    ("about once in 1.7 million times", "概率约为 170 万分之一"),
    ("exactly zero, in 2-D, with unit variance, November 2026", "恰好为 0，二维，方差为 1，2026 年 11 月"),
    ("the code `V = 50_257`, the formula $2^{-11}$ and [notebook 3](03_x.ipynb)", "代码、公式和[第三课](03_x.ipynb)"),
])
def test_the_numbers_of_a_translation_are_compared_as_numbers(english, chinese):
    assert translations.number_differences(english, chinese) == []


def test_a_translation_with_a_wrong_number_is_reported(course_copy):
    assert translations.number_differences("std 0.02, 8 times larger", "标准差 0.2，大约 8 倍") == [
        "numbers missing: 0.02", "numbers not in the English: 0.2"]
    stem = manifest.notebook(1).stem
    path = translations.translation_path(stem)
    text = path.read_text(encoding="utf-8")
    assert text.count("1/50,257") == 1
    path.write_text(text.replace("1/50,257", "1/50,256"), encoding="utf-8")
    problem, not_synced = translations.check([stem])
    assert [(p.cell, p.kind) for p in (problem, not_synced)] == [("summary", "invalid"), ("summary", "drift")]
    assert problem.message.endswith("numbers missing: 50257; numbers not in the English: 50256")


def test_every_translated_cell_keeps_the_numbers_of_its_english():
    problems = [p for p in translations.check() if "numbers" in p.message]
    assert not problems, "\n\n".join(str(p) for p in problems)


# --- the real course ---------------------------------------------------------------------

@pytest.mark.parametrize("entry", NOTEBOOKS, ids=[nb.stem for nb in NOTEBOOKS])
def test_the_chinese_notebook_is_complete_current_and_has_the_english_code_and_outputs(entry):
    problems = translations.check([entry.stem])
    assert not problems, "\n\n".join(str(p) for p in problems)


def test_the_shared_set_up_cell_is_translated_and_current():
    problems = translations.check([translations.SHARED])
    assert not problems, "\n\n".join(str(p) for p in problems)


def test_the_check_command_passes_on_the_course(capsys):
    assert translations.main(["check"]) == 0
    assert "the Chinese edition is complete and up to date" in capsys.readouterr().out
