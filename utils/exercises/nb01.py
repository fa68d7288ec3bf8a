"""Notebook 1, one-hot vectors and the matrix product that only selects: the checkers of its exercises."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..lookup import one_hot_multiply_adds
from ..vocab import Vocab
from .checking import ExerciseError, correct


def check_encode_function(encode: Callable[[str], torch.Tensor], vocab: Vocab) -> bool:
    """Exercise 1.1: ``encode(sentence)`` -> int64 ids, unknown words -> ``<unk>``."""
    if not callable(encode):
        raise ExerciseError(f"pass your function itself (encode, not encode(...)); got {type(encode).__name__}")
    sentences = ["the cat sat on the mat .", "a zebra sat on the sofa !", "THE Cat", ""]
    for sentence in sentences:
        expected = vocab.encode(sentence)
        got = encode(sentence)
        if not isinstance(got, torch.Tensor):
            raise ExerciseError(f"encode({sentence!r}) returned {type(got).__name__}; return a torch.Tensor")
        if got.dtype != torch.long:
            raise ExerciseError(f"encode({sentence!r}) has dtype {got.dtype}; ids should be torch.long (int64)")
        if not torch.equal(got, expected):
            raise ExerciseError(
                f"encode({sentence!r}) gave {got.tolist()}, expected {expected.tolist()}. "
                "Hint: tokenize (lower-case) first, then map each word with vocab.stoi, "
                "using vocab.unk_id for words that are missing."
            )
    return correct("my_encode agrees with vocab.encode on 4 sentences, unknown words and capitals included")


def check_flop_growth(product_flops: dict[int, int], lookup_flops: dict[int, int], growth: float,
                      num_tokens: int, dim: int) -> bool:
    """Exercise 1.2: FLOPs measured with ``FlopCounterMode`` as ``V`` doubles, for ``num_tokens`` ids and ``d = dim``.

    ``product_flops[V]``: the one-hot product ``(T, V) @ (V, d)``, ``2·T·V·d`` FLOPs (a multiply and an
    add per multiply-add); ``lookup_flops[V]``: the lookup, 0 FLOPs; ``growth``: the product's factor
    per doubling of ``V``, 2.
    """
    one_hot_multiply_adds(num_tokens, 1, dim)  # TypeError or ValueError for a bad count or size
    for name, counts in (("product_flops", product_flops), ("lookup_flops", lookup_flops)):
        if not isinstance(counts, dict):
            raise TypeError(f"{name} must be a dict {{V: FLOPs}}, got {type(counts).__name__}")
        for size, flops in counts.items():
            if not isinstance(size, int) or isinstance(size, bool) or size < 1:
                raise TypeError(f"the keys of {name} must be vocabulary sizes V (positive ints), got {size!r}")
            if not isinstance(flops, (int, float)) or isinstance(flops, bool):
                raise TypeError(f"{name}[{size}] must be a number of FLOPs, got {type(flops).__name__}")
    if not isinstance(growth, (int, float)) or isinstance(growth, bool):
        raise TypeError(f"growth must be a number (a ratio of FLOP counts), got {type(growth).__name__}")

    sizes = sorted(product_flops)
    if len(sizes) < 3:
        raise ExerciseError(f"product_flops has {len(sizes)} size(s) of V; measure at least three: V = 15, 30, 60, 120")
    if any(larger != 2 * smaller for smaller, larger in zip(sizes, sizes[1:], strict=False)):
        raise ExerciseError(f"the sizes {sizes} do not double one after the other; use V = 15, 30, 60, 120")
    if sorted(lookup_flops) != sizes:
        raise ExerciseError(
            f"lookup_flops has the sizes {sorted(lookup_flops)}, product_flops {sizes}: measure both at every V"
        )
    for size in sizes:
        expected, got = 2 * one_hot_multiply_adds(num_tokens, size, dim).total, product_flops[size]
        if got == expected:
            continue
        if got == expected // 2:
            hint = "That is the count of multiply-adds; FlopCounterMode counts a multiply and an add: measure with it."
        elif got == 2 * size * dim:
            hint = f"That is one token's count: multiply the one-hot rows of all {num_tokens} ids."
        else:
            hint = ("Hint: wrap only the product in `with FlopCounterMode(display=False) as counter:` "
                    "and read counter.get_total_flops().")
        raise ExerciseError(f"product_flops[{size}] = {got}, expected {expected} (2·T·V·d). {hint}")
    counted = {size: flops for size, flops in lookup_flops.items() if flops != 0}
    if counted:
        raise ExerciseError(
            f"lookup_flops = {counted} where FlopCounterMode counts 0: the lookup table[ids] copies rows and "
            "multiplies nothing. Hint: measure the lookup alone, in its own `with FlopCounterMode(...)` block."
        )
    if abs(growth - 2) > 1e-9:
        raise ExerciseError(
            f"growth = {growth}, expected 2. Hint: divide the product's FLOPs at one V by those at half that V, "
            "e.g. product_flops[30] / product_flops[15]."
        )
    return correct("your counts agree with 2·T·V·d at every V, the lookup's with 0, and growth with their ratio")


#: Exercise 1.3: the rows of ``W`` that ``X @ W`` must return, in this order (the exercise names them).
SELECTION_ROWS = (3, 0, 3)


def check_selection_matrix(x: torch.Tensor, weight: torch.Tensor) -> bool:
    """Exercise 1.3: a hand-built ``x`` with ``x @ weight == weight[SELECTION_ROWS]``, exactly."""
    rows = list(SELECTION_ROWS)
    if not isinstance(x, torch.Tensor):
        raise ExerciseError(f"x must be a torch.Tensor, got {type(x).__name__}")
    expected_shape = (len(rows), weight.shape[0])
    if tuple(x.shape) != expected_shape:
        raise ExerciseError(
            f"x has shape {tuple(x.shape)}, expected {expected_shape}: one row per selected row, V columns"
        )
    if x.dtype != weight.dtype:
        raise ExerciseError(f"x has dtype {x.dtype}; a matrix product with the weight needs {weight.dtype}")
    if not bool(((x == 0) | (x == 1)).all()) or not bool((x.sum(dim=1) == 1).all()):
        raise ExerciseError("each row of x must hold a single 1 and zeros elsewhere (a one-hot row)")
    if not torch.equal(x @ weight, weight[rows]):
        picked = x.argmax(dim=1).tolist()
        raise ExerciseError(
            f"x selects rows {picked}, expected {list(rows)}. Hint: put the 1 of row i in column rows[i]"
        )
    return correct("X @ W equals W[[3, 0, 3]], bit for bit")
