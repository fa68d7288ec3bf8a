"""Notebook 8's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import torch

from tests.unit.exercises.checker_table import checker_tests
from utils.exercises import nb08 as exercises
from utils.exercises.checking import ExerciseError
from utils.vocab_parallel import local_lookup, shard_bounds


def larger_last(vocab_size, world_size):  # also valid: the extra rows at the end
    return [(vocab_size - e, vocab_size - s) for s, e in reversed(shard_bounds(vocab_size, world_size))]


def floor_split(vocab_size, world_size):  # the remainder all goes to the last block
    size = vocab_size // world_size
    return [(r * size, vocab_size if r == world_size - 1 else (r + 1) * size) for r in range(world_size)]


def parallel_bag_mean(bags, weight, world_size):
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


WORKED = [
    ("check_shard_bounds_function", shard_bounds),
    ("check_shard_bounds_function", larger_last),
    ("check_parallel_bag_mean", parallel_bag_mean),
    ("check_parallel_bag_mean", lambda bags, weight, p: torch.nn.functional.embedding_bag(bags, weight, mode="mean")),
]
WRONG = [
    ("check_shard_bounds_function", floor_split, "differ by more than one row"),
    ("check_shard_bounds_function", lambda v, p: [(0, v - 1)] if p == 1 else shard_bounds(v, p),
     "must start at 0 and end at 10"),
    ("check_shard_bounds_function", lambda v, p: [(0, v)], "expected 2 blocks"),
    ("check_shard_bounds_function", lambda v, p: [(0, v // 2), (v // 2 + 1, v)] if p == 2 else shard_bounds(v, p),
     "start where the previous one ends"),
    ("check_shard_bounds_function", [(0, 10)], r"pass your function itself \(my_bounds, not my_bounds\(...\)\); got"),
    ("check_parallel_bag_mean", mean_of_means, r"averages the shards' own means.*off by up to \d\.\d\d"),
    ("check_parallel_bag_mean", lambda bags, weight, p: parallel_bag_mean(bags, weight, p) / p,
     "divides by the number of processes too"),
    ("check_parallel_bag_mean", lambda bags, weight, p: parallel_bag_mean(bags, weight, p) * bags.shape[1],
     "these are the bag sums"),
    ("check_parallel_bag_mean", lambda bags, weight, p: mean_of_means(bags[:, :1], weight, p), "holds NaN"),
    ("check_parallel_bag_mean", lambda *args: parallel_bag_mean(*args).T, r"has shape \(4, 3\), expected \(3, 4\)"),
    ("check_parallel_bag_mean", lambda *args: parallel_bag_mean(*args).tolist(), "returned list"),
    ("check_parallel_bag_mean", lambda *args: parallel_bag_mean(*args) + 1, "each shard sums the rows it holds"),
    ("check_parallel_bag_mean", torch.zeros(3, 4), r"pass your function itself \(parallel_bag_mean, not"),
]


test_the_worked_answer_passes, test_a_wrong_answer_fails_with_its_hint = checker_tests(
    exercises, [(checker, (answer,)) for checker, answer in WORKED],
    [(checker, (answer,), ExerciseError, message) for checker, answer, message in WRONG])


def test_the_message_names_the_checkers_sizes():
    assert [world_size for world_size, _ in exercises._BAG_CASES] == [2, 3]  # "for P = 2 and P = 3"
