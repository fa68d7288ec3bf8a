"""What every notebook's set-up cell does once the course's ``utils`` is importable: choose the edition's
language, say where the course came from and, on Colab only, ``pip install -e`` the course when a package it
needs (pyproject.toml's ``dependencies``) is missing. It never runs pip anywhere else."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

from .language import _, use


def on_colab() -> bool:
    """Used by :func:`finish`: whether this runs in Google Colab (only Colab has ``google.colab``)."""
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


def finish(root: Path | None, fetched: bool, language_code: str = "en") -> None:
    """Speak the notebook's language (``language_code``), say where the course came from (``root``: its folder,
    None where it is installed), and on Colab pip-install it where a package it needs is missing.

    Used by the set-up cell of every notebook.
    """
    use(language_code)
    cwd = Path.cwd()
    if root is None:
        done = _("the course is installed; nothing fetched")
    elif fetched:
        done = _("fetched the course into ./{folder}").format(folder=root.name)
    elif root in (cwd, *cwd.parents):
        done = _("the course is in a folder above; nothing fetched")
    else:
        done = _("using the course fetched earlier into ./{folder}").format(folder=root.name)
    if root is not None and on_colab():
        missing = missing_packages(root)
        if missing:
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "-e", str(root)], check=True)
            done = _("{done}; pip-installed it, with {packages}").format(done=done, packages=", ".join(missing))
    print(_("Set-up: {done}").format(done=done))
