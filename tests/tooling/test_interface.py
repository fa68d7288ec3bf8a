"""The interface catalog (notebooks/zh/translations/_interface.po): what sync extracts into it, what the
translation check finds wrong in it, the compiled .mo that the standard library's gettext reads, and the
Chinese lines it gives the stored outputs of the Chinese notebooks."""

import copy

import pytest

from tools import catalogs, interface, translations
from utils import language


@pytest.fixture(scope="module")
def stored():
    return catalogs.load(catalogs.INTERFACE)


def test_the_committed_mo_is_the_compiled_catalog():
    """Colab, a practice download and course.py before .venv read the committed .mo: it must be the .po."""
    assert interface.mo_path().read_bytes() == interface.planned_mo()[1]
    assert translations.interface_problems() == []


def test_every_marked_string_of_the_code_is_in_the_catalog(stored):
    english = {message.id for message in interface.template() if message.id}
    assert english == {message.id for message in stored if message.id}
    assert "incorrect: {hint}" in english and "Set-up: {done}" in english


def _message(catalog, english):
    return next(message for message in catalog if message.id == english)


def test_an_untranslated_a_fuzzy_and_a_field_losing_message_each_fail_the_check(stored):
    bad = copy.deepcopy(stored)
    _message(bad, "incorrect: {hint}").string = ""
    _message(bad, "correct: {what_was_checked}").flags.add("fuzzy")
    _message(bad, "{call} returned {type}; return a torch.Tensor").string = "{call} 返回的不是张量"
    found = {(problem.kind, problem.message.split(":")[0]) for problem in translations.interface_problems(bad)}
    assert ("missing", "untranslated") in found
    assert ("stale", "marked fuzzy (needs review)") in found
    assert ("invalid", "the translation must keep the fields ['call', 'type'], has ['call']") in found


def test_the_runtime_reads_the_compiled_catalog_with_the_standard_library():
    chinese, english = language.translations("zh"), language.translations("en")
    assert chinese.gettext("incorrect: {hint}") == "回答有误。{hint}"
    assert english.gettext("incorrect: {hint}") == "incorrect: {hint}"
    with pytest.raises(ValueError, match="no language 'fr'"):
        language.translations("fr")


def test_a_stored_english_line_becomes_the_line_a_chinese_run_prints(stored):
    lines = interface._Lines(stored)
    names = "predicted_up, predicted_down and unit_in_features"  # a field ("{names} and {last}") translated too,
    assert lines.render(f"not answered yet: fill in {names} above, then run this cell again") == (  # with 、
        "还没有作答。请先在上面给 predicted_up、predicted_down 和 unit_in_features 赋值，然后重新运行这个单元格。")
    assert lines.render("correct: the bag (0, 1, 2, 7)") == "回答正确。the bag (0, 1, 2, 7)。"  # other fields keep ", "
    assert lines.render("correct: your largest |w| is right within 5%") == (
        "回答正确。你给出的最大 |w| 是对的（误差在 5% 以内）。")
    assert lines.render("a line no checker prints") == "a line no checker prints"
    pytorch_error = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (3x4 and 5x4)"
    assert lines.render(pytorch_error) == pytorch_error  # "{names} and {last}" is part of a line, never a whole one


def test_the_generated_cells_and_the_practice_note_take_their_chinese_from_the_catalog(stored):
    """One table of interface wording: the English in tools/ (the msgids), every other language in the catalog."""
    from tools import generated, practice

    chinese = {message.id: message.string for message in stored if message.id}
    assert generated.words("en") == generated.WORDS
    assert generated.words("zh") == {key: chinese[english] for key, english in generated.WORDS.items()}
    assert generated.words("zh")["setup title"] == "环境设置：请先运行这个单元格，之后才能导入课程的辅助代码"
    assert catalogs.interface_text(practice.TEXT, "zh") == chinese[practice.TEXT]
    assert chinese[practice.TEXT].startswith("**练习版。**")
