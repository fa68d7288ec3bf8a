"""Notebook 0, the answer: the checkers of its exercises."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn as nn
import torch.nn.functional as F

from ..language import _
from .checking import (
    CODE_MISSING,
    AnswerTypeError,
    _names,
    answered,
    correct,
    hint,
    is_stub,
    not_answered,
    prediction,
    require,
    require_function,
    returned_tensor,
    writes,
)


def check_nan_count(nan_count: object, one_hot: torch.Tensor, table: torch.Tensor) -> None:
    """The prediction before the reveal of ``inf``: how many numbers of ``one_hot @ table`` are NaN, where ``table``
    holds an ``inf`` in a row that no one-hot row selects. Judges nothing while the guess is None."""
    if not answered(nan_count=nan_count):
        return
    guess = prediction("nan_count", nan_count, int, "7")
    with torch.no_grad():
        product = one_hot.detach().cpu().float() @ table.detach().cpu().float()
    count = int(product.isnan().sum())
    rows, columns = product.shape
    require(guess == count, hint(
        [(guess == 0, _("not 0: the lookup never reads the inf's row, but the product is a sum over every row of "
                         "the table. Hint: what does 0 · inf give, and which outputs multiply the inf by 0?")),
         (guess == rows * columns, _("not every number. Hint: the inf sits in one column of the table; which "
                                      "columns of the product does it reach?")),
         (guess == 1, _("more than one. Hint: which outputs multiply the table's inf, whether by 1 or by 0?"))],
        _("Hint: output [i, j] adds up one_hot[i, v] · table[v, j] over every row v, and 0 · inf is NaN.")))
    return correct(_("nan_count is the number of NaNs in one_hot @ poisoned, counted by the checker"))


def check_embedding_from_linear(embedding: object, linear: object) -> None:
    """Exercise 0.1: an ``nn.Embedding`` whose lookup equals ``linear`` (with its bias) on one-hot rows, for every
    id, exactly."""
    if not answered(embedding_ex=embedding):
        return
    if not isinstance(linear, nn.Linear):
        raise AnswerTypeError(_("linear must be an nn.Linear, got {type}").format(type=type(linear).__name__))
    require(isinstance(embedding, nn.Embedding), _("expected an nn.Embedding, got {type}").format(
                                                     type=type(embedding).__name__))
    vocab_size, dim = linear.in_features, linear.out_features
    shape = tuple(embedding.weight.shape)
    require(shape != (dim, vocab_size), _("embedding.weight has shape {shape}, the linear layer's own "
                                           "[out_features, in_features]. Hint: an embedding stores a row "
                                           "per id, [num_embeddings, embedding_dim].").format(shape=shape))
    require(shape == (vocab_size, dim), _("embedding.weight has shape {shape}, expected {vocab_size}: one "
                                           "row per id (the linear layer's in_features), as wide as its "
                                           "outputs (out_features)").format(
                                            shape=shape, vocab_size=(vocab_size, dim)))
    ids = torch.arange(vocab_size)
    with torch.no_grad():
        got = embedding(ids.to(embedding.weight.device)).cpu()
        expected = linear(F.one_hot(ids, vocab_size).to(linear.weight)).cpu()
        product = (F.one_hot(ids, vocab_size).to(linear.weight) @ linear.weight.T).cpu()
    offset = expected - got
    require(torch.equal(got, expected), hint(
        [(linear.bias is not None and torch.equal(got, product),
          _("embedding(ids) is the product one_hot(ids) @ linear.weight.T alone, and linear(one_hot(ids)) differs "
             "from it by the same vector in every row. Hint: what does an nn.Linear do after its product?")),
         (torch.allclose(offset, offset[:1].expand_as(offset)) and not torch.allclose(offset, torch.zeros_like(offset)),
          _("embedding(ids) differs from linear(one_hot(ids)) by the same vector in every row. Hint: what does an "
             "nn.Linear add after its product, and to which rows?"))],
        _("embedding(ids) differs from linear(one_hot(ids)). Hint: work out what linear gives for the one-hot row "
           "of id i, and make that row i of the table (nn.Embedding.from_pretrained builds an embedding from a "
           "tensor).")))
    return correct(_("embedding_ex(ids) == linear_ex(one_hot(ids)) for every id, exactly"))


#: the checker's own layers: an embedding of 7 rows of 3 numbers, and the linear layer that holds its transpose
_VOCAB, _DIM = 7, 3
#: three batches of ids: in each, an id that repeats (up to three times); id 6 in none
_BATCHES = ([2, 0, 2, 5], [1, 1, 1], [4, 3, 0, 3, 1])
_LOSSES = "(embedding(ids) * grad_out).sum()"


def _backward_grads(ids: torch.Tensor, grad_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The gradients of the two layers' tables (the linear layer's transposed back to ``[V, d]``), from the
    checker's own backward passes of :data:`_LOSSES` and of its one-hot twin."""
    weight = torch.randint(-8, 9, (_VOCAB, _DIM), generator=torch.Generator().manual_seed(0)) / 8
    embedding = nn.Embedding.from_pretrained(weight, freeze=False)
    linear = nn.Linear(_VOCAB, _DIM, bias=False)
    linear.weight = nn.Parameter(weight.T.clone())
    (embedding(ids) * grad_out).sum().backward()
    (linear(F.one_hot(ids, _VOCAB).float()) * grad_out).sum().backward()
    return embedding.weight.grad, linear.weight.grad.T


@writes("grad_by_hand")
def check_grad_by_hand(grad_by_hand: Callable) -> None:
    """Exercise 0.3: ``grad_by_hand(ids, grad_out, V)`` returns the gradient of ``(embedding(ids) * grad_out).sum()``
    with respect to the ``[V, d]`` table, without a backward pass.

    The checker calls it on three batches of its own, each with a repeated id and none with id 6, and with
    ``grad_out`` of multiples of 1/8, so that every sum is exact and the gradients compare exactly. Both
    layers' backward passes (the linear layer's transposed) give the same numbers there; the answer must too.
    Then on a batch of random numbers (:data:`_RANDOM_BATCH`), where each layer may add a row's numbers in its own
    order: there the answer must match both backward passes up to rounding, within :func:`_rounding_bound`.
    """
    require_function("grad_by_hand", grad_by_hand)
    generator = torch.Generator().manual_seed(1)
    for batch in _BATCHES:
        ids = torch.tensor(batch)
        grad_out = torch.randint(-8, 9, (len(batch), _DIM), generator=generator) / 8
        call = _("grad_by_hand(ids={batch}, grad_out, V={vocab})").format(batch=batch, vocab=_VOCAB)
        result = grad_by_hand(ids.clone(), grad_out.clone(), _VOCAB)
        got = returned_tensor(call, result)
        expected, from_linear = _backward_grads(ids, grad_out)
        assert torch.equal(expected, from_linear), _("the checker's own two backward passes agree")
        shape = tuple(got.shape)
        require(shape == (_VOCAB, _DIM), hint(
            [(shape == tuple(grad_out.shape), _("{call} has shape {shape}, the shape of grad_out; expected "
                                                 "{vocab}: one row for each id of the table, used or not").format(
                                                  call=call, shape=shape, vocab=(_VOCAB, _DIM))),
             (shape == (_DIM, _VOCAB), _("{call} has shape {shape}, the linear layer's [d, V]; expected "
                                          "{vocab}, the embedding's table [V, d]").format(
                                           call=call, shape=shape, vocab=(_VOCAB, _DIM)))],
            _("{call} has shape {shape}, expected {vocab}: the shape of the table").format(
                call=call, shape=shape, vocab=(_VOCAB, _DIM))))
        got = got.to(expected.dtype)
        rows = [v for v in range(_VOCAB) if not torch.equal(got[v], expected[v])]
        if not rows:
            continue
        first = rows[0]
        require(False, hint(
            [(all(batch.count(v) > 1 for v in rows),
              _("{call} is wrong in the row of id {first}, which appears {count} times in ids. Hint: each "
                 "time a row is looked up, its output takes part in the sum.").format(
                  call=call, first=first, count=batch.count(first))),
             (all(v not in batch for v in rows),
              _("{call} is wrong in the row of id {first}, which ids never looks up. Hint: how does the "
                 "sum change when a row that no id reads changes?").format(call=call, first=first))],
            _("{call} differs from the backward pass of {losses} in the rows of ids {rows}. Hint: which "
               "numbers of the sum does row v of the table multiply?").format(call=call, losses=_LOSSES, rows=rows)))
    ids, grad_out = _random_batch()
    call = _("grad_by_hand(ids, grad_out, V={vocab}), on a batch of {n_ids} ids with random grad_out,").format(
               vocab=_VOCAB, n_ids=len(ids))
    got = returned_tensor(call, grad_by_hand(ids.clone(), grad_out.clone(), _VOCAB), (_VOCAB, _DIM),
                          _(": the shape of the table")).to(torch.float32)
    bound = _rounding_bound(ids, grad_out)
    names = (_("nn.Embedding's backward pass"), _("nn.Linear's backward pass (transposed)"))
    for name, expected in zip(names, _backward_grads(ids, grad_out), strict=True):
        require(((got - expected).abs() <= bound).all(), _("{call} differs from {name} by more than "
                                                            "rounding. Hint: which numbers of the sum does "
                                                            "row v of the table multiply?").format(
                                                             call=call, name=name))
    return correct(_("grad_by_hand equals both layers' backward passes (nn.Linear's transposed) on the checker's 3 "
                      "short batches, exactly, and on a batch of 96 ids, within rounding"))


#: the last batch: 96 ids drawn from 0..5 (each repeats about 16 times, id 6 never), with random ``grad_out``
_RANDOM_BATCH = 96


def _random_batch() -> tuple[torch.Tensor, torch.Tensor]:
    """The ids and ``grad_out`` of :data:`_RANDOM_BATCH`: a row's sum of random numbers rounds, and two orders of
    adding them may give different last bits (on the machine where this was written, the two layers' backward
    passes did differ)."""
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(0, _VOCAB - 1, (_RANDOM_BATCH,), generator=generator)
    return ids, torch.randn(_RANDOM_BATCH, _DIM, generator=generator)


def _rounding_bound(ids: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    """How far two float32 sums of each row's numbers, in any two orders, can lie apart: twice ``n·ε`` times the
    sum of the numbers' sizes, for a row that ``n`` ids look up (notebook 0's *Going deeper* derives it, with
    ``n - 1``); 0 for a row looked up once or never, whose sum rounds nothing."""
    eps = torch.finfo(torch.float32).eps
    counts = torch.bincount(ids, minlength=_VOCAB)[:, None].float()
    sizes = torch.zeros(_VOCAB, _DIM).index_add_(0, ids, grad_out.abs())
    return torch.where(counts > 1, 2 * counts * eps * sizes, torch.zeros(()))


@writes("bias_grad_by_hand")
def check_bias_grad_by_hand(bias_grad_by_hand: Callable) -> None:
    """Exercise 0.3, the bias: ``bias_grad_by_hand(ids, grad_out)`` returns the gradient of
    ``(lin(one_hot(ids)) * grad_out).sum()`` with respect to ``lin.bias``, where ``lin`` is an ``nn.Linear(V, d)``
    with a bias, without a backward pass.

    The checker compares it with its own backward pass on the batches of :func:`check_grad_by_hand`, with
    ``grad_out`` of multiples of 1/8, so that every sum is exact.
    """
    require_function("bias_grad_by_hand", bias_grad_by_hand)
    generator = torch.Generator().manual_seed(2)
    for batch in _BATCHES:
        ids = torch.tensor(batch)
        grad_out = torch.randint(-8, 9, (len(batch), _DIM), generator=generator) / 8
        call = _("bias_grad_by_hand(ids={batch}, grad_out)").format(batch=batch)
        got = returned_tensor(call, bias_grad_by_hand(ids.clone(), grad_out.clone()))
        linear = nn.Linear(_VOCAB, _DIM)
        (linear(F.one_hot(ids, _VOCAB).float()) * grad_out).sum().backward()
        expected = linear.bias.grad
        shape = tuple(got.shape)
        require(shape == (_DIM,), hint(
            [(shape == (_VOCAB, _DIM), _("{call} has shape {shape}, a row per id; the bias is one vector "
                                          "of {dim} numbers, shared by every id").format(
                                           call=call, shape=shape, dim=_DIM))],
            _("{call} has shape {shape}, expected {dim}: the shape of the bias").format(
                call=call, shape=shape, dim=(_DIM,))))
        got = got.to(expected.dtype)
        if torch.equal(got, expected):
            continue
        unique = torch.stack([grad_out[ids == v][0] for v in ids.unique()]).sum(0)
        require(False, hint(
            [(torch.equal(got, unique), _("{call} counts each id once, but ids repeats one. Hint: the bias "
                                           "is added to every output row, whatever its id.").format(call=call)),
             (torch.equal(got, grad_out.mean(0)), _("{call} is the mean of grad_out's rows. Hint: the loss "
                                                     "is a sum.").format(call=call))],
            _("{call} differs from the backward pass. Hint: to which output rows is the bias added?").format(
                call=call)))
    return correct(_("bias_grad_by_hand equals nn.Linear's backward pass on the same 3 short batches"))


def _is_stub(function: Callable, *args: object) -> bool:
    """``function(*args)`` raises the answer cell's stub ``NotImplementedError`` (any other outcome: False)."""
    try:
        function(*args)
    except NotImplementedError as error:
        return is_stub(error)
    except Exception:  # the learner's own bug: the checker's call shows it
        return False
    return False


@writes("grad_by_hand", "bias_grad_by_hand")
def check_grads_by_hand(grad_by_hand: Callable, bias_grad_by_hand: Callable) -> None:
    """Exercise 0.3 in one checker cell: :func:`check_grad_by_hand`, then :func:`check_bias_grad_by_hand`; answer
    cells still stubs get one line, naming every function to write."""
    ids, grad_out = torch.tensor([0]), torch.zeros(1, _DIM)
    if _is_stub(grad_by_hand, ids, grad_out, _VOCAB) and _is_stub(bias_grad_by_hand, ids, grad_out):
        return not_answered(_(CODE_MISSING).format(name=_names(["grad_by_hand", "bias_grad_by_hand"])))
    check_grad_by_hand.__wrapped__(grad_by_hand)
    check_bias_grad_by_hand.__wrapped__(bias_grad_by_hand)


#: exercise 0.1's layers: nn.Linear(6, 3), so ids 0 to 5
_EX_VOCAB = 6


def one_step_moves(weight: torch.Tensor, bias: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Exercise 0.2's measurement, on copies: one SGD step (learning rate 1, a ``grad_out`` of ones) on the ids
    ``[0, 0, 2]``, for the linear layer ``weight`` [d, V], ``bias`` [d] and for exercise 0.1's embedding of it (row
    ``v`` = ``weight.T[v] + bias``). Returns, for each layer, every id's largest output change: two tensors [V]."""
    weight, bias = (t.detach().clone().requires_grad_() for t in (weight, bias))
    table = (weight.T + bias).detach().clone().requires_grad_()  # exercise 0.1's embedding of this linear layer
    dim, vocab = weight.shape
    every_one_hot = F.one_hot(torch.arange(vocab, device=weight.device), vocab).to(weight.dtype)
    before = F.linear(every_one_hot, weight, bias).detach()
    ids = torch.tensor([0, 0, 2], device=weight.device)
    grad_out = torch.ones(len(ids), dim, device=weight.device)
    F.linear(F.one_hot(ids, vocab).to(weight.dtype), weight, bias).backward(grad_out)
    F.embedding(ids, table).backward(grad_out)
    with torch.no_grad():
        for parameter in (weight, bias, table):
            parameter -= parameter.grad
        return tuple((after - before).abs().amax(dim=1) for after in (F.linear(every_one_hot, weight, bias), table))


def check_moved(moved_linear: object, moved_embedding: object) -> None:
    """Exercise 0.2: does an embedding built as in exercise 0.1 (the bias in each row) train like its linear
    layer? The guess: the set of ids whose output one SGD step (learning rate 1) on the ids ``[0, 0, 2]`` moves, for
    each layer, measured on the checker's own layers of exercise 0.1's size, with a ``grad_out`` of ones. Judges
    nothing while a guess is None."""
    if not answered(moved_linear=moved_linear, moved_embedding=moved_embedding):
        return
    guesses = [prediction(name, value, (set, frozenset), "{1, 4}")
               for name, value in (("moved_linear", moved_linear), ("moved_embedding", moved_embedding))]
    generator = torch.Generator().manual_seed(3)
    moves = one_step_moves(torch.randn(_DIM, _EX_VOCAB, generator=generator), torch.randn(_DIM, generator=generator))
    measured = [set(moved.nonzero().flatten().tolist()) for moved in moves]  # the ids whose output moved
    assert measured == [set(range(_EX_VOCAB)), {0, 2}]
    require(guesses == measured, _(
        "not what one SGD step shows. Hint: which rows of grad_out reach linear_ex's one bias, and which reach "
        "row 1 of embedding_ex when ids holds no 1?"))
    return correct(_("moved_linear and moved_embedding match one SGD step on both layers, on the checker's own "
                     "layers of exercise 0.1's size"))
