"""The editions: English in notebooks/, translations beside it under the same file names."""

import pytest

from tools import course


def test_english_is_the_notebooks_folder_and_chinese_its_zh_subfolder():
    entry = course.NOTEBOOKS[0]
    assert course.ENGLISH.path(entry) == entry.path
    assert course.CHINESE.path(entry) == course.NOTEBOOK_DIR / "zh" / entry.filename
    assert course.CHINESE.repo_path(entry) == f"notebooks/zh/{entry.filename}"
    assert course.EDITIONS[0] is course.ENGLISH


def test_available_lists_the_editions_that_exist(bilingual_course):
    entry = course.NOTEBOOKS[0]
    assert course.available(entry) == [course.ENGLISH, course.CHINESE]
    course.CHINESE.path(entry).unlink()
    assert course.available(entry) == [course.ENGLISH]


def test_unknown_edition():
    assert course.edition("zh") is course.CHINESE
    with pytest.raises(ValueError, match=r"no edition 'fr'; the course has \['en', 'zh'\]"):
        course.edition("fr")
