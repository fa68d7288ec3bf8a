"""What every program in tools/ does with bad input: one line, no traceback.

A bad command line is :class:`utils.cli.OneLineParser`'s; :func:`guard` runs a command (tools/commands.py) or a
program's ``main`` and reports the ``ValueError`` or ``FileNotFoundError`` that bad input raises (an unknown
notebook, a missing file) in one line, exit status 2. Standard library only, as tools/commands.py.
"""

from __future__ import annotations

import sys
from collections.abc import Callable


def guard(main: Callable[[], int], prog: str) -> int:
    """``main()``'s exit status; bad input (ValueError, FileNotFoundError) is one line on stderr and 2."""
    try:
        return main()
    except (ValueError, FileNotFoundError) as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
