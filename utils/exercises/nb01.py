"""Notebook 1, one-hot vectors and the matrix product: the checkers of its exercises."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

from ..language import N_, _
from .checking import (
    answered,
    as_number,
    correct,
    hint,
    letters_prediction,
    prediction,
    require,
    require_tensor,
)


def check_changed_guess(changed_guess: object, one_hot: torch.Tensor, table: torch.Tensor) -> None:
    """The scaled rows' prediction (*Going deeper*): the positions of the tokens whose output from
    ``((2 * one_hot) @ table) / 2`` differs from the lookup, where ``table`` holds a huge finite number in the row one
    token picks. Judges nothing while the guess is None."""
    if not answered(changed_guess=changed_guess):
        return
    guess = prediction("changed_guess", changed_guess, list, "[1, 3]")
    with torch.no_grad():
        one_hot, table = one_hot.detach().cpu().float(), table.detach().cpu().float()
        product, lookup = ((2 * one_hot) @ table) / 2, table[one_hot.argmax(dim=1)]
    require(sorted(guess) == (product != lookup).any(dim=1).nonzero().flatten().tolist(), _(
        "write entry 0 of one output as a sum over the V rows of W: every row enters it, multiplied by 0 or 2. "
        "What are 2·3e38 and 0·3e38 in float32, whose largest number is about 3.4e38?"))
    return correct(_("changed_guess names the tokens whose output from ((2 * x) @ W_big) / 2 differs from "
                     "W_big[ids], found by the checker"))


#: Exercise 1.1: the sentences, by letter, whose one-hot rows (made without ``num_classes``) the learner predicts
#: ``W`` can multiply
WIDTH_SENTENCES = {"a": "the cat sat", "b": "the dog saw the log", "c": "the cat and the dog", "d": "a sofa, and a log"}


def check_one_hot_products(multipliable: object, encode: Callable[[str], torch.Tensor], weight: torch.Tensor) -> None:
    """Exercise 1.1: the set of letters of :data:`WIDTH_SENTENCES` whose ``F.one_hot(encode(sentence))``, without
    ``num_classes``, ``weight`` can multiply; tried here on the CPU. Judges nothing while a guess is None."""
    if not answered(multipliable=multipliable):
        return
    multipliable = letters_prediction("multipliable", multipliable, WIDTH_SENTENCES)
    weight = require_tensor("W", weight)
    measured = set()
    for letter, sentence in WIDTH_SENTENCES.items():
        try:
            F.one_hot(encode(sentence)).float() @ weight
        except RuntimeError:  # the shapes do not fit
            continue
        measured.add(letter)
    wrong = sorted(set(multipliable) ^ measured)
    require(not wrong, _("multipliable is not right about {count} of the four sentences. Hint for {wrong}: find the "
                          "largest id of {sentence!r} in section 1's table (a word outside the vocabulary is <unk>): "
                          "how wide does it make the rows, and how many rows has W?").format(
                           count=len(wrong), wrong=wrong[0], sentence=WIDTH_SENTENCES[wrong[0]]) if wrong else "")
    return correct(_("your set names exactly the sentences whose one-hot rows, made without num_classes, W can "
                      "multiply"))


#: Exercise 1.2: the sizes of the prediction, by name: ``B`` bags of ``k`` ids each, GPT-2 small's vocabulary and width
FLOP_SIZES = {"B": 8, "k": 64, "V": 50_257, "d": 768}


def _flops_per_copied(B: int, k: int, V: int, d: int) -> float:  # the exercise's names for the sizes
    """FlopCounterMode's count for the multi-hot product of ``B`` bags of ``k`` ids (one row per bag) with a
    ``(V, d)`` table, over the numbers the lookup of the same ``(B, k)`` ids copies before adding them; on the
    ``meta`` device: shapes only, so no memory is spent."""
    multi_hot_rows = torch.empty(B, V, device="meta")
    table = torch.empty(V, d, device="meta")
    with FlopCounterMode(display=False) as counter:
        multi_hot_rows @ table
    copied = table[torch.empty(B, k, dtype=torch.long, device="meta")].numel()
    return counter.get_total_flops() / copied


def flops_ratios() -> tuple[float, dict[str, float]]:
    """Exercise 1.2, measured: :func:`_flops_per_copied` at :data:`FLOP_SIZES`, and with each size doubled in turn
    (by name)."""
    return _flops_per_copied(**FLOP_SIZES), {name: _flops_per_copied(**{**FLOP_SIZES, name: 2 * size})
                                             for name, size in FLOP_SIZES.items()}


def check_flops_prediction(flops_per_copied: object, grows_with: object) -> None:
    """Exercise 1.2: the predicted ratio of FlopCounterMode's count for the multi-hot product of ``B`` bags to the
    numbers the lookup of their ids copies, at :data:`FLOP_SIZES`, and the set of sizes that make it larger when they
    double. Judges nothing while a guess is None."""
    if not answered(flops_per_copied=flops_per_copied, grows_with=grows_with):
        return
    ratio = as_number("flops_per_copied", prediction("flops_per_copied", flops_per_copied, (int, float), "1.5"),
                      _("the product's FLOPs over the numbers the lookup copies"))
    grows_with = prediction("grows_with", grows_with, (set, frozenset), '{"B"}')
    unknown = sorted(str(name) for name in grows_with if name not in FLOP_SIZES)
    require(not unknown, _("grows_with holds {unknown}: use the names {sizes}, as strings").format(
                             unknown=unknown, sizes=list(FLOP_SIZES)))
    measured, doubled = flops_ratios()
    one_hot_ratio = 2 * FLOP_SIZES["V"]  # what one id per row would give: section 4's count
    why = hint([(ratio == measured / 2, _("FlopCounterMode counts two FLOPs for each multiply-add (section 4)")),
                (ratio in (one_hot_ratio, one_hot_ratio / 2),
                 _("that holds for one-hot rows, one id per row. Here, how many rows does the product multiply per "
                    "bag, and how many rows does the lookup copy?")),
                (ratio in (1 / measured, 2 / measured),
                 _("that is the other way up: the product's FLOPs over the numbers copied"))],
               _("per bag, how many FLOPs does the product count (section 4), and how many numbers does the "
                  "lookup copy?"))
    require(ratio == measured, _("flops_per_copied = {ratio:g} is not the ratio of the two counts. Hint: {why}").format(
                                   ratio=ratio, why=why))
    larger = {name for name, ratio in doubled.items() if ratio > measured}  # measured, one size doubled at a time
    wrong = [name for name in FLOP_SIZES if (name in grows_with) != (name in larger)]
    require(not wrong, _("grows_with is not right about {name}. Hint: write the ratio in B, k, V and d, and cancel "
                          "what is both above and below").format(name=wrong[0]) if wrong else "")
    return correct(_("flops_per_copied matches FlopCounterMode's count over the numbers the lookup copies, and "
                      "grows_with names exactly the sizes that make it larger, measured by doubling each"))


#: Exercise 1.3: the four expressions whose exactness the learner predicts, by letter (``x`` one-hot, ``w`` the table)
EXPRESSIONS = {
    "a": lambda x, w: ((3 * x) @ w) / 3,
    "b": lambda x, w: ((x / 10) @ w) * 10,
    "c": lambda x, w: (x @ (w * 2.0**100)) / 2.0**100,
    "d": lambda x, w: (x.half() @ w.half()).float(),
}
#: the hint for a letter predicted wrongly, by letter: a reason to look at, never the verdict
EXACT_HINTS = {
    "a": N_("multiplying by 2 changes only a float's exponent: what can multiplying by 3, then dividing by 3, change?"),
    "b": N_("can float32 hold 1/10 exactly? Follow a single entry through each multiplication"),
    "c": N_("2.0**100 is a power of two: when does multiplying by one change more than the exponent (Going deeper's "
            "scaled rows)?"),
    "d": N_("casting W to float16 happens before any product: can 11 significant bits hold every float32 entry?"),
}


#: how many tables Exercise 1.3's checker tries: the notebook's ``W`` and this many minus one drawn the same way
#: (its success line says 200)
EXACT_TABLES = 200


def exact_everywhere(x: torch.Tensor, weight: torch.Tensor) -> dict[str, bool]:
    """Exercise 1.3, measured on the CPU, by letter of :data:`EXPRESSIONS`: whether the expression returns the rows
    ``weight[ids]`` exactly (``torch.equal``) on every one of :data:`EXACT_TABLES` tables, ``weight`` and more drawn
    like it (``torch.randn`` from seed 0). How many entries round varies with the CPU's kernels; this does not."""
    ids = x.argmax(dim=1)
    draws = torch.Generator().manual_seed(0)  # the same extra tables in every run
    tables = [weight] + [torch.randn(weight.shape, generator=draws) for _draw in range(EXACT_TABLES - 1)]
    return {letter: all(torch.equal(expression(x, table), table[ids]) for table in tables)
            for letter, expression in EXPRESSIONS.items()}


def check_exact_expressions(exact: object, x: torch.Tensor, weight: torch.Tensor) -> None:
    """Exercise 1.3: the set of letters of :data:`EXPRESSIONS` *sure to* return ``weight[ids]`` exactly
    (``torch.equal``), where ``x`` holds the one-hot rows of ``ids``: exact on ``weight`` and on every one of
    :data:`EXACT_TABLES` - 1 more tables drawn like it (``torch.randn``, from seed 0); computed here on the CPU.
    Judges nothing while a guess is None."""
    if not answered(exact=exact):
        return
    exact = letters_prediction("exact", exact, EXPRESSIONS)
    x, weight = require_tensor("x", x), require_tensor("W", weight)  # on the CPU
    measured = {letter for letter, exact_on_all in exact_everywhere(x, weight).items() if exact_on_all}
    wrong = sorted(set(exact) ^ measured)
    # how many letters are wrong and a hint for one, as Exercise 1.1's checker: naming every wrong letter, or counting
    # tables, would give verdicts away
    require(not wrong, _("exact is not right about {count} of the four. Hint for {wrong}: {hint}").format(
                           count=len(wrong), wrong=wrong[0], hint=_(EXACT_HINTS[wrong[0]])) if wrong else "")
    return correct(_("your set matches what the checker measured (torch.equal) on 200 tables, this W and 199 more "
                      "drawn like it, on the CPU"))
