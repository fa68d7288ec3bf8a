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


# --- Notebook 6: what the lookup saves, measured ---------------------------------------

#: GPT-2's sizes, as the benchmark's command line uses them: n tokens, V rows, d columns.
_GPT2_N, _GPT2_V, _GPT2_D = 2_048, 50_257, 768
_LLAMA3_V = 128_256


def check_dense_costs(flops: int, one_hot_bytes: int) -> bool:
    """Exercise 6.1: FLOPs of ``one_hot @ W`` and bytes of the float32 one-hot, at GPT-2's sizes (n=2048)."""
    expected_flops = 2 * _GPT2_N * _GPT2_V * _GPT2_D
    expected_bytes = _GPT2_N * _GPT2_V * 4
    if flops != expected_flops:
        if flops == expected_flops // 2:
            hint = "that counts multiply-adds; a multiply-add is two FLOPs (a multiply and an add)"
        else:
            hint = "each of the n·d outputs sums V products: one multiply and one add per product"
        raise ExerciseError(f"flops = {flops:,}, expected {expected_flops:,}. Hint: {hint}.")
    if one_hot_bytes != expected_bytes:
        if one_hot_bytes == 2 * expected_bytes:
            hint = "that is the int64 tensor F.one_hot returns; after .float() each entry takes 4 bytes"
        else:
            hint = "the one-hot has n rows of V entries, 4 bytes each in float32"
        raise ExerciseError(f"one_hot_bytes = {one_hot_bytes:,}, expected {expected_bytes:,}. Hint: {hint}.")
    return _correct(f"{expected_flops / 1e9:,.0f} GFLOP and {expected_bytes / 2**20:,.0f} MiB of one-hot rows, "
                    f"for {_GPT2_N * _GPT2_D:,} useful values")


def check_sparse_one_hot(x: torch.Tensor, ids: torch.Tensor, num_classes: int) -> bool:
    """Exercise 6.2: a sparse one-hot ``x`` of ``ids`` with ``torch.sparse.mm(x, W) == W[ids]`` exactly."""
    if not isinstance(x, torch.Tensor):
        raise ExerciseError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.layout not in (torch.sparse_coo, torch.sparse_csr):
        raise ExerciseError(
            f"x has layout {x.layout}: it is dense. Hint: build it with torch.sparse_coo_tensor(indices, values, size)"
        )
    expected_shape = (len(ids), num_classes)
    if tuple(x.shape) != expected_shape:
        raise ExerciseError(f"x has shape {tuple(x.shape)}, expected {expected_shape}: one row per id, V columns")
    nnz = x._nnz() if x.layout == torch.sparse_coo else x.values().numel()
    if nnz != len(ids):
        raise ExerciseError(f"x stores {nnz} values, expected {len(ids)}: a single nonzero per row")
    weight = torch.randn(num_classes, 3, generator=torch.Generator().manual_seed(6), dtype=x.dtype)
    got = torch.sparse.mm(x.cpu(), weight)
    expected = weight[ids.cpu()]
    if not torch.equal(got, expected):
        raise ExerciseError(
            "torch.sparse.mm(x, W) does not return W[ids]. Hint: the indices are a (2, n) tensor whose first row "
            "is the row number 0..n-1 and whose second row is the id (the column); every value is 1."
        )
    return _correct(f"a {expected_shape[0]} x {num_classes:,} one-hot stored as {nnz} nonzeros selects W[ids]")


def check_largest_batch(num_tokens: int) -> bool:
    """Exercise 6.3: the most tokens whose ``F.one_hot(ids, 128256).float()`` fits 1 GiB (int64 and float32 at once)."""
    per_token = _LLAMA3_V * (8 + 4)
    expected = 2**30 // per_token
    if not isinstance(num_tokens, int) or isinstance(num_tokens, bool):
        raise ExerciseError(f"num_tokens must be an int (a whole number of tokens), got {type(num_tokens).__name__}")
    if num_tokens == 2**30 // (_LLAMA3_V * 4):
        raise ExerciseError(
            f"num_tokens = {num_tokens:,} counts only the float32 one-hot. Hint: F.one_hot first returns int64 "
            "(8 bytes an entry); while .float() copies it, both exist: 12 bytes an entry."
        )
    if num_tokens == expected + 1:
        raise ExerciseError(f"num_tokens = {num_tokens:,} is one too many: round down, or the last token overflows")
    if num_tokens != expected:
        raise ExerciseError(
            f"num_tokens = {num_tokens:,}, expected {expected:,}. Hint: each token needs V·(8 + 4) bytes at the peak; "
            "divide 2**30 by that and round down."
        )
    return _correct(f"{expected:,} tokens: {expected * per_token / 2**30:.3f} GiB at the peak of the cast")
