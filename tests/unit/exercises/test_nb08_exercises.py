"""Notebook 8's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import itertools

import pytest
import torch

from utils.exercises import nb08 as exercises
from utils.vocab_parallel import local_lookup, shard_bounds


def my_bounds(vocab_size, world_size):
    """Exercise 8.1's worked answer: the extra rows in the first blocks."""
    base, extra = divmod(vocab_size, world_size)
    ends = list(itertools.accumulate(base + (rank < extra) for rank in range(world_size)))
    return list(zip([0] + ends[:-1], ends, strict=True))


def larger_last(vocab_size, world_size):  # also valid: the extra rows at the end
    return [(vocab_size - end, vocab_size - start) for start, end in reversed(my_bounds(vocab_size, world_size))]


def floor_split(vocab_size, world_size):  # the remainder all goes to the last block
    size = vocab_size // world_size
    return [(r * size, vocab_size if r == world_size - 1 else (r + 1) * size) for r in range(world_size)]


@pytest.mark.parametrize(("function", "expected"), [
    (my_bounds, "pass"),
    (larger_last, "pass"),
    (floor_split, "differ by more than one row"),
    (lambda v, p: [(0, v - 1)] if p == 1 else my_bounds(v, p), "must start at 0 and end at 10"),
    (lambda v, p: shard_bounds(v, p), "my_bounds calls shard_bounds, the course's own answer"),
    (lambda v, p: [(0, v)], "expected 2 blocks"),
    (lambda v, p: [(0, v // 2), (v // 2 + 1, v)] if p == 2 else my_bounds(v, p), "start where the previous one ends"),
    ([(0, 10)], r"pass your function itself \(my_bounds, not my_bounds\(...\)\); got list"),
])
def test_shard_bounds_function(judge, function, expected):
    judge(exercises.check_shard_bounds_function, (function,), expected)


@pytest.mark.parametrize(("prediction", "expected"), [
    (False, "pass"),
    (True, "shortcut_is_exact = True: try a bag of 4 ids"),
    (..., "record your prediction in shortcut_is_exact first"),
    (0, "shortcut_is_exact must look like False, got int"),
])
def test_shortcut_prediction(judge, prediction, expected):
    judge(exercises.check_shortcut_prediction, (prediction,), expected)


def parallel_bag_mean(bags, weight, world_size):
    """Exercise 8.2's worked answer."""
    total = 0
    for start, end in shard_bounds(weight.shape[0], world_size):
        total = total + local_lookup(bags, weight[start:end], start).sum(dim=1)  # the shard's partial sums
    return total / bags.shape[1]


def mean_of_means(bags, weight, world_size):
    means = []
    for start, end in shard_bounds(weight.shape[0], world_size):
        owned = ((bags >= start) & (bags < end)).sum(dim=1, keepdim=True)
        means.append(local_lookup(bags, weight[start:end], start).sum(dim=1) / owned)  # the shard's own mean
    return sum(means) / world_size


@pytest.mark.parametrize(("function", "expected"), [
    (parallel_bag_mean, "pass"),
    (lambda bags, weight, p: torch.nn.functional.embedding_bag(bags, weight, mode="mean"), "pass"),  # whole table
    (mean_of_means, r"averages the shards' own means.*off by up to \d\.\d\d"),
    (lambda bags, weight, p: parallel_bag_mean(bags, weight, p) / p, "divides by the number of processes too"),
    (lambda bags, weight, p: parallel_bag_mean(bags, weight, p) * bags.shape[1], "these are the bag sums"),
    (lambda bags, weight, p: mean_of_means(bags[:, :1], weight, p), "holds NaN"),
    (lambda bags, weight, p: parallel_bag_mean(bags, weight, p).T, r"has shape \(4, 3\), expected \(3, 4\)"),
    (lambda bags, weight, p: parallel_bag_mean(bags, weight, p).tolist(), "returned list"),
    (lambda bags, weight, p: parallel_bag_mean(bags, weight, p) + 1, "each shard sums the rows it holds"),
    (torch.zeros(3, 4), r"pass your function itself \(parallel_bag_mean, not"),
])
def test_parallel_bag_mean(judge, function, expected):
    judge(exercises.check_parallel_bag_mean, (function,), expected)


def test_the_success_line_names_the_checked_sizes():
    assert [world_size for world_size, _ in exercises._BAG_CASES] == [2, 3]  # "for P = 2 and P = 3"
