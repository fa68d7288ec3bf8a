"""Notebook 3's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""


import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from utils.exercises import nb03 as exercises

# --- Exercise 3.1 -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("guess", "expected"), [
    ({"a", "c", "d"}, "pass"),
    (frozenset("acd"), "pass"),
    ({"a", "b", "c", "d"}, r"right about 1 of the four expressions. Hint for b: reshape reads"),
    ({"a", "d"}, r"Hint for c: read row after row"),
    ({"c", "d"}, r"Hint for a: .*row i"),
    ({"a", "c"}, r"Hint for d: nn.Linear computes x @ weight.T"),
    ({"a", "C"}, r"token_vector holds \['C'\]: use the letters"),
    (["a", "c", "d"], "token_vector must look like"),
])
def test_token_vector(judge, guess, expected):
    judge(exercises.check_token_vector, (guess,), expected, never=("{'a', 'c', 'd'}",))


def test_token_vector_expressions_on_a_layer_of_any_size():
    """Not a property of the checker's one layer: on other shapes too, a, c and d return column i, and b does not."""
    for vocab_size, dim in [(1000, 70), (9, 4), (6, 6)]:
        linear = nn.Linear(vocab_size, dim, bias=False)
        exact = {letter for letter, expression in exercises.TOKEN_VECTOR_EXPRESSIONS.items()
                 if all(torch.equal(expression(linear, i), linear.weight[:, i]) for i in range(vocab_size))}
        assert exact == {"a", "c", "d"}, (vocab_size, dim)


# --- Exercise 3.2 -----------------------------------------------------------------------------------------------

def _table(seed=0, vocab=7, dim=3):
    torch.manual_seed(seed)
    return nn.Linear(vocab, dim, bias=False)  # a token table used on one-hot rows: weight [3, 7]


class TiedHead(nn.Module):  # the worked answer
    def __init__(self, table):
        super().__init__()
        self.table = table

    def forward(self, h):
        return h @ self.table.weight


class ByLinear(TiedHead):  # another right answer: F.linear with the transposed view
    def forward(self, h):
        return F.linear(h, self.table.weight.T)


class WithOwnBias(TiedHead):  # the table is shared, but a bias of its own comes along
    def __init__(self, table):
        super().__init__(table)
        self.bias = nn.Parameter(torch.zeros(table.in_features))

    def forward(self, h):
        return h @ self.table.weight + self.bias


def _head(table, how):
    """An output layer for ``table`` (an nn.Linear(7, 3) used on one-hot rows), made ``how``."""
    if how == "tied":
        return TiedHead(table)
    if how == "tied by F.linear":
        return ByLinear(table)
    if how == "own bias":
        return WithOwnBias(table)
    head = nn.Linear(3, 7, bias=False)
    if how == "a Parameter of the view":  # shares the memory, as a second Parameter
        head.weight = nn.Parameter(table.weight.T)
    elif how == "copied":
        head.weight = nn.Parameter(table.weight.detach().T.clone())
    elif how == "not transposed":  # [3, 7] where nn.Linear(3, 7) needs [7, 3]
        head.weight = table.weight
    return head


@pytest.mark.parametrize(("how", "expected"), [
    ("tied", "pass"),
    ("tied by F.linear", "pass"),
    ("a Parameter of the view", "as two Parameters.*new leaf, even of a view"),
    ("copied", "holds a copy of lin_ex's numbers"),
    ("not transposed", r"raised RuntimeError.*\[d, V\] = \[3, 7\].*needs \[V, d\]"),
    ("its own numbers", "differs from h @ lin_ex.weight"),
    ("own bias", "parameters of its own \\(bias\\)"),
])
def test_tied_output_layer(judge, how, expected):
    table = _table()
    before = table.weight.detach().clone()
    judge(exercises.check_tied_output_layer, (_head(table, how), table), expected)
    if how == "tied":
        assert table.weight.grad is None and torch.equal(table.weight.detach(), before)  # the checker's copies


@pytest.mark.parametrize(("head", "table", "expected"), [
    (nn.Linear(3, 5, bias=False), _table(), r"head_ex\(h\) has shape \(3, 5\)"),
    (lambda h: h, _table(), "must be an nn.Module"),
    (TiedHead(_table()), nn.Embedding(7, 3), (TypeError, "table must be an nn.Linear, got Embedding")),
])
def test_tied_output_layer_wrong_layers(judge, head, table, expected):
    judge(exercises.check_tied_output_layer, (head, table), expected)


# --- Exercise 3.3 -----------------------------------------------------------------------------------------------

class Right(nn.Module):  # the worked answer
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None):
        super().__init__()
        self.padding_idx = padding_idx
        self.weight = nn.Parameter(torch.randn(num_embeddings, embedding_dim))
        if padding_idx is not None:
            with torch.no_grad():
                self.weight[padding_idx] = 0.0

    def forward(self, ids):
        return self.weight[ids]


class Masked(Right):  # notebook 4's exercise 4.2 already: the spec asks for plain indexing, no gradient masking
    def forward(self, ids):
        keep = torch.ones_like(ids, dtype=self.weight.dtype) if self.padding_idx is None else \
            (ids != self.padding_idx).to(self.weight.dtype)
        return self.weight[ids] * keep[..., None]


class ByFunction(Right):  # the lookup left to F.embedding
    def forward(self, ids):
        return F.embedding(ids, self.weight, self.padding_idx)


class Detached(Right):  # a copy of the rows: nothing flows back to the weight
    def forward(self, ids):
        return self.weight.detach()[ids]


class Doubled(Right):  # the gradient reaches the rows, twice over
    def forward(self, ids):
        return self.weight[ids] + (self.weight[ids] - self.weight[ids].detach())


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
        return super().forward(ids).flip(-1)


class Wrapped(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None):
        super().__init__()
        self.inner = nn.Embedding(num_embeddings, embedding_dim, padding_idx=padding_idx)
        self.weight = self.inner.weight

    def forward(self, ids):
        return self.inner(ids)


def test_parameter_embedding_leaves_the_random_state_alone(capsys):
    state = torch.random.get_rng_state()
    exercises.check_parameter_embedding(Right)
    assert torch.equal(torch.random.get_rng_state(), state)  # the checker's draws leave no trace


@pytest.mark.parametrize(("cls", "expected"), [
    (Right, "pass"),
    (Masked, "not one row of ones per lookup.*no masking of any gradient"),
    (ByFunction, "calls F.embedding.*index the weight Parameter with the ids yourself"),
    (Detached, "carries no gradient back to the weight.*not a copy"),
    (Doubled, "not one row of ones per lookup"),
    (Unzeroed, r"weight\[2\] is not zero.*torch.no_grad\(\)"),
    (NoPadding, "raised TypeError.*padding_idx=None"),
    (PlainTensor, "no parameter named 'weight'.*nn.Parameter"),
    (Uniform, r"std 0\.\d+: draw it from N\(0, 1\)"),
    (Flipped, r"differs from weight\[ids\]"),
    (Wrapped, "holds an nn.Embedding or nn.Linear"),
    (Right(6, 4), r"pass the class itself \(MyEmbedding, not MyEmbedding\(...\)\)"),
    (lambda v, d: None, "expected your nn.Module subclass, got function"),
])
def test_parameter_embedding(judge, cls, expected):
    judge(exercises.check_parameter_embedding, (cls, -1.5), expected)


@pytest.mark.parametrize(("cls", "guess", "expected"), [
    (Right, -1.5, "pass"),
    (Right, 0, r"pad_row_after_step = 0.0 is not .* Hint: does weight\[ids\], plain indexing, know"),
    (Right, -1, "how many times do the ids look row 2 up"),
    (Right, -2, "how many times do the ids look row 2 up"),  # Exercise 2.2's answer, recalled
    (Right, -3, "SGD subtracts lr"),  # the gradient, without the learning rate
    (Right, 1.5, "SGD subtracts lr"),
    (Right, -4.5, "what gradient does the sum send it"),
    (Right, True, (TypeError, "pad_row_after_step must be a number")),
    (Masked, 0, r"not one row of ones per lookup.*plain indexing, self.weight\[ids\]"),  # 0 is never right
])
def test_parameter_embedding_pad_row_after_step(judge, cls, guess, expected):
    judge(exercises.check_parameter_embedding, (cls, guess), expected)


def test_parameter_embedding_without_a_prediction_judges_nothing(capsys):
    assert exercises.check_parameter_embedding(Right) is None
    assert capsys.readouterr().out == "not answered yet: fill in pad_row_after_step above, then run this cell again\n"


# --- Section 1's and section 5's predictions ----------------------------------------------------------------------

@pytest.mark.parametrize(("guess", "expected"), [
    ((1, 2), "pass"),
    ([1, 2], "pass"),
    ((2, 1), "row 2 of the table"),
    ((0, 0), "output 1 is which entry"),
    ((1, 4), "two ids from 0 to 3"),
    ((1,), "two ids from 0 to 3"),
    ("columns", 'must be "error", "other" or'),
    ("error", "nothing raises"),
    ("other", "picks one of its rows exactly"),
    ({1, 2}, "must look like"),
])
def test_square_guess(judge, guess, expected):
    judge(exercises.check_square_guess, (guess,), expected, never=("(1, 2)", "column i"))


@pytest.mark.parametrize(("guess", "expected"), [
    ({1, 2, 3}, "pass"),
    ([3, 2, 1], "pass"),
    ({1}, "does nn.Parameter"),
    ({1, 2}, r"does \.detach\(\)"),
    ({1, 2, 3, 4}, "which operation copies"),
    ({2, 3}, "a transpose is a view"),
    ({0, 1}, "numbered 1 to 4"),
    ("1, 2", "must look like"),
])
def test_shares_guess(judge, guess, expected):
    judge(exercises.check_detach_guesses, (((True, True), (True, True)), guess), expected, never=("{1, 2, 3}",))


@pytest.mark.parametrize("guess, expected", [
    (((True, True), (True, True)), "pass"),
    ([[True, True], [True, True]], "pass"),
    (((True, True), (False, True)), "look at whether t was detached"),
    (((False, True), (False, True)), "no recorded operation"),
    (((True, False), (True, False)), "does a trainable weight"),
    (False, "must look like"),
    (((False, False),), r"two \(is_leaf, requires_grad\) pairs"),
    (((1, 1), (1, 1)), r"two \(is_leaf, requires_grad\) pairs"),
])
def test_detach_guess(judge, guess, expected):
    judge(exercises.check_detach_guesses, (guess, {1, 2, 3}), expected, never=("(True, True)",))


@pytest.mark.parametrize("checker", [exercises.check_square_guess, exercises.check_token_vector])
def test_predictions_judge_nothing_yet(capsys, checker):
    assert checker(None) is None
    assert capsys.readouterr().out.startswith("not answered yet")


@pytest.mark.parametrize("guesses", [(None, None), (((True, True), (True, True)), None), (None, {1, 2, 3})])
def test_detach_guesses_judge_nothing_yet(capsys, guesses):
    assert exercises.check_detach_guesses(*guesses) is None
    assert capsys.readouterr().out.startswith("not answered yet")
