"""Notebook 6's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import pytest
import torch

from utils.exercises import nb06 as exercises

FORWARD = 2 * 32 * 2_000 * 8  # one (32, 2000) @ (2000, 8) product, in FLOPs
CROSSOVER = 50_127  # 50,257·768·4 / (8 + 768·4) = 50,126.5..., rounded up
crossover, repeated_bytes = exercises.check_crossover, exercises.check_repeated_bytes
ENTRY = 8 + 4 * 768  # one entry of the sparse gradient at GPT-2's width: an int64 id, 768 float32 values
largest_batch, predicted_flops = exercises.check_largest_batch, exercises.check_predicted_flops


@pytest.mark.parametrize(("checker", "answer", "expected"), [
    (crossover, (CROSSOVER,), "pass"),
    (crossover, (None,), "record your prediction in crossover_n first"),
    (crossover, (50_127.0,), "crossover_n must look like 50_000, got float"),
    (crossover, (50_257,), "counts only the values: each of the n entries also stores its id"),
    (crossover, (CROSSOVER - 1,), r"one short: .*round n up"),
    (crossover, (-(-50_257 * 768 * 4 // (8 + 768)),), "d values are float32, 4 bytes each"),
    (crossover, (40_000,), "Hint: write both sizes in bytes"),
    (repeated_bytes, (64 * ENTRY,), "pass"),
    (repeated_bytes, (197_120.0,), "repeated_bytes must look like 1_000, got float"),
    (repeated_bytes, (ENTRY,), r"3,080 bytes is one entry: the 64 copies merged into one"),
    (repeated_bytes, (64 * 4 * 768,), "each entry also stores its id"),
    (repeated_bytes, (64 * (8 + 768),), "d values are float32"),
    (repeated_bytes, (12_345,), "Hint: an entry is an id"),
    (largest_batch, (256,), "pass"),
    (largest_batch, (768,), "counts the float32 one-hot alone: .* the int64 one-hot"),
    (largest_batch, (384,), "counts the int64 one-hot alone: .* float32 copy"),
    (largest_batch, (255,), "one short"),
    (largest_batch, (50_257,), "Hint: write both sizes in bytes"),
    (largest_batch, (256.0,), (TypeError, "a whole number of tokens, got float")),
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
    judge(checker, answer, expected, never=(f"{64 * ENTRY:,}", str(64 * ENTRY), "256"))


def test_no_guess_yet_judges_nothing(capsys):
    """Run top to bottom before the learner guesses: one line asking for the guess, no verdict, no failure."""
    assert repeated_bytes(None) is True
    assert capsys.readouterr().out == ("no guess yet: record repeated_bytes in the cell above, then run this cell "
                                       "again\n")


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


def test_the_repeated_ids_answer_is_what_a_real_backward_returns():
    """check_repeated_bytes's answer against a real nn.Embedding(..., sparse=True) at GPT-2's width: the bytes of its
    indices and values, as the backward returns them."""
    embedding = torch.nn.Embedding(100, 768, sparse=True)
    embedding(torch.full((64,), 3)).sum().backward()
    grad = embedding.weight.grad
    assert grad._indices().nbytes + grad._values().nbytes == 64 * ENTRY


def test_the_largest_batch_is_where_a_real_one_hot_and_its_copy_reach_the_tables_bytes():
    V, d = 50, exercises.WIDTH
    n = 256
    one_hot = torch.nn.functional.one_hot(torch.zeros(n, dtype=torch.long), V)
    assert one_hot.nbytes + one_hot.float().nbytes == V * d * 4  # exactly the table's bytes at n = d/3
