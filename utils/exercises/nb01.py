"""Notebook 1, one-hot vectors and the matrix product that only selects: the checkers of its exercises."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..lookup import one_hot_multiply_adds
from ..vocab import Vocab, tokenize
from .checking import ExerciseError, correct, require_function


def check_encode_function(encode: Callable[[str], torch.Tensor], vocab: Vocab) -> bool:
    """Exercise 1.1: ``encode(sentence)`` -> int64 ids, unknown words -> ``<unk>``."""
    require_function("encode", encode)
    sentences = ["the cat sat on the mat .", "a zebra sat on the sofa !", "THE Cat", ""]
    for sentence in sentences:
        expected = vocab.encode(sentence)
        got = encode(sentence)
        if not isinstance(got, torch.Tensor):
            raise ExerciseError(f"encode({sentence!r}) returned {type(got).__name__}; return a torch.Tensor")
        if got.dtype != torch.long:
            raise ExerciseError(f"encode({sentence!r}) has dtype {got.dtype}; ids should be torch.long (int64)")
        if not torch.equal(got, expected):
            tokens = tokenize(sentence)
            if len(got) != len(tokens):
                where = f"{len(got)} ids for the {len(tokens)} tokens of tokenize({sentence!r})"
            else:
                first = next(i for i, (a, b) in enumerate(zip(got.tolist(), expected.tolist(), strict=True)) if a != b)
                where = f"a wrong id for the token {tokens[first]!r}"
            raise ExerciseError(
                f"encode({sentence!r}) gave {got.tolist()}: {where}. "
                "Hint: tokenize (lower-case) first, then map each word with vocab.stoi, "
                "using vocab.unk_id for words that are missing."
            )
    return correct("my_encode agrees with vocab.encode on 4 sentences, unknown words and capitals included")


#: Exercise 1.2: the vocabulary sizes at which the checker calls ``product_flops_at`` (above the sentence's largest
#: id, 9; not the sizes the exercise names, and not doubling, so a table of typed-in counts cannot pass)
_FLOP_SIZES = (10, 17, 64, 250)


def check_product_flops(product_flops_at: Callable[[int], int], num_tokens: int, dim: int) -> bool:
    """Exercise 1.2: ``product_flops_at(V)`` -> the FLOPs ``FlopCounterMode`` counts for the one-hot product of
    ``num_tokens`` ids with a ``[V, dim]`` table: ``2·T·V·d`` (a multiply and an add per multiply-add).

    The checker calls it at sizes of its own (:data:`_FLOP_SIZES`) and compares with its own count. It
    leaves the random state as it found it (the function draws a table).
    """
    one_hot_multiply_adds(num_tokens, 1, dim)  # TypeError or ValueError for a bad count or size
    require_function("product_flops_at", product_flops_at)
    got = {}
    with torch.random.fork_rng(devices=[]):
        for size in _FLOP_SIZES:
            count = product_flops_at(size)
            if isinstance(count, bool) or not isinstance(count, int):
                raise ExerciseError(f"product_flops_at({size}) returned {type(count).__name__}; return the count, "
                                    "counter.get_total_flops() (an int)")
            got[size] = count
    if len(set(got.values())) == 1:
        raise ExerciseError(f"product_flops_at returned {got[_FLOP_SIZES[0]]} at every V the checker tried. Hint: "
                            "build the table and the one-hot rows at the V your function is given, and count inside it")
    for size, count in got.items():
        expected = 2 * one_hot_multiply_adds(num_tokens, size, dim).total
        if count == expected:
            continue
        if count == 0:
            hint = "0 is what the lookup costs: count the one-hot product F.one_hot(ids, V).float() @ table."
        elif count == expected // 2:
            hint = "That is the count of multiply-adds; FlopCounterMode counts a multiply and an add: measure with it."
        elif count == 2 * size * dim:
            hint = f"That is one token's count: multiply the one-hot rows of all {num_tokens} ids."
        else:
            hint = ("Hint: wrap only the product in `with FlopCounterMode(display=False) as counter:` "
                    "and return counter.get_total_flops().")
        raise ExerciseError(f"product_flops_at({size}) = {count}, which is not what FlopCounterMode counts for the "
                            f"product of {num_tokens} one-hot rows with a [{size}, {dim}] table. {hint}")
    return correct("product_flops_at agrees with the checker's own FLOP counts at 4 vocabulary sizes of its own")


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
