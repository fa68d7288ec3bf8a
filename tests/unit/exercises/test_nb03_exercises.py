"""Notebook 3's checkers accept a right answer and reject a wrong one with a hint."""


import pytest
import torch
import torch.nn as nn

from utils.exercises import nb03 as exercises


def _embedding(seed=0, vocab=7, dim=3):
    torch.manual_seed(seed)
    return nn.Embedding(vocab, dim)

def test_linear_from_embedding():
    embedding = _embedding()
    right = nn.Linear(7, 3, bias=False)
    with torch.no_grad():
        right.weight.copy_(embedding.weight.T)
    assert exercises.check_linear_from_embedding(right, embedding)

    untransposed = nn.Linear(7, 3, bias=False)
    untransposed.weight = nn.Parameter(embedding.weight.detach().clone())
    with pytest.raises(exercises.ExerciseError, match=r"shape \(7, 3\), expected \(3, 7\).*\[out_features, in_f"):
        exercises.check_linear_from_embedding(untransposed, embedding)
    with pytest.raises(exercises.ExerciseError, match="copy the embedding's weight"):
        exercises.check_linear_from_embedding(nn.Linear(7, 3, bias=False), embedding)  # right shape, own numbers
    with pytest.raises(exercises.ExerciseError, match="bias=False"):
        exercises.check_linear_from_embedding(nn.Linear(7, 3), embedding)
    with pytest.raises(exercises.ExerciseError, match=r"nn.Linear\(3, 7\); expected nn.Linear\(7, 3\)"):
        exercises.check_linear_from_embedding(nn.Linear(3, 7, bias=False), embedding)
    with pytest.raises(exercises.ExerciseError, match="expected an nn.Linear"):
        exercises.check_linear_from_embedding(embedding, embedding)

def test_output_layer_from_embedding(capsys):
    embedding = _embedding()
    copied = nn.Linear(3, 7, bias=False)
    with torch.no_grad():
        copied.weight.copy_(embedding.weight)
    assert exercises.check_output_layer_from_embedding(copied, embedding)
    message = ("correct: head_ex maps a d-vector to V logits, and logit v is the dot product with emb_ex.weight[v], "
               "for every v\n")
    assert capsys.readouterr().out == message
    tied = nn.Linear(3, 7, bias=False)
    tied.weight = embedding.weight
    assert exercises.check_output_layer_from_embedding(tied, embedding)  # tied: the same Parameter, right too
    assert capsys.readouterr().out == message

    with pytest.raises(exercises.ExerciseError, match=r"nn.Linear\(7, 3\); an output layer.*nn.Linear\(3, 7, bias"):
        exercises.check_output_layer_from_embedding(nn.Linear(7, 3, bias=False), embedding)  # the input layer's layout
    with pytest.raises(exercises.ExerciseError, match="no transpose"):
        exercises.check_output_layer_from_embedding(nn.Linear(3, 7, bias=False), embedding)  # its own numbers
    transposed = nn.Linear(3, 7, bias=False)
    transposed.weight = nn.Parameter(embedding.weight.detach().T.clone())  # exercise 3.1's transpose, not needed
    with pytest.raises(exercises.ExerciseError, match=r"\[out_features, in_features\] = \[7, 3\].*no transpose"):
        exercises.check_output_layer_from_embedding(transposed, embedding)
    with pytest.raises(exercises.ExerciseError, match="bias=False"):
        exercises.check_output_layer_from_embedding(nn.Linear(3, 7), embedding)
    with pytest.raises(exercises.ExerciseError, match="expected an nn.Linear, got Embedding"):
        exercises.check_output_layer_from_embedding(embedding, embedding)
    with pytest.raises(TypeError, match="embedding must be an nn.Embedding, got Parameter"):
        exercises.check_output_layer_from_embedding(copied, embedding.weight)

def test_parameter_embedding(capsys):
    class Right(nn.Module):
        def __init__(self, v, d):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(v, d, generator=torch.Generator().manual_seed(0)))

        def forward(self, ids):
            return self.weight[ids]

    class PlainTensor(nn.Module):
        def __init__(self, v, d):
            super().__init__()
            self.weight = torch.randn(v, d, requires_grad=True)

        def forward(self, ids):
            return self.weight[ids]

    class Transposed(Right):
        def forward(self, ids):
            return self.weight[ids].flip(-1)

    module = Right(6, 4)
    assert exercises.check_parameter_embedding(module, 6, 4)
    assert capsys.readouterr().out == ("correct: MyEmbedding registers a trainable weight [num_embeddings, "
                                       "embedding_dim], returns weight[ids] for ids of shape (2, 3), and its gradient "
                                       "reaches the rows\n")
    assert module.weight.grad is None  # the checker leaves no gradient behind
    with pytest.raises(exercises.ExerciseError, match="no parameter named 'weight'.*nn.Parameter"):
        exercises.check_parameter_embedding(PlainTensor(6, 4), 6, 4)
    with pytest.raises(exercises.ExerciseError, match=r"shape \(4, 6\), expected \(6, 4\)"):
        exercises.check_parameter_embedding(Right(4, 6), 6, 4)
    with pytest.raises(exercises.ExerciseError, match="differs from weight\\[ids\\]"):
        exercises.check_parameter_embedding(Transposed(6, 4), 6, 4)
    with pytest.raises(exercises.ExerciseError, match="expected an instance"):
        exercises.check_parameter_embedding(Right, 6, 4)
