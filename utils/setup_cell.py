"""What every notebook's set-up cell does once the course's ``utils`` is importable: say where the course
came from and, on Colab only, ``pip install -e`` the course when a package it needs (pyproject.toml's
``dependencies``) is missing. It never runs pip anywhere else."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path


def on_colab() -> bool:
    """Running in Google Colab (only Colab has ``google.colab``).

    Used by :func:`finish`.
    """
    try:
        import google.colab  # noqa: F401
    except ImportError:
        return False
    return True


def missing_packages(root: Path) -> list[str]:
    """The packages of the course's ``dependencies`` (its pyproject.toml) that do not import here.

    Used by :func:`finish`, on Colab.
    """
    import tomllib  # Python 3.11+: asked on Colab only, which runs 3.12

    needed = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    names = [re.match(r"[A-Za-z0-9_.-]+", requirement).group() for requirement in needed]
    return [name for name in names if importlib.util.find_spec(name) is None]


def finish(root: Path | None, fetched: bool) -> None:
    """Say where the course came from (``root``: its folder, None where it is installed), and on Colab
    pip-install it where a package it needs is missing.

    Used by the set-up cell of every notebook.
    """
    cwd = Path.cwd()
    if root is None:
        done = "the course is installed; nothing fetched"
    elif fetched:
        done = f"fetched the course into ./{root.name}"
    elif root in (cwd, *cwd.parents):
        done = "the course is in a folder above; nothing fetched"
    else:
        done = f"using the course fetched earlier into ./{root.name}"
    if root is not None and on_colab():
        missing = missing_packages(root)
        if missing:
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "-e", str(root)], check=True)
            done += "; pip-installed it, with " + ", ".join(missing)
    print("Set-up:", done)
