"""Notebook 6's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import pytest
import torch

from utils.exercises import nb06 as exercises

FORWARD = 2 * 32 * 2_000 * 8  # one (32, 2000) @ (2000, 8) product, in FLOPs
CROSSOVER = 50_127  # 50,257·768·4 / (8 + 768·4) = 50,126.5..., rounded up
crossover, repeated_entries = exercises.check_crossover, exercises.check_repeated_entries
largest_batch, predicted_flops = exercises.check_largest_batch, exercises.check_predicted_flops


@pytest.mark.parametrize(("checker", "answer", "expected"), [
    (crossover, (CROSSOVER,), "pass"),
    (crossover, (None,), "record your prediction in crossover_n first"),
    (crossover, (50_127.0,), "crossover_n must look like 50_000, got float"),
    (crossover, (50_257,), "counts only the values: each of the n entries also stores its id"),
    (crossover, (CROSSOVER - 1,), r"one short: .*round n up"),
    (crossover, (-(-50_257 * 768 * 4 // (8 + 768)),), "d values are float32, 4 bytes each"),
    (crossover, (40_000,), "Hint: write both sizes in bytes"),
    (repeated_entries, (64,), "pass"),
    (repeated_entries, (None,), "record your prediction in entries_with_repeats first"),
    (repeated_entries, (1,), r"would merge the repeats into one row"),
    (repeated_entries, (32,), r"= 32 is not what the backward gives. Hint: run it"),
    (largest_batch, (768,), "pass"),
    (largest_batch, (384,), "8 bytes an entry: .* as float32"),
    (largest_batch, (767,), "one short"),
    (largest_batch, (50_257,), "Hint: write both sizes in bytes"),
    (largest_batch, (768.0,), (TypeError, "a whole number of tokens, got float")),
    (predicted_flops, ({"dense": 3 * FORWARD, "lookup": 0},), "pass"),
    (predicted_flops, ({"dense": FORWARD, "lookup": 0},), "one matrix product's count. The backward computes two"),
    (predicted_flops, ({"dense": FORWARD // 2, "lookup": 0},), "a multiply-add counts as 2 FLOPs"),
    (predicted_flops, ({"dense": 2 * FORWARD, "lookup": 0},), "that counts W's gradient; the one-hot requires a"),
    (predicted_flops, ({"dense": 12345, "lookup": 0},), "count each matrix product as 2·rows·inner·columns"),
    (predicted_flops, ({"dense": 3 * FORWARD, "lookup": 2 * 32 * 8},),
     r"predicted_flops\['lookup'\] is not the counter's count. Hint: the counter counts the FLOPs of matrix"),
    (predicted_flops, ([3 * FORWARD, 0],), "predicted_flops must be a dict from 'dense' and 'lookup'"),
])
def test_checker(judge, checker, answer, expected):
    judge(checker, answer, expected)


def test_the_flop_checker_counts_with_the_counter_at_its_sizes():
    """The checker's count is FlopCounterMode's on the meta device, the same as on real tensors (the one-hot
    requiring a gradient, as exercise 6.3 sets it)."""
    from torch.utils.flop_counter import FlopCounterMode

    n, V, d = exercises.FLOP_SIZES
    weight = torch.randn(V, d, requires_grad=True)
    with FlopCounterMode(display=False) as counter:
        one_hot = torch.nn.functional.one_hot(torch.randint(0, V, (n,)), V).float().requires_grad_()
        (one_hot @ weight).backward(torch.ones(n, d))
    assert exercises._count(exercises.FLOP_SIZES) == {"dense": counter.get_total_flops(), "lookup": 0}


def test_the_crossover_is_where_a_real_sparse_gradient_reaches_the_dense_ones_bytes():
    """crossover_batch's count against real gradients: at a small table, the sparse gradient of crossover_batch
    ids takes at least the dense gradient's bytes, and of one id fewer, less."""
    V, d = 100, 6
    n = exercises.crossover_batch(V, d)

    def sparse_bytes(batch: int) -> int:
        embedding = torch.nn.Embedding(V, d, sparse=True)
        embedding(torch.randint(0, V, (batch,))).sum().backward()
        grad = embedding.weight.grad
        return grad._indices().nbytes + grad._values().nbytes

    dense = V * d * 4
    assert sparse_bytes(n) >= dense > sparse_bytes(n - 1)
