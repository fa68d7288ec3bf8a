"""Notebook 1's diagram: a one-hot row times a matrix selects one row."""

from __future__ import annotations

import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..lookup import check_ids, check_weight, one_hot
from .drawing import HIGHLIGHT, heatmap

#: a weight of at most this many numbers has each one written in its cell (notebook 1's is 15 x 4)
MAX_WRITTEN = 64
#: the width of a written cell of a table taller than it is wide (its panel is narrow), in units of its height
WRITTEN_CELL_WIDTH = 1.6


def one_hot_product_figure(token_id: int, weight: torch.Tensor, token: str | None = None) -> Figure:
    """Three panels: the one-hot row of ``token_id``, ``weight`` with that row framed, and the product.

    ``weight``: ``[V, d]``. The product shown is computed (``one_hot @ weight``),
    not copied from the weight, and it is checked to equal the framed row.
    """
    weight = check_weight(weight).detach().cpu()
    vocab_size, dim = weight.shape
    ids = torch.tensor([token_id])
    check_ids(ids, vocab_size)
    x = one_hot(ids, vocab_size, weight.dtype)  # (1, V)
    product = x @ weight  # (1, d)
    if not torch.equal(product[0], weight[token_id]):
        raise AssertionError("the one-hot product did not select the row; the figure would be wrong")

    lo, hi = float(weight.min()), float(weight.max())
    written = weight.numel() <= MAX_WRITTEN  # small enough to read: the numbers the cells print, in the picture
    widen = WRITTEN_CELL_WIDTH if written and vocab_size > dim else 1.0  # room for a number such as -1.02
    fig = Figure(figsize=(11, max(3.4, 0.3 * vocab_size + 0.6) if widen > 1 else 3.4), layout="constrained")
    axes = fig.subplots(1, 3, width_ratios=[vocab_size, widen * dim, widen * dim])
    name = f" ({token!r})" if token else ""
    heatmap(axes[0], x, f"one-hot row of id {token_id}{name}\n[1, V={vocab_size}]", cmap="Greys", vmin=0, vmax=1)
    for v in range(vocab_size):
        axes[0].text(v, 0, str(int(x[0, v])), ha="center", va="center", color="white" if v == token_id else "black")
    axes[0].add_patch(Rectangle((token_id - 0.5, -0.5), 1, 1, fill=False, ec=HIGHLIGHT, lw=2.5))
    heatmap(axes[1], weight, f"@  weight W  [V={vocab_size}, d={dim}]", vmin=lo, vmax=hi)
    axes[1].set_yticks(range(vocab_size))
    axes[1].add_patch(Rectangle((-0.5, token_id - 0.5), dim, 1, fill=False, ec=HIGHLIGHT, lw=2.5))
    heatmap(axes[2], product, f"=  one_hot @ W  [1, d={dim}]\nrow {token_id} of W, exactly", vmin=lo, vmax=hi)
    axes[2].add_patch(Rectangle((-0.5, -0.5), dim, 1, fill=False, ec=HIGHLIGHT, lw=2.5))
    if written:
        for ax, values in ((axes[1], weight), (axes[2], product)):
            ax.set_aspect(1 / widen)
            for r, row in enumerate(values.tolist()):
                for c, value in enumerate(row):
                    dark = value - lo < 0.5 * (hi - lo)  # viridis is dark at its low end
                    ax.text(c, r, f"{value:.2f}", ha="center", va="center", fontsize=9,
                            color="white" if dark else "black")
    fig.suptitle("A one-hot row times a matrix selects one row", fontsize=12)
    return fig
