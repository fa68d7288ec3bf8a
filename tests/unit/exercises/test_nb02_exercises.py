"""Notebook 2's checkers accept the worked answer and reject each listed wrong one with its hint."""


import pytest
import torch
import torch.nn as nn

from utils.exercises import nb02 as exercises


def mean_of_real_tokens(padded, embedding, pad_id):
    """The worked answer."""
    real = (padded != pad_id).unsqueeze(-1)
    return (embedding(padded) * real).sum(dim=1) / real.sum(dim=1)


def test_mean_of_real_tokens_right(capsys):
    assert exercises.check_mean_of_real_tokens(mean_of_real_tokens) is True
    assert capsys.readouterr().out == ("correct: mean_of_real_tokens matched the checker's masked mean on 2 batches, "
                                       "with and without padding_idx\n")


def _counted_real(padded, embedding, pad_id):  # sums every row, pad rows included, then divides by the real ones
    return embedding(padded).sum(dim=1) / (padded != pad_id).sum(dim=1, keepdim=True)


@pytest.mark.parametrize(
    ("function", "message"),
    [
        (lambda padded, embedding, pad_id: embedding(padded).mean(dim=1), "the pad positions were counted"),
        (_counted_real, "they are zero only with padding_idx"),
        (lambda padded, embedding, pad_id: mean_of_real_tokens(padded, embedding, pad_id) * 3.0, "mask the pad"),
        (lambda padded, embedding, pad_id: embedding(padded), r"one vector per sentence, \(B, d\)"),
        (lambda padded, embedding, pad_id: mean_of_real_tokens(padded, embedding, pad_id).tolist(), "returned list"),
        ("mean_of_real_tokens", "pass your function itself"),
    ],
)
def test_mean_of_real_tokens_wrong(function, message):
    with pytest.raises(exercises.ExerciseError, match=message):
        exercises.check_mean_of_real_tokens(function)


def test_mean_of_real_tokens_sum_over_real_tokens():
    def real_sum(padded, embedding, pad_id):
        return (embedding(padded) * (padded != pad_id).unsqueeze(-1)).sum(dim=1)

    with pytest.raises(exercises.ExerciseError, match="that is the sum over the real tokens"):
        exercises.check_mean_of_real_tokens(real_sum)


def test_shared_step_prediction_right(capsys):
    assert exercises.check_shared_step_prediction({2}, -2.0) is True
    assert exercises.check_shared_step_prediction(frozenset({2}), -2) is True
    assert capsys.readouterr().out.splitlines()[0] == ("correct: both predictions match what one SGD step on b did "
                                                       "to a.weight")


@pytest.mark.parametrize(
    ("changed_rows", "row_2_change", "message"),
    [
        (set(), -2.0, "does from_pretrained copy it"),
        ({0, 2}, -2.0, "row 0 is b's padding row"),
        ({2, 3}, -2.0, "which rows did b look up"),
        ({2}, -1.0, "looked up twice"),
        ({2}, 2.0, "SGD subtracts"),
        ({2}, -0.5, "the gradient of a sum is 1"),
        (None, -2.0, "record your prediction in changed_rows first"),
        ([2], -2.0, "changed_rows must look like"),
        ({2}, ..., "record your prediction in row_2_change first"),
        ({2}, True, "row_2_change must look like"),
    ],
)
def test_shared_step_prediction_wrong(changed_rows, row_2_change, message):
    with pytest.raises(exercises.ExerciseError, match=message) as raised:
        exercises.check_shared_step_prediction(changed_rows, row_2_change)
    assert "-2.0" not in str(raised.value).replace(f"= {row_2_change}", "")  # never the answer


def checked_lookup(embedding, ids):
    bad = (ids < 0) | (ids >= embedding.num_embeddings)
    if bad.any():
        position = tuple(bad.nonzero()[0].tolist())
        raise ValueError(f"token id {ids[position].item()} at position {position} is out of range")
    return embedding(ids)


def test_checked_lookup(capsys):
    assert exercises.check_checked_lookup(checked_lookup)
    assert capsys.readouterr().out == ("correct: checked_lookup returned the rows for valid int64 and int32 ids, and "
                                       "raised ValueError naming 7 at (1, 1) and -1 at (1, 0) before the layer saw "
                                       "them\n")

    def too_late(embedding, ids):
        out = embedding(ids.clamp(0, embedding.num_embeddings - 1))
        checked_lookup(embedding, ids)
        return out

    def only_too_large(embedding, ids):
        if (ids >= embedding.num_embeddings).any():
            raise ValueError(f"token id {ids.max().item()} is too large")
        return embedding(ids)

    wrong = [
        (lambda embedding, ids: embedding(ids), "raised the layer's IndexError: check before the layer sees the ids"),
        (lambda embedding, ids: embedding(ids.clamp(0, 4)), r"tensor\(\[\[0, 4, 1\], \[2, 7, 9\]\]\)\) raised nothing"),
        (only_too_large, r"raised ValueError\('token id 9 is too large'\): name the first bad id, 7"),
        (too_late, r"for ids \[\[0, 4, 1\], \[2, 7, 9\]\] the layer was called before the ValueError"),
        (lambda embedding, ids: embedding.weight[ids.long()].flip(0), r"for the valid torch.int64 ids"),
        (checked_lookup(nn.Embedding(5, 3), torch.tensor([1])), "pass your function itself"),
    ]
    for function, hint in wrong:
        with pytest.raises(exercises.ExerciseError, match=hint):
            exercises.check_checked_lookup(function)

    def raises_vaguely(embedding, ids):
        if ((ids < 0) | (ids >= 5)).any():
            raise ValueError("bad id")
        return embedding(ids)

    with pytest.raises(exercises.ExerciseError, match=r"raised ValueError\('bad id'\): name the first bad id, 7"):
        exercises.check_checked_lookup(raises_vaguely)
    def no_position(embedding, ids):
        bad = (ids < 0) | (ids >= embedding.num_embeddings)
        if bad.any():
            raise ValueError(f"token id {ids[bad][0].item()} is out of range")
        return embedding(ids)

    with pytest.raises(exercises.ExerciseError, match=r"name the bad id's position \(b, t\) too"):
        exercises.check_checked_lookup(no_position)
    typed = checked_lookup(nn.Embedding(5, 3), torch.tensor([[0, 4], [4, 1]]))
    with pytest.raises(exercises.ExerciseError, match=r"for the valid torch.int64 ids"):
        exercises.check_checked_lookup(lambda embedding, ids: typed)  # rows of another table
