"""What course.py does after its version check (kept there, in a syntax that Python 2.7 and 3.6 can read):
set up .venv with the tested versions, then run the command in it. Standard library only."""

import functools
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PureWindowsPath

from tools import commands
from tools.cli import READ_ONLY, digest, read_only_line
from utils.language import N_, _

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS, DEV_REQUIREMENTS = "requirements.txt", "requirements-dev.txt"
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
#: the install's programs in a process group of their own, so that Ctrl+C reaches course.py alone, which stops
#: them (subprocess.run kills its child) and says so in one line, not in ensurepip's or pip's traceback
APART = ({"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP} if sys.platform == "win32" else
         {"start_new_session": True})
#: what a first install needs on disk: PyTorch's CPU-only build and the rest (uv), PyPI's Linux build (pip)
SPACE_NEEDED = {"uv": 1.3e9, "pip": 5.0e9 if sys.platform.startswith("linux") else 1.3e9}


def venv_python(venv: Path, platform: str = sys.platform) -> Path:
    return venv / "Scripts" / "python.exe" if platform == "win32" else venv / "bin" / "python"


def is_store_python(executable: str) -> bool:
    """A Python from the Microsoft Store, or its ``python.exe`` alias in ``...\\Microsoft\\WindowsApps``
    (Jupyter has known trouble there: the Store redirects the files it keeps in %APPDATA%)."""
    parts = [part.lower() for part in PureWindowsPath(executable).parts]
    return "windowsapps" in parts or any(part.startswith("pythonsoftwarefoundation.python") for part in parts)


def child_environment() -> dict[str, str]:
    """The environment for the programs run in the venv: UTF-8 files and output on every system
    (Windows would otherwise read the course's files and print its Chinese text in the console's code page)."""
    return {**os.environ, "PYTHONUTF8": "1", "PYTHONIOENCODING": "utf-8"}


class Stop(Exception):
    """A slip the learner can fix: its one line says what to do (printed as ``course.py: ...``, exit 1)."""


def install_hash(dev: bool, constraints: str) -> str:
    """What an install depends on: the requirement and constraint files, and the index settings."""
    files = [REQUIREMENTS] + ([DEV_REQUIREMENTS] if dev else []) + ([constraints] if constraints else [])
    parts = [Path(name).name.encode() + b"\0" + ((ROOT / name).read_bytes() if (ROOT / name).is_file() else b"")
             + b"\0" for name in files]
    parts += [f"{name}={os.environ.get(name, '')}\0".encode() for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL")]
    if os.environ.get("UV_TORCH_BACKEND"):  # only when set: the installs made before it stay valid
        parts.append(f"UV_TORCH_BACKEND={os.environ['UV_TORCH_BACKEND']}\0".encode())
    return digest(*parts)


def is_installed(venv: Path, dev: bool, constraints: str) -> bool:
    """The venv has the packages these files ask for (a dev install serves a learner's command too)."""
    try:
        done = json.loads((venv / STAMP).read_text(encoding="utf-8")).get("hash")
    except (OSError, ValueError):
        return False
    return venv_python(venv).exists() and done in {install_hash(dev, constraints), install_hash(True, constraints)}


def install_command(installer: str, python: Path, dev: bool, constraints: str, quiet: bool = False) -> list[str]:
    """pip's install of the requirements with the pins, or uv's (PyTorch's build chosen by ``--torch-backend``)."""
    start = (["uv", "pip", "install", "--python", str(python), "--torch-backend",
              os.environ.get("UV_TORCH_BACKEND", "auto")] if installer == "uv"
             else ["pip", "install", "--upgrade", "--disable-pip-version-check"])
    requirements = ROOT / (DEV_REQUIREMENTS if dev else REQUIREMENTS)
    pins = ["-c", str(ROOT / constraints)] if constraints else []
    return [str(python), "-m", *start, *(["--quiet"] if quiet else []), "-r", str(requirements), *pins]


def answers(url: str, seconds: float = PROBE_SECONDS) -> bool:
    """Whether ``url`` answers within ``seconds`` (an HTTP error is an answer; a refusal is False at once), name
    look-up included: the probe's thread is not waited for longer, since a look-up can outlast a socket timeout."""
    done, answered = threading.Event(), []

    def probe() -> None:
        try:
            urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=seconds).close()
            answered.append(True)
        except urllib.error.HTTPError:
            answered.append(True)
        except (OSError, ValueError):
            pass
        done.set()

    threading.Thread(target=probe, daemon=True).start()
    return done.wait(seconds) and bool(answered)


def choose_installer(environ=os.environ, probe=answers) -> tuple[str, str]:
    """``("uv", "")`` where PyTorch's own index answers (uv picks the build for this machine), else ``("pip", why)``
    with the line that says why; an index the learner set for pip (``PIP_INDEX_URL``...) keeps pip, silently."""
    if environ.get("PIP_INDEX_URL") or environ.get("PIP_EXTRA_INDEX_URL"):
        return "pip", ""
    if not probe(CPU_WHEELS + "/"):
        return "pip", _("course.py: PyTorch's own index (download.pytorch.org) did not answer within {seconds:g} s, "
                        "so pip installs PyTorch from PyPI instead (the build pip finds there).").format(
            seconds=PROBE_SECONDS)
    return "uv", ""


def build_note(torch_version: str, platform: str = sys.platform, environ=os.environ) -> str:
    """The one line, after uv's install, that says which build of PyTorch it chose and how to ask for the other."""
    local = torch_version.partition("+")[2]
    if environ.get("UV_TORCH_BACKEND"):
        return f"course.py: installed PyTorch {torch_version} (UV_TORCH_BACKEND={environ['UV_TORCH_BACKEND']})."
    if local == "cpu":
        ask = (f'$env:UV_TORCH_BACKEND="{CUDA_BACKEND}"; py course.py install' if platform == "win32" else
               f"rm -rf .venv && UV_TORCH_BACKEND={CUDA_BACKEND} python3 course.py install")
        return _("course.py: no NVIDIA driver found, so PyTorch's CPU-only build was installed ({version}, 4.0 GB "
                 "less on disk than the CUDA build). For the CUDA build: delete .venv and run `{ask}`.").format(
            version=torch_version, ask=ask)
    if local.startswith("cu"):
        return _("course.py: an NVIDIA driver was found, so PyTorch's CUDA build was installed ({version}).").format(
            version=torch_version)
    return f"course.py: installed PyTorch {torch_version}." if torch_version else ""


def first_install_notice(installer: str, platform: str = sys.platform, where: str = ".venv") -> str:
    """What a first install is about to download, said before it starts."""
    lines = [_("Installing the course into {where}: PyTorch, JupyterLab and their dependencies (about 1.3 GB on "
               "disk with PyTorch's CPU-only build). This takes some minutes and shows each download.").format(
        where=where)]
    if installer == "uv":
        lines.append(_("uv picks PyTorch's build for this machine: the CUDA build if it finds an NVIDIA driver, "
                       "else the CPU-only build."))
    elif platform.startswith("linux"):
        lines.append(_("pip takes PyTorch from the indexes it is configured with; PyPI's Linux build brings NVIDIA's "
                       "CUDA libraries (about 2.5 GB more to download); README.md, *Start*, says how to take the "
                       "CPU-only build."))
    return "\n".join(lines)


@contextmanager
def install_lock(venv: Path) -> Iterator[None]:
    """Held while this command installs into ``venv`` (released however the process ends); a second one waits."""
    venv.mkdir(parents=True, exist_ok=True)
    with open(venv / LOCK, "a+b") as file:
        if not _try_lock(file):
            print(_("course.py: another course.py command is installing the course into .venv; waiting for it to "
                    "finish (Ctrl+C stops waiting)."), flush=True)
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
    """Whether ``python`` has ``ensurepip`` (Debian and Ubuntu leave it out until ``python3-venv`` is installed)."""
    return subprocess.run([python, "-c", "import ensurepip"], capture_output=True).returncode == 0


NO_ENSUREPIP = N_("this Python cannot put pip into a virtual environment: install python3-venv "
                  "(`sudo apt install python3-venv` on Debian and Ubuntu), then run the command again.")


def ensure_pip(venv: Path, python: Path, base: str = sys.executable) -> None:
    """Create the venv with the Python ``base``, or give a pip-less one (``python3 -m venv`` on Debian and Ubuntu
    without ``python3-venv``) its pip; a Python that cannot is a :class:`Stop` saying to install ``python3-venv``."""
    if not python.exists():
        if not can_make_pip(base):
            raise Stop(_(NO_ENSUREPIP))
        subprocess.run([base, "-m", "venv", str(venv)], check=True, **APART)
    elif subprocess.run([str(python), "-m", "pip", "--version"], capture_output=True).returncode != 0:
        if not can_make_pip(str(python)):
            raise Stop(_(".venv has no pip, and {problem}").format(problem=_(NO_ENSUREPIP)))
        print("course.py: .venv has no pip (a virtual environment made without it); adding it with ensurepip.",
              flush=True)
        subprocess.run([str(python), "-m", "ensurepip", "--upgrade", "--default-pip"], check=True,
                       stdout=subprocess.DEVNULL, **APART)


def installed_torch(python: Path) -> tuple[str, bool]:
    """The venv's torch version (``2.13.0+cpu``) and whether NVIDIA's CUDA libraries are installed beside it."""
    query = ("from importlib.metadata import version, distributions; print(version('torch')); "
             "print(any((d.metadata['Name'] or '').lower().startswith('nvidia-') for d in distributions()))")
    lines = subprocess.run([str(python), "-c", query], capture_output=True, text=True).stdout.split()
    return (lines[0] if lines else ""), lines[1:2] == ["True"]


def pypi_build_note(python: Path, platform: str = sys.platform) -> str:
    """After pip's install: the line naming PyPI's CUDA build where pip took it, the venv's size, the CPU-only way."""
    version, nvidia = installed_torch(python)
    if not ("+cu" in version or nvidia):
        return ""
    venv = python.parent.parent
    size = sum(path.lstat().st_size for path in venv.rglob("*"))  # (rglob follows no link to a folder)
    again = (f'Remove-Item -Recurse {venv.name}; $env:PIP_EXTRA_INDEX_URL="{CPU_WHEELS}"; py course.py install'
             if platform == "win32" else f"rm -rf {venv.name} && PIP_EXTRA_INDEX_URL={CPU_WHEELS} python3 course.py "
             "install")
    return (f"course.py: pip installed PyPI's CUDA build of PyTorch (torch {version} with NVIDIA's CUDA libraries): "
            f"{venv.name} takes {size / 1e9:.1f} GB. For the CPU-only build (about 1.3 GB): `{again}`.")


def install(python: Path, dev: bool, constraints: str, installer: str, why: str, first: bool = True) -> None:
    """Install the course's packages: with uv where it can pick PyTorch's build, else (or if uv fails) with pip.
    A later install (test tools, new pins) is quiet: PyTorch is there; the index line and pip's output are no news."""
    run = functools.partial(subprocess.run, cwd=ROOT, env=child_environment(), **APART)
    if installer == "uv":
        if (run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", UV]).returncode == 0
                and run(install_command("uv", python, dev, constraints, quiet=not first)).returncode == 0):
            if first and (note := build_note(installed_torch(python)[0])):
                print(note)
            return
        if not python.exists():
            return  # the venv is gone: said by the caller
        why = "course.py: uv could not install the course (its output is above), so pip installs it instead."
    if not first:
        why = (f"course.py: bringing {python.parent.parent.name} up to date with "
               f"{DEV_REQUIREMENTS if dev else REQUIREMENTS} and {constraints or 'the newest releases'}.")
    if why:
        print(why, flush=True)
    run(install_command("pip", python, dev, constraints, quiet=not first), check=True)
    if first and (note := pypi_build_note(python)):
        print(note)


def ensure_venv(venv: Path, dev: bool, constraints: str, probe=answers, base: str = sys.executable) -> Path:
    """Create (with the Python ``base``) and fill the venv when needed, one command at a time; returns its Python.
    What goes wrong is a :class:`Stop` (Ctrl+C during a later install stays a KeyboardInterrupt: the venv stays)."""
    python = venv_python(venv)
    if is_installed(venv, dev, constraints):
        return python
    first, installer = False, "pip"
    try:
        with install_lock(venv):
            if is_installed(venv, dev, constraints):  # another command installed it while this one waited
                return python
            if is_store_python(sys.executable):
                print("Note: this Python comes from the Microsoft Store. If JupyterLab or the notebooks fail to "
                      "start, install Python from python.org and run `py course.py ...` instead.")
            first = not python.exists()
            ensure_pip(venv, python, base)
            installer, why = choose_installer(probe=probe)
            if first:
                where = venv.relative_to(ROOT) if venv.is_relative_to(ROOT) else venv
                print(first_install_notice(installer, where=str(where)), flush=True)
            install(python, dev, constraints, installer, why, first)
            (venv / STAMP).write_text(json.dumps({"hash": install_hash(dev, constraints)}) + "\n", encoding="utf-8")
    except KeyboardInterrupt:
        if not first:
            raise
        shutil.rmtree(venv, ignore_errors=True)  # so that the next command starts afresh, not from half a venv
        raise Stop(_("interrupted; the half-made {venv} was removed, so the next command installs the course "
                     "afresh.").format(venv=venv.name)) from None
    except (subprocess.CalledProcessError, OSError) as error:
        needed = SPACE_NEEDED[installer]
        if first and python.exists() and shutil.disk_usage(venv.parent).free < needed:  # (a disk pip filled)
            shutil.rmtree(venv, ignore_errors=True)
            raise Stop(_("setting up {venv} failed with too little space on the disk: the course needs about "
                         "{needed:.1f} GB there and {free:.1f} GB is free (the half-built {venv} was removed); free "
                         "some space, then run the command again.").format(
                venv=venv.name, needed=needed / 1e9, free=shutil.disk_usage(venv.parent).free / 1e9)) from None
        if isinstance(error, OSError) and error.errno in READ_ONLY:
            raise Stop(read_only_line(venv.parent)) from None
        if not python.exists():
            raise Stop(_("{venv} was deleted during the install; run the command again to install the course "
                         "afresh.").format(venv=venv.name)) from None
        if isinstance(error, subprocess.CalledProcessError):
            raise Stop(_("setting up {venv} failed: `{command}` exited with {status} (its output is above)").format(
                venv=venv, command=subprocess.list2cmdline(error.cmd), status=error.returncode)) from None
        raise
    return python


def run_in_venv(python: Path, argv: list[str], platform: str = sys.platform) -> int:
    """Run ``python -m tools ARGV`` in the course's folder: on POSIX this process becomes it (so Ctrl+C and ``kill``
    reach the command itself); on Windows it is started and waited for through Ctrl+C, and its status returned."""
    command = [str(python), "-m", "tools", *argv]
    os.chdir(ROOT)
    sys.stdout.flush()
    sys.stderr.flush()
    if platform != "win32":
        os.execve(command[0], command, child_environment())
    process = subprocess.Popen(command, env=child_environment())
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:
            continue


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    commands.choose_language(argv)  # --zh: the messages in Chinese, from the compiled catalog (stdlib gettext)
    args, extra = commands.parse(argv)  # a bad command line is one line before anything is installed
    needs = commands.needs(args)
    if not needs:
        return commands.call(args, extra)
    try:
        python = ensure_venv(args.venv.resolve(), needs == "dev", args.constraints)
    except Stop as stop:
        print(f"course.py: {stop}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(_("course.py: interrupted"), file=sys.stderr)
        return 130
    return run_in_venv(python, argv)

