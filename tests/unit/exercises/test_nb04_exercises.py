"""Notebook 4's checkers: the worked answer passes, and each listed wrong answer fails with its hint, never
the answer itself."""

import re

import torch

from tests.unit.exercises.checker_table import checker_tests
from utils.exercises import nb04 as exercises
from utils.exercises.checking import ExerciseError as E

IDS = torch.tensor(exercises.GRAD_EXERCISE_IDS)
GRAD_OUT = torch.randn(len(IDS), 3, generator=torch.Generator().manual_seed(0))
GRAD = torch.zeros(exercises.GRAD_EXERCISE_VOCAB, 3).index_add_(0, IDS, GRAD_OUT)
MOVED = {"SGD": {1}, "SGD with momentum": {1, 4}, "Adam": {1, 4}, "AdamW": set(range(6))}  # padding_idx=0
START = torch.randn(6, 4, generator=torch.Generator().manual_seed(4))  # decay_start
RATIO = 2 / (0.1 * START[0].norm().item())  # Adam moves row 0 by about lr a step, AdamW by lr·wd·w


def lookup_counts(sparse_grad, num_rows):
    return torch.bincount(sparse_grad._indices()[0], minlength=num_rows)


def by_index_add(sparse_grad, num_rows):  # another way: add a 1 into the row of every entry
    ones = torch.ones(sparse_grad._nnz(), dtype=torch.long)
    return torch.zeros(num_rows, dtype=torch.long).index_add_(0, sparse_grad._indices()[0], ones)


def train(weight, optimizer_class, lr, weight_decay, steps):
    """A table made from ``weight`` (shared, not copied), ``steps`` steps on ids 1 and 4."""
    table = torch.nn.Embedding.from_pretrained(weight, freeze=False)
    optimizer = optimizer_class(table.parameters(), lr=lr, weight_decay=weight_decay)
    for _ in range(steps):
        optimizer.zero_grad()
        table(torch.tensor([1, 4])).pow(2).sum().backward()
        optimizer.step()
    return table.weight.detach()


def row_0_distance(optimizer_class, lr, weight_decay, steps):
    return (train(START.clone(), optimizer_class, lr, weight_decay, steps)[0] - START[0]).norm().item()


def shares_start(optimizer_class, lr, weight_decay, steps):  # from_pretrained without .clone(): trains START
    start = START.clone()
    return (train(start, optimizer_class, lr, weight_decay, steps)[0] - start[0]).norm().item()


MOVING = START.clone()


def drifts(optimizer_class, lr, weight_decay, steps):  # each call starts where the last one ended
    before = MOVING[0].clone()
    return (train(MOVING, optimizer_class, lr, weight_decay, steps)[0] - before).norm().item()


TYPED = {torch.optim.Adam: row_0_distance(torch.optim.Adam, 0.01, 0.1, 10),
         torch.optim.AdamW: row_0_distance(torch.optim.AdamW, 0.01, 0.1, 10)}

WORKED = [
    ("check_embedding_grad", lambda: (GRAD, GRAD_OUT)),
    ("check_moved_rows", lambda: (MOVED,)),
    ("check_moved_rows", lambda: ({**MOVED, "SGD with momentum": [4, 1]},)),  # any collection of row ids
    ("check_lookup_counts", lambda: (lookup_counts,)),
    ("check_lookup_counts", lambda: (by_index_add,)),
    ("check_row_0_distance", lambda: (RATIO, row_0_distance)),
    ("check_row_0_distance", lambda: (RATIO, lambda *args: torch.tensor(row_0_distance(*args)))),  # a 0-d tensor
]
WRONG = [
    ("check_embedding_grad", lambda: (torch.zeros(7, 3).index_put_((IDS,), GRAD_OUT), GRAD_OUT), E, "index_add_"),
    ("check_embedding_grad", lambda: (GRAD_OUT, GRAD_OUT), E, r"shape \(5, 3\), expected \(7, 3\)"),
    ("check_embedding_grad", lambda: (GRAD.index_fill(0, torch.tensor([6]), 1.0), GRAD_OUT), E,
     r"rows \[1, 3, 4, 6\] are never looked up"),
    ("check_embedding_grad", lambda: (GRAD.tolist(), GRAD_OUT), E, "must be a torch.Tensor"),
    ("check_embedding_grad", lambda: (2 * GRAD, GRAD_OUT), E, "differs from one_hot"),
    ("check_moved_rows", lambda: ({**MOVED, "Adam": set(range(6))},), E,
     r"Adam: rows \[0, 1, 2, 3, 4, 5\] are not the rows that step 2 moves"),
    ("check_moved_rows", lambda: ({**MOVED, "SGD": {0, 1}},), E, "padding_idx zeroes one row's gradient"),
    ("check_moved_rows", lambda: ({**MOVED, "SGD with momentum": {0, 1, 4}},), E, "momentum buffer remembers"),
    ("check_moved_rows", lambda: ({**MOVED, "Adam": {1}},), E, "Adam's first moment remembers"),
    ("check_moved_rows", lambda: ({**MOVED, "AdamW": {1, 2, 3, 4, 5}},), E, "shrinks every non-zero row"),
    ("check_moved_rows", lambda: ({**MOVED, "Adam": 3},), E, "must be a set of row ids"),
    ("check_moved_rows", lambda: ({k: v for k, v in MOVED.items() if k != "AdamW"},), E, r"missing \['AdamW'\]"),
    ("check_moved_rows", lambda: ([1, 4],), E, "must be a dict"),
    ("check_lookup_counts", lambda: (lambda g, n: torch.bincount(g.coalesce().indices()[0], minlength=n),), E,
     r"coalesce\(\) merged"),
    ("check_lookup_counts", lambda: (lambda g, n: torch.bincount(g.indices()[0], minlength=n),), E,
     "raised RuntimeError.*coalesced tensor"),
    ("check_lookup_counts", lambda: (lambda g, n: torch.bincount(g._indices()[0]),), E,
     r"returned shape \(8,\); return one count per row"),
    ("check_lookup_counts", lambda: (lambda g, n: g.to_dense()[:, 0].long(),), E, "one entry per position"),
    ("check_lookup_counts", lambda: (lambda g, n: lookup_counts(g, n).float(),), E, "of dtype torch.float32"),
    ("check_lookup_counts", lambda: (lambda g, n: lookup_counts(g, n).tolist(),), E, "returned list"),
    # typed-in counts: section 4's, then the checker's first case's
    ("check_lookup_counts", lambda: (lambda g, n: torch.tensor([0, 1, 0, 2, 0, 0, 1, 0]),), E, r"shape \(8,\)"),
    ("check_lookup_counts", lambda: (lambda g, n: torch.tensor([0, 2, 0, 3, 0, 0, 0, 1, 0]),), E, "returned shape"),
    ("check_lookup_counts", lambda: (torch.tensor([0, 2, 0, 3]),), E, "pass your function itself"),
    ("check_row_0_distance", lambda: (1.0, row_0_distance), E, r"Adam divides the decay term weight_decay \* w"),
    ("check_row_0_distance", lambda: (0.1, row_0_distance), E, "Adam divides"),  # "Adam moves it less"
    ("check_row_0_distance", lambda: (100.0, row_0_distance), E, "in proportion to the weight, not zero"),
    ("check_row_0_distance", lambda: (RATIO, lambda o, lr, wd, steps: row_0_distance(o, lr, wd, 1)), E,
     "in one step; take `steps` steps"),
    ("check_row_0_distance", lambda: (RATIO, lambda o, lr, wd, steps: row_0_distance(o, lr, 0.0, steps)), E,
     "pass weight_decay to the optimizer"),
    ("check_row_0_distance", lambda: (RATIO, shares_start), E, r"decay_start.clone\(\)"),
    ("check_row_0_distance", lambda: (RATIO, drifts), E, "called twice: your function changes decay_start"),
    ("check_row_0_distance", lambda: (RATIO, lambda o, lr, wd, steps: (
        train(START.clone(), o, lr, wd, steps)[1] - START[1]).norm().item()), E,
     r"\(weight\[0\] - decay_start\[0\]\).norm\(\)"),  # row 1
    ("check_row_0_distance", lambda: (RATIO, lambda o, lr, wd, steps: TYPED[o]), E,
     "distance at the exercise's settings: use the arguments"),
    ("check_row_0_distance", lambda: (RATIO, lambda *args: 0.2), E, "returned a distance that is off"),
    ("check_row_0_distance", lambda: (RATIO, 0.2), E, "pass your function itself"),
    ("check_row_0_distance", lambda: ("12", row_0_distance), TypeError, "predicted_ratio must be a number"),
    ("check_row_0_distance", lambda: (RATIO, lambda *args: "0.2"), TypeError,
     r"row_0_distance\(torch.optim.Adam, .*\) must be a number"),
    ("check_row_0_distance", lambda: (RATIO, lambda *args: torch.zeros(4)), TypeError, "must be a number"),
    ("check_row_0_distance", lambda: (RATIO, lambda *args: -0.2), ValueError, "finite distance >= 0, got -0.2"),
    ("check_row_0_distance", lambda: (RATIO, lambda *args: float("nan")), ValueError, "got nan"),
]
#: what no message may show: the counts, a distance in a hint, the rows that move in the second step
ANSWERS = [str(torch.bincount(torch.tensor(ids), minlength=n).tolist()) for ids, n in exercises.LOOKUP_COUNT_CASES]
ANSWERS += [re.compile(r"Hint:.*\d\.\d{3}"), re.compile(r"(?<!ids )\[1, 4\]")]
test_the_worked_answer_passes, test_a_wrong_answer_fails_with_its_hint = checker_tests(exercises, WORKED, WRONG,
                                                                                       ANSWERS)


def test_the_prediction_is_the_lesson():
    measured = row_0_distance(torch.optim.Adam, 0.01, 0.1, 10) / row_0_distance(torch.optim.AdamW, 0.01, 0.1, 10)
    assert abs(RATIO / measured - 1) < 0.05  # lr a step, against lr·wd·w


def test_checkers_leave_the_global_rng_alone(capsys):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    for checker, args in WORKED:
        getattr(exercises, checker)(*args())
    assert torch.equal(torch.rand(3), expected)
