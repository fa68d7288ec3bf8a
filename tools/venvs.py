"""Where a virtual environment keeps its Python, on each operating system.

Standard library only: ``course.py`` imports it with the system's Python, before any venv exists.
"""

from __future__ import annotations

import sys
from pathlib import Path


def venv_python(venv: Path, platform: str = sys.platform) -> Path:
    """The interpreter inside a virtual environment: ``Scripts\\python.exe`` on Windows, ``bin/python`` elsewhere."""
    return venv / "Scripts" / "python.exe" if platform == "win32" else venv / "bin" / "python"
