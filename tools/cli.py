"""What every program in tools/ does with a bad command line: one line, no traceback.

- :class:`OneLineParser`: argparse, with a bad argument reported as ``prog: message (see --help)``
  instead of a usage block;
- :func:`guard`: runs a program's ``main`` and reports the ``ValueError`` or ``FileNotFoundError``
  that bad input raises (an unknown notebook, a missing file) in one line, exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a bad argument reported in one line (exit status 2)."""

    def error(self, message: str) -> None:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def guard(main: Callable[[], int], prog: str) -> int:
    """``main()``'s exit status; bad input (ValueError, FileNotFoundError) is one line on stderr and 2."""
    try:
        return main()
    except (ValueError, FileNotFoundError) as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
