"""The shape of every notebook's exercise tests: a table of (checker, answer, expected), where expected is
``"pass"`` for the worked answer (and other right ones), or the hint a wrong answer fails with: a regex of the
:class:`ExerciseError`'s message, or ``(an error type, a regex)`` for an answer of the wrong kind."""

import pytest

from utils.exercises.checking import ExerciseError


@pytest.fixture
def judge(capsys):
    """``judge(checker, answer, expected, never=())``: the checker's verdict on ``answer`` (its arguments) is
    ``expected``. A pass returns None and prints one ``correct:`` line last (``recorded:`` for a prediction judged
    later); a failure's message holds none of
    ``never``, the answers it must not give away."""

    def verdict(checker, answer, expected, never=()):
        if expected == "pass":
            assert checker(*answer) is None
            assert capsys.readouterr().out.splitlines()[-1].startswith(("correct: ", "recorded: "))
            return
        error, hint = expected if isinstance(expected, tuple) else (ExerciseError, expected)
        with pytest.raises(error, match=hint) as raised:
            checker(*answer)
        assert not [answer for answer in never if answer in str(raised.value)], "a hint, never the answer"

    return verdict
