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
    require,
    require_keys,
    require_tensor,
    within,
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


#: Exercise 7.2: the vocabulary size, the widths and the seed of the tied and untied models
TYING_EXERCISE_VOCAB = 1_000
TYING_EXERCISE_DIMS = (16, 64, 256)
TYING_EXERCISE_SEED = 0
#: Exercise 7.2: how far (relative) the predicted largest tied logit at the largest d (averaged over the positions)
#: may lie from the measured one. Wide enough for every sound estimate of the largest of 1,000 normal draws, narrow
#: enough to refuse the first term alone: on the notebook's ids (largest logit 29.94, std 9.12) the simulated mean
#: (3.25 stds), notebook 5's formula (3.27), the median (3.20) and the 1-in-1,000 tail (3.09) land 1.1%, 0.3%, 2.4%
#: and 5.8% under it; sqrt(2 ln V) alone (3.72) lands 13% over, notebook 5's factor for 50,257 draws (4.25 stds)
#: 30% over, Going deeper's constant for V = 10,000 (3.87 stds) 18% over, and a uniform guess (ln V) far under
TYING_ESTIMATE_WITHIN = 0.10


def _initial_lm_loss(model_class: Callable[..., torch.nn.Module], dim: int, tie: bool, ids: torch.Tensor,
                     context_length: int) -> tuple[float, float, float]:
    """The next-token cross-entropy of ``model_class(V, dim, context_length, tie=tie)`` as built after the seed,
    the std of its logits, and its largest logit at each position, averaged over the positions."""
    with torch.random.fork_rng(devices=[]):  # the learner's global generator is left as it was
        torch.manual_seed(TYING_EXERCISE_SEED)
        model = model_class(TYING_EXERCISE_VOCAB, dim, context_length, tie=tie)
    with torch.no_grad():
        logits = model(ids[:, :-1])  # (B, T - 1, V)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten()).item()
        return loss, logits.std().item(), logits.max(dim=-1).values.mean().item()


def _largest_draw_factor(count: int) -> float:
    """About how many stds the largest of ``count`` standard-normal draws lies above 0, on average."""
    draws = torch.randn(200, count, generator=torch.Generator().manual_seed(0))
    return draws.max(dim=1).values.mean().item()


def check_tied_largest_logit(initial_loss: dict[tuple[int, bool], float], model_class: Callable[..., torch.nn.Module],
                             ids: torch.Tensor, context_length: int, predicted_largest_logit: float | None) -> None:
    """Exercise 7.2: the learner's prediction of the tied model's largest logit at the largest width, after the
    losses at initialisation the notebook measured (tied and untied, each width), which name the models it builds.

    ``initial_loss[(d, tie)]``: the next-token cross-entropy of
    ``model_class(TYING_EXERCISE_VOCAB, d, context_length, tie=tie)``, built right after
    ``torch.manual_seed(TYING_EXERCISE_SEED)``, on ``ids`` ``(B, T + 1)`` (inputs
    ``ids[:, :-1]``, targets ``ids[:, 1:]``), for every ``d`` in :data:`TYING_EXERCISE_DIMS`.
    The checker builds the same models on the CPU and measures the losses itself; then it compares
    ``predicted_largest_logit`` with the tied model's largest logit at the largest ``d`` (at each position, averaged
    over the positions), within :data:`TYING_ESTIMATE_WITHIN`.
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
    measured = {(dim, tie): _initial_lm_loss(model_class, dim, tie, ids, context_length) for dim, tie in keys}
    expected = {key: loss for key, (loss, _std, _top) in measured.items()}
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
    if not answered(predicted_largest_logit=predicted_largest_logit):
        return  # the losses are right; the prediction they judge is not made yet
    predicted = as_number("predicted_largest_logit", predicted_largest_logit, _("a logit"))
    largest = TYING_EXERCISE_DIMS[-1]
    _loss, spread, top = measured[(largest, True)]  # the tied logits' std and largest logit at the largest d
    why = hint([(math.isclose(predicted, uniform, rel_tol=0.05),
                 _("that is ln V, a uniform guess; the tied logits are far wider than that")),
                (within(predicted, _largest_draw_factor(50_257) * spread, TYING_ESTIMATE_WITHIN),
                 _("notebook 5's factor 4.25 is for 50,257 logits; the largest of 1,000 draws lies fewer stds "
                    "above 0")),
                (within(predicted, math.sqrt(2 * math.log(TYING_EXERCISE_VOCAB)) * spread, 0.03),
                 _("sqrt(2 ln V) is only the first term of notebook 5's formula; the next term lowers it"))],
               _("at one position the 1,000 logits spread like 1,000 normal draws of about the printed std: how "
                  "many stds above 0 does the largest of them lie? Simulate it, or use notebook 5's formula for the "
                  "largest of V draws"))
    require(within(predicted, top, TYING_ESTIMATE_WITHIN),
            _("your predicted_largest_logit, {predicted:.1f}, is not within {within:.0%} "
               "of the tied model's largest logit at d = {largest}. Hint: {why}").format(
                predicted=predicted, within=TYING_ESTIMATE_WITHIN, largest=largest, why=why))
    return correct(_("the prediction is within 10% of the tied model's largest logit at d = 256, averaged over the "
                      "positions"))
