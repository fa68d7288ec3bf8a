"""Notebook 6, what the lookup saves, measured: the checkers of its exercises."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

from .checking import as_number, correct, require, require_keys

#: Exercise 6.1: V grows tenfold. A guess within these bounds has the right idea: the dense product's work grows
#: with V, the lookup's does not.
GROWTH_BOUNDS = {"lookup": (0.5, 2.0), "dense": (5.0, 20.0)}
GROWTH_HINTS = {
    "lookup": "how many rows does the lookup read for n ids, and does V change that?",
    "dense": "the dense product does 2·n·V·d FLOPs: what happens to them when V is ten times larger?",
}
#: Exercise 6.2: GPT-2's width.
WIDTH = 768
#: Exercise 6.3: the sizes the counter runs at.
FLOP_SIZES = (32, 2_000, 8)


def _growth(name: str, factors: object) -> dict[str, float]:
    """``{"lookup": factor, "dense": factor}``, each a positive, finite number."""
    values = {key: as_number(f"{name}[{key!r}]", value, "a factor")
              for key, value in require_keys(name, factors, ("lookup", "dense")).items()}
    for key, value in values.items():
        require(math.isfinite(value) and value > 0,
                f"{name}[{key!r}] = {value}: a growth factor is a positive number (1: no growth)")
    return values


def check_predicted_growth(predicted_growth: dict[str, float]) -> bool:
    """Exercise 6.1, first part: the predicted growth of each method's time when V grows from 2,000 to 20,000."""
    guesses = _growth("predicted_growth", predicted_growth)
    for key, (low, high) in GROWTH_BOUNDS.items():
        require(low <= guesses[key] <= high, f"predicted_growth[{key!r}] = {guesses[key]:g} is far from what the work "
                f"of the {key} suggests. Hint: {GROWTH_HINTS[key]}")
    return correct("your predicted growth of each method, against how its work grows with V")


def check_measured_growth(measured_growth: dict[str, float]) -> bool:
    """Exercise 6.1, second part: the measured growth of each method's time from V = 2,000 to 20,000.

    Checks the kind of number and the order of the two (the dense product's work grows tenfold, the lookup's not
    at all), never a speed: timings differ from machine to machine and from run to run."""
    measured = _growth("measured_growth", measured_growth)
    require(measured["dense"] > measured["lookup"], f"measured_growth = {measured_growth}: the dense product's time "
            "did not grow more than the lookup's. Hint: each factor is the time at V = 20,000 over the time at "
            "V = 2,000; are the two sizes or the two methods swapped?")
    return correct("your measured growth of each method, against the order of their work")


def check_largest_batch(largest_n: int) -> bool:
    """Exercise 6.2: the largest ``n`` whose float32 one-hot, ``n·V·4`` bytes, is no larger than the table's
    ``V·d·4`` at ``d = 768``."""
    if isinstance(largest_n, bool) or not isinstance(largest_n, int):
        raise TypeError(f"largest_n must be a whole number of tokens, got {type(largest_n).__name__}")
    require(largest_n != WIDTH // 2, "largest_n counts the one-hot at 8 bytes an entry: it is compared here as "
            "float32, 4 bytes, like the table")
    require(largest_n != WIDTH - 1,
            "largest_n is one short: a one-hot exactly as large as the table takes no more memory")
    require(largest_n == WIDTH, f"largest_n = {largest_n:,} is not the largest batch whose one-hot is no larger than "
            "the table. Hint: write both sizes in bytes, n·V·4 and V·d·4, and see what cancels")
    return correct("the largest batch whose float32 one-hot is no larger than the table, at GPT-2's width")


def _count(sizes: tuple[int, int, int]) -> dict[str, int]:
    """FlopCounterMode's count of the dense product and of the lookup, forward and backward, at ``(n, V, d)``,
    on the meta device: shapes only, so any sizes cost no memory and no time."""
    n, V, d = sizes
    weight = torch.zeros(V, d, device="meta", requires_grad=True)
    forwards = {"dense": lambda: torch.zeros(n, V, device="meta") @ weight,
                "lookup": lambda: F.embedding(torch.zeros(n, dtype=torch.long, device="meta"), weight)}
    counts = {}
    for name, forward in forwards.items():
        with FlopCounterMode(display=False) as counter:
            forward().backward(torch.zeros(n, d, device="meta"))
        counts[name] = counter.get_total_flops()
    return counts


def check_predicted_flops(predicted_flops: dict[str, int]) -> bool:
    """Exercise 6.3: ``{"dense": flops, "lookup": flops}``, what FlopCounterMode counts for each, forward and
    backward, at ``FLOP_SIZES``; the checker runs the counter (on the meta device) and compares."""
    guesses = {key: as_number(f"predicted_flops[{key!r}]", value, "a count of FLOPs")
               for key, value in require_keys("predicted_flops", predicted_flops, ("dense", "lookup")).items()}
    counted = _count(FLOP_SIZES)
    forward = counted["dense"] // 2
    dense_hints = {
        forward: "that is one matrix product's count. The backward computes W's gradient, one more product of the "
                 "same size (and a multiply-add counts as 2 FLOPs)",
        forward // 2: "a multiply-add counts as 2 FLOPs, and the backward computes W's gradient, one more product",
        3 * forward: "the one-hot is an input, not a parameter: no gradient is computed for it",
    }
    why = dense_hints.get(int(guesses["dense"]), "count each matrix product as 2·rows·inner·columns FLOPs")
    require(guesses["dense"] == counted["dense"], f"predicted_flops['dense'] is not the counter's count. Hint: {why}")
    require(guesses["lookup"] == counted["lookup"], "predicted_flops['lookup'] is not the counter's count. Hint: the "
            "counter counts the FLOPs of matrix products; which does the lookup run, forward or backward?")
    return correct("your predicted FLOPs of the dense product and of the lookup, forward and backward, against "
                   "FlopCounterMode's count")
