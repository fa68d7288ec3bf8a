"""Notebook 4's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import re

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from utils.exercises import nb04 as exercises

IDS = torch.tensor(exercises.GRAD_EXERCISE_IDS)
GRAD_OUT = torch.randn(len(IDS), 3, generator=torch.Generator().manual_seed(0))
SPLIT = exercises.GRAD_EXERCISE_SPLIT
UNSCALED = torch.zeros(exercises.GRAD_EXERCISE_VOCAB, 3).index_add_(0, IDS, GRAD_OUT)
COUNTS = torch.bincount(IDS, minlength=exercises.GRAD_EXERCISE_VOCAB).clamp(min=1)[:, None]


def _by_hand(ids, grad_out):  # one call's gradient: section 1's rule, each row divided by its count in the call
    summed = torch.zeros(exercises.GRAD_EXERCISE_VOCAB, 3).index_add_(0, ids, grad_out)
    return summed / torch.bincount(ids, minlength=exercises.GRAD_EXERCISE_VOCAB).clamp(min=1)[:, None]


FIRST, SECOND = _by_hand(IDS[:SPLIT], GRAD_OUT[:SPLIT]), _by_hand(IDS[SPLIT:], GRAD_OUT[SPLIT:])


def _autograd():  # two calls, no zero_grad() between
    embedding = torch.nn.Embedding(exercises.GRAD_EXERCISE_VOCAB, 3, scale_grad_by_freq=True)
    embedding(IDS[:SPLIT]).backward(GRAD_OUT[:SPLIT])
    embedding(IDS[SPLIT:]).backward(GRAD_OUT[SPLIT:])
    return embedding.weight.grad


def test_embedding_grad_counts_per_call():  # row 2: (g0 + g2) / 2 + g3, not (g0 + g2 + g3) / 3
    assert torch.allclose(_autograd()[2], (GRAD_OUT[0] + GRAD_OUT[2]) / 2 + GRAD_OUT[3])


@pytest.mark.parametrize(("grad", "expected"), [
    (FIRST + SECOND, "pass"),
    (_autograd(), "pass"),
    (UNSCALED / COUNTS, "one call on all five ids"),  # the counts of the whole batch
    (torch.zeros(exercises.GRAD_EXERCISE_VOCAB, 3).index_put_((IDS,), GRAD_OUT), "index_add_"),  # rows overwritten
    (GRAD_OUT, r"shape \(5, 3\), expected \(7, 3\)"),
    (UNSCALED, "without scale_grad_by_freq.*divided by k"),  # section 1's rule: the counts are left out
    (SECOND, "one call's gradient alone"),  # zero_grad() between the calls
    ((FIRST + SECOND).index_fill(0, torch.tensor([6]), 1.0), r"rows \[1, 3, 4, 6\] are never looked up"),
    ((FIRST + SECOND).tolist(), "must be a torch.Tensor"),
    (2 * UNSCALED, "differs from autograd's"),
])
def test_embedding_grad(judge, grad, expected):
    judge(exercises.check_embedding_grad, (grad, GRAD_OUT), expected)


# --- Exercise 4.2 -----------------------------------------------------------------------------------------------

class Indexed(nn.Module):  # exercise 3.3's worked answer: the padding row starts at zero, but gets a gradient
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None):
        super().__init__()
        self.padding_idx = padding_idx
        self.weight = nn.Parameter(torch.randn(num_embeddings, embedding_dim))
        if padding_idx is not None:
            with torch.no_grad():
                self.weight[padding_idx] = 0.0

    def forward(self, ids):
        return self.weight[ids]


class Selected(Indexed):  # the worked answer: padding positions take a detached copy of their rows
    def forward(self, ids):
        rows = self.weight[ids]
        if self.padding_idx is None:
            return rows
        return torch.where((ids == self.padding_idx).unsqueeze(-1), rows.detach(), rows)


# the worked answer of an earlier round: multiply the padding positions' rows by zero. Right only while the padding
# row is zero, and 0 · inf = NaN where grad_out holds inf at a padding position
class Masked(Indexed):
    def forward(self, ids):
        rows = self.weight[ids]
        if self.padding_idx is None:
            return rows
        return rows * (ids != self.padding_idx).unsqueeze(-1).to(rows.dtype)


class MaskedKeepingValue(Indexed):  # the right output, but the padding positions' gradient is still times 0
    def forward(self, ids):
        keep = (ids != self.padding_idx).unsqueeze(-1).float() if self.padding_idx is not None else 1.0
        return self.weight[ids] * keep + self.weight.detach()[ids] * (1 - keep)


class MaskedFill(Indexed):  # the padding positions' output set to 0: no NaN, but wrong once the row is not zero
    def forward(self, ids):
        rows = self.weight[ids]
        return rows if self.padding_idx is None else rows.masked_fill((ids == self.padding_idx).unsqueeze(-1), 0.0)


class Hooked(Indexed):  # another right answer: zero the padding row of the gradient on its way to the weight
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None):
        super().__init__(num_embeddings, embedding_dim, padding_idx)
        if padding_idx is not None:
            self.weight.register_hook(lambda grad: grad.index_fill(0, torch.tensor([padding_idx]), 0.0))


class ByFunction(Indexed):  # F.embedding does the masking itself
    def forward(self, ids):
        return F.embedding(ids, self.weight, self.padding_idx)


class Detached(Indexed):  # no gradient at all
    def forward(self, ids):
        return self.weight.detach()[ids]


class MaskedEverywhere(Indexed):  # every row's gradient is zeroed, not only the padding row's
    def forward(self, ids):
        return self.weight[ids] * 0 + self.weight.detach()[ids]


class Flipped(Selected):
    def forward(self, ids):
        return super().forward(ids).flip(-1)


class Unzeroed(Selected):
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


class Wrapped(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None):
        super().__init__()
        self.inner = nn.Embedding(num_embeddings, embedding_dim, padding_idx=padding_idx)
        self.weight = self.inner.weight

    def forward(self, ids):
        return self.inner(ids)


@pytest.mark.parametrize(("cls", "expected"), [
    (Selected, "pass"),
    (Hooked, "pass"),
    (Masked, r"padding row set to ones.*no longer returns weight\[ids\].*stop only what"),
    (MaskedFill, r"padding row set to ones.*no longer returns weight\[ids\]"),
    (MaskedKeepingValue, r"inf in grad_out.*is \[nan, nan, nan\], not 0: 0 · inf is NaN.*not their gradient times 0"),
    (Indexed, "a gradient reached the padding row.*section 1.*send nothing back"),
    (ByFunction, "calls F.embedding.*do that part yourself"),
    (Detached, "carries no gradient back to the weight"),
    (MaskedEverywhere, "carries no gradient back|not one row of ones per lookup"),
    (Flipped, r"differs from weight\[ids\]"),
    (Unzeroed, r"weight\[2\] is not zero.*zeroes the padding row"),
    (NoPadding, "raised TypeError.*padding_idx=None"),
    (Wrapped, "holds an nn.Embedding or nn.Linear"),
    (Selected(6, 4), r"pass the class itself \(MyEmbedding, not MyEmbedding\(...\)\)"),
    (lambda v, d: None, "expected your nn.Module subclass, got function"),
])
def test_padding_gradient(judge, cls, expected):
    judge(exercises.check_padding_gradient, (cls,), expected)


def test_padding_gradient_leaves_the_random_state_alone(capsys):
    state = torch.random.get_rng_state()
    exercises.check_padding_gradient(Selected)
    assert torch.equal(torch.random.get_rng_state(), state)


# --- Exercise 4.4 -----------------------------------------------------------------------------------------------

MOVED_RIGHT = {"SGD": {1}, "SGD with momentum": {1, 4}, "Adam": {1, 4}, "AdamW": set(range(6))}  # padding_idx=0


@pytest.mark.parametrize(("answer", "expected"), [
    (MOVED_RIGHT, "pass"),
    ({**MOVED_RIGHT, "SGD with momentum": [4, 1]}, "pass"),  # any collection of row ids
    ({**MOVED_RIGHT, "Adam": set(range(6))}, r"Adam: rows \[0, 1, 2, 3, 4, 5\] are not the rows that step 2 moves"),
    ({**MOVED_RIGHT, "SGD": {0, 1}}, "padding_idx zeroes one row's gradient"),  # row 0 looked up, but no gradient
    ({**MOVED_RIGHT, "SGD with momentum": {0, 1, 4}}, "momentum buffer remembers"),
    ({**MOVED_RIGHT, "Adam": {1}}, "Adam's first moment remembers"),
    ({**MOVED_RIGHT, "AdamW": {1, 2, 3, 4, 5}}, "shrinks every non-zero row"),  # the padding row decays too
    ({**MOVED_RIGHT, "Adam": 3}, "must be a set of row ids"),
    ({k: v for k, v in MOVED_RIGHT.items() if k != "AdamW"}, r"missing \['AdamW'\]"),
    ([1, 4], "must be a dict"),
])
def test_moved_rows(judge, answer, expected):
    wrong = [name for name, rows in MOVED_RIGHT.items() if isinstance(answer, dict) and answer.get(name, rows) != rows]
    judge(exercises.check_moved_rows, (answer,), expected,
          never=[str(sorted(MOVED_RIGHT[name])) for name in wrong])  # a hint, never the rows that move


def break_even_tokens(V, d):
    """Exercise 4.3's worked answer."""
    return V * d * 4 // (d * 4 + 8) + 1


def counted_by_loop(V, d):  # another way: add positions until the sparse gradient is larger
    positions = 1
    while positions * (d * 4 + 8) <= V * d * 4:
        positions += 1
    return positions


ANSWERS = [str(break_even_tokens(V, d)) for V, d in exercises.BREAK_EVEN_MEASURED + (exercises.BREAK_EVEN_GPT2,)]


@pytest.mark.parametrize(("function", "expected"), [
    (break_even_tokens, "pass"),
    (counted_by_loop, "pass"),
    (lambda V, d: torch.tensor(V * d * 4 // (d * 4 + 8) + 1), "pass"),  # a one-element tensor is a number too
    (lambda V, d: V + 1, "fewer positions than V are enough"),  # values only: the indices forgotten
    (lambda V, d: V * d * 4 // (d * 4 + 4) + 1, "int64, 8 bytes each"),  # int32 indices
    (lambda V, d: V * d * 4 // (d * 4 + 8), "exactly the same bytes; the question asks for more"),  # >= for >
    (lambda V, d: V * d * 4 / (d * 4 + 8), r"return a whole number of positions \(an int\)"),
    (lambda V, d: V // 2, "not yet larger"),
    (lambda V, d: 7, "one position fewer already takes more bytes"),  # typed in: right for the first table only
    (7, "pass your function itself"),
])
def test_break_even_tokens(judge, function, expected):
    judge(exercises.check_break_even_tokens, (function,), expected, never=ANSWERS[2:])  # multi-digit ones


def _train(weight, optimizer_class, lr, weight_decay, steps):
    """Exercise 4.5's training: a table made from ``weight`` (shared, not copied), ``steps`` steps on ids 1 and 4."""
    table = torch.nn.Embedding.from_pretrained(weight, freeze=False)
    optimizer = optimizer_class(table.parameters(), lr=lr, weight_decay=weight_decay)
    for _ in range(steps):
        optimizer.zero_grad()
        table(torch.tensor([1, 4])).pow(2).sum().backward()
        optimizer.step()
    return table


def _start():
    return torch.randn(6, 4, generator=torch.Generator().manual_seed(4))  # decay_start


def row_0_distance(optimizer_class, lr, weight_decay, steps, row=0):
    """Exercise 4.5's worked answer (``row`` makes a wrong one)."""
    start = _start()
    table = _train(start.clone(), optimizer_class, lr, weight_decay, steps)
    return (table.weight[row] - start[row]).norm().item()


SHARED, DRIFTING = _start(), _start()


def shares_start(optimizer_class, lr, weight_decay, steps):  # from_pretrained(decay_start) without .clone()
    table = _train(SHARED, optimizer_class, lr, weight_decay, steps)
    return (table.weight[0] - SHARED[0]).norm().item()  # row 0 and decay_start[0] moved together


def drifts(optimizer_class, lr, weight_decay, steps):  # each call starts where the last one ended
    before = DRIFTING[0].clone()
    return (_train(DRIFTING, optimizer_class, lr, weight_decay, steps).weight[0].detach() - before).norm().item()


RATIO = row_0_distance(torch.optim.Adam, 0.01, 0.1, 10) / row_0_distance(torch.optim.AdamW, 0.01, 0.1, 10)
PREDICTED_RATIO = 2 / (0.1 * _start()[0].norm().item())  # the lesson: lr a step, against lr·wd·w
TYPED = {torch.optim.Adam: row_0_distance(torch.optim.Adam, 0.01, 0.1, 10),
         torch.optim.AdamW: row_0_distance(torch.optim.AdamW, 0.01, 0.1, 10)}


def test_the_predicted_ratio_is_the_lesson():
    assert abs(PREDICTED_RATIO / RATIO - 1) < 0.05


@pytest.mark.parametrize(("predicted_ratio", "function", "expected"), [
    (PREDICTED_RATIO, row_0_distance, "pass"),
    (PREDICTED_RATIO, lambda *args: torch.tensor(row_0_distance(*args)), "pass"),  # a 0-d tensor is a number too
    (1.0, row_0_distance, "pass"),  # "both decay alike": graded by check_ratio_prediction, not here
    (PREDICTED_RATIO, lambda cls, lr, wd, steps: row_0_distance(cls, lr, wd, 1), "in one step; take `steps` steps"),
    (PREDICTED_RATIO, lambda cls, lr, wd, steps: row_0_distance(cls, lr, 0.0, steps),
     "pass weight_decay to the optimizer"),
    (PREDICTED_RATIO, shares_start, r"decay_start.clone\(\)"),
    (PREDICTED_RATIO, drifts, "called twice: your function changes"),
    (PREDICTED_RATIO, lambda *args: row_0_distance(*args, row=1), r"\(weight\[0\] - decay_start\[0\]\).norm\(\)"),
    (PREDICTED_RATIO, lambda cls, lr, wd, steps: TYPED[cls], "distance at the exercise's settings: use the arguments"),
    (PREDICTED_RATIO, lambda *args: 0.2, "returned a distance that is off"),
    (PREDICTED_RATIO, 0.2, "pass your function itself"),
    ("12", row_0_distance, (TypeError, "predicted_ratio must be a number")),
    (None, row_0_distance, "pass"),  # no prediction: reported as such (below)
    (PREDICTED_RATIO, lambda *args: "0.2", (TypeError, r"row_0_distance\(torch.optim.Adam, .*\) must be a number")),
    (PREDICTED_RATIO, lambda *args: torch.zeros(4), (TypeError, "must be a number")),
    (PREDICTED_RATIO, lambda *args: -0.2, (ValueError, "finite distance >= 0, got -0.2")),
    (PREDICTED_RATIO, lambda *args: float("nan"), (ValueError, "got nan")),
])
def test_row_0_distance(judge, predicted_ratio, function, expected):
    never = [f"{RATIO:.3g}", f"{RATIO:.0f}"] + [f"{distance:.3f}" for distance in TYPED.values()]
    judge(exercises.check_row_0_distance, (predicted_ratio, function), expected, never=never)


@pytest.mark.parametrize(("predicted_ratio", "report"), [
    (PREDICTED_RATIO, "1% from the measured ratio"),  # the lesson's reasoning
    (1.0, "92% from the measured ratio"),  # "both decay alike"
    (RATIO, "0% from"),  # a measured value typed in is reported like any other: nothing to gain
    (None, r"none recorded \(predicted_ratio is still None\)"),
])
def test_row_0_distance_reports_the_prediction_without_grading_it(capsys, predicted_ratio, report):
    assert exercises.check_row_0_distance(predicted_ratio, row_0_distance) is None
    *lines, last = capsys.readouterr().out.splitlines()
    assert re.match(f"your prediction: {report}", lines[-1]) and last.startswith("correct: ")
    assert f"{RATIO:.3g}" not in lines[-1] + last  # the measured ratio is not printed


@pytest.mark.parametrize(("predicted_ratio", "expected"), [
    (PREDICTED_RATIO, "pass"),
    (RATIO, "pass"),  # the measurement agrees with the reasoning within 10%
    (1.0, "Adam divides the decay term"),  # "both decay alike"
    (PREDICTED_RATIO / 2, r"lr \* sqrt\(4\)"),  # one entry's lr against the row's distance
    (100.0, "in proportion to the weight, not zero"),
    (5.0, "compare the distances row 0 moves"),
    ("12", (TypeError, "predicted_ratio must be a number")),
])
def test_ratio_prediction(judge, predicted_ratio, expected):
    judge(exercises.check_ratio_prediction, (predicted_ratio,), expected, never=[f"{PREDICTED_RATIO:.3g}"])


def test_ratio_prediction_waits_for_a_guess(capsys):
    assert exercises.check_ratio_prediction(None) is None
    assert "not answered yet" in capsys.readouterr().out


def test_checkers_leave_the_global_rng_alone():
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    exercises.check_embedding_grad(FIRST + SECOND, GRAD_OUT)
    exercises.check_padding_gradient(Selected)
    exercises.check_moved_rows(MOVED_RIGHT)
    exercises.check_break_even_tokens(break_even_tokens)
    exercises.check_row_0_distance(PREDICTED_RATIO, row_0_distance)
    assert torch.equal(torch.rand(3), expected)


# --- Section 6's prediction ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("guess", "expected"), [
    ({"SGD": {2, 5}, "Adam": {1, 2, 3, 5, 6}}, "pass"),
    ({"SGD": {1, 2, 3, 5, 6}, "Adam": {1, 2, 3, 5, 6}}, "SGD: rows .* Hint: SGD's step"),
    ({"SGD": {2, 5}, "Adam": {2, 5}}, "Adam: rows .* running averages"),
    ({"SGD": {2, 5}}, "missing"),
    ({"SGD": 2, "Adam": {2}}, "must be a set of row ids"),
])
def test_optimizer_guess(judge, guess, expected):
    judge(exercises.check_optimizer_guess, (guess,), expected, never=("{1, 2, 3, 5, 6}",))


def test_optimizer_guess_judges_nothing_yet(capsys):
    assert exercises.check_optimizer_guess(None) is None
    assert capsys.readouterr().out.startswith("not answered yet")
