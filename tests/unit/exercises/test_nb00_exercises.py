"""Notebook 0's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from utils.exercises import nb00 as exercises

torch.manual_seed(5)
LINEAR = nn.Linear(6, 3)  # with its bias, as in the exercise
TABLE = (LINEAR.weight.T + LINEAR.bias).detach().clone()  # row i: what LINEAR gives for the one-hot row of id i
RIGHT = nn.Embedding.from_pretrained(TABLE, freeze=False)
UNTRANSPOSED = nn.Embedding(3, 6)
UNTRANSPOSED.weight = nn.Parameter(LINEAR.weight.detach().clone())
NO_BIAS = nn.Linear(6, 3, bias=False)
with torch.no_grad():
    NO_BIAS.weight.copy_(LINEAR.weight)


@pytest.mark.parametrize(("embedding", "linear", "expected"), [
    (RIGHT, LINEAR, "pass"),
    (nn.Embedding.from_pretrained(LINEAR.weight.T + LINEAR.bias), LINEAR, "pass"),  # the same numbers, not detached
    (nn.Embedding.from_pretrained(LINEAR.weight.detach().T.clone()), NO_BIAS, "pass"),  # a layer without a bias
    # the core cell typed backwards: the bias left out
    (nn.Embedding.from_pretrained(LINEAR.weight.detach().T.clone()), LINEAR, r"product .* alone.*after its product"),
    (nn.Embedding.from_pretrained(TABLE + 1), LINEAR, r"same vector in every row.*add after its product"),
    (nn.Embedding.from_pretrained(LINEAR.weight.detach().T + LINEAR.bias.detach()[0]), LINEAR,  # bias[0] everywhere
     r"same vector in every row"),
    (nn.Embedding.from_pretrained(LINEAR.weight.detach().T + LINEAR.bias.detach()[:, None][:3].T.flip(1)), LINEAR,
     r"same vector in every row"),  # the bias's numbers in the wrong columns
    (UNTRANSPOSED, LINEAR, r"shape \(3, 6\), the linear layer's own"),
    (nn.Embedding(6, 3), LINEAR, r"differs from linear\(one_hot\(ids\)\)\. Hint: work out"),  # its own numbers
    (nn.Embedding(6, 4), LINEAR, r"shape \(6, 4\), expected \(6, 3\)"),
    (LINEAR, LINEAR, "expected an nn.Embedding, got Linear"),
    (nn.Embedding.from_pretrained(TABLE.round(decimals=4)), LINEAR, "differs"),  # typed in from a print
    (RIGHT, RIGHT, (TypeError, "linear must be an nn.Linear, got Embedding")),
])
def test_embedding_from_linear(judge, embedding, linear, expected):
    judge(exercises.check_embedding_from_linear, (embedding, linear), expected, never=("bias",))


def grad_by_hand(ids, grad_out, V):
    """Exercise 0.3's worked answer: each lookup of row v adds its row of grad_out to the gradient of row v."""
    return torch.zeros(V, grad_out.shape[1]).index_add_(0, ids, grad_out)


def by_product(ids, grad_out, V):  # the one-hot product: right too
    return F.one_hot(ids, V).float().T @ grad_out


def by_backward(ids, grad_out, V):  # a fresh table and a backward pass: right, if not what was asked
    table = torch.zeros(V, grad_out.shape[1], requires_grad=True)
    (F.embedding(ids, table) * grad_out).sum().backward()
    return table.grad


def overwriting(ids, grad_out, V):  # a repeated id keeps only its last row
    grad = torch.zeros(V, grad_out.shape[1])
    grad[ids] = grad_out
    return grad


def unused_ones(ids, grad_out, V):  # rows no id reads get 1 instead of 0
    return by_product(ids, grad_out, V) + (F.one_hot(ids, V).sum(0) == 0).float()[:, None]


def stub(ids, grad_out, V):
    raise NotImplementedError("Exercise 0.3")


FIXED = grad_by_hand(torch.tensor([2, 0, 2, 5]), torch.ones(4, 3), 7)  # typed in: one batch's


@pytest.mark.parametrize(("function", "expected"), [
    (grad_by_hand, "pass"),
    (by_product, "pass"),
    (by_backward, "pass"),
    (lambda ids, grad_out, V: by_product(ids, grad_out, V).double(), "pass"),  # float64: the same numbers
    (overwriting, r"row of id 2, which appears 2 times in ids.*each time a row is looked up"),
    (unused_ones, r"row of id 1, which ids never looks up"),
    (lambda ids, grad_out, V: grad_out, r"shape \(4, 3\), the shape of grad_out; expected \(7, 3\)"),
    (lambda ids, grad_out, V: grad_out.T @ F.one_hot(ids, V).float(), r"shape \(3, 7\), the linear layer's \[d, V\]"),
    (lambda ids, grad_out, V: torch.zeros(V, 4), r"shape \(7, 4\), expected \(7, 3\): the shape of the table"),
    (lambda ids, grad_out, V: torch.zeros(V, grad_out.shape[1]), r"rows of ids \[0, 2, 5\].*which numbers"),
    (lambda ids, grad_out, V: FIXED, r"differs from the backward pass"),
    (lambda ids, grad_out, V: FIXED.tolist(), "returned list; return a torch.Tensor"),
    (stub, (NotImplementedError, "Exercise 0.3")),
    (FIXED, r"pass your function itself \(grad_by_hand"),
])
def test_grad_by_hand(judge, function, expected):
    judge(exercises.check_grad_by_hand, (function,), expected, never=("index_add", "one_hot(ids).T", ".T @"))


def bias_grad_by_hand(ids, grad_out):
    """Exercise 0.3's worked answer for the bias: it is added to every output row, so every row of grad_out reaches
    it."""
    return grad_out.sum(0)


def once_per_id(ids, grad_out):  # a repeated id counted once
    return torch.stack([grad_out[ids == v][0] for v in ids.unique()]).sum(0)


@pytest.mark.parametrize(("function", "expected"), [
    (bias_grad_by_hand, "pass"),
    (lambda ids, grad_out: grad_out.T @ torch.ones(len(ids)), "pass"),
    (once_per_id, r"counts each id once.*every output row"),
    (lambda ids, grad_out: grad_out.mean(0), r"mean of grad_out's rows"),
    (lambda ids, grad_out: grad_by_hand(ids, grad_out, 7), r"shape \(7, 3\), a row per id"),
    (lambda ids, grad_out: torch.zeros(4), r"shape \(4,\), expected \(3,\)"),
    (lambda ids, grad_out: torch.zeros(3), r"differs from the backward pass.*to which output rows"),
    (lambda ids, grad_out: [0.0, 0.0, 0.0], "returned list; return a torch.Tensor"),
])
def test_bias_grad_by_hand(judge, function, expected):
    judge(exercises.check_bias_grad_by_hand, (function,), expected, never=("sum(0)",))


def by_loop(ids, grad_out, V):  # one row at a time, in the batch's order: right, and rounded like nn.Embedding's
    grad = torch.zeros(V, grad_out.shape[1])
    for i, v in enumerate(ids.tolist()):
        grad[v] += grad_out[i]
    return grad


def rounded_off(ids, grad_out, V):  # right on sums that round nothing, off by more than rounding elsewhere
    exact = grad_by_hand(ids, grad_out, V)
    return exact if torch.equal(exact, exact * 8 // 1 / 8) else exact + 1e-3


@pytest.mark.parametrize(("function", "expected"), [
    (by_loop, "pass"),
    (lambda ids, grad_out, V: grad_by_hand(ids.flip(0), grad_out.flip(0), V), "pass"),  # another order of the sums
    (rounded_off, r"random grad_out, differs from nn\.Embedding's backward pass by more than rounding"),
    (lambda ids, grad_out, V: grad_by_hand(ids, grad_out, V).half().float(), r"by more than rounding"),
])
def test_grad_by_hand_on_random_numbers(judge, function, expected):
    """The last batch holds random numbers, whose sums round: any order of adding passes, a larger error fails."""
    judge(exercises.check_grad_by_hand, (function,), expected, never=("index_add", "one_hot(ids).T", ".T @"))


def test_the_random_batch_repeats_ids_and_its_bound_covers_both_layers():
    ids, grad_out = exercises._random_batch()
    assert ids.bincount(minlength=7).min() == 0 and ids.bincount().max() > 8  # id 6 unused; ids repeat
    bound = exercises._rounding_bound(ids, grad_out)
    from_embedding, from_linear = exercises._backward_grads(ids, grad_out)
    assert ((from_embedding - from_linear).abs() <= bound).all()


T = torch.tensor
ONE_HOT = F.one_hot(T([2, 3, 1]), 4).float()
POISONED = torch.zeros(4, 5)
POISONED[0, 1] = float("inf")


@pytest.mark.parametrize(("guess", "expected"), [
    (3, "pass"),
    (0, r"not 0: the lookup never reads"),
    (15, r"not every number"),
    (1, r"more than one"),
    (5, r"adds up one_hot\[i, v\]"),
    (3.0, r"nan_count must look like 7"),
    (True, r"nan_count must look like 7"),
])
def test_nan_count(judge, guess, expected):
    judge(exercises.check_nan_count, (guess, ONE_HOT, POISONED), expected, never=("3 ",))


def test_nan_count_judges_nothing_before_a_guess(capsys):
    assert exercises.check_nan_count(None, ONE_HOT, POISONED) is None
    assert capsys.readouterr().out.startswith("not answered yet: fill in nan_count")


@pytest.mark.parametrize(("moved_linear", "moved_embedding", "expected"), [
    ({0, 1, 2, 3, 4, 5}, {0, 2}, "pass"),
    (frozenset(range(6)), frozenset({2, 0}), "pass"),
    ({0, 1, 2, 3, 4, 5}, {0, 1, 2, 3, 4, 5}, r"not what one SGD step shows\. Hint: which rows of grad_out"),
    ({0, 2}, {0, 2}, r"not what one SGD step shows\. Hint: which rows of grad_out"),
    ({0, 1, 2, 3, 4, 5}, {0, 1, 2}, r"not what one SGD step shows\. Hint: which rows of grad_out"),
    (True, {0, 2}, "moved_linear must look like \\{1, 4\\}, got bool"),
    ({0, 1, 2, 3, 4, 5}, [0, 2], "moved_embedding must look like \\{1, 4\\}, got list"),
])
def test_moved(judge, moved_linear, moved_embedding, expected):
    judge(exercises.check_moved, (moved_linear, moved_embedding), expected, never=("{0, 2}", "range"))


def test_one_step_moves_works_on_copies_and_moves_the_looked_up_rows_alone():
    layer = nn.Linear(6, 3)
    weight, bias = layer.weight.detach().clone(), layer.bias.detach().clone()
    linear, embedding = exercises.one_step_moves(layer.weight, layer.bias)
    assert torch.equal(layer.weight, weight) and torch.equal(layer.bias, bias)  # the learner's layer is untouched
    assert linear.shape == embedding.shape == (6,) and bool((linear > 0).all())  # the shared bias moves every id
    assert embedding.nonzero().flatten().tolist() == [0, 2]  # ids 0 and 2, the ones looked up


def test_moved_judges_nothing_before_both_guesses(capsys):
    assert exercises.check_moved({0, 2}, None) is None
    assert capsys.readouterr().out.startswith("not answered yet")
