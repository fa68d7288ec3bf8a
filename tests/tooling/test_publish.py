"""The practice copies reach learners who never clone: on the web site (to download, and zipped)
and on the practice branch that Colab opens (.github/workflows/pages.yml pushes it with
peaceiris/actions-gh-pages); every address comes from the manifest's REPO_SLUG."""

import json
import re
import subprocess

from tools import manifest, practice
from tools.manifest import NOTEBOOKS, REPO_SLUG, ROOT


def test_the_addresses_come_from_the_one_slug():
    owner, name = REPO_SLUG.split("/")
    assert manifest.site_url() == f"https://{owner.lower()}.github.io/{name}/"
    entry = NOTEBOOKS[0]
    assert entry.practice_colab_url == (f"https://colab.research.google.com/github/{REPO_SLUG}/blob/"
                                        f"{manifest.PRACTICE_REF}/{entry.repo_path}")
    assert manifest.blob_url("README.md") == f"https://github.com/{REPO_SLUG}/blob/{manifest.REPO_REF}/README.md"
    assert manifest.blob_url("notebooks") == f"https://github.com/{REPO_SLUG}/tree/{manifest.REPO_REF}/notebooks"


def test_a_published_copy_links_into_the_repository(tmp_path):
    entry = NOTEBOOKS[0]
    for edition in manifest.available(entry):
        nb = practice.practice_notebook(practice.read_notebook(edition.path(entry)), entry, edition, tmp_path,
                                        published=True)
        markdown = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
        targets = re.findall(r"\]\(\s*<?([^)\s>]+)", markdown)
        relative = [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:|#", t, re.I)]
        files = [t.partition("#")[0] for t in relative]  # a link to a cell: the file, then #cell-id=...
        # only other copies, which the practice branch lays out as the notebooks are: siblings, and the other edition
        assert files and all(f.endswith(".ipynb") and f.rpartition("/")[0] in ("", "zh", "..") for f in files)
        readme = manifest.ENGLISH.readme if edition.code == "en" else manifest.CHINESE.readme
        assert manifest.blob_url(readme) in markdown
        assert manifest.blob_url(edition.repo_path(entry)) in nb.cells[1].source  # the note: the worked answers


def test_the_practice_branch_holds_every_copy_at_its_notebooks_path(tmp_path):
    written = practice.write_branch(tmp_path / "branch")
    paths = {path.relative_to(tmp_path / "branch").as_posix() for path in written}
    expected = {edition.repo_path(entry) for entry in NOTEBOOKS for edition in manifest.available(entry)}
    assert paths == expected | {"README.md"}
    readme = (tmp_path / "branch" / "README.md").read_text(encoding="utf-8")
    for entry in NOTEBOOKS:
        assert entry.practice_colab_url in readme and entry.zh.practice_colab_url in readme
    copy = json.loads((tmp_path / "branch" / NOTEBOOKS[0].repo_path).read_text(encoding="utf-8"))
    assert all(cell.get("outputs", []) == [] for cell in copy["cells"])
    assert any("NotImplementedError" in "".join(cell["source"]) for cell in copy["cells"])


def _git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def test_the_github_address_is_written_only_in_the_manifest():
    """Everything else derives it: files written by hand never spell the slug (generated ones may)."""
    # their tables and addresses come from the manifest (INSTRUCTORS.md's in its BibTeX entry, from CITATION.cff)
    generated = {"README.md", "README.zh.md", "CITATION.cff", "INSTRUCTORS.md"}
    tracked = _git("ls-files", cwd=ROOT).splitlines()
    owner, name = REPO_SLUG.split("/")
    spelled = [path for path in tracked if path not in generated and not path.endswith(".ipynb")
               and path != "tools/manifest.py" and (ROOT / path).is_file()
               and re.search(rf"{re.escape(owner)}(/|\.github\.io/){re.escape(name)}",
                             (ROOT / path).read_text(encoding="utf-8", errors="replace"))]
    assert spelled == []
