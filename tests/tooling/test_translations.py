"""The Chinese edition: translations in gettext catalogs, the check of each, and the generated notebooks."""

import nbformat
import pytest
from babel.messages.pofile import read_po

from tools import catalogs, generated, manifest, sync, translations
from tools.manifest import NOTEBOOKS
from tools.translations import (
    comment_tokens,
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


# --- checking one catalog: each check fails on the bad catalog it is for -----------------------

INTRO = "## Intro\n\nA `tensor` of $d$ numbers, 4 of them; see [the README](../README.md)."
INTRO_ZH = "## 简介\n\n一个含 $d$ 个数的 `tensor`，共 4 个；见 [README](../README.md)。"


def _english():
    nb = nbformat.v4.new_notebook()
    cells = [nbformat.v4.new_markdown_cell(INTRO), nbformat.v4.new_code_cell("x = 1  # one\ny = 2  # 2 rows"),
             nbformat.v4.new_code_cell("z = 3")]
    for cell, cell_id in zip(cells, ["intro", "code", "plain"], strict=True):
        cell.id = cell_id
    nb.cells = cells
    return nb


def _translate(catalog, context, english, chinese):
    message = catalog.get(english, context=context)
    message.string = chinese
    message.flags.discard("fuzzy")  # what a translator does in a PO editor: translate, clear the flag


def _translated(nb):
    """The catalog of ``nb``, as sync writes it, with every message translated."""
    catalog = translations.update(None, translations.notebook_template("01_x", nb))
    for context, english, chinese in [("intro", INTRO, INTRO_ZH), ("code", "# one", "# 一"),
                                      ("code", "# 2 rows", "# 2 行")]:
        _translate(catalog, context, english, chinese)
    return catalog


def _problems(nb, catalog):
    return [(p.cell, p.kind, p.message) for p in translations.check_translation("01_x", nb, catalog)]


def test_a_complete_catalog_has_no_problems():
    nb = _english()
    catalog = _translated(nb)
    assert [(m.context, m.id) for m in catalog if m.id] == [("intro", INTRO), ("code", "# one"), ("code", "# 2 rows")]
    assert _problems(nb, catalog) == []


def test_a_changed_english_markdown_cell_is_stale_with_a_diff_of_the_change():
    nb, catalog = _english(), _translated(_english())
    nb.cells[0].source = INTRO.replace("numbers", "numbers, twice")
    [(cell, kind, message)] = _problems(nb, catalog)
    assert (cell, kind) == ("intro", "stale")
    assert "update the Chinese in notebooks/zh/translations/01_x.po and clear its fuzzy flag" in message
    assert "--- intro (English, as translated)\n+++ intro (English, now)" in message
    assert f"\n-{INTRO.splitlines()[-1]}\n+{nb.cells[0].source.splitlines()[-1]}" in message


def test_a_changed_comment_is_stale_but_changed_code_is_not():
    nb, catalog = _english(), _translated(_english())
    nb.cells[1].source = "x = 10  # one\ny = 20  # 2 rows"
    assert _problems(nb, catalog) == []  # the code comes from the English notebook anyway
    nb.cells[1].source = "x = 1  # one\ny = 2  # 2 rows, the second"
    [(cell, kind, message)] = _problems(nb, catalog)
    assert (cell, kind) == ("code", "stale") and "\n-# 2 rows\n+# 2 rows, the second" in message


def test_a_missing_catalog_and_untranslated_messages_are_reported():
    nb, catalog = _english(), _translated(_english())
    assert _problems(nb, None) == [(None, "missing", "there is no catalog notebooks/zh/translations/01_x.po: run "
                                    "`python3 course.py sync`, which writes it with every message untranslated, and "
                                    "translate them")]
    _translate(catalog, "code", "# one", "")
    assert _problems(nb, catalog) == [("code", "missing", "untranslated: translate '# one' in "
                                       "notebooks/zh/translations/01_x.po")]


def test_a_message_whose_english_is_gone_is_reported_as_unused():
    nb, catalog = _english(), _translated(_english())
    catalog.add("# three", "# 三", context="plain")  # a comment the cell no longer has
    catalog.add("## Gone\n\nA cell that was deleted.", "## 已删除", context="gone")
    assert [(cell, kind) for cell, kind, _ in _problems(nb, catalog)] == [("plain", "unused"), ("gone", "unused")]
    assert "an obsolete message (#~) in notebooks/zh/translations/01_x.po: its English '# three' is gone" in (
        _problems(nb, catalog)[0][2])


def test_a_message_marked_fuzzy_by_a_person_is_stale_until_the_flag_is_cleared():
    nb, catalog = _english(), _translated(_english())
    catalog.get("# one", context="code").flags.add("fuzzy")
    assert _problems(nb, catalog) == [("code", "stale", "marked fuzzy (needs review): update the Chinese in "
                                       "notebooks/zh/translations/01_x.po and clear its fuzzy flag")]


@pytest.mark.parametrize(("old", "new", "complaint"), [
    ("`tensor`", "张量", "code, formulas, link targets and headings: code missing: `tensor`"),
    ("$d$", "$e$", "code, formulas, link targets and headings: formulas missing: $d$; formulas not in the English: "
                   "$e$"),
    ("(../README.md)", "(README.md)", "link targets missing: ../README.md; link targets not in the English: README.md"),
    ("## 简介", "### 简介", "heading levels ['###'], expected ['##']"),
    ("共 4 个", "共 5 个", "numbers: numbers missing: 4; numbers not in the English: 5"),
])
def test_a_markdown_translation_that_drops_code_formulas_links_headings_or_numbers_is_reported(old, new, complaint):
    nb, catalog = _english(), _translated(_english())
    _translate(catalog, "intro", INTRO, INTRO_ZH.replace(old, new))
    [(cell, kind, message)] = _problems(nb, catalog)
    assert (cell, kind) == ("intro", "invalid") and message.endswith(complaint)


def test_a_bullet_merged_into_the_one_before_it_is_reported():
    """A lost line break merges two bullets: the cell renders one item fewer, with a stray "- " mid-sentence."""
    english = "Two points:\n\n- the first;\n- the second.\n  1. nested"
    assert translations.invariant_differences(english, "两点：\n\n- 第一点。\n- 第二点。\n  1. 嵌套") == []
    assert translations.invariant_differences(english, "两点：\n\n- 第一点。- 第二点。\n  1. 嵌套") == [
        "list items ['-', '  1.'], expected ['-', '-', '  1.']"]


@pytest.mark.parametrize(("chinese", "complaint"), [
    ("一 (no hash sign)", "comment '# one' must be translated as one line that starts with '#'"),
    ("# 一\n# 二", "comment '# one' must be translated as one line that starts with '#'"),
    ("# 3 行", "comment '# 2 rows': the translation must keep its numbers: numbers missing: 2; numbers not in the "
               "English: 3"),
])
def test_a_comment_translation_not_one_comment_line_or_with_other_numbers_is_reported(chinese, complaint):
    nb, catalog = _english(), _translated(_english())
    english = "# 2 rows" if "numbers" in complaint else "# one"
    _translate(catalog, "code", english, chinese)
    assert _problems(nb, catalog) == [("code", "invalid", complaint)]


def test_a_catalog_that_babel_cannot_read_is_an_error_naming_the_file():
    with pytest.raises(translations.TranslationFileError, match="01_x.po is not a catalog that Babel reads"):
        catalogs.loads("msgid \"x\"\nnot a catalog\n", "notebooks/zh/translations/01_x.po")


# --- updating a catalog from the English: what sync does ----------------------------------------------

def test_an_update_keeps_what_did_not_change_and_marks_what_changed_fuzzy_with_its_previous_english():
    nb, catalog = _english(), _translated(_english())
    nb.cells[0].source = INTRO + " More."
    nb.cells[1].source = "x = 1  # one\ny = 2  # 2 rows, the second"
    updated = translations.update(catalog, translations.notebook_template("01_x", nb))
    assert [(m.context, m.id, m.string, m.fuzzy, m.previous_id) for m in updated if m.id] == [
        ("intro", INTRO + " More.", INTRO_ZH, True, [INTRO]),
        ("code", "# one", "# 一", False, []),
        ("code", "# 2 rows, the second", "# 2 行", True, ["# 2 rows"])]
    assert not updated.obsolete and not catalog.get("# 2 rows", context="code").fuzzy  # a copy: the catalog unchanged
    again = translations.update(updated, translations.notebook_template("01_x", nb))
    assert translations.dumps(again) == translations.dumps(updated)  # a second sync changes nothing
    nb.cells.append(nbformat.v4.new_code_cell("w = 4  # one", id="new"))  # the same English in another cell
    [new] = [m for m in translations.update(catalog, translations.notebook_template("01_x", nb)) if m.context == "new"]
    assert (new.string, new.fuzzy) == ("", False)  # untranslated: another cell's Chinese is not borrowed


def test_the_stored_catalogs_are_what_babel_reads_and_writes_back_byte_for_byte():
    """What a PO editor opens: Babel's read_po reads every message of every catalog, and write_po writes the
    catalog read back as the same file (the form `sync` writes)."""
    paths = sorted(catalogs.translation_path("x").parent.glob("*.po"))
    assert {path.stem for path in paths} == {*(entry.stem for entry in NOTEBOOKS), catalogs.SHARED, catalogs.README_KEY,
                                             catalogs.INTERFACE}
    for path in paths:
        text = path.read_text(encoding="utf-8")
        with path.open("rb") as file:
            babel = read_po(file, abort_invalid=True)
        ours = catalogs.loads(text)
        assert [(m.context, m.id, m.string) for m in babel] == [(m.context, m.id, m.string) for m in ours]
        assert catalogs.dumps(ours) == text, path.name


def test_a_fuzzy_message_keeps_its_previous_english_through_a_write_and_a_read():
    nb = _english()
    long_line = "A one-hot row  (two spaces), then a line long enough that a 76-column wrap would break it in two."
    catalog = translations.update(None, translations.notebook_template("01_x", _with_intro(long_line)))
    _translate(catalog, "intro", f"## Intro\n\n{long_line}", INTRO_ZH)
    text = translations.dumps(translations.update(catalog, translations.notebook_template("01_x", nb)))
    assert f'#, fuzzy\n#| msgid ""\n#| "## Intro\\n"\n#| "\\n"\n#| "{long_line}"\nmsgctxt "intro"' in text
    message = catalogs.loads(text).get(INTRO, context="intro")
    assert (message.fuzzy, message.previous_id, message.user_comments) == (True, [f"## Intro\n\n{long_line}"], [])
    assert catalogs.dumps(catalogs.loads(text)) == text


def _with_intro(source):
    nb = _english()
    nb.cells[0].source = f"## Intro\n\n{source}"
    return nb


# --- generating the Chinese notebook -------------------------------------------------------

def test_the_chinese_cells_keep_code_outputs_and_ids():
    nb, catalog = _english(), _translated(_english())
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", text="1\n")]
    nb.cells[1].execution_count = 1
    translated = translations.by_context(catalog)
    zh = [translations.zh_cell(cell, translated.get(cell.id)) for cell in nb.cells]
    assert zh[0].source == translations.rebase_for_zh(INTRO_ZH)  # its links written for notebooks/zh/
    assert zh[1].source == "x = 1  # 一\ny = 2  # 2 行"
    assert (zh[1].outputs, zh[1].execution_count, zh[1].id) == (nb.cells[1].outputs, 1, "code")
    assert zh[2] == nb.cells[2]
    fallback = translations.zh_cell(nb.cells[0], None)  # no translation yet: English under a marker
    assert fallback.source == f"{translations.UNTRANSLATED}\n{translations.rebase_for_zh(INTRO)}"


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


def _edit_catalog(name, context, edit, clear_fuzzy=True):
    """What a translator does in a PO editor: the Chinese of the (one) message of ``context`` edited, and
    its fuzzy flag cleared."""
    catalog = translations.load(name)
    [message] = [m for m in catalog if m.context == context]
    message.string = edit(message.string)
    if clear_fuzzy:
        message.flags.discard("fuzzy")
    catalogs.translation_path(name).write_text(translations.dumps(catalog), encoding="utf-8")


def test_an_english_edit_fails_until_a_person_updates_the_translation_and_clears_fuzzy(baseline, capsys):
    entry = NOTEBOOKS[0]
    _edit_english(entry, "learn", lambda s: s.replace("## What you will learn", "## What you will learn here"))
    for _ in range(2):  # before and after `make sync`: sync marks the message fuzzy, never clears the flag
        [problem] = _new_problems(baseline)
        assert (problem.notebook, problem.cell, problem.kind) == (entry.stem, "learn", "stale")
        assert "\n-## What you will learn\n+## What you will learn here" in str(problem)
        assert translations.main(["check"]) == 1
        assert f"{entry.stem}: cell 'learn': stale translation" in capsys.readouterr().out
        assert sync.sync() == 0
        assert "translation problem(s)" in capsys.readouterr().out
    assert sync.stale_files() == []
    stored = catalogs.translation_path(entry.stem).read_text(encoding="utf-8")
    assert '#, fuzzy\n#| msgid ""\n#| "## What you will learn\\n"' in stored  # the English it was translated from
    _edit_catalog(entry.stem, "learn", lambda zh: zh)  # the Chinese heading still fits: the translator clears fuzzy
    assert _new_problems(baseline) == []
    assert sync.stale_files() == []


def test_a_code_change_reaches_the_chinese_notebook_through_sync(baseline):
    entry = manifest.notebook(1)
    _edit_english(entry, "encode", lambda s: s.replace('"The cat sat on the sofa."', '"The cat sat on the sofa!"'))
    assert _new_problems(baseline) == []  # a code change needs no translator
    assert sync.stale_files() == [entry.zh.repo_path]
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
    assert sync.stale_files() == [entry.zh.repo_path]  # sync writes the Chinese notebook: the catalog is edited
    entry.zh.path.unlink()
    assert sync.stale_files() == [entry.zh.repo_path]


def test_sync_adds_an_untranslated_message_for_a_cell_without_one(baseline):
    entry = NOTEBOOKS[0]
    path = catalogs.translation_path(entry.stem)
    catalog = translations.load(entry.stem)
    [summary] = [m for m in catalog if m.context == "summary"]
    catalog.delete(summary.id, context="summary")
    path.write_text(translations.dumps(catalog), encoding="utf-8")
    assert [(p.cell, p.kind) for p in _new_problems(baseline)] == [("summary", "missing")]
    assert entry.zh.repo_path in sync.stale_files()  # the stored Chinese notebook has the old translation
    sync.sync()
    assert translations.load(entry.stem).get(summary.id, context="summary").string == ""
    assert [(p.cell, p.kind) for p in _new_problems(baseline)] == [("summary", "missing")]


def test_a_new_notebook_gets_a_catalog_and_its_title_a_message_through_sync(baseline, monkeypatch):
    new = manifest.Notebook(2, "02_new", "A new notebook")
    nb = generated.read_notebook(NOTEBOOKS[0].path)
    monkeypatch.setattr(manifest, "NOTEBOOKS", (*manifest.NOTEBOOKS, new))
    new.path.write_text(generated.dumps_notebook(nb), encoding="utf-8")
    assert [str(p) for p in translations.check(["02_new"])][0] == (
        "02_new: there is no catalog notebooks/zh/translations/02_new.po: run `python3 course.py sync`, which writes "
        "it with every message untranslated, and translate them")
    sync.sync()
    assert new.zh.path.is_file()  # generated, with the English text under "untranslated" markers
    assert translations.UNTRANSLATED in new.zh.path.read_text(encoding="utf-8")
    assert {p.kind for p in translations.check(["02_new"])} == {"missing"}
    shared = [p for p in translations.check([translations.SHARED]) if str(p) not in baseline]
    assert [(p.cell, p.kind) for p in shared] == [("02_new", "missing")]
    assert new.title_zh == "" and new.zh.display_title == "A new notebook"  # the English title until translated
    _edit_catalog(translations.SHARED, "02_new", lambda _: "新的一课")
    assert not [p for p in translations.check([translations.SHARED]) if str(p) not in baseline]
    assert new.title_zh == "新的一课"


def test_check_rejects_what_does_not_exist_and_sync_stops_at_a_broken_catalog(course_copy, capsys):
    stem = NOTEBOOKS[0].stem
    with pytest.raises(SystemExit):
        translations.main(["check", "99_nope"])
    assert "unknown notebook(s) ['99_nope']" in capsys.readouterr().err
    catalogs.translation_path(stem).write_text("not a catalog\n", encoding="utf-8")
    with pytest.raises(translations.TranslationFileError, match=f"translations/{stem}.po is not a catalog"):
        translations.load(stem)
    [problem] = translations.check([stem])
    assert (problem.cell, problem.kind) == (None, "invalid") and "is not a catalog that Babel reads" in problem.message
    with pytest.raises(translations.TranslationFileError):
        sync.stale_files()  # `make sync` stops rather than write a notebook from a broken file


def test_a_changed_english_title_is_stale_until_a_person_clears_fuzzy(baseline, monkeypatch):
    from dataclasses import replace

    entry = NOTEBOOKS[0]
    renamed = replace(entry, title="The answer, in short")
    monkeypatch.setattr(manifest, "NOTEBOOKS", (renamed, *manifest.NOTEBOOKS[1:]))
    [problem] = [p for p in translations.check([translations.SHARED]) if str(p) not in baseline]
    assert (problem.notebook, problem.cell, problem.kind) == (translations.SHARED, entry.stem, "stale")
    assert f"\n-{entry.title}\n+{renamed.title}" in problem.message
    sync.sync()
    assert renamed.title_zh == entry.title_zh  # the fuzzy title is shown until a translator updates it
    _edit_catalog(translations.SHARED, entry.stem, lambda _: "答案，简而言之")
    assert not [p for p in translations.check([translations.SHARED]) if str(p) not in baseline]
    sync.sync()
    assert "# 0. 答案，简而言之" in renamed.zh.path.read_text(encoding="utf-8")


def test_a_translation_with_a_wrong_number_is_reported(course_copy):
    assert translations.number_differences("std 0.02, 8 times larger", "标准差 0.2，大约 8 倍") == [
        "numbers missing: 0.02", "numbers not in the English: 0.2"]
    stem = manifest.notebook(1).stem
    path = catalogs.translation_path(stem)
    text = path.read_text(encoding="utf-8")
    assert text.count("1/50257") == 1
    path.write_text(text.replace("1/50257", "1/50256"), encoding="utf-8")
    [problem] = translations.check([stem])
    assert (problem.cell, problem.kind) == ("summary", "invalid")
    assert problem.message.endswith("numbers missing: 50257; numbers not in the English: 50256")


# --- README.zh.md: one message per section of README.md -------------------------------------------

def test_readme_sections_are_cut_at_level_two_headings_outside_code():
    text = "# Title\nintro\n\n## One\n```bash\n## not a heading\n```\n\n### Sub\ntext\n\n## Two\nmore\n"
    sections = translations.readme_sections(text)
    assert [heading for heading, _ in sections] == ["(introduction)", "## One", "## Two"]
    assert sections[1][1] == "## One\n```bash\n## not a heading\n```\n\n### Sub\ntext"


def test_the_generated_blocks_are_not_part_of_a_readme_section():
    """The table of notebooks and the answer: `make sync` writes both, so the sections' messages skip them."""
    text = (f"# Title\n\n{generated.ANSWER.start}\n**Yes and no.**\n\n| a | b |\n{generated.ANSWER.end}\n\n"
            f"intro\n\n## One\n{generated.TABLE.start}\n| 1 | x |\n{generated.TABLE.end}\ntext\n")
    edited = text.replace("Yes and no.", "No and yes.").replace("| 1 | x |", "| 1 | y |")
    assert translations.readme_sections(text) == translations.readme_sections(edited) == [
        ("(introduction)", "# Title\n\n<!-- the answer (generated) -->\n\nintro"),
        ("## One", "## One\n<!-- notebooks table (generated) -->\ntext"),
    ]


def test_the_chinese_answer_in_the_readme_comes_from_the_translation_of_notebook_0(baseline):
    """README.zh.md's answer is notebook 0's translated `answer` cell, not a message of the README's catalog."""
    _edit_catalog("00_the_answer", "answer", lambda zh: zh.replace("作为函数，是", "作为函数，当然是"))
    assert sync.stale_files() == ["notebooks/zh/00_the_answer.ipynb", "README.zh.md"]
    assert sync.sync() == 0
    assert "**作为函数，当然是" in manifest.CHINESE.readme_path.read_text(encoding="utf-8")
    assert _new_problems(baseline) == []


def _edit_readme_section(root, old, new):
    readme = root / "README.md"
    text = readme.read_text(encoding="utf-8")
    assert text.count(old) == 1
    readme.write_text(text.replace(old, new), encoding="utf-8")


def test_a_readme_section_translated_without_its_heading_is_reported(course_copy):
    """Without its `## ` heading, a section's Chinese would run on from the section before it in README.zh.md."""
    assert translations.check_readme() == []
    _edit_catalog("_readme", "## Run it on your machine", lambda zh: zh.split("\n", 2)[2])
    [problem] = translations.check_readme()
    assert (problem.cell, problem.kind) == ("## Run it on your machine", "invalid")
    assert "must start with its own `## ` heading" in problem.message


def test_an_edit_to_a_readme_section_fails_until_the_chinese_section_is_updated(course_copy, capsys):
    assert translations.check_readme() == []
    _edit_readme_section(course_copy, "3.10 or newer and git", "3.11 or newer and git")
    for _ in range(2):  # before and after `make sync`: sync never silences a stale section
        [problem] = translations.check_readme()
        assert (problem.notebook, problem.cell, problem.kind) == ("README.zh.md", "## Run it on your machine", "stale")
        diff = problem.message.splitlines()
        assert any(line.startswith("-") and "3.10 or newer and git" in line for line in diff)
        assert any(line.startswith("+") and "3.11 or newer and git" in line for line in diff)
        assert "notebooks/zh/translations/_readme.po" in problem.message
        assert translations.main(["check", "_readme"]) == 1
        assert "README.zh.md: section '## Run it on your machine': stale translation: the English changed" in (
            capsys.readouterr().out)
        assert sync.sync() == 0
        assert "translation problem(s)" in capsys.readouterr().out
    readme_zh = manifest.CHINESE.readme_path
    assert readme_zh.read_text(encoding="utf-8").count("3.10 或更新版本") == 1  # the fuzzy section, as it was
    _edit_catalog("_readme", "## Run it on your machine", lambda zh: zh.replace("3.10 或更新版本", "3.11 或更新版本"))
    assert translations.check_readme() == []
    assert sync.stale_files() == ["README.zh.md"]  # sync writes README.zh.md from the catalog
    assert sync.sync() == 0
    assert "3.11 或更新版本" in readme_zh.read_text(encoding="utf-8")
    assert translations.main(["check", "_readme"]) == 0
    # the generated table is not part of a section's text: the titles are translated on their own
    _edit_readme_section(course_copy, "| 1 | [One-hot", "| 1 | [Changed")
    assert translations.check_readme() == []


def test_a_new_readme_section_comes_in_untranslated_and_a_hand_edit_of_readme_zh_is_caught(course_copy):
    readme = course_copy / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8") + "\n## A new section\n\nText.\n", encoding="utf-8")
    assert [(p.cell, p.kind) for p in translations.check_readme()] == [("## A new section", "missing")]
    assert sync.stale_files() == ["notebooks/zh/translations/_readme.po", "README.zh.md"]
    sync.sync()
    assert f"{translations.UNTRANSLATED}\n## A new section" in manifest.CHINESE.readme_path.read_text(encoding="utf-8")
    _edit_catalog("_readme", "## A new section", lambda _: "## 新的一节\n\n文字。")
    sync.sync()
    assert translations.check_readme() == []
    readme_zh = manifest.CHINESE.readme_path
    readme_zh.write_text(readme_zh.read_text(encoding="utf-8").replace("文字。", "别的文字。"), encoding="utf-8")
    assert sync.stale_files() == ["README.zh.md"]


# --- the hardened checks: lint directives, \\text{} in formulas, numbers ------------------

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


@pytest.mark.parametrize(("english", "chinese"), [
    ("std 0.1195 over 50,257 rows", "在 50257 行上标准差为 0.1195"),
    ("388 times smaller, 1 in 50,257", "只有嵌入层的 1/388，占 1/50,257"),
    ("about once in 1.7 million times", "概率约为 170 万分之一"),
    ("12 trillion parameters on 128 GPUs", "12 万亿个参数，128 块 GPU"),
    ("exactly zero, in 2-D, with unit variance, November 2026", "恰好为 0，二维，方差为 1，2026 年 11 月"),
    ("the code `V = 50_257`, the formula $2^{-11}$ and [notebook 3](03_x.ipynb)", "代码、公式和[第三课](03_x.ipynb)"),
])
def test_the_numbers_of_a_translation_are_compared_as_numbers(english, chinese):
    assert translations.number_differences(english, chinese) == []


# --- the real course ---------------------------------------------------------------------

@pytest.mark.parametrize("entry", NOTEBOOKS, ids=[nb.stem for nb in NOTEBOOKS])
def test_the_chinese_notebook_is_complete_current_and_has_the_english_code_and_outputs(entry):
    problems = translations.check([entry.stem])
    assert not problems, "\n\n".join(str(p) for p in problems)


def test_the_shared_set_up_cell_and_the_titles_are_translated_and_current():
    problems = translations.check([translations.SHARED])
    assert not problems, "\n\n".join(str(p) for p in problems)
    assert all(entry.title_zh for entry in NOTEBOOKS)


def test_the_check_command_passes_on_the_course(capsys):
    assert translations.main(["check"]) == 0
    assert "the Chinese edition is complete and up to date" in capsys.readouterr().out


def test_a_chinese_command_may_add_zh_and_nothing_else():
    english = "Run `python3 course.py run --device cuda`; practice copies (`python3 course.py practice`) leave it out."
    chinese = "运行 `python3 course.py run --zh --device cuda`。练习版（`python3 course.py practice --zh`）不含答案。"
    assert invariant_differences(english, chinese) == []
    assert invariant_differences(english, chinese.replace("--device cuda", "--device mps")) == [
        "code missing: `python3 course.py run --device cuda`",
        "code not in the English: `python3 course.py run --device mps`"]
    assert invariant_differences("`python3 course.py run`", "`python3 course.py run --zhx`") != []
