"""Notebook 8, splitting the table over devices: the checkers of its exercises."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

from ..distributed.launcher import launch
from ..distributed.vocab_parallel_run import (
    ProblemSpec,
    loss_on_rank_0_step,
    make_problem,
    single_device_reference,
)
from ..language import _
from ..vocab_parallel import local_lookup, owner_of, shard_bounds
from .checking import answered, as_number, correct, hint, prediction, require, require_function, returned_tensor, writes

#: Exercise 8.1's domain: every ``V`` and every ``P`` from 1 to ``V`` (each process holds at least one row, as
#: ``shard_bounds`` requires). The checker tries every such pair up to ``V = 24``, then two large ones.
_OWNER_MAX_SMALL_V = 24
_OWNER_CASES = (*((v, p) for v in range(1, _OWNER_MAX_SMALL_V + 1) for p in range(1, v + 1)), (100, 7), (50_257, 8))


@writes("my_owner")
def check_owner_function(fn: Callable[[torch.Tensor, int, int], torch.Tensor]) -> None:
    """Exercise 8.1: ``fn(ids, vocab_size, world_size)`` -> the rank that holds each id's row, ids ``S`` -> ``S``.

    Compared, for every id of every ``(V, P)`` of :data:`_OWNER_CASES` (``1 <= P <= V``) and for ``(B, T)`` batches,
    with the split of :func:`utils.vocab_parallel.shard_bounds` (the first ``V % P`` blocks one row longer).
    The likeliest wrong splits, ``torch.chunk``'s ``ceil(V / P)`` rows each and blocks of ``V // P``
    rows, get a hint of their own.
    """
    require_function("my_owner", fn)
    borrowed = {"shard_bounds", "shard_of", "owner_of", "bounds"} & set(getattr(getattr(fn, "__code__", None),
                                                                                 "co_names", ()))
    require(not borrowed, _("my_owner uses {names}, the list of blocks: compute the rank from the id, "
                             "vocab_size and world_size alone").format(names=', '.join(sorted(borrowed))))
    for vocab_size, world_size in _OWNER_CASES:
        base, extra = divmod(vocab_size, world_size)
        for ids in (torch.arange(vocab_size), torch.arange(vocab_size).flip(0)[:12].reshape(2, -1)
                    if vocab_size >= 12 else torch.arange(vocab_size)[None]):
            where = _("my_owner(ids of shape {shape}, {vocab_size}, {world_size})").format(
                        shape=tuple(ids.shape), vocab_size=vocab_size, world_size=world_size)
            got = returned_tensor(where, fn(ids.clone(), vocab_size, world_size), tuple(ids.shape),
                                  _(": one rank per id")).long()
            expected = owner_of(ids, vocab_size, world_size)
            wrong = (got != expected).nonzero()
            if len(wrong) == 0:
                continue
            first = tuple(wrong[0].tolist())
            why = hint([(torch.equal(got, ids // -(-vocab_size // world_size)), _("that is torch.chunk's split, "
                                                                                   "ceil(V / P) rows in every block "
                                                                                   "but the last; here the blocks "
                                                                                   "differ by at most one row")),
                        (torch.equal(got, (ids // base).clamp(max=world_size - 1)),
                         _("that gives every block V // P rows and the remainder to the last; here the first V % P "
                            "blocks hold one row more"))],
                       _("{vocab_size} = {base} * {world_size} + {extra}: which ids do the first {extra} "
                          "blocks hold, {size} each, and where do the blocks of {base} rows start?").format(
                           vocab_size=vocab_size, base=base, world_size=world_size, extra=extra, size=base + 1))
            require(False, _("{where}: id {ids} belongs to rank {expected}, your function says {got}. "
                              "Hint: {why}").format(
                               where=where, ids=int(ids[first]), expected=int(expected[first]), got=int(got[first]),
                               why=why))
    return correct(_("my_owner gave the rank of every id for all 300 pairs 1 <= P <= V <= 24, for V = 100 over P = "
                      "7 and V = 50,257 over P = 8, and for (B, T) batches of ids"))


#: Exercise 8.2: ``(world_size, padding_idx, bags)`` over an 11-row table. Every bag has ids in more than one shard,
#: in unequal numbers, so averaging the shards' own means gives another answer than the bag mean; the pad id is held
#: by one shard, and the last bag holds nothing else, so its mean is a row of zeros, as F.embedding_bag gives.
_BAG_CASES = (
    (2, 7, ((0, 1, 2, 7), (6, 8, 9, 3), (5, 10, 5, 10), (7, 7, 7, 7))),  # shards [0, 6), [6, 11); 7 is rank 1's
    (3, 0, ((0, 1, 2, 3, 5, 9), (4, 8, 9, 10, 0, 6), (0, 0, 0, 0, 0, 0))),  # shards [0, 4), [4, 8), [8, 11)
)


#: Exercise 8.2, first part: a bag of 4 ids over the 11-row table, split between 2 processes, rows [0, 6) and [6, 11)
_SHORTCUT_BAG, _SHORTCUT_WORLD_SIZE, _SHORTCUT_ROWS = (0, 1, 2, 7), 2, (0, 7)


def shortcut_row_weights(bag: tuple[int, ...] = _SHORTCUT_BAG, vocab_size: int = 11,
                         world_size: int = _SHORTCUT_WORLD_SIZE) -> torch.Tensor:
    """``(V,)``: how much each row counts when each shard takes the mean of the rows of ``bag`` it holds and the
    shards' means are averaged. Measured on the identity table, whose row ``i`` is the ``i``-th unit vector."""
    table = torch.eye(vocab_size, dtype=torch.float64)
    return _shard_bag_results(torch.tensor([bag]), table, world_size)["mean of means"][0]


def check_bag_prediction(row_0_weight: float, row_7_weight: float) -> None:
    """Exercise 8.2, first part: how much rows 0 and 7 count in the mean of the shards' own means of the bag
    ``(0, 1, 2, 7)`` (:func:`shortcut_row_weights`), worked out before any code. Within 0.001: ``1 / 6`` or
    ``0.1667`` both pass. Judges nothing while a guess is None."""
    if not answered(row_0_weight=row_0_weight, row_7_weight=row_7_weight):
        return
    weights = shortcut_row_weights()
    guesses = {row: as_number(name, prediction(name, value, (int, float), "1 / 5"), _("how much row {row} "
                                                                                       "counts").format(row=row))
               for row, name, value in ((0, "row_0_weight", row_0_weight), (7, "row_7_weight", row_7_weight))}
    for row, got in guesses.items():
        why = hint([(abs(got - 1 / 4) <= 1e-3, _("1/4 is its weight in the bag mean, where each of the 4 rows "
                                                  "counts once: here each process first averages only the rows it "
                                                  "holds")),
                    (abs(got - float(weights[row]) * _SHORTCUT_WORLD_SIZE) <= 1e-3,
                     _("that is its weight in its own process's mean: the two processes' means are then averaged"))],
                   _("rank 0 holds rows [0, 6) and rank 1 rows [6, 11): which of the bag's ids does each hold? A "
                      "row counts 1/m in a mean of m rows: what does averaging the two processes' means do to that?"))
        require(abs(got - float(weights[row])) <= 1e-3,
                _("row_{row}_weight = {got:g} is not how much row {row} counts in the average of the two "
                   "processes' means. Hint: {why}").format(row=row, got=got, why=why))
    return correct(_("how much rows 0 and 7 count in the average of the processes' own means of the bag (0, 1, 2, 7)"))


def _shard_bag_results(bags: torch.Tensor, weight: torch.Tensor, world_size: int,
                       padding_idx: int | None = None) -> dict[str, torch.Tensor]:
    """The right bag means and the tempting wrong ones, from each shard's rows (``(B, L)`` -> ``(B, d)``); the ids
    equal to ``padding_idx`` neither add their row nor count, as in ``F.embedding_bag(..., padding_idx=...)``."""
    real = bags != (-1 if padding_idx is None else padding_idx)  # (B, L): the ids that count
    sums, with_pad, own_means = [], [], []
    for start, end in shard_bounds(weight.shape[0], world_size):
        rows = local_lookup(bags, weight[start:end], start)  # (B, L, d), zeros where the shard lacks the row
        owned = ((bags >= start) & (bags < end) & real).sum(dim=1, keepdim=True)  # (B, 1)
        sums.append((rows * real[..., None]).sum(dim=1))
        with_pad.append(rows.sum(dim=1))
        own_means.append(sums[-1] / owned.clamp(min=1))  # a shard holding none of the bag: 0, not 0 / 0
    total, count = sum(sums), real.sum(dim=1, keepdim=True)
    return {"right": total / count.clamp(min=1), "mean of means": sum(own_means) / world_size,
            "sum of means": sum(own_means), "divided by P": total / (count.clamp(min=1) * world_size),
            "not divided": total, "divided by L": total / bags.shape[1],
            "pad row added": sum(with_pad) / count.clamp(min=1), "no padding": sum(with_pad) / bags.shape[1]}


@writes("bag_share")
def check_bag_share(fn: Callable[[torch.Tensor, torch.Tensor, int, int], torch.Tensor]) -> None:
    """Exercise 8.2: ``fn(bags (B, L), local_weight, start, padding_idx)`` -> one process's ``(B, d)`` share of the
    bag means, from its rows ``local_weight = W[start:end]`` alone.

    The checker calls it once per process with that process's rows only, adds the results as the all-reduce does,
    and compares the sum with ``F.embedding_bag(bags, W, mode="mean", padding_idx=padding_idx)`` on the whole
    table; the tempting wrong combinations of the shards' results get a hint of their own.
    """
    require_function("bag_share", fn)
    weight = torch.randn(11, 4, generator=torch.Generator().manual_seed(83))
    off_by = max(float((_shard_bag_results(torch.tensor(bags), weight, world_size, pad)["mean of means"]
                        - _shard_bag_results(torch.tensor(bags), weight, world_size, pad)["right"])
                       .abs().max()) for world_size, pad, bags in _BAG_CASES)
    hints = {
        "mean of means": _("that averages the processes' own means: a process holding one of a bag's ids "
                            "counts as much as one holding all the others (off by up to {off_by:.2f} on "
                            "these bags)").format(off_by=off_by),
        "sum of means": _("that adds up the processes' own means, each divided by how many ids that process holds"),
        "divided by P": _("that divides by the number of processes too: the all-reduce adds the partial sums, it "
                           "does not average them"),
        "not divided": _("these are the bag sums: divide them by how many of the bag's ids count, once, after "
                          "adding the processes' sums"),
        "divided by L": _("that divides by the bag length L, the pad ids included: only the ids that are not "
                           "padding_idx count"),
        "pad row added": _("the pad id's row is in the sum: the process that holds that row must leave it out too"),
        "no padding": _("that is the mean with padding_idx as an ordinary id: leave its row out of the sum and "
                         "out of the count"),
    }
    for world_size, padding_idx, bag_lists in _BAG_CASES:
        bags = torch.tensor(bag_lists)
        expected = F.embedding_bag(bags, weight, mode="mean", padding_idx=padding_idx)
        candidates = _shard_bag_results(bags, weight, world_size, padding_idx)
        where = _("the sum of bag_share over {world_size} processes (bags of shape {shape}, padding_idx="
                  "{padding_idx})").format(shape=tuple(bags.shape), world_size=world_size, padding_idx=padding_idx)
        shares = [returned_tensor(_("bag_share(bags, local_weight, start={start}, padding_idx={padding_idx})").format(
                      start=start, padding_idx=padding_idx),
                      fn(bags.clone(), weight[start:end].clone(), start, padding_idx), tuple(expected.shape),
                      _(": one d-vector per bag")).to(expected.dtype)
                  for start, end in shard_bounds(len(weight), world_size)]  # each process gets its rows alone
        got = sum(shares)
        require(not got.isnan().any(), _("{where} holds NaN: 0 divided by 0. The last bag holds only padding_idx, "
                                          "and F.embedding_bag gives it a row of zeros; a process that holds none "
                                          "of a bag's ids has nothing to divide either").format(where=where))
        why = hint([(torch.allclose(got, candidates[name], rtol=1e-5, atol=1e-6), text)
                    for name, text in hints.items()],
                   _("each process sums the rows it holds of the ids that count (local_lookup gives zeros for the "
                      "others), and the processes' results are added: divide by how many ids count, which every "
                      "process knows"))
        require(torch.allclose(got, expected, rtol=1e-5, atol=1e-6),
                _("{where} is not the bag mean of F.embedding_bag(bags, weight, mode='mean', padding_idx=padding_idx)."
                  " Hint: {why}").format(where=where, why=why))
    return correct(_("given each process's rows alone, for P = 2 and P = 3, the sum of your shares matches "
                      "F.embedding_bag(mode='mean', padding_idx=...) on the whole table to float32 rounding, a bag "
                      "of padding alone included"))


#: Exercise 8.3: the processes the checker starts, on section 5's seeded problem, and the rank the exercise asks about
_RANK_0_LOSS_WORLD_SIZE, _RANK_0_LOSS_SPEC, _ASKED_RANK = 4, ProblemSpec(), 1


def loss_on_rank_0_gradients() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(identity, all-reducing, right)``: rank 1's weight gradient when only rank 0 of 4 real processes takes the
    loss, with ``AllReduceSum``'s identity backward and with a backward that all-reduces
    (:func:`~utils.distributed.vocab_parallel_run.loss_on_rank_0_step`), and rank 1's slice of the single-device
    gradient of that loss."""
    weight, ids, grad_out = make_problem(_RANK_0_LOSS_SPEC)
    results = launch(loss_on_rank_0_step, _RANK_0_LOSS_WORLD_SIZE, args=(weight, ids, grad_out))
    start, end = shard_bounds(len(weight), _RANK_0_LOSS_WORLD_SIZE)[_ASKED_RANK]
    identity, all_reduced = results[_ASKED_RANK]
    return identity, all_reduced, single_device_reference(_RANK_0_LOSS_SPEC)[1][start:end]


def check_loss_on_rank_0(identity_factor: object, all_reduce_factor: object) -> None:
    """Exercise 8.3: only rank 0 of 4 processes takes the loss, the others backpropagate zeros. How many times its
    slice of the single-device gradient rank 1's weight gradient is, with the identity backward and with one that
    all-reduces: predicted, then measured on 4 real processes (:func:`loss_on_rank_0_gradients`).
    Judges nothing while a guess is None."""
    if not answered(identity_factor=identity_factor, all_reduce_factor=all_reduce_factor):
        return
    factors = {name: as_number(name, prediction(name, value, (int, float), "3"), _("how many times the right "
                                                                                    "gradient"))
               for name, value in (("identity_factor", identity_factor), ("all_reduce_factor", all_reduce_factor))}
    identity, all_reduced, right = loss_on_rank_0_gradients()
    require(bool(right.any()), _("rank 1's slice of the single-device gradient is all zeros: nothing to compare with"))
    hints = {
        "identity_factor": hint([(factors["identity_factor"] == 1, _("that is what the identity gives when every "
                                                                      "process takes the same loss: what grad_output "
                                                                      "does rank 1 receive here?"))],
                                _("the identity passes rank 1's own grad_output on to its rows: what is it when "
                                   "rank 1 takes no loss?")),
        "all_reduce_factor": hint([(factors["all_reduce_factor"] == _RANK_0_LOSS_WORLD_SIZE, _("the all-reduce adds "
                                                                                                "the 4 processes' "
                                                                                                "grad_output: how "
                                                                                                "many of them are "
                                                                                                "not zero?")),
                                   (factors["all_reduce_factor"] == 0, _("the all-reduce adds the grad_output of "
                                                                          "all 4 processes, rank 0's included"))],
                                  _("what does the sum of the 4 processes' grad_output hold, rank 0's among them?")),
    }
    for name, measured in (("identity_factor", identity), ("all_reduce_factor", all_reduced)):
        require(torch.equal(measured, factors[name] * right),
                _("{name} = {factors:g} is not what 4 processes measured. Hint: {hints}").format(
                    name=name, factors=factors[name], hints=hints[name]))
    return correct(_("both multiples match what 4 real processes measured for rank 1's weight gradient with the loss "
                      "on rank 0 alone, with the identity backward and with one that all-reduces"))
