"""Is this environment right for the course? ``python -m utils.env_check``

Prints ``[OK]`` or ``[FAIL]`` for every package in ``requirements.txt`` (installed
version against the required range), then Python, PyTorch and the device the
notebooks will use. Paste its output into bug reports. Exits 1 if anything failed.
"""

from __future__ import annotations

import platform
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

REQUIREMENTS = Path(__file__).resolve().parent.parent / "requirements.txt"


def read_requirements(path: Path = REQUIREMENTS, block: str | None = None) -> list[Requirement]:
    """The requirements in a requirements.txt (comments and blank lines skipped).

    ``block``: only those under the comment line ``# <block>``, up to the next blank line
    (requirements.txt groups them: ``# the course`` lists what the notebooks import).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no requirements file at {path}")
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    if block is not None:
        if f"# {block}" not in lines:
            raise ValueError(f"{path.name} has no '# {block}' block of requirements")
        start = lines.index(f"# {block}") + 1
        lines = lines[start:lines.index("", start)] if "" in lines[start:] else lines[start:]
    requirements = [Requirement(text) for text in (line.split("#", 1)[0].strip() for line in lines) if text]
    if block is not None and not requirements:
        raise ValueError(f"{path.name}: the '# {block}' block is empty")
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


def main(path: Path = REQUIREMENTS) -> int:
    statuses = check_packages(read_requirements(path))
    for status in statuses:
        print(status.line())
    python_ok = sys.version_info >= (3, 10)
    mark = "[OK]  " if python_ok else "[FAIL]"
    print(f"{mark} Python {platform.python_version()} ({sys.platform}; the course needs 3.10 or newer)")
    try:
        import torch

        print(f"       PyTorch {torch.__version__}, CUDA build: {torch.version.cuda or 'no'}")
        print(f"       device for device='auto': {device_line()}")
    except ImportError:
        print("[FAIL] PyTorch cannot be imported")
        return 1
    failed = [s.name for s in statuses if not s.ok]
    if failed or not python_ok:
        print(f"environment check FAILED: {', '.join(failed) or 'Python version'}; run `make test` or "
              "`pip install -r requirements.txt -c constraints.txt`")
        return 1
    print("environment check passed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
