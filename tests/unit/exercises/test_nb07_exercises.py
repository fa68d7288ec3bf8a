"""Notebook 7's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import math

import pytest
import torch
import torch.nn as nn

from utils.exercises import nb07 as exercises

WEIGHT = torch.randn(13, 3, generator=torch.Generator().manual_seed(0))  # the table W [V, d]
ROWS = exercises.mystery_bag_rows(13)  # (4, V): bags of 4, 6, 0 and 8 ids
FLAT = torch.tensor([id_ for bag in exercises.MYSTERY_BAGS for id_ in bag])
OFFSETS = torch.tensor([0, 4, 10, 10])


def test_mystery_rows_are_embedding_bags_own():
    assert torch.allclose(ROWS @ WEIGHT, torch.nn.functional.embedding_bag(FLAT, WEIGHT, OFFSETS, mode="mean"))


@pytest.mark.parametrize(("ids", "offsets", "weight", "expected"), [
    (FLAT, OFFSETS, WEIGHT, "pass"),
    (torch.tensor([id_ for bag in exercises.MYSTERY_BAGS for id_ in bag[::-1]]), OFFSETS, WEIGHT, "pass"),  # reordered
    (torch.cat([FLAT[:4], FLAT[:4], FLAT[4:]]), torch.tensor([0, 8, 14, 14]), WEIGHT, "pass"),  # bag 0 twice over
    (FLAT, torch.tensor([0, 4, 10, 11]), WEIGHT, "bag 2 .*this row is all zeros"),
    (FLAT[1:], torch.tensor([0, 3, 9, 9]), WEIGHT, "bag 0 .*which length makes every entry"),  # one "cat" short
    (torch.cat([FLAT[:4], FLAT[10:]]), torch.tensor([0, 4, 4, 4]), WEIGHT, "bag 1 .*that bag is empty"),
    (FLAT, OFFSETS[:3], WEIGHT, "my_offsets has 3 entries"),
    (FLAT, torch.tensor([0, 10, 4, 10]), WEIGHT, "never decrease"),
    (FLAT.float(), OFFSETS, WEIGHT, "1-D tensor of whole numbers"),
    (FLAT.tolist(), OFFSETS, WEIGHT, "must be a torch.Tensor"),
    (FLAT + 13, OFFSETS, WEIGHT, "ids outside"),
    (FLAT, OFFSETS, 4, (TypeError, "weight must be the table W")),
])
def test_bag_mean_ids(judge, ids, offsets, weight, expected):
    judge(exercises.check_bag_mean_ids, (ids, offsets, ROWS, weight), expected, never=("[0, 4, 10, 10]",))


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


# the notebook's ex_ids: 16 sequences of context_length + 1 = 9 ids
TYING_IDS = torch.randint(0, exercises.TYING_EXERCISE_VOCAB, (16, 9), generator=torch.Generator().manual_seed(7))


def largest_of(count):
    """Notebook 5's formula: about how many stds the largest of ``count`` N(0, 1) draws lies above 0."""
    a = math.sqrt(2 * math.log(count))
    return a - (math.log(math.log(count)) + math.log(4 * math.pi) - 2 * 0.5772) / (2 * a)


torch.manual_seed(0)
with torch.no_grad():  # the tied logits' std at d = 256, which the notebook prints before the prediction
    STD = TinyLM(exercises.TYING_EXERCISE_VOCAB, 256, 8, True)(TYING_IDS[:, :-1]).std().item()
PREDICTED = largest_of(1_000) * STD  # Exercise 7.2's worked answer: 3.27 stds


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
    (LOSSES, TinyLM, TYING_IDS, math.log(exercises.TYING_EXERCISE_VOCAB),
     "your predicted_largest_logit, 6.9, is not within 10%.*that is ln V"),
    # every sound estimate of the largest of 1,000 draws passes: its median (3.20 stds), its most likely value
    # (3.12), the 1-in-1,000 tail (3.09), a simulation of it (3.25); sqrt(2 ln V) alone (3.72, 13% over) does not
    (LOSSES, TinyLM, TYING_IDS, 3.205 * STD, "pass"),
    (LOSSES, TinyLM, TYING_IDS, 3.117 * STD, "pass"),
    (LOSSES, TinyLM, TYING_IDS, 3.090 * STD, "pass"),
    (LOSSES, TinyLM, TYING_IDS, math.sqrt(2 * math.log(1_000)) * STD,
     "your predicted_largest_logit, 33.9, is not within 10%.*only the first term"),
    (LOSSES, TinyLM, TYING_IDS, torch.randn(10_000, 1_000, generator=torch.Generator().manual_seed(0)).max(dim=1)
     .values.mean().item() * STD, "pass"),
    # Going deeper's V = 10,000 shortcuts: its constant, 3.87 stds, and its tied loss 34.41 scaled by the stds
    (LOSSES, TinyLM, TYING_IDS, largest_of(10_000) * STD, "your predicted_largest_logit, 35.3, is not within 10%"),
    (LOSSES, TinyLM, TYING_IDS, 34.41 / 9.01 * STD, "your predicted_largest_logit, 34.8, is not within 10%"),
    (LOSSES, TinyLM, TYING_IDS, 39.0, "your predicted_largest_logit, 39.0.*factor 4.25 is for 50,257 logits"),
    (LOSSES, TinyLM, TYING_IDS, 2 * STD, "your predicted_largest_logit, 18.2.*how many stds above 0"),  # too near 0
    (LOSSES, TinyLM, TYING_IDS, 60.0, "your predicted_largest_logit, 60.0.*notebook 5's formula"),
    (LOSSES, TinyLM, TYING_IDS, "30", (TypeError, "predicted_largest_logit must be a number")),
    (list(LOSSES.values()), TinyLM, TYING_IDS, PREDICTED, "initial_loss must be a dict"),
    ({k: v for k, v in LOSSES.items() if k != (256, False)}, TinyLM, TYING_IDS, PREDICTED,
     r"missing \[\(256, False\)\]"),
    ({**LOSSES, (8, True): 1.0}, TinyLM, TYING_IDS, PREDICTED, r"unexpected \[\(8, True\)\]"),
    ({**LOSSES, (16, True): "7.0"}, TinyLM, TYING_IDS, PREDICTED, (TypeError, r"initial_loss\[\(16, True\)\] must be")),
    (LOSSES, "TinyLM", TYING_IDS, PREDICTED, (TypeError, "model_class must be the model's class")),
    (LOSSES, TinyLM, TYING_IDS.float(), PREDICTED, (ValueError, "ids must be a 2-D tensor of token ids")),
])
def test_tied_largest_logit(judge, losses, model_class, ids, predicted, expected):
    wrong = sorted(key for key, loss in LOSSES.items()  # the first is the key the checker reports
                   if isinstance(losses, dict) and bool(losses.get(key, loss) != loss))[:1]
    judge(exercises.check_tied_largest_logit, (losses, model_class, ids, 8, predicted), expected,
          never=[f"{LOSSES[key]:{digits}}" for key in wrong for digits in (".3f", ".2f")])  # never the right loss


def test_tied_largest_logit_leaves_the_global_rng_alone():
    torch.manual_seed(123)
    state = torch.get_rng_state()
    exercises.check_tied_largest_logit(LOSSES, TinyLM, TYING_IDS, 8, PREDICTED)
    assert torch.equal(torch.get_rng_state(), state)


def test_right_losses_with_the_predictions_not_made_yet_ask_for_them(capsys):
    """A learner who measured before predicting: the losses pass, and one line asks for the prediction."""
    assert exercises.check_tied_largest_logit(LOSSES, TinyLM, TYING_IDS, 8, None) is None
    assert capsys.readouterr().out == ("not answered yet: fill in predicted_largest_logit above, then run this cell "
                                       "again\n")


def test_the_notebook_cell_with_a_loss_still_none_is_not_answered(capsys):
    """The notebook's cell builds the six models and leaves None where each loss goes: nothing is judged yet."""
    assert exercises.check_tied_largest_logit({**LOSSES, (64, False): None}, TinyLM, TYING_IDS, 8, PREDICTED) is None
    assert capsys.readouterr().out.startswith("not answered yet: fill in initial_loss ")
