"""Notebook 2, nn.Embedding is a lookup table: the checkers of its exercises."""

from __future__ import annotations

import torch
import torch.nn as nn

from .checking import ExerciseError, correct


def check_embedding_shapes(weight_shape: tuple[int, ...], output_shape: tuple[int, ...]) -> bool:
    """Exercise 2.1: shapes for ``nn.Embedding(100, 32)`` applied to ids of shape ``(8, 16)``."""
    embedding = nn.Embedding(100, 32)
    expected_weight = tuple(embedding.weight.shape)
    expected_output = tuple(embedding(torch.zeros(8, 16, dtype=torch.long)).shape)
    weight_shape, output_shape = tuple(weight_shape), tuple(output_shape)
    if weight_shape != expected_weight:
        hint = " (that is nn.Linear's order)" if weight_shape == expected_weight[::-1] else ""
        raise ExerciseError(
            f"weight_shape = {weight_shape}, expected {expected_weight}{hint}. "
            "Hint: the weight holds one row per id: [num_embeddings, embedding_dim]."
        )
    if output_shape != expected_output:
        raise ExerciseError(
            f"output_shape = {output_shape}, expected {expected_output}. "
            "Hint: every id is replaced by its row, so the ids' shape gains a last axis of size embedding_dim."
        )
    return correct(f"weight {expected_weight}, output {expected_output}: ids (B, T) -> (B, T, d)")


def check_pretrained_embedding(embedding: object, vectors: torch.Tensor) -> bool:
    """Exercise 2.2: ``vectors`` as a trainable embedding, id 0 as padding, with its own copy of the numbers."""
    if not isinstance(embedding, nn.Embedding):
        raise ExerciseError(f"expected an nn.Embedding, got {type(embedding).__name__}")
    if tuple(embedding.weight.shape) != tuple(vectors.shape):
        raise ExerciseError(f"weight has shape {tuple(embedding.weight.shape)}, expected {tuple(vectors.shape)}")
    if not torch.equal(embedding.weight.detach().cpu(), vectors.detach().cpu()):
        raise ExerciseError(
            "the weight does not hold the pretrained vectors. Hint: nn.Embedding.from_pretrained keeps them as they "
            "are (padding_idx does not zero a pretrained row)."
        )
    if not embedding.weight.requires_grad:
        raise ExerciseError("the weight is frozen (requires_grad is False). Hint: from_pretrained(..., freeze=False)")
    if embedding.padding_idx != 0:
        raise ExerciseError(f"padding_idx is {embedding.padding_idx}, expected 0")
    if embedding.weight.data_ptr() == vectors.data_ptr():
        raise ExerciseError(
            "the weight shares memory with `vectors`: training would overwrite them. "
            "Hint: pass vectors.clone() to from_pretrained."
        )
    return correct("trainable, padding id 0, the pretrained numbers in memory of its own")


def check_max_norm_rows(rows: list[int], weight: torch.Tensor, ids: torch.Tensor, max_norm: float) -> bool:
    """Exercise 2.3: which rows does one forward pass of ``nn.Embedding(max_norm=...)`` rewrite?

    The reference answer comes from PyTorch itself: a copy of ``weight`` is looked up
    with ``ids`` and the rows that changed are listed.
    """
    embedding = nn.Embedding.from_pretrained(weight.detach().cpu().clone(), max_norm=max_norm)
    embedding(ids.cpu())
    changed = (embedding.weight != weight.detach().cpu()).any(dim=1)
    expected = [int(i) for i in changed.nonzero().flatten()]
    try:
        answer = sorted({int(r) for r in rows})
    except (TypeError, ValueError):
        raise ExerciseError(f"rows must be a list of row numbers, got {rows!r}") from None
    if answer != expected:
        norms = weight.detach().cpu().norm(dim=1)
        raise ExerciseError(
            f"rows = {answer}, expected {expected}. Hint: a row is rescaled only if it is looked up AND its norm "
            f"exceeds max_norm={max_norm}; the row norms are {[round(float(n), 3) for n in norms]}."
        )
    return correct(f"one forward pass rescales rows {expected} and leaves the others untouched")
