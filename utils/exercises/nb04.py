"""Notebook 4, gradients, what training touches: the checkers of its exercises."""

from __future__ import annotations

from collections.abc import Callable
from itertools import product

import torch

from .checking import ExerciseError, as_number, correct, hint, require, require_function, require_tensor, within

#: Exercise 4.1's ids: id 2 three times, id 0 once, id 5 once, in a vocabulary of 7
GRAD_EXERCISE_IDS = (2, 0, 2, 2, 5)
GRAD_EXERCISE_VOCAB = 7


def check_embedding_grad(grad: torch.Tensor, grad_out: torch.Tensor) -> bool:
    """Exercise 4.1: the embedding weight's gradient for ``GRAD_EXERCISE_IDS``, computed without autograd.

    ``grad_out``: ``(5, d)``, the gradient of the lookup's output; ``grad``: ``(7, d)``.
    """
    ids, grad_out = torch.tensor(GRAD_EXERCISE_IDS), grad_out.detach().cpu()
    shape = (GRAD_EXERCISE_VOCAB, grad_out.shape[1])
    grad = require_tensor("grad", grad, shape, ": the gradient of the weight has the weight's shape [V, d], one "
                          "row per token id (not one per position)").to(grad_out.dtype)
    table = torch.nn.Embedding.from_pretrained(grad_out.new_zeros(shape), freeze=False)
    table(ids).backward(grad_out)  # the gradient autograd computes
    if torch.allclose(grad, table.weight.grad, rtol=1e-6, atol=1e-6):
        return correct("your gradient equals the one autograd computes for these ids and grad_out, "
                       "within float32 rounding")
    assigned = grad_out.new_zeros(shape).index_put_((ids,), grad_out)
    require(not (torch.equal(grad, assigned) or torch.allclose(grad[2], grad_out[3])),
            "row 2 holds only one of the three gradient rows of the positions that looked it up. Hint: "
            "`grad[ids] = grad_out` keeps one of the repeated rows; add them up with "
            "`grad.index_add_(0, ids, grad_out)` or `one_hot(ids, V).T @ grad_out`")
    untouched = [v for v in range(GRAD_EXERCISE_VOCAB) if v not in GRAD_EXERCISE_IDS]
    require(not grad[untouched].ne(0).any(), f"rows {untouched} are never looked up, so their gradient must be "
            "exactly 0")
    raise ExerciseError("the gradient differs from one_hot(ids, V).T @ grad_out. Hint: row v is the sum of the "
                        "rows of grad_out at the positions t where ids[t] == v")


#: Exercise 4.2's scenario: a table with padding_idx=0 whose row 0 is not zero, two steps of a loss
#: sum(E(ids)**2) on ids STEP_1, then STEP_2; each optimizer, and the hint for a wrong prediction of its rows
MOVED_EXERCISE_STEPS = ((0, 4), (1, 0))
MOVED_EXERCISE_VOCAB = 6
MOVED_EXERCISE_OPTIMIZERS = {
    "SGD": (lambda p: torch.optim.SGD(p, lr=0.1),
            "plain SGD moves a row only when that row has a non-zero gradient in this step; padding_idx zeroes one "
            "row's gradient, however often it is looked up"),
    "SGD with momentum": (lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
                          "the momentum buffer remembers rows from the first step; a row whose gradient was always "
                          "zero has a zero buffer"),
    "Adam": (lambda p: torch.optim.Adam(p, lr=0.1),
             "Adam's first moment remembers rows from the first step; a row whose gradient was always zero has zero "
             "moments, so its update is 0 / (sqrt(0) + eps) = 0"),
    "AdamW": (lambda p: torch.optim.AdamW(p, lr=0.1, weight_decay=0.01),
              "AdamW's decoupled weight decay shrinks every non-zero row by lr * weight_decay * w, looked up or not, "
              "whatever its gradient"),
}


def _moved_rows_in_second_step(name: str) -> set[int]:
    weight = torch.randn(MOVED_EXERCISE_VOCAB, 3, generator=torch.Generator().manual_seed(0))
    embedding = torch.nn.Embedding.from_pretrained(weight, freeze=False, padding_idx=0)  # row 0 stays non-zero
    optimizer = MOVED_EXERCISE_OPTIMIZERS[name][0](embedding.parameters())
    for step_ids in MOVED_EXERCISE_STEPS:
        before = embedding.weight.detach().clone()
        optimizer.zero_grad()
        embedding(torch.tensor(step_ids)).pow(2).sum().backward()
        optimizer.step()
    return set((embedding.weight.detach() != before).any(dim=1).nonzero().flatten().tolist())


def check_moved_rows(answer: dict[str, set[int]]) -> bool:
    """Exercise 4.2: for each optimizer, the set of rows that the SECOND step changes."""
    require(isinstance(answer, dict),
            f"answer must be a dict from optimizer name to a set of rows, got {type(answer).__name__}")
    missing = [name for name in MOVED_EXERCISE_OPTIMIZERS if name not in answer]
    require(not missing, f"answer is missing {missing}; expected the keys {list(MOVED_EXERCISE_OPTIMIZERS)}")
    for name, (_, why) in MOVED_EXERCISE_OPTIMIZERS.items():
        rows = answer[name]
        require(isinstance(rows, (set, frozenset, list, tuple)),
                f"answer[{name!r}] must be a set of row ids, got {type(rows).__name__}")
        require(set(rows) == _moved_rows_in_second_step(name),
                f"{name}: rows {sorted(rows)} are not the rows that step 2 moves. Hint: {why}")
    return correct("your four predictions match the rows each optimizer moved in the checker's own run")


#: Exercise 4.3's cases: the ids each sparse gradient comes from, and the number of rows of its table
LOOKUP_COUNT_CASES = (((3, 1, 3, 7, 1, 3), 9), ((5,), 6), ((0, 0, 0, 0), 4))


def _sparse_grad(ids: tuple[int, ...], num_rows: int, seed: int) -> torch.Tensor:
    """The gradient of a ``sparse=True`` embedding of ``num_rows`` rows after one lookup of ``ids``, as
    ``backward()`` leaves it: uncoalesced, one entry per position. Its values come from a seeded ``grad_out``,
    so they say nothing about the counts."""
    embedding = torch.nn.Embedding.from_pretrained(torch.ones(num_rows, 3), freeze=False, sparse=True)
    embedding(torch.tensor(ids)).backward(torch.randn(len(ids), 3, generator=torch.Generator().manual_seed(seed)))
    return embedding.weight.grad


def check_lookup_counts(lookup_counts: Callable[[torch.Tensor, int], torch.Tensor]) -> bool:
    """Exercise 4.3: ``lookup_counts(sparse_grad, num_rows)`` -> int64 ``(num_rows,)``: how many times each row
    was looked up, read from the uncoalesced gradient of a ``sparse=True`` embedding.

    The checker calls it on sparse gradients of its own (``LOOKUP_COUNT_CASES``) and counts the ids itself.
    """
    require_function("lookup_counts", lookup_counts)
    for seed, (ids, num_rows) in enumerate(LOOKUP_COUNT_CASES):
        expected = torch.bincount(torch.tensor(ids), minlength=num_rows)
        try:
            got = lookup_counts(_sparse_grad(ids, num_rows, seed), num_rows)
        except RuntimeError as error:
            raise ExerciseError(
                f"lookup_counts raised RuntimeError: {str(error).splitlines()[0]}. Hint: indices() works only on a "
                "coalesced tensor, and coalescing merges the repeated entries you want to count; section 4 read "
                "the entries as backward() left them"
            ) from error
        require(isinstance(got, torch.Tensor) and got.dtype == torch.long,
                f"lookup_counts returned {type(got).__name__}"
                + (f" of dtype {got.dtype}" if isinstance(got, torch.Tensor) else "")
                + "; return an int64 torch.Tensor of counts")
        got = got.detach().cpu()
        require(tuple(got.shape) == (num_rows,), f"for a table of {num_rows} rows you returned shape "
                f"{tuple(got.shape)}; return one count per row, (num_rows,), with 0 for a row never looked up")
        why = hint([(torch.equal(got, (expected > 0).long()),
                     "these count each row once: coalesce() merged the repeated entries. Count the entries before "
                     "coalescing, one per position that looked a row up")],
                   "the gradient as backward() leaves it holds one entry per position, and each names its row")
        require(torch.equal(got, expected), f"for a lookup of ids {list(ids)} in a table of {num_rows} rows, your "
                f"counts {got.tolist()} are off. Hint: {why}")
    return correct("lookup_counts counted the lookups of every row, rows never looked up included, for the "
                   "checker's 3 sparse gradients")


#: Exercise 4.4's experiment: a (6, 4) table from this seed, rows DECAY_EXERCISE_IDS looked up at every
#: step of the loss sum(E(ids)**2), row 0 never; Adam and AdamW with the same lr and weight_decay
DECAY_EXERCISE_SEED = 4
DECAY_EXERCISE_IDS = (1, 4)
DECAY_EXERCISE_STEPS = 10
DECAY_EXERCISE_LR = 0.01
DECAY_EXERCISE_WEIGHT_DECAY = 0.1
#: the settings (lr, weight_decay, steps) at which the checker calls the learner's function: the
#: exercise's own, then one of the checker's
DECAY_EXERCISE_SETTINGS = ((DECAY_EXERCISE_LR, DECAY_EXERCISE_WEIGHT_DECAY, DECAY_EXERCISE_STEPS), (0.05, 0.1, 3))
_DECAY_OPTIMIZERS = {"torch.optim.Adam": torch.optim.Adam, "torch.optim.AdamW": torch.optim.AdamW}
#: how close Exercise 4.4's predicted ratio must come to the measured one (relative)
DECAY_PREDICTION_TOLERANCE = 0.25


def _never_seen_row_distance(optimizer_class: type[torch.optim.Optimizer], lr: float, weight_decay: float,
                             steps: int) -> float:
    """How far ``steps`` steps of ``optimizer_class`` move row 0, never looked up, of Exercise 4.4's table
    (``(6, 4)``, N(0, 1) from ``DECAY_EXERCISE_SEED``)."""
    start = torch.randn(6, 4, generator=torch.Generator().manual_seed(DECAY_EXERCISE_SEED))
    table = torch.nn.Embedding.from_pretrained(start.clone(), freeze=False)
    optimizer = optimizer_class(table.parameters(), lr=lr, weight_decay=weight_decay)
    for _ in range(steps):
        optimizer.zero_grad()
        table(torch.tensor(DECAY_EXERCISE_IDS)).pow(2).sum().backward()
        optimizer.step()
    return float((table.weight.detach()[0] - start[0]).norm())


def _distance(call: str, value: object) -> float:
    value = as_number(call, value, "a distance, e.g. from `.norm().item()`")
    if not value >= 0 or value == float("inf"):
        raise ValueError(f"{call} must return a finite distance >= 0, got {value}")
    return value


def check_row_0_distance(predicted_ratio: float,
                         row_0_distance: Callable[[type[torch.optim.Optimizer], float, float, int], float]) -> bool:
    """Exercise 4.4: ``predicted_ratio``, recorded first: how many times farther Adam with weight_decay moves
    row 0 than AdamW at the exercise's settings; then ``row_0_distance(optimizer_class, lr, weight_decay,
    steps)``: how far ``steps`` steps of ``optimizer_class(..., lr=lr, weight_decay=weight_decay)`` move row 0
    of the table ``decay_start``, never looked up, as a Euclidean distance.

    The checker calls it with ``torch.optim.Adam`` and ``torch.optim.AdamW`` at ``DECAY_EXERCISE_SETTINGS`` and
    runs the same experiments itself; the prediction must be within 25% of the measured ratio.
    ``TypeError``/``ValueError`` for a result that is not a distance or a prediction that is not a number.
    """
    predicted_ratio = as_number("predicted_ratio", predicted_ratio, "your prediction, a ratio")
    require_function("row_0_distance", row_0_distance)
    exercise = DECAY_EXERCISE_SETTINGS[0]
    runs = product(DECAY_EXERCISE_SETTINGS, _DECAY_OPTIMIZERS.items())
    for n, (settings, (name, optimizer_class)) in enumerate(runs):
        call = "row_0_distance({}, lr={}, weight_decay={}, steps={})".format(name, *settings)
        got = _distance(call, row_0_distance(optimizer_class, *settings))
        require(n or _distance(call, row_0_distance(optimizer_class, *settings)) == got,  # the first run, twice
                f"{call} gave two different distances when called twice: your function changes decay_start. "
                "Hint: train a copy, decay_start.clone()")
        expected = _never_seen_row_distance(optimizer_class, *settings)
        why = hint([
            (got == 0, "a distance of 0. Row 0 has no gradient of its own, so only weight decay moves it: pass "
                       "weight_decay to the optimizer. And train a copy, decay_start.clone(): from_pretrained "
                       "shares the tensor it is given, so row 0 and decay_start[0] would move together"),
            (settings[2] > 1 and within(got, _never_seen_row_distance(optimizer_class, *settings[:2], 1), 1e-3),
             "that is how far row 0 moves in one step; take `steps` steps"),
            (settings != exercise and within(got, _never_seen_row_distance(optimizer_class, *exercise), 1e-3),
             "that is the distance at the exercise's settings: use the arguments lr, weight_decay and steps"),
        ], "start from decay_start.clone(), take `steps` steps of E(decay_ids).pow(2).sum(), then measure "
           "(weight[0] - decay_start[0]).norm()")
        require(within(got, expected, 1e-3), f"{call} returned a distance that is off. Hint: {why}")
    measured = (_never_seen_row_distance(torch.optim.Adam, *exercise)
                / _never_seen_row_distance(torch.optim.AdamW, *exercise))
    below = predicted_ratio < measured
    require(within(predicted_ratio, measured, DECAY_PREDICTION_TOLERANCE),
            f"your function is right, but your predicted_ratio, {predicted_ratio:.4g}, is off by more than "
            f"{DECAY_PREDICTION_TOLERANCE:.0%} ({'below' if below else 'above'} the measured ratio). Hint: "
            + ("Adam divides the decay term weight_decay * w by its own size, so each entry of row 0 moves by about "
               "lr a step, however small weight_decay is" if below else
               "AdamW moves each weight by lr * weight_decay * w a step: in proportion to the weight, not zero"))
    return correct("row_0_distance matches the checker's own runs of Adam with weight_decay and of AdamW, at the "
                   "exercise's settings and at another, and your predicted ratio is within 25% of the measured one")
