"""Notebook 0's checkers: the worked answer passes, and each listed wrong answer (a typed-in one among them)
fails with its hint."""

import torch
import torch.nn as nn
import torch.nn.functional as F

from tests.unit.exercises.checker_table import checker_tests
from utils.exercises import nb00 as exercises
from utils.exercises.checking import ExerciseError as E


def linear():
    torch.manual_seed(5)
    return nn.Linear(6, 3, bias=False)


def table(weight, **kwargs):
    return nn.Embedding.from_pretrained(weight, **kwargs)


def weight_grads(embedding, linear, ids, grad_out):
    embedding.weight.grad = linear.weight.grad = None
    (embedding(ids) * grad_out).sum().backward()
    (linear(F.one_hot(ids, linear.in_features).float()) * grad_out).sum().backward()
    return embedding.weight.grad, linear.weight.grad


def by_formula(embedding, linear, ids, grad_out):  # one_hot.T @ grad_out, and its transpose: right too
    one_hot = F.one_hot(ids, embedding.num_embeddings).float()
    return one_hot.T @ grad_out, grad_out.T @ one_hot


def accumulating(embedding, linear, ids, grad_out):  # forgets to reset .grad
    (embedding(ids) * grad_out).sum().backward()
    (linear(F.one_hot(ids, linear.in_features).float()) * grad_out).sum().backward()
    return embedding.weight.grad, linear.weight.grad


def related(g_embedding, g_linear):
    return torch.equal(g_embedding, g_linear.T)


def typed_grads():  # the same tensors whatever the function is given
    embedding = nn.Embedding(7, 3)
    layer = nn.Linear(7, 3, bias=False)
    layer.weight = nn.Parameter(embedding.weight.detach().T.clone())
    fixed = weight_grads(embedding, layer, torch.tensor([2, 0, 2, 5]), torch.ones(4, 3))
    return (lambda *args: fixed, related)


def stub(*args):
    raise NotImplementedError("Exercise 0.2")


WORKED = [
    ("check_embedding_from_linear", lambda: (lambda lin: (table(lin.weight.detach().T.clone(), freeze=False), lin))(
        linear())),
    ("check_embedding_from_linear", lambda: (lambda lin: (table(lin.weight.T), lin))(linear())),  # a view passes too
    ("check_weight_grads", lambda: (weight_grads, related)),
    ("check_weight_grads", lambda: (by_formula, related)),
    ("check_weight_grads", lambda: (weight_grads, lambda g_emb, g_lin: (g_emb == g_lin.T).all())),  # a 0-d bool
    ("check_weight_grads", lambda: (weight_grads, lambda g_emb, g_lin: torch.equal(g_emb.T, g_lin))),
]
WRONG = [
    ("check_embedding_from_linear", lambda: (lambda lin: (table(lin.weight.detach().clone()), lin))(linear()), E,
     r"shape \(3, 6\), the linear layer's own.*transpose"),
    ("check_embedding_from_linear", lambda: (nn.Embedding(6, 3), linear()), E,
     r"differs from linear\(one_hot\(ids\)\).*from_pretrained"),  # the right shape, its own numbers
    ("check_embedding_from_linear", lambda: (nn.Embedding(6, 4), linear()), E, r"shape \(6, 4\), expected \(6, 3\)"),
    ("check_embedding_from_linear", lambda: (linear(), linear()), E, "expected an nn.Embedding, got Linear"),
    ("check_embedding_from_linear", lambda: (lambda lin: (table(lin.weight.detach().T.round(decimals=4)), lin))(
        linear()), E, "differs"),  # typed in from the printed digits
    ("check_embedding_from_linear", lambda: (table(torch.zeros(6, 3)), table(torch.zeros(6, 3))), TypeError,
     "linear must be an nn.Linear, got Embedding"),
    ("check_weight_grads", lambda: (accumulating, related), E, r"plus the earlier calls'.*to None"),
    ("check_weight_grads", lambda: (lambda *args: weight_grads(*args)[::-1], related), E, "other order"),
    ("check_weight_grads", lambda: (lambda *args: (weight_grads(*args)[0],) * 2, related), E,
     r"linear gradient has shape \(7, 3\), expected \(3, 7\)"),  # the linear gradient in the embedding's layout
    ("check_weight_grads", typed_grads, E, "differs from the checker's backward pass"),
    ("check_weight_grads", lambda: (stub, related), NotImplementedError, "Exercise 0.2"),
    ("check_weight_grads", lambda: (lambda *args: None, related), E, "return two tensors"),
    ("check_weight_grads", lambda: (torch.zeros(7, 3), related), E, r"pass your function itself \(weight_grads"),
    ("check_weight_grads", lambda: (None, related), E, r"pass your function itself \(weight_grads"),
    ("check_weight_grads", lambda: (weight_grads, True), E, r"pass your function itself \(related, not related\("),
    ("check_weight_grads", lambda: (weight_grads, lambda g_emb, g_lin: True), E,
     "returned True for a pair whose numbers differ in one entry"),
    ("check_weight_grads", lambda: (weight_grads, lambda g_emb, g_lin: False), E,
     r"returned False for the two gradients of one backward pass.*\[V, d\]"),
    ("check_weight_grads", lambda: (weight_grads, lambda g_emb, g_lin: torch.equal(g_emb, g_lin)), E,
     "returned False for the two gradients"),
    ("check_weight_grads", lambda: (weight_grads, lambda g_emb, g_lin: g_emb.shape == g_lin.T.shape), E,
     "differ in one entry"),
    ("check_weight_grads", lambda: (weight_grads, lambda g_emb, g_lin: torch.equal(
        g_emb.flatten().sort().values, g_lin.flatten().sort().values)), E,
     "same numbers in the same places, not transposed"),
    ("check_weight_grads", lambda: (weight_grads, lambda g_emb, g_lin: g_emb == g_lin.T), E, "return one bool"),
    ("check_weight_grads", lambda: (weight_grads, lambda g_emb, g_lin: 1), E, "returned int; return one bool"),
]


test_the_worked_answer_passes, test_a_wrong_answer_fails_with_its_hint = checker_tests(exercises, WORKED, WRONG)
