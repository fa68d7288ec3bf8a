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


@pytest.mark.parametrize("source, expected", [
    ('device = "cpu"  # a comment', {"device": "cpu"}),
    ('# settings\ndevice = "auto"\nquick = True\nsizes = [1, 2]', {"device": "auto", "quick": True, "sizes": [1, 2]}),
])
def test_a_notebooks_parameters_are_read_from_its_parameters_cell(tmp_path, source, expected):
    nb = manifest.json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "source": "x = 1"},
                                        {"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": source}]})
    (tmp_path / "n.ipynb").write_text(nb, encoding="utf-8")
    assert manifest.parameters(tmp_path / "n.ipynb") == expected


def test_a_notebook_without_parameters_cell_is_named(tmp_path):
    (tmp_path / "n.ipynb").write_text('{"cells": []}', encoding="utf-8")
    with pytest.raises(ValueError, match="n.ipynb has no code cell tagged `parameters`"):
        manifest.parameters(tmp_path / "n.ipynb")


def test_each_notebooks_default_device_is_its_parameters_cells():
    """Every notebook's stored outputs come from the CPU, its default device (COURSE.md), notebooks 6 and 8 too."""
    assert {entry.number: entry.default_device for entry in manifest.NOTEBOOKS} == {
        entry.number: "cpu" for entry in manifest.NOTEBOOKS}
    assert manifest.NOTEBOOKS[6].zh.default_device == "cpu"
