"""Notebook 0's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from utils.exercises import nb00 as exercises

torch.manual_seed(5)
LINEAR = nn.Linear(6, 3, bias=False)
UNTRANSPOSED = nn.Embedding(3, 6)
UNTRANSPOSED.weight = nn.Parameter(LINEAR.weight.detach().clone())
RIGHT = nn.Embedding.from_pretrained(LINEAR.weight.detach().T.clone(), freeze=False)


@pytest.mark.parametrize(("embedding", "linear", "expected"), [
    (RIGHT, LINEAR, "pass"),
    (nn.Embedding.from_pretrained(LINEAR.weight.T), LINEAR, "pass"),  # a view of the same numbers
    (UNTRANSPOSED, LINEAR, r"shape \(3, 6\), the linear layer's own.*transpose"),
    (nn.Embedding(6, 3), LINEAR, r"differs from linear\(one_hot\(ids\)\).*from_pretrained"),  # its own numbers
    (nn.Embedding(6, 4), LINEAR, r"shape \(6, 4\), expected \(6, 3\)"),
    (LINEAR, LINEAR, "expected an nn.Embedding, got Linear"),
    (nn.Embedding.from_pretrained(LINEAR.weight.detach().T.clone().round(decimals=4)), LINEAR, "differs"),  # typed
    (RIGHT, RIGHT, (TypeError, "linear must be an nn.Linear, got Embedding")),
])
def test_embedding_from_linear(judge, embedding, linear, expected):
    judge(exercises.check_embedding_from_linear, (embedding, linear), expected)


def weight_grads(embedding, linear, ids, grad_out):
    """Exercise 0.2's worked answer, first part."""
    embedding.weight.grad = linear.weight.grad = None
    (embedding(ids) * grad_out).sum().backward()
    (linear(F.one_hot(ids, linear.in_features).float()) * grad_out).sum().backward()
    return embedding.weight.grad, linear.weight.grad


def related(g_embedding, g_linear):
    """Exercise 0.2's worked answer, second part."""
    return torch.allclose(g_embedding, g_linear.T)


def by_formula(embedding, linear, ids, grad_out):  # one_hot.T @ grad_out, and its transpose: right too
    one_hot = F.one_hot(ids, embedding.num_embeddings).float()
    return one_hot.T @ grad_out, grad_out.T @ one_hot


def accumulating(embedding, linear, ids, grad_out):  # forgets to reset .grad
    (embedding(ids) * grad_out).sum().backward()
    (linear(F.one_hot(ids, linear.in_features).float()) * grad_out).sum().backward()
    return embedding.weight.grad, linear.weight.grad


def stub(embedding, linear, ids, grad_out):
    raise NotImplementedError("Exercise 0.2")


def _checker_layers():
    embedding = nn.Embedding(7, 3)
    linear = nn.Linear(7, 3, bias=False)
    with torch.no_grad():
        linear.weight.copy_(embedding.weight.T)
    return embedding, linear


FIXED = weight_grads(*_checker_layers(), torch.tensor([2, 0, 2, 5]), torch.ones(4, 3))  # typed in: one batch's


@pytest.mark.parametrize(("function", "expected"), [
    (weight_grads, "pass"),
    (by_formula, "pass"),
    (accumulating, r"plus the earlier calls'.*to None"),
    (lambda *args: weight_grads(*args)[::-1], "other order"),
    (lambda *args: (weight_grads(*args)[0],) * 2, r"linear gradient has shape \(7, 3\), expected \(3, 7\)"),
    (lambda *args: FIXED, "differs from the checker's backward pass"),
    (stub, (NotImplementedError, "Exercise 0.2")),
    (lambda *args: None, "return two tensors"),
    (FIXED, "pass your function itself"),
    (None, r"pass your function itself \(weight_grads"),
])
def test_weight_grads(judge, function, expected):
    judge(exercises.check_weight_grads, (function, related), expected)


@pytest.mark.parametrize(("function", "expected"), [
    (related, "pass"),
    (lambda g_embedding, g_linear: torch.isclose(g_embedding, g_linear.T).all(), "pass"),  # a 0-d bool tensor
    (lambda g_embedding, g_linear: torch.allclose(g_embedding.T, g_linear), "pass"),
    (lambda g_embedding, g_linear: True, "returned True for a pair whose numbers differ in one entry"),
    (lambda g_embedding, g_linear: False, r"returned False for the two gradients of one backward pass.*\[V, d\]"),
    (lambda g_embedding, g_linear: torch.equal(g_embedding, g_linear), "returned False for the two gradients"),
    (lambda g_embedding, g_linear: g_embedding.shape == g_linear.T.shape, "differ in one entry"),
    (lambda g_embedding, g_linear: torch.equal(g_embedding.flatten().sort().values, g_linear.flatten().sort().values),
     "same numbers in the same places, not transposed"),
    (lambda g_embedding, g_linear: g_embedding == g_linear.T, "return one bool"),
    (lambda g_embedding, g_linear: 1, "returned int; return one bool"),
    (lambda g_embedding, g_linear: torch.equal(g_embedding, g_linear.T),  # exact: ids repeat three times
     r"returned False for a related pair that differs in one entry by float rounding.*more than twice"),
    (lambda g_embedding, g_linear: torch.equal(g_embedding.T, g_linear), "by float rounding"),
    (True, r"pass your function itself \(related, not related\(...\)\)"),  # a typed-in answer, not a function
])
def test_related(judge, function, expected):
    judge(exercises.check_weight_grads, (weight_grads, function), expected, never=("correct",))
