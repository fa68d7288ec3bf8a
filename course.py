#!/usr/bin/env python3
"""The course's commands on Linux, macOS and Windows: ``python3 course.py run`` (``py course.py run`` on Windows).
It needs only Python 3.10 or newer (no make, no shell): it makes sure ``.venv`` has the tested versions, then runs
the command in it (tools/bootstrap.py; the commands are in tools/commands.py; ``--help`` lists them)."""

# This file is read by whatever Python the learner has: Python 2.7 and 3.6 must be able to parse it (no
# f-strings, no annotations) to reach the check below and print its line instead of a SyntaxError.
import sys

MIN_PYTHON = (3, 10)


def too_old(version=sys.version_info):
    """The one line for a Python older than MIN_PYTHON (None for a new enough one)."""
    if tuple(version) >= MIN_PYTHON:
        return None
    return ("course.py: the course needs Python {0} or newer; this is {1} ({2}). Run it with a newer one, e.g. "
            "`py -3.12 course.py run` on Windows or `python3.12 course.py run`.").format(
        ".".join(map(str, MIN_PYTHON)), sys.version.split()[0], sys.executable)


if __name__ == "__main__":
    if too_old():
        sys.stderr.write(too_old() + "\n")
        sys.exit(2)
    from tools.bootstrap import main

    sys.exit(main())
