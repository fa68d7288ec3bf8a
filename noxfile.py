"""Every notebook in another release of its packages: one nox session per environment.

``nox -s oldest`` (or ``python3 course.py versions oldest``; ``-- 3 5`` runs notebooks 3 and 5 only):
``pinned`` (constraints.txt, the Python running nox), ``oldest`` (requirements.txt's floors, Python 3.10),
``colab`` (:data:`COLAB`, recorded here and nowhere else) or ``newest`` (no constraints, Python 3.13).
Each session installs requirements.txt into its own venv (``build/nox/NAME``, kept between runs) and
runs every English notebook with `python -m tools run` (asserts hold, nothing on stderr); the executed
notebooks go to ``build/versions/NAME/notebooks``. CONTRIBUTING.md, "Other versions", says more.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nox

sys.path.insert(0, str(Path(__file__).parent))  # the course's own packages, from any folder
from utils.env_check import read_requirements  # noqa: E402

nox.options.default_venv_backend = "uv|venv"  # uv where it is installed, else the standard library's venv
nox.options.envdir = "build/nox"
nox.options.reuse_venv = "yes"  # the install below brings a kept venv up to date
nox.options.sessions = []  # `nox` alone lists the sessions: each one installs a whole environment

#: Google Colab's runtime as of 2026-11 (``!pip list`` in a fresh runtime). The packages a notebook's
#: kernel imports are pinned to Colab's versions; the rest (JupyterLab, papermill) are whatever
#: requirements.txt resolves to.
COLAB = {"python": "3.12", "torch": "2.11.0", "numpy": "2.0.2", "matplotlib": "3.10.0", "ipykernel": "6.17.1"}
#: The packages whose versions a session prints.
REPORTED = ("torch", "numpy", "matplotlib", "ipykernel", "nbclient", "papermill")

if shutil.which("pyenv") and "PYENV_VERSION" not in os.environ:  # pyenv's shims then find each installed Python
    bare = subprocess.run(["pyenv", "versions", "--bare"], capture_output=True, text=True).stdout.split()
    os.environ["PYENV_VERSION"] = ":".join(sorted(bare, key=lambda v: v.startswith("2.")))


def floors() -> str:
    """requirements.txt's lower bounds as pins: the oldest environment's constraints."""
    pins = []
    for requirement in read_requirements():
        lower = [spec.version for spec in requirement.specifier if spec.operator in (">=", "==", "~=")]
        if len(lower) != 1:
            raise ValueError(f"requirements.txt: {requirement} needs exactly one lower bound (>=) for the "
                             "oldest environment")
        pins.append(f"{requirement.name}=={lower[0]}\n")
    return "".join(pins)


def run_notebooks(session: nox.Session, constraints: str | None) -> None:
    """Install requirements.txt under ``constraints`` (a file's text; None: constraints.txt), then run the
    notebooks. The environment's constraints replace any machine-wide ones (PIP_CONSTRAINT, pip.conf)."""
    folder = Path("build", "versions", session.name)
    folder.mkdir(parents=True, exist_ok=True)
    pins = Path("constraints.txt")
    if constraints is not None:
        pins = folder / "constraints.txt"
        pins.write_text(constraints, encoding="utf-8")
    session.install("--upgrade", "-r", "requirements.txt", "-c", str(pins), env={"PIP_CONSTRAINT": os.devnull})
    session.run("python", "-c", "import platform; from importlib.metadata import version; print(' '.join("
                f"['Python ' + platform.python_version()] + [n + ' ' + version(n) for n in {REPORTED!r}]))")
    session.run("python", "-m", "tools", "run", "--out", str(folder / "notebooks"), *session.posargs)


@nox.session
def pinned(session: nox.Session) -> None:
    """the lock, constraints.txt"""
    run_notebooks(session, None)


@nox.session(python="3.10")
def oldest(session: nox.Session) -> None:
    """the floors of requirements.txt"""
    run_notebooks(session, floors())


@nox.session(python=COLAB["python"])
def colab(session: nox.Session) -> None:
    """Google Colab's runtime (COLAB in noxfile.py)"""
    run_notebooks(session, "".join(f"{name}=={version}\n" for name, version in COLAB.items() if name != "python"))


@nox.session(python="3.13")
def newest(session: nox.Session) -> None:
    """the newest releases, no constraints"""
    run_notebooks(session, "")
