"""The course manifest: the one place that lists the notebooks and the repository.

Everything generated (notebook headers and navigation, Colab badges, the README's
table of notebooks, the set-up cell's download address) is derived from the
constants here by ``python -m utils.sync``. To add a notebook, add an entry to
``NOTEBOOKS`` and run ``make sync``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: ``owner/name`` of the GitHub repository. The only place it is written: every
#: Colab badge, Binder link and the Colab set-up cell are generated from it.
REPO_SLUG = "embedding-course/nn-embedding-course"

#: The git ref that Colab badges open and the set-up cell fetches.
REPO_REF = "main"

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
IMAGE_DIR = ROOT / "images"


@dataclass(frozen=True)
class Notebook:
    """One notebook of the course, as the manifest lists it."""

    number: int
    stem: str  # file name without ``.ipynb``, e.g. ``01_one_hot_matmul``
    title: str

    @property
    def filename(self) -> str:
        return f"{self.stem}.ipynb"

    @property
    def path(self) -> Path:
        """Absolute path of the English notebook."""
        return NOTEBOOK_DIR / self.filename

    @property
    def repo_path(self) -> str:
        """Path inside the repository, with forward slashes."""
        return f"notebooks/{self.filename}"

    @property
    def colab_url(self) -> str:
        return colab_url(self.repo_path)


NOTEBOOKS: tuple[Notebook, ...] = (
    Notebook(1, "01_one_hot_matmul", "One-hot vectors and the matrix product that only selects"),
    # --- notebooks 4 and 5 (branch nb4-5) ---
    Notebook(4, "04_gradients", "Gradients: what training touches"),
    Notebook(5, "05_initialisation", "Initialisation, in histograms"),
)


def repo_url() -> str:
    """HTTPS address of the repository (what ``git clone`` takes)."""
    return f"https://github.com/{REPO_SLUG}"


def colab_url(repo_path: str) -> str:
    """Address that opens ``repo_path`` (a notebook in the repository) in Colab."""
    if repo_path.startswith("/") or not repo_path.endswith(".ipynb"):
        raise ValueError(
            f"expected a notebook path relative to the repository root, ending in .ipynb; got {repo_path!r}"
        )
    return f"https://colab.research.google.com/github/{REPO_SLUG}/blob/{REPO_REF}/{repo_path}"


def binder_url() -> str:
    """Address that starts the repository on mybinder.org (uses environment.yml)."""
    return f"https://mybinder.org/v2/gh/{REPO_SLUG}/{REPO_REF}?urlpath=lab/tree/notebooks"


def notebook(number: int) -> Notebook:
    """The manifest entry with this number."""
    for nb in NOTEBOOKS:
        if nb.number == number:
            return nb
    known = ", ".join(str(nb.number) for nb in NOTEBOOKS)
    raise ValueError(f"there is no notebook {number} in the manifest (known: {known})")
