"""Notebook 1, one-hot vectors and the matrix product that only selects: the checkers of its exercises."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode

from ..language import N_, _
from .checking import answered, as_number, correct, hint, prediction, require, require_tensor

#: Exercise 1.1: the sentences whose one-hot rows the learner predicts, each with the name of its prediction.
WIDTH_SENTENCES = {"shape_cat": "the cat sat", "shape_log": "the log"}


def check_one_hot_widths(shape_cat: object, shape_log: object, encode: Callable[[str], torch.Tensor],
                         vocab_size: int) -> None:
    """Exercise 1.1: the predicted shapes of ``F.one_hot(encode(sentence))``, without ``num_classes``, where
    ``encode`` maps a sentence to its ids in a vocabulary of ``vocab_size`` tokens. Judges nothing while a guess is
    None."""
    if not answered(shape_cat=shape_cat, shape_log=shape_log):
        return
    for name, predicted in (("shape_cat", shape_cat), ("shape_log", shape_log)):
        shape = tuple(prediction(name, predicted, (tuple, torch.Size), "(2, 5)"))
        ids = encode(WIDTH_SENTENCES[name])
        actual = tuple(F.one_hot(ids).shape)
        why = hint([(len(shape) != 2, _("one row per id, so two numbers: (rows, width)")),
                    (shape[:1] != actual[:1], _("count the tokens of {sentence!r}: one row each").format(
                                                  sentence=WIDTH_SENTENCES[name])),
                    (shape[1:] == (vocab_size,),
                     _("F.one_hot is given only the ids, not the vocabulary: where else can it take the width from?"))],
                   _("the width comes from the ids in this call alone: look at their values in section 1's table"))
        require(shape == actual, _("{name} = {shape} is not the shape F.one_hot gives without num_classes. "
                                    "Hint: {why}").format(name=name, shape=shape, why=why))
    return correct(_("both predicted shapes match what F.one_hot returns without num_classes"))


#: Exercise 1.2: the batch and the sizes of the prediction (GPT-2 small's vocabulary and width)
FLOP_BATCH, FLOP_SIZES = (8, 1024), (50_257, 768)


def _counted_flops() -> tuple[int, int]:
    """FlopCounterMode's counts for the one-hot product's forward and backward passes, for :data:`FLOP_BATCH` ids at
    :data:`FLOP_SIZES`, on the ``meta`` device: shapes only, so no memory is spent on the one-hot rows."""
    (batch, length), (vocab_size, dim) = FLOP_BATCH, FLOP_SIZES
    one_hot_rows = torch.empty(batch, length, vocab_size, device="meta")  # made from ids: needs no gradient
    table = torch.empty(vocab_size, dim, device="meta", requires_grad=True)
    with FlopCounterMode(display=False) as counter:
        product = one_hot_rows @ table
    forward = counter.get_total_flops()
    with FlopCounterMode(display=False) as counter:
        product.backward(torch.empty_like(product))
    return forward, counter.get_total_flops()


class _AdditionRecorder(TorchDispatchMode):
    """Records the operations run under it and counts the numbers that the accumulating ones (``index_put`` with
    ``accumulate=True``, ``index_add``) add into their target."""

    def __init__(self) -> None:
        super().__init__()
        self.additions = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func.overloadpacket.__name__
        if name in ("index_put", "index_put_", "_index_put_impl_"):
            if (args[3] if len(args) > 3 else kwargs.get("accumulate", False)):
                self.additions += args[2].numel()  # the values, each added into the target
        elif name in ("index_add", "index_add_"):
            self.additions += args[3].numel()  # the source, each added into the target
        return func(*args, **kwargs)


def _recorded_lookup_additions() -> int:
    """The additions the lookup's backward pass runs (the table's gradient), for :data:`FLOP_BATCH` ids at
    :data:`FLOP_SIZES`, on the ``meta`` device: recorded from the operations it dispatches, not from a formula."""
    (batch, length), (vocab_size, dim) = FLOP_BATCH, FLOP_SIZES
    table = torch.empty(vocab_size, dim, device="meta", requires_grad=True)
    rows = table[torch.empty(batch, length, dtype=torch.long, device="meta")]
    with _AdditionRecorder() as recorder:
        rows.backward(torch.empty_like(rows))
    return recorder.additions


def check_flops_prediction(backward_ratio: object, lookup_backward_additions: object) -> None:
    """Exercise 1.2: the predicted ratio of FlopCounterMode's counts for the one-hot product's backward and forward
    passes, and the number of additions the lookup's backward pass runs. Judges nothing while a guess is None."""
    if not answered(backward_ratio=backward_ratio, lookup_backward_additions=lookup_backward_additions):
        return
    ratio = as_number("backward_ratio", prediction("backward_ratio", backward_ratio, (int, float), "1.5"),
                      _("backward FLOPs over forward FLOPs"))
    additions = prediction("lookup_backward_additions", lookup_backward_additions, int, "2 * 3 * 4")
    forward, backward = _counted_flops()
    why = hint([(ratio == 2 * backward / forward,
                 _("two products would mean a gradient for both factors: which of them needs one? Where do the "
                    "one-hot rows come from?")),
                (ratio == 0, _("the table's gradient is a matrix product, and FlopCounterMode counts those"))],
               _("an (m, k) @ (k, n) product costs 2·m·k·n FLOPs: compare the sizes of the two products, and count "
                  "how many products the backward pass runs"))
    require(ratio == backward / forward,
            _("backward_ratio = {ratio:g} is not the ratio of FlopCounterMode's counts. Hint: {why}").format(
                ratio=ratio, why=why))
    (batch, length), (vocab_size, dim) = FLOP_BATCH, FLOP_SIZES
    why = hint([(additions == 0, _("FlopCounterMode's 0 is no measurement (section 5): adding rows is arithmetic")),
                (additions in (forward, forward // 2), _("that is the product's count: does the lookup touch the "
                                                          "rows of the table that no id picked?")),
                (additions == vocab_size * dim, _("the gradient has V·d entries, but rows that no id picked get "
                                                   "nothing added: count what is added, not where it goes")),
                (additions == batch * length, _("each row of grad_out holds more than one number"))],
               _("what shape has grad_out, and how many times is each of its numbers added into the gradient?"))
    require(additions == _recorded_lookup_additions(),
            _("lookup_backward_additions is not the number of additions the lookup's backward pass runs. "
               "Hint: {why}").format(why=why))
    return correct(_("backward_ratio matches FlopCounterMode's counts for the product's two passes, and "
                      "lookup_backward_additions matches the additions recorded in the lookup's backward pass"))


#: Exercise 1.3: the four expressions whose exactness the learner predicts, by letter (``x`` one-hot, ``w`` the table)
EXPRESSIONS = {
    "a": lambda x, w: ((2 * x) @ w) / 2,
    "b": lambda x, w: ((x / 10) @ w) * 10,
    "c": lambda x, w: (x.double() @ w.double()).float(),
    "d": lambda x, w: (x.half() @ w.half()).float(),
}
#: the hint for a letter predicted wrongly, by letter: a reason to look at, never the verdict
EXACT_HINTS = {
    "a": N_("what does multiplying a float by 2, or by 1/2, change in its bits?"),
    "b": N_("can float32 hold 1/10 exactly? Follow a single entry through each multiplication"),
    "c": N_("can float64 hold every float32 number? Then ask whether a one-hot product rounds in float64"),
    "d": N_("casting W to float16 happens before any product: can 11 significant bits hold every float32 entry?"),
}


def check_exact_expressions(exact: object, x: torch.Tensor, weight: torch.Tensor) -> None:
    """Exercise 1.3: the set of letters of :data:`EXPRESSIONS` that return ``weight[ids]`` exactly (``torch.equal``),
    where ``x`` holds the one-hot rows of ``ids``; computed here on the CPU. Judges nothing while a guess is None."""
    if not answered(exact=exact):
        return
    exact = prediction("exact", exact, (set, frozenset), '{"a"}')
    unknown = sorted(str(letter) for letter in exact if letter not in EXPRESSIONS)
    require(not unknown, _("exact holds {unknown}: use the letters {expressions}, as strings").format(
                             unknown=unknown, expressions=sorted(EXPRESSIONS)))
    x, weight = require_tensor("x", x), require_tensor("W", weight)  # on the CPU
    rows = weight[x.argmax(dim=1)]
    measured = {letter for letter, expression in EXPRESSIONS.items() if torch.equal(expression(x, weight), rows)}
    wrong = sorted(set(exact) ^ measured)
    require(not wrong, _("exact is not right about {count} of the four expressions. Hint for {wrong}: "
                          "{hint}").format(
                           count=len(wrong), wrong=wrong[0], hint=_(EXACT_HINTS[wrong[0]])) if wrong else "")
    return correct(
        _("your set names exactly the expressions that return W[ids] exactly (torch.equal), computed on the CPU")
    )
