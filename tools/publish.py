"""The practice copies for learners who never clone: ``python -m tools.publish FOLDER [--push]``.

Writes the tree of the practice branch (``manifest.PRACTICE_REF``) into FOLDER: every practice
copy at its notebook's path (``notebooks/01_....ipynb``, ``notebooks/zh/...``), so that each
one opens in Colab at ``manifest.colab_url(path, PRACTICE_REF)``, and a README that says what
the branch is. ``--push`` commits that tree as the branch's one commit and force-pushes it
to the repository's ``origin`` (the site's workflow, .github/workflows/pages.yml, does this
on every push to main). The web site offers the same copies for download (tools/website.py).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from utils.cli import OneLineParser

from . import manifest
from .cli import guard
from .practice import write_practice

BRANCH_README = """\
# Practice copies of the course

This branch is generated from `{ref}` by the site's workflow on every push; do not edit it.
Each notebook here is a practice copy: outputs cleared, and each exercise's answer replaced by a
stub for you to write. Open one in Colab:

{table}

The course itself, with the worked answers: {repo}. Its web site: {site}.
"""


def write_branch(folder: Path) -> list[Path]:
    """The practice branch's files in ``folder`` (copies left from an earlier build are removed by
    :func:`.practice.write_practice`); returns them."""
    written = write_practice(folder / manifest.ENGLISH.repo_dir, published=True)
    rows = [f"- [{entry.number}. {entry.title}]({entry.practice_colab_url}) · "
            f"[{entry.zh.display_title}]({entry.zh.practice_colab_url})" for entry in manifest.NOTEBOOKS]
    readme = folder / "README.md"
    readme.write_text(BRANCH_README.format(ref=manifest.REPO_REF, table="\n".join(rows), repo=manifest.repo_url(),
                                           site=manifest.site_url()), encoding="utf-8")
    return [*written, readme]


def push_branch(folder: Path, repo: Path = manifest.ROOT, remote: str = "origin",
                ref: str = manifest.PRACTICE_REF) -> str:
    """Commit ``folder`` as the only commit of branch ``ref`` and force-push it from ``repo`` to ``remote``.

    The commit is made in a repository of its own inside ``folder``, then fetched into ``repo``
    and pushed from there, with ``repo``'s credentials (in CI, those actions/checkout set up).
    Returns the commit's id."""
    def git(*args: str, cwd: Path = folder) -> str:
        return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()

    shutil.rmtree(folder / ".git", ignore_errors=True)  # one commit, never a history
    git("init", "--quiet")
    git("checkout", "--quiet", "-B", ref)
    git("add", "--all")
    source = git("rev-parse", "--short", "HEAD", cwd=repo)
    git("-c", "user.name=course publisher", "-c", "user.email=publisher@users.noreply.github.com",
        "-c", "commit.gpgsign=false", "commit", "--quiet", "--allow-empty", "-m", f"Practice copies of {source}")
    git("fetch", "--quiet", str(folder.resolve()), ref, cwd=repo)
    git("push", "--quiet", "--force", remote, f"FETCH_HEAD:refs/heads/{ref}", cwd=repo)
    return git("rev-parse", "HEAD")


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m tools.publish", description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="where to write the practice branch's tree")
    parser.add_argument("--push", action="store_true", help=f"commit it as branch {manifest.PRACTICE_REF!r} and "
                        "force-push it to origin")
    args = parser.parse_args(argv)
    written = write_branch(args.folder)
    print(f"wrote {len(written)} files of the practice branch into {args.folder}")
    if args.push:
        commit = push_branch(args.folder)
        print(f"pushed {commit[:12]} to origin as branch {manifest.PRACTICE_REF!r}")
    return 0


if __name__ == "__main__":
    sys.exit(guard(main, "python -m tools.publish"))
