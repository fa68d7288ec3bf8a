"""The static site (`make site`): pages for every edition, no external requests, links that resolve."""

import functools
import html
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

from tools import generated, manifest, website
from tools.manifest import NOTEBOOKS


@dataclass(frozen=True)
class _Parsed:
    ids: frozenset
    loads: tuple  # what the page fetches to show itself: src of any element, href of <link>
    links: tuple  # href of <a>


# nbconvert writes well-formed HTML with double-quoted attributes; regular expressions are
# much faster than an HTML parser on pages full of embedded images.
_ID = re.compile(r'<[^>]*?\sid="([^"]*)"')
_SRC = re.compile(r'<[^>]*?\ssrc="([^"]*)"')
_LINK = re.compile(r'<link\s[^>]*?href="([^"]*)"')
_A = re.compile(r'<a\s[^>]*?href="([^"]*)"')


def _parse(path):
    """A page's ids, loads and links; parsed once for each version of the file (the pages are megabytes
    of embedded figures, and every link's anchor is looked up in its target page)."""
    stat = Path(path).stat()
    return _parse_version(Path(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=128)
def _parse_version(path, mtime_ns, size):
    text = path.read_text(encoding="utf-8")
    ids = frozenset(html.unescape(value) for value in _ID.findall(text))
    loads = tuple(html.unescape(v) for v in _SRC.findall(text) + _LINK.findall(text))
    return _Parsed(ids, loads, tuple(html.unescape(value) for value in _A.findall(text)))


@pytest.fixture(scope="module")
def site():
    """The site as `make site` builds it, in build/site/ (the browser test screenshots it)."""
    website.build(website.SITE_DIR)
    return website.SITE_DIR


def test_the_site_offers_every_practice_copy_to_download_and_in_colab(site):
    index = (site / website.INDEX).read_text(encoding="utf-8")
    with zipfile.ZipFile(site / website.PRACTICE_ZIP) as bundle:
        zipped = set(bundle.namelist())
    for entry in NOTEBOOKS:
        for edition in manifest.available(entry):
            path = f"{website.PRACTICE}/{edition.subdir + '/' if edition.subdir else ''}{entry.filename}"
            assert (site / path).is_file() and f'href="{path}" download' in index
            assert manifest.colab_url(edition.repo_path(entry), manifest.PRACTICE_REF) in index
            assert f"{manifest.REPO_NAME}-practice/{path.removeprefix('practice/')}" in zipped
    assert f'href="{website.PRACTICE_ZIP}" download' in index


def test_the_practice_zip_holds_what_the_copies_need_to_run_on_their_own(site):
    """Unzipped, without the repository and without a network: the helpers the copies import, what to install,
    the licences, a README (tests/notebooks/test_practice_download.py runs a copy from it)."""
    folder = f"{manifest.REPO_NAME}-practice/"
    with zipfile.ZipFile(site / website.PRACTICE_ZIP) as bundle:
        zipped = {name.removeprefix(folder): bundle.read(name) for name in bundle.namelist()}
    helpers = {path.relative_to(manifest.ROOT).as_posix() for path in (manifest.ROOT / "utils").rglob("*.py")}
    assert generated.COURSE_MARKER in helpers and helpers <= set(zipped)  # what the set-up cell looks for
    for name in ("requirements.txt", "constraints.txt", "pyproject.toml", "LICENSE", "LICENSE-CC-BY-4.0"):
        assert zipped[name] == (manifest.ROOT / name).read_bytes(), name
    assert not [name for name in zipped if "__pycache__" in name or not name.endswith((".py", ".ipynb", ".txt", ".md",
                                                                                       ".toml", "LICENSE", "4.0"))]
    readme = zipped["README.md"].decode()
    for words in ("pip install -r requirements.txt -c constraints.txt", "jupyter lab", "`zh/`", manifest.repo_url()):
        assert words in readme, words


def test_the_index_links_the_page_for_instructors(site):
    assert manifest.blob_url(website.INSTRUCTORS) in _parse(site / website.INDEX).links
    assert (manifest.ROOT / website.INSTRUCTORS).is_file()


def test_every_notebook_has_a_page_and_the_index_lists_it(site):
    index = _parse(site / "index.html")
    for entry in NOTEBOOKS:
        page = site / "notebooks" / f"{entry.stem}.html"
        assert page.is_file(), page
        assert f"notebooks/{entry.stem}.html" in index.links
        assert entry.colab_url in index.links


def test_the_index_opens_with_the_answer_each_row_linked_to_the_cell_that_proves_it(site):
    text = (site / "index.html").read_text(encoding="utf-8")
    answer = re.search(r'<h1>.*?</h1>\s*<div class="answer">\s*<p><strong>As a function, yes; as a layer, no.</strong>'
                       r"(.*?)</div>", text, re.S)
    assert answer, "the answer sentence, right under the title"
    bodies = re.findall(r"<tbody>(.*?)</tbody>", answer.group(1), re.S)  # the verdict's one table
    rows = [row for body in bodies for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]
    assert len(bodies) == 1 and 3 <= len(rows) <= 5, (len(bodies), len(rows))
    for row in rows:
        links = re.findall(r'<a href="([^"]+)"', row)
        assert links, f"a row of the verdict without a proof: {row}"
        for link in links:
            page, _, cell = link.partition("#")
            assert cell.startswith("cell-id=") and page.startswith("notebooks/") and page.endswith(".html"), link
            assert cell in _parse(site / page).ids, f"{link}: no cell {cell} on that page"
    assert text.index('<div class="answer">') < text.index('<table class="notebooks">')


def test_the_set_up_cell_and_the_worked_answers_are_folded_on_the_page(site):
    """As in JupyterLab and Colab: each under its title, in a closed <details> (no script needed)."""
    for entry in NOTEBOOKS:
        nb = nbformat.read(entry.path, as_version=4)
        folded = [cell for cell in nb.cells if cell.metadata.get("jupyter", {}).get("source_hidden")]
        text = (site / "notebooks" / f"{entry.stem}.html").read_text(encoding="utf-8")
        summaries = re.findall(r'<details class="course-folded"><summary>(.*?)</summary>', text)
        titles = []
        for cell in folded[1:]:
            tags = cell.metadata.get("tags", [])
            kind = ("answer" if generated.ANSWER_TAG in tags else
                    "measured" if generated.MEASURED_TAG in tags else
                    "check" if generated.CHECK_TAG in tags else "solution")
            titles.append(generated.WORDS[f"{kind} title"])
            if kind == "measured" and cell.outputs:  # its output too, in a second closed <details>
                titles.append(generated.WORDS["output summary"])
        assert [html.unescape(s) for s in summaries] == [generated.WORDS["setup title"], *titles], entry.stem
        assert "<details open" not in text


def test_each_page_names_its_place_in_its_own_language(site):
    """The course bar above a page speaks the page's language: a Chinese page's reader meets no English there."""
    for code in ("en", "zh"):
        said = generated.words(code)
        for entry in NOTEBOOKS:
            page = site / website.site_path(entry.in_edition(code).repo_path)
            bar = re.search(r'<nav class="course-bar".*?</nav>', page.read_text(encoding="utf-8"), re.S).group(0)
            place = (said["site position"].format(number=entry.number, count=len(NOTEBOOKS)) if entry.number
                     else said["site answer"])
            assert said["site home"] in bar and f"<span>{place}</span>" in bar, page.name


def test_pages_load_nothing_from_the_network_and_run_no_script(site):
    for path in site.rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        parsed = _parse(path)
        assert "<script" not in text, f"{path.name}: scripts (require.js, MathJax) would come from a CDN"
        external = [url for url in parsed.loads if not url.startswith("data:")]
        assert external == [], f"{path.name} loads {external}"
        assert not re.search(r"@import\s+url\(\s*['\"]?https?:", text), f"{path.name}: CSS that fetches"


def test_math_is_mathml_and_links_point_to_pages(site):
    lesson = manifest.notebook(1)
    page = (site / "notebooks" / f"{lesson.stem}.html").read_text(encoding="utf-8")
    assert re.search(r'<math [^>]*display="block"', page)  # notebook 1's formula
    assert "$$" not in page
    links = _parse(site / "notebooks" / f"{lesson.stem}.html").links
    assert not [link for link in links if link.endswith(".ipynb") and "://" not in link]
    assert "../index.html" in links  # the header's "Course home"


def test_figures_have_alt_text_and_cells_take_the_keyboards_focus(site):
    """What nbconvert's HTMLExporter adds in a last pass, which tools/website.py does with two expressions."""
    page = (site / "notebooks" / f"{manifest.notebook(1).stem}.html").read_text(encoding="utf-8")
    images = re.findall(r"<img\b[^>]*>", page)
    assert images and all(re.search(r"\salt=", image) for image in images)
    cells = re.findall(r'<div class="jp-Cell-inputWrapper"[^>]*>', page)
    outputs = re.findall(r'<div\b[^>]*\bclass="[^"]*\bjp-OutputArea-output\b[^>]*>', page)
    assert cells and outputs and all(' tabindex="0"' in div for div in cells + outputs)


def _has_anchor(ids, fragment):
    """As a browser finds it: the fragment as written, then percent-decoded."""
    return fragment in ids or unquote(fragment) in ids


def _check_links(path, site):
    """Every link inside the site names a file that exists, and an anchor that exists in it."""
    for link in _parse(path).links:
        parts = urlsplit(link)
        if parts.scheme:
            continue
        target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
        assert target.is_file(), f"{path.name}: broken link {link}"
        assert target.is_relative_to(site.resolve()), f"{path.name}: {link} leaves the site"
        if parts.fragment:
            assert _has_anchor(_parse(target).ids, parts.fragment), f"{path.name}: no anchor for {link}"


def test_every_internal_link_resolves(site):
    for path in site.rglob("*.html"):
        _check_links(path, site)


def test_site_link_rules():
    page = manifest.CHINESE.repo_path(NOTEBOOKS[0])
    paths = {"notebooks/01_a.ipynb": "notebooks/01_a.html", "notebooks/zh/02_b.ipynb": "notebooks/zh/02_b.html"}
    assert website.site_link("02_b.ipynb#Summary", page, paths) == "02_b.html#Summary"
    assert website.site_link("../01_a.ipynb", page, paths) == "../01_a.html"
    assert website.site_link("../../README.md", page, paths) == "../../index.html"
    assert website.site_link("../../utils/exercises.py#L3", page, paths) == \
        f"{manifest.repo_url()}/blob/{manifest.REPO_REF}/utils/exercises.py#L3"
    assert website.site_link("../../utils", page, paths) == f"{manifest.repo_url()}/tree/{manifest.REPO_REF}/utils"
    for kept in ("https://example.org/x.ipynb", "#top", "mailto:a@b.c"):
        assert website.site_link(kept, page, paths) == kept


def test_a_missing_image_fails_the_build(bilingual_course, tmp_path):
    nb_path = manifest.CHINESE.path(NOTEBOOKS[0])
    nb = nbformat.read(nb_path, as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell("![gone](../../images/nowhere.png)"))
    nbformat.write(nb, nb_path)
    where = rf"notebooks/zh/{NOTEBOOKS[0].stem}\.ipynb"
    with pytest.raises(ValueError, match=rf"{where}: image '../../images/nowhere.png' is not a file"):
        website.build(tmp_path / "site")


def test_a_translated_notebook_gets_a_page_linked_both_ways(bilingual_course, tmp_path):
    out = tmp_path / "site"
    website.build(out)
    entry = NOTEBOOKS[0]
    en, zh = out / "notebooks" / f"{entry.stem}.html", out / "notebooks" / "zh" / f"{entry.stem}.html"
    assert zh.is_file()
    assert f"zh/{entry.stem}.html" in _parse(en).links
    assert f"../{entry.stem}.html" in _parse(zh).links
    assert '<html lang="zh">' in zh.read_text(encoding="utf-8")
    index = _parse(out / "index.html").links
    assert f"notebooks/zh/{entry.stem}.html" in index and f"notebooks/{entry.stem}.html" in index
    assert entry.title_zh in (out / "index.html").read_text(encoding="utf-8")  # the edition's own title
    for path in out.rglob("*.html"):
        _check_links(path, out)
    # a stale page of a notebook that is gone is removed
    (out / "notebooks" / "99_gone.html").write_text("old")
    website.build(out)
    assert not (out / "notebooks" / "99_gone.html").exists()


# --- in a browser -------------------------------------------------------------------------


def _open(context, url):
    page = context.new_page()
    page.goto(url)
    page.wait_for_load_state("load")
    return page


#: for loading a page (megabytes of embedded figures) and each step on it; Playwright's default is 30 s
PAGE_TIMEOUT_S = 120


@pytest.fixture(scope="module")
def site_context(browser, site):
    """A browser context where any request that is not a local file is blocked and recorded."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(PAGE_TIMEOUT_S * 1000)
    requests = []

    def route(route):
        url = route.request.url
        if url.startswith(("file://", "data:")):
            route.continue_()
        else:
            requests.append(url)
            route.abort()

    context.route("**/*", route)
    try:
        yield context, requests
    finally:
        context.close()


IMAGES = """() => Array.from(document.images)
    .map(img => [img.alt || img.src.slice(0, 40), img.complete && img.naturalWidth > 0])"""
LINKS = "() => Array.from(document.querySelectorAll('a[href]')).map(a => a.href)"


def _assert_page_works(page, path, requests):
    images = page.evaluate(IMAGES)
    assert all(ok for _, ok in images), f"{path.name}: images that did not load: {[n for n, ok in images if not ok]}"
    for href in page.evaluate(LINKS):
        parts = urlsplit(href)
        if parts.scheme != "file":
            continue
        target = Path(unquote(parts.path))
        assert target.is_file(), f"{path.name}: broken link {href}"
        if parts.fragment:
            assert _has_anchor(_parse(target).ids, parts.fragment), f"{path.name}: no anchor for {href}"
    assert requests == [], f"{path.name} tried to reach the network: {requests}"


def test_the_index_and_a_notebook_page_work_offline_in_chromium(site_context, site, screenshots):
    context, requests = site_context
    index = site / "index.html"
    page = _open(context, index.as_uri())
    _assert_page_works(page, index, requests)
    page.screenshot(path=str(screenshots / "site-index.png"), full_page=True)

    # follow the index's link to notebook 1 (its formula and figures), as a reader would
    lesson = manifest.notebook(1)
    page.locator(f'table.notebooks a[href="notebooks/{lesson.stem}.html"]').click()
    page.wait_for_load_state("load")
    notebook = site / "notebooks" / f"{lesson.stem}.html"
    assert page.url == notebook.as_uri()
    _assert_page_works(page, notebook, requests)
    assert page.locator("math").count() > 0 and page.locator("img").count() > 0
    # MathML is laid out by the browser: the display formula has a real size
    box = page.locator('math[display="block"]').first.bounding_box()
    assert box and box["width"] > 100 and box["height"] > 20
    page.screenshot(path=str(screenshots / "site-notebook.png"), full_page=True)
    page.close()
