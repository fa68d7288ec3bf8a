"""Notebook 6, what the lookup saves, measured: the checkers of its exercises."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

from .checking import as_number, correct, hint, prediction, require, require_keys

#: Exercise 6.1: the two vocabulary sizes and the width at which the lookup's backward is timed.
BACKWARD_SIZES = (1_000, 50_257)
BACKWARD_DIM = 16
#: Exercise 6.2: GPT-2's width.
WIDTH = 768
#: Exercise 6.3: the sizes the counter runs at.
FLOP_SIZES = (32, 2_000, 8)


def check_backward_prediction(backward_grows_with_V: bool) -> bool:
    """Exercise 6.1, first part: the prediction, recorded before any timing, of whether the lookup's backward
    takes longer at a larger ``V`` (it does: it returns a dense ``[V, d]`` gradient for ``W``)."""
    require(prediction("backward_grows_with_V", backward_grows_with_V, bool, "True"), "backward_grows_with_V = "
            "False: the forward reads n rows whatever V is, but what does the backward hand back for W, and of what "
            "shape? (section 4 printed it)")
    return correct("your prediction for the lookup's backward")


def check_backward_measurement(grad_bytes: dict[int, int], backward_growth: float) -> bool:
    """Exercise 6.1, second part: ``grad_bytes``, ``{V: bytes}`` of the gradient the lookup's backward returns for
    ``W`` at each of :data:`BACKWARD_SIZES` (``d = 16``, float32), and ``backward_growth``, the backward's time at
    the larger ``V`` over its time at the smaller.

    The bytes are checked exactly; the growth only as a number, never as a speed: timings differ from machine to
    machine and from run to run."""
    for V, nbytes in require_keys("grad_bytes", grad_bytes, BACKWARD_SIZES, "V to bytes").items():
        nbytes = as_number(f"grad_bytes[{V}]", nbytes, "a number of bytes")
        require(nbytes == V * BACKWARD_DIM * 4, f"grad_bytes[{V}] = {nbytes:,.15g} is not the bytes of W's gradient "
                f"at V = {V:,}, d = {BACKWARD_DIM}. Hint: read .nbytes of the gradient the backward returns for W; it "
                "holds every row")
    growth = as_number("backward_growth", backward_growth, "a ratio of two times")
    require(math.isfinite(growth) and growth > 0, f"backward_growth = {growth}: a ratio of two times is a positive "
            "number")
    return correct("the bytes of W's gradient at both V, and your measured growth of the backward's time, as a "
                   "number")


def check_largest_batch(largest_n: int) -> bool:
    """Exercise 6.2: the largest ``n`` whose float32 one-hot, ``n·V·4`` bytes, is no larger than the table's
    ``V·d·4`` at ``d = 768``."""
    if isinstance(largest_n, bool) or not isinstance(largest_n, int):
        raise TypeError(f"largest_n must be a whole number of tokens, got {type(largest_n).__name__}")
    require(largest_n == WIDTH, hint([
        (largest_n == WIDTH // 2, "largest_n counts the one-hot at 8 bytes an entry: it is compared here as float32, "
         "4 bytes, like the table"),
        (largest_n == WIDTH - 1, "largest_n is one short: a one-hot exactly as large as the table takes no more "
         "memory")], f"largest_n = {largest_n:,} is not the largest batch whose one-hot is no larger than the table. "
        "Hint: write both sizes in bytes, n·V·4 and V·d·4, and see what cancels"))
    return correct("the largest batch whose float32 one-hot is no larger than the table, at GPT-2's width")


def _count(sizes: tuple[int, int, int]) -> dict[str, int]:
    """FlopCounterMode's count of the dense product, its one-hot requiring a gradient too, and of the lookup,
    forward and backward, at ``(n, V, d)``, on the meta device: shapes only, so any sizes cost no memory and no
    time."""
    n, V, d = sizes
    weight = torch.zeros(V, d, device="meta", requires_grad=True)
    forwards = {"dense": lambda: torch.zeros(n, V, device="meta", requires_grad=True) @ weight,
                "lookup": lambda: F.embedding(torch.zeros(n, dtype=torch.long, device="meta"), weight)}
    counts = {}
    for name, forward in forwards.items():
        with FlopCounterMode(display=False) as counter:
            forward().backward(torch.zeros(n, d, device="meta"))
        counts[name] = counter.get_total_flops()
    return counts


def check_predicted_flops(predicted_flops: dict[str, int]) -> bool:
    """Exercise 6.3: ``{"dense": flops, "lookup": flops}``, what FlopCounterMode counts for each, forward and
    backward, at ``FLOP_SIZES``, with the one-hot requiring a gradient as well as ``W``; the checker runs the
    counter (on the meta device) and compares."""
    guesses = {key: as_number(f"predicted_flops[{key!r}]", value, "a count of FLOPs")
               for key, value in require_keys("predicted_flops", predicted_flops, ["dense", "lookup"],
                                              "'dense' and 'lookup' to a count").items()}
    counted = _count(FLOP_SIZES)
    forward = counted["dense"] // 3
    dense_hints = {
        forward: "that is one matrix product's count. The backward computes two gradients, W's and the one-hot's, "
                 "each one more product of the same size (and a multiply-add counts as 2 FLOPs)",
        forward // 2: "a multiply-add counts as 2 FLOPs, and the backward computes two gradients, each a product",
        2 * forward: "that counts W's gradient; the one-hot requires a gradient here too: grad @ W.T, one more "
                     "product of the same size",
    }
    why = dense_hints.get(int(guesses["dense"]), "count each matrix product as 2·rows·inner·columns FLOPs")
    require(guesses["dense"] == counted["dense"], f"predicted_flops['dense'] is not the counter's count. Hint: {why}")
    require(guesses["lookup"] == counted["lookup"], "predicted_flops['lookup'] is not the counter's count. Hint: the "
            "counter counts the FLOPs of matrix products; which does the lookup run, forward or backward?")
    return correct("your predicted FLOPs of the dense product and of the lookup, forward and backward, against "
                   "FlopCounterMode's count")
