"""The one argument parser of every command-line program of the course (``python course.py``,
``python -m utils.env_check``, ``utils.bench``, ``utils.distributed`` and the maintainers' ``tools``).

Standard library only: ``course.py`` imports it with the system's Python, before any venv exists.
"""

from __future__ import annotations

import argparse


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a bad argument reported in one line, ``prog: message (see --help)``, without the
    usage block (exit status 2).

    Used by every command-line program of the course.
    """

    def error(self, message: str) -> None:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")
