"""``python3 course.py sync``: regenerate everything derived from the manifest: each notebook's generated cells,
README.md's blocks, CITATION.cff and INSTRUCTORS.md (:mod:`tools.generated`), the Chinese edition
(:mod:`tools.translations`), the compiled interface catalog (:mod:`tools.interface`) and ``images/``
(:mod:`tools.images`). Idempotent. ``--check`` writes nothing and exits 1, listing the files a run would change."""

from pathlib import Path

from . import interface, manifest, translations
from .generated import BIBTEX, CITATION, INSTRUCTORS, bibtex, dumps_notebook, sync_citation, sync_readme
from .images import COURSE_IMAGES, write_course_images


def planned_text_files(english: translations.Edition | None = None,
                       chinese: translations.Edition | None = None) -> dict[Path, str]:
    """Every generated text file, as ``sync`` would write it (from ``english`` and ``chinese``, the notebooks
    as sync writes them, where the caller has built them already)."""
    english = english or translations.english_notebooks()
    chinese = chinese or translations.chinese_notebooks(english)
    planned = {entry.path: dumps_notebook(nb) for entry, nb in english.items()}
    readme = manifest.ENGLISH.readme_path
    planned[readme] = sync_readme(readme.read_text(encoding="utf-8"), notebook_0=english.get(manifest.notebook(0)))
    citation, instructors = manifest.ROOT / CITATION, manifest.ROOT / INSTRUCTORS
    if citation.is_file():  # (a scratch copy of the course in the tests may have none)
        planned[citation] = sync_citation(citation.read_text(encoding="utf-8"))
        if instructors.is_file():
            planned[instructors] = BIBTEX.fill(instructors.read_text(encoding="utf-8"), bibtex(planned[citation]),
                                               INSTRUCTORS)
    planned.update(translations.planned_chinese_files(english, chinese))
    return planned


def changed_files(english=None, chinese=None) -> dict[Path, str | bytes]:
    """The generated files whose content differs from what sync writes (text; the compiled catalog as bytes)."""
    mo_path, mo = interface.planned_mo()
    planned: dict[Path, str | bytes] = {**planned_text_files(english, chinese), mo_path: mo}
    return {path: content for path, content in planned.items() if not path.is_file() or content != (
        path.read_bytes() if isinstance(content, bytes) else path.read_text(encoding="utf-8"))}


def stale_files() -> list[str]:
    """Repository paths that ``sync`` would change (images by name only: their bytes depend on matplotlib's
    version)."""
    present = {path.name for path in manifest.IMAGE_DIR.glob("*.png")}
    return [str(path.relative_to(manifest.ROOT)) for path in changed_files()] + [
        f"images/{name}" for name in sorted(present ^ set(COURSE_IMAGES))]


def sync(check: bool = False) -> int:
    """Write every generated file that differs; ``check``: write nothing, list them and return 1 if any."""
    if check:
        if stale := stale_files():
            print("\n".join(f"out of date: {path}" for path in stale) + "\nrun `make sync` and commit the result")
        return 1 if stale else 0
    english = translations.english_notebooks()  # each notebook built once, for the files and the check below
    chinese = translations.chinese_notebooks(english)
    for path, content in changed_files(english, chinese).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        print(f"updated {path.relative_to(manifest.ROOT)}")
    for stray in manifest.IMAGE_DIR.glob("*.png"):
        if stray.name not in COURSE_IMAGES:
            stray.unlink()
            print(f"removed images/{stray.name}")
    write_course_images(manifest.IMAGE_DIR)
    # translations that a person must write or update (sync never clears a fuzzy flag)
    if problems := translations.check(None, english, chinese):
        kinds = ", ".join(sorted({problem.kind for problem in problems}))
        print(f"Chinese edition: {len(problems)} translation problem(s) ({kinds}); `python -m tools.translations "
              "check` lists them, and the tests fail until a person fixes them")
    else:
        print("Chinese edition: every translation is present and up to date")
    return 0
