"""Checkers for the exercises at the end of each notebook.

A checker takes the learner's answer. If it is right, it prints a line starting with
``correct`` and returns ``True``; if it is wrong, it raises :class:`ExerciseError`
(an ``AssertionError``) whose message says what is off and gives a hint. Each checker
is unit-tested against a right and a wrong answer (``tests/test_exercises.py``).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from .lookup import one_hot_multiply_adds
from .vocab import Vocab


class ExerciseError(AssertionError):
    """The answer is wrong; the message says how and hints at the fix."""


def _correct(label: str) -> bool:
    print(f"correct: {label}")
    return True


# --- Notebook 1: one-hot vectors and the matrix product that only selects -----------


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
    return _correct("unknown words map to <unk>, known words to their ids")


def check_gpt2_multiply_adds(total: int, useful: int) -> bool:
    """Exercise 1.2: multiply-adds of a one-hot matmul for 1024 tokens at GPT-2's sizes."""
    expected = one_hot_multiply_adds(num_tokens=1024, vocab_size=50_257, embedding_dim=768)
    if useful != expected.useful:
        raise ExerciseError(
            f"useful = {useful}, expected {expected.useful}. Hint: only the products with the single 1 "
            "matter: one per output value, and each token has d output values."
        )
    if total != expected.total:
        hint = " (that is the FLOP count: count a multiply-add once)" if total == 2 * expected.total else ""
        raise ExerciseError(
            f"total = {total}, expected {expected.total}{hint}. Hint: each of the d outputs of a token "
            "sums V products."
        )
    return _correct(f"{expected.total:,} multiply-adds, of which {expected.useful:,} are useful (1 in 50,257)")


def check_selection_matrix(x: torch.Tensor, weight: torch.Tensor, rows: list[int]) -> bool:
    """Exercise 1.3: a hand-built ``x`` with ``x @ weight == weight[rows]``, exactly."""
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
    return _correct(f"x @ W returns rows {list(rows)} of W, exactly")
