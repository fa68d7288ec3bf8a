"""Notebook 3, nn.Embedding vs nn.Linear: the checkers of its exercises."""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from .checking import ExerciseError, correct


def check_linear_from_embedding(linear: object, embedding: object) -> bool:
    """Exercise 3.1: an ``nn.Linear`` that gives ``embedding(ids)`` on one-hot rows, exactly."""
    if not isinstance(linear, nn.Linear):
        raise ExerciseError(f"expected an nn.Linear, got {type(linear).__name__}")
    vocab_size, dim = embedding.weight.shape
    if (linear.in_features, linear.out_features) != (vocab_size, dim):
        raise ExerciseError(
            f"nn.Linear({linear.in_features}, {linear.out_features}); expected nn.Linear({vocab_size}, {dim}): "
            "in_features is the vocabulary (the one-hot width), out_features the embedding size"
        )
    if linear.bias is not None:
        raise ExerciseError("the layer has a bias, which is added to every output. Hint: bias=False")
    if tuple(linear.weight.shape) != (dim, vocab_size):
        raise ExerciseError(
            f"linear.weight has shape {tuple(linear.weight.shape)}, expected {(dim, vocab_size)}. Hint: nn.Linear "
            "stores [out_features, in_features], the transpose of the embedding's [num_embeddings, embedding_dim]."
        )
    ids = torch.arange(vocab_size, device=embedding.weight.device)
    x = F.one_hot(ids, vocab_size).to(linear.weight.dtype).to(linear.weight.device)
    with torch.no_grad():
        got, expected = linear(x).to(embedding.weight.device), embedding(ids)
    if not torch.equal(got, expected):
        raise ExerciseError(
            "linear(one_hot(ids)) differs from embedding(ids). Hint: copy the embedding's weight, "
            "transposed, into linear.weight."
        )
    return correct("linear(one_hot(ids)) == embedding(ids) for every id, exactly")


def check_output_layer_from_embedding(head: object, embedding: object) -> bool:
    """Exercise 3.2: an output layer ``nn.Linear(d, V, bias=False)`` holding the embedding's numbers.

    Its weight is ``[V, d]``, the embedding's own shape: row ``v`` gives token ``v``'s logit, and no
    transpose is needed (copied or tied, both are right).
    """
    if not isinstance(embedding, nn.Embedding):
        raise TypeError(f"embedding must be an nn.Embedding, got {type(embedding).__name__}")
    if not isinstance(head, nn.Linear):
        raise ExerciseError(f"expected an nn.Linear, got {type(head).__name__}")
    vocab_size, dim = embedding.weight.shape
    if (head.in_features, head.out_features) != (dim, vocab_size):
        raise ExerciseError(
            f"nn.Linear({head.in_features}, {head.out_features}); an output layer maps d={dim} features to "
            f"V={vocab_size} logits: nn.Linear({dim}, {vocab_size}, bias=False)"
        )
    if head.bias is not None:
        raise ExerciseError("the layer has a bias, which is added to every logit. Hint: bias=False")
    weight, table = head.weight.detach(), embedding.weight.detach().to(head.weight.device)
    if not torch.equal(weight, table):
        raise ExerciseError(
            "head.weight does not hold the embedding's numbers. Hint: copy embedding.weight into head.weight "
            f"as it is: nn.Linear({dim}, {vocab_size}) stores [out_features, in_features] = [{vocab_size}, {dim}], "
            "the embedding's own shape, so no transpose"
        )
    h = torch.randn(3, dim, generator=torch.Generator().manual_seed(0)).to(weight.device)
    with torch.no_grad():
        logits = head(h)
    if not torch.allclose(logits, h @ table.T, rtol=1e-5, atol=1e-6):
        raise ExerciseError("head(h) differs from h @ emb_ex.weight.T: logit v must be the dot product of h with row v")
    return correct("head_ex maps a d-vector to V logits, and logit v is the dot product with emb_ex.weight[v], "
                   "for every v")


def check_parameter_embedding(module: object, num_embeddings: int, embedding_dim: int) -> bool:
    """Exercise 3.3: a module holding an ``nn.Parameter`` ``weight [V, d]`` whose forward indexes it."""
    if not isinstance(module, nn.Module):
        raise ExerciseError(f"expected an instance of your nn.Module subclass, got {type(module).__name__}")
    parameters = dict(module.named_parameters())
    if "weight" not in parameters:
        raise ExerciseError(
            f"the module has no parameter named 'weight' (its parameters: {sorted(parameters)}). Hint: a plain tensor "
            "attribute is not registered; wrap it: self.weight = nn.Parameter(...)"
        )
    weight = parameters["weight"]
    if tuple(weight.shape) != (num_embeddings, embedding_dim):
        raise ExerciseError(f"weight has shape {tuple(weight.shape)}, expected {(num_embeddings, embedding_dim)}")
    ids = torch.tensor([[1, 0, 1], [num_embeddings - 1, 2 % num_embeddings, 1]], device=weight.device)
    out = module(ids)
    if not isinstance(out, torch.Tensor) or tuple(out.shape) != (2, 3, embedding_dim):
        raise ExerciseError(
            f"module(ids) for ids of shape (2, 3) returned shape {tuple(getattr(out, 'shape', ()))}, "
            f"expected {(2, 3, embedding_dim)}"
        )
    if not torch.equal(out, weight[ids]):
        raise ExerciseError("module(ids) differs from weight[ids]. Hint: forward(ids) returns self.weight[ids]")
    weight.grad = None
    out.sum().backward()
    counts = torch.bincount(ids.flatten(), minlength=num_embeddings).to(weight.dtype)
    if weight.grad is None or not torch.equal(weight.grad, counts[:, None].expand_as(weight)):
        raise ExerciseError("the gradient does not reach the weight row by row. Hint: index the Parameter itself")
    weight.grad = None
    return correct("MyEmbedding registers a trainable weight [num_embeddings, embedding_dim], returns weight[ids] for "
                   "ids of shape (2, 3), and its gradient reaches the rows")
