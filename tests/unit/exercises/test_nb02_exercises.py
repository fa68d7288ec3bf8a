"""Notebook 2's checkers: the worked answer passes, and each listed wrong answer (a typed-in one among them)
fails with its hint, never the answer itself."""

import torch
import torch.nn as nn

from tests.unit.exercises.checker_table import checker_tests
from utils.exercises import nb02 as exercises
from utils.exercises.checking import ExerciseError


def mean_of_real_tokens(padded, embedding, pad_id):
    real = (padded != pad_id).unsqueeze(-1)
    return (embedding(padded) * real).sum(dim=1) / real.sum(dim=1)


def checked_lookup(embedding, ids):
    bad = (ids < 0) | (ids >= embedding.num_embeddings)
    if bad.any():
        raise ValueError(f"token id {ids[bad][0].item()} is out of range")
    return embedding(ids)


def too_late(embedding, ids):
    out = embedding(ids.clamp(0, embedding.num_embeddings - 1))
    checked_lookup(embedding, ids)
    return out


def only_too_large(embedding, ids):
    if (ids >= embedding.num_embeddings).any():
        raise ValueError(f"token id {ids.max().item()} is too large")
    return embedding(ids)


def raises_vaguely(embedding, ids):
    if ((ids < 0) | (ids >= 5)).any():
        raise ValueError("bad id")
    return embedding(ids)


WORKED = [
    ("check_mean_of_real_tokens", (mean_of_real_tokens,)),
    ("check_shared_step_prediction", ({2}, -2.0)),
    ("check_shared_step_prediction", (frozenset({2}), -2)),
    ("check_checked_lookup", (checked_lookup,)),
]
WRONG = [
    ("check_mean_of_real_tokens", (lambda padded, embedding, pad_id: embedding(padded).mean(dim=1),),
     "the pad positions were counted"),
    ("check_mean_of_real_tokens", (lambda padded, embedding, pad_id: embedding(padded).sum(dim=1)
                                   / (padded != pad_id).sum(dim=1, keepdim=True),),
     "they are zero only with padding_idx"),  # every row summed, pad rows included, divided by the real ones
    ("check_mean_of_real_tokens", (lambda padded, embedding, pad_id: (
        embedding(padded) * (padded != pad_id).unsqueeze(-1)).sum(dim=1),), "that is the sum over the real tokens"),
    ("check_mean_of_real_tokens", (lambda *args: mean_of_real_tokens(*args) * 3.0,), "mask the pad"),
    ("check_mean_of_real_tokens", (lambda padded, embedding, pad_id: embedding(padded),),
     r"one vector per sentence, \(B, d\)"),
    ("check_mean_of_real_tokens", (lambda *args: mean_of_real_tokens(*args).tolist(),), "returned list"),
    ("check_mean_of_real_tokens", ("mean_of_real_tokens",), "pass your function itself"),
    ("check_shared_step_prediction", (set(), -2.0), "does from_pretrained copy it"),
    ("check_shared_step_prediction", ({0, 2}, -2.0), "row 0 is b's padding row"),
    ("check_shared_step_prediction", ({2, 3}, -2.0), "which rows did b look up"),
    ("check_shared_step_prediction", ({2}, -1.0), "looked up twice"),
    ("check_shared_step_prediction", ({2}, 2.0), "SGD subtracts"),
    ("check_shared_step_prediction", ({2}, -0.5), "the gradient of a sum is 1"),
    ("check_shared_step_prediction", (None, -2.0), "record your prediction in changed_rows first"),
    ("check_shared_step_prediction", ([2], -2.0), "changed_rows must look like"),
    ("check_shared_step_prediction", ({2}, ...), "record your prediction in row_2_change first"),
    ("check_shared_step_prediction", ({2}, True), "row_2_change must look like"),
    ("check_checked_lookup", (lambda embedding, ids: embedding(ids),),
     "raised the layer's IndexError: check before the layer sees the ids"),
    ("check_checked_lookup", (lambda embedding, ids: embedding(ids.clamp(0, 4)),),
     r"tensor\(\[0, 7\]\)\) raised nothing"),
    ("check_checked_lookup", (only_too_large,), r"tensor\(\[-1\]\)\) raised the layer's IndexError"),
    ("check_checked_lookup", (too_late,), r"for ids \[0, 7\] the layer was called before the ValueError"),
    ("check_checked_lookup", (raises_vaguely,), r"raised ValueError\('bad id'\): name the bad id, 7"),
    ("check_checked_lookup", (lambda embedding, ids: embedding.weight[ids.long()].flip(0),),
     "for the valid torch.int64 ids"),
    ("check_checked_lookup", (lambda embedding, ids: nn.Embedding(5, 3)(torch.tensor([[0, 4], [4, 1]])),),
     "for the valid torch.int64 ids"),  # typed in: rows of another table
    ("check_checked_lookup", (torch.zeros(1, 3),), "pass your function itself"),
]


test_the_worked_answer_passes, test_a_wrong_answer_fails_with_its_hint = checker_tests(
    exercises, WORKED, [(checker, args, ExerciseError, message) for checker, args, message in WRONG], ["-2.0"])
