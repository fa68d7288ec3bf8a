"""The one argument parser, and what bad input does, in every command-line program of the course (``python course.py``,
``python -m utils.env_check``, ``utils.bench``, ``utils.distributed`` and the maintainers' ``tools``).

Standard library only: ``course.py`` imports it with the system's Python, before any venv exists.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a bad argument reported in one line, ``prog: message (see --help)``, without the
    usage block (exit status 2).

    Used by every command-line program of the course.
    """

    def error(self, message: str) -> None:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def guard(main: Callable[[], int], prog: str) -> int:
    """``main()``'s exit status; bad input (a ``ValueError`` or ``FileNotFoundError``: an unknown notebook,
    a missing file) is one line on stderr, ``prog: message``, and exit status 2. A bug keeps its traceback."""
    try:
        return main()
    except (ValueError, FileNotFoundError) as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
