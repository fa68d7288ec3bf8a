"""Notebook 2's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import pytest
import torch
import torch.nn as nn

from utils.exercises import nb02 as exercises


def mean_of_real_tokens(padded, embedding, pad_id):
    """Exercise 2.1's worked answer."""
    real = (padded != pad_id).unsqueeze(-1)
    return embedding(padded).masked_fill(~real, 0.0).sum(dim=1) / real.sum(dim=1)


def mean_by_multiplying(padded, embedding, pad_id):
    """Right for finite tables only: a pad row holding inf or NaN times 0 is NaN."""
    real = (padded != pad_id).unsqueeze(-1)
    return (embedding(padded) * real).sum(dim=1) / real.sum(dim=1)


def mean_by_where(padded, embedding, pad_id):
    """Right too: torch.where selects, it does not multiply."""
    real = (padded != pad_id).unsqueeze(-1)
    return torch.where(real, embedding(padded), 0.0).sum(dim=1) / real.sum(dim=1)


@pytest.mark.parametrize(("function", "expected"), [
    (mean_of_real_tokens, "pass"),
    (mean_by_where, "pass"),
    (mean_by_multiplying, r"whose pad row holds inf\. Hint: NaN where the real tokens are finite: 0 · inf and"),
    (lambda padded, embedding, pad_id: embedding(padded).mean(dim=1), "the pad positions were counted"),
    (lambda padded, embedding, pad_id: embedding(padded).sum(dim=1) / (padded != pad_id).sum(dim=1, keepdim=True),
     "they are zero only with padding_idx"),  # every row summed, pad rows included, then divided by the real ones
    (lambda padded, embedding, pad_id: (embedding(padded) * (padded != pad_id).unsqueeze(-1)).sum(dim=1),
     "that is the sum over the real tokens"),
    (lambda padded, embedding, pad_id: mean_of_real_tokens(padded, embedding, pad_id) * 3.0, "mask the pad"),
    (lambda padded, embedding, pad_id: embedding(padded), r"one vector per sentence, \(B, d\)"),
    (lambda padded, embedding, pad_id: mean_of_real_tokens(padded, embedding, pad_id).tolist(), "returned list"),
    ("mean_of_real_tokens", "pass your function itself"),
])
def test_mean_of_real_tokens(judge, function, expected):
    judge(exercises.check_mean_of_real_tokens, (function,), expected)


@pytest.mark.parametrize(("guess", "expected"), [
    ({0}, "pass"),
    (frozenset({0}), "pass"),
    ({0, 1}, r"rows \[1\] are looked up by no id"),  # weight decay moves a row no id looks up
    ({0, 4}, "a row that an id looks up gets a gradient"),
    (set(), "what gradient does the padding row get"),
    ([0], "unchanged_rows must look like"),
    ("zero", "unchanged_rows must look like"),
    (..., "record your prediction in unchanged_rows first"),
])
def test_unchanged_rows_prediction(judge, guess, expected):
    judge(exercises.check_unchanged_rows, (guess,), expected)


def test_unchanged_rows_prediction_judges_nothing_yet(capsys):
    assert exercises.check_unchanged_rows(None) is None
    expected = "not answered yet: fill in unchanged_rows above, then run this cell again\n"
    assert capsys.readouterr().out == expected


EX_VECTORS = torch.randn(5, 4, generator=torch.Generator().manual_seed(11))  # the notebook's ex_vectors


@pytest.mark.parametrize(("changed_rows", "row_2_change", "expected"), [
    ({0, 2}, -4.0, "pass"),
    (frozenset({0, 2}), -4, "pass"),
    ({2}, -4.0, "padding_idx=0 is b's option"),
    (set(), -4.0, "padding_idx=0 is b's option"),
    ({0, 2, 3}, -4.0, "which rows did a and b look up"),
    ({0, 2}, -2.0, "does from_pretrained copy it"),
    ({0, 2}, -1.0, "looked up twice"),
    ({0, 2}, 4.0, "SGD subtracts"),
    ({0, 2}, -0.5, "the gradient of a sum is 1"),
    (..., -4.0, "record your prediction in changed_rows first"),
    ([0, 2], -4.0, "changed_rows must look like"),
    ({0, 2}, ..., "record your prediction in row_2_change first"),
    ({0, 2}, True, "row_2_change must look like"),
])
def test_shared_step_prediction(judge, changed_rows, row_2_change, expected):
    judge(exercises.check_shared_step_prediction, (changed_rows, row_2_change, EX_VECTORS), expected, never=("-4.0",))


@pytest.mark.parametrize(("changed_rows", "row_2_change", "named"), [
    (None, -4.0, "changed_rows"), ({0, 2}, None, "row_2_change"), (None, None, "changed_rows and row_2_change")])
def test_no_guess_yet_judges_nothing(capsys, changed_rows, row_2_change, named):
    """Run top to bottom before the learner guesses: one line asking for the guess, no verdict, no failure."""
    assert exercises.check_shared_step_prediction(changed_rows, row_2_change, EX_VECTORS) is None
    assert capsys.readouterr().out == f"not answered yet: fill in {named} above, then run this cell again\n"


def checked_lookup(embedding, ids):
    """Exercise 2.3's worked answer."""
    bad = (ids < 0) | (ids >= embedding.num_embeddings)
    if bad.any():
        found = [f"{ids[b, t].item()} at ({b}, {t})" for b, t in bad.nonzero().tolist()]
        raise ValueError(f"token ids out of range: {', '.join(found)}")
    return embedding(ids)


def first_only(embedding, ids):
    """Exercise 2.3 as it was: the first bad id and its position only."""
    bad = (ids < 0) | (ids >= embedding.num_embeddings)
    if bad.any():
        position = tuple(bad.nonzero()[0].tolist())
        raise ValueError(f"token id {ids[position].item()} at position {position} is out of range")
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


def no_position(embedding, ids):
    bad = (ids < 0) | (ids >= embedding.num_embeddings)
    if bad.any():
        raise ValueError(f"token ids {ids[bad].tolist()} are out of range")
    return embedding(ids)


TYPED = checked_lookup(nn.Embedding(5, 3), torch.tensor([[0, 4], [4, 1]]))  # rows of another table


@pytest.mark.parametrize(("function", "expected"), [
    (checked_lookup, "pass"),
    (lambda embedding, ids: embedding(ids), "raised the layer's IndexError: check before the layer sees the ids"),
    (lambda embedding, ids: embedding(ids.clamp(0, 4)), r"tensor\(\[\[0, 4, 1\], \[2, 7, 9\]\]\)\) raised nothing"),
    (only_too_large, r"raised ValueError\('token id 9 is too large'\): name every bad id, 7, 9"),
    (raises_vaguely, r"raised ValueError\('bad id'\): name every bad id, 7, 9"),
    (first_only, r"at position \(1, 1\) is out of range'\): name every bad id, 7, 9"),
    (no_position, r"name every bad id's position \(b, t\) too"),
    (too_late, r"for ids \[\[0, 4, 1\], \[2, 7, 9\]\] the layer was called before the ValueError"),
    (lambda embedding, ids: embedding.weight[ids.long()].flip(0), "for the valid torch.int64 ids"),
    (lambda embedding, ids: TYPED, "for the valid torch.int64 ids"),
    (TYPED, "pass your function itself"),
])
def test_checked_lookup(judge, function, expected):
    judge(exercises.check_checked_lookup, (function,), expected)


@pytest.mark.parametrize(("row_gradients", "expected"), [
    ([1, 1, 1, 1, 0, 4], "pass"),
    ((1.0, 1.0, 1.0, 1.0, 0.0, 4.0), "pass"),
    ([1, 1, 1, 1, 2, 2], "is not the gradient each row gets. Hint: -1 counts from the end of this table"),
    ([1, 1, 1, 1, 0, 2], "Hint: 2 is what the two uses of id 5 send its row"),
    ([1, 1, 1, 1, 0, 3], "Hint: plain indexing counts a negative index from the end"),
    ([1, 1, 1, 1, 4], "row_gradients must be a list of 6 numbers, one per row, got"),
    ("4", "row_gradients must be a list of 6 numbers"),
    ([True, 1, 1, 1, 0, 4], "row_gradients must be a list of 6 numbers"),
])
def test_pad_gradient(judge, row_gradients, expected):
    judge(exercises.check_pad_gradient, (row_gradients,), expected)


def test_pad_gradient_without_a_guess_judges_nothing(capsys):
    assert exercises.check_pad_gradient(None) is None
    assert capsys.readouterr().out == "not answered yet: fill in row_gradients above, then run this cell again\n"
