"""Notebook 3's checkers: the worked answer passes, and each listed wrong answer (a typed-in one among them)
fails with its hint."""

import torch
import torch.nn as nn
import torch.nn.functional as F

from tests.unit.exercises.checker_table import checker_tests
from utils.exercises import nb03 as exercises
from utils.exercises.checking import ExerciseError as E


def embedding():
    torch.manual_seed(0)
    return nn.Embedding(7, 3)


def head(weight=None, bias=False, sizes=(3, 7)):
    """An output layer ``nn.Linear(*sizes)``, given ``weight`` (a Parameter, or numbers to copy in) if any."""
    layer = nn.Linear(*sizes, bias=bias)
    if isinstance(weight, nn.Parameter):
        layer.weight = weight
    elif weight is not None:
        layer.weight = nn.Parameter(weight.detach().clone())
    return layer


def tied_the_other_way():  # GPT-2's way round: the embedding takes the output layer's Parameter
    table, output = embedding(), head()
    table.weight = output.weight
    return output, table


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


WORKED = [
    ("check_vectors_from_linear", lambda: (lambda linear, ids: linear.weight.T[ids],)),
    ("check_vectors_from_linear", lambda: (lambda linear, ids: F.embedding(ids, linear.weight.T),)),
    ("check_vectors_from_linear", lambda: (lambda linear, ids: linear.weight[:, ids].movedim(0, -1),)),
    ("check_tied_output_layer", lambda: (lambda table: (head(table.weight), table))(embedding())),
    ("check_tied_output_layer", tied_the_other_way),
    ("check_parameter_embedding", lambda: (Right,)),
    ("check_parameter_embedding", lambda: (Masked,)),
]
WRONG = [
    ("check_vectors_from_linear", lambda: (lambda linear, ids: linear(F.one_hot(ids, linear.in_features).float()),),
     E, r"spent \d+ FLOPs.*index it"),
    ("check_vectors_from_linear", lambda: (lambda linear, ids: F.one_hot(ids, linear.in_features).float()
                                           @ linear.weight.T,), E, "spent"),
    ("check_vectors_from_linear", lambda: (lambda linear, ids: linear.weight[ids],), E,
     r"raised IndexError.*has 3 rows.*column i"),
    ("check_vectors_from_linear", lambda: (lambda linear, ids: linear.weight[ids % linear.out_features],), E,
     r"shape \(4, 7\): those are rows of linear.weight"),
    ("check_vectors_from_linear", lambda: (lambda linear, ids: linear.weight.T[ids].reshape(-1, linear.out_features),),
     E, "ids' shape plus d"),
    ("check_vectors_from_linear", lambda: (lambda linear, ids: linear.weight[ids] if linear.in_features
                                           == linear.out_features else linear.weight.T[ids],), E,
     r"differ from linear\(one_hot\(ids\)\).*column i of linear.weight, not row i"),  # rows, on the square layer
    ("check_vectors_from_linear", lambda: (lambda linear, ids: torch.zeros(4, 3),), E, "differ from"),  # typed in
    ("check_vectors_from_linear", lambda: (lambda linear, ids: linear.weight.T[ids].tolist(),), E,
     "returned list; return a tensor"),
    ("check_vectors_from_linear", lambda: ("vectors_from_linear",), E, "pass your function itself"),
    ("check_tied_output_layer", lambda: (lambda table: (head(table.weight.detach()), table))(embedding()), E,
     "holds a copy of emb_ex's numbers"),
    ("check_tied_output_layer", lambda: (lambda table: (head(nn.Parameter(table.weight)), table))(embedding()), E,
     "as two Parameters.*Parameter itself"),  # shares the memory, as a second Parameter
    ("check_tied_output_layer", lambda: (head(sizes=(7, 3)), embedding()), E,
     r"nn.Linear\(7, 3\): an output layer"),  # the input layer's layout
    ("check_tied_output_layer", lambda: (head(), embedding()), E, "differs from h @ emb_ex.weight.T"),  # own numbers
    ("check_tied_output_layer", lambda: (lambda table: (head(table.weight.T), table))(embedding()), E,
     r"shape \(3, 7\).*\[V, d\].*no transpose"),
    ("check_tied_output_layer", lambda: (head(bias=True), embedding()), E, "bias=False"),
    ("check_tied_output_layer", lambda: (embedding(), embedding()), E, "expected an nn.Linear, got Embedding"),
    ("check_tied_output_layer", lambda: (head(), embedding().weight), TypeError,
     "embedding must be an nn.Embedding, got Parameter"),
    ("check_parameter_embedding", lambda: (Indexed,), E, "a gradient reached the padding row.*F.embedding takes a "
     "padding_idx"),
    ("check_parameter_embedding", lambda: (Unzeroed,), E, r"weight\[2\] is not zero"),
    ("check_parameter_embedding", lambda: (NoPadding,), E, "raised TypeError.*padding_idx=None"),
    ("check_parameter_embedding", lambda: (PlainTensor,), E, "no parameter named 'weight'.*nn.Parameter"),
    ("check_parameter_embedding", lambda: (Uniform,), E, r"std 0\.\d+: draw it from N\(0, 1\)"),
    ("check_parameter_embedding", lambda: (Flipped,), E, r"differs from weight\[ids\]"),
    ("check_parameter_embedding", lambda: (Wrapped,), E, "holds an nn.Embedding or nn.Linear"),
    ("check_parameter_embedding", lambda: (Right(6, 4),), E,
     r"pass the class itself \(MyEmbedding, not MyEmbedding\(...\)\)"),
    ("check_parameter_embedding", lambda: (lambda v, d: None,), E, "expected your nn.Module subclass, got function"),
]


test_the_worked_answer_passes, test_a_wrong_answer_fails_with_its_hint = checker_tests(exercises, WORKED, WRONG)


def test_the_checkers_leave_the_learners_layers_and_random_state_alone():
    table = embedding()
    output = head(table.weight)
    before, state = table.weight.detach().clone(), torch.random.get_rng_state()
    exercises.check_tied_output_layer(output, table)
    assert table.weight.grad is None and torch.equal(table.weight.detach(), before)  # the checker's copies
    exercises.check_parameter_embedding(Right)
    assert torch.equal(torch.random.get_rng_state(), state)  # the checker's draws leave no trace
