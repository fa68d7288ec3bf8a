"""Notebook 2's checkers accept a right answer and reject a wrong one with a hint."""


import pytest
import torch
import torch.nn as nn

from utils.exercises import nb02 as exercises


def test_embedding_shapes():
    assert exercises.check_embedding_shapes((100, 32), (8, 16, 32))
    with pytest.raises(exercises.ExerciseError, match=r"weight_shape = \(32, 100\).*nn.Linear's order"):
        exercises.check_embedding_shapes((32, 100), (8, 16, 32))
    with pytest.raises(exercises.ExerciseError, match=r"output_shape = \(8, 32\), expected \(8, 16, 32\)"):
        exercises.check_embedding_shapes((100, 32), (8, 32))

def test_pretrained_embedding():
    vectors = torch.randn(6, 3, generator=torch.Generator().manual_seed(0))
    right = nn.Embedding.from_pretrained(vectors.clone(), freeze=False, padding_idx=0)
    assert exercises.check_pretrained_embedding(right, vectors)

    with pytest.raises(exercises.ExerciseError, match="frozen.*freeze=False"):
        exercises.check_pretrained_embedding(nn.Embedding.from_pretrained(vectors.clone(), padding_idx=0), vectors)
    with pytest.raises(exercises.ExerciseError, match="shares memory.*clone"):
        exercises.check_pretrained_embedding(
            nn.Embedding.from_pretrained(vectors, freeze=False, padding_idx=0), vectors)
    with pytest.raises(exercises.ExerciseError, match="padding_idx is None, expected 0"):
        exercises.check_pretrained_embedding(nn.Embedding.from_pretrained(vectors.clone(), freeze=False), vectors)
    with pytest.raises(exercises.ExerciseError, match="does not hold the pretrained vectors"):
        exercises.check_pretrained_embedding(nn.Embedding(6, 3, padding_idx=0), vectors)
    with pytest.raises(exercises.ExerciseError, match="expected an nn.Embedding, got Tensor"):
        exercises.check_pretrained_embedding(vectors, vectors)

def test_max_norm_rows():
    weight = torch.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0], [0.0, 2.0]])  # norms 5, 0.5, 10, 2
    ids = torch.tensor([0, 1, 1, 3])
    assert exercises.check_max_norm_rows([0, 3], weight, ids, max_norm=1.0)
    assert exercises.check_max_norm_rows([3, 0, 3], weight, ids, max_norm=1.0)  # order and repeats do not matter
    with pytest.raises(exercises.ExerciseError, match=r"rows = \[0, 2, 3\], expected \[0, 3\].*looked up AND"):
        exercises.check_max_norm_rows([0, 2, 3], weight, ids, max_norm=1.0)  # row 2 is never looked up
    with pytest.raises(exercises.ExerciseError, match=r"rows = \[0, 1, 3\], expected \[0, 3\]"):
        exercises.check_max_norm_rows([0, 1, 3], weight, ids, max_norm=1.0)  # row 1 is short enough
    with pytest.raises(exercises.ExerciseError, match="rows must be a list of row numbers"):
        exercises.check_max_norm_rows(["a"], weight, ids, max_norm=1.0)
    assert torch.equal(weight[0], torch.tensor([3.0, 4.0]))  # the checker works on a copy
