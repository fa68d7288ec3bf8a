"""Notebook 8's checkers accept a right answer and reject a wrong one with a hint."""


import itertools

import pytest
import torch

from utils.exercises import nb08 as exercises
from utils.vocab_parallel import local_lookup, shard_bounds


def test_shard_bounds_function(capsys):

    assert exercises.check_shard_bounds_function(shard_bounds)
    assert capsys.readouterr().out == ("correct: my_bounds met the three conditions for 6 (V, P) pairs, "
                                       "V = 50,257 with 8 processes among them\n")

    def larger_last(vocab_size, world_size):  # also valid: the extra rows at the end
        base, extra = divmod(vocab_size, world_size)
        ends = list(itertools.accumulate(base + (r >= world_size - extra) for r in range(world_size)))
        return [(end - base - (r >= world_size - extra), end) for r, end in enumerate(ends)]

    assert exercises.check_shard_bounds_function(larger_last)

    def floor_split(vocab_size, world_size):  # the remainder all goes to the last block
        size = vocab_size // world_size
        return [(r * size, vocab_size if r == world_size - 1 else (r + 1) * size) for r in range(world_size)]

    with pytest.raises(exercises.ExerciseError, match="differ by more than one row"):
        exercises.check_shard_bounds_function(floor_split)
    with pytest.raises(exercises.ExerciseError, match="must start at 0 and end at 10"):
        exercises.check_shard_bounds_function(lambda v, p: [(0, v - 1)] if p == 1 else larger_last(v, p))
    with pytest.raises(exercises.ExerciseError, match="my_bounds calls shard_bounds, the course's own answer"):
        exercises.check_shard_bounds_function(lambda v, p: shard_bounds(v, p))
    with pytest.raises(exercises.ExerciseError, match="expected 2 blocks"):
        exercises.check_shard_bounds_function(lambda v, p: [(0, v)])
    with pytest.raises(exercises.ExerciseError, match="start where the previous one ends"):
        exercises.check_shard_bounds_function(
            lambda v, p: [(0, v // 2), (v // 2 + 1, v)] if p == 2 else larger_last(v, p))
    with pytest.raises(exercises.ExerciseError,
                       match=r"pass your function itself \(my_bounds, not my_bounds\(...\)\); got list"):
        exercises.check_shard_bounds_function([(0, 10)])

def test_shortcut_prediction(capsys):
    assert exercises.check_shortcut_prediction(False)
    printed = capsys.readouterr().out
    assert printed.startswith("correct: ") and "not" not in printed and "False" not in printed  # no answer shown
    with pytest.raises(exercises.ExerciseError, match="shortcut_is_exact = True: try a bag of 4 ids"):
        exercises.check_shortcut_prediction(True)
    with pytest.raises(exercises.ExerciseError, match="record your prediction in shortcut_is_exact first"):
        exercises.check_shortcut_prediction(...)
    with pytest.raises(exercises.ExerciseError, match="shortcut_is_exact must look like False, got int"):
        exercises.check_shortcut_prediction(0)


def _parallel_bag_mean(bags, weight, world_size):

    total = 0
    for start, end in shard_bounds(weight.shape[0], world_size):
        total = total + local_lookup(bags, weight[start:end], start).sum(dim=1)  # the shard's partial sums
    return total / bags.shape[1]

def _mean_of_means(bags, weight, world_size):

    means = []
    for start, end in shard_bounds(weight.shape[0], world_size):
        owned = ((bags >= start) & (bags < end)).sum(dim=1, keepdim=True)
        means.append(local_lookup(bags, weight[start:end], start).sum(dim=1) / owned)  # the shard's own mean
    return sum(means) / world_size

def test_parallel_bag_mean(capsys):
    assert exercises.check_parallel_bag_mean(_parallel_bag_mean)
    assert capsys.readouterr().out == ("correct: your bag means equal F.embedding_bag(mode='mean') on the whole table, "
                                       "for P = 2 and P = 3\n")
    assert [world_size for world_size, _ in exercises._BAG_CASES] == [2, 3]  # the sizes the message names
    assert exercises.check_parallel_bag_mean(
        lambda bags, weight, p: torch.nn.functional.embedding_bag(bags, weight, mode="mean"))  # the whole table
    with pytest.raises(exercises.ExerciseError, match=r"averages the shards' own means.*off by up to \d\.\d\d"):
        exercises.check_parallel_bag_mean(_mean_of_means)
    with pytest.raises(exercises.ExerciseError, match="divides by the number of processes too"):
        exercises.check_parallel_bag_mean(lambda bags, weight, p: _parallel_bag_mean(bags, weight, p) / p)
    with pytest.raises(exercises.ExerciseError, match="these are the bag sums"):
        exercises.check_parallel_bag_mean(lambda bags, weight, p: _parallel_bag_mean(bags, weight, p) * bags.shape[1])
    with pytest.raises(exercises.ExerciseError, match="holds NaN"):
        exercises.check_parallel_bag_mean(lambda bags, weight, p: _mean_of_means(bags[:, :1], weight, p))
    with pytest.raises(exercises.ExerciseError, match=r"has shape \(4, 3\), expected \(3, 4\)"):
        exercises.check_parallel_bag_mean(lambda bags, weight, p: _parallel_bag_mean(bags, weight, p).T)
    with pytest.raises(exercises.ExerciseError, match="returned list"):
        exercises.check_parallel_bag_mean(lambda bags, weight, p: _parallel_bag_mean(bags, weight, p).tolist())
    with pytest.raises(exercises.ExerciseError, match="each shard sums the rows it holds"):
        exercises.check_parallel_bag_mean(lambda bags, weight, p: _parallel_bag_mean(bags, weight, p) + 1)
    with pytest.raises(exercises.ExerciseError, match=r"pass your function itself \(parallel_bag_mean, not"):
        exercises.check_parallel_bag_mean(torch.zeros(3, 4))
