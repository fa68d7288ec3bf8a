"""Notebook 7's checkers: the worked answer passes, and each listed wrong answer (a typed-in one among them)
fails with its hint, never the answer itself."""

import functools
import math
import re

import torch
import torch.nn as nn

from tests.unit.exercises.checker_table import checker_tests
from utils.exercises import nb07 as exercises
from utils.exercises.checking import ExerciseError as E

IDS, OFFSETS = torch.tensor([1, 2, 1, 3, 0]), torch.tensor([0, 3, 3])
W = torch.randn(4, 3, generator=torch.Generator().manual_seed(0))  # the table W [V, d]
A = torch.tensor([[0, 2 / 3, 1 / 3, 0], [0, 0, 0, 0], [0.5, 0, 0, 0.5]])
COUNTS = torch.tensor([[0, 2.0, 1, 0], [0, 0, 0, 0], [1, 0, 0, 1]])


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


TOKENS = torch.randint(0, exercises.TYING_EXERCISE_VOCAB, (4, 9), generator=torch.Generator().manual_seed(7))


@functools.cache
def losses(model_class=TinyLM):
    """Exercise 7.2's worked answer: each model's loss at initialisation."""
    result = {}
    for dim in exercises.TYING_EXERCISE_DIMS:
        for tie in (True, False):
            torch.manual_seed(0)
            logits = model_class(exercises.TYING_EXERCISE_VOCAB, dim, 8, tie)(TOKENS[:, :-1])
            result[(dim, tie)] = nn.functional.cross_entropy(logits.flatten(0, 1), TOKENS[:, 1:].flatten()).item()
    return result


def tying(changes=None, model_class=TinyLM, tokens=TOKENS, answer=None):
    answer = dict(losses()) if answer is None else answer
    return ({**answer, **(changes or {})}, model_class, tokens, 8)


WORKED = [
    ("check_bag_mean_matrix", lambda: (A, IDS, OFFSETS, W)),
    ("check_tying_initial_loss", tying),
    ("check_tying_initial_loss", lambda: tying({key: torch.tensor(loss) for key, loss in losses().items()})),
]
WRONG = [
    ("check_bag_mean_matrix", lambda: (A, IDS, OFFSETS, 4), TypeError, "weight must be the table W"),
    ("check_bag_mean_matrix", lambda: (COUNTS, IDS, OFFSETS, W), E, r"row 0 .* these are the counts \(mode='sum'\)"),
    ("check_bag_mean_matrix", lambda: (A.index_fill(0, torch.tensor([1]), float("nan")), IDS, OFFSETS, W), E,
     "NaN: an empty bag"),
    ("check_bag_mean_matrix", lambda: (A[:2], IDS, OFFSETS, W), E, r"shape \(2, 4\), expected \(3, 4\)"),
    ("check_bag_mean_matrix", lambda: (COUNTS.long(), IDS, OFFSETS, W), E, "must be a float tensor"),
    ("check_bag_mean_matrix", lambda: (A.tolist(), IDS, OFFSETS, W), E, "must be a torch.Tensor"),
    ("check_bag_mean_matrix", lambda: (torch.tensor([[0, 0.5, 0.5, 0], [0, 0, 0, 0], [0.5, 0, 0, 0.5]]), IDS, OFFSETS,
                                       W), E, "row 0 .* counts once per occurrence"),  # "1" counted once in bag 0
    ("check_tying_initial_loss", lambda: tying(answer={(d, not t): loss for (d, t), loss in losses().items()}), E,
     r"initial_loss\[\(16, False\)\] = .*the loss of the tied model"),  # the two swapped
    ("check_tying_initial_loss", lambda: tying({(64, True): math.log(exercises.TYING_EXERCISE_VOCAB)}), E,
     r"\(64, True\).*that is ln V, the uniform guess"),
    ("check_tying_initial_loss", lambda: tying({(256, True): losses()[(256, True)] + 1}), E,
     r"\(256, True\).*right after torch.manual_seed\(0\)"),
    ("check_tying_initial_loss", lambda: tying(model_class=Scaled, answer=dict(losses(Scaled))), E,
     "pass the notebook's TinyLM, unchanged"),
    ("check_tying_initial_loss", lambda: tying(answer={(d, t): 10.0 + d / 32 if t else 6.9 for d, t in losses()}), E,
     r"initial_loss\[\(16, False\)\] = 6.900 is not the loss"),  # typed in: plausible numbers
    ("check_tying_initial_loss", lambda: (list(losses().values()), TinyLM, TOKENS, 8), TypeError,
     "initial_loss must be a dict"),
    ("check_tying_initial_loss", lambda: tying(answer={k: v for k, v in losses().items() if k != (256, False)}),
     ValueError, r"missing \[\(256, False\)\]"),
    ("check_tying_initial_loss", lambda: tying({(8, True): 1.0}), ValueError, r"unexpected \[\(8, True\)\]"),
    ("check_tying_initial_loss", lambda: tying({(16, True): "7.0"}), TypeError,
     r"initial_loss\[\(16, True\)\] must be a number"),
    ("check_tying_initial_loss", lambda: tying(model_class="TinyLM"), TypeError,
     "model_class must be the model's class"),
    ("check_tying_initial_loss", lambda: tying(tokens=TOKENS.float()), ValueError,
     "ids must be a 2-D tensor of token ids"),
]


#: what no message may show: a loss in a hint, the fractions of a mean row
ANSWERS = [re.compile(r"Hint:.*\d\.\d\d"), "0.66", "0.33"]
test_the_worked_answer_passes, test_a_wrong_answer_fails_with_its_hint = checker_tests(exercises, WORKED, WRONG,
                                                                                       ANSWERS)


def test_the_checker_leaves_the_learners_generator_alone():
    answer = tying()
    torch.manual_seed(123)
    state = torch.get_rng_state()
    exercises.check_tying_initial_loss(*answer)
    assert torch.equal(torch.get_rng_state(), state)
