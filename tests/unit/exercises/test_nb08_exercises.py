"""Notebook 8's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import pytest
import torch
import torch.nn.functional as F

from utils import vocab_parallel
from utils.exercises import nb08 as exercises
from utils.vocab_parallel import local_lookup


def my_owner(ids, vocab_size, world_size):
    """Exercise 8.1's worked answer: the first `extra` blocks are one row longer."""
    base, extra = divmod(vocab_size, world_size)
    long_rows = extra * (base + 1)
    return torch.where(ids < long_rows, ids // (base + 1), extra + (ids - long_rows) // base)


def by_loop(ids, vocab_size, world_size):  # also right: a loop over the ranks, arithmetic on the ids
    base, extra = divmod(vocab_size, world_size)
    owner = torch.zeros_like(ids)
    start = 0
    for rank in range(world_size):
        start += base + (rank < extra)
        owner += ids >= start
    return owner


@pytest.mark.parametrize(("function", "expected"), [
    (my_owner, "pass"),
    (by_loop, "pass"),
    (lambda ids, v, p: ids // -(-v // p), "torch.chunk's split"),
    (lambda ids, v, p: (ids // (v // p)).clamp(max=p - 1), "the remainder to the last"),
    (lambda ids, v, p: ids % p, "which ids do the first"),
    (lambda ids, v, p: vocab_parallel.owner_of(ids, v, p), "my_owner uses owner_of, the list of blocks"),
    (lambda ids, v, p: ids.tolist(), "returned list; return a torch.Tensor"),
    (torch.zeros(3), r"pass your function itself \(my_owner, not my_owner\(...\)\); got Tensor"),
])
def test_owner_function(judge, function, expected):
    judge(exercises.check_owner_function, (function,), expected)


@pytest.mark.parametrize(("weights", "expected"), [
    ((1 / 6, 1 / 2), "pass"),
    ((0.1667, 0.5), "pass"),  # within 0.001
    ((1 / 6, 1), "row_7_weight = 1 is not .* its weight in its own process's mean"),
    ((1 / 4, 1 / 4), "row_0_weight = 0.25 is not .* 1/4 is its weight in the bag mean"),
    ((1 / 3, 1 / 2), "row_0_weight = 0.333333 is not .* its weight in its own process's mean"),
    ((0.1, 0.5), "row_0_weight = 0.1 is not .* which of the bag's ids does each hold"),
    ((1 / 6, True), "row_7_weight must look like 1 / 5, got bool"),
])
def test_shortcut_weights(judge, weights, expected):
    judge(exercises.check_bag_prediction, weights, expected, never=("1/6", "1/2", "0.166", "0.5 "))


@pytest.mark.parametrize(("checker", "guesses", "named"), [
    (exercises.check_bag_prediction, (None, 0.5), "row_0_weight"),
    (exercises.check_bag_prediction, (None, None), "row_0_weight and row_7_weight"),
    (exercises.check_loss_on_rank_0, (None, 1), "identity_factor"),
    (exercises.check_loss_on_rank_0, (None, None), "identity_factor and all_reduce_factor"),
])
def test_no_guess_yet_judges_nothing(capsys, checker, guesses, named):
    """Run top to bottom before the learner guesses: one line asking for the guess, no verdict, no failure."""
    assert checker(*guesses) is None
    assert capsys.readouterr().out == f"not answered yet: fill in {named} above, then run this cell again\n"


@pytest.fixture
def four_processes_measured(monkeypatch):
    """Exercise 8.3's measurement as 4 processes give it (tests/processes runs the real one): with the loss on rank
    0 alone, rank 1's gradient is 0 times its slice with the identity backward, 1 time with the all-reducing one."""
    right = torch.arange(12.0).reshape(3, 4) / 8
    monkeypatch.setattr(exercises, "loss_on_rank_0_gradients", lambda: (0 * right, right.clone(), right))


@pytest.mark.parametrize(("factors", "expected"), [
    ((0, 1), "pass"),
    ((0.0, 1.0), "pass"),
    ((1, 1), "identity_factor = 1 is not .* what grad_output does rank 1 receive here"),
    ((2, 1), "identity_factor = 2 is not .* what is it when rank 1 takes no loss"),
    ((0, 4), "all_reduce_factor = 4 is not .* how many of them are not zero"),
    ((0, 0), "all_reduce_factor = 0 is not .* rank 0's included"),
    ((0, 2), "all_reduce_factor = 2 is not .* what does the sum of the 4 processes' grad_output hold"),
    (("0", 1), "identity_factor must look like 3, got str"),
])
def test_loss_on_rank_0(judge, four_processes_measured, factors, expected):
    judge(exercises.check_loss_on_rank_0, factors, expected)


def test_shortcut_weights_are_measured():
    assert exercises.shortcut_row_weights().tolist() == [1 / 6] * 3 + [0] * 4 + [1 / 2] + [0] * 3


def bag_share(bags, local_weight, start, padding_idx):
    """Exercise 8.2's worked answer: one process's partial sums, divided by the whole bag's count."""
    real = bags != padding_idx  # the ids that count: every process sees all of them
    partial = (local_lookup(bags, local_weight, start) * real[..., None]).sum(dim=1)
    return partial / real.sum(dim=1, keepdim=True).clamp(min=1)


def own_mean(bags, local_weight, start, padding_idx):  # the process's own mean, as if it held the whole bag
    end = start + local_weight.shape[0]
    owned = ((bags >= start) & (bags < end) & (bags != padding_idx)).sum(dim=1, keepdim=True)
    rows = local_lookup(bags, local_weight, start) * (bags != padding_idx)[..., None]
    return rows.sum(dim=1) / owned.clamp(min=1)


def pad_row_added(bags, local_weight, start, padding_idx):
    real = (bags != padding_idx).sum(dim=1, keepdim=True)
    return local_lookup(bags, local_weight, start).sum(dim=1) / real.clamp(min=1)


NOTEBOOK_TABLE = torch.randn(11, 4, generator=torch.Generator().manual_seed(0))  # the notebook's `weight`


def whole_table(bags, local_weight, start, padding_idx):  # the shortcut: the notebook's whole table, not its rows
    return F.embedding_bag(bags, NOTEBOOK_TABLE, mode="mean", padding_idx=padding_idx)


PROCESSES = {pad: world_size for world_size, pad, _ in exercises._BAG_CASES}  # each case has its own pad id


def count(bags, pad):
    return (bags != pad).sum(dim=1, keepdim=True)


@pytest.mark.parametrize(("function", "expected"), [
    (bag_share, "pass"),
    (whole_table, "is not the bag mean"),  # it sees only its rows: the whole-table shortcut cannot pass
    (lambda bags, w, s, pad: own_mean(bags, w, s, pad) / PROCESSES[pad],
     r"averages the processes' own means.*off by up to \d\.\d\d"),
    (own_mean, "adds up the processes' own means"),
    (lambda bags, w, s, pad: bag_share(bags, w, s, pad) / PROCESSES[pad], "divides by the number of processes"),
    (lambda bags, w, s, pad: bag_share(bags, w, s, pad) * count(bags, pad), "these are the bag sums"),
    (lambda bags, w, s, pad: bag_share(bags, w, s, pad) * count(bags, pad) / bags.shape[1],
     "divides by the bag length L, the pad ids included"),
    (pad_row_added, "the pad id's row is in the sum"),
    (lambda bags, w, s, pad: local_lookup(bags, w, s).sum(dim=1) / bags.shape[1], "padding_idx as an ordinary id"),
    (lambda bags, w, s, pad: bag_share(bags, w, s, pad) * count(bags, pad) / count(bags, pad),
     "holds NaN: 0 divided by 0"),
    (lambda bags, w, s, pad: bag_share(bags, w, s, pad)[:, :3], r"has shape \(4, 3\), expected \(4, 4\)"),
    (lambda bags, w, s, pad: bag_share(bags, w, s, pad).tolist(), "returned list"),
    (lambda bags, w, s, pad: bag_share(bags, w, s, pad) + 1, "each process sums the rows it holds"),
    (torch.zeros(3, 4), r"pass your function itself \(bag_share, not"),
])
def test_bag_share(judge, function, expected):
    judge(exercises.check_bag_share, (function,), expected)


def test_the_owner_cases_are_every_pair_of_the_domain():
    small = [(v, p) for v, p in exercises._OWNER_CASES if v <= exercises._OWNER_MAX_SMALL_V]
    assert len(small) == 300 and all(1 <= p <= v for v, p in exercises._OWNER_CASES)  # "all 300 pairs 1 <= P <= V"


def test_the_success_line_names_the_checked_sizes():
    assert [world_size for world_size, _, _ in exercises._BAG_CASES] == [2, 3]  # "for P = 2 and P = 3"
