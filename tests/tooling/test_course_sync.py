"""The manifest, the notebooks, the READMEs and the generated cells agree (both editions)."""

import re

import nbformat
import pytest

from tools import generated, manifest, sync, website
from tools.images import COURSE_IMAGES
from tools.manifest import NOTEBOOKS, REPO_NAME, REPO_SLUG


def test_manifest_is_numbered_in_order_with_unique_names():
    numbers = [nb.number for nb in NOTEBOOKS]
    assert numbers == sorted(set(numbers)) and numbers[0] in (0, 1)  # 0: the answer, before the lessons
    assert len({nb.stem for nb in NOTEBOOKS}) == len(NOTEBOOKS)
    for nb in NOTEBOOKS:
        assert nb.stem.startswith(f"{nb.number:02d}_"), nb.stem
        assert nb.title and nb.title == nb.title.strip()
        assert nb.title_zh and nb.title_zh == nb.title_zh.strip(), f"{nb.stem}: add its Chinese title, title_zh"
        assert nb.edition == "en"


def test_notebook_files_match_the_manifest():
    on_disk = sorted(p.name for p in manifest.NOTEBOOK_DIR.glob("*.ipynb"))
    assert on_disk == sorted(nb.filename for nb in NOTEBOOKS)
    on_disk_zh = sorted(p.name for p in (manifest.NOTEBOOK_DIR / "zh").glob("*.ipynb"))
    assert on_disk_zh == sorted(nb.filename for nb in NOTEBOOKS), "every notebook needs its Chinese twin"


def test_editions_have_their_own_paths():
    entry = NOTEBOOKS[0]
    assert entry.zh.path == manifest.NOTEBOOK_DIR / "zh" / entry.filename and entry.zh.en == entry
    assert (entry.repo_path, entry.zh.repo_path) == (f"notebooks/{entry.filename}", f"notebooks/zh/{entry.filename}")
    assert entry.zh.colab_url.endswith("/notebooks/zh/" + entry.filename)
    with pytest.raises(ValueError, match=r"no edition 'fr'; the course has \['en', 'zh'\]"):
        manifest.Notebook(1, "01_x", "X", edition="fr")


def test_make_sync_would_change_nothing():
    stale = sync.stale_files()
    assert not stale, f"run `make sync` and commit: out of date {stale}"


def test_sync_is_idempotent():
    for entry in NOTEBOOKS:
        once = generated.dumps_notebook(generated.sync_notebook(generated.read_notebook(entry.path), entry))
        twice = generated.dumps_notebook(generated.sync_notebook(generated.read_notebook(entry.path), entry))
        again = generated.dumps_notebook(generated.sync_notebook(nbformat.reads(once, as_version=4), entry))
        assert once == twice == again
    readme = manifest.ENGLISH.readme_path.read_text(encoding="utf-8")
    assert generated.sync_readme(generated.sync_readme(readme)) == generated.sync_readme(readme)
    assert sync.planned_text_files() == sync.planned_text_files()
    zh = manifest.CHINESE
    readme_zh = manifest.CHINESE.readme_path.read_text(encoding="utf-8")
    assert generated.sync_readme(generated.sync_readme(readme_zh, zh), zh) == generated.sync_readme(readme_zh, zh)


def test_every_header_has_title_badge_and_neighbour_links():
    for index, entry in enumerate(NOTEBOOKS):
        cells = generated.read_notebook(entry.path).cells
        header, footer = cells[0], cells[-1]
        body = [cell for cell in cells if cell.id not in generated.GENERATED_IDS]
        setup = cells[generated.setup_position(body) + 1]  # before the parameters cell (notebook 0: after its core)
        assert (header.id, setup.id, footer.id) == (generated.HEADER_ID, generated.SETUP_ID, generated.FOOTER_ID)
        assert f"# {entry.number}. {entry.title}" in header.source
        assert f"(https://colab.research.google.com/github/{REPO_SLUG}/blob/{manifest.REPO_REF}/{entry.repo_path})" \
            in header.source
        links = re.findall(r"\]\(([\w.-]+\.ipynb)\)", header.source)  # relative links only
        expected = [nb.filename for nb in NOTEBOOKS[max(index - 1, 0):index + 2] if nb != entry]
        assert links == expected
        for link in links:
            assert (manifest.NOTEBOOK_DIR / link).is_file()
        assert navigation_line(footer.source) == navigation_line(header.source)
        assert f"](zh/{entry.filename})" in header.source  # the Chinese twin
        middle = ("the answer" if entry.number == 0 else f"notebook {entry.number}, the last" if entry is NOTEBOOKS[-1]
                  else f"notebook {entry.number} of {len(NOTEBOOKS)}")
        assert f"](../README.md) · {middle}" in header.source  # notebook 0 is the answer; the last says so


def test_every_chinese_header_has_title_badge_and_links_within_the_chinese_edition():
    for index, entry in enumerate(NOTEBOOKS):
        cells = generated.read_notebook(entry.zh.path).cells
        header, footer = cells[0], cells[-1]
        body = [cell for cell in cells if cell.id not in generated.GENERATED_IDS]
        setup = cells[generated.setup_position(body) + 1]  # before the parameters cell (notebook 0: after its core)
        assert (header.id, setup.id, footer.id) == (generated.HEADER_ID, generated.SETUP_ID, generated.FOOTER_ID)
        assert f"# {entry.number}. {entry.title_zh}" in header.source
        assert f"({entry.zh.colab_url})" in header.source and "/notebooks/zh/" in entry.zh.colab_url
        assert f"](../{entry.filename})" in header.source  # the English original
        assert "](../../README.zh.md)" in header.source
        siblings = re.findall(r"\]\(([\w.-]+\.ipynb)\)", header.source)  # within notebooks/zh/
        assert siblings == [nb.filename for nb in NOTEBOOKS[max(index - 1, 0):index + 2] if nb != entry]
        assert navigation_line(footer.source) == navigation_line(header.source)
        middle = ("第 0 课（先看答案）" if entry.number == 0
                  else f"第 {entry.number} 课（最后一课）" if entry is NOTEBOOKS[-1]
                  else f"第 {entry.number} 课，共 {len(NOTEBOOKS)} 课")
        assert f"](../../README.zh.md) · {middle}" in header.source


def navigation_line(source: str) -> str:
    return source.strip().splitlines()[-1]


def test_readme_table_lists_every_notebook_with_its_page_and_practice_copy():
    """A title opens the notebook's page on the web site (website.py writes it there), which folds the worked
    answers; GitHub's view of the stored notebook, which shows them open, is linked from no title (s16)."""
    readme = manifest.ENGLISH.readme_path.read_text(encoding="utf-8")
    for entry in NOTEBOOKS:
        assert entry.site_page_url == manifest.site_url() + website.site_path(entry.repo_path)
        assert f"| {entry.number} | [{entry.title}]({entry.site_page_url}) |" in readme
        assert f"[{entry.title}]({entry.repo_path})" not in readme
        assert entry.practice_colab_url in readme
    assert "](README.zh.md)" in readme


def test_chinese_readme_table_lists_every_chinese_notebook_with_its_badge():
    readme = manifest.CHINESE.readme_path.read_text(encoding="utf-8")
    for entry in NOTEBOOKS:
        assert f"| {entry.number} | [{entry.title_zh}]({entry.zh.site_page_url}) |" in readme
        assert entry.zh.practice_colab_url in readme
    assert "](README.md)" in readme and manifest.binder_url("notebooks/zh") in readme


def test_the_chinese_start_paragraph_opens_the_chinese_notebooks():
    """Issue 41: its JupyterLab command is `lab --zh` (notebooks/zh/); the English one stays `lab`."""
    assert "`python3 course.py lab --zh`" in generated.readme_start(manifest.CHINESE)
    assert "--zh" not in generated.readme_start(manifest.ENGLISH)


@pytest.mark.parametrize("edition", manifest.EDITIONS, ids=lambda edition: edition.code)
def test_each_readme_opens_with_the_answer_of_notebook_0(edition):
    """Under the title, the line of links and what this is: notebook 0's `answer` cell, its heading dropped, its links
    rebased to the repository root (the Chinese README's to notebooks/zh/), its own links named notebook 0."""
    entry = manifest.notebook(0).in_edition(edition.code)
    source = generated.answer_cell_source(generated.read_notebook(entry.path), entry)
    readme = (manifest.ROOT / edition.readme).read_text(encoding="utf-8")
    answer = generated.ANSWER.between(readme)
    fine_print = generated.answer_cell_source(generated.read_notebook(entry.path), entry, generated.FINE_PRINT_CELL)
    anchor = generated.heading_anchor(fine_print.split("\n")[0])
    assert answer == generated.answer_block(source, edition, anchor)
    assert source.split("\n")[0] in ("## The answer", "## 答案") and "## " not in answer
    first_screen = [line for line in readme.split("\n")[:10] if line.strip()]
    # the title, the line of links, what this is and how to start (issue 34: at most three lines), the answer
    assert first_screen[0].startswith("# ") and generated.ANSWER.start in first_screen[2:6]
    # issue 42: one table of at most 5 rows, about 150 words (markdown's table rules and link targets not counted)
    assert answer.startswith("**") and 3 <= len(re.findall(r"^\| [^|]+ \| \*\*", answer, re.M)) <= 5
    assert len(re.findall(r"^\| --- \|", answer, re.M)) == 1
    words = re.sub(r"\]\([^)]*\)|\||---", " ", answer).split()
    assert len(words) <= 160, f"the answer has {len(words)} words: at most about 150"
    links = re.findall(r"\]\(([^)\s]+)\)", answer)
    # its links to the fine print go to the README's own section (the heading of the fine-print cell, one level up)
    assert f"]({anchor})" in answer and any(generated.heading_anchor(line) == anchor
                                            for line in readme.split("\n") if line.startswith("## "))
    # the others each to the cell on the notebook's page on the site, which opens there (GitHub's view: the top)
    page = entry.site_page_url
    assert all(link.startswith(manifest.site_url()) and "#cell-id=" in link for link in links if link != anchor)
    assert f"]({page}#cell-id=core-linear)" in answer  # `[below](#cell-id=...)` in the notebook
    assert f"[{generated.words(edition.code)['answer page']}]({page}#" in answer


def test_an_edit_of_the_answer_reaches_the_readme_through_sync(course_copy, image_writes):
    entry = manifest.notebook(0)
    _edit_cell(entry.path, generated.ANSWER_CELL, lambda s: s.replace("function, yes", "function, yes indeed"))
    # the Chinese README follows the translation, whose message sync marks fuzzy (stale until it is updated)
    assert sync.stale_files() == ["README.md", "notebooks/zh/translations/00_the_answer.po"]
    assert sync.sync() == 0
    assert "**As a function, yes indeed; as a layer, no.**" in (course_copy / "README.md").read_text(encoding="utf-8")
    readme = (course_copy / "README.md")
    readme.write_text(readme.read_text(encoding="utf-8").replace(generated.ANSWER.end, "<!-- end -->"))
    with pytest.raises(ValueError, match="README.md has no answer markers"):
        sync.stale_files()


@pytest.mark.parametrize("edition", manifest.EDITIONS, ids=lambda edition: edition.code)
def test_each_readme_has_the_fine_print_of_notebook_0_below_its_table(edition):
    """Notebook 0's `fine-print` cell, below the table of notebooks: its heading dropped, its links rebased."""
    entry = manifest.notebook(0).in_edition(edition.code)
    source = generated.answer_cell_source(generated.read_notebook(entry.path), entry, generated.FINE_PRINT_CELL)
    readme = (manifest.ROOT / edition.readme).read_text(encoding="utf-8")
    assert generated.FINE_PRINT.between(readme) == generated.answer_block(source, edition)
    assert readme.index(generated.TABLE.end) < readme.index(generated.FINE_PRINT.start)
    assert f"]({entry.site_page_url}#cell-id=repeats-intro)" in generated.FINE_PRINT.between(readme)


def test_an_edit_of_the_fine_print_reaches_the_readme_through_sync(course_copy, image_writes):
    entry = manifest.notebook(0)
    _edit_cell(entry.path, generated.FINE_PRINT_CELL, lambda s: s.replace("**A bad id**", "**A wrong id**"))
    assert sync.stale_files() == ["README.md", "notebooks/zh/translations/00_the_answer.po"]
    assert sync.sync() == 0
    assert "- **A wrong id**" in (course_copy / "README.md").read_text(encoding="utf-8")
    readme = (course_copy / "README.md")
    readme.write_text(readme.read_text(encoding="utf-8").replace(generated.FINE_PRINT.end, "<!-- end -->"))
    with pytest.raises(ValueError, match="README.md has no fine-print markers"):
        sync.stale_files()


def test_the_set_up_cell_goes_before_the_parameters_cell():
    """What comes above the set-up cell needs none (notebook 0's core imports only PyTorch); papermill's parameters
    and the helpers' imports come after it. Without a parameters cell: before the first code cell."""
    code = [nbformat.v4.new_code_cell("import torch", id="core"), nbformat.v4.new_markdown_cell("x", id="m"),
            nbformat.v4.new_code_cell("device = 'cpu'", id="parameters"),
            nbformat.v4.new_code_cell("import utils", id="u")]
    code[2].metadata["tags"] = ["parameters"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# t", id="t"), *code])
    synced = generated.sync_notebook(nb, NOTEBOOKS[0])
    assert [c.id for c in synced.cells] == [generated.HEADER_ID, "t", "core", "m", generated.SETUP_ID, "parameters",
                                            "u", generated.FOOTER_ID]
    del code[2].metadata["tags"]
    synced = generated.sync_notebook(nb, NOTEBOOKS[0])
    assert [c.id for c in synced.cells][:4] == [generated.HEADER_ID, "t", generated.SETUP_ID, "core"]


def _edit_cell(path, cell_id, edit):
    nb = generated.read_notebook(path)
    cell = next(cell for cell in nb.cells if cell.id == cell_id)
    cell.source = edit(cell.source)
    path.write_text(generated.dumps_notebook(nb), encoding="utf-8")


def test_every_link_to_the_course_repository_uses_the_one_slug():
    """Colab and Binder open only the course; a GitHub link to a repository named like the course
    is the course too. Other GitHub links are references (Meta's Llama code, for one)."""
    texts = [edition.readme_path.read_text(encoding="utf-8") for edition in manifest.EDITIONS]
    texts += [nb.path.read_text(encoding="utf-8") for entry in NOTEBOOKS for nb in (entry, entry.zh)]
    name = REPO_NAME
    for text in texts:
        slugs = re.findall(COURSE_LINK, text)
        slugs += [slug for slug in re.findall(GITHUB_LINK, text) if slug.split("/")[1] == name]
        assert slugs, "expected at least one link to the repository"
        assert set(slugs) == {REPO_SLUG}


COURSE_LINK = r"(?:colab\.research\.google\.com/github/|mybinder\.org/v2/gh/)([\w.-]+/[\w-]+)"
GITHUB_LINK = r"https://github\.com/([\w.-]+/[\w-]+)"


def test_images_referenced_by_the_readme_exist():
    readme = manifest.ENGLISH.readme_path.read_text(encoding="utf-8")
    for path in re.findall(r"\]\((images/[^)]+)\)", readme):
        assert (manifest.ROOT / path).is_file(), path


def _relative_links(text):
    targets = re.findall(r"\]\(\s*<?([^)\s>]+)", text)
    return [t.split("#")[0] for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:|#", t, re.I)]


def test_relative_links_in_readmes_and_notebooks_resolve():
    """Links written by hand or by `make sync`, in both editions: a moved file breaks none."""
    files = [manifest.ENGLISH.readme_path, manifest.CHINESE.readme_path]
    files += [nb.path for entry in NOTEBOOKS for nb in (entry, entry.zh)]
    for path in files:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".ipynb":
            text = "\n".join(c.source for c in generated.read_notebook(path).cells if c.cell_type == "markdown")
        for link in _relative_links(text):
            assert (path.parent / link).exists(), f"{path.relative_to(manifest.ROOT)} links to a missing {link}"


def test_colab_url_rejects_bad_paths():
    with pytest.raises(ValueError, match="relative to the repository root, ending in .ipynb"):
        manifest.colab_url("/notebooks/x.ipynb")
    with pytest.raises(ValueError, match="ending in .ipynb"):
        manifest.colab_url("README.md")
    with pytest.raises(ValueError, match="there is no notebook 99 in the manifest"):
        manifest.notebook(99)
    assert manifest.notebook(NOTEBOOKS[1].number) is NOTEBOOKS[1]


@pytest.fixture
def image_writes(monkeypatch):
    """sync's image step, recorded instead of drawn (2 s a call): the folders it was asked to draw into.
    What it draws, and that it draws the same picture every time, is test_images.py's."""
    folders = []

    def write_course_images(folder):
        folders.append(folder)
        for name in COURSE_IMAGES:
            (folder / name).write_bytes(b"\x89PNG")

    monkeypatch.setattr(sync, "write_course_images", write_course_images)
    return folders


def test_drift_is_caught_and_sync_repairs_it(course_copy, image_writes):
    readme = course_copy / "README.md"
    readme.write_text(readme.read_text().replace(NOTEBOOKS[0].title, "An old title"))
    notebook = course_copy / "notebooks" / NOTEBOOKS[0].filename
    notebook.write_text(notebook.read_text().replace(f"# {NOTEBOOKS[0].number}. ", "# Renamed ", 1))
    (course_copy / "images" / "stray.png").write_bytes(b"\x89PNG")
    (course_copy / "images" / "one_hot_product.png").unlink()

    assert sync.stale_files() == [
        f"notebooks/{NOTEBOOKS[0].filename}", "README.md", "images/one_hot_product.png", "images/stray.png",
    ]
    assert sync.sync(check=True) == 1
    assert image_writes == []  # --check writes nothing
    assert sync.sync() == 0
    assert image_writes == [course_copy / "images"]
    assert sync.stale_files() == []
    assert sync.sync(check=True) == 0


def test_a_stale_compiled_catalog_is_caught_and_sync_rewrites_it(course_copy, image_writes):
    from tools import interface

    mo = interface.mo_path()
    mo.write_bytes(b"stale")
    assert sync.stale_files() == ["utils/locale/zh/LC_MESSAGES/course.mo"]
    assert sync.sync() == 0
    assert mo.read_bytes() == interface.planned_mo()[1] and sync.stale_files() == []


def test_drift_in_the_chinese_edition_is_caught_and_sync_repairs_it(course_copy, image_writes, capsys):
    entry = NOTEBOOKS[0]
    zh = course_copy / "notebooks" / "zh" / entry.filename
    synced = zh.read_text()
    zh.write_text(synced.replace(entry.title_zh, "旧标题"))
    readme_zh = course_copy / "README.zh.md"
    readme_zh.write_text(readme_zh.read_text().replace(entry.title_zh, "旧标题"))
    assert sync.stale_files() == [f"notebooks/zh/{entry.filename}", "README.zh.md"]
    zh.unlink()
    assert sync.stale_files() == [f"notebooks/zh/{entry.filename}", "README.zh.md"]
    assert sync.sync() == 0
    assert "Chinese edition: " in capsys.readouterr().out  # and whether a translator has work to do
    assert sync.stale_files() == []
    assert zh.read_text() == synced  # the Chinese notebook as sync wrote it before the break


def test_readme_without_markers_is_an_error():
    with pytest.raises(ValueError, match="README.md has no notebook table markers"):
        generated.sync_readme("# a README without the table")
    with pytest.raises(ValueError, match="README.zh.md has no notebook table markers"):
        generated.sync_readme("# 没有表格的 README", manifest.CHINESE)


def test_missing_notebook_file_is_an_error(course_copy):
    (course_copy / "notebooks" / NOTEBOOKS[0].filename).unlink()
    with pytest.raises(FileNotFoundError, match="the manifest lists notebooks/.*but the file is missing"):
        sync.stale_files()
