"""Argument checks shared by the helpers: one wording for every "what was wrong, what was expected"."""

from __future__ import annotations

import math


def check_int(name: str, value: object, minimum: int = 1) -> int:
    """Return ``value`` if it is an int ``>= minimum`` (bools are not ints here).

    Raises ``TypeError`` for a non-int, ``ValueError`` for one below ``minimum``; both name ``name``.
    """
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def check_positive(name: str, value: object, unit: str = "") -> float:
    """Return ``value`` as a float if it is a positive, finite number (``unit`` words the message)."""
    of_unit = f" of {unit}" if unit else ""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(f"{name} must be a number{of_unit}, got {type(value).__name__}")
    if not value > 0 or not math.isfinite(value):
        raise ValueError(f"{name} must be a positive, finite number{of_unit}, got {value}")
    return float(value)
