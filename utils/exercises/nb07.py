"""Notebook 7, beyond the single lookup: the checkers of its exercises."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F

from ..language import _
from .checking import (
    AnswerTypeError,
    AnswerValueError,
    ExerciseError,
    answered,
    as_number,
    correct,
    hint,
    one_of,
    recorded,
    require,
    require_keys,
    require_tensor,
)

#: Exercise 7.1: four bags of ids, given to the learner only as their mean multi-hot rows (bag 2 is empty); with
#: notebook 7's vocabulary: "cat cat saw dog", "the the the mat mat .", nothing, "the the the dog dog sat log cat"
MYSTERY_BAGS = ([5, 5, 12, 10], [4, 4, 4, 8, 8, 9], [], [4, 4, 4, 10, 10, 6, 11, 5])


def mystery_bag_rows(vocab_size: int) -> torch.Tensor:
    """Exercise 7.1's matrix ``(4, vocab_size)``: row ``b`` holds the counts of the ids of bag ``b`` of
    :data:`MYSTERY_BAGS` divided by its length, the row that ``EmbeddingBag(mode="mean")`` multiplies by ``W``."""
    rows = torch.zeros(len(MYSTERY_BAGS), vocab_size)
    for bag, ids in enumerate(MYSTERY_BAGS):
        if ids:
            rows[bag] = torch.bincount(torch.tensor(ids), minlength=vocab_size).float() / len(ids)
    return rows


def check_bag_mean_ids(ids: torch.Tensor, offsets: torch.Tensor, rows: torch.Tensor, weight: torch.Tensor) -> None:
    """Exercise 7.1: ids and offsets for which ``EmbeddingBag(mode="mean")`` gives ``rows @ weight``.

    ``rows`` ``(num_bags, V)``: each bag's counts divided by its length (zeros for an empty bag); ``weight`` the
    table ``[V, d]``. The checker computes ``F.embedding_bag(ids, weight, offsets, mode="mean")`` and compares.
    """
    if not answered(my_flat=ids, my_offsets=offsets):
        return
    if not isinstance(weight, torch.Tensor) or weight.dim() != 2:
        raise AnswerTypeError(_("weight must be the table W, a 2-D tensor [V, d]; got {type}").format(
                                  type=type(weight).__name__))
    vocab_size, num_bags = weight.shape[0], len(rows)
    for name, value in (("my_flat", ids), ("my_offsets", offsets)):
        require_tensor(name, value)
        require(value.dim() == 1 and not value.is_floating_point(),
                _("{name} must be a 1-D tensor of whole numbers, e.g. torch.tensor([0, 3])").format(name=name))
    ids, offsets = ids.detach().cpu().long(), offsets.detach().cpu().long()
    require(len(offsets) == num_bags, _("my_offsets has {n_offsets} entries: give one start per bag, "
                                         "{num_bags}").format(n_offsets=len(offsets), num_bags=num_bags))
    require(offsets[0] == 0 and bool((offsets[1:] >= offsets[:-1]).all()) and offsets[-1] <= len(ids),
            _("my_offsets must start at 0 and never decrease, and no bag may start past the end of my_flat"))
    require(bool(((ids >= 0) & (ids < vocab_size)).all()), _("my_flat holds ids outside 0..{vocab_size}").format(
                                                               vocab_size=vocab_size - 1))
    table, target = weight.detach().cpu().double(), rows.detach().cpu().double()
    got = F.embedding_bag(ids, table, offsets, mode="mean")  # (num_bags, d): EmbeddingBag's answer for yours
    off = (~torch.isclose(got, target @ table, rtol=0, atol=1e-6)).any(dim=1).nonzero().flatten().tolist()
    if off:
        bag = off[0]
        ends = torch.cat([offsets[1:], torch.tensor([len(ids)])])
        length = (ends[bag] - offsets[bag]).item()
        why = hint([(length == 0, _("that bag is empty, and an empty bag gives a row of zeros; this row is not zero")),
                    (not target[bag].any(), _("this row is all zeros: which bag gives a row of zeros?"))],
                   _("each entry is how often an id occurs in the bag, divided by the bag's length: which length "
                      "makes every entry of this row a whole count? (bag b is my_flat[my_offsets[b]:my_offsets[b + "
                      "1]], and the last bag runs to the end)"))
        raise ExerciseError(_("bag {bag} (ids {ids}) gives another mean. Hint: {why}").format(
                                bag=bag, ids=ids[offsets[bag]:ends[bag]].tolist(), why=why))
    return correct(_("EmbeddingBag(mode='mean') of your ids and offsets equals A_ex @ W on every bag, the empty one "
                      "included"))


#: Exercise 7.2's predictions: the two heads, and the ways a head's initial loss can move as d grows
TYING_HEADS, TYING_TRENDS = ("tied", "untied"), ("rises", "falls", "stays")
#: a head's loss "stays" when its value at the largest d is within this much of its value at the smallest
TYING_STAYS_WITHIN = 0.5


def check_tying_predictions(predicted_closer: str | None, tied_trend: str | None, untied_trend: str | None) -> None:
    """Exercise 7.2's predictions, recorded before any loss is measured: the head whose initial loss at the
    smallest ``d`` is closer to ``ln V`` (``"tied"`` or ``"untied"``), and how each head's initial loss moves as
    ``d`` grows (``"rises"``, ``"falls"`` or ``"stays"``). ``ValueError`` for any other value. Only the kinds are
    checked here: :func:`check_tying_initial_loss`, after the measurement, compares them with it. While a guess is
    still ``None`` it judges nothing."""
    if not answered(predicted_closer=predicted_closer, tied_trend=tied_trend, untied_trend=untied_trend):
        return
    one_of("predicted_closer", predicted_closer, TYING_HEADS)
    one_of("tied_trend", tied_trend, TYING_TRENDS)
    one_of("untied_trend", untied_trend, TYING_TRENDS)
    return recorded(_("your three predictions; the checker after the measurement will tell whether they hold"))


#: Exercise 7.2: the vocabulary size, the widths and the seed of the tied and untied models
TYING_EXERCISE_VOCAB = 1_000
TYING_EXERCISE_DIMS = (16, 64, 256)
TYING_EXERCISE_SEED = 0


def _initial_lm_loss(model_class: Callable[..., torch.nn.Module], dim: int, tie: bool, ids: torch.Tensor,
                     context_length: int) -> float:
    """The next-token cross-entropy of ``model_class(V, dim, context_length, tie=tie)`` as built after the seed."""
    with torch.random.fork_rng(devices=[]):  # the learner's global generator is left as it was
        torch.manual_seed(TYING_EXERCISE_SEED)
        model = model_class(TYING_EXERCISE_VOCAB, dim, context_length, tie=tie)
    with torch.no_grad():
        logits = model(ids[:, :-1])  # (B, T - 1, V)
        return torch.nn.functional.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten()).item()


def _trend(losses: list[float]) -> str:
    """How a loss moves from the smallest ``d`` to the largest: ``"rises"``, ``"falls"`` or ``"stays"``."""
    change = losses[-1] - losses[0]
    return "stays" if abs(change) <= TYING_STAYS_WITHIN else ("rises" if change > 0 else "falls")


def check_tying_initial_loss(initial_loss: dict[tuple[int, bool], float], model_class: Callable[..., torch.nn.Module],
                             ids: torch.Tensor, context_length: int, predicted_closer: str, tied_trend: str,
                             untied_trend: str) -> None:
    """Exercise 7.2: the loss at initialisation of a tied and an untied ``model_class``, for each width.

    ``initial_loss[(d, tie)]``: the next-token cross-entropy of
    ``model_class(TYING_EXERCISE_VOCAB, d, context_length, tie=tie)``, built right after
    ``torch.manual_seed(TYING_EXERCISE_SEED)``, on ``ids`` ``(B, T + 1)`` (inputs
    ``ids[:, :-1]``, targets ``ids[:, 1:]``), for every ``d`` in :data:`TYING_EXERCISE_DIMS`.
    The checker builds the same models on the CPU and measures the losses itself; then it compares the
    predictions that :func:`check_tying_predictions` recorded with what the losses show.
    """
    if not answered(initial_loss=None if isinstance(initial_loss, dict) and None in initial_loss.values()
                    else initial_loss):  # the notebook's cell holds None for each loss until it is measured
        return
    keys = [(dim, tie) for dim in TYING_EXERCISE_DIMS for tie in (True, False)]
    got = {key: as_number(f"initial_loss[{key}]", value, _("a loss, e.g. loss.item()"))
           for key, value in require_keys("initial_loss", initial_loss, keys, _("(d, tie) to a loss")).items()}
    if not callable(model_class):
        raise AnswerTypeError(_("model_class must be the model's class (TinyLM), got {type}").format(
                                  type=type(model_class).__name__))
    if not isinstance(ids, torch.Tensor) or ids.dim() != 2 or ids.shape[1] < 2 or ids.is_floating_point():
        shape = tuple(ids.shape) if isinstance(ids, torch.Tensor) else type(ids).__name__
        raise AnswerValueError(_("ids must be a 2-D tensor of token ids (B, T + 1), got {shape}").format(shape=shape))
    ids = ids.detach().cpu().long()
    expected = {(dim, tie): _initial_lm_loss(model_class, dim, tie, ids, context_length) for dim, tie in keys}
    uniform = math.log(TYING_EXERCISE_VOCAB)
    for dim, tie in sorted(keys):
        value, right = got[(dim, tie)], expected[(dim, tie)]
        why = hint([(math.isclose(value, uniform, rel_tol=1e-6),
                     _("that is ln V, the uniform guess; measure the model's own loss")),
                    (math.isclose(value, expected[(dim, not tie)], rel_tol=1e-3),
                     _("that is the loss of the {tie} model: the key (d, tie) = ({dim}, {flag}) holds the "
                        "model built with tie={flag}").format(
                         tie=_("untied") if tie else _("tied"), dim=dim, flag=tie))],
                   _("build each model right after torch.manual_seed(0), then measure "
                      "F.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten()) with logits = model(ids[:, :-1])"))
        require(math.isclose(value, right, rel_tol=1e-3),
                _("initial_loss[({dim}, {tie})] = {value:.3f} is not the loss of that model. Hint: {why}").format(
                    dim=dim, tie=tie, value=value, why=why))
    tied = [expected[(dim, True)] for dim in TYING_EXERCISE_DIMS]
    untied = [expected[(dim, False)] for dim in TYING_EXERCISE_DIMS]
    require(all(abs(loss - uniform) < 0.5 for loss in untied)
            and all(a + 1 < b for a, b in zip(tied, tied[1:], strict=False)) and tied[0] > untied[0] + 1,
            _("these losses do not show what the exercise is about (untied near ln V, tied far above and growing "
               "with d): pass the notebook's TinyLM, unchanged"))
    if not answered(predicted_closer=predicted_closer, tied_trend=tied_trend, untied_trend=untied_trend):
        return  # the losses are right; the predictions they judge are not made yet
    one_of("predicted_closer", predicted_closer, TYING_HEADS)
    one_of("tied_trend", tied_trend, TYING_TRENDS)
    one_of("untied_trend", untied_trend, TYING_TRENDS)
    closer = "tied" if abs(tied[0] - uniform) < abs(untied[0] - uniform) else "untied"
    smallest = TYING_EXERCISE_DIMS[0]
    require(predicted_closer == closer,
            _("your losses are right, but your predicted_closer, {predicted_closer!r}, is not the head "
               "whose loss at d = {smallest} is closer to ln V: look at your initial_loss. Why: compare the "
               "std of the two heads' weights at initialisation, N(0, 1) for the embedding and nn.Linear's "
               "default 1/sqrt(3 * fan_in), and what each does to the logits").format(
                predicted_closer=predicted_closer, smallest=smallest))
    for name, predicted, losses in (("tied_trend", tied_trend, tied), ("untied_trend", untied_trend, untied)):
        head = name.split("_")[0]
        require(predicted == _trend(losses),
                _("your losses are right, but your {name}, {predicted!r}, is not what the {head} head's "
                   "loss does as d grows (it 'stays' if it moves by at most {tying_stays_within}): look at "
                   "your initial_loss. Why: a logit sums d products; how does its std change with d, given "
                   "the std of the {head} head's rows?").format(
                    name=name, predicted=predicted, head=head, tying_stays_within=TYING_STAYS_WITHIN))
    return correct(_("all six losses match the checker's own models, built from the same seed, and the predictions "
                      "in predicted_closer, tied_trend and untied_trend match what they show"))
