"""The two tests every notebook's checkers get, from the notebook's table (``test_nbXX_exercises.py``).

- ``WORKED``, rows ``(checker, args)``: the worked answer (and any other right one) passes and prints one
  ``correct:`` line;
- ``WRONG``, rows ``(checker, args, error, message)``: the wrong answer raises ``error``, whose message matches
  ``message`` (a regular expression): what was wrong, and the hint.

``args`` holds the checker's arguments: a tuple, or a function that builds them afresh (layers, models). Neither
the success line nor a message may show any of ``answers`` (strings, or compiled patterns to search for).
"""

import re

import pytest


def _shows(text, answers):
    return [a.pattern if isinstance(a, re.Pattern) else a for a in answers
            if (a.search(text) if isinstance(a, re.Pattern) else a in text)]


def checker_tests(module, worked, wrong, answers=()):
    """``test_the_worked_answer_passes`` and ``test_a_wrong_answer_fails_with_its_hint`` for ``module``'s checkers."""

    @pytest.mark.parametrize(("checker", "args"), worked, ids=[row[0] for row in worked])
    def test_the_worked_answer_passes(checker, args, capsys):
        assert getattr(module, checker)(*(args() if callable(args) else args)) is True
        printed = capsys.readouterr().out
        assert printed.startswith("correct: ") and printed.count("\n") == 1
        assert not _shows(printed, answers)

    @pytest.mark.parametrize(("checker", "args", "error", "message"), wrong,
                             ids=[f"{row[0]}-{row[3][:30]}" for row in wrong])
    def test_a_wrong_answer_fails_with_its_hint(checker, args, error, message):
        with pytest.raises(error, match=message) as raised:
            getattr(module, checker)(*(args() if callable(args) else args))
        assert not _shows(str(raised.value), answers), "a hint, never the answer"

    return test_the_worked_answer_passes, test_a_wrong_answer_fails_with_its_hint
