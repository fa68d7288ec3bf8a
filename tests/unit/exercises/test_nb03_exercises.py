"""Notebook 3's checkers accept a right answer and reject wrong ones, and a typed-in one, with a hint."""


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


def test_vectors_from_linear(capsys):
    assert exercises.check_vectors_from_linear(vectors_from_linear)
    assert capsys.readouterr().out == ("correct: vectors_from_linear returned linear(one_hot(ids)) for the checker's "
                                       "layers and ids of 2 shapes, bit for bit, and spent no FLOPs\n")
    assert exercises.check_vectors_from_linear(lambda linear, ids: F.embedding(ids, linear.weight.T))
    assert exercises.check_vectors_from_linear(lambda linear, ids: linear.weight[:, ids].movedim(0, -1))


def _typed(linear, ids):  # the first case's answer, whatever the layer
    return torch.zeros(4, 3)


@pytest.mark.parametrize(("function", "message"), [
    (lambda linear, ids: linear(F.one_hot(ids, linear.in_features).float()), r"spent \d+ FLOPs.*index it"),
    (lambda linear, ids: F.one_hot(ids, linear.in_features).float() @ linear.weight.T, "spent"),
    (lambda linear, ids: linear.weight[ids], r"raised IndexError.*has 3 rows.*column i"),
    (lambda linear, ids: linear.weight[ids % linear.out_features], r"shape \(4, 7\): those are rows of linear.weight"),
    (lambda linear, ids: linear.weight.T[ids].reshape(-1, linear.out_features), r"ids' shape plus d"),
    (lambda linear, ids: linear.weight[:, ids], r"shape \(3, 4\): the right numbers, with d first.*move it last"),
    (lambda linear, ids: linear.weight[ids] if linear.in_features == linear.out_features else linear.weight.T[ids],
     r"differ from linear\(one_hot\(ids\)\).*column i of linear.weight, not row i"),  # rows, on the square layer
    (_typed, "differ from"),
    (lambda linear, ids: linear.weight.T[ids].tolist(), "returned list; return a tensor"),
    ("vectors_from_linear", "pass your function itself"),
])
def test_vectors_from_linear_wrong(function, message):
    with pytest.raises(exercises.ExerciseError, match=message):
        exercises.check_vectors_from_linear(function)


# --- Exercise 3.2 -----------------------------------------------------------------------------------------------

def test_tied_output_layer(capsys):
    embedding = _embedding()
    before = embedding.weight.detach().clone()
    tied = nn.Linear(3, 7, bias=False)
    tied.weight = embedding.weight
    assert exercises.check_tied_output_layer(tied, embedding)
    assert capsys.readouterr().out == ("correct: head_ex gives emb_ex's logits, and the gradients of both layers' "
                                       "uses add up in one table\n")
    assert embedding.weight.grad is None and torch.equal(embedding.weight.detach(), before)  # the checker's copies

    other_way = nn.Linear(3, 7, bias=False)  # GPT-2's way round: the embedding takes the output layer's Parameter
    embedding.weight = other_way.weight
    assert exercises.check_tied_output_layer(other_way, embedding)


def test_tied_output_layer_wrong():
    embedding = _embedding()
    copied = nn.Linear(3, 7, bias=False)
    with torch.no_grad():
        copied.weight.copy_(embedding.weight)
    with pytest.raises(exercises.ExerciseError, match="holds a copy of emb_ex's numbers"):
        exercises.check_tied_output_layer(copied, embedding)
    second = nn.Linear(3, 7, bias=False)
    second.weight = nn.Parameter(embedding.weight)  # shares the memory, as a second Parameter
    with pytest.raises(exercises.ExerciseError, match="as two Parameters.*Parameter itself"):
        exercises.check_tied_output_layer(second, embedding)
    with pytest.raises(exercises.ExerciseError, match=r"nn.Linear\(7, 3\): an output layer"):
        exercises.check_tied_output_layer(nn.Linear(7, 3, bias=False), embedding)  # the input layer's layout
    with pytest.raises(exercises.ExerciseError, match="differs from h @ emb_ex.weight.T"):
        exercises.check_tied_output_layer(nn.Linear(3, 7, bias=False), embedding)  # its own numbers
    transposed = nn.Linear(3, 7, bias=False)
    transposed.weight = nn.Parameter(embedding.weight.detach().T.clone())
    with pytest.raises(exercises.ExerciseError, match=r"shape \(3, 7\).*\[V, d\].*no transpose"):
        exercises.check_tied_output_layer(transposed, embedding)
    with pytest.raises(exercises.ExerciseError, match="bias=False"):
        exercises.check_tied_output_layer(nn.Linear(3, 7), embedding)
    with pytest.raises(exercises.ExerciseError, match="expected an nn.Linear, got Embedding"):
        exercises.check_tied_output_layer(embedding, embedding)
    with pytest.raises(TypeError, match="embedding must be an nn.Embedding, got Parameter"):
        exercises.check_tied_output_layer(copied, embedding.weight)


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


def test_parameter_embedding(capsys):
    state = torch.random.get_rng_state()
    assert exercises.check_parameter_embedding(Right)
    assert capsys.readouterr().out == (
        "correct: MyEmbedding registers a trainable weight drawn from N(0, 1), returns weight[ids] for ids of shape "
        "(2, 3), and its gradient reaches every row looked up except the padding row, which starts at zero\n")
    assert torch.equal(torch.random.get_rng_state(), state)  # the checker's draws leave no trace
    assert exercises.check_parameter_embedding(Masked)


@pytest.mark.parametrize(("cls", "message"), [
    (Indexed, "a gradient reached the padding row.*F.embedding takes a padding_idx"),
    (Unzeroed, r"weight\[2\] is not zero"),
    (NoPadding, "raised TypeError.*padding_idx=None"),
    (PlainTensor, "no parameter named 'weight'.*nn.Parameter"),
    (Uniform, r"std 0\.\d+: draw it from N\(0, 1\)"),
    (Flipped, r"differs from weight\[ids\]"),
    (Wrapped, "holds an nn.Embedding or nn.Linear"),
])
def test_parameter_embedding_wrong(cls, message):
    with pytest.raises(exercises.ExerciseError, match=message):
        exercises.check_parameter_embedding(cls)


def test_parameter_embedding_bad_input():
    with pytest.raises(exercises.ExerciseError, match=r"pass the class itself \(MyEmbedding, not MyEmbedding\(...\)\)"):
        exercises.check_parameter_embedding(Right(6, 4))
    with pytest.raises(exercises.ExerciseError, match="expected your nn.Module subclass, got function"):
        exercises.check_parameter_embedding(lambda v, d: None)
