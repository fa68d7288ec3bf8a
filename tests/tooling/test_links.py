"""Relative links, rebased when a notebook's markdown moves to another folder (tools/links.py); links to a
cell (`#cell-id=`) that reach one, in every notebook of both editions and both READMEs."""

import re

import nbformat
import pytest

from tools import generated, links, manifest, translations
from tools.manifest import NOTEBOOKS


def test_links_are_rebased_for_a_practice_copy():
    old, new = manifest.NOTEBOOK_DIR, manifest.ROOT / "build" / "practice"
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


def test_a_published_link_is_an_address_on_github():
    """Without a folder to move to, a link becomes its file's address in the repository (a copy that leaves it)."""
    here = manifest.CHINESE.folder
    assert links.rebase_link("../../images/a.png#x", here) == manifest.blob_url("images/a.png") + "#x"
    assert links.rebase_link("02_x.ipynb", here) == "02_x.ipynb"  # a sibling: the copies are siblings too
    assert links.rebase_link("02_x.ipynb", here, siblings_stay=False) == manifest.blob_url("notebooks/zh/02_x.ipynb")
    assert links.rebase_link("../../../elsewhere.md", here) == "../../../elsewhere.md"  # out of the repository


def test_what_counts_as_relative():
    assert links.is_relative("../images/a.png") and links.is_relative("a.ipynb#x")
    assert not any(links.is_relative(url) for url in ("", "#top", "/abs", "https://x.org", "data:image/png;base64,"))


# --- links to a cell: `NN_stem.ipynb#cell-id=<id>` ---------------------------------------------

#: A link to a cell (``[text](02_x.ipynb#cell-id=build)``, ``(#cell-id=build)`` within the page, or a README's
#: ``(https://<site>/notebooks/02_x.html#cell-id=build)``, the cell on the notebook's page on the site).
SITE = re.escape(manifest.site_url())
CELL_LINK = re.compile(rf"\]\(\s*<?(?:{SITE})?([^)\s>#]*\.(?:ipynb|html))?#cell-id=([^)\s>]*)")


def broken_cell_links(path):
    """The cell links of a README or a notebook (its markdown cells) that reach no cell: ``[(link, why)]``."""
    if path.suffix == ".ipynb":
        text = "\n".join(c.source for c in generated.read_notebook(path).cells if c.cell_type == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    broken = []
    for match in CELL_LINK.finditer(text):
        page = match.group(1) and re.sub(r"\.html$", ".ipynb", match.group(1))  # a site page: its notebook
        target = (path.parent / page if page else path) if "://" not in match.group(0) else manifest.ROOT / page
        link = f"{match.group(1) or ''}#cell-id={match.group(2)}"
        if target.suffix != ".ipynb" or not target.is_file():
            broken.append((link, "no such notebook"))
        elif match.group(2) not in {cell.get("id") for cell in generated.read_notebook(target).cells}:
            broken.append((link, f"{target.name} has no cell with this id"))
    return broken


def _pages():
    pages = [manifest.ROOT / edition.readme for edition in manifest.EDITIONS]
    return pages + [nb.path for entry in NOTEBOOKS for nb in (entry, entry.zh)]


@pytest.mark.parametrize("path", _pages(), ids=lambda path: str(path.relative_to(manifest.ROOT)))
def test_cell_links_reach_a_cell(path):
    """The answer's verdict links each claim to the cell that proves it: the cell must still be there."""
    broken = broken_cell_links(path)
    assert not broken, f"{path.relative_to(manifest.ROOT)}: links to cells that do not exist: {broken}"


def test_the_readmes_link_to_cells(tmp_path):
    """The check finds the links it is for: the verdict's, in both READMEs and in notebook 0."""
    for page in (*(manifest.ROOT / edition.readme for edition in manifest.EDITIONS), *(manifest.notebook(0).path,)):
        assert len(CELL_LINK.findall(page.read_text(encoding="utf-8"))) >= 10, page.name


def test_a_link_to_a_missing_cell_or_notebook_is_reported(tmp_path):
    notebook = tmp_path / "notebooks" / "01_x.ipynb"
    notebook.parent.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("[here](#cell-id=select), [gone](#cell-id=selected)", id="select")]
    notebook.write_text(generated.dumps_notebook(nb), encoding="utf-8")
    readme = tmp_path / "README.md"
    readme.write_text("[a](notebooks/01_x.ipynb#cell-id=select) [b](notebooks/01_x.ipynb#cell-id=nan) "
                      "[c](notebooks/02_y.ipynb#cell-id=select) [d](notebooks/01_x.ipynb#Summary)", encoding="utf-8")
    assert broken_cell_links(notebook) == [("#cell-id=selected", "01_x.ipynb has no cell with this id")]
    assert broken_cell_links(readme) == [("notebooks/01_x.ipynb#cell-id=nan", "01_x.ipynb has no cell with this id"),
                                         ("notebooks/02_y.ipynb#cell-id=select", "no such notebook")]
