"""Run every notebook in a named environment: ``python -m tools.versions NAME`` (``course.py versions NAME``).

``pinned`` (constraints.txt), ``oldest`` (requirements.txt's floors, Python 3.10), ``colab`` (:data:`COLAB`,
recorded here and nowhere else) or ``newest`` (no constraints, Python 3.13): each in its own venv,
``build/versions/NAME/venv``, made on first use and re-installed when its requirements change; there every
English notebook runs with :mod:`tools.run` (asserts hold, nothing on stderr). CONTRIBUTING.md, "Other
versions", says more.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from utils.cli import OneLineParser
from utils.env_check import read_requirements

from .cli import guard
from .manifest import ROOT

#: Google Colab's runtime as of 2026-11 (``!pip list`` in a fresh runtime). The packages
#: a notebook's kernel imports are pinned to Colab's versions; the rest (JupyterLab,
#: papermill, the test tools) are whatever requirements.txt resolves to.
COLAB = {"python": "3.12", "torch": "2.11.0", "numpy": "2.0.2", "matplotlib": "3.10.0", "ipykernel": "6.17.1"}

#: The packages whose versions the report shows.
REPORTED = ("torch", "numpy", "matplotlib", "ipykernel", "nbclient", "papermill")


@dataclass(frozen=True)
class Environment:
    name: str
    python: str  # "3.10", or "" for the Python running this command
    description: str
    folder = property(lambda self: ROOT / "build" / "versions" / self.name)


ENVIRONMENTS = {env.name: env for env in (
    Environment("pinned", "", "the lock, constraints.txt"),
    Environment("oldest", "3.10", "the floors of requirements.txt"),
    Environment("colab", COLAB["python"], "Google Colab's runtime (tools.versions.COLAB)"),
    Environment("newest", "3.13", "the newest releases, no constraints"),
)}


def constraints(name: str) -> str:
    """The pip constraints file's text for environment ``name``."""
    if name not in ENVIRONMENTS:
        raise ValueError(f"unknown environment {name!r}; expected one of {tuple(ENVIRONMENTS)}")
    if name in ("pinned", "newest"):
        return (ROOT / "constraints.txt").read_text(encoding="utf-8") if name == "pinned" else ""
    if name == "colab":
        return "".join(f"{package}=={version}\n" for package, version in COLAB.items() if package != "python")
    floors = []
    for requirement in read_requirements():
        lower = [spec.version for spec in requirement.specifier if spec.operator in (">=", "==", "~=")]
        if len(lower) != 1:
            raise ValueError(f"requirements.txt: {requirement} needs exactly one lower bound (>=) for the "
                             "oldest environment")
        floors.append(f"{requirement.name}=={lower[0]}\n")
    return "".join(floors)


def find_python(version: str) -> str:
    """An interpreter for ``version`` ("3.10"): ``python3.10`` on the PATH, else pyenv's; ``""``: this one."""
    if not version:
        return sys.executable
    candidates = [shutil.which(f"python{version}")]
    if shutil.which("pyenv"):  # pyenv resolves "3.10" to the newest 3.10.x it has installed
        found = subprocess.run(["pyenv", "which", f"python{version}"], capture_output=True, text=True,
                               env={**os.environ, "PYENV_VERSION": version})
        candidates.append(found.stdout.strip() if found.returncode == 0 else None)
    for candidate in candidates:
        if candidate and subprocess.run([candidate, "--version"], capture_output=True).returncode == 0:
            return candidate
    raise FileNotFoundError(f"no Python {version} found (looked for python{version} on the PATH and in pyenv); "
                            "install it, or pass --python PATH")


def install(env: Environment, python: str) -> Path:
    """Create (or update) the environment's venv with requirements.txt under its constraints; returns its python.
    course.py's installer, which re-installs only when the files change."""
    import course

    env.folder.mkdir(parents=True, exist_ok=True)
    (env.folder / "constraints.txt").write_text(constraints(env.name), encoding="utf-8")
    os.environ["PIP_CONSTRAINT"] = os.devnull  # the environment's constraints replace any machine-wide ones
    return course.ensure_venv(env.folder / "venv", False, str(env.folder / "constraints.txt"), base=python)


def installed_versions(python: Path) -> str:
    code = ("import platform; from importlib.metadata import version; "
            f"print(' '.join(['Python ' + platform.python_version()] + [n + ' ' + version(n) for n in {REPORTED!r}]))")
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m tools.versions", description=__doc__.splitlines()[0])
    parser.add_argument("name", choices=tuple(ENVIRONMENTS), help="the environment")
    parser.add_argument("--python", help="the interpreter for the venv (default: found for the environment)")
    parser.add_argument("notebooks", nargs="*", type=int, help="notebook numbers (default: all)")
    args = parser.parse_args(argv)

    env = ENVIRONMENTS[args.name]
    python = args.python or find_python(env.python)
    print(f"environment {env.name}: {env.description}")
    venv_python = install(env, python)
    print(installed_versions(venv_python), flush=True)
    run = [str(venv_python), "-m", "tools", "run", "--out", str(env.folder / "notebooks"),
           *map(str, args.notebooks)]
    return subprocess.run(run, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(guard(main, "python -m tools.versions"))
