#!/usr/bin/env python3
"""The course's commands on Linux, macOS and Windows: ``python3 course.py run`` (``py course.py run`` on Windows).

For learners and maintainers; it needs only Python 3.10 or newer (no make, no shell). On first
use it creates the virtual environment ``.venv``, installs the tested versions into it
(``requirements.txt`` with the pins of ``constraints.txt``; ``test`` adds ``requirements-dev.txt``),
and runs the command with the Python inside it (``.venv/bin/python``, or
``.venv\\Scripts\\python.exe`` on Windows). Later runs reinstall only when those files change.
The Makefile's targets are one-line wrappers of these commands.

PyTorch's build is chosen for the machine: where PyTorch's own index answers, uv installs it with
``--torch-backend auto`` (the CUDA build where it finds an NVIDIA driver, the CPU-only build where it
finds none; ``UV_TORCH_BACKEND`` chooses another); elsewhere, or where ``PIP_INDEX_URL`` or
``PIP_EXTRA_INDEX_URL`` is set, pip installs from the indexes pip is configured with (PyPI's build).

    python3 course.py run [--device cpu] [N ...]    the notebooks 0 to 9 (or those numbered), headless, then a table
    python3 course.py lab [--practice] [ARGS]       JupyterLab on the notebooks (or the practice copies);
                                                    JupyterLab's options pass through: --port 8899 --no-browser
    python3 course.py test [PYTEST ARGS]            the test suite (e.g. `tests/unit`, or one file)
    python3 course.py practice                      practice copies in build/practice/
    python3 course.py site                          the offline web site in build/site/
    python3 course.py check                         the environment check (utils.env_check)
    python3 course.py install [--dev]               only set up .venv
    python3 course.py sync | execute | versions NAME | lock | clean    for maintainers (CONTRIBUTING.md)
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
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
#: held by the command that installs into the venv, inside the venv: a second command waits for it
LOCK = ".course-install.lock"
#: PyTorch's index of CPU-only wheels (Linux: PyPI's build brings the CUDA libraries too)
CPU_WHEELS = "https://download.pytorch.org/whl/cpu"
#: how long PyTorch's own index may take to answer before the install goes to PyPI with pip
PROBE_SECONDS = 3.0
#: uv, which picks PyTorch's build for the machine (``--torch-backend`` is stable from 0.7.14)
UV = "uv>=0.8"
#: the CUDA build a learner without an NVIDIA driver can ask for (PyPI's Linux build of the pinned torch)
CUDA_BACKEND = "cu130"
#: the commands that need the test suite's tools too
DEV_COMMANDS = ("test", "sync", "execute", "lock", "versions")
COMMANDS = ("run", "test", "lab", "practice", "site", "check", "install", "sync", "execute", "versions", "lock",
            "clean")


# --- the learner's words ----------------------------------------------------------------------

def course_command(platform: str = sys.platform) -> str:
    """How the learner runs this file: ``py course.py`` on Windows (the launcher), ``python3 course.py``
    elsewhere (Debian and Ubuntu have no ``python``)."""
    return "py course.py" if platform == "win32" else "python3 course.py"


PROG = course_command()


def command_list(prog: str = PROG) -> str:
    """The list of commands (the docstring's), in the learner's words, aligned."""
    rows = []
    for line in __doc__[__doc__.index("    python3 course.py run"):].rstrip().splitlines():
        usage, _, description = line.strip().partition("  ") if "course.py" in line else ("", "", line)
        rows.append((usage.replace("python3 course.py", prog), description.strip()))
    width = max(len(usage) for usage, _ in rows if len(usage) < 50) + 3  # the maintainers' line is longer
    return "\n".join(f"    {usage:<{width}}{description}" if len(usage) < 50 else f"    {usage}  {description}"
                      for usage, description in rows)


#: the list of commands, for --help
HELP = command_list()


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


class Stop(Exception):
    """A slip the learner can fix: its one line says what to do (printed as ``course.py: ...``, exit 1)."""


# --- installing -----------------------------------------------------------------------------

def install_hash(files: list[Path]) -> str:
    """What an install depends on: the requirement and constraint files, and the index settings."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + (path.read_bytes() if path.is_file() else b"") + b"\0")
    for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"):
        digest.update(f"{name}={os.environ.get(name, '')}\0".encode())
    if os.environ.get("UV_TORCH_BACKEND"):  # only when set: the installs made before it stay valid
        digest.update(f"UV_TORCH_BACKEND={os.environ['UV_TORCH_BACKEND']}\0".encode())
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


def requirement_arguments(dev: bool, constraints: str) -> list[str]:
    return ["-r", str(ROOT / (DEV_REQUIREMENTS if dev else REQUIREMENTS))] + (
        ["-c", str(ROOT / constraints)] if constraints else [])


def pip_command(python: Path, dev: bool, constraints: str) -> list[str]:
    return [str(python), "-m", "pip", "install", "--upgrade", "--disable-pip-version-check",
            *requirement_arguments(dev, constraints)]


def uv_command(python: Path, dev: bool, constraints: str, backend: str = "auto") -> list[str]:
    """uv's install of the same files into the venv, PyTorch's build chosen by ``--torch-backend``."""
    return [str(python), "-m", "uv", "pip", "install", "--python", str(python), "--torch-backend", backend,
            *requirement_arguments(dev, constraints)]


def answers(url: str, seconds: float = PROBE_SECONDS) -> bool:
    """Whether ``url`` answers within ``seconds``, name look-up included (the probe runs in a thread that is
    not waited for longer, since a look-up can hang past any socket timeout). An HTTP error is an answer."""
    result: list[bool] = []

    def probe() -> None:
        try:
            urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=seconds).close()
            result.append(True)
        except urllib.error.HTTPError:
            result.append(True)
        except (OSError, ValueError):
            result.append(False)

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    thread.join(seconds)
    return bool(result and result[0])


def choose_installer(environ: dict | None = None, probe=answers) -> tuple[str, str]:
    """``("uv", "")`` where PyTorch's own index answers, so that uv picks the build for this machine;
    else ``("pip", why)``: pip with the indexes it is configured with, and the one line that says why.
    An index the learner set for pip (``PIP_INDEX_URL``, ``PIP_EXTRA_INDEX_URL``) is kept: pip, silently."""
    environ = os.environ if environ is None else environ
    if environ.get("PIP_INDEX_URL") or environ.get("PIP_EXTRA_INDEX_URL"):
        return "pip", ""
    if not probe(CPU_WHEELS + "/"):
        return "pip", (f"course.py: PyTorch's own index (download.pytorch.org) did not answer within "
                       f"{PROBE_SECONDS:g} s, so pip installs PyTorch from PyPI instead (the build pip finds there).")
    return "uv", ""


def build_note(torch_version: str, platform: str = sys.platform, environ: dict | None = None) -> str:
    """The one line, after uv's install, that says which build of PyTorch it chose and how to ask for the other."""
    environ = os.environ if environ is None else environ
    local = torch_version.partition("+")[2]
    if environ.get("UV_TORCH_BACKEND"):
        return f"course.py: installed PyTorch {torch_version} (UV_TORCH_BACKEND={environ['UV_TORCH_BACKEND']})."
    if local == "cpu":
        ask = (f'$env:UV_TORCH_BACKEND="{CUDA_BACKEND}"; py course.py install' if platform == "win32" else
               f"rm -rf .venv && UV_TORCH_BACKEND={CUDA_BACKEND} python3 course.py install")
        return (f"course.py: no NVIDIA driver found, so PyTorch's CPU-only build was installed ({torch_version}, "
                f"4.0 GB less on disk than the CUDA build). For the CUDA build: delete .venv and run `{ask}`.")
    if local.startswith("cu"):
        return f"course.py: an NVIDIA driver was found, so PyTorch's CUDA build was installed ({torch_version})."
    return f"course.py: installed PyTorch {torch_version}." if torch_version else ""


def first_install_notice(installer: str, platform: str = sys.platform) -> str:
    """What a first install is about to download, said before it starts."""
    lines = ["Installing the course into .venv: PyTorch, JupyterLab and their dependencies (about 1.3 GB "
             "on disk with PyTorch's CPU-only build). This takes some minutes and shows each download."]
    if installer == "uv":
        lines.append("uv picks PyTorch's build for this machine: the CUDA build if it finds an NVIDIA driver, "
                     "else the CPU-only build.")
    elif platform.startswith("linux"):
        lines.append("pip takes PyTorch from the indexes it is configured with; PyPI's Linux build brings NVIDIA's "
                     "CUDA libraries (about 2.5 GB more to download); README.md, *Start*, says how to take the "
                     "CPU-only build.")
    return "\n".join(lines)


@contextmanager
def install_lock(venv: Path) -> Iterator[None]:
    """Held while this command installs into ``venv``; a second command waits here, saying so in one line.
    The operating system releases it when the process ends, however it ends."""
    venv.mkdir(parents=True, exist_ok=True)
    with open(venv / LOCK, "a+b") as file:
        if not _try_lock(file):
            print("course.py: another course.py command is installing the course into .venv; waiting for it to "
                  "finish (Ctrl+C stops waiting).", flush=True)
            while not _try_lock(file):
                time.sleep(0.5)
        yield


def _try_lock(file) -> bool:
    try:
        if sys.platform == "win32":
            import msvcrt

            file.seek(0)
            msvcrt.locking(file.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def can_make_pip(python: str) -> bool:
    """Whether ``python`` can put pip into a venv (Debian and Ubuntu leave out ``ensurepip`` until
    ``python3-venv`` is installed)."""
    return subprocess.run([python, "-c", "import ensurepip"], capture_output=True).returncode == 0


def has_pip(python: Path) -> bool:
    return subprocess.run([str(python), "-m", "pip", "--version"], capture_output=True).returncode == 0


#: the one line for a Python that cannot put pip into a venv
NO_ENSUREPIP = ("this Python cannot put pip into a virtual environment: install python3-venv "
                "(`sudo apt install python3-venv` on Debian and Ubuntu), then run the command again.")


def ensure_pip(venv: Path, python: Path) -> None:
    """Create the venv, or give a pip-less one its pip (what ``python3 -m venv`` leaves on Debian and Ubuntu
    without ``python3-venv``); a Python that cannot is a :class:`Stop` that says to install ``python3-venv``."""
    if not python.exists():
        if not can_make_pip(sys.executable):
            raise Stop(NO_ENSUREPIP)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    elif not has_pip(python):
        if not can_make_pip(str(python)):
            raise Stop(f".venv has no pip, and {NO_ENSUREPIP}")
        print("course.py: .venv has no pip (a virtual environment made without it); adding it with ensurepip.",
              flush=True)
        subprocess.run([str(python), "-m", "ensurepip", "--upgrade", "--default-pip"], check=True,
                       stdout=subprocess.DEVNULL)


def install(python: Path, dev: bool, constraints: str, installer: str, why: str) -> None:
    """Install the course's packages: with uv where it can pick PyTorch's build, else (or if uv fails) with pip."""
    environment = child_environment()
    if installer == "uv":
        uv_ok = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", UV],
                               cwd=ROOT, env=environment).returncode == 0
        if uv_ok and subprocess.run(uv_command(python, dev, constraints, os.environ.get("UV_TORCH_BACKEND", "auto")),
                                    cwd=ROOT, env=environment).returncode == 0:
            version = subprocess.run([str(python), "-c", "from importlib.metadata import version; "
                                      "print(version('torch'))"], capture_output=True, text=True).stdout.strip()
            note = build_note(version)
            if note:
                print(note)
            return
        if not python.exists():
            return  # the venv is gone: said by the caller
        why = "course.py: uv could not install the course (its output is above), so pip installs it instead."
    if why:
        print(why, flush=True)
    subprocess.run(pip_command(python, dev, constraints), check=True, cwd=ROOT, env=environment)


def ensure_venv(venv: Path, dev: bool, constraints: str, probe=answers) -> Path:
    """Create and fill the venv when needed, one command at a time; returns its Python."""
    python = venv_python(venv)
    if is_installed(venv, dev, constraints):
        return python
    with install_lock(venv):
        if is_installed(venv, dev, constraints):  # another command installed it while this one waited
            return python
        if is_store_python(sys.executable):
            print("Note: this Python comes from the Microsoft Store. If JupyterLab or the notebooks fail to start, "
                  "install Python from python.org and run `py course.py ...` instead.")
        first = not python.exists()
        ensure_pip(venv, python)
        installer, why = choose_installer(probe=probe)
        if first:
            print(first_install_notice(installer), flush=True)
        install(python, dev, constraints, installer, why)
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


#: the options of ``lab`` that need no look-up: the course's own, and JupyterLab's common ones
LAB_OPTIONS = {"practice", "port", "no-browser", "ip", "allow-root", "help", "help-all", "version", "debug"}
#: prints JupyterLab's own options (its flags and aliases), one a line
LAB_OPTIONS_SCRIPT = ("from jupyterlab.labapp import LabApp\n"
                      "for key in [*LabApp.flags, *LabApp.aliases]:\n"
                      "    print(*(key if isinstance(key, tuple) else (key,)), sep='\\n')")


def lab_options(python: Path) -> set[str] | None:
    """JupyterLab's options in this venv, without dashes (None if they cannot be read)."""
    try:
        result = subprocess.run([str(python), "-c", LAB_OPTIONS_SCRIPT], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    return set(result.stdout.split()) if result.returncode == 0 else None


def lab_option_problem(args: list[str], known=None) -> str:
    """The one line for a ``--`` option that neither the course nor JupyterLab has (``""`` if none), said
    before JupyterLab starts; ``known()`` gives JupyterLab's options (None: not checked, only the course's)."""
    unknown = [arg for arg in args if arg.startswith("--") and len(arg) > 2
               and "." not in arg.partition("=")[0]  # --ServerApp.token=...: any of its settings
               and arg[2:].partition("=")[0].replace("_", "-") not in LAB_OPTIONS]
    if not unknown:
        return ""
    names = (known() if known else None) or set()
    options = LAB_OPTIONS | {name.replace("_", "-") for name in names}
    for arg in unknown:
        name = arg[2:].partition("=")[0].replace("_", "-")
        if name in options or (not names and not difflib.get_close_matches(name, ["practice"], 1, 0.75)):
            continue
        close = difflib.get_close_matches(name, sorted(options), 1, 0.75)
        hint = f"did you mean --{close[0]}? " if close else ""
        return f"{PROG} lab: unknown option {arg}; {hint}(`{PROG} lab --help` lists JupyterLab's options)"
    return ""


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
        return [["-m", "nox", "-s", *args[:1], "--", *args[1:]]]  # noxfile.py: one session per environment
    raise ValueError(f"unknown command {command!r}")


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


#: the signals that end course.py and, passed on, the program it runs (``kill PID``; a closed terminal)
FORWARDED = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def run_program(command: list[str], env: dict[str, str] | None = None) -> int:
    """Run a program in the venv and return its exit status. Ctrl+C reaches it too (same console):
    it stops in its own way (JupyterLab asks first), and this waits for it rather than killing it.
    ``kill`` of course.py (SIGTERM, SIGHUP) is passed on to the program, and waited for: JupyterLab
    stops with its launcher instead of serving on alone."""
    process = subprocess.Popen(command, cwd=ROOT, env=env or child_environment())

    def forward(signum, frame) -> None:
        process.send_signal(signum)

    previous = {number: signal.signal(number, forward) for number in FORWARDED}
    try:
        while True:
            try:
                return process.wait()
            except KeyboardInterrupt:
                continue
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = OneLineParser(prog=PROG, description=__doc__.splitlines()[0], epilog="commands:\n" + HELP,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv", help="the virtual environment (default: .venv)")
    parser.add_argument("--constraints", default=CONSTRAINTS,
                        help="the pins to install with (default: constraints.txt; '' for the newest releases)")
    parser.add_argument("command", nargs="?", choices=COMMANDS, metavar="command", help=", ".join(COMMANDS))
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
    if args.command is None:
        print(f"{PROG} needs a command; to start, `{PROG} lab` opens the notebooks in JupyterLab. The commands:\n"
              f"{HELP}", file=sys.stderr)
        return 2
    if args.command == "clean":
        clean()
        return 0
    venv = args.venv.resolve()
    try:
        dev = args.command in DEV_COMMANDS or (args.command == "install" and "--dev" in args.args)
        python = ensure_venv(venv, dev, args.constraints)
        if args.command == "install":
            print(f"{venv} is ready: {python}")
            return 0
        if args.command == "lock":
            return lock(python)
        root = practice_ready = False
        if args.command == "lab":
            problem = lab_option_problem(args.args, lambda: lab_options(python))
            if problem:
                print(problem, file=sys.stderr)
                return 2
            root, practice_ready = is_root(), any((ROOT / "build" / "practice").glob("*.ipynb"))
            _, note = lab_arguments(args.args, "--practice" in args.args, root)
            if note:
                print(note)
        # tools.run names the command the learner typed in its messages
        env = {**child_environment(), "COURSE_COMMAND": f"{PROG} run"} if args.command == "run" else None
        for step in steps(args.command, args.args, root=root, practice_ready=practice_ready):
            code = run_program([str(python), *step], env)
            if code:
                return code
        return 0
    except Stop as stop:
        print(f"course.py: {stop}", file=sys.stderr)
        return 1
    except (subprocess.CalledProcessError, OSError) as error:
        if not venv_python(venv).exists():
            print(f"course.py: {venv.name} was deleted during the install; run the command again to install the "
                  "course afresh.", file=sys.stderr)
            return 1
        if isinstance(error, subprocess.CalledProcessError):
            print(f"course.py: setting up {venv} failed: `{subprocess.list2cmdline(error.cmd)}` exited with "
                  f"{error.returncode} (its output is above)", file=sys.stderr)
            return 1
        raise
    except KeyboardInterrupt:
        print("course.py: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
