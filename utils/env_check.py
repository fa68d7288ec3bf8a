"""Is this environment right for the course? ``python -m utils.env_check``

For a learner whose notebook says ``ModuleNotFoundError`` although "everything is
installed", and for bug reports. It prints:

- which Python it runs (``sys.executable``), and whether that is the one the Jupyter
  kernel uses (the usual cause: packages installed into one Python, the notebook run by another);
- ``[OK]`` or ``[FAIL]`` for every package in ``requirements.txt`` (``--dev``: also the
  test suite's, ``requirements-dev.txt``), installed version against the required range;
- PyTorch's build and the device the notebooks will use.

When packages are missing it says so plainly, with the command that installs them into
this Python. It runs, and says that, even where PyTorch (or ``packaging``) is not installed.
In a notebook, ``%run -m utils.env_check`` checks the kernel's own Python. Exits 1 if
anything failed, 2 for a bad argument.
"""

from __future__ import annotations

import os
import platform
import shlex
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from .cli import COURSE, OneLineParser

try:
    from packaging.requirements import Requirement
except ImportError:  # a Python without `packaging` (a bare interpreter): pip carries a copy
    try:
        from pip._vendor.packaging.requirements import Requirement
    except ImportError:  # not even pip: main() says so
        Requirement = None

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = ROOT / "requirements.txt"
DEV_REQUIREMENTS = ROOT / "requirements-dev.txt"
CONSTRAINTS = ROOT / "constraints.txt"
#: the kernel the notebooks ask for (their kernelspec's name)
KERNEL_NAME = "python3"


def read_requirements(path: Path = REQUIREMENTS) -> list[Requirement]:
    """The requirements in a requirements.txt (comments and blank lines skipped; ``-r other.txt``
    lines read that file in their place)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no requirements file at {path}")
    requirements: list[Requirement] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.split("#", 1)[0].strip()
        if text.startswith(("-r ", "--requirement ")):
            requirements += read_requirements(path.parent / text.split(None, 1)[1])
        elif text:
            requirements.append(Requirement(text))
    return requirements


@dataclass(frozen=True)
class PackageStatus:
    name: str
    required: str  # the specifier, e.g. ">=2.2"
    installed: str | None  # None: not installed

    @property
    def ok(self) -> bool:
        if self.installed is None:
            return False
        return Requirement(f"{self.name}{self.required}").specifier.contains(self.installed, prereleases=True)

    def line(self) -> str:
        mark = "[OK]  " if self.ok else "[FAIL]"
        found = self.installed or "not installed"
        return f"{mark} {self.name} {found} (required {self.required or 'any'})"


def check_packages(requirements: list[Requirement]) -> list[PackageStatus]:
    """The installed version of each requirement, beside the range it needs."""
    statuses = []
    for req in requirements:
        try:
            installed = metadata.version(req.name)
        except metadata.PackageNotFoundError:
            installed = None
        statuses.append(PackageStatus(req.name, str(req.specifier), installed))
    return statuses


def device_line() -> str:
    """The device ``device="auto"`` resolves to, described."""
    from .devices import describe_device, resolve_device

    return describe_device(resolve_device("auto"))


# --- which Python, and is it the kernel's? ---------------------------------------------------

def _same_file(a: str, b: str) -> bool:
    """The same interpreter path, folders' symbolic links resolved but not the file's own (a
    venv's ``python`` links to the base interpreter, which is another environment)."""
    def norm(path: str) -> str:
        path = os.path.abspath(path)
        return os.path.normcase(os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path)))
    return norm(a) == norm(b)


def _prefix_of(python: str) -> str | None:
    """``sys.prefix`` of another interpreter (its environment), or None if it does not run."""
    try:
        found = subprocess.run([python, "-c", "import sys; print(sys.prefix)"], capture_output=True, text=True,
                               timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    return found.stdout.strip() if found.returncode == 0 else None


def kernel_check(executable: str = sys.executable) -> tuple[bool | None, str]:
    """``(ok, text)``: is ``executable`` the Python that Jupyter's ``python3`` kernel runs?

    ``ok`` is None where it cannot be told (Jupyter is not installed in this Python).
    """
    if "ipykernel" in sys.modules and _in_kernel():
        return True, "this Python is the running Jupyter kernel's"
    try:
        from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
    except ImportError:
        return None, ("Jupyter is not installed in this Python, so a JupyterLab started elsewhere runs "
                      "its own kernel, perhaps another Python")
    try:
        spec = KernelSpecManager().get_kernel_spec(KERNEL_NAME)
    except NoSuchKernel:
        return False, f"Jupyter here has no {KERNEL_NAME!r} kernel (ipykernel is not installed in this Python)"
    command = spec.argv[0] if spec.argv else ""
    where = f"kernel spec {spec.resource_dir}"
    major, minor = sys.version_info[:2]
    if command in ("python", f"python{major}", f"python{major}.{minor}"):
        # jupyter_client runs such a kernel with the Python that runs Jupyter itself
        return True, (f"Jupyter's {KERNEL_NAME!r} kernel runs the Python that starts JupyterLab: this one, with "
                      f"`{COURSE} lab` ({where})")
    if _same_file(command, executable) or (
            os.path.isfile(command) and _prefix_of(command) == sys.prefix):
        return True, f"Jupyter's {KERNEL_NAME!r} kernel runs this Python ({where})"
    return False, f"Jupyter's {KERNEL_NAME!r} kernel runs {command}, not this Python ({where})"


def _in_kernel() -> bool:
    """Running inside a Jupyter kernel (``%run -m utils.env_check`` in a notebook)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _command(words: list[str]) -> str:
    """``words`` as one command line for this system's shell."""
    return subprocess.list2cmdline(words) if os.name == "nt" else shlex.join(words)


def install_command(executable: str = sys.executable, dev: bool = False) -> str:
    """The command that installs the course's packages into ``executable``."""
    requirements = DEV_REQUIREMENTS if dev else REQUIREMENTS
    return _command([executable, "-m", "pip", "install", "-r", str(requirements), "-c", str(CONSTRAINTS)])


# --- the report --------------------------------------------------------------------------------

def main(argv: list[str] | None = None, prog: str = "python -m utils.env_check") -> int:
    parser = OneLineParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--dev", action="store_true", help="also the test suite's packages (requirements-dev.txt)")
    parser.add_argument("--requirements", type=Path, help="check this requirements file instead")
    args = parser.parse_args(argv)
    path = args.requirements or (DEV_REQUIREMENTS if args.dev else REQUIREMENTS)
    if Requirement is None:
        print(f"environment check FAILED: this Python ({sys.executable}) has neither pip nor `packaging`, so it "
              f"cannot install or check packages; run `{_command([sys.executable, '-m', 'ensurepip'])}`, then this "
              "check again")
        return 1
    try:
        requirements = read_requirements(path)
    except (OSError, ValueError) as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2

    print(f"       Python {platform.python_version()} at {sys.executable} ({sys.platform})")
    python_ok = sys.version_info >= (3, 10)
    print(f"{'[OK]  ' if python_ok else '[FAIL]'} Python {platform.python_version()} "
          "(the course needs 3.10 or newer)")
    kernel_ok, kernel_text = kernel_check()
    print({True: "[OK]  ", False: "[FAIL]", None: "[??]  "}[kernel_ok], kernel_text)
    statuses = check_packages(requirements)
    for status in statuses:
        print(status.line())
    try:
        import torch

        print(f"       PyTorch {torch.__version__}, CUDA build: {torch.version.cuda or 'no'}")
        print(f"       device for device='auto': {device_line()}")
        torch_ok = True
    except ImportError as error:
        print(f"[FAIL] PyTorch cannot be imported in this Python ({error})")
        torch_ok = False

    missing = [s.name for s in statuses if s.installed is None]
    wrong = [f"{s.name} {s.installed}" for s in statuses if s.installed is not None and not s.ok]
    if not (missing or wrong or not python_ok or not torch_ok or kernel_ok is False):
        print("environment check passed")
        return 0
    print("environment check FAILED:")
    if not python_ok:
        print(f"- Python {platform.python_version()} is too old: install Python 3.10 or newer and run "
              f"`{COURSE} run` with it")
    if python_ok and (missing or wrong or not torch_ok):  # (too old a Python: no use installing into it)
        what = []
        if missing:
            what.append(f"not installed in this Python: {', '.join(missing)}")
        if wrong:
            what.append(f"outside the required range: {', '.join(wrong)}")
        if not torch_ok and "torch" not in missing:
            what.append("torch does not import")
        print(f"- {'; '.join(what) or 'packages'}. Install them into this Python with")
        print(f"      {install_command(dev=args.dev)}")
        print(f"  or let the course make its own environment: `{COURSE} run` (it creates .venv)")
    if kernel_ok is False:
        print("- the notebooks run in another Python than this one, so they may not see these packages. Start "
              f"JupyterLab with `{COURSE} lab`, or register this Python as a kernel and pick it in the "
              "notebook (Kernel > Change Kernel):")
        register = [sys.executable, "-m", "ipykernel", "install", "--user", "--name", "nn-embedding-course"]
        print(f"      {_command(register)}")
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
