"""Notebook 7's checkers accept a right answer and reject a wrong one with a hint."""

import math
import re

import pytest
import torch
import torch.nn as nn

from utils.exercises import nb07 as exercises


def test_bag_mean_matrix(capsys):
    ids, offsets = torch.tensor([1, 2, 1, 3, 0]), torch.tensor([0, 3, 3])
    weight = torch.randn(4, 3, generator=torch.Generator().manual_seed(0))  # the table W [V, d]
    right = torch.tensor([[0, 2 / 3, 1 / 3, 0], [0, 0, 0, 0], [0.5, 0, 0, 0.5]])
    assert exercises.check_bag_mean_matrix(right, ids, offsets, weight)
    assert capsys.readouterr().out == (
        "correct: A @ W equals EmbeddingBag(mode='mean') on every bag, the empty one included\n")
    with pytest.raises(TypeError, match="weight must be the table W"):
        exercises.check_bag_mean_matrix(right, ids, offsets, 4)
    counts = torch.tensor([[0, 2.0, 1, 0], [0, 0, 0, 0], [1, 0, 0, 1]])
    with pytest.raises(exercises.ExerciseError, match=r"row 0 .* these are the counts \(mode='sum'\)") as error:
        exercises.check_bag_mean_matrix(counts, ids, offsets, weight)
    assert "0.66" not in str(error.value) and "0.33" not in str(error.value)  # a hint, never the expected row
    with pytest.raises(exercises.ExerciseError, match="NaN: an empty bag"):
        exercises.check_bag_mean_matrix(right.clone().index_fill_(0, torch.tensor([1]), float("nan")), ids,
                                        offsets, weight)
    with pytest.raises(exercises.ExerciseError, match=r"shape \(2, 4\), expected \(3, 4\)"):
        exercises.check_bag_mean_matrix(right[:2], ids, offsets, weight)
    with pytest.raises(exercises.ExerciseError, match="must be a float tensor"):
        exercises.check_bag_mean_matrix(counts.long(), ids, offsets, weight)
    with pytest.raises(exercises.ExerciseError, match="must be a torch.Tensor"):
        exercises.check_bag_mean_matrix(right.tolist(), ids, offsets, weight)
    once = torch.tensor([[0, 0.5, 0.5, 0], [0, 0, 0, 0], [0.5, 0, 0, 0.5]])  # "1" counted once in bag 0
    with pytest.raises(exercises.ExerciseError, match="row 0 .* counts once per occurrence"):
        exercises.check_bag_mean_matrix(once, ids, offsets, weight)

class _TinyLM(nn.Module):  # notebook 7's model
    def __init__(self, weight, d_model, context_length, tie):
        super().__init__()
        self.tok_emb = nn.Embedding(weight, d_model)
        self.pos_emb = nn.Embedding(context_length, d_model)
        self.block = nn.Linear(d_model, d_model)
        self.lm_head = nn.Linear(d_model, weight, bias=False)
        if tie:
            self.lm_head.weight = self.tok_emb.weight

    def forward(self, ids):
        x = self.tok_emb(ids) + self.pos_emb(torch.arange(ids.shape[1]))
        return self.lm_head(torch.tanh(self.block(x)))

TYING_IDS = torch.randint(0, exercises.TYING_EXERCISE_VOCAB, (4, 9), generator=torch.Generator().manual_seed(7))
PREDICTED = ("untied", "rises")  # Exercise 7.2's predictions, the ones the losses show

@pytest.fixture(scope="module")
def initial_losses():
    losses = {}
    for dim in exercises.TYING_EXERCISE_DIMS:
        for tie in (True, False):
            torch.manual_seed(0)
            model = _TinyLM(exercises.TYING_EXERCISE_VOCAB, dim, 8, tie)
            logits = model(TYING_IDS[:, :-1])
            losses[(dim, tie)] = torch.nn.functional.cross_entropy(logits.flatten(0, 1), TYING_IDS[:, 1:].flatten())
    return {key: loss.item() for key, loss in losses.items()}

def test_tying_initial_loss(initial_losses, capsys):
    torch.manual_seed(123)
    state = torch.get_rng_state()
    assert exercises.check_tying_initial_loss(initial_losses, _TinyLM, TYING_IDS, 8, *PREDICTED)
    assert torch.equal(torch.get_rng_state(), state)  # the checker leaves the learner's generator alone
    out = capsys.readouterr().out
    assert out == ("correct: all six losses match the checker's own models, built from the same seed, and both "
                   "your predictions match what they show\n")
    assert not re.search(r"\d\.\d", out)  # no loss in the message: the exercise asks the learner to compare them
    as_tensors = {key: torch.tensor(loss) for key, loss in initial_losses.items()}
    assert exercises.check_tying_initial_loss(as_tensors, _TinyLM, TYING_IDS, 8, *PREDICTED)  # tensors, not .item()

    swapped = {(dim, tie): initial_losses[(dim, not tie)] for dim, tie in initial_losses}
    with pytest.raises(exercises.ExerciseError, match=r"initial_loss\[\(16, False\)\] = .*the loss of the tied model") \
            as error:
        exercises.check_tying_initial_loss(swapped, _TinyLM, TYING_IDS, 8, *PREDICTED)
    _assert_no_expected_loss(str(error.value), initial_losses, (16, False))
    uniform = {**initial_losses, (64, True): math.log(exercises.TYING_EXERCISE_VOCAB)}
    with pytest.raises(exercises.ExerciseError, match=r"\(64, True\).*that is ln V, the uniform guess") as error:
        exercises.check_tying_initial_loss(uniform, _TinyLM, TYING_IDS, 8, *PREDICTED)
    _assert_no_expected_loss(str(error.value), initial_losses, (64, True))
    off = {**initial_losses, (256, True): initial_losses[(256, True)] + 1}
    with pytest.raises(exercises.ExerciseError, match=r"\(256, True\).*right after torch.manual_seed\(0\)") as error:
        exercises.check_tying_initial_loss(off, _TinyLM, TYING_IDS, 8, *PREDICTED)
    _assert_no_expected_loss(str(error.value), initial_losses, (256, True))

    class Scaled(_TinyLM):  # a tied table re-initialised small: no longer the lesson's model
        def __init__(self, weight, d_model, context_length, tie):
            super().__init__(weight, d_model, context_length, tie)
            nn.init.normal_(self.tok_emb.weight, std=0.02)

    scaled = {}
    for dim, tie in initial_losses:
        torch.manual_seed(0)
        logits = Scaled(exercises.TYING_EXERCISE_VOCAB, dim, 8, tie)(TYING_IDS[:, :-1])
        scaled[(dim, tie)] = torch.nn.functional.cross_entropy(logits.flatten(0, 1), TYING_IDS[:, 1:].flatten()).item()
    with pytest.raises(exercises.ExerciseError, match="pass the notebook's TinyLM, unchanged"):
        exercises.check_tying_initial_loss(scaled, Scaled, TYING_IDS, 8, *PREDICTED)

def _assert_no_expected_loss(message, initial_losses, key):
    right = initial_losses[key]
    assert f"{right:.3f}" not in message and f"{right:.2f}" not in message, "a hint, never the expected loss"

def test_tying_initial_loss_typed(initial_losses):
    """Typed-in losses cannot pass: the checker builds the models and measures the losses itself."""
    guessed = {(dim, tie): (10.0 + dim / 32 if tie else 6.9) for dim, tie in initial_losses}  # plausible numbers
    with pytest.raises(exercises.ExerciseError, match=r"initial_loss\[\(16, False\)\] = 6.900 is not the loss") \
            as error:
        exercises.check_tying_initial_loss(guessed, _TinyLM, TYING_IDS, 8, *PREDICTED)
    _assert_no_expected_loss(str(error.value), initial_losses, (16, False))

def test_tying_initial_loss_rejects_bad_input(initial_losses):
    with pytest.raises(TypeError, match="initial_loss must be a dict"):
        exercises.check_tying_initial_loss(list(initial_losses.values()), _TinyLM, TYING_IDS, 8, *PREDICTED)
    with pytest.raises(ValueError, match=r"missing \[\(256, False\)\]"):
        exercises.check_tying_initial_loss({k: v for k, v in initial_losses.items() if k != (256, False)},
                                           _TinyLM, TYING_IDS, 8, *PREDICTED)
    with pytest.raises(ValueError, match=r"unexpected \[\(8, True\)\]"):
        exercises.check_tying_initial_loss({**initial_losses, (8, True): 1.0}, _TinyLM, TYING_IDS, 8, *PREDICTED)
    with pytest.raises(TypeError, match=r"initial_loss\[\(16, True\)\] must be a number"):
        exercises.check_tying_initial_loss({**initial_losses, (16, True): "7.0"}, _TinyLM, TYING_IDS, 8, *PREDICTED)
    with pytest.raises(TypeError, match="model_class must be the model's class"):
        exercises.check_tying_initial_loss(initial_losses, "TinyLM", TYING_IDS, 8, *PREDICTED)
    with pytest.raises(ValueError, match="ids must be a 2-D tensor of token ids"):
        exercises.check_tying_initial_loss(initial_losses, _TinyLM, TYING_IDS.float(), 8, *PREDICTED)


def test_tying_predictions(capsys):
    """Recorded before the measurement, judged after it: any prediction of the right kind is recorded."""
    for head in ("tied", "untied"):
        for trend in ("rises", "falls", "stays"):
            assert exercises.check_tying_predictions(head, trend)
    assert capsys.readouterr().out.startswith("correct: both predictions are recorded; the measurement below")
    with pytest.raises(ValueError, match=r"predicted_trend must be one of \('rises', 'falls', 'stays'\), got 'up'"):
        exercises.check_tying_predictions("untied", "up")
    with pytest.raises(ValueError, match="predicted_uniform_head must be one of"):
        exercises.check_tying_predictions(True, "rises")


def test_tying_predictions_judged_by_the_losses(initial_losses):
    with pytest.raises(exercises.ExerciseError, match="your losses are right, but your predicted_uniform_head, 'tied'"):
        exercises.check_tying_initial_loss(initial_losses, _TinyLM, TYING_IDS, 8, "tied", "rises")
    with pytest.raises(exercises.ExerciseError, match="your losses are right, but your predicted_trend, 'stays'"):
        exercises.check_tying_initial_loss(initial_losses, _TinyLM, TYING_IDS, 8, "untied", "stays")
    with pytest.raises(ValueError, match="predicted_trend must be one of"):
        exercises.check_tying_initial_loss(initial_losses, _TinyLM, TYING_IDS, 8, "untied", "up")
