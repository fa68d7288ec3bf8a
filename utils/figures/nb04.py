"""Notebook 4's diagrams: where a lookup's gradient lands, which rows an optimizer moves, loss curves."""

from __future__ import annotations

import numpy as np
import torch
from matplotlib.figure import Figure
from matplotlib.patches import ConnectionPatch, Rectangle

from ..lookup import check_ids, one_hot
from .drawing import SEQUENCE_COLOURS
from .drawing import loss_curves_figure as loss_curves_figure


def gradient_rows_figure(ids: torch.Tensor, grad_out: torch.Tensor, grad: torch.Tensor) -> Figure:
    """Where a lookup's gradient lands: row ``t`` of ``grad_out`` is added into row ``ids[t]`` of ``grad``.

    ``ids``: ``(T,)`` int64; ``grad_out``: ``(T, d)``, the gradient of the lookup's
    output; ``grad``: ``(V, d)``, the embedding weight's gradient. Checked first to
    equal ``one_hot(ids, V).T @ grad_out``, so the picture cannot show a wrong gradient.
    """
    if ids.dim() != 1 or grad_out.dim() != 2 or grad.dim() != 2:
        raise ValueError(
            f"expected ids (T,), grad_out (T, d) and grad (V, d); got shapes {tuple(ids.shape)}, "
            f"{tuple(grad_out.shape)} and {tuple(grad.shape)}"
        )
    if grad_out.shape[0] != ids.shape[0] or grad_out.shape[1] != grad.shape[1]:
        raise ValueError(
            f"grad_out must have shape (T={ids.shape[0]}, d={grad.shape[1]}), got {tuple(grad_out.shape)}"
        )
    ids, grad_out, grad = ids.detach().cpu(), grad_out.detach().cpu(), grad.detach().cpu()
    vocab_size, dim = grad.shape
    check_ids(ids, vocab_size)
    if not torch.equal(grad, one_hot(ids, vocab_size, grad_out.dtype).T @ grad_out):
        raise AssertionError("grad is not one_hot(ids).T @ grad_out; the figure would be wrong")


    counts = torch.bincount(ids, minlength=vocab_size)
    scale = float(torch.cat([grad_out.abs().flatten(), grad.abs().flatten()]).max()) or 1.0
    fig = Figure(figsize=(10, 0.5 * max(vocab_size, len(ids)) + 1.4), layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=[1, 1])
    for ax, values, title in ((left, grad_out, f"grad_out  (T={len(ids)}, d={dim})"),
                              (right, grad, f"weight.grad  [V={vocab_size}, d={dim}]")):
        ax.imshow(values.numpy(), cmap="RdBu_r", vmin=-scale, vmax=scale, aspect="equal")
        for (r, c), value in np.ndenumerate(values.numpy()):
            if value != 0:
                ax.text(c, r, f"{value:+.2f}", ha="center", va="center", fontsize=8,
                        color="white" if abs(value) > 0.6 * scale else "black")
        ax.set_title(title, fontsize=10)
        ax.set_xticks([])
    left.set_ylim(max(vocab_size, len(ids)) - 0.5, -0.5)  # same cell size in both panels
    left.spines[:].set_visible(False)
    left.set_yticks(range(len(ids)), [f"position {t}: id {int(i)}" for t, i in enumerate(ids)], fontsize=9)
    labels = [f"row {v}: looked up {int(c)}×" if c else f"row {v}: 0" for v, c in enumerate(counts)]
    right.yaxis.tick_right()
    right.set_yticks(range(vocab_size), labels, fontsize=9)
    for v in range(vocab_size):
        if counts[v] == 0:
            right.add_patch(Rectangle((-0.5, v - 0.5), dim, 1, fill=True, fc="#eeeeee", ec="#bbbbbb", hatch="//"))
    for t, i in enumerate(ids.tolist()):
        arrow = ConnectionPatch(xyA=(dim - 0.5, t), coordsA=left.transData, xyB=(-0.5, i), coordsB=right.transData,
                                arrowstyle="->", color=SEQUENCE_COLOURS[t % len(SEQUENCE_COLOURS)], lw=1.6)
        fig.add_artist(arrow)
    fig.suptitle("Each position's gradient is added into the row it looked up; other rows stay exactly 0",
                  fontsize=11)
    return fig


def moved_rows_figure(moved: dict[str, torch.Tensor], groups: dict[str, list[int]]) -> Figure:
    """Which rows each optimizer changed in one step: a grid of optimizers × rows.

    ``moved``: optimizer name -> ``(V,)`` bool tensor (row changed); ``groups``: a
    label -> the rows in it (e.g. "looked up now", "looked up earlier", "never"), shown
    as coloured bands above the grid.
    """
    if not moved:
        raise ValueError("moved must name at least one optimizer")
    masks = [m.detach().cpu().bool() for m in moved.values()]
    vocab_size = masks[0].numel()
    if any(m.dim() != 1 or m.numel() != vocab_size for m in masks):
        raise ValueError(f"every mask in moved must have shape (V,) with the same V; got "
                         f"{[tuple(m.shape) for m in masks]}")
    if len(groups) > len(SEQUENCE_COLOURS):
        raise ValueError(f"at most {len(SEQUENCE_COLOURS)} groups of rows, got {len(groups)}")
    grid = torch.stack(masks).float().numpy()
    fig = Figure(figsize=(0.5 * vocab_size + 3.2, 0.5 * len(masks) + 1.9), layout="constrained")
    ax = fig.subplots()
    ax.imshow(grid, cmap="Greys", vmin=-0.15, vmax=1.25, aspect="equal")
    for r, mask in enumerate(masks):
        for v in range(vocab_size):
            ax.text(v, r, "moved" if mask[v] else "·", ha="center", va="center", fontsize=7.5,
                    color="white" if mask[v] else "#555555")
    ax.set_yticks(range(len(masks)), list(moved), fontsize=9)
    ax.set_xticks(range(vocab_size), [str(v) for v in range(vocab_size)], fontsize=9)
    ax.set_xlabel("row of the embedding table")
    ax.set_xticks([v + 0.5 for v in range(vocab_size - 1)], minor=True)
    ax.set_yticks([r + 0.5 for r in range(len(masks) - 1)], minor=True)
    ax.tick_params(which="minor", length=0)
    ax.grid(which="minor", color="white", lw=2)
    for (label, rows), colour in zip(groups.items(), SEQUENCE_COLOURS, strict=False):
        for v in rows:
            ax.add_patch(Rectangle((v - 0.45, -1.0), 0.9, 0.35, color=colour, clip_on=False))
        ax.plot([], [], "s", color=colour, label=label)
    ax.spines[:].set_visible(False)
    ax.set_ylim(len(masks) - 0.5, -1.05)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False, title="rows")
    ax.set_title("Rows changed by the last optimizer step", fontsize=11)
    return fig
