"""Notebook 4, gradients, what training touches: the checkers of its exercises."""

from __future__ import annotations

from collections.abc import Callable

import torch

from .checking import ExerciseError, as_number, correct

#: Exercise 4.1's ids: id 2 three times, id 0 once, id 5 once, in a vocabulary of 7
GRAD_EXERCISE_IDS = (2, 0, 2, 2, 5)
GRAD_EXERCISE_VOCAB = 7


def check_embedding_grad(grad: torch.Tensor, grad_out: torch.Tensor) -> bool:
    """Exercise 4.1: the embedding weight's gradient for ``GRAD_EXERCISE_IDS``, computed without autograd.

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
    table = torch.nn.Embedding.from_pretrained(grad_out.new_zeros(expected_shape), freeze=False)
    table(ids).backward(grad_out)
    expected = table.weight.grad  # the gradient autograd computes
    if torch.allclose(grad, expected, rtol=1e-6, atol=1e-6):
        return correct("your gradient equals the one autograd computes for these ids and grad_out, "
                       "within float32 rounding")
    assigned = torch.zeros_like(expected)
    assigned[ids] = grad_out
    if torch.equal(grad, assigned) or torch.allclose(grad[2], grad_out[3]):
        raise ExerciseError(
            "row 2 holds only one of the three gradient rows of the positions that looked it up. Hint: "
            "`grad[ids] = grad_out` keeps one of the repeated rows; add them up with "
            "`grad.index_add_(0, ids, grad_out)` or `one_hot(ids, V).T @ grad_out`"
        )
    untouched = [v for v in range(GRAD_EXERCISE_VOCAB) if v not in GRAD_EXERCISE_IDS]
    if bool(grad[untouched].ne(0).any()):
        raise ExerciseError(f"rows {untouched} are never looked up, so their gradient must be exactly 0")
    raise ExerciseError(
        "the gradient differs from one_hot(ids, V).T @ grad_out. Hint: row v is the sum of the rows of "
        "grad_out at the positions t where ids[t] == v"
    )


#: Exercise 4.2's scenario: two steps of a loss sum(E(ids)**2) on ids STEP_1, then STEP_2
MOVED_EXERCISE_STEPS = ((0, 4), (1, 4))
MOVED_EXERCISE_VOCAB = 6
MOVED_EXERCISE_OPTIMIZERS = ("SGD", "SGD with momentum", "Adam", "AdamW")


def _moved_rows_in_second_step(name: str) -> set[int]:
    weight = torch.randn(MOVED_EXERCISE_VOCAB, 3, generator=torch.Generator().manual_seed(0))
    embedding = torch.nn.Embedding.from_pretrained(weight, freeze=False)
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
        "SGD": "plain SGD moves a row only when that row has a gradient in this step",
        "SGD with momentum": "the momentum buffer remembers rows from the first step; rows never looked up have "
                             "a zero buffer",
        "Adam": "Adam's first moment remembers rows from the first step; rows never looked up have zero moments, "
                "so their update is 0 / (sqrt(0) + eps) = 0",
        "AdamW": "AdamW's decoupled weight decay shrinks every row by lr * weight_decay * w, looked up or not",
    }
    for name in MOVED_EXERCISE_OPTIMIZERS:
        got = answer[name]
        if not isinstance(got, (set, frozenset, list, tuple)):
            raise ExerciseError(f"answer[{name!r}] must be a set of row ids, got {type(got).__name__}")
        expected = _moved_rows_in_second_step(name)
        if set(got) != expected:
            raise ExerciseError(f"{name}: you said rows {sorted(got)}, but rows {sorted(expected)} move. "
                                f"Hint: {hints[name]}")
    return correct("your four predictions match the rows each optimizer moved in the checker's own run")


def check_touched_rows(touched_rows: Callable[[torch.Tensor], torch.Tensor]) -> bool:
    """Exercise 4.3: ``touched_rows(sparse_grad)`` -> sorted int64 tensor of the distinct rows it holds."""
    if not callable(touched_rows):
        raise ExerciseError(f"pass your function itself, not its result; got {type(touched_rows).__name__}")
    cases = [((3, 1, 3, 7, 1), 9), ((5,), 6), ((0, 0, 0), 4)]
    for ids, vocab in cases:
        embedding = torch.nn.Embedding.from_pretrained(torch.ones(vocab, 2), freeze=False, sparse=True)
        embedding(torch.tensor(ids)).sum().backward()
        grad = embedding.weight.grad  # uncoalesced: one entry per position, duplicates included
        expected = torch.tensor(sorted(set(ids)))
        try:
            got = touched_rows(grad)
        except RuntimeError as error:
            raise ExerciseError(
                f"touched_rows raised RuntimeError: {str(error).splitlines()[0]}. Hint: the gradient of a lookup "
                "with repeated ids is uncoalesced; call grad.coalesce() before grad.indices()"
            ) from error
        if not isinstance(got, torch.Tensor) or got.dtype != torch.long:
            raise ExerciseError("return an int64 torch.Tensor of row ids (grad.indices() has one)")
        if not torch.equal(got.flatten().cpu(), expected):
            raise ExerciseError(
                f"for ids {list(ids)} you returned {got.tolist()}, expected {expected.tolist()}. Hint: coalesce "
                "first (it sums duplicate entries and sorts them), then take row 0 of the indices"
            )
    return correct("touched_rows returned the distinct rows, sorted, for the checker's 3 sparse gradients")


#: Exercise 4.4's experiment: a (6, 4) table from this seed, rows DECAY_EXERCISE_IDS looked up at every
#: step of the loss sum(E(ids)**2), row 0 never; Adam and AdamW with the same lr and weight_decay
DECAY_EXERCISE_SEED = 4
DECAY_EXERCISE_IDS = (1, 4)
DECAY_EXERCISE_STEPS = 10
DECAY_EXERCISE_LR = 0.01
DECAY_EXERCISE_WEIGHT_DECAY = 0.01


def _decay_exercise_start() -> torch.Tensor:
    """Exercise 4.4's table before training: ``(6, 4)``, N(0, 1) from ``DECAY_EXERCISE_SEED``."""
    return torch.randn(6, 4, generator=torch.Generator().manual_seed(DECAY_EXERCISE_SEED))


def _never_seen_row_distance(optimizer_name: str, steps: int = DECAY_EXERCISE_STEPS) -> float:
    """How far ``steps`` steps of ``"Adam"`` (L2 weight decay) or ``"AdamW"`` move row 0, never looked up."""
    start = _decay_exercise_start()
    table = torch.nn.Embedding.from_pretrained(start.clone(), freeze=False)
    optimizer_class = {"Adam": torch.optim.Adam, "AdamW": torch.optim.AdamW}[optimizer_name]
    optimizer = optimizer_class(table.parameters(), lr=DECAY_EXERCISE_LR, weight_decay=DECAY_EXERCISE_WEIGHT_DECAY)
    ids = torch.tensor(DECAY_EXERCISE_IDS)
    for _ in range(steps):
        optimizer.zero_grad()
        table(ids).pow(2).sum().backward()
        optimizer.step()
    return float((table.weight.detach()[0] - start[0]).norm())


def _distance(name: str, value: object) -> float:
    value = as_number(name, value, "a distance, e.g. from `.norm().item()`")
    if not value >= 0 or value == float("inf"):
        raise ValueError(f"{name} must be a finite distance >= 0, got {value}")
    return float(value)


def check_decay_distances(adam_l2_distance: float, adamw_distance: float) -> bool:
    """Exercise 4.4: how far row 0, never looked up, moves in 10 steps of Adam with ``weight_decay`` and of AdamW.

    Both distances are Euclidean, between row 0 before and after the 10 steps; the checker runs the
    experiment itself. ``TypeError``/``ValueError`` for something that is not a distance.
    """
    adam_l2_distance = _distance("adam_l2_distance", adam_l2_distance)
    adamw_distance = _distance("adamw_distance", adamw_distance)
    expected_adam, expected_adamw = _never_seen_row_distance("Adam"), _never_seen_row_distance("AdamW")

    def near(got: float, expected: float) -> bool:
        return abs(got - expected) <= 1e-3 * expected

    if near(adam_l2_distance, expected_adam) and near(adamw_distance, expected_adamw):
        return correct("both distances match the checker's own 10-step runs of Adam with weight_decay and of AdamW")
    if near(adam_l2_distance, expected_adamw) and near(adamw_distance, expected_adam):
        raise ExerciseError("the two distances are swapped: the larger one is Adam's (L2), the smaller AdamW's")
    one_step = {"Adam": _never_seen_row_distance("Adam", 1), "AdamW": _never_seen_row_distance("AdamW", 1)}
    if near(adam_l2_distance, one_step["Adam"]) or near(adamw_distance, one_step["AdamW"]):
        raise ExerciseError(f"that is how far row 0 moves in one step; take {DECAY_EXERCISE_STEPS} steps, starting "
                            "each optimizer from the same table")
    if adam_l2_distance == 0 or adamw_distance == 0:
        raise ExerciseError("a distance of 0: row 0 has no gradient of its own, so only weight decay moves it. Hint: "
                            f"pass weight_decay={DECAY_EXERCISE_WEIGHT_DECAY} to both optimizers, and measure row 0")
    name, got, expected = next(
        (name, got, expected) for name, got, expected in (("Adam", adam_l2_distance, expected_adam),
                                                          ("AdamW", adamw_distance, expected_adamw))
        if not near(got, expected)
    )
    raise ExerciseError(
        f"{name}: you found {got:.6g}, expected {expected:.6g}. Hint: start from decay_start.clone(), take "
        f"{DECAY_EXERCISE_STEPS} steps of sum(E(decay_ids)**2) with lr={DECAY_EXERCISE_LR} and "
        f"weight_decay={DECAY_EXERCISE_WEIGHT_DECAY}, then (weight[0] - decay_start[0]).norm()"
    )
