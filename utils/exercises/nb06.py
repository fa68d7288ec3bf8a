"""Notebook 6, what the lookup saves, measured: the checkers of its exercises."""

from __future__ import annotations

import torch
from torch.utils.flop_counter import FlopCounterMode

from ..language import _
from .checking import AnswerTypeError, answered, as_number, correct, hint, require

#: Exercise 6.1: GPT-2's vocabulary and width.
GPT2_TABLE = (50_257, 768)
#: Bytes of one id (int64), of one float32 value and of one bfloat16 value.
ID_BYTES, FLOAT_BYTES, HALF_BYTES = 8, 4, 2
#: Exercise 6.2: GPT-2's width.
WIDTH = 768
#: Exercise 6.3: the sizes the counter runs at.
FLOP_SIZES = (32, 2_000, 8)


def largest_coalesced_bytes(vocab_size: int, embedding_dim: int) -> int:
    """The most bytes a coalesced ``sparse=True`` gradient can take: one entry per distinct id, at most ``V`` of
    them, each an int64 id and ``d`` float32 values: ``V·(8 + 4·d)``."""
    return vocab_size * (ID_BYTES + FLOAT_BYTES * embedding_dim)


def check_largest_coalesced(largest_coalesced: int, fewest_ids: int) -> None:
    """Exercise 6.1: the most bytes a coalesced sparse gradient can take at GPT-2's sizes, whatever the batch
    (:func:`largest_coalesced_bytes`), and the fewest different ids in a batch for which the coalesced gradient
    takes more bytes than the dense gradient's ``V·d·4``: ``V·d·4 // (8 + 4·d) + 1``, nearly every id."""
    if not answered(largest_coalesced=largest_coalesced, fewest_ids=fewest_ids):
        return
    if isinstance(largest_coalesced, bool) or not isinstance(largest_coalesced, int):
        raise AnswerTypeError(
            _("largest_coalesced must be a whole number of bytes, got {type}").format(
                type=type(largest_coalesced).__name__))
    if isinstance(fewest_ids, bool) or not isinstance(fewest_ids, int):
        raise AnswerTypeError(_("fewest_ids must be a whole number of ids, got {type}").format(
            type=type(fewest_ids).__name__))
    V, d = GPT2_TABLE
    answer = largest_coalesced_bytes(V, d)
    require(largest_coalesced == answer, hint([
        (largest_coalesced == V * d * FLOAT_BYTES, _("that is the dense gradient's size: each entry of the sparse "
                                                      "one also stores its id, 8 bytes")),
        (largest_coalesced == V * (ID_BYTES + d), _("an entry's d values are float32, 4 bytes each")),
        (largest_coalesced > answer, _("after .coalesce() no two entries share an id: how many different ids can a "
                                        "table of V rows have?")),
    ], _("largest_coalesced = {largest_coalesced:,} is not the most a coalesced gradient can take. Hint: "
          "however long the batch, how many entries can remain once the entries of equal ids are merged?").format(
           largest_coalesced=largest_coalesced)))
    require(fewest_ids == V * d * FLOAT_BYTES // (answer // V) + 1, _(
        "largest_coalesced is right, but fewest_ids is not: k different ids take k entries of 8 + 4·d bytes; find "
        "the smallest k for which that is more than the dense gradient's V·d·4 bytes"))
    return correct(_("the most bytes a coalesced sparse gradient can take at GPT-2's sizes, whatever the batch, and "
                     "the fewest different ids for which it takes more than the dense gradient"))


def check_largest_batch(largest_n: int) -> None:
    """Exercise 6.2: the largest ``n`` whose one-hot at its peak in ``F.one_hot(ids, V).to(torch.bfloat16)``, the
    int64 one-hot and its bfloat16 copy, ``n·V·(8 + 2)`` bytes, is no larger than the bfloat16 table's ``V·d·2``
    at ``d = 768``: ``n <= 2·d/10``. The int64 one-hot does not shrink with the table's dtype."""
    if not answered(largest_n=largest_n):
        return
    if isinstance(largest_n, bool) or not isinstance(largest_n, int):
        raise AnswerTypeError(_("largest_n must be a whole number of tokens, got {type}").format(
                                  type=type(largest_n).__name__))
    answer = HALF_BYTES * WIDTH // (ID_BYTES + HALF_BYTES)
    require(largest_n == answer, hint([
        (largest_n == FLOAT_BYTES * WIDTH // (ID_BYTES + FLOAT_BYTES), _("that is the answer for float32: here the "
         "table and the copy are bfloat16, 2 bytes a number, while F.one_hot still returns int64")),
        (largest_n == WIDTH, _("largest_n counts the bfloat16 one-hot alone: while .to() copies it, the int64 "
                                "one-hot F.one_hot returned exists too (section 6)")),
        (largest_n == HALF_BYTES * WIDTH // ID_BYTES, _("largest_n counts the int64 one-hot alone: while .to() "
                                                         "copies it, its bfloat16 copy exists too (section 6)")),
        (largest_n == answer - 1, _("largest_n is one short: a one-hot exactly as large as the table takes no more "
                                     "memory"))],
        _("largest_n = {largest_n:,} is not the largest batch whose one-hot, at its peak, is no larger than the "
          "bfloat16 table. Hint: write both sizes in bytes, see what cancels, and round down").format(
              largest_n=largest_n)))
    return correct(_("the largest batch whose one-hot, at its peak, is no larger than the bfloat16 table, at "
                      "GPT-2's width"))


def _count(sizes: tuple[int, int, int]) -> dict[str, int]:
    """FlopCounterMode's count of ``(X @ W).backward(grad)``, forward and backward, at ``(n, V, d)``, with ``W``
    requiring a gradient and ``X`` (n, V) either constant, as a one-hot is, or requiring a gradient too, on the meta
    device: shapes only, so any sizes cost no memory and no time."""
    n, V, d = sizes
    counts = {}
    for name, requires_grad in (("constant", False), ("requires_grad", True)):
        weight = torch.zeros(V, d, device="meta", requires_grad=True)
        X = torch.zeros(n, V, device="meta", requires_grad=requires_grad)
        with FlopCounterMode(display=False) as counter:
            (X @ weight).backward(torch.zeros(n, d, device="meta"))
        counts[name] = counter.get_total_flops()
    return counts


def check_predicted_flops(predicted_flops: int | None) -> None:
    """Exercise 6.3, a prediction: what FlopCounterMode counts for ``(X @ W).backward(grad)`` at ``FLOP_SIZES``,
    ``W`` and the one-hot ``X`` both requiring a gradient: the forward, ``W``'s gradient and ``X``'s gradient
    ``grad @ W.T``, 3 products of ``2·n·V·d`` each, though the last one's inner size is ``d``. Section 1 gives the
    count with a constant ``X`` (2 products), so the exercise asks only for this one. The checker runs the counter
    (on the meta device) and compares. Judges nothing while the guess is None."""
    if not answered(predicted_flops=predicted_flops):
        return
    learned = as_number("predicted_flops", predicted_flops, _("a count of FLOPs"))
    counted = _count(FLOP_SIZES)
    require(learned == counted["requires_grad"], _("predicted_flops is not the counter's count. Hint: {why}").format(
        why=hint([
            (learned == counted["constant"], _("X requires a gradient now, so the backward computes one more: "
                                               "which product gives X's gradient?")),
            (learned == counted["requires_grad"] // 2, _("a multiply-add counts as 2 FLOPs, as in section 1")),
            (counted["constant"] < learned < counted["requires_grad"], _(
                "X's gradient, grad @ W.T, is (n, d) @ (d, V): its inner size is d, but count its FLOPs as any "
                "product's, 2·rows·inner·columns")),
            (learned > counted["requires_grad"], _("the backward runs one product per gradient it computes, W's "
                                                   "and X's, and the forward one more"))],
            _("to section 1's count, with a constant one-hot, add X's gradient, grad @ W.T: one more product, "
              "counted as 2·rows·inner·columns FLOPs"))))
    return correct(_("your predicted FLOPs of the dense product, forward and backward, with a one-hot that "
                     "requires a gradient, against FlopCounterMode's count"))
