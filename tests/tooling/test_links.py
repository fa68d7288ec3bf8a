"""Relative links, rebased when a notebook's markdown moves to another folder (tools/links.py)."""

import pytest

from tools import course, links, translations
from tools.course import NOTEBOOKS


def test_links_are_rebased_for_a_practice_copy():
    old, new = course.NOTEBOOK_DIR, course.ROOT / "build" / "practice"
    source = ("[Course home](../README.md) · [next](02_x.ipynb) · [web](https://example.org/a.md) · [up](#top)\n"
              '![d](../images/a.png) <img src="../images/b.png"> [spaced]( <../images/c.png>)')
    assert links.rebase_links(source, old, new) == (
        "[Course home](../../README.md) · [next](02_x.ipynb) · [web](https://example.org/a.md) · [up](#top)\n"
        '![d](../../images/a.png) <img src="../../images/b.png"> [spaced]( <../../images/c.png>)'
    )


@pytest.mark.parametrize(("target", "rebased"), [
    ("../images/one_hot_product.png", "../../images/one_hot_product.png"),
    ("../README.md#two-commands", "../../README.zh.md#two-commands"),
    (NOTEBOOKS[0].filename, NOTEBOOKS[0].filename),  # the Chinese twin, next to it
    ("https://pytorch.org/docs", "https://pytorch.org/docs"),
    ("#summary", "#summary"),
    ("attachment:figure.png", "attachment:figure.png"),
    ("/absolute/path.png", "/absolute/path.png"),
])
def test_links_are_rebased_for_notebooks_zh(target, rebased):
    text = "see [x]({}) and ![y]({})"
    assert translations.rebase_for_zh(text.format(target, target)) == text.format(rebased, rebased)


def test_what_counts_as_relative():
    assert links.is_relative("../images/a.png") and links.is_relative("a.ipynb#x")
    assert not any(links.is_relative(url) for url in ("", "#top", "/abs", "https://x.org", "data:image/png;base64,"))
