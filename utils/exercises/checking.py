"""The checking patterns every notebook's checkers share: the error a wrong answer raises, the line a right one
prints, and the checks that recur (a function passed, a tensor of a shape, a prediction recorded, the hint for the
likeliest mistake)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

import torch
import torch.nn.functional as F


class ExerciseError(AssertionError):
    """The answer is wrong; the message says how and hints at the fix."""


def correct(what_was_checked: str) -> bool:
    """Print ``correct: <what was checked>`` and return ``True`` (a checker's last line)."""
    print(f"correct: {what_was_checked}")
    return True


def recorded(what_was_recorded: str) -> bool:
    """Print ``recorded: <what>`` and return ``True``: a prediction's checker, which judges it only later."""
    print(f"recorded: {what_was_recorded}")
    return True


def require(ok: object, message: str) -> None:
    """Raise :class:`ExerciseError` with ``message`` unless ``ok``."""
    if not ok:
        raise ExerciseError(message)


def hint(cases: Iterable[tuple[object, str]], otherwise: str) -> str:
    """The hint of the first ``(holds, hint)`` case that holds, else ``otherwise``: the likeliest mistake, named."""
    return next((text for holds, text in cases if holds), otherwise)


def require_function(name: str, value: object) -> None:
    """The learner passed their function itself, not what calling it returned."""
    require(callable(value), f"pass your function itself ({name}, not {name}(...)); got {type(value).__name__}")


def require_tensor(name: str, value: object, shape: tuple[int, ...] | None = None, why: str = "") -> torch.Tensor:
    """``value`` detached, on the CPU, once it is a tensor (of ``shape``, if given; ``why`` says why that shape)."""
    require(isinstance(value, torch.Tensor), f"{name} must be a torch.Tensor, got {type(value).__name__}")
    require(shape is None or tuple(value.shape) == tuple(shape),
            f"{name} has shape {tuple(value.shape)}, expected {shape}{why}")
    return value.detach().cpu()


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
    require(value is not None and value is not Ellipsis,
            f"record your prediction in {name} first, e.g. {name} = {example}")
    kinds = kind if isinstance(kind, tuple) else (kind,)
    require(isinstance(value, kinds) and (bool in kinds or not isinstance(value, bool)),  # True is an int too
            f"{name} must look like {example}, got {type(value).__name__}")
    return value


def no_guess_yet(**guesses: object) -> bool:
    """True, after one line that says so, while a guess is still ``None``: the checker then judges nothing (so a
    notebook run top to bottom, before the learner has guessed, prints no verdict and no answer)."""
    missing = [name for name, value in guesses.items() if value is None]
    if missing:
        names = ", ".join(missing[:-1]) + " and " * (len(missing) > 1) + missing[-1]  # "a, b and c"
        print(f"no guess yet: record {names} in the cell above, then run this cell again")
    return bool(missing)


def looked_up_rows(name: str, layer, ids: torch.Tensor, refusal: str):
    """Exercises 3.3 and 4.2: run ``layer(ids)`` with ``F.embedding`` refused (``refusal`` says why), check it returns
    ``layer.weight[ids]`` with a gradient, run a backward of its sum, and return the weight's gradient."""
    with refusing_embedding_functions(refusal):
        out = layer(ids)
    shape = (*ids.shape, layer.weight.shape[1])
    require(isinstance(out, torch.Tensor) and tuple(out.shape) == shape, f"{name}(ids) for ids of shape "
            f"{tuple(ids.shape)} returned shape {tuple(getattr(out, 'shape', ()))}: the ids' shape plus embedding_dim")
    require(torch.equal(out, layer.weight[ids]), f"{name}(ids) differs from weight[ids]. Hint: forward(ids) returns "
            "the rows at ids")
    require(out.requires_grad, f"{name}(ids) carries no gradient back to the weight. Hint: index the Parameter "
            "itself, not a copy of it (nor its .data)")
    out.sum().backward()
    grad = layer.weight.grad
    require(grad is not None, f"no gradient reached {name}.weight. Hint: index the Parameter itself")
    return grad


def returned_tensor(call: str, value: object, shape: tuple[int, ...] | None = None, why: str = "") -> torch.Tensor:
    """What the learner's function returned for the checker's ``call``: a tensor (of ``shape``), detached, on the
    CPU."""
    require(isinstance(value, torch.Tensor), f"{call} returned {type(value).__name__}; return a torch.Tensor")
    return require_tensor(call, value, shape, why)


def require_keys(name: str, value: object, keys: Iterable, what: str) -> dict:
    """``value``, once it is a dict with exactly ``keys``; ``what`` says what a key maps to."""
    require(isinstance(value, dict), f"{name} must be a dict from {what}, got {type(value).__name__}")
    missing, unexpected = [k for k in keys if k not in value], [k for k in value if k not in keys]
    require(not missing and not unexpected,
            f"{name} must have the keys {list(keys)}: missing {missing}, unexpected {unexpected}")
    return value


def one_of(name: str, value: object, choices: tuple) -> object:
    """A prediction that must be one of ``choices``: ``ValueError`` naming them otherwise."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def within(got: float, expected: float, tolerance: float) -> bool:
    """``got`` is ``expected`` within ``tolerance``, relative (0.01: within 1%)."""
    return abs(got / expected - 1) <= tolerance


@contextlib.contextmanager
def refusing_embedding_functions(why: str) -> Iterator[None]:
    """While it lasts, ``F.embedding`` and ``torch.embedding`` raise :class:`ExerciseError` with ``why``: for an
    exercise that asks for the lookup written out, with indexing."""

    def refuse(*args, **kwargs):
        raise ExerciseError(why)

    saved = F.embedding, torch.embedding
    F.embedding = torch.embedding = refuse
    try:
        yield
    finally:
        F.embedding, torch.embedding = saved
