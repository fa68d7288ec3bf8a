"""The checking patterns every notebook's checkers share: the error a wrong answer raises, the lines a checker
prints (right, or not answered yet), and the checks that recur (a function passed, a tensor of a shape, a
prediction recorded, the hint for the likeliest mistake).

The lines a learner reads are English msgids with named fields, ``_("... {name} ...").format(name=...)``, which
the catalog ``notebooks/zh/translations/_interface.po`` translates (:mod:`utils.language`)."""

from __future__ import annotations

import contextlib
import functools
import os
import re
from collections.abc import Callable, Iterable, Iterator

import torch
import torch.nn.functional as F

from ..language import N_, _

#: what a wrong answer shows, in place of a traceback
WRONG = N_("incorrect: {hint}")
#: what a checker prints while a guess (or a value the learner sets) is still ``None``
GUESS_MISSING = N_("not answered yet: fill in {names} above, then run this cell again")
#: what a checker prints when the learner's function is still the stub
CODE_MISSING = N_("not answered yet: write {name} in the cell above, then run this cell again")
#: the message of the stub in each exercise's answer cell, ``raise NotImplementedError("Exercise 2.1: your code here")``
#: (code, so the same in both editions)
STUB = "Exercise {number}: your code here"
_STUB = re.compile(re.escape(STUB).replace(re.escape("{number}"), r"\d+(?:\.\d+)*"))
#: set (to anything but ``""``) where notebooks are graded, as by nbgrader's ``autograde``: an exercise not
#: answered yet is then wrong, not skipped, so that it scores no point (INSTRUCTORS.md)
GRADING = "COURSE_GRADING"


class _OneLine:
    """An exception that IPython shows as one line, ``incorrect: <message>``, instead of a traceback: a wrong
    answer gets its hint, and nothing of the checker's code (IPython asks for ``_render_traceback_``)."""

    def _render_traceback_(self) -> list[str]:
        return [_(WRONG).format(hint=self)]


class ExerciseError(_OneLine, AssertionError):
    """The answer is wrong; the message says how and hints at the fix."""


class AnswerTypeError(_OneLine, TypeError):
    """The answer is of the wrong kind (a number where a set was asked for); the message says what was expected."""


class AnswerValueError(_OneLine, ValueError):
    """The answer is of the right kind but no possible value (not one of the choices offered)."""


def correct(what_was_checked: str) -> None:
    """Print ``correct: <what was checked>`` (a checker's last line)."""
    print(_("correct: {what_was_checked}").format(what_was_checked=what_was_checked))


def recorded(what_was_recorded: str) -> None:
    """Print ``recorded: <what>``: a prediction's checker, which judges it only later."""
    print(_("recorded: {what_was_recorded}").format(what_was_recorded=what_was_recorded))


def _names(names: list[str]) -> str:
    if len(names) == 1:
        return names[0]
    # "a, b and c"; Chinese lists with 、 ("a、b 和 c")
    return _("{names} and {last}").format(names=_(", ").join(names[:-1]), last=names[-1])


def answered(**values: object) -> bool:
    """True once no value is ``None``; else False, after one line (:data:`GUESS_MISSING`) naming those still
    ``None``. A checker then judges nothing: a notebook run top to bottom, before the learner has answered, prints
    this one line per check cell and no verdict (the cells that reveal a measurement test the guess themselves, in
    plain Python, and print nothing yet)."""
    missing = [name for name, value in values.items() if value is None]
    if missing:
        not_answered(_(GUESS_MISSING).format(names=_names(missing)))
    return not missing


def not_answered(line: str) -> None:
    """Print ``line``, which says the exercise is not answered yet; where notebooks are graded (:data:`GRADING`),
    raise it as a wrong answer instead."""
    if os.environ.get(GRADING):
        raise ExerciseError(line)
    print(line)


def is_stub(error: BaseException) -> bool:
    """``error`` is the ``NotImplementedError`` of an answer cell's stub (:data:`STUB`, or nbgrader's, which has no
    message), not one from the learner's own code or from PyTorch (whose say what is missing)."""
    return isinstance(error, NotImplementedError) and (not str(error) or _STUB.fullmatch(str(error)) is not None)


def _raised_in(error: BaseException) -> str:
    """The name of the function in which ``error`` was raised (the last frame of its traceback)."""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_name if tb is not None else ""


def writes(*names: str) -> Callable[[Callable], Callable]:
    """Decorates the checker of an exercise that asks for code (``names``: the functions or class to write): while
    the answer cell is still its stub, the checker prints :data:`CODE_MISSING` once instead of an error, naming the
    function whose stub it met (of several)."""

    def decorate(checker: Callable) -> Callable:
        @functools.wraps(checker)
        def check(*args, **kwargs):
            try:
                return checker(*args, **kwargs)
            except NotImplementedError as error:
                if not is_stub(error):
                    raise  # the learner's own, or PyTorch's: its traceback helps
                name = names[0] if len(names) == 1 else next(
                    (name for name in names if name == _raised_in(error)), _names(list(names)))
                not_answered(_(CODE_MISSING).format(name=name))
                return None

        return check

    return decorate


def require(ok: object, message: str) -> None:
    """Raise :class:`ExerciseError` with ``message`` unless ``ok``."""
    if not ok:
        raise ExerciseError(message)


def hint(cases: Iterable[tuple[object, str]], otherwise: str) -> str:
    """The hint of the first ``(holds, hint)`` case that holds, else ``otherwise``: the likeliest mistake, named."""
    return next((text for holds, text in cases if holds), otherwise)


def require_function(name: str, value: object) -> None:
    """The learner passed their function itself, not what calling it returned."""
    require(callable(value), _("pass your function itself ({name}, not {name}(...)); got {type}").format(
        name=name, type=type(value).__name__))


def require_tensor(name: str, value: object, shape: tuple[int, ...] | None = None, why: str = "") -> torch.Tensor:
    """``value`` detached, on the CPU, once it is a tensor (of ``shape``, if given; ``why`` says why that shape)."""
    require(isinstance(value, torch.Tensor), _("{name} must be a torch.Tensor, got {type}").format(
        name=name, type=type(value).__name__))
    require(shape is None or tuple(value.shape) == tuple(shape),
            _("{name} has shape {shape}, expected {expected}{why}").format(
                name=name, shape=tuple(value.shape), expected=shape, why=why))
    return value.detach().cpu()


def as_number(name: str, value: object, what: str) -> float:
    """``value`` as a float: a Python number or a one-element tensor; :class:`AnswerTypeError` naming ``what``
    otherwise."""
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AnswerTypeError(_("{name} must be a number ({what}), got {type}").format(
            name=name, what=what, type=type(value).__name__))
    return float(value)


def prediction(name: str, value: object, kind: type | tuple[type, ...], example: str) -> object:
    """A prediction the learner recorded in ``name`` before the reveal: ``value`` itself, once it is of ``kind``.

    A missing prediction (``None``, ``...``) or one of another kind fails with ``example`` as the form expected.
    """
    require(value is not None and value is not Ellipsis,
            _("record your prediction in {name} first, e.g. {name} = {example}").format(name=name, example=example))
    kinds = kind if isinstance(kind, tuple) else (kind,)
    require(isinstance(value, kinds) and (bool in kinds or not isinstance(value, bool)),  # True is an int too
            _("{name} must look like {example}, got {type}").format(name=name, example=example,
                                                                     type=type(value).__name__))
    return value


def letters_prediction(name: str, value: object, letters) -> set:
    """A prediction recorded in ``name`` as a set of the letters (keys) of ``letters``: the set itself, once every
    letter in it is one of them."""
    guess = prediction(name, value, (set, frozenset), '{"a"}')
    unknown = sorted(str(letter) for letter in guess if letter not in letters)
    require(not unknown, _("{name} holds {unknown}: use the letters {letters}, as strings").format(
        name=name, unknown=unknown, letters=sorted(letters)))
    return guess


def looked_up_rows(name: str, layer, ids: torch.Tensor, refusal: str):
    """Exercises 3.3 and 4.2: run ``layer(ids)`` with ``F.embedding`` refused (``refusal`` says why), check it returns
    ``layer.weight[ids]`` with a gradient, run a backward of its sum, and return the weight's gradient."""
    with refusing_embedding_functions(refusal):
        out = layer(ids)
    shape = (*ids.shape, layer.weight.shape[1])
    require(isinstance(out, torch.Tensor) and tuple(out.shape) == shape,
            _("{name}(ids) for ids of shape {shape} returned shape {returned}: the ids' shape plus "
              "embedding_dim").format(name=name, shape=tuple(ids.shape), returned=tuple(getattr(out, "shape", ()))))
    require(torch.equal(out, layer.weight[ids]),
            _("{name}(ids) differs from weight[ids]. Hint: forward(ids) returns the rows at ids").format(name=name))
    require(out.requires_grad, _("{name}(ids) carries no gradient back to the weight. Hint: index the Parameter "
                                 "itself, not a copy of it (nor its .data)").format(name=name))
    out.sum().backward()
    grad = layer.weight.grad
    require(grad is not None,
            _("no gradient reached {name}.weight. Hint: index the Parameter itself").format(name=name))
    return grad


def returned_tensor(call: str, value: object, shape: tuple[int, ...] | None = None, why: str = "") -> torch.Tensor:
    """What the learner's function returned for the checker's ``call``: a tensor (of ``shape``), detached, on the
    CPU."""
    require(isinstance(value, torch.Tensor), _("{call} returned {type}; return a torch.Tensor").format(
        call=call, type=type(value).__name__))
    return require_tensor(call, value, shape, why)


def require_keys(name: str, value: object, keys: Iterable, what: str) -> dict:
    """``value``, once it is a dict with exactly ``keys``; ``what`` says what a key maps to."""
    require(isinstance(value, dict), _("{name} must be a dict from {what}, got {type}").format(
        name=name, what=what, type=type(value).__name__))
    missing, unexpected = [k for k in keys if k not in value], [k for k in value if k not in keys]
    require(not missing and not unexpected,
            _("{name} must have the keys {keys}: missing {missing}, unexpected {unexpected}").format(
                name=name, keys=list(keys), missing=missing, unexpected=unexpected))
    return value


def one_of(name: str, value: object, choices: tuple) -> object:
    """A prediction that must be one of ``choices``: :class:`AnswerValueError` naming them otherwise."""
    if value not in choices:
        raise AnswerValueError(_("{name} must be one of {choices}, got {value!r}").format(
            name=name, choices=choices, value=value))
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
