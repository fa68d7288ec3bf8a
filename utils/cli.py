"""The one argument parser of every command-line program of the course (``python3 course.py``,
``python -m utils.env_check``, ``utils.bench``, ``utils.distributed`` and the maintainers' ``tools``).

Standard library only: ``course.py`` imports it with the system's Python, before any venv exists.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys

from .language import _

#: how a learner runs course.py: ``py course.py`` on Windows (the launcher), ``python3 course.py`` elsewhere
#: (Debian and Ubuntu have no ``python``); every hint that names a command says it so
COURSE = "py course.py" if sys.platform == "win32" else "python3 course.py"

#: argparse's words for a value outside ``choices`` (a mistyped command): the value, then the choices
INVALID_CHOICE = re.compile(r"invalid choice: '?(?P<value>[^']*)'? \(choose from (?P<choices>.*)\)")


#: argparse's words for options it does not know
UNRECOGNIZED = re.compile(r"unrecognized arguments: (?P<first>\S+)")


def did_you_mean(word: str, known) -> str:
    """``"; did you mean X?"`` for the closest of ``known`` to ``word`` (``""`` when none is close).

    Used by :class:`OneLineParser` and tools/commands.py."""
    close = difflib.get_close_matches(word, sorted(known), 1, 0.6)
    return _("; did you mean {close}?").format(close=close[0]) if close else ""


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a bad argument reported in one line, ``prog: message (see --help)``, without the
    usage block (exit status 2); a mistyped choice (a command) or option gets "did you mean" the closest one.

    Used by every command-line program of the course.
    """

    def error(self, message: str) -> None:
        if found := INVALID_CHOICE.search(message):
            message += did_you_mean(found["value"], [choice.strip("'\" ") for choice in found["choices"].split(",")])
        elif found := UNRECOGNIZED.search(message):
            message += did_you_mean(found["first"].partition("=")[0], self._option_string_actions)
        self.exit(2, _("{prog}: {message} (see --help)").format(prog=self.prog, message=message) + "\n")
