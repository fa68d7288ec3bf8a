"""What every notebook's checkers share: the error a wrong answer raises, and the line a right one prints."""

from __future__ import annotations

import torch


class ExerciseError(AssertionError):
    """The answer is wrong; the message says how and hints at the fix."""


def correct(what_was_checked: str) -> bool:
    """Print ``correct: <what was checked>`` and return ``True`` (a checker's last line)."""
    print(f"correct: {what_was_checked}")
    return True


def require_function(name: str, value: object) -> None:
    """The learner passed their function itself, not what calling it returned."""
    if not callable(value):
        raise ExerciseError(f"pass your function itself ({name}, not {name}(...)); got {type(value).__name__}")


def as_number(name: str, value: object, what: str) -> float:
    """``value`` as a float: a Python number or a one-element tensor; ``TypeError`` naming ``what`` otherwise."""
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number ({what}), got {type(value).__name__}")
    return float(value)


def prediction(name: str, value: object, kind: type | tuple[type, ...], example: str) -> object:
    """A prediction the learner recorded in ``name`` before the reveal: ``value`` itself, once it is of ``kind``.

    A missing prediction (``None``, ``...``) or one of another kind fails with ``example`` as the form expected.
    """
    if value is None or value is Ellipsis:
        raise ExerciseError(f"record your prediction in {name} first, e.g. {name} = {example}")
    if isinstance(value, bool) or not isinstance(value, kind):
        raise ExerciseError(f"{name} must look like {example}, got {type(value).__name__}")
    return value
