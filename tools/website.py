"""The course as a static web site: ``python -m tools.website`` (``make site``).

Renders every executed notebook of every edition (``notebooks/`` and, where they
exist, the translations in ``notebooks/zh/``) to HTML in ``build/site/``, beside an
``index.html`` with the table of notebooks and a link to each edition. The pages need
nothing from the network:

- no JavaScript at all: nbconvert's JupyterLab template without require.js, MathJax or
  Mermaid (which it would load from CDNs); the math is converted to MathML (rendered by
  the browser itself) with latex2mathml;
- figures are embedded (outputs as nbconvert does; images that markdown cells link from
  the repository as data: URLs); an external image (the Colab badge) becomes its alt text;
- links between notebooks point to their pages, ``README.md`` to the index, and links to
  other files of the repository to the repository on GitHub.

Each page has a bar with the course home and the notebook's other editions. The practice copies
(tools/practice.py, with their links pointing into the repository) are in ``practice/``, one by one
and as one zip file, and the index links each to download and to open in Colab (from the practice
branch that the site's workflow pushes), for learners who never clone.
"""

from __future__ import annotations

import base64
import html
import mimetypes
import posixpath
import re
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import jinja2
from latex2mathml.converter import convert as latex_to_mathml
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

from utils.cli import OneLineParser

from . import manifest
from .cli import guard
from .generated import ANSWER_BLOCK, read_notebook, readme_answer
from .links import SCHEME, is_relative
from .manifest import EDITIONS, Edition, Notebook, available

SITE_DIR = manifest.ROOT / "build" / "site"
INDEX = "index.html"
#: the practice copies' folder in the site, and the zip file that holds them all
PRACTICE = "practice"
PRACTICE_ZIP = f"{PRACTICE}/{manifest.REPO_NAME}-practice.zip"

_HTML_ATTR = re.compile(r"""\b(src|href)=(["'])([^"']*)\2""")

TEMPLATE = r"""
{%- extends 'index.html.j2' -%}
{#- everything the JupyterLab template would fetch from a CDN, left out -#}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block extra_css -%}
<style type="text/css">
.course-bar { display: flex; gap: 1.2em; align-items: baseline; padding: 8px 16px; margin-bottom: 8px;
  border-bottom: 1px solid var(--jp-border-color2); font-family: var(--jp-ui-font-family); font-size: 14px; }
.course-bar a { color: var(--jp-content-link-color); text-decoration: none; }
.course-bar .current { font-weight: bold; }
details.course-folded > summary { cursor: pointer; padding: 4px 0 4px 16px; color: var(--jp-ui-font-color2);
  font-family: var(--jp-code-font-family); font-size: var(--jp-code-font-size); }
math[display="block"] { margin: 1em 0; font-size: 1.15em; }
</style>
{%- endblock extra_css -%}
{#- a cell the notebook folds (set-up, worked answers): its code under its title, closed -#}
{%- block input_group -%}
{%- if cell.metadata.get("jupyter", {}).get("source_hidden") -%}
<details class="course-folded"><summary>{{ cell.source.split("\n", 1)[0] | replace("#@title ", "") | e }}</summary>
{{ super() }}
</details>
{%- else -%}
{{ super() }}
{%- endif -%}
{%- endblock input_group -%}
{#- code: Pygments escapes every character of the source, so the lab template's second pass
    through bleach (clean_html) changes nothing; it took half of the build's time -#}
{% block input %}
<div class="jp-CodeMirrorEditor jp-Editor jp-InputArea-editor" data-type="inline">
     <div class="cm-editor cm-s-jupyter">
{{ cell.source | highlight_code(metadata=cell.metadata) }}
     </div>
</div>
{%- endblock input %}
{%- block body_header -%}
{{ super() }}
<nav class="course-bar" aria-label="course">{{ resources.course_bar }}</nav>
{%- endblock body_header -%}
"""


@dataclass(frozen=True)
class Page:
    """One rendered notebook: its source and where its page goes."""

    entry: Notebook
    edition: Edition

    @property
    def source(self) -> Path:
        return self.edition.path(self.entry)

    @property
    def repo_path(self) -> str:
        return self.edition.repo_path(self.entry)

    @property
    def title(self) -> str:
        """The notebook's title in this edition (the manifest's ``title`` or ``title_zh``)."""
        return self.entry.in_edition(self.edition.code).display_title

    @property
    def site_path(self) -> str:
        """Path of the page inside the site: the repository path with ``.html``."""
        return self.repo_path[: -len(".ipynb")] + ".html"


def pages() -> list[Page]:
    """Every notebook of every edition that exists, in manifest order."""
    return [Page(entry, edition) for entry in manifest.NOTEBOOKS for edition in available(entry)]


def _relative(target: str, from_page: str) -> str:
    return posixpath.relpath(target, posixpath.dirname(from_page) or ".")


def site_link(url: str, page: Page, site_paths: dict[str, str]) -> str:
    """Where a link in ``page`` points on the site.

    Relative links to notebooks go to their pages, to ``README*.md`` to the index, and to
    any other file of the repository to GitHub (at the manifest's ref). Absolute URLs and
    in-page anchors are kept.
    """
    if not is_relative(url):
        return url
    path, hash_, fragment = url.partition("#")
    target = posixpath.normpath(posixpath.join(posixpath.dirname(page.repo_path), path))
    anchor = hash_ + fragment
    if target in site_paths:
        return _relative(site_paths[target], page.site_path) + anchor
    if posixpath.basename(target).startswith("README") and target.endswith(".md") and "/" not in target:
        return _relative(INDEX, page.site_path) + anchor
    if target.startswith("../"):
        return url  # outside the repository: nothing to point to
    return manifest.blob_url(target) + anchor


def data_url(path: Path) -> str:
    """A file as a ``data:`` URL (for images)."""
    mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


class _SiteRenderer(IPythonRenderer):
    """nbconvert's markdown renderer, with MathML for math and links fixed for the site."""

    def __init__(self, *args, page: Page, site_paths: dict[str, str], problems: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.page, self.site_paths, self.problems = page, site_paths, problems

    def _math(self, tex: str, display: str) -> str:
        try:
            return latex_to_mathml(tex, display=display)
        except Exception as error:  # noqa: BLE001 - shown as TeX source, and reported
            self.problems.append(f"{self.page.repo_path}: cannot convert ${tex}$ to MathML ({error})")
            return f"<code>{html.escape(tex)}</code>"

    def block_math(self, body: str) -> str:
        return self._math(body, "block")

    def inline_math(self, body: str) -> str:
        return self._math(body, "inline")

    def latex_environment(self, name: str, body: str) -> str:
        return self._math(f"\\begin{{{name}}}{body}\\end{{{name}}}", "block")

    def link(self, text: str, url: str, title: str | None = None) -> str:
        return super().link(text, site_link(url, self.page, self.site_paths), title)

    def _image_src(self, url: str) -> str | None:
        """A data: URL for a repository image, the URL itself for data:, None for any other."""
        if url.startswith("data:"):
            return url
        if SCHEME.match(url) or url.startswith("/"):
            return None
        local = (self.page.source.parent / url.split("#")[0]).resolve()
        if local.is_file() and local.is_relative_to(manifest.ROOT.resolve()):
            return data_url(local)
        self.problems.append(f"{self.page.repo_path}: image {url!r} is not a file of the repository")
        return url

    def image(self, text: str, url: str, title: str | None = None) -> str:
        if url.startswith("attachment:"):
            return super().image(text, url, title)
        src = self._image_src(url)
        if src is None:  # an image on the web (a badge): its alt text, so the page makes no request
            return f'<span class="external-image">{html.escape(text)}</span>'
        return super().image(text, src, title)

    def _fix_html(self, raw: str) -> str:
        def fix(match: re.Match) -> str:
            attribute, quote, value = match.groups()
            if attribute == "href":
                value = site_link(value, self.page, self.site_paths)
            else:
                value = self._image_src(value) or ""
            return f"{attribute}={quote}{value}{quote}"

        return _HTML_ATTR.sub(fix, raw)

    def block_html(self, html_text: str) -> str:
        return super().block_html(self._fix_html(html_text))

    def inline_html(self, html_text: str) -> str:
        return super().inline_html(self._fix_html(html_text))


class SiteExporter(HTMLExporter):
    """HTML with the course's template and markdown renderer; set ``page`` before each export."""

    page: Page | None = None
    site_paths: dict[str, str] = {}
    problems: list[str] = []

    @jinja2.pass_context
    def markdown2html(self, context, source):
        cell = context.get("cell", {})
        renderer = _SiteRenderer(
            escape=False, attachments=cell.get("attachments", {}), anchor_link_text=self.anchor_link_text,
            exclude_anchor_links=self.exclude_anchor_links, page=self.page, site_paths=self.site_paths,
            problems=self.problems, **self.lexer_options,
        )
        return MarkdownWithMath(renderer=renderer).render(source)


def make_exporter() -> SiteExporter:
    exporter = SiteExporter(template_name="lab", extra_loaders=[jinja2.DictLoader({"manifest.html.j2": TEMPLATE})])
    exporter.template_file = "manifest.html.j2"
    return exporter


def course_bar(page: Page, editions: list[Edition]) -> str:
    """HTML of the bar on top of a page: the course home, then each edition of this notebook."""
    parts = [f'<a href="{_relative(INDEX, page.site_path)}">Course home</a>',
             f"<span>{page.entry.number} / {manifest.last_number()}</span>" if page.entry.number else
             "<span>the answer</span>"]
    for edition in editions:
        other = Page(page.entry, edition)
        if edition == page.edition:
            parts.append(f'<span class="current" lang="{edition.code}">{html.escape(edition.name)}</span>')
        else:
            href = _relative(other.site_path, page.site_path)
            parts.append(f'<a href="{href}" lang="{edition.code}" hreflang="{edition.code}">'
                         f"{html.escape(edition.name)}</a>")
    return " ".join(parts)


def render_page(exporter: SiteExporter, page: Page, site_paths: dict[str, str]) -> str:
    exporter.page, exporter.site_paths = page, site_paths
    exporter.language_code = page.edition.code
    nb_node = read_notebook(page.source)
    resources = {
        "metadata": {"name": f"{page.entry.number}. {page.title}", "path": str(page.source.parent)},
        "course_bar": course_bar(page, available(page.entry)),
    }
    body, _ = exporter.from_notebook_node(nb_node, resources=resources)
    return body


@dataclass(frozen=True)
class _ReadmePage:
    """The README, as the index shows it: a page at the root of the site (for :func:`site_link`)."""

    repo_path: str = manifest.ENGLISH.readme
    site_path: str = INDEX

    @property
    def source(self) -> Path:
        return manifest.ROOT / self.repo_path


def _render_markdown(text: str, site_paths: dict[str, str], problems: list[str]) -> str:
    """Markdown of the README as HTML for the index: links to notebooks go to their pages."""
    renderer = _SiteRenderer(escape=False, page=_ReadmePage(), site_paths=site_paths, problems=problems)
    return MarkdownWithMath(renderer=renderer).render(text)


def _readme_intro(site_paths: dict[str, str], problems: list[str]) -> tuple[str, str, str]:
    """The README's title, its answer (notebook 0's verdict, between the answer markers) and the first
    paragraph after it, as HTML."""
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    text = (manifest.ROOT / "README.md").read_text(encoding="utf-8")
    title = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), "The course")
    answer = readme_answer(text)
    rest = ANSWER_BLOCK.sub("", text)
    # the first paragraph of prose: not a heading, a comment, or a line of links and badges
    paragraphs = [p.strip() for p in rest.split("\n\n")
                  if p.strip() and not p.lstrip().startswith(("#", "<!--", "[", "!["))]
    intro = _render_markdown(paragraphs[0], site_paths, problems) if paragraphs else ""
    answer_html = _render_markdown(answer, site_paths, problems) if answer else ""
    title_html = markdown2html_mistune(title).removeprefix("<p>").removesuffix("</p>\n").removesuffix("</p>")
    return title_html, answer_html, intro


INDEX_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; max-width: 60em;
  margin: 2em auto; padding: 0 1em; line-height: 1.5; color: #1d1d1f; }
table { border-collapse: collapse; width: 100%; margin: 1.5em 0; }
th, td { text-align: left; padding: 0.45em 0.8em; border-bottom: 1px solid #ddd; vertical-align: top; }
th { border-bottom: 2px solid #999; }
td.number { text-align: right; width: 2em; color: #666; }
.answer table { font-size: 0.95em; }
a { color: #0b57d0; text-decoration: none; }
a:hover { text-decoration: underline; }
.missing { color: #999; }
code { background: #f2f2f2; padding: 0 0.25em; border-radius: 3px; }
footer { margin-top: 2em; color: #666; font-size: 0.9em; }
"""


def render_index(site_pages: list[Page], problems: list[str] | None = None) -> str:
    """The home page: the README's title, its answer and opening, and the table of notebooks in every edition."""
    site_paths = {p.repo_path: p.site_path for p in site_pages}
    title, answer, intro = _readme_intro(site_paths, [] if problems is None else problems)
    by_key = {(p.entry.number, p.edition.code): p for p in site_pages}
    head = "".join(f'<th lang="{e.code}">{html.escape(e.name)}</th>' for e in EDITIONS)
    rows = []
    for entry in manifest.NOTEBOOKS:
        cells = [f'<td class="number">{entry.number}</td>']
        for edition in EDITIONS:
            page = by_key.get((entry.number, edition.code))
            if page is None:
                cells.append(f'<td class="missing" lang="{edition.code}">—</td>')
            else:
                cells.append(f'<td lang="{edition.code}"><a href="{page.site_path}" hreflang="{edition.code}">'
                             f"{html.escape(page.title)}</a></td>")
        cells.append(f'<td><a href="{html.escape(entry.colab_url)}">Open in Colab</a></td>')
        practice = [f'<span lang="{e.code}">{html.escape(e.name)}: <a href="{_practice_path(entry, e)}" download>'
                    f'.ipynb</a>, <a href="{html.escape(entry.in_edition(e.code).practice_colab_url)}">'
                    "Colab</a></span>" for e in available(entry)]
        cells.append(f"<td>{' · '.join(practice)}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{html.unescape(re.sub(r"<[^>]+>", "", title))}</title>
<style>{INDEX_STYLE}</style>
</head>
<body>
<h1>{title}</h1>
<div class="answer">
{answer}
</div>
{intro}
<table class="notebooks">
<thead><tr><th>#</th>{head}<th>Run it</th><th>Practice copy</th></tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody>
</table>
<p>A <em>practice copy</em> is the notebook with its outputs cleared and each exercise's answer replaced by a
stub for you to write; the checker under it tells you when you have it. Download one, or
<a href="{PRACTICE_ZIP}" download>all of them as one zip file</a>, and open it in JupyterLab or Colab
(its first cell fetches the course's helpers), or open it in Colab straight away.</p>
<footer>The executed notebooks of the course, rendered by <code>make site</code> from
<a href="{manifest.repo_url()}">{manifest.REPO_SLUG}</a>. Each page links to its other editions.</footer>
</body>
</html>
"""


def _practice_path(entry: Notebook, edition: Edition) -> str:
    return f"{PRACTICE}/{edition.subdir + '/' if edition.subdir else ''}{entry.filename}"


def write_practice_downloads(out_dir: Path) -> list[Path]:
    """The practice copies in ``out_dir/practice/``, one by one and zipped; returns the files written."""
    from .practice import write_practice

    copies = write_practice(out_dir / PRACTICE, published=True)
    archive = out_dir / PRACTICE_ZIP
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
        for path in copies:  # in the zip: nn-embedding-course-practice/01_....ipynb, .../zh/01_....ipynb
            bundle.write(path, f"{archive.stem}/{path.relative_to(out_dir / PRACTICE).as_posix()}")
    return [*copies, archive]


def build(out_dir: Path = SITE_DIR) -> list[Path]:
    """Write the site into ``out_dir``; returns the files written. Raises if anything could not be rendered."""
    site_pages = pages()
    site_paths = {p.repo_path: p.site_path for p in site_pages}
    exporter = make_exporter()
    exporter.problems = []
    written = []
    for page in site_pages:
        target = out_dir / page.site_path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render_page(exporter, page, site_paths), encoding="utf-8")
        written.append(target)
    written += write_practice_downloads(out_dir)
    index = out_dir / INDEX
    index.write_text(render_index(site_pages, exporter.problems), encoding="utf-8")
    written.append(index)
    for stale in out_dir.rglob("*.html"):  # pages of notebooks that are gone
        if stale not in written:
            stale.unlink()
    if exporter.problems:
        raise ValueError("the site has problems:\n" + "\n".join(exporter.problems))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m tools.website", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=SITE_DIR, help="where to write (default: build/site)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    written = build(args.out.resolve())
    index = args.out.resolve() / INDEX
    pages_written = [path for path in written if path.suffix == ".html"]
    print(f"wrote {len(pages_written) - 1} notebook page(s), the index and the practice copies in "
          f"{time.perf_counter() - start:.1f} s; "
          f"open {index.as_uri()}")
    return 0


if __name__ == "__main__":
    sys.exit(guard(main, "python -m tools.website"))
