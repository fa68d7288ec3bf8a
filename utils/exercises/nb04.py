"""Notebook 4, gradients, what training touches: the checkers of its exercises."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

from ..language import N_, _
from .checking import (
    AnswerValueError,
    ExerciseError,
    answered,
    as_number,
    correct,
    hint,
    looked_up_rows,
    prediction,
    refusing_embedding_functions,
    require,
    require_function,
    require_keys,
    require_tensor,
    within,
    writes,
)

#: Exercise 4.1's ids, in a vocabulary of 7: id 2 three times, id 0 once, id 5 once. They go through the layer as
#: two batches, the first GRAD_EXERCISE_SPLIT ids then the rest: two backward() calls, no zero_grad() between
GRAD_EXERCISE_IDS = (2, 0, 2, 2, 5)
GRAD_EXERCISE_SPLIT = 3
GRAD_EXERCISE_VOCAB = 7


def _scaled_grad(ids: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    """The weight's gradient of one backward() call of a ``scale_grad_by_freq=True`` embedding, from autograd."""
    table = torch.nn.Embedding.from_pretrained(grad_out.new_zeros(GRAD_EXERCISE_VOCAB, grad_out.shape[1]),
                                               freeze=False, scale_grad_by_freq=True)
    table(ids).backward(grad_out)
    return table.weight.grad


def check_embedding_grad(grad: torch.Tensor, grad_out: torch.Tensor) -> None:
    """Exercise 4.1: the weight's gradient of an embedding with ``scale_grad_by_freq=True`` after two backward()
    calls without zero_grad() between, for ``GRAD_EXERCISE_IDS`` split at ``GRAD_EXERCISE_SPLIT``, computed
    without autograd. Each call counts the ids of its own batch: row 2 is ``(g0 + g2) / 2 + g3``.

    ``grad_out``: ``(5, d)``, the gradient of the lookups' outputs, the two calls' rows in order; ``grad``: ``(7, d)``.
    """
    if not answered(my_grad=grad):
        return
    ids = torch.tensor(GRAD_EXERCISE_IDS)
    grad_out = grad_out.detach().cpu()
    shape = (GRAD_EXERCISE_VOCAB, grad_out.shape[1])
    grad = require_tensor("grad", grad, shape, _(": the gradient of the weight has the weight's shape [V, d], one "
                                                  "row per token id (not one per position)")).to(grad_out.dtype)
    split = GRAD_EXERCISE_SPLIT
    calls = [_scaled_grad(ids[:split], grad_out[:split]), _scaled_grad(ids[split:], grad_out[split:])]
    if torch.allclose(grad, calls[0] + calls[1], rtol=1e-6, atol=1e-6):  # what autograd accumulates
        return correct(_("your gradient equals the one autograd accumulates over the two calls with "
                          "scale_grad_by_freq=True, for these ids and grad_out, within float32 rounding"))
    unscaled = grad_out.new_zeros(shape).index_add_(0, ids, grad_out)
    assigned = grad_out.new_zeros(shape).index_put_((ids,), grad_out)  # the last of the repeated rows wins
    untouched = [v for v in range(GRAD_EXERCISE_VOCAB) if v not in GRAD_EXERCISE_IDS]

    def close(other: torch.Tensor) -> bool:
        return torch.allclose(grad, other, rtol=1e-6, atol=1e-6)

    raise ExerciseError(hint([
        (close(_scaled_grad(ids, grad_out)),
         _("that is the gradient of one call on all five ids. Hint: each backward() counts the ids of its own "
            "batch, and .grad adds the two calls' gradients")),
        (close(unscaled),
         _("that is the gradient without scale_grad_by_freq. Hint: in each call, a row looked up k times in that "
            "call's batch is divided by k")),
        (close(calls[0]) or close(calls[1]),
         _("that is one call's gradient alone. Hint: without zero_grad() between them, the second backward() adds "
            "its gradient to the first's")),
        (torch.equal(grad, assigned) or any(torch.allclose(grad[2], row) for row in (grad_out[3], grad_out[3] / 3)),
         _("row 2 holds only one of the three gradient rows of the positions that looked it up. Hint: `grad[ids] = "
            "grad_out` keeps one of the repeated rows; add them up with `grad.index_add_(0, ids, grad_out)` or "
            "`one_hot(ids, V).T @ grad_out`, then divide by the counts")),
        (bool(grad[untouched].ne(0).any()),
         _("rows {untouched} are never looked up, so their gradient must be exactly 0").format(untouched=untouched)),
    ], _("the gradient differs from autograd's. Hint: in each call, row v is the sum of the rows of grad_out at the "
          "positions where that call's ids hold v, divided by how many there are; then add the two calls")))


#: Exercise 4.2: the layers the checker builds from the learner's class, ``(V, d)``, and their padding id
_PADDED_SIZE, _PADDING = (7, 3), 2


@writes("MyEmbedding.forward")
def check_padding_gradient(cls: object) -> None:
    """Exercise 4.2: notebook 3's ``MyEmbedding(num_embeddings, embedding_dim, padding_idx=None)`` (a registered
    ``weight`` ``[V, d]``, its padding row zero), whose ``forward(ids)`` returns ``weight[ids]`` without
    ``F.embedding`` and sends a **zero gradient** to the padding row, however often it is looked up; every other row
    looked up gets its gradient, as with ``nn.Embedding(..., padding_idx=...)``.

    The checker builds layers of its own from the class, and leaves the random state as it found it. After the
    plain case it sets the padding row to ones (a loaded or decayed table may hold one) and sends ``inf`` back
    from the padding positions: ``nn.Embedding`` returns that row as it is and keeps its gradient at 0, so an
    answer that multiplies the padding positions by 0 fails here (a wrong output, or ``0 · inf`` = NaN).
    """
    require(not isinstance(cls, nn.Module), _("pass the class itself (MyEmbedding, not MyEmbedding(...)): the "
                                               "checker builds layers of its own sizes from it"))
    require(isinstance(cls, type) and issubclass(cls, nn.Module),
            _("expected your nn.Module subclass, got {type}").format(type=type(cls).__name__))
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        plain = cls(*_PADDED_SIZE)
        try:
            padded = cls(*_PADDED_SIZE, padding_idx=_PADDING)
        except TypeError as error:
            raise ExerciseError(_("MyEmbedding(7, 3, padding_idx=2) raised TypeError ({error}). Hint: keep "
                                   "exercise 3.3's third argument, padding_idx=None").format(error=error)) from None
    require(not any(isinstance(part, (nn.Embedding, nn.Linear)) for part in padded.modules()),
            _("the module holds an nn.Embedding or nn.Linear: keep exercise 3.3's table, an nn.Parameter"))
    layers = {"MyEmbedding(7, 3)": plain, "MyEmbedding(7, 3, padding_idx=2)": padded}
    for name, layer in layers.items():
        weight = dict(layer.named_parameters()).get("weight")
        require(weight is not None and tuple(weight.shape) == _PADDED_SIZE, _("{name} has no parameter "
                                                                               "'weight' of shape (7, 3). "
                                                                               "Hint: keep exercise 3.3's "
                                                                               "__init__").format(name=name))
    require(not padded.weight.detach()[_PADDING].any(), _("MyEmbedding(7, 3, padding_idx=2).weight[2] is not zero. "
                                                           "Hint: keep exercise 3.3's __init__, which zeroes the "
                                                           "padding row"))
    ids = torch.tensor([[1, 0, 2], [_PADDED_SIZE[0] - 1, 2, 1]])  # the padding id twice
    refusal = _("MyEmbedding's forward calls F.embedding (or torch.embedding), which keeps the padding row's "
                "gradient at zero for you: do that part yourself")
    for name, layer in layers.items():
        grad = looked_up_rows(name, layer, ids, refusal)
        expected = torch.bincount(ids.flatten(), minlength=_PADDED_SIZE[0]).to(grad.dtype)[:, None]
        expected = expected.expand(_PADDED_SIZE).clone()
        if layer is padded:
            expected[_PADDING] = 0
        require(layer is plain or not grad[_PADDING].any(), _("a gradient reached the padding row of MyEmbedding(7, "
                                                               "3, padding_idx=2): training would move it. Hint: the "
                                                               "padding row's gradient adds up the output gradients "
                                                               "of the positions that look it up (section 1); make "
                                                               "those positions send nothing back"))
        require(torch.equal(grad, expected), _("the gradient of {name}.weight is not one row of ones per "
                                                "lookup (the padding row aside). Hint: change only what the "
                                                "padding positions send back").format(name=name))
    expected = torch.bincount(ids[ids != _PADDING], minlength=_PADDED_SIZE[0]).float()[:, None].expand(_PADDED_SIZE)
    with torch.no_grad():
        padded.weight[_PADDING] = 1.0  # a padding row that is not zero, as from_pretrained may load one
    padded.weight.grad = None
    with refusing_embedding_functions(refusal):
        out = padded(ids)
    require(torch.equal(out, padded.weight[ids]), _("with its padding row set to ones, MyEmbedding(7, 3, "
                                                    "padding_idx=2)(ids) no longer returns weight[ids] at the "
                                                    "padding positions. Hint: keep the rows' values as they are; "
                                                    "stop only what the padding positions send back"))
    out.backward(torch.ones_like(out).masked_fill((ids == _PADDING)[..., None], float("inf")))
    require(not padded.weight.grad[_PADDING].any(), _("with inf in grad_out at the padding positions, the "
                                                         "padding row's gradient is {row}, not 0: 0 · inf is NaN "
                                                         "(notebook 0). Hint: let those positions "
                                                         "send back nothing, not their gradient times 0").format(
                                                             row=padded.weight.grad[_PADDING].tolist()))
    require(torch.equal(padded.weight.grad, expected), _("with inf in grad_out at the padding positions, the "
                                                         "gradient of the rows looked up is no longer one row of "
                                                         "ones per lookup. Hint: change only what the padding "
                                                         "positions send back"))
    return correct(_("MyEmbedding returns weight[ids] for ids of shape (2, 3), with the padding row zero and "
                      "with it set to ones, and its gradient reaches every row looked up except the padding row "
                      "(looked up twice), even with inf in grad_out at the padding positions"))


#: Exercise 4.4's scenario: a (6, 3) table with padding_idx=0 whose row 0 is not zero, two steps of a loss
#: sum(E(ids)**2), on each ids of MOVED_EXERCISE_STEPS, by each optimizer, with the hint for a wrong answer
MOVED_EXERCISE_STEPS = ((0, 4), (1, 0))
_MOVED_OPTIMIZERS = {
    "SGD": (torch.optim.SGD, {}, N_("plain SGD moves a row only when that row has a non-zero gradient in this "
                                    "step; padding_idx zeroes one row's gradient, however often it is looked up")),
    "SGD with momentum": (torch.optim.SGD, {"momentum": 0.9}, N_("the momentum buffer remembers rows from the first "
                          "step; a row whose gradient was always zero has a zero buffer")),
    "Adam": (torch.optim.Adam, {}, N_("Adam's first moment remembers rows from the first step; a row whose "
                                      "gradient was always zero has zero moments, so its update is 0 / (sqrt(0) + "
                                      "eps) = 0")),
    "AdamW": (torch.optim.AdamW, {"weight_decay": 0.01}, N_("AdamW's decoupled weight decay shrinks every non-zero "
              "row by lr * weight_decay * w, looked up or not, whatever its gradient")),
}


#: Section 6's experiment: the ids each of three steps looks up in a 10-row table
OPTIM_STEPS = ((1, 3, 6), (2, 5), (2, 5))
_OPTIM_HINTS = {
    "SGD": N_("SGD's step is -lr * gradient: which rows have a non-zero gradient in step 3 (sections 1 and 2)?"),
    "Adam": N_("Adam keeps running averages of past gradients: a row looked up in step 1 still has a non-zero "
               "average in step 3. And a row never looked up?"),
}


def _moved_in_step_3(optimizer_class: type[torch.optim.Optimizer]) -> set[int]:
    """The rows of a 10-row table that the third step of :data:`OPTIM_STEPS` changes (loss ``sum(E(ids)²)``)."""
    table = torch.nn.Embedding.from_pretrained(torch.randn(10, 4, generator=torch.Generator().manual_seed(6)),
                                               freeze=False)
    optimizer = optimizer_class(table.parameters(), lr=0.1)
    for step_ids in OPTIM_STEPS:
        before = table.weight.detach().clone()
        optimizer.zero_grad()
        table(torch.tensor(step_ids)).pow(2).sum().backward()
        optimizer.step()
    return set((table.weight.detach() != before).any(dim=1).nonzero().flatten().tolist())


def check_optimizer_guess(guess: object) -> None:
    """Section 6's prediction: ``{"SGD": {...}, "Adam": {...}}``, the rows step 3 changes with each. Judged on the
    checker's own table; nothing while it is None."""
    if not answered(guess=guess):
        return
    require_keys("guess", prediction("guess", guess, dict, '{"SGD": {1}, "Adam": {1}}'), ["SGD", "Adam"],
                 _("an optimizer's name to a set of rows"))
    for name, optimizer_class in (("SGD", torch.optim.SGD), ("Adam", torch.optim.Adam)):
        rows = guess[name]
        require(isinstance(rows, (set, frozenset, list, tuple)),
                _("guess[{name!r}] must be a set of row ids, got {type}").format(name=name, type=type(rows).__name__))
        require(set(rows) == _moved_in_step_3(optimizer_class),
                _("{name}: rows {rows} are not the rows step 3 changes. Hint: {hint}").format(
                    name=name, rows=sorted(set(rows)), hint=_(_OPTIM_HINTS[name])))
    return correct(_("both guesses are the rows step 3 changed in the checker's own run of SGD and of Adam"))


def _moved_rows_in_second_step(name: str) -> set[int]:
    weight = torch.randn(6, 3, generator=torch.Generator().manual_seed(0))
    embedding = torch.nn.Embedding.from_pretrained(weight, freeze=False, padding_idx=0)  # row 0 stays non-zero
    optimizer_class, settings, _why = _MOVED_OPTIMIZERS[name]
    optimizer = optimizer_class(embedding.parameters(), lr=0.1, **settings)
    for step_ids in MOVED_EXERCISE_STEPS:
        before = embedding.weight.detach().clone()
        optimizer.zero_grad()
        embedding(torch.tensor(step_ids)).pow(2).sum().backward()
        optimizer.step()
    return set((embedding.weight.detach() != before).any(dim=1).nonzero().flatten().tolist())


def check_moved_rows(answer: dict[str, set[int]]) -> None:
    """Exercise 4.4: for each optimizer, the set of rows that the SECOND step changes."""
    if not answered(moved_in_step_2=answer):
        return
    require_keys("answer", answer, list(_MOVED_OPTIMIZERS), _("optimizer name to a set of rows"))
    for name, (_optimizer, _settings, why) in _MOVED_OPTIMIZERS.items():
        got = answer[name]
        require(isinstance(got, (set, frozenset, list, tuple)),
                _("answer[{name!r}] must be a set of row ids, got {type}").format(name=name, type=type(got).__name__))
        require(set(got) == _moved_rows_in_second_step(name),
                _("{name}: rows {got} are not the rows that step 2 moves. Hint: {why}").format(
                    name=name, got=sorted(got), why=_(why)))
    return correct(_("your four predictions match the rows each optimizer moved in the checker's own run"))


#: Exercise 4.3's tables (V, d): three small ones whose gradients the checker builds and measures (at (10, 3) the
#: bytes are equal one position before the answer), and GPT-2's, checked by the same count without building it
BREAK_EVEN_MEASURED = ((10, 3), (7, 2), (40, 5))
BREAK_EVEN_GPT2 = (50_257, 768)


def _gradient_bytes(vocab_size: int, dim: int, positions: int) -> tuple[int, int]:
    """The bytes of the sparse gradient (values and indices, as ``backward()`` leaves it) of a ``sparse=True``
    ``nn.Embedding(vocab_size, dim)`` after a lookup of ``positions`` ids, and of its dense gradient."""
    embedding = torch.nn.Embedding(vocab_size, dim, sparse=True)
    ids = torch.arange(positions) % vocab_size
    embedding(ids).sum().backward()
    grad = embedding.weight.grad
    return grad._values().nbytes + grad._indices().nbytes, embedding.weight.nbytes


def _first_larger(vocab_size: int, dim: int) -> int:
    """The smallest number of positions whose sparse gradient outgrows the dense one, counted: a row of values and
    an int64 index per position, against ``vocab_size`` rows of float32."""
    return vocab_size * dim * 4 // (dim * 4 + 8) + 1


@writes("break_even_tokens")
def check_break_even_tokens(break_even_tokens: Callable[[int, int], int]) -> None:
    """Exercise 4.3: ``break_even_tokens(V, d)`` -> the smallest number of positions for which the uncoalesced
    sparse gradient of a ``sparse=True`` ``nn.Embedding(V, d)`` takes more bytes than its dense ``[V, d]`` one.

    For the tables of ``BREAK_EVEN_MEASURED`` the checker builds both gradients at the learner's answer and one
    position fewer and compares their bytes; at GPT-2's sizes it compares with its own count.
    """
    require_function("break_even_tokens", break_even_tokens)
    torch_state = torch.random.get_rng_state()
    try:
        for vocab_size, dim in BREAK_EVEN_MEASURED:
            call = f"break_even_tokens({vocab_size}, {dim})"
            got = break_even_tokens(vocab_size, dim)
            if isinstance(got, torch.Tensor) and got.numel() == 1:
                got = got.item()
            require(isinstance(got, int) and not isinstance(got, bool) and got > 0,
                    _("{call} returned {got!r}: return a whole number of positions (an int)").format(
                        call=call, got=got))
            at, dense = _gradient_bytes(vocab_size, dim, got)
            before, _after = _gradient_bytes(vocab_size, dim, got - 1) if got > 1 else (0, dense)
            why = hint([
                (got >= vocab_size, _("each entry holds a row of values and its row index too (look at _indices()): "
                                       "an entry costs more than a row of the dense table, so fewer positions than V "
                                       "are enough")),
                (got == vocab_size * dim * 4 // (dim * 4 + 4) + 1, _("the row indices are int64, 8 bytes each")),
                (at == dense, _("at that many positions the two take exactly the same bytes; the question asks for "
                                 "more"))],
                _("count the bytes of one entry (values and index) and of the dense table, then find the smallest "
                   "number of entries that is more"))
            require(at > dense, _("{call} = {got}: at {got} positions the sparse gradient takes {at} "
                                   "bytes, the dense one {dense}, so it is not yet larger. Hint: {why}").format(
                                    call=call, got=got, at=at, dense=dense, why=why))
            require(before <= dense, _("{call} = {got}: one position fewer already takes more bytes than "
                                        "the dense gradient ({before} against {dense}); the smallest such "
                                        "number is asked for. Hint: {why}").format(
                                         call=call, got=got, before=before, dense=dense, why=why))
        vocab_size, dim = BREAK_EVEN_GPT2
        got = break_even_tokens(vocab_size, dim)
        require(got == _first_larger(vocab_size, dim), _("break_even_tokens({vocab_size}, {dim}) at "
                                                          "GPT-2's sizes differs from the checker's count, "
                                                          "though the small tables passed. Hint: compute "
                                                          "the bytes with Python's int (whole numbers), not "
                                                          "floats").format(vocab_size=vocab_size, dim=dim))
    finally:
        torch.random.set_rng_state(torch_state)
    return correct(_("break_even_tokens gave, for the checker's 3 small tables, the number of positions at which a "
                      "real sparse gradient first takes more bytes than the dense one, and the same count at GPT-2's "
                      "sizes"))


#: Exercise 4.5's experiment: a (6, 4) table, N(0, 1) from seed 4, rows DECAY_EXERCISE_IDS looked up at every step
#: of the loss sum(E(ids)**2), row 0 never; Adam and AdamW at the settings (lr, weight_decay, steps): the exercise's
#: own, then one of the checker's
DECAY_EXERCISE_IDS = (1, 4)
DECAY_EXERCISE_SETTINGS = ((0.01, 0.1, 10), (0.05, 0.1, 3))
_DECAY_OPTIMIZERS = {"torch.optim.Adam": torch.optim.Adam, "torch.optim.AdamW": torch.optim.AdamW}
#: how close Exercise 4.5's predicted ratio must come to the reasoned one, 2 / (weight_decay * |row 0|) (relative)
DECAY_PREDICTION_TOLERANCE = 0.1


def _never_seen_row_distance(optimizer_class: type[torch.optim.Optimizer], lr: float, weight_decay: float,
                             steps: int) -> float:
    """How far ``steps`` steps of ``optimizer_class`` move row 0, never looked up, of Exercise 4.5's table."""
    start = torch.randn(6, 4, generator=torch.Generator().manual_seed(4))
    table = torch.nn.Embedding.from_pretrained(start.clone(), freeze=False)
    optimizer = optimizer_class(table.parameters(), lr=lr, weight_decay=weight_decay)
    for _step in range(steps):
        optimizer.zero_grad()
        table(torch.tensor(DECAY_EXERCISE_IDS)).pow(2).sum().backward()
        optimizer.step()
    return float((table.weight.detach()[0] - start[0]).norm())


def check_ratio_prediction(predicted_ratio: float) -> None:
    """Exercise 4.5's prediction, judged at once, before the measurement: how many times farther Adam with
    weight_decay moves row 0 than AdamW at the exercise's settings. It must be the reasoned ratio
    ``2 / (weight_decay * |row 0|)`` (each of the 4 entries moves by about lr a step, against lr * weight_decay * w)
    within 10%. While the guess is still ``None`` it judges nothing (one line says so). ``TypeError`` for a guess
    that is not a number.
    """
    if not answered(predicted_ratio=predicted_ratio):
        return
    predicted = as_number("predicted_ratio", predicted_ratio, _("your prediction, a ratio"))
    lr, weight_decay, _steps = DECAY_EXERCISE_SETTINGS[0]
    row_0 = float(torch.randn(6, 4, generator=torch.Generator().manual_seed(4))[0].norm())
    reasoned = 2 / (weight_decay * row_0)
    why = hint([
        (within(predicted, 1, 0.2), _("Adam divides the decay term weight_decay * w by its own size, so each entry "
                                       "of row 0 moves by about lr a step, however small weight_decay is")),
        (within(predicted, reasoned / 2, 0.1), _("each of row 0's 4 entries moves by about lr: the row moves "
                                                  "lr * sqrt(4) a step")),
        (predicted > reasoned, _("AdamW moves each weight by lr * weight_decay * w a step: in proportion to the "
                                  "weight, not zero")),
    ], _("compare the distances row 0 moves in a step: about lr for each of its 4 entries with Adam, "
          "lr * weight_decay * |row 0| with AdamW"))
    require(within(predicted, reasoned, DECAY_PREDICTION_TOLERANCE),
            _("your prediction, {predicted:.4g}, is not the ratio that Adam's step and AdamW's decay give. Hint: "
              "{why}").format(predicted=predicted, why=why))
    return correct(_("your ratio is the one that Adam's step, AdamW's decay and the size of row 0 give, within 10%"))


def _distance(call: str, value: object) -> float:
    value = as_number(call, value, _("a distance, e.g. from `.norm().item()`"))
    if not value >= 0 or value == float("inf"):
        raise AnswerValueError(_("{call} must return a finite distance >= 0, got {value}").format(
                                   call=call, value=value))
    return value


@writes("row_0_distance")
def check_row_0_distance(predicted_ratio: float | None,
                         row_0_distance: Callable[[type[torch.optim.Optimizer], float, float, int], float]) -> None:
    """Exercise 4.5: ``row_0_distance(optimizer_class, lr, weight_decay, steps)``: how far ``steps`` steps of
    ``optimizer_class(..., lr=lr, weight_decay=weight_decay)`` move row 0 of the table ``decay_start``, never looked
    up, as a Euclidean distance; and ``predicted_ratio``, recorded before measuring: how many times farther Adam with
    weight_decay moves row 0 than AdamW at the exercise's settings.

    The checker calls the function with ``torch.optim.Adam`` and ``torch.optim.AdamW`` at
    ``DECAY_EXERCISE_SETTINGS`` and runs the same experiments itself (calling it twice first: it must not change
    ``decay_start``); only the function is graded (:func:`check_ratio_prediction` grades the prediction). The
    prediction is reported as its distance from the measured ratio in %, without either value; or that none was
    recorded (``None``).
    ``TypeError``/``ValueError`` for a result that is not a distance, or a prediction that is not a number.
    """
    if predicted_ratio is not None:
        predicted_ratio = as_number("predicted_ratio", predicted_ratio, _("your prediction, a ratio"))
    require_function("row_0_distance", row_0_distance)
    exercise_settings = DECAY_EXERCISE_SETTINGS[0]
    first = "row_0_distance(torch.optim.Adam, lr={}, weight_decay={}, steps={})".format(*exercise_settings)
    require(len({_distance(first, row_0_distance(torch.optim.Adam, *exercise_settings)) for _run in range(2)}) == 1,
            _("{first} gave two different distances when called twice: your function changes decay_start. "
               "Hint: train a copy, decay_start.clone()").format(first=first))
    for lr, weight_decay, steps in DECAY_EXERCISE_SETTINGS:
        for name, optimizer_class in _DECAY_OPTIMIZERS.items():
            call = f"row_0_distance({name}, lr={lr}, weight_decay={weight_decay}, steps={steps})"
            got = _distance(call, row_0_distance(optimizer_class, lr, weight_decay, steps))
            why = hint([
                (got == 0, _("a distance of 0. Row 0 has no gradient of its own, so only weight decay moves it: "
                              "pass weight_decay to the optimizer. And train a copy, decay_start.clone(): "
                              "from_pretrained shares the tensor it is given, so row 0 and decay_start[0] would move "
                              "together")),
                (steps > 1 and within(got, _never_seen_row_distance(optimizer_class, lr, weight_decay, 1), 1e-3),
                 _("that is how far row 0 moves in one step; take `steps` steps")),
                ((lr, weight_decay, steps) != exercise_settings
                 and within(got, _never_seen_row_distance(optimizer_class, *exercise_settings), 1e-3),
                 _("that is the distance at the exercise's settings: use the arguments lr, weight_decay and steps")),
            ], _("start from decay_start.clone(), take `steps` steps of E(decay_ids).pow(2).sum(), then measure "
                  "(weight[0] - decay_start[0]).norm()"))
            require(within(got, _never_seen_row_distance(optimizer_class, lr, weight_decay, steps), 1e-3),
                    _("{call} returned a distance that is off. Hint: {why}").format(call=call, why=why))
    measured = (_never_seen_row_distance(torch.optim.Adam, *exercise_settings)
                / _never_seen_row_distance(torch.optim.AdamW, *exercise_settings))
    if predicted_ratio is None:
        print(_("your prediction: none recorded (predicted_ratio is still None)"))
    else:
        print(_("your prediction: {error:.0%} from the measured ratio").format(
                  error=abs(predicted_ratio / measured - 1)))
    return correct(_("row_0_distance matches the checker's own runs of Adam with weight_decay and of AdamW, at the "
                      "exercise's settings and at another"))
