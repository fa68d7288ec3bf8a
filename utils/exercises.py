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


# --- Notebook 7: beyond the single lookup --------------------------------------------


def check_bag_mean_matrix(matrix: torch.Tensor, ids: torch.Tensor, offsets: torch.Tensor, vocab_size: int) -> bool:
    """Exercise 7.1: ``A`` ``(num_bags, V)`` with ``A @ W`` = ``EmbeddingBag(mode="mean")(ids, offsets)``.

    Row ``b`` holds the counts of bag ``b`` divided by its length; an empty bag is a row of zeros.
    """
    if not isinstance(matrix, torch.Tensor):
        raise ExerciseError(f"the matrix must be a torch.Tensor, got {type(matrix).__name__}")
    ids, offsets = ids.detach().cpu().long(), offsets.detach().cpu().long()
    expected_shape = (len(offsets), vocab_size)
    if tuple(matrix.shape) != expected_shape:
        raise ExerciseError(f"the matrix has shape {tuple(matrix.shape)}, expected {expected_shape}: one row per "
                            "bag, one column per vocabulary entry")
    if not matrix.is_floating_point():
        raise ExerciseError(f"the matrix has dtype {matrix.dtype}; it holds fractions, so it must be a float tensor")
    ends = torch.cat([offsets[1:], torch.tensor([len(ids)])])
    expected = torch.zeros(expected_shape, dtype=torch.float64)
    for bag, (start, end) in enumerate(zip(offsets.tolist(), ends.tolist(), strict=True)):
        if end > start:
            expected[bag] = torch.bincount(ids[start:end], minlength=vocab_size).double() / (end - start)
    got = matrix.detach().cpu().double()
    if got.isnan().any():
        raise ExerciseError("the matrix holds NaN: an empty bag has length 0, and EmbeddingBag returns zeros for it "
                            "(do not divide by zero)")
    if not torch.allclose(got, expected, rtol=0, atol=1e-6):
        bag = int((~torch.isclose(got, expected, rtol=0, atol=1e-6)).any(dim=1).nonzero()[0])
        start, end = offsets[bag].item(), ends[bag].item()
        counts = torch.bincount(ids[start:end], minlength=vocab_size).double()
        if torch.allclose(got[bag], counts):
            hint = "these are the counts (mode='sum'); the mean divides them by the bag's length"
        else:
            hint = ("bag b holds ids[offsets[b]:offsets[b + 1]] (the last bag runs to the end), and a repeated id "
                    "counts once per occurrence")
        raise ExerciseError(f"row {bag} (ids {ids[start:end].tolist()}) is off. Hint: {hint}")
    return _correct(f"A @ W is the mean of each of the {len(offsets)} bags, empty bags included")


def check_tying_savings(saved: int, vocab_size: int, dim: int) -> bool:
    """Exercise 7.2: parameters saved by tying the output layer to a ``[vocab_size, dim]`` embedding."""
    expected = vocab_size * dim
    if saved == expected:
        return _correct(f"tying saves V * d = {expected:,} parameters")
    if saved == 2 * expected:
        raise ExerciseError(f"saved = {saved:,} counts the table twice: tying keeps one of the two copies, "
                            "so it saves one V x d matrix")
    if saved == expected + vocab_size:
        raise ExerciseError(f"saved = {saved:,} includes a bias of V values; a tied output layer has bias=False, "
                            "and the bias is not part of the shared weight")
    raise ExerciseError(f"saved = {saved:,}, expected {expected:,}. Hint: the output layer nn.Linear(d, V) has a "
                        "weight of shape [V, d], which tying replaces by the embedding's")


def check_sinusoidal_function(fn: Callable[[int, int], torch.Tensor]) -> bool:
    """Exercise 7.3: ``fn(num_positions, dim)`` -> the sinusoidal position table ``(num_positions, dim)``."""
    from .positions import sinusoidal_positions

    if not callable(fn):
        raise ExerciseError(f"pass your function itself (my_sinusoidal, not my_sinusoidal(...)); "
                            f"got {type(fn).__name__}")
    for num_positions, dim in ((1, 2), (10, 8), (50, 16)):
        expected = sinusoidal_positions(num_positions, dim)
        got = fn(num_positions, dim)
        if not isinstance(got, torch.Tensor):
            raise ExerciseError(f"fn({num_positions}, {dim}) returned {type(got).__name__}; return a torch.Tensor")
        if tuple(got.shape) != tuple(expected.shape):
            raise ExerciseError(f"fn({num_positions}, {dim}) has shape {tuple(got.shape)}, "
                                f"expected {tuple(expected.shape)}")
        got = got.detach().cpu().double()
        if not torch.allclose(got, expected.double(), rtol=0, atol=1e-4):
            if torch.allclose(got[:, 0::2], expected[:, 1::2].double(), atol=1e-4):
                hint = "the sine goes in the even columns (0, 2, ...) and the cosine in the odd ones"
            else:
                hint = "omega_i = 10000 ** (-2i / dim) for column pair i; PE[p, 2i] = sin(p * omega_i)"
            raise ExerciseError(f"fn({num_positions}, {dim}) differs from the sinusoidal table. Hint: {hint}")
    return _correct("your table matches sin/cos of position times 10000^(-2i/d)")


# --- Notebook 8: when the table does not fit one device ------------------------------


def check_shard_bounds_function(fn: Callable[[int, int], list[tuple[int, int]]]) -> bool:
    """Exercise 8.1: ``fn(vocab_size, world_size)`` -> contiguous ``(start, end)`` blocks, sizes differing by <= 1."""
    if not callable(fn):
        raise ExerciseError(f"pass your function itself, not its result; got {type(fn).__name__}")
    for vocab_size, world_size in ((10, 1), (10, 2), (11, 2), (11, 3), (50_257, 8), (7, 7)):
        bounds = [tuple(b) for b in fn(vocab_size, world_size)]
        where = f"fn({vocab_size}, {world_size}) = {bounds if len(bounds) <= 4 else str(bounds[:4]) + '...'}"
        if len(bounds) != world_size:
            raise ExerciseError(f"{where}: expected {world_size} blocks, one per process")
        if bounds[0][0] != 0 or bounds[-1][1] != vocab_size:
            raise ExerciseError(f"{where}: the blocks must start at 0 and end at {vocab_size} (end is exclusive)")
        if any(a[1] != b[0] for a, b in zip(bounds, bounds[1:], strict=False)):
            raise ExerciseError(f"{where}: each block must start where the previous one ends")
        sizes = [end - start for start, end in bounds]
        if max(sizes) - min(sizes) > 1:
            raise ExerciseError(f"{where}: block sizes {sizes} differ by more than one row. Hint: divmod(V, P) "
                                "gives the base size and how many blocks get one extra row")
    return _correct("contiguous blocks that cover the vocabulary, sizes differing by at most one")


def check_owner_function(fn: Callable[[int, int, int], tuple[int, int]]) -> bool:
    """Exercise 8.2: ``fn(token_id, vocab_size, world_size)`` -> ``(rank, local_row)`` under ``shard_bounds``."""
    from .distributed import shard_bounds

    if not callable(fn):
        raise ExerciseError(f"pass your function itself, not its result; got {type(fn).__name__}")
    for vocab_size, world_size in ((11, 2), (11, 3), (12, 5), (9, 1)):
        for rank, (start, end) in enumerate(shard_bounds(vocab_size, world_size)):
            for token_id in range(start, end):
                got = tuple(fn(token_id, vocab_size, world_size))
                if got != (rank, token_id - start):
                    raise ExerciseError(
                        f"fn({token_id}, {vocab_size}, {world_size}) = {got}, expected {(rank, token_id - start)}: "
                        f"rank {rank} holds rows [{start}, {end}), and the local row is token_id - start")
    return _correct("every id maps to the rank that holds its row, at row id - start")


def check_shard_memory(bytes_per_process: int, allreduce_bytes: int) -> bool:
    """Exercise 8.3: Llama 3 8B's table (128,256 x 4,096, bf16) over 8 processes, and 8,192 tokens."""
    from .distributed import vocab_parallel_cost

    cost = vocab_parallel_cost(128_256, 4_096, num_tokens=8_192, world_size=8, bytes_per_value=2)
    if bytes_per_process != cost.bytes_per_process:
        hint = " (that is float32; bf16 takes 2 bytes)" if bytes_per_process == 2 * cost.bytes_per_process else ""
        raise ExerciseError(f"bytes_per_process = {bytes_per_process:,}, expected {cost.bytes_per_process:,}{hint}. "
                            "Hint: rows per process x d x bytes per value")
    if allreduce_bytes != cost.allreduce_bytes:
        raise ExerciseError(f"allreduce_bytes = {allreduce_bytes:,}, expected {cost.allreduce_bytes:,}. Hint: the "
                            "all-reduce sums the output, one d-vector per token, and does not depend on V or P")
    return _correct(f"{cost.bytes_per_process / 2**20:,.1f} MiB of table per process; "
                    f"{cost.allreduce_bytes / 2**20:,.0f} MiB summed by the all-reduce")
