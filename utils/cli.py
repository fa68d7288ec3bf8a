"""The one argument parser of every command-line program of the course (``python course.py``,
``python -m utils.env_check``, ``utils.bench``, ``utils.distributed`` and the maintainers' ``tools``).

Standard library only: ``course.py`` imports it with the system's Python, before any venv exists.
"""

from __future__ import annotations

import argparse
import difflib
import re

#: argparse's words for a value outside ``choices`` (a mistyped command): the value, then the choices
INVALID_CHOICE = re.compile(r"invalid choice: '?(?P<value>[^']*)'? \(choose from (?P<choices>.*)\)")


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a bad argument reported in one line, ``prog: message (see --help)``, without the
    usage block (exit status 2); a mistyped choice (a command) gets "did you mean" the closest one.

    Used by every command-line program of the course.
    """

    def error(self, message: str) -> None:
        if found := INVALID_CHOICE.search(message):
            choices = [choice.strip("'\" ") for choice in found["choices"].split(",")]
            if close := difflib.get_close_matches(found["value"], choices, 1, 0.6):
                message += f"; did you mean {close[0]}?"
        self.exit(2, f"{self.prog}: {message} (see --help)\n")
