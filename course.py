#!/usr/bin/env python3
"""The course's commands on Linux, macOS and Windows: ``python course.py run``, ``python course.py test``.

For learners and maintainers; it needs only Python 3.10 or newer (no make, no shell). On first
use it creates the virtual environment ``.venv``, installs the tested versions into it
(``requirements.txt`` with the pins of ``constraints.txt``; ``test`` adds ``requirements-dev.txt``),
and runs the command with the Python inside it (``.venv/bin/python``, or
``.venv\\Scripts\\python.exe`` on Windows). Later runs reinstall only when those files change.
The Makefile's targets are one-line wrappers of these commands.

    python course.py run [--device cuda] [N ...]   every notebook headless, then a table (seconds, memory)
    python course.py test [PYTEST ARGS]            the test suite (e.g. `-m unit`, or one file)
    python course.py lab [--practice] [ARGS]       JupyterLab on notebooks/ (or on the practice copies);
                                                   other arguments go to JupyterLab: --port 8899 --no-browser
    python course.py practice                      practice copies in build/practice/
    python course.py site                          the offline web site in build/site/
    python course.py check                         the environment check (utils.env_check)
    python course.py install [--dev]               only set up .venv
    python course.py sync | execute | versions NAME | lock | clean    for maintainers (CONTRIBUTING.md)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path, PureWindowsPath

# standard library only (course.py runs with the system's Python, before .venv exists)
from tools.venvs import venv_python
from utils.cli import OneLineParser

ROOT = Path(__file__).resolve().parent
MIN_PYTHON = (3, 10)
REQUIREMENTS = "requirements.txt"
DEV_REQUIREMENTS = "requirements-dev.txt"
CONSTRAINTS = "constraints.txt"
#: what the venv was installed from (its files' hashes), inside the venv
STAMP = ".course-installed.json"
#: PyTorch's index of CPU-only wheels (Linux: PyPI's build brings the CUDA libraries too)
CPU_WHEELS = "https://download.pytorch.org/whl/cpu"
#: the commands that need the test suite's tools too
DEV_COMMANDS = ("test", "sync", "execute", "lock")

#: the list of commands, for --help
HELP = __doc__[__doc__.index("    python course.py run"):].rstrip()


# --- the operating systems ------------------------------------------------------------------

def is_store_python(executable: str) -> bool:
    """A Python from the Microsoft Store, or its ``python.exe`` alias in ``...\\Microsoft\\WindowsApps``
    (Jupyter has known trouble there: the Store redirects the files it keeps in %APPDATA%)."""
    parts = [part.lower() for part in PureWindowsPath(executable).parts]
    return "windowsapps" in parts or any(part.startswith("pythonsoftwarefoundation.python") for part in parts)


def is_root(platform: str = sys.platform) -> bool:
    """Running as root on Linux or macOS (JupyterLab refuses to start as root without --allow-root)."""
    return platform != "win32" and hasattr(os, "geteuid") and os.geteuid() == 0


def child_environment() -> dict[str, str]:
    """The environment for the programs run in the venv: UTF-8 files and output on every system
    (Windows would otherwise read the course's files and print its Chinese text in the console's code page)."""
    return {**os.environ, "PYTHONUTF8": "1", "PYTHONIOENCODING": "utf-8"}


# --- installing -----------------------------------------------------------------------------

def install_hash(files: list[Path]) -> str:
    """What an install depends on: the requirement and constraint files, and pip's index settings."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + (path.read_bytes() if path.is_file() else b"") + b"\0")
    for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"):
        digest.update(f"{name}={os.environ.get(name, '')}\0".encode())
    return digest.hexdigest()


def install_files(dev: bool, constraints: str) -> list[Path]:
    files = [ROOT / REQUIREMENTS] + ([ROOT / DEV_REQUIREMENTS] if dev else [])
    return files + ([ROOT / constraints] if constraints else [])


def is_installed(venv: Path, dev: bool, constraints: str) -> bool:
    """The venv has the packages these files ask for (a dev install serves a learner's command too)."""
    stamp = venv / STAMP
    if not venv_python(venv).exists() or not stamp.is_file():
        return False
    try:
        done = json.loads(stamp.read_text(encoding="utf-8"))
    except ValueError:
        return False
    wanted = {install_hash(install_files(dev, constraints))}
    if not dev:
        wanted.add(install_hash(install_files(True, constraints)))
    return done.get("hash") in wanted


def pip_command(python: Path, dev: bool, constraints: str) -> list[str]:
    command = [str(python), "-m", "pip", "install", "--upgrade", "--disable-pip-version-check",
               "-r", str(ROOT / (DEV_REQUIREMENTS if dev else REQUIREMENTS))]
    return command + (["-c", str(ROOT / constraints)] if constraints else [])


def first_install_notice(command: str, platform: str = sys.platform, environ: dict | None = None) -> str:
    """What a first install is about to download, said before it starts."""
    environ = os.environ if environ is None else environ
    lines = ["Installing the course into .venv: PyTorch, JupyterLab and their dependencies (about 1.3 GB "
             "on disk with PyTorch's CPU-only build). This takes some minutes; pip shows each download."]
    cpu = CPU_WHEELS in environ.get("PIP_INDEX_URL", "") + environ.get("PIP_EXTRA_INDEX_URL", "")
    if platform.startswith("linux") and not cpu:
        lines.append("On Linux, PyPI's PyTorch also brings NVIDIA's CUDA libraries: about 2.6 GB more to download "
                     "(3.8 GB more on disk). Without an NVIDIA GPU you do not need them: stop now (Ctrl+C) and run")
        lines.append(f"    PIP_EXTRA_INDEX_URL={CPU_WHEELS} python3 course.py {command}")
    return "\n".join(lines)


def ensure_venv(venv: Path, dev: bool, constraints: str, command: str = "run") -> Path:
    """Create and fill the venv when needed; returns its Python."""
    python = venv_python(venv)
    if is_installed(venv, dev, constraints):
        return python
    if is_store_python(sys.executable):
        print("Note: this Python comes from the Microsoft Store. If JupyterLab or the notebooks fail to start, "
              "install Python from python.org and run `py course.py ...` instead.")
    if not python.exists():
        print(first_install_notice(command), flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(pip_command(python, dev, constraints), check=True, cwd=ROOT, env=child_environment())
    (venv / STAMP).write_text(json.dumps({"hash": install_hash(install_files(dev, constraints))}) + "\n",
                              encoding="utf-8")
    return python


# --- the commands ---------------------------------------------------------------------------

def lab_arguments(extra: list[str], practice: bool, root: bool) -> tuple[list[str], str]:
    """JupyterLab's arguments, and a note to print (or ``""``). Extra arguments pass through."""
    folder = "build/practice" if practice else "notebooks"
    note = ""
    if root and "--allow-root" not in extra:
        extra = [*extra, "--allow-root"]
        note = "Running as root: passing --allow-root to JupyterLab (it refuses to start as root otherwise)."
    return ["-m", "jupyterlab", folder, *extra], note


def steps(command: str, args: list[str], *, root: bool = False, practice_ready: bool = True) -> list[list[str]]:
    """The program runs (arguments to the venv's Python) that ``command`` makes, in order."""
    if command == "run":
        return [["-m", "tools.run", *args]]
    if command == "test":
        return [["-m", "pytest", *args]]
    if command == "lab":
        practice = "--practice" in args
        lab, _ = lab_arguments([a for a in args if a != "--practice"], practice, root)
        return ([["-m", "tools.practice"]] if practice and not practice_ready else []) + [lab]
    if command == "practice":
        return [["-m", "tools.practice", *args]]
    if command == "site":
        return [["-m", "tools.website", *args]]
    if command == "check":
        return [["-m", "utils.env_check", *args]]
    if command == "sync":
        return [["-m", "tools.sync", *args]]
    if command == "execute":  # fresh outputs, then carry them into the Chinese edition
        return [["-m", "tools.run", "--in-place", *args], ["-m", "tools.sync"]]
    if command == "versions":
        return [["-m", "tools.versions", *args]]
    raise ValueError(f"unknown command {command!r}")


COMMANDS = ("run", "test", "lab", "practice", "site", "check", "install", "sync", "execute", "versions", "lock",
            "clean")


def lock(python: Path) -> int:
    """Pin constraints.txt anew for every supported Python at once (uv's universal resolver), torch held at
    the release it pins now (the tested one); its three header lines stay."""
    text = (ROOT / CONSTRAINTS).read_text(encoding="utf-8")
    torch_pin = next(line.split(";")[0].strip() for line in text.splitlines() if line.startswith("torch=="))
    build = ROOT / "build"
    build.mkdir(exist_ok=True)
    (build / "torch-pin.txt").write_text(torch_pin + "\n", encoding="utf-8")
    for step in (["-m", "pip", "install", "--quiet", "uv"],
                 ["-m", "uv", "pip", "compile", DEV_REQUIREMENTS, "-c", "build/torch-pin.txt", "--universal",
                  "--python-version", "3.10", "--no-header", "--quiet", "-o", "build/constraints.body.txt"]):
        code = run_program([str(python), *step])
        if code:
            return code
    header = "".join(text.splitlines(keepends=True)[:3])
    body = (build / "constraints.body.txt").read_text(encoding="utf-8")
    (ROOT / CONSTRAINTS).write_text(header + body, encoding="utf-8")
    return 0


def clean() -> None:
    """Remove build/ and the caches (the venv stays)."""
    for name in ("build", ".pytest_cache", ".ruff_cache"):
        shutil.rmtree(ROOT / name, ignore_errors=True)
    for folder in ROOT.rglob("__pycache__"):
        if ".venv" not in folder.relative_to(ROOT).parts:
            shutil.rmtree(folder, ignore_errors=True)


def run_program(command: list[str]) -> int:
    """Run a program in the venv and return its exit status. Ctrl+C reaches it too (same console):
    it stops in its own way (JupyterLab asks first), and this waits for it rather than killing it."""
    process = subprocess.Popen(command, cwd=ROOT, env=child_environment())
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:
            continue


def parse(argv: list[str]) -> argparse.Namespace:
    parser = OneLineParser(prog="python course.py", description=__doc__.splitlines()[0], epilog=HELP,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv", help="the virtual environment (default: .venv)")
    parser.add_argument("--constraints", default=CONSTRAINTS,
                        help="the pins to install with (default: constraints.txt; '' for the newest releases)")
    parser.add_argument("command", choices=COMMANDS, metavar="command", help=", ".join(COMMANDS))
    parser.add_argument("args", nargs=argparse.REMAINDER, help="passed on to the command's program")
    args = parser.parse_args(argv)
    if args.constraints and not (ROOT / args.constraints).is_file():
        parser.error(f"no constraints file {args.constraints!r}")
    if args.command == "install" and set(args.args) - {"--dev"}:
        parser.error(f"install takes only --dev; got {' '.join(args.args)}")
    return args


def main(argv: list[str] | None = None) -> int:
    if sys.version_info < MIN_PYTHON:
        print(f"course.py: the course needs Python {'.'.join(map(str, MIN_PYTHON))} or newer; this is "
              f"{sys.version.split()[0]} ({sys.executable}). Run it with a newer one, e.g. `py -3.12 course.py run` "
              "on Windows or `python3.12 course.py run`.", file=sys.stderr)
        return 2
    args = parse(sys.argv[1:] if argv is None else argv)
    if args.command == "clean":
        clean()
        return 0
    venv = args.venv.resolve()
    try:
        dev = args.command in DEV_COMMANDS or (args.command == "install" and "--dev" in args.args)
        python = ensure_venv(venv, dev, args.constraints, args.command)
        if args.command == "install":
            print(f"{venv} is ready: {python}")
            return 0
        if args.command == "lock":
            return lock(python)
        root = practice_ready = False
        if args.command == "lab":
            root, practice_ready = is_root(), any((ROOT / "build" / "practice").glob("*.ipynb"))
            _, note = lab_arguments(args.args, "--practice" in args.args, root)
            if note:
                print(note)
        for step in steps(args.command, args.args, root=root, practice_ready=practice_ready):
            code = run_program([str(python), *step])
            if code:
                return code
        return 0
    except subprocess.CalledProcessError as error:
        print(f"course.py: setting up {venv} failed: `{subprocess.list2cmdline(error.cmd)}` exited with "
              f"{error.returncode} (its output is above)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("course.py: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
