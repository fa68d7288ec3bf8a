"""Notebook 4's checkers accept a right answer and reject a wrong one with a hint."""

import re

import pytest
import torch

from utils.exercises import nb04 as exercises


def _grad_exercise_inputs():
    ids = torch.tensor(exercises.GRAD_EXERCISE_IDS)
    grad_out = torch.randn(len(ids), 3, generator=torch.Generator().manual_seed(0))
    return ids, grad_out

def test_embedding_grad_right(capsys):
    ids, grad_out = _grad_exercise_inputs()
    counts = torch.bincount(ids, minlength=exercises.GRAD_EXERCISE_VOCAB).clamp(min=1)
    right = torch.zeros(exercises.GRAD_EXERCISE_VOCAB, 3).index_add_(0, ids, grad_out) / counts[:, None]
    assert exercises.check_embedding_grad(right, grad_out)
    assert capsys.readouterr().out.startswith("correct: your gradient equals the one autograd computes")
    embedding = torch.nn.Embedding(exercises.GRAD_EXERCISE_VOCAB, 3, scale_grad_by_freq=True)
    embedding(ids).backward(grad_out)
    assert exercises.check_embedding_grad(embedding.weight.grad, grad_out)  # autograd agrees

def test_embedding_grad_wrong():
    ids, grad_out = _grad_exercise_inputs()
    assigned = torch.zeros(exercises.GRAD_EXERCISE_VOCAB, 3)
    assigned[ids] = grad_out  # the classic mistake: repeated rows overwrite instead of adding up
    with pytest.raises(exercises.ExerciseError, match="index_add_"):
        exercises.check_embedding_grad(assigned, grad_out)
    with pytest.raises(exercises.ExerciseError, match=r"shape \(5, 3\), expected \(7, 3\)"):
        exercises.check_embedding_grad(grad_out, grad_out)
    unscaled = torch.zeros(exercises.GRAD_EXERCISE_VOCAB, 3).index_add_(0, ids, grad_out)
    with pytest.raises(exercises.ExerciseError, match="without scale_grad_by_freq.*divided by 3"):
        exercises.check_embedding_grad(unscaled, grad_out)  # section 1's rule: the counts are left out
    noisy = unscaled.clone()
    noisy[6] = 1.0
    with pytest.raises(exercises.ExerciseError, match=r"rows \[1, 3, 4, 6\] are never looked up"):
        exercises.check_embedding_grad(noisy, grad_out)
    with pytest.raises(exercises.ExerciseError, match="must be a torch.Tensor"):
        exercises.check_embedding_grad(noisy.tolist(), grad_out)
    scaled = 2 * torch.zeros(exercises.GRAD_EXERCISE_VOCAB, 3).index_add_(0, ids, grad_out)
    with pytest.raises(exercises.ExerciseError, match="differs from autograd's"):
        exercises.check_embedding_grad(scaled, grad_out)

MOVED_RIGHT = {"SGD": {1}, "SGD with momentum": {1, 4}, "Adam": {1, 4}, "AdamW": set(range(6))}  # padding_idx=0

def test_moved_rows_right():
    assert exercises.check_moved_rows(MOVED_RIGHT)
    assert exercises.check_moved_rows({**MOVED_RIGHT, "SGD with momentum": [4, 1]})  # any collection of row ids

@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"Adam": set(range(6))}, r"Adam: rows \[0, 1, 2, 3, 4, 5\] are not the rows that step 2 moves"),
        ({"SGD": {0, 1}}, "padding_idx zeroes one row's gradient"),  # row 0 looked up, but no gradient
        ({"SGD with momentum": {0, 1, 4}}, "momentum buffer remembers"),
        ({"Adam": {1}}, "Adam's first moment remembers"),
        ({"AdamW": {1, 2, 3, 4, 5}}, "shrinks every non-zero row"),  # the padding row decays too
        ({"Adam": 3}, "must be a set of row ids"),
    ],
)
def test_moved_rows_wrong(change, message):
    with pytest.raises(exercises.ExerciseError, match=message) as error:
        exercises.check_moved_rows({**MOVED_RIGHT, **change})
    name = next(iter(change))
    assert str(sorted(MOVED_RIGHT[name])) not in str(error.value)  # a hint, never the rows that move

def test_moved_rows_wrong_shape_of_answer():
    with pytest.raises(exercises.ExerciseError, match=r"missing \['AdamW'\]"):
        exercises.check_moved_rows({k: v for k, v in MOVED_RIGHT.items() if k != "AdamW"})
    with pytest.raises(exercises.ExerciseError, match="must be a dict"):
        exercises.check_moved_rows([1, 4])

def _lookup_counts(sparse_grad, num_rows):
    """Exercise 4.3's worked answer."""
    return torch.bincount(sparse_grad._indices()[0], minlength=num_rows)

def test_lookup_counts_right(capsys):
    assert exercises.check_lookup_counts(_lookup_counts)
    assert capsys.readouterr().out.startswith("correct: lookup_counts counted the lookups of every row")

    def by_index_add(sparse_grad, num_rows):  # another way: add a 1 into the row of every entry
        ones = torch.ones(sparse_grad._nnz(), dtype=torch.long)
        return torch.zeros(num_rows, dtype=torch.long).index_add_(0, sparse_grad._indices()[0], ones)

    assert exercises.check_lookup_counts(by_index_add)

def _assert_no_counts_in(message):
    for ids, num_rows in exercises.LOOKUP_COUNT_CASES:
        counts = torch.bincount(torch.tensor(ids), minlength=num_rows).tolist()
        assert str(counts) not in message, "a hint, never the expected counts"

def test_lookup_counts_wrong():
    wrong = [
        (lambda grad, n: torch.bincount(grad.coalesce().indices()[0], minlength=n), "coalesce\\(\\) merged"),
        (lambda grad, n: torch.bincount(grad.indices()[0], minlength=n), "raised RuntimeError.*coalesced tensor"),
        (lambda grad, n: torch.bincount(grad._indices()[0]), r"returned shape \(8,\); return one count per row"),
        (lambda grad, n: grad.to_dense()[:, 0].long(), "one entry per position"),
        (lambda grad, n: torch.bincount(grad._indices()[0], minlength=n).float(), "of dtype torch.float32"),
        (lambda grad, n: torch.bincount(grad._indices()[0], minlength=n).tolist(), "returned list"),
    ]
    for function, message in wrong:
        with pytest.raises(exercises.ExerciseError, match=message) as error:
            exercises.check_lookup_counts(function)
        _assert_no_counts_in(str(error.value))

def test_lookup_counts_typed():
    """Typed-in counts cannot pass: the checker calls the function on gradients of its own."""
    section_4 = torch.tensor([0, 1, 0, 2, 0, 0, 1, 0])  # the counts of section 4's ids [1, 3, 3, 6]
    with pytest.raises(exercises.ExerciseError, match=r"returned shape \(8,\)") as error:
        exercises.check_lookup_counts(lambda grad, n: section_4)
    _assert_no_counts_in(str(error.value))
    first = torch.tensor([0, 2, 0, 3, 0, 0, 0, 1, 0])  # right for the checker's first case only
    with pytest.raises(exercises.ExerciseError, match="returned shape") as error:
        exercises.check_lookup_counts(lambda grad, n: first)
    _assert_no_counts_in(str(error.value))

def test_lookup_counts_bad_input():
    with pytest.raises(exercises.ExerciseError, match="pass your function itself"):
        exercises.check_lookup_counts(torch.tensor([0, 2, 0, 3]))

def _train(weight, optimizer_class, lr, weight_decay, steps):
    """Exercise 4.4's training: a table made from ``weight`` (shared, not copied), ``steps`` steps on ids 1 and 4."""
    table = torch.nn.Embedding.from_pretrained(weight, freeze=False)
    optimizer = optimizer_class(table.parameters(), lr=lr, weight_decay=weight_decay)
    for _ in range(steps):
        optimizer.zero_grad()
        table(torch.tensor([1, 4])).pow(2).sum().backward()
        optimizer.step()
    return table


def _row_0_distance(optimizer_class, lr, weight_decay, steps):
    """Exercise 4.4's worked answer."""
    start = torch.randn(6, 4, generator=torch.Generator().manual_seed(4))  # decay_start
    table = _train(start.clone(), optimizer_class, lr, weight_decay, steps)
    return (table.weight[0] - start[0]).norm().item()

PREDICTED_RATIO = 2 / (0.1 * torch.randn(6, 4, generator=torch.Generator().manual_seed(4))[0].norm().item())


def _assert_no_distance_in(message):
    assert not re.search(r"\d\.\d{3}", message.replace("0.01", "").replace("0.05", "")), \
        "a hint, never the expected distance"

def test_row_0_distance_right(capsys):
    assert exercises.check_row_0_distance(PREDICTED_RATIO, _row_0_distance)
    out = capsys.readouterr().out
    assert out.startswith("correct: row_0_distance matches the checker's own runs")
    assert not re.search(r"\d\.\d", out)  # says what was checked, not the distances

    def as_tensor(*args):  # a 0-d tensor is a number too
        return torch.tensor(_row_0_distance(*args))

    assert exercises.check_row_0_distance(PREDICTED_RATIO, as_tensor)
    ratio = _row_0_distance(torch.optim.Adam, 0.01, 0.1, 10) / _row_0_distance(torch.optim.AdamW, 0.01, 0.1, 10)
    assert abs(PREDICTED_RATIO / ratio - 1) < 0.05  # the lesson: lr a step, against lr·wd·w


@pytest.mark.parametrize(("predicted_ratio", "hint"), [
    (1.0, "Adam divides the decay term weight_decay \\* w by its own size"),  # "both decay alike"
    (0.1, "Adam divides"),  # "Adam moves it less"
    (100.0, "in proportion to the weight, not zero"),  # as in section 6, where weight_decay was 0.01
])
def test_row_0_distance_wrong_prediction(predicted_ratio, hint):
    ratio = _row_0_distance(torch.optim.Adam, 0.01, 0.1, 10) / _row_0_distance(torch.optim.AdamW, 0.01, 0.1, 10)
    with pytest.raises(exercises.ExerciseError, match=hint) as error:
        exercises.check_row_0_distance(predicted_ratio, _row_0_distance)
    assert f"{ratio:.3g}" not in str(error.value) and f"{ratio:.0f}" not in str(error.value)

def test_row_0_distance_wrong():
    def one_step(optimizer_class, lr, weight_decay, steps):
        return _row_0_distance(optimizer_class, lr, weight_decay, 1)

    def no_decay(optimizer_class, lr, weight_decay, steps):
        return _row_0_distance(optimizer_class, lr, 0.0, steps)

    start = torch.randn(6, 4, generator=torch.Generator().manual_seed(4))

    def shares_start(optimizer_class, lr, weight_decay, steps):  # from_pretrained without .clone(): trains start
        table = _train(start, optimizer_class, lr, weight_decay, steps)
        return (table.weight[0] - start[0]).norm().item()

    moving = {"start": torch.randn(6, 4, generator=torch.Generator().manual_seed(4))}

    def drifts(optimizer_class, lr, weight_decay, steps):  # each call starts where the last one ended
        before = moving["start"][0].clone()
        table = _train(moving["start"], optimizer_class, lr, weight_decay, steps)
        return (table.weight[0].detach() - before).norm().item()

    def row_1(optimizer_class, lr, weight_decay, steps):
        table = _train(start.clone(), optimizer_class, lr, weight_decay, steps)
        return (table.weight[1] - start[1]).norm().item()

    wrong = [
        (one_step, "in one step; take `steps` steps"),
        (no_decay, "pass weight_decay to the optimizer"),
        (shares_start, r"decay_start.clone\(\)"),
        (drifts, "called twice: your function changes decay_start"),
        (row_1, r"\(weight\[0\] - decay_start\[0\]\).norm\(\)"),
    ]
    for function, message in wrong:
        with pytest.raises(exercises.ExerciseError, match=message) as error:
            exercises.check_row_0_distance(PREDICTED_RATIO, function)
        _assert_no_distance_in(str(error.value))

def test_row_0_distance_typed():
    """Typed-in distances cannot pass: the checker calls the function at settings of its own."""
    typed = {torch.optim.Adam: _row_0_distance(torch.optim.Adam, 0.01, 0.1, 10),
             torch.optim.AdamW: _row_0_distance(torch.optim.AdamW, 0.01, 0.1, 10)}
    with pytest.raises(exercises.ExerciseError, match="distance at the exercise's settings: use the arguments") as e:
        exercises.check_row_0_distance(PREDICTED_RATIO,
                                       lambda optimizer_class, lr, weight_decay, steps: typed[optimizer_class])
    _assert_no_distance_in(str(e.value))
    with pytest.raises(exercises.ExerciseError, match="returned a distance that is off"):
        exercises.check_row_0_distance(PREDICTED_RATIO, lambda optimizer_class, lr, weight_decay, steps: 0.2)

def test_row_0_distance_bad_input():
    with pytest.raises(exercises.ExerciseError, match="pass your function itself"):
        exercises.check_row_0_distance(PREDICTED_RATIO, 0.2)
    with pytest.raises(TypeError, match="predicted_ratio must be a number"):
        exercises.check_row_0_distance("12", _row_0_distance)
    with pytest.raises(TypeError, match=r"row_0_distance\(torch.optim.Adam, .*\) must be a number"):
        exercises.check_row_0_distance(PREDICTED_RATIO, lambda *args: "0.2")
    with pytest.raises(TypeError, match="must be a number"):
        exercises.check_row_0_distance(PREDICTED_RATIO, lambda *args: torch.zeros(4))
    with pytest.raises(ValueError, match="finite distance >= 0, got -0.2"):
        exercises.check_row_0_distance(PREDICTED_RATIO, lambda *args: -0.2)
    with pytest.raises(ValueError, match="got nan"):
        exercises.check_row_0_distance(PREDICTED_RATIO, lambda *args: float("nan"))


def test_checkers_leave_the_global_rng_alone(capsys):
    torch.manual_seed(123)
    expected = torch.rand(3)
    ids, grad_out = _grad_exercise_inputs()
    torch.manual_seed(123)
    counts = torch.bincount(ids, minlength=exercises.GRAD_EXERCISE_VOCAB).clamp(min=1)[:, None]
    exercises.check_embedding_grad(torch.zeros(exercises.GRAD_EXERCISE_VOCAB, 3).index_add_(0, ids, grad_out) / counts,
                                   grad_out)
    exercises.check_moved_rows(MOVED_RIGHT)
    exercises.check_lookup_counts(_lookup_counts)
    exercises.check_row_0_distance(PREDICTED_RATIO, _row_0_distance)
    assert torch.equal(torch.rand(3), expected)
