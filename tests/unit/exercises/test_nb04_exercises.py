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
    right = torch.zeros(exercises.GRAD_EXERCISE_VOCAB, 3).index_add_(0, ids, grad_out)
    assert exercises.check_embedding_grad(right, grad_out)
    assert capsys.readouterr().out.startswith("correct: your gradient equals the one autograd computes")
    embedding = torch.nn.Embedding(exercises.GRAD_EXERCISE_VOCAB, 3)
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
    noisy = torch.zeros(exercises.GRAD_EXERCISE_VOCAB, 3).index_add_(0, ids, grad_out)
    noisy[6] = 1.0
    with pytest.raises(exercises.ExerciseError, match=r"rows \[1, 3, 4, 6\] are never looked up"):
        exercises.check_embedding_grad(noisy, grad_out)
    with pytest.raises(exercises.ExerciseError, match="must be a torch.Tensor"):
        exercises.check_embedding_grad(noisy.tolist(), grad_out)
    scaled = 2 * torch.zeros(exercises.GRAD_EXERCISE_VOCAB, 3).index_add_(0, ids, grad_out)
    with pytest.raises(exercises.ExerciseError, match="differs from one_hot"):
        exercises.check_embedding_grad(scaled, grad_out)

MOVED_RIGHT = {"SGD": {1, 4}, "SGD with momentum": {0, 1, 4}, "Adam": {0, 1, 4}, "AdamW": set(range(6))}

def test_moved_rows_right():
    assert exercises.check_moved_rows(MOVED_RIGHT)
    assert exercises.check_moved_rows({**MOVED_RIGHT, "SGD": [4, 1]})  # any collection of row ids

@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"Adam": set(range(6))}, r"Adam: you said rows \[0, 1, 2, 3, 4, 5\], but rows \[0, 1, 4\] move"),
        ({"SGD": {0, 1, 4}}, "plain SGD moves a row only when"),
        ({"SGD with momentum": {1, 4}}, "momentum buffer remembers"),
        ({"AdamW": {0, 1, 4}}, "decoupled weight decay"),
        ({"Adam": 3}, "must be a set of row ids"),
    ],
)
def test_moved_rows_wrong(change, message):
    with pytest.raises(exercises.ExerciseError, match=message):
        exercises.check_moved_rows({**MOVED_RIGHT, **change})

def test_moved_rows_wrong_shape_of_answer():
    with pytest.raises(exercises.ExerciseError, match=r"missing \['AdamW'\]"):
        exercises.check_moved_rows({k: v for k, v in MOVED_RIGHT.items() if k != "AdamW"})
    with pytest.raises(exercises.ExerciseError, match="must be a dict"):
        exercises.check_moved_rows([1, 4])

def test_touched_rows():
    assert exercises.check_touched_rows(lambda grad: grad.coalesce().indices()[0])
    with pytest.raises(exercises.ExerciseError, match="uncoalesced; call grad.coalesce"):
        exercises.check_touched_rows(lambda grad: grad.indices()[0])
    with pytest.raises(exercises.ExerciseError, match=r"you returned \[3, 1, 3, 7, 1\], expected \[1, 3, 7\]"):
        exercises.check_touched_rows(lambda grad: grad._indices()[0])
    with pytest.raises(exercises.ExerciseError, match="int64 torch.Tensor"):
        exercises.check_touched_rows(lambda grad: grad.coalesce().indices()[0].tolist())
    with pytest.raises(exercises.ExerciseError, match="pass your function itself"):
        exercises.check_touched_rows(torch.tensor([1, 3, 7]))

def _row_0_distance(optimizer_class, steps=exercises.DECAY_EXERCISE_STEPS, weight_decay=0.01, row=0):
    """Exercise 4.4 as a learner would write it (the notebook's worked answer)."""
    start = torch.randn(6, 4, generator=torch.Generator().manual_seed(4))
    table = torch.nn.Embedding.from_pretrained(start.clone(), freeze=False)
    optimizer = optimizer_class(table.parameters(), lr=0.01, weight_decay=weight_decay)
    for _ in range(steps):
        optimizer.zero_grad()
        table(torch.tensor([1, 4])).pow(2).sum().backward()
        optimizer.step()
    return (table.weight[row] - start[row]).norm()

def test_decay_distances_right(capsys):
    adam, adamw = _row_0_distance(torch.optim.Adam), _row_0_distance(torch.optim.AdamW)
    assert exercises.check_decay_distances(adam.item(), adamw.item())
    out = capsys.readouterr().out
    assert out.startswith("correct: both distances match the checker's own 10-step runs")
    assert not re.search(r"\d\.\d", out)  # says what was checked, not the distances
    assert exercises.check_decay_distances(adam, adamw)  # 0-d tensors are numbers too
    assert adam > 100 * adamw  # Adam's L2 decay moves the row about lr a step, AdamW lr * wd * w

def test_decay_distances_wrong():
    adam, adamw = _row_0_distance(torch.optim.Adam).item(), _row_0_distance(torch.optim.AdamW).item()
    with pytest.raises(exercises.ExerciseError, match="swapped"):
        exercises.check_decay_distances(adamw, adam)
    with pytest.raises(exercises.ExerciseError, match="in one step; take 10 steps"):
        exercises.check_decay_distances(_row_0_distance(torch.optim.Adam, steps=1).item(), adamw)
    with pytest.raises(exercises.ExerciseError, match="a distance of 0.*weight_decay=0.01"):
        exercises.check_decay_distances(_row_0_distance(torch.optim.Adam, weight_decay=0).item(), adamw)
    with pytest.raises(exercises.ExerciseError, match=r"AdamW: you found .*, expected 0.00159"):
        exercises.check_decay_distances(adam, _row_0_distance(torch.optim.AdamW, row=1).item())

def test_decay_distances_bad_input():
    with pytest.raises(TypeError, match="adam_l2_distance must be a number"):
        exercises.check_decay_distances("0.2", 0.0016)
    with pytest.raises(TypeError, match="adamw_distance must be a number"):
        exercises.check_decay_distances(0.2, torch.zeros(4))
    with pytest.raises(ValueError, match="finite distance >= 0, got -0.2"):
        exercises.check_decay_distances(-0.2, 0.0016)
    with pytest.raises(ValueError, match="got nan"):
        exercises.check_decay_distances(0.2, float("nan"))


def test_checkers_leave_the_global_rng_alone(capsys):
    torch.manual_seed(123)
    expected = torch.rand(3)
    ids, grad_out = _grad_exercise_inputs()
    torch.manual_seed(123)
    exercises.check_embedding_grad(torch.zeros(exercises.GRAD_EXERCISE_VOCAB, 3).index_add_(0, ids, grad_out), grad_out)
    exercises.check_moved_rows(MOVED_RIGHT)
    exercises.check_touched_rows(lambda grad: grad.coalesce().indices()[0])
    exercises.check_decay_distances(0.19642, 0.0015928)
    assert torch.equal(torch.rand(3), expected)
