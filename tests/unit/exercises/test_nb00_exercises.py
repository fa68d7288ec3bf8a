"""Notebook 0's checkers accept a right answer and reject wrong ones, and a typed-in one, with a hint."""

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from utils.exercises import nb00 as exercises
from utils.exercises.checking import ExerciseError


def _linear(seed=5):
    torch.manual_seed(seed)
    return nn.Linear(6, 3, bias=False)


def test_embedding_from_linear(capsys):
    linear = _linear()
    right = nn.Embedding.from_pretrained(linear.weight.detach().T.clone(), freeze=False)
    assert exercises.check_embedding_from_linear(right, linear)
    message = "correct: embedding_ex(ids) == linear_ex(one_hot(ids)) for every id, bit for bit\n"
    assert capsys.readouterr().out == message
    shared = nn.Embedding.from_pretrained(linear.weight.T)  # a view of the same numbers passes too
    assert exercises.check_embedding_from_linear(shared, linear)

    untransposed = nn.Embedding(3, 6)
    untransposed.weight = nn.Parameter(linear.weight.detach().clone())
    with pytest.raises(ExerciseError, match=r"shape \(3, 6\), the linear layer's own.*transpose"):
        exercises.check_embedding_from_linear(untransposed, linear)
    with pytest.raises(ExerciseError, match=r"differs from linear\(one_hot\(ids\)\).*from_pretrained"):
        exercises.check_embedding_from_linear(nn.Embedding(6, 3), linear)  # right shape, its own numbers
    with pytest.raises(ExerciseError, match=r"shape \(6, 4\), expected \(6, 3\)"):
        exercises.check_embedding_from_linear(nn.Embedding(6, 4), linear)
    with pytest.raises(ExerciseError, match="expected an nn.Embedding, got Linear"):
        exercises.check_embedding_from_linear(linear, linear)
    typed = nn.Embedding.from_pretrained(linear.weight.detach().T.clone().round(decimals=4))  # printed digits
    with pytest.raises(ExerciseError, match="differs"):
        exercises.check_embedding_from_linear(typed, linear)
    with pytest.raises(TypeError, match="linear must be an nn.Linear, got Embedding"):
        exercises.check_embedding_from_linear(right, right)


def weight_grads(embedding, linear, ids, grad_out):
    embedding.weight.grad = linear.weight.grad = None
    (embedding(ids) * grad_out).sum().backward()
    (linear(F.one_hot(ids, linear.in_features).float()) * grad_out).sum().backward()
    return embedding.weight.grad, linear.weight.grad


def related(g_embedding, g_linear):
    return torch.allclose(g_embedding, g_linear.T)


MESSAGE = ("correct: both gradients match the checker's own backward passes for 3 batches of ids, and related tells "
           "the checker's related pairs, one of them a rounding apart, from its unrelated ones\n")


def test_weight_grads(capsys):
    assert exercises.check_weight_grads(weight_grads, related)
    assert capsys.readouterr().out == MESSAGE

    def by_formula(embedding, linear, ids, grad_out):  # one_hot.T @ grad_out, and its transpose: right too
        one_hot = F.one_hot(ids, embedding.num_embeddings).float()
        return one_hot.T @ grad_out, grad_out.T @ one_hot

    assert exercises.check_weight_grads(by_formula, related)

    def accumulating(embedding, linear, ids, grad_out):  # forgets to reset .grad
        (embedding(ids) * grad_out).sum().backward()
        (linear(F.one_hot(ids, linear.in_features).float()) * grad_out).sum().backward()
        return embedding.weight.grad, linear.weight.grad

    with pytest.raises(ExerciseError, match=r"plus the earlier calls'.*to None"):
        exercises.check_weight_grads(accumulating, related)

    def swapped(embedding, linear, ids, grad_out):
        return weight_grads(embedding, linear, ids, grad_out)[::-1]

    with pytest.raises(ExerciseError, match="other order"):
        exercises.check_weight_grads(swapped, related)

    def same_twice(embedding, linear, ids, grad_out):  # the linear gradient given the embedding's layout
        grad = weight_grads(embedding, linear, ids, grad_out)[0]
        return grad, grad

    with pytest.raises(ExerciseError, match=r"linear gradient has shape \(7, 3\), expected \(3, 7\)"):
        exercises.check_weight_grads(same_twice, related)

    fixed = weight_grads(*_checker_layers(), torch.tensor([2, 0, 2, 5]), torch.ones(4, 3))

    def typed(embedding, linear, ids, grad_out):  # returns the same tensors whatever it is given
        return fixed

    with pytest.raises(ExerciseError, match="differs from the checker's backward pass"):
        exercises.check_weight_grads(typed, related)

    def stub(embedding, linear, ids, grad_out):
        raise NotImplementedError("Exercise 0.2")

    with pytest.raises(NotImplementedError):
        exercises.check_weight_grads(stub, related)
    with pytest.raises(ExerciseError, match="return two tensors"):
        exercises.check_weight_grads(lambda *args: None, related)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        exercises.check_weight_grads(fixed, related)


def _checker_layers():
    embedding = nn.Embedding(7, 3)
    linear = nn.Linear(7, 3, bias=False)
    with torch.no_grad():
        linear.weight.copy_(embedding.weight.T)
    return embedding, linear


@pytest.mark.parametrize(("wrong", "message"), [
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
])
def test_related_wrong(wrong, message):
    with pytest.raises(ExerciseError, match=message) as raised:
        exercises.check_weight_grads(weight_grads, wrong)
    assert "correct" not in str(raised.value)


def test_related_right_forms():
    def as_tensor(g_embedding, g_linear):  # a 0-d bool tensor is one bool too
        return torch.isclose(g_embedding, g_linear.T).all()

    assert exercises.check_weight_grads(weight_grads, as_tensor)
    assert exercises.check_weight_grads(weight_grads, lambda g_emb, g_lin: torch.allclose(g_emb.T, g_lin))


def test_related_bad_input():
    with pytest.raises(ExerciseError, match=r"pass your function itself \(related, not related\(...\)\)"):
        exercises.check_weight_grads(weight_grads, True)  # a typed-in answer, not a function
    with pytest.raises(ExerciseError, match=r"pass your function itself \(weight_grads"):
        exercises.check_weight_grads(None, related)
