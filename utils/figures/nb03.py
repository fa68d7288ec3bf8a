"""Notebook 3's diagram: the same numbers, stored transposed in ``nn.Linear``."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..lookup import check_ids, one_hot
from .drawing import HIGHLIGHT, annotated_heatmap


def linear_embedding_transpose_figure(embedding_weight: torch.Tensor, linear_weight: torch.Tensor,
                                      token_id: int) -> Figure:
    """Three panels: ``nn.Embedding``'s weight ``[V, d]`` with row ``token_id`` framed, ``nn.Linear``'s
    weight ``[d, V]`` with column ``token_id`` framed, and the one output row both give.

    ``linear_weight`` must equal ``embedding_weight.T`` exactly (checked); the output is
    computed both ways (``F.embedding`` and ``F.linear`` on a one-hot row) and checked equal.
    """

    if not isinstance(embedding_weight, torch.Tensor) or embedding_weight.dim() != 2:
        raise ValueError("embedding_weight must be a 2-D tensor [V, d]")
    vocab_size, dim = embedding_weight.shape
    if not isinstance(linear_weight, torch.Tensor) or tuple(linear_weight.shape) != (dim, vocab_size):
        raise ValueError(
            f"linear_weight must have shape [out_features={dim}, in_features={vocab_size}], "
            f"got {tuple(getattr(linear_weight, 'shape', ()))}"
        )
    ew, lw = embedding_weight.detach().cpu(), linear_weight.detach().cpu()
    if not torch.equal(lw, ew.T):
        raise ValueError("linear_weight is not embedding_weight transposed; the figure would be wrong")
    ids = torch.tensor([token_id])
    check_ids(ids, vocab_size)
    from_embedding = F.embedding(ids, ew)  # (1, d)
    from_linear = F.linear(one_hot(ids, vocab_size, lw.dtype), lw)  # (1, V) @ (V, d) -> (1, d)
    if not torch.equal(from_embedding, from_linear):
        raise AssertionError("the two layers disagree; the figure would be wrong")
    limit = float(ew.abs().max())

    fig = Figure(figsize=(12, 4.6), layout="constrained")
    ax_e, ax_l, ax_o = fig.subplots(1, 3, width_ratios=[dim, vocab_size, dim])
    annotated_heatmap(ax_e, ew, f"nn.Embedding({vocab_size}, {dim}).weight\n"
                                 f"[num_embeddings, embedding_dim]\n= [V, d] = [{vocab_size}, {dim}]", limit)
    ax_e.set_yticks(range(vocab_size), [f"id {v}" for v in range(vocab_size)])
    ax_e.add_patch(Rectangle((-0.5, token_id - 0.5), dim, 1, fill=False, ec=HIGHLIGHT, lw=3))
    ax_e.set_xlabel(f"row {token_id} = E.weight[{token_id}]", color=HIGHLIGHT)
    annotated_heatmap(ax_l, lw, f"nn.Linear({vocab_size}, {dim}, bias=False).weight,\na copy of E.weight.T\n"
                                 f"[out_features, in_features]\n= [d, V] = [{dim}, {vocab_size}]", limit)
    ax_l.set_xticks(range(vocab_size), [f"id {v}" for v in range(vocab_size)], fontsize=8)
    ax_l.set_yticks(range(dim), [f"out {j}" for j in range(dim)], fontsize=8)  # one row per output
    ax_l.add_patch(Rectangle((token_id - 0.5, -0.5), 1, dim, fill=False, ec=HIGHLIGHT, lw=3))
    ax_l.set_xlabel(f"column {token_id} = L.weight[:, {token_id}]", color=HIGHLIGHT)
    annotated_heatmap(ax_o, from_embedding, f"E({token_id}) = L(one_hot({token_id}))\n[1, d={dim}]", limit)
    ax_o.add_patch(Rectangle((-0.5, -0.5), dim, 1, fill=False, ec=HIGHLIGHT, lw=3))
    fig.suptitle("The same numbers, stored transposed: the embedding's rows are the linear layer's columns",
                 fontsize=12)
    return fig
