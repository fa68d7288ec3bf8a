"""Notebook 7's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import math

import pytest
import torch
import torch.nn as nn

from utils.exercises import nb07 as exercises

IDS, OFFSETS = torch.tensor([1, 2, 1, 3, 0]), torch.tensor([0, 3, 3])
WEIGHT = torch.randn(4, 3, generator=torch.Generator().manual_seed(0))  # the table W [V, d]
BAG_MEANS = torch.tensor([[0, 2 / 3, 1 / 3, 0], [0, 0, 0, 0], [0.5, 0, 0, 0.5]])
COUNTS = torch.tensor([[0, 2.0, 1, 0], [0, 0, 0, 0], [1, 0, 0, 1]])


@pytest.mark.parametrize(("matrix", "weight", "expected"), [
    (BAG_MEANS, WEIGHT, "pass"),
    (COUNTS, WEIGHT, r"row 0 .* these are the counts \(mode='sum'\)"),
    (torch.tensor([[0, 0.5, 0.5, 0], [0, 0, 0, 0], [0.5, 0, 0, 0.5]]), WEIGHT,
     "row 0 .* counts once per occurrence"),  # "1" counted once in bag 0
    (BAG_MEANS.index_fill(0, torch.tensor([1]), float("nan")), WEIGHT, "NaN: an empty bag"),
    (BAG_MEANS[:2], WEIGHT, r"shape \(2, 4\), expected \(3, 4\)"),
    (COUNTS.long(), WEIGHT, "must be a float tensor"),
    (BAG_MEANS.tolist(), WEIGHT, "must be a torch.Tensor"),
    (BAG_MEANS, 4, (TypeError, "weight must be the table W")),
])
def test_bag_mean_matrix(judge, matrix, weight, expected):
    judge(exercises.check_bag_mean_matrix, (matrix, IDS, OFFSETS, weight), expected, never=("0.66", "0.33"))


class TinyLM(nn.Module):  # notebook 7's model
    def __init__(self, vocab_size, d_model, context_length, tie):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(context_length, d_model)
        self.block = nn.Linear(d_model, d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        if tie:
            self.lm_head.weight = self.tok_emb.weight

    def forward(self, ids):
        x = self.tok_emb(ids) + self.pos_emb(torch.arange(ids.shape[1]))
        return self.lm_head(torch.tanh(self.block(x)))


class Scaled(TinyLM):  # a tied table re-initialised small: no longer the lesson's model
    def __init__(self, vocab_size, d_model, context_length, tie):
        super().__init__(vocab_size, d_model, context_length, tie)
        nn.init.normal_(self.tok_emb.weight, std=0.02)


TYING_IDS = torch.randint(0, exercises.TYING_EXERCISE_VOCAB, (4, 9), generator=torch.Generator().manual_seed(7))
PREDICTED = ("untied", "rises", "stays")  # Exercise 7.2's predictions, the ones the losses show


def initial_losses(model_class=TinyLM):
    """Exercise 7.2's worked answer."""
    losses = {}
    for dim in exercises.TYING_EXERCISE_DIMS:
        for tie in (True, False):
            torch.manual_seed(0)
            logits = model_class(exercises.TYING_EXERCISE_VOCAB, dim, 8, tie)(TYING_IDS[:, :-1])
            losses[(dim, tie)] = nn.functional.cross_entropy(logits.flatten(0, 1), TYING_IDS[:, 1:].flatten()).item()
    return losses


LOSSES = initial_losses()


@pytest.mark.parametrize(("losses", "model_class", "ids", "predicted", "expected"), [
    (LOSSES, TinyLM, TYING_IDS, PREDICTED, "pass"),
    ({key: torch.tensor(loss) for key, loss in LOSSES.items()}, TinyLM, TYING_IDS, PREDICTED, "pass"),  # tensors
    ({(dim, tie): LOSSES[(dim, not tie)] for dim, tie in LOSSES}, TinyLM, TYING_IDS, PREDICTED,
     r"initial_loss\[\(16, False\)\] = .*the loss of the tied model"),
    ({**LOSSES, (64, True): math.log(exercises.TYING_EXERCISE_VOCAB)}, TinyLM, TYING_IDS, PREDICTED,
     r"\(64, True\).*that is ln V, the uniform guess"),
    ({**LOSSES, (256, True): LOSSES[(256, True)] + 1}, TinyLM, TYING_IDS, PREDICTED,
     r"\(256, True\).*right after torch.manual_seed\(0\)"),
    ({(dim, tie): (10.0 + dim / 32 if tie else 6.9) for dim, tie in LOSSES}, TinyLM, TYING_IDS, PREDICTED,
     r"initial_loss\[\(16, False\)\] = 6.900 is not the loss"),  # typed in: plausible numbers
    (initial_losses(Scaled), Scaled, TYING_IDS, PREDICTED, "pass the notebook's TinyLM, unchanged"),
    (LOSSES, TinyLM, TYING_IDS, ("tied", "rises", "stays"), "your losses are right, but your predicted_closer, 'tied'"),
    (LOSSES, TinyLM, TYING_IDS, ("untied", "stays", "stays"), "your losses are right, but your tied_trend, 'stays'"),
    (LOSSES, TinyLM, TYING_IDS, ("untied", "rises", "rises"), "your losses are right, but your untied_trend, 'rises'"),
    (LOSSES, TinyLM, TYING_IDS, ("untied", "rises", "falls"), "your losses are right, but your untied_trend, 'falls'"),
    (LOSSES, TinyLM, TYING_IDS, ("untied", "up", "stays"), (ValueError, "tied_trend must be one of")),
    (list(LOSSES.values()), TinyLM, TYING_IDS, PREDICTED, "initial_loss must be a dict"),
    ({k: v for k, v in LOSSES.items() if k != (256, False)}, TinyLM, TYING_IDS, PREDICTED,
     r"missing \[\(256, False\)\]"),
    ({**LOSSES, (8, True): 1.0}, TinyLM, TYING_IDS, PREDICTED, r"unexpected \[\(8, True\)\]"),
    ({**LOSSES, (16, True): "7.0"}, TinyLM, TYING_IDS, PREDICTED, (TypeError, r"initial_loss\[\(16, True\)\] must be")),
    (LOSSES, "TinyLM", TYING_IDS, PREDICTED, (TypeError, "model_class must be the model's class")),
    (LOSSES, TinyLM, TYING_IDS.float(), PREDICTED, (ValueError, "ids must be a 2-D tensor of token ids")),
])
def test_tying_initial_loss(judge, losses, model_class, ids, predicted, expected):
    wrong = sorted(key for key, loss in LOSSES.items()  # the first is the key the checker reports
                   if isinstance(losses, dict) and bool(losses.get(key, loss) != loss))[:1]
    judge(exercises.check_tying_initial_loss, (losses, model_class, ids, 8, *predicted), expected,
          never=[f"{LOSSES[key]:{digits}}" for key in wrong for digits in (".3f", ".2f")])  # never the right loss


def test_tying_initial_loss_leaves_the_global_rng_alone():
    torch.manual_seed(123)
    state = torch.get_rng_state()
    exercises.check_tying_initial_loss(LOSSES, TinyLM, TYING_IDS, 8, *PREDICTED)
    assert torch.equal(torch.get_rng_state(), state)


TRENDS = ("rises", "falls", "stays")


@pytest.mark.parametrize(("predicted", "expected"), [
    *[((head, tied, untied), "recorded") for head in ("tied", "untied") for tied in TRENDS for untied in TRENDS],
    ((None, "rises", "stays"), r"record your prediction in predicted_closer first"),
    (("untied", "rises", None), r"record your prediction in untied_trend first"),
    (("untied", "up", "stays"), (ValueError, r"tied_trend must be one of \('rises', 'falls', 'stays'\), got 'up'")),
    ((True, "rises", "stays"), (ValueError, "predicted_closer must be one of")),
])
def test_tying_predictions(judge, capsys, predicted, expected):
    """Recorded before the measurement, judged after it: any prediction of the right kind is recorded
    ("recorded:", never "correct:"); a guess still None is refused."""
    if expected == "recorded":
        assert exercises.check_tying_predictions(*predicted) is True
        assert capsys.readouterr().out.splitlines()[-1].startswith("recorded: ")
        return
    judge(exercises.check_tying_predictions, predicted, expected)
