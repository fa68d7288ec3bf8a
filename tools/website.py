"""The course as an offline web site: ``python3 course.py site``.

Every executed notebook of every edition becomes a page in ``build/site/`` (nbconvert's JupyterLab template,
``templates/page.html.j2``), beside ``index.html`` (``templates/home.html.j2``). The pages need no network: no
script (no require.js, MathJax or Mermaid from a CDN), math as MathML, the repository's images as data: URLs, a web
image (the Colab badge) as its alt text. Links go to the notebooks' pages, the index (for the README) or GitHub. The
practice copies are in ``practice/``, one by one and zipped with what they need to run, for learners who never clone.
"""

from __future__ import annotations

import base64
import html
import mimetypes
import posixpath
import re
import zipfile
from functools import partial, partialmethod
from pathlib import Path

import jinja2
from latex2mathml.converter import convert as latex_to_mathml
from nbconvert import HTMLExporter, TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

from . import manifest
from .generated import ANSWER, FINE_PRINT_CELL, INSTRUCTORS, START, TEMPLATE_FILES, read_notebook, words
from .links import is_relative, rebase_link
from .manifest import EDITIONS, available

SITE_DIR = manifest.ROOT / "build" / "site"
INDEX = "index.html"
PRACTICE = "practice"
PRACTICE_ZIP = f"{PRACTICE}/{manifest.REPO_NAME}-practice.zip"


def site_path(repo_path: str) -> str:
    return repo_path.removesuffix(".ipynb") + ".html"


def site_link(url: str, page: str, site_paths: dict[str, str]) -> str:
    """Where a link written in ``page`` (a repository path) points on the site: a notebook, or its page's
    address on the site, to its page, ``README*.md`` to the index, any other file of the repository to GitHub;
    other URLs and anchors are kept."""
    here = posixpath.dirname(page) or "."
    if url.startswith(manifest.site_url()):  # a page of this site (the README's answer links): made relative
        page_path, hash_sign, fragment = url.removeprefix(manifest.site_url()).partition("#")
        if (page_path or INDEX) in {*site_paths.values(), INDEX}:
            return posixpath.relpath(page_path or INDEX, here) + hash_sign + fragment
    folder = manifest.ROOT / here
    path, hash_sign, fragment = rebase_link(url, folder, manifest.ROOT, siblings_stay=False).partition("#")
    if is_relative(url) and (path in site_paths or re.fullmatch(r"README[^/]*\.md", path)):
        return posixpath.relpath(site_paths.get(path, INDEX), here) + hash_sign + fragment
    return rebase_link(url, folder, siblings_stay=False)


class SiteRenderer(IPythonRenderer):
    """nbconvert's markdown renderer, with MathML for math, links for the site and images embedded."""

    def __init__(self, *args, page: str, site_paths: dict[str, str], problems: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.page, self.site_paths, self.problems = page, site_paths, problems

    def _math(self, tex: str, display: str) -> str:
        try:
            return latex_to_mathml(tex, display=display)
        except Exception as error:  # noqa: BLE001 - shown as TeX source, and reported
            self.problems.append(f"{self.page}: cannot convert ${tex}$ to MathML ({error})")
            return f"<code>{html.escape(tex)}</code>"

    block_math, inline_math = partialmethod(_math, display="block"), partialmethod(_math, display="inline")

    def latex_environment(self, name: str, body: str) -> str:
        return self._math(f"\\begin{{{name}}}{body}\\end{{{name}}}", "block")

    def link(self, text: str, url: str, title: str | None = None) -> str:
        return super().link(text, site_link(url, self.page, self.site_paths), title)

    def image(self, text: str, url: str, title: str | None = None) -> str:
        if url.startswith(("attachment:", "data:")):
            return super().image(text, url, title)
        if not is_relative(url):  # an image on the web (a badge): its alt text, so the page makes no request
            return f'<span class="external-image">{html.escape(text)}</span>'
        local = (manifest.ROOT / posixpath.dirname(self.page) / url.partition("#")[0]).resolve()
        if not (local.is_file() and local.is_relative_to(manifest.ROOT.resolve())):
            self.problems.append(f"{self.page}: image {url!r} is not a file of the repository")
            return super().image(text, url, title)
        mime = mimetypes.guess_type(local.name)[0] or "application/octet-stream"
        return super().image(text, f"data:{mime};base64,{base64.b64encode(local.read_bytes()).decode()}", title)


#: what HTMLExporter adds to its page in a last pass through BeautifulSoup (40% of the build's time, on
#: pages of megabytes of embedded figures): cells that take the keyboard's focus, alt text for a figure
FOCUSABLE = re.compile(r'(<div class="jp-Cell-inputWrapper"|<div\b[^>]*?\bclass="[^"]*\bjp-OutputArea-output\b[^"]*")')
NO_ALT = re.compile(r"<img\b(?![^>]*\salt=)")


class SiteExporter(HTMLExporter):
    """nbconvert's HTML exporter with the course's template and markdown; set ``page`` before each export."""

    page, site_paths, problems = "", {}, []

    def from_notebook_node(self, nb, resources=None, **kw):
        """HTMLExporter's steps, with its last pass done by two regular expressions."""
        language = nb.metadata.get("language_info", {})
        self.register_filter("highlight_code", Highlight2HTML(
            pygments_lexer=language.get("pygments_lexer", language.get("name")), parent=self))
        resources = self._init_resources(resources)
        self.register_filter("filter_data_type", WidgetsDataTypeFilter(
            notebook_metadata=self._nb_metadata, parent=self, resources=resources))
        page, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        page = NO_ALT.sub('<img alt="No description has been provided for this image"', page)
        return FOCUSABLE.sub(r'\1 tabindex="0"', page), resources

    @jinja2.pass_context
    def markdown2html(self, context, source):
        return MarkdownWithMath(renderer=SiteRenderer(
            escape=False, page=self.page, site_paths=self.site_paths, problems=self.problems,
            attachments=context.get("cell", {}).get("attachments", {}), anchor_link_text=self.anchor_link_text,
            exclude_anchor_links=self.exclude_anchor_links, **self.lexer_options)).render(source)


def render_index(exporter: SiteExporter) -> str:
    """The home page: the README's title, its answer and Start paragraph, the table of notebooks."""
    exporter.page, site_paths, readme = "README.md", exporter.site_paths, partial(exporter.markdown2html, {})
    text = manifest.ENGLISH.readme_path.read_text(encoding="utf-8")
    title = re.search(r"^# (.+)$", text, re.M).group(1)
    rows = [{"entry": entry,
             "pages": [(e, site_paths.get(e.repo_path(entry))) for e in EDITIONS],
             "practice": [(e, f"{PRACTICE}/{posixpath.join(e.subdir, entry.filename)}") for e in available(entry)]}
            for entry in manifest.NOTEBOOKS]
    # the answer's link to the README's fine print (not on this page) goes to notebook 0's fine-print cell
    answer = re.sub(r"\]\(#[^)\s]+\)", f"]({manifest.notebook(0).site_page_url}#cell-id={FINE_PRINT_CELL})",
                    ANSWER.between(text) or "")
    return TEMPLATE_FILES.get_template("home.html.j2").render(
        title=readme(title).strip().removeprefix("<p>").removesuffix("</p>"), answer=readme(answer),
        intro=readme(START.between(text) or ""),
        editions=EDITIONS, rows=rows, practice_zip=PRACTICE_ZIP, repo_url=manifest.repo_url(),
        repo_slug=manifest.REPO_SLUG, instructors_url=site_link(INSTRUCTORS, exporter.page, site_paths))


#: What the practice zip holds beside the copies, so that they run unzipped, without the repository and without
#: a network: the helpers the notebooks import (their set-up cell finds ``utils/`` in a folder above), the
#: packages to install, and the licences the helpers and the text come under.
PRACTICE_FILES = ("utils", "requirements.txt", "constraints.txt", "pyproject.toml", "LICENSE", "LICENSE-CC-BY-4.0")


def write_practice_downloads(out_dir: Path) -> list[Path]:
    """The practice copies in ``out_dir/practice/``, one by one and zipped with :data:`PRACTICE_FILES` and a
    README (``templates/practice_README.md.j2``: what is in it, how to run it); returns the files written."""
    from .practice import write_practice

    copies = write_practice(out_dir / PRACTICE, published=True)
    archive = out_dir / PRACTICE_ZIP
    extras = [path for name in PRACTICE_FILES for path in sorted(
        [manifest.ROOT / name] if (manifest.ROOT / name).is_file() else (manifest.ROOT / name).rglob("*.py"))]
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
        for path in copies:  # in the zip: nn-embedding-course-practice/01_....ipynb, .../zh/01_....ipynb
            bundle.write(path, f"{archive.stem}/{path.relative_to(out_dir / PRACTICE).as_posix()}")
        for path in extras:  # .../utils/lookup.py, .../requirements.txt
            bundle.write(path, f"{archive.stem}/{path.relative_to(manifest.ROOT).as_posix()}")
        bundle.writestr(f"{archive.stem}/README.md", TEMPLATE_FILES.get_template("practice_README.md.j2").render(
            repo_name=manifest.REPO_NAME, repo_url=manifest.repo_url(), site_url=manifest.site_url()))
    return [*copies, archive]


def build(out_dir: Path = SITE_DIR) -> list[Path]:
    """Write the site into ``out_dir``; returns the files written. Raises if anything could not be rendered."""
    pages = [(entry, edition) for entry in manifest.NOTEBOOKS for edition in available(entry)]
    site_paths = {edition.repo_path(entry): site_path(edition.repo_path(entry)) for entry, edition in pages}
    exporter = SiteExporter(template_name="lab", extra_loaders=[TEMPLATE_FILES.loader])
    exporter.template_file, exporter.site_paths, exporter.problems = "page.html.j2", site_paths, []
    written = []
    for entry, edition in pages:
        exporter.page, exporter.language_code = edition.repo_path(entry), edition.code
        here, target = posixpath.dirname(exporter.page), out_dir / site_paths[exporter.page]
        said = words(edition.code)
        resources = {
            "metadata": {"name": f"{entry.number}. {entry.in_edition(edition.code).display_title}",
                         "path": str(edition.folder)},
            "home": posixpath.relpath(INDEX, here),
            "output_summary": said["output summary"],
            "course_home": said["site home"],
            "position": said["site position"].format(number=entry.number, count=len(manifest.NOTEBOOKS))
            if entry.number else said["site answer"],
            "editions": [(e.name, e.code, None if e == edition else posixpath.relpath(site_paths[e.repo_path(entry)],
                                                                                      here)) for e in available(entry)],
        }
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(exporter.from_notebook_node(read_notebook(edition.path(entry)), resources)[0],
                          encoding="utf-8")
        written.append(target)
    written += write_practice_downloads(out_dir)
    (out_dir / INDEX).write_text(render_index(exporter), encoding="utf-8")
    written.append(out_dir / INDEX)
    for stale in set(out_dir.rglob("*.html")) - set(written):  # pages of notebooks that are gone
        stale.unlink()
    if exporter.problems:
        raise ValueError("the site has problems:\n" + "\n".join(exporter.problems))
    return written
