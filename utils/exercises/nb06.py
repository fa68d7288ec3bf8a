"""Notebook 6, what the lookup saves, measured: the checkers of its exercises."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

from .checking import as_number, correct, hint, no_guess_yet, prediction, require, require_keys

#: Exercise 6.1: GPT-2's vocabulary and width, and the batch whose repeated id the second part asks about.
GPT2_TABLE = (50_257, 768)
REPEAT_BATCH = 64
#: Bytes of one id (int64) and of one float32 value.
ID_BYTES, FLOAT_BYTES = 8, 4
#: Exercise 6.2: GPT-2's width.
WIDTH = 768
#: Exercise 6.3: the sizes the counter runs at.
FLOP_SIZES = (32, 2_000, 8)


def crossover_batch(vocab_size: int, embedding_dim: int) -> int:
    """The smallest batch ``n`` whose ``sparse=True`` gradient, ``n`` ids (int64) and ``n`` rows of ``d`` float32
    values, takes at least the bytes of the dense ``[V, d]`` float32 gradient: ``n·(8 + 4·d) >= V·d·4``."""
    per_id = ID_BYTES + FLOAT_BYTES * embedding_dim
    return -(-vocab_size * embedding_dim * FLOAT_BYTES // per_id)


def check_crossover(crossover_n: int) -> bool:
    """Exercise 6.1: the smallest batch at GPT-2's sizes from which the sparse gradient is no smaller than the dense
    one (:func:`crossover_batch`)."""
    guess = prediction("crossover_n", crossover_n, int, "50_000")
    V, d = GPT2_TABLE
    answer = crossover_batch(V, d)
    require(guess == answer, hint([
        (guess == V, "crossover_n counts only the values: each of the n entries also stores its id, 8 bytes"),
        (guess == answer - 1, "crossover_n is one short: there the sparse gradient is still a little smaller "
         "(round n up, not down)"),
        (guess == -(-V * d * FLOAT_BYTES // (ID_BYTES + d)), "an entry's d values are float32, 4 bytes each"),
    ], f"crossover_n = {guess:,} is not the smallest such batch. Hint: write both sizes in bytes, n·(8 + 4·d) for "
       "the sparse gradient and V·d·4 for the dense one, and solve for n"))
    return correct("the smallest batch whose sparse gradient takes at least the dense gradient's bytes, at GPT-2's "
                   "sizes")


def sparse_entries(batch: int = REPEAT_BATCH) -> int:
    """How many entries the ``sparse=True`` gradient of a lookup of ``batch`` copies of one id holds, measured."""
    embedding = torch.nn.Embedding(10, 2, sparse=True)
    embedding(torch.full((batch,), 3)).sum().backward()
    return int(embedding.weight.grad._nnz())


def check_repeated_bytes(repeated_bytes: int | None) -> bool:
    """Exercise 6.1, continued, a prediction: the bytes of the ``sparse=True`` gradient, as the backward returns it,
    of a batch of :data:`REPEAT_BATCH` copies of one id at GPT-2's width; the checker runs the backward to count its
    entries. True when nothing is wrong: the guess is right, or not made yet."""
    if no_guess_yet(repeated_bytes=repeated_bytes):
        return True
    guess = prediction("repeated_bytes", repeated_bytes, int, "1_000")
    d = GPT2_TABLE[1]
    entry = ID_BYTES + FLOAT_BYTES * d
    answer = sparse_entries() * entry
    require(guess == answer, hint([
        (guess == entry, f"{entry:,} bytes is one entry: the 64 copies merged into one. Merging means finding the "
         "equal ids among the batch, on every backward; what would storing the entries as they come cost?"),
        (guess in (REPEAT_BATCH * FLOAT_BYTES * d, FLOAT_BYTES * d), "each entry also stores its id: 8 bytes (int64)"),
        (guess in (REPEAT_BATCH * (ID_BYTES + d), ID_BYTES + d), "an entry's d values are float32, 4 bytes each"),
    ], f"repeated_bytes = {guess:,} is not what the backward returns. Hint: an entry is an id (int64) and a row of "
       "d float32 values; how many entries does the backward write for 64 copies of one id?"))
    return correct("the bytes of the sparse gradient of 64 copies of one id at d = 768, as the backward returns it")


def check_largest_batch(largest_n: int) -> bool:
    """Exercise 6.2: the largest ``n`` whose one-hot at its peak, the int64 one-hot and its float32 copy, ``n·V·12``
    bytes, is no larger than the float32 table's ``V·d·4`` at ``d = 768``: ``n <= d/3``."""
    if isinstance(largest_n, bool) or not isinstance(largest_n, int):
        raise TypeError(f"largest_n must be a whole number of tokens, got {type(largest_n).__name__}")
    answer = FLOAT_BYTES * WIDTH // (ID_BYTES + FLOAT_BYTES)
    require(largest_n == answer, hint([
        (largest_n == WIDTH, "largest_n counts the float32 one-hot alone: while .float() copies it, the int64 "
         "one-hot F.one_hot returned exists too (section 5)"),
        (largest_n == WIDTH // 2, "largest_n counts the int64 one-hot alone: while .float() copies it, its float32 "
         "copy exists too (section 5)"),
        (largest_n == answer - 1, "largest_n is one short: a one-hot exactly as large as the table takes no more "
         "memory")], f"largest_n = {largest_n:,} is not the largest batch whose one-hot, at its peak, is no larger "
        "than the table. Hint: write both sizes in bytes and see what cancels"))
    return correct("the largest batch whose one-hot, int64 and float32 copy together, is no larger than the float32 "
                   "table, at GPT-2's width")


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
