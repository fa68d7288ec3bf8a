"""Argument checks shared by the helpers: one wording for every "what was wrong, what was expected";
and :func:`expect_error`, which shows in a notebook the error a mistake meets."""

from __future__ import annotations

import argparse
import contextlib
import math
from collections.abc import Callable, Iterator


def check_int(name: str, value: object, minimum: int = 1) -> int:
    """Return ``value`` if it is an int ``>= minimum`` (bools are not ints here).

    Raises ``TypeError`` for a non-int, ``ValueError`` for one below ``minimum``; both name ``name``.

    Used by the other helpers, to check their arguments.
    """
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def check_positive(name: str, value: object, unit: str = "") -> float:
    """Return ``value`` as a float if it is a positive, finite number (``unit`` words the message).

    Used by the other helpers, to check their arguments.
    """
    of_unit = f" of {unit}" if unit else ""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(f"{name} must be a number{of_unit}, got {type(value).__name__}")
    if not value > 0 or not math.isfinite(value):
        raise ValueError(f"{name} must be a positive, finite number{of_unit}, got {value}")
    return float(value)


def positive_argument(unit: str = "") -> Callable[[str], float]:
    """An argparse ``type``: a command line's positive, finite number, checked by :func:`check_positive`
    (``--timeout nan`` is ``expected a positive, finite number of seconds, got 'nan'``).

    Used by ``python -m utils.bench`` and ``python -m utils.distributed``.
    """
    def parse(text: str) -> float:
        try:
            return check_positive("value", float(text), unit)
        except ValueError:
            of_unit = f" of {unit}" if unit else ""
            raise argparse.ArgumentTypeError(f"expected a positive, finite number{of_unit}, got {text!r}") from None

    return parse


@contextlib.contextmanager
def expect_error(error_type: type[BaseException] | tuple[type[BaseException], ...],
                 *contains: str) -> Iterator[argparse.Namespace]:
    """Run the ``with`` block, which should fail: print the error as a learner meets it.

    Prints ``ErrorType: first line of the message``; ``with expect_error(...) as caught`` keeps the whole message
    in ``caught.message``. Raises ``AssertionError`` if the block raised nothing, or if the message lacks any of
    the ``contains`` texts; an error of another type propagates as it is::

        with expect_error(ValueError, "99"):
            lookup.lookup(torch.tensor([2, 99]), W)

    Used in notebooks 1, 2, 3, 4 and 7, wherever a lesson shows an error.
    """
    types = error_type if isinstance(error_type, tuple) else (error_type,)
    if not types or not all(isinstance(t, type) and issubclass(t, BaseException) for t in types):
        raise TypeError(f"error_type must be an exception class or a tuple of them, got {error_type!r}")
    if not all(isinstance(text, str) for text in contains):
        raise TypeError(f"contains must be strings, got {contains!r}")
    names, caught = " or ".join(t.__name__ for t in types), argparse.Namespace(message="")
    try:
        yield caught
    except types as error:
        message = caught.message = str(error)
        print(f"{type(error).__name__}: {message.splitlines()[0] if message else ''}")
        missing = [text for text in contains if text not in message]
        if missing:
            raise AssertionError(f"the {type(error).__name__} message lacks {missing}: {message!r}") from error
    else:
        raise AssertionError(f"expected {names}, but the code ran without one")
