"""Notebook 4, gradients, what training touches: the checkers of its exercises."""

from __future__ import annotations

from collections.abc import Callable

import torch

from .checking import ExerciseError, as_number, correct, require_function

#: Exercise 4.1's ids: id 2 three times, id 0 once, id 5 once, in a vocabulary of 7
GRAD_EXERCISE_IDS = (2, 0, 2, 2, 5)
GRAD_EXERCISE_VOCAB = 7


def check_embedding_grad(grad: torch.Tensor, grad_out: torch.Tensor) -> bool:
    """Exercise 4.1: the weight's gradient of an embedding with ``scale_grad_by_freq=True`` for
    ``GRAD_EXERCISE_IDS``, computed without autograd.

    ``grad_out``: ``(5, d)``, the gradient of the lookup's output; ``grad``: ``(7, d)``.
    """
    ids = torch.tensor(GRAD_EXERCISE_IDS)
    if not isinstance(grad, torch.Tensor):
        raise ExerciseError(f"grad must be a torch.Tensor, got {type(grad).__name__}")
    grad_out = grad_out.detach().cpu()
    expected_shape = (GRAD_EXERCISE_VOCAB, grad_out.shape[1])
    if tuple(grad.shape) != expected_shape:
        raise ExerciseError(
            f"grad has shape {tuple(grad.shape)}, expected {expected_shape}: the gradient of the weight has "
            "the weight's shape [V, d], one row per token id (not one per position)"
        )
    grad = grad.detach().cpu().to(grad_out.dtype)
    table = torch.nn.Embedding.from_pretrained(grad_out.new_zeros(expected_shape), freeze=False,
                                               scale_grad_by_freq=True)
    table(ids).backward(grad_out)
    expected = table.weight.grad  # the gradient autograd computes
    if torch.allclose(grad, expected, rtol=1e-6, atol=1e-6):
        return correct("your gradient equals the one autograd computes with scale_grad_by_freq=True for these "
                       "ids and grad_out, within float32 rounding")
    unscaled = torch.zeros_like(expected).index_add_(0, ids, grad_out)
    if torch.allclose(grad, unscaled, rtol=1e-6, atol=1e-6):
        raise ExerciseError("that is the gradient without scale_grad_by_freq. Hint: 'the inverse of frequency' "
                            "is counted in this batch of ids: a row looked up 3 times is divided by 3")
    assigned = torch.zeros_like(expected)
    assigned[ids] = grad_out
    if torch.equal(grad, assigned) or torch.allclose(grad[2], grad_out[3]) or torch.allclose(grad[2], grad_out[3] / 3):
        raise ExerciseError(
            "row 2 holds only one of the three gradient rows of the positions that looked it up. Hint: "
            "`grad[ids] = grad_out` keeps one of the repeated rows; add them up with "
            "`grad.index_add_(0, ids, grad_out)` or `one_hot(ids, V).T @ grad_out`, then divide by the counts"
        )
    untouched = [v for v in range(GRAD_EXERCISE_VOCAB) if v not in GRAD_EXERCISE_IDS]
    if bool(grad[untouched].ne(0).any()):
        raise ExerciseError(f"rows {untouched} are never looked up, so their gradient must be exactly 0")
    raise ExerciseError(
        "the gradient differs from autograd's. Hint: row v is the sum of the rows of grad_out at the "
        "positions t where ids[t] == v, divided by how many such positions there are"
    )


#: Exercise 4.2's scenario: a table with padding_idx=0 whose row 0 is not zero, two steps of a loss
#: sum(E(ids)**2) on ids STEP_1, then STEP_2
MOVED_EXERCISE_STEPS = ((0, 4), (1, 0))
MOVED_EXERCISE_VOCAB = 6
MOVED_EXERCISE_OPTIMIZERS = ("SGD", "SGD with momentum", "Adam", "AdamW")


def _moved_rows_in_second_step(name: str) -> set[int]:
    weight = torch.randn(MOVED_EXERCISE_VOCAB, 3, generator=torch.Generator().manual_seed(0))
    embedding = torch.nn.Embedding.from_pretrained(weight, freeze=False, padding_idx=0)  # row 0 stays non-zero
    params = embedding.parameters()
    optimizer = {
        "SGD": lambda: torch.optim.SGD(params, lr=0.1),
        "SGD with momentum": lambda: torch.optim.SGD(params, lr=0.1, momentum=0.9),
        "Adam": lambda: torch.optim.Adam(params, lr=0.1),
        "AdamW": lambda: torch.optim.AdamW(params, lr=0.1, weight_decay=0.01),
    }[name]()
    before = embedding.weight.detach().clone()
    for step_ids in MOVED_EXERCISE_STEPS:
        before = embedding.weight.detach().clone()
        optimizer.zero_grad()
        embedding(torch.tensor(step_ids)).pow(2).sum().backward()
        optimizer.step()
    return set((embedding.weight.detach() != before).any(dim=1).nonzero().flatten().tolist())


def check_moved_rows(answer: dict[str, set[int]]) -> bool:
    """Exercise 4.2: for each optimizer, the set of rows that the SECOND step changes."""
    if not isinstance(answer, dict):
        raise ExerciseError(f"answer must be a dict from optimizer name to a set of rows, got {type(answer).__name__}")
    missing = [name for name in MOVED_EXERCISE_OPTIMIZERS if name not in answer]
    if missing:
        raise ExerciseError(f"answer is missing {missing}; expected the keys {list(MOVED_EXERCISE_OPTIMIZERS)}")
    hints = {
        "SGD": "plain SGD moves a row only when that row has a non-zero gradient in this step; padding_idx "
               "zeroes one row's gradient, however often it is looked up",
        "SGD with momentum": "the momentum buffer remembers rows from the first step; a row whose gradient "
                             "was always zero has a zero buffer",
        "Adam": "Adam's first moment remembers rows from the first step; a row whose gradient was always zero "
                "has zero moments, so its update is 0 / (sqrt(0) + eps) = 0",
        "AdamW": "AdamW's decoupled weight decay shrinks every non-zero row by lr * weight_decay * w, looked up "
                 "or not, whatever its gradient",
    }
    for name in MOVED_EXERCISE_OPTIMIZERS:
        got = answer[name]
        if not isinstance(got, (set, frozenset, list, tuple)):
            raise ExerciseError(f"answer[{name!r}] must be a set of row ids, got {type(got).__name__}")
        expected = _moved_rows_in_second_step(name)
        if set(got) != expected:
            raise ExerciseError(f"{name}: rows {sorted(got)} are not the rows that step 2 moves. Hint: {hints[name]}")
    return correct("your four predictions match the rows each optimizer moved in the checker's own run")


#: Exercise 4.3's cases: the ids each sparse gradient comes from, and the number of rows of its table
LOOKUP_COUNT_CASES = (((3, 1, 3, 7, 1, 3), 9), ((5,), 6), ((0, 0, 0, 0), 4))


def _sparse_grad(ids: tuple[int, ...], num_rows: int, seed: int) -> torch.Tensor:
    """The gradient of a ``sparse=True`` embedding of ``num_rows`` rows after one lookup of ``ids``, as
    ``backward()`` leaves it: uncoalesced, one entry per position. Its values come from a seeded ``grad_out``,
    so they say nothing about the counts."""
    embedding = torch.nn.Embedding.from_pretrained(torch.ones(num_rows, 3), freeze=False, sparse=True)
    grad_out = torch.randn(len(ids), 3, generator=torch.Generator().manual_seed(seed))
    embedding(torch.tensor(ids)).backward(grad_out)
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
        if not isinstance(got, torch.Tensor) or got.dtype != torch.long:
            raise ExerciseError(f"lookup_counts returned {type(got).__name__}"
                                + (f" of dtype {got.dtype}" if isinstance(got, torch.Tensor) else "")
                                + "; return an int64 torch.Tensor of counts")
        got = got.detach().cpu()
        if tuple(got.shape) != (num_rows,):
            raise ExerciseError(f"for a table of {num_rows} rows you returned shape {tuple(got.shape)}; return one "
                                "count per row, (num_rows,), with 0 for a row never looked up")
        if torch.equal(got, expected):
            continue
        if torch.equal(got, (expected > 0).long()):
            hint = ("these count each row once: coalesce() merged the repeated entries. Count the entries before "
                    "coalescing, one per position that looked a row up")
        else:
            hint = "the gradient as backward() leaves it holds one entry per position, and each names its row"
        raise ExerciseError(f"for a lookup of ids {list(ids)} in a table of {num_rows} rows, your counts "
                            f"{got.tolist()} are off. Hint: {hint}")
    return correct("lookup_counts counted the lookups of every row, rows never looked up included, for the "
                   "checker's 3 sparse gradients")


#: Exercise 4.4's experiment: a (6, 4) table from this seed, rows DECAY_EXERCISE_IDS looked up at every
#: step of the loss sum(E(ids)**2), row 0 never; Adam and AdamW with the same lr and weight_decay
DECAY_EXERCISE_SEED = 4
DECAY_EXERCISE_IDS = (1, 4)
DECAY_EXERCISE_STEPS = 10
DECAY_EXERCISE_LR = 0.01
DECAY_EXERCISE_WEIGHT_DECAY = 0.1


def _decay_exercise_start() -> torch.Tensor:
    """Exercise 4.4's table before training: ``(6, 4)``, N(0, 1) from ``DECAY_EXERCISE_SEED``."""
    return torch.randn(6, 4, generator=torch.Generator().manual_seed(DECAY_EXERCISE_SEED))


#: the settings (lr, weight_decay, steps) at which the checker calls the learner's function: the
#: exercise's own, then one of the checker's
DECAY_EXERCISE_SETTINGS = ((DECAY_EXERCISE_LR, DECAY_EXERCISE_WEIGHT_DECAY, DECAY_EXERCISE_STEPS), (0.05, 0.1, 3))
_DECAY_OPTIMIZERS = {"torch.optim.Adam": torch.optim.Adam, "torch.optim.AdamW": torch.optim.AdamW}


def _never_seen_row_distance(optimizer_class: type[torch.optim.Optimizer], lr: float, weight_decay: float,
                             steps: int) -> float:
    """How far ``steps`` steps of ``optimizer_class`` move row 0, never looked up, of Exercise 4.4's table."""
    start = _decay_exercise_start()
    table = torch.nn.Embedding.from_pretrained(start.clone(), freeze=False)
    optimizer = optimizer_class(table.parameters(), lr=lr, weight_decay=weight_decay)
    ids = torch.tensor(DECAY_EXERCISE_IDS)
    for _ in range(steps):
        optimizer.zero_grad()
        table(ids).pow(2).sum().backward()
        optimizer.step()
    return float((table.weight.detach()[0] - start[0]).norm())


def _distance(call: str, value: object) -> float:
    value = as_number(call, value, "a distance, e.g. from `.norm().item()`")
    if not value >= 0 or value == float("inf"):
        raise ValueError(f"{call} must return a finite distance >= 0, got {value}")
    return float(value)


#: how close Exercise 4.4's predicted ratio must come to the measured one (relative)
DECAY_PREDICTION_TOLERANCE = 0.25


def _check_ratio_prediction(predicted_ratio: float) -> None:
    """Exercise 4.4's prediction, recorded before the measurement: Adam's distance over AdamW's, within 25%."""
    measured = (_never_seen_row_distance(torch.optim.Adam, *DECAY_EXERCISE_SETTINGS[0])
                / _never_seen_row_distance(torch.optim.AdamW, *DECAY_EXERCISE_SETTINGS[0]))
    if abs(predicted_ratio / measured - 1) <= DECAY_PREDICTION_TOLERANCE:
        return
    if predicted_ratio < measured:
        hint = ("Adam divides the decay term weight_decay * w by its own size, so each entry of row 0 moves by "
                "about lr a step, however small weight_decay is")
    else:
        hint = "AdamW moves each weight by lr * weight_decay * w a step: in proportion to the weight, not zero"
    raise ExerciseError(f"your function is right, but your predicted_ratio, {predicted_ratio:.4g}, is off by more "
                        f"than {DECAY_PREDICTION_TOLERANCE:.0%} ({'below' if predicted_ratio < measured else 'above'}"
                        f" the measured ratio). Hint: {hint}")


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

    def near(got: float, expected: float) -> bool:
        return abs(got - expected) <= 1e-3 * expected

    first = None
    for lr, weight_decay, steps in DECAY_EXERCISE_SETTINGS:
        for name, optimizer_class in _DECAY_OPTIMIZERS.items():
            call = f"row_0_distance({name}, lr={lr}, weight_decay={weight_decay}, steps={steps})"
            got = _distance(call, row_0_distance(optimizer_class, lr, weight_decay, steps))
            if first is None:
                first = got
                again = _distance(call, row_0_distance(optimizer_class, lr, weight_decay, steps))
                if again != first:
                    raise ExerciseError(f"{call} gave two different distances when called twice: your function "
                                        "changes decay_start. Hint: train a copy, decay_start.clone()")
            expected = _never_seen_row_distance(optimizer_class, lr, weight_decay, steps)
            if near(got, expected):
                continue
            if got == 0:
                hint = ("a distance of 0. Row 0 has no gradient of its own, so only weight decay moves it: pass "
                        "weight_decay to the optimizer. And train a copy, decay_start.clone(): from_pretrained "
                        "shares the tensor it is given, so row 0 and decay_start[0] would move together")
            elif near(got, _never_seen_row_distance(optimizer_class, lr, weight_decay, 1)) and steps > 1:
                hint = "that is how far row 0 moves in one step; take `steps` steps"
            elif (lr, weight_decay, steps) != DECAY_EXERCISE_SETTINGS[0] and near(
                    got, _never_seen_row_distance(optimizer_class, *DECAY_EXERCISE_SETTINGS[0])):
                hint = "that is the distance at the exercise's settings: use the arguments lr, weight_decay and steps"
            else:
                hint = ("start from decay_start.clone(), take `steps` steps of E(decay_ids).pow(2).sum(), then "
                        "measure (weight[0] - decay_start[0]).norm()")
            raise ExerciseError(f"{call} returned a distance that is off. Hint: {hint}")
    _check_ratio_prediction(predicted_ratio)
    return correct("row_0_distance matches the checker's own runs of Adam with weight_decay and of AdamW, at the "
                   "exercise's settings and at another, and your predicted ratio is within 25% of the measured one")
