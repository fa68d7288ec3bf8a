"""The editions: English in notebooks/, translations beside it under the same file names."""

import pytest

from utils import course, editions


def test_english_is_the_notebooks_folder_and_chinese_its_zh_subfolder():
    entry = course.NOTEBOOKS[0]
    assert editions.ENGLISH.path(entry) == entry.path
    assert editions.CHINESE.path(entry) == course.NOTEBOOK_DIR / "zh" / entry.filename
    assert editions.CHINESE.repo_path(entry) == f"notebooks/zh/{entry.filename}"
    assert editions.EDITIONS[0] is editions.ENGLISH


def test_available_lists_the_editions_that_exist(bilingual_course):
    entry = course.NOTEBOOKS[0]
    assert editions.available(entry) == [editions.ENGLISH, editions.CHINESE]
    editions.CHINESE.path(entry).unlink()
    assert editions.available(entry) == [editions.ENGLISH]


def test_unknown_edition():
    assert editions.edition("zh") is editions.CHINESE
    with pytest.raises(ValueError, match=r"no edition 'fr'; the course has \['en', 'zh'\]"):
        editions.edition("fr")
