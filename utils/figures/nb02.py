"""Notebook 2's diagram: ``nn.Embedding`` looks rows up."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from matplotlib.figure import Figure
from matplotlib.patches import ConnectionPatch, Rectangle

from ..lookup import check_ids
from .drawing import TAB10, annotated_heatmap


def embedding_lookup_figure(ids: torch.Tensor, weight: torch.Tensor) -> Figure:
    """Three panels: the ``(B, T)`` ids, the weight with the rows they pick framed, and ``embedding(ids)``.

    ``ids``: ``(B, T)`` (or ``(T,)``) integer tensor; ``weight``: ``[V, d]`` with ``V <= 10``
    (one colour per id) and at most 12 ids. The output panel is computed with
    ``F.embedding`` and checked to equal ``weight[ids]`` before it is drawn.
    """

    if not isinstance(weight, torch.Tensor) or weight.dim() != 2:
        raise ValueError(f"weight must be a 2-D tensor [V, d], got {getattr(weight, 'shape', type(weight).__name__)}")
    vocab_size, dim = weight.shape
    if vocab_size > len(TAB10):
        raise ValueError(f"the figure colours each id, so V must be <= {len(TAB10)}; got V={vocab_size}")
    check_ids(ids, vocab_size)
    if ids.dim() == 1:
        ids = ids.unsqueeze(0)
    if ids.dim() != 2 or ids.numel() > 12 or ids.numel() == 0:
        raise ValueError(f"ids must be (T,) or (B, T) with 1 to 12 ids, got shape {tuple(ids.shape)}")
    weight = weight.detach().cpu()
    ids = ids.cpu().long()
    out = F.embedding(ids, weight)  # (B, T, d)
    if not torch.equal(out, weight[ids]):
        raise AssertionError("F.embedding did not return weight[ids]; the figure would be wrong")
    batch, steps = ids.shape
    flat_ids = ids.flatten().tolist()
    rows = out.reshape(-1, dim)  # (B*T, d)
    limit = float(weight.abs().max())

    fig = Figure(figsize=(12, 4.2), layout="constrained")
    ax_ids, ax_w, ax_out = fig.subplots(1, 3, width_ratios=[max(steps, 2), dim, dim])
    # ids, each cell in its id's colour
    ax_ids.imshow(torch.ones(batch, steps).numpy(), cmap="Greys", vmin=0, vmax=4, aspect="equal")
    for b in range(batch):
        for t in range(steps):
            i = int(ids[b, t])
            ax_ids.add_patch(Rectangle((t - 0.45, b - 0.45), 0.9, 0.9, color=TAB10[i], alpha=0.85))
            ax_ids.text(t, b, str(i), ha="center", va="center", color="white", fontsize=14, fontweight="bold")
    ax_ids.set_xticks(range(steps), [f"t={t}" for t in range(steps)])
    ax_ids.set_yticks(range(batch), [f"b={b}" for b in range(batch)])
    ax_ids.set_title(f"ids  (B={batch}, T={steps})", fontsize=10)
    # the weight, each used row framed in its id's colour
    annotated_heatmap(ax_w, weight, f"weight  [V={vocab_size}, d={dim}]\n(one row per id)", limit)
    ax_w.set_yticks(range(vocab_size), [f"id {v}" for v in range(vocab_size)])
    for v in sorted(set(flat_ids)):
        ax_w.add_patch(Rectangle((-0.5, v - 0.5), dim, 1, fill=False, ec=TAB10[v], lw=3))
        ax_w.get_yticklabels()[v].set_color(TAB10[v])
    # the output, one row per id, framed in the same colour and linked to its source row
    annotated_heatmap(ax_out, rows,
                      f"embedding(ids)  (B, T, d) = {tuple(out.shape)}\nshown as B·T = {len(flat_ids)} rows",
                      limit)
    labels = [f"[{b},{t}] ← id {int(ids[b, t])}" for b in range(batch) for t in range(steps)]
    ax_out.yaxis.tick_right()  # labels on the right, so the links from the weight's rows stay clear
    ax_out.set_yticks(range(len(flat_ids)), labels)
    for k, v in enumerate(flat_ids):
        ax_out.add_patch(Rectangle((-0.5, k - 0.5), dim, 1, fill=False, ec=TAB10[v], lw=3))
        ax_out.get_yticklabels()[k].set_color(TAB10[v])
        fig.add_artist(ConnectionPatch(xyA=(dim - 0.5, v), coordsA=ax_w.transData, xyB=(-0.5, k),
                                       coordsB=ax_out.transData, color=TAB10[v], lw=1.2, alpha=0.7))
    fig.suptitle("nn.Embedding looks rows up: embedding(ids)[b, t] = weight[ids[b, t]], copied, nothing multiplied",
                 fontsize=12)
    return fig
