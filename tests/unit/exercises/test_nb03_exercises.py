"""Notebook 3's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""


import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from utils.exercises import nb03 as exercises


def _embedding(seed=0, vocab=7, dim=3):
    torch.manual_seed(seed)
    return nn.Embedding(vocab, dim)


# --- Exercise 3.1 -----------------------------------------------------------------------------------------------

def vectors_from_linear(linear, ids):
    return linear.weight.T[ids]


def _typed(linear, ids):  # the first case's answer, whatever the layer
    return torch.zeros(4, 3)


@pytest.mark.parametrize(("function", "expected"), [
    (vectors_from_linear, "pass"),
    (lambda linear, ids: F.embedding(ids, linear.weight.T), "pass"),
    (lambda linear, ids: linear.weight[:, ids].movedim(0, -1), "pass"),
    (lambda linear, ids: linear(F.one_hot(ids, linear.in_features).float()), r"spent \d+ FLOPs.*index it"),
    (lambda linear, ids: F.one_hot(ids, linear.in_features).float() @ linear.weight.T, "spent"),
    (lambda linear, ids: linear.weight[ids], r"raised IndexError.*has 3 rows.*column i"),
    (lambda linear, ids: linear.weight[ids % linear.out_features], r"shape \(4, 7\): those are rows of linear.weight"),
    (lambda linear, ids: linear.weight.T[ids].reshape(-1, linear.out_features), r"ids' shape plus d"),
    (lambda linear, ids: linear.weight[:, ids], r"shape \(3, 4\): the right numbers, with d first.*move it last"),
    (lambda linear, ids: linear.weight[ids] if linear.in_features == linear.out_features else linear.weight.T[ids],
     r"differ from linear\(one_hot\(ids\)\).*column i of linear.weight, not row i"),  # rows, on the square layer
    (_typed, "differ from"),
    (lambda linear, ids: linear.weight.T[ids].tolist(), "returned list; return a torch.Tensor"),
    ("vectors_from_linear", "pass your function itself"),
])
def test_vectors_from_linear(judge, function, expected):
    judge(exercises.check_vectors_from_linear, (function,), expected)


# --- Exercise 3.2 -----------------------------------------------------------------------------------------------

def _head(embedding, how):
    """An output layer for ``embedding`` (7 x 3), made ``how``."""
    head = nn.Linear(3, 7, bias=False)
    if how == "tied":
        head.weight = embedding.weight
    elif how == "tied the other way":  # GPT-2's way round: the embedding takes the output layer's Parameter
        embedding.weight = head.weight
    elif how == "copied":
        with torch.no_grad():
            head.weight.copy_(embedding.weight)
    elif how == "a second Parameter":  # shares the memory, as a second Parameter
        head.weight = nn.Parameter(embedding.weight)
    elif how == "transposed":
        head.weight = nn.Parameter(embedding.weight.detach().T.clone())
    return head


@pytest.mark.parametrize(("how", "expected"), [
    ("tied", "pass"),
    ("tied the other way", "pass"),
    ("copied", "holds a copy of emb_ex's numbers"),
    ("a second Parameter", "as two Parameters.*Parameter itself"),
    ("its own numbers", "differs from h @ emb_ex.weight.T"),
    ("transposed", r"shape \(3, 7\).*\[V, d\].*no transpose"),
])
def test_tied_output_layer(judge, how, expected):
    embedding = _embedding()
    before = embedding.weight.detach().clone()
    judge(exercises.check_tied_output_layer, (_head(embedding, how), embedding), expected)
    if how == "tied":
        assert embedding.weight.grad is None and torch.equal(embedding.weight.detach(), before)  # the checker's copies


@pytest.mark.parametrize(("head", "embedding", "expected"), [
    (nn.Linear(7, 3, bias=False), _embedding(), r"nn.Linear\(7, 3\): an output layer"),  # the input layer's layout
    (nn.Linear(3, 7), _embedding(), "bias=False"),
    (_embedding(), _embedding(), "expected an nn.Linear, got Embedding"),
    (nn.Linear(3, 7, bias=False), _embedding().weight, (TypeError, "embedding must be an nn.Embedding, got Parameter")),
])
def test_tied_output_layer_wrong_layers(judge, head, embedding, expected):
    judge(exercises.check_tied_output_layer, (head, embedding), expected)


# --- Exercise 3.3 -----------------------------------------------------------------------------------------------

class Right(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None):
        super().__init__()
        self.padding_idx = padding_idx
        self.weight = nn.Parameter(torch.randn(num_embeddings, embedding_dim))
        if padding_idx is not None:
            with torch.no_grad():
                self.weight[padding_idx] = 0.0

    def forward(self, ids):
        return F.embedding(ids, self.weight, self.padding_idx)


class Masked(Right):  # another right answer: multiply the padding positions' rows by zero
    def forward(self, ids):
        keep = torch.ones_like(ids, dtype=self.weight.dtype) if self.padding_idx is None else \
            (ids != self.padding_idx).to(self.weight.dtype)
        return self.weight[ids] * keep[..., None]


class Indexed(Right):  # the padding row starts at zero, but gets a gradient
    def forward(self, ids):
        return self.weight[ids]


class Unzeroed(Right):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None):
        nn.Module.__init__(self)
        self.padding_idx = padding_idx
        self.weight = nn.Parameter(torch.randn(num_embeddings, embedding_dim))


class NoPadding(nn.Module):
    def __init__(self, num_embeddings, embedding_dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_embeddings, embedding_dim))

    def forward(self, ids):
        return self.weight[ids]


class PlainTensor(Right):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None):
        nn.Module.__init__(self)
        self.padding_idx = padding_idx
        self.weight = torch.randn(num_embeddings, embedding_dim, requires_grad=True)


class Uniform(Right):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None):
        super().__init__(num_embeddings, embedding_dim, padding_idx)
        with torch.no_grad():
            self.weight.uniform_(-1, 1)
            if padding_idx is not None:
                self.weight[padding_idx] = 0.0


class Flipped(Right):
    def forward(self, ids):
        return F.embedding(ids, self.weight, self.padding_idx).flip(-1)


class Wrapped(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None):
        super().__init__()
        self.inner = nn.Embedding(num_embeddings, embedding_dim, padding_idx=padding_idx)
        self.weight = self.inner.weight

    def forward(self, ids):
        return self.inner(ids)


def test_parameter_embedding_leaves_the_random_state_alone(capsys):
    state = torch.random.get_rng_state()
    assert exercises.check_parameter_embedding(Right)
    assert torch.equal(torch.random.get_rng_state(), state)  # the checker's draws leave no trace


@pytest.mark.parametrize(("cls", "expected"), [
    (Right, "pass"),
    (Masked, "pass"),
    (Indexed, "a gradient reached the padding row.*F.embedding takes a padding_idx"),
    (Unzeroed, r"weight\[2\] is not zero"),
    (NoPadding, "raised TypeError.*padding_idx=None"),
    (PlainTensor, "no parameter named 'weight'.*nn.Parameter"),
    (Uniform, r"std 0\.\d+: draw it from N\(0, 1\)"),
    (Flipped, r"differs from weight\[ids\]"),
    (Wrapped, "holds an nn.Embedding or nn.Linear"),
    (Right(6, 4), r"pass the class itself \(MyEmbedding, not MyEmbedding\(...\)\)"),
    (lambda v, d: None, "expected your nn.Module subclass, got function"),
])
def test_parameter_embedding(judge, cls, expected):
    judge(exercises.check_parameter_embedding, (cls,), expected)
