"""The editions: English in notebooks/, translations beside it under the same file names."""

import pytest

from tools import manifest


def test_english_is_the_notebooks_folder_and_chinese_its_zh_subfolder():
    entry = manifest.NOTEBOOKS[0]
    assert manifest.ENGLISH.path(entry) == entry.path
    assert manifest.CHINESE.path(entry) == manifest.NOTEBOOK_DIR / "zh" / entry.filename
    assert manifest.CHINESE.repo_path(entry) == f"notebooks/zh/{entry.filename}"
    assert manifest.EDITIONS[0] is manifest.ENGLISH


def test_available_lists_the_editions_that_exist(bilingual_course):
    entry = manifest.NOTEBOOKS[0]
    assert manifest.available(entry) == [manifest.ENGLISH, manifest.CHINESE]
    manifest.CHINESE.path(entry).unlink()
    assert manifest.available(entry) == [manifest.ENGLISH]


def test_unknown_edition():
    assert manifest.edition("zh") is manifest.CHINESE
    with pytest.raises(ValueError, match=r"no edition 'fr'; the course has \['en', 'zh'\]"):
        manifest.edition("fr")
