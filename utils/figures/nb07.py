"""Notebook 7's diagrams: a bag as a multi-hot row, and the sinusoidal position table."""

from __future__ import annotations

import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..lookup import check_weight
from .drawing import HIGHLIGHT, check_id_row, heatmap


def multi_hot_bag_figure(bag_ids: torch.Tensor, weight: torch.Tensor, tokens: list[str] | None = None) -> Figure:
    """A bag of ids as a multi-hot (counts) row times ``weight`` ``[V, d]``: the bag's sum.

    ``bag_ids``: ``(L,)`` int64. Three panels: the counts row ``[1, V]`` (numbers
    written in), the weight with the used rows framed, and ``counts @ weight`` ``[1, d]``,
    which is checked against the sum of the looked-up rows.
    """
    weight = check_weight(weight).detach().cpu()
    vocab_size, dim = weight.shape
    bag_ids = check_id_row(bag_ids, vocab_size, "bag_ids")
    counts = torch.bincount(bag_ids, minlength=vocab_size).to(weight.dtype)[None, :]  # (1, V)
    product = counts @ weight  # (1, d)
    if not torch.allclose(product[0], weight[bag_ids].sum(dim=0), rtol=0, atol=1e-5):
        raise AssertionError("counts @ W is not the sum of the bag's rows; the figure would be wrong")

    lo, hi = float(min(weight.min(), product.min())), float(max(weight.max(), product.max()))
    fig = Figure(figsize=(11, 3.6), layout="constrained")
    axes = fig.subplots(1, 3, width_ratios=[vocab_size, dim, dim])
    heatmap(axes[0], counts, f"multi-hot counts of the bag\n[1, V={vocab_size}]", cmap="Greys",
             vmin=0, vmax=3 * float(counts.max()))
    for v in range(vocab_size):
        c = int(counts[0, v])
        axes[0].text(v, 0, str(c), ha="center", va="center", color="black" if c else "grey",
                     fontweight="bold" if c else "normal")
        if c:
            axes[0].add_patch(Rectangle((v - 0.5, -0.5), 1, 1, fill=False, ec=HIGHLIGHT, lw=2))
    if tokens is not None:
        axes[0].set_xticks(range(vocab_size), tokens, rotation=90, fontsize=8)
    heatmap(axes[1], weight, f"@  weight W  [V={vocab_size}, d={dim}]\nused rows framed", vmin=lo, vmax=hi)
    axes[1].set_yticks(range(vocab_size), tokens)  # the rows named as the counts' columns are, if given
    axes[1].tick_params(labelsize=7)
    for v in bag_ids.unique().tolist():
        axes[1].add_patch(Rectangle((-0.5, v - 0.5), dim, 1, fill=False, ec=HIGHLIGHT, lw=2))
    heatmap(axes[2], product, f"=  counts @ W  [1, d={dim}]\nthe sum of the bag's rows", vmin=lo, vmax=hi)
    fig.colorbar(axes[2].images[0], ax=axes[1:], shrink=0.8, label="value in W and in counts @ W")  # one shared scale
    for j in range(dim):
        value = float(product[0, j])
        light = (value - lo) / (hi - lo) > 0.6 if hi > lo else False  # viridis is light at the top
        axes[2].text(j, 0, f"{value:.2f}", ha="center", va="center", color="black" if light else "white", fontsize=8)
    fig.suptitle(f"A bag of {len(bag_ids)} ids is a multi-hot row times the table", fontsize=12)
    return fig


def sinusoidal_positions_figure(table: torch.Tensor, columns: tuple[int, ...] = (2, 6, 10, 14)) -> Figure:
    """The sinusoidal position table ``(T, d)`` as a heatmap, beside a few of its columns as curves.

    The default columns leave out column 0: its period is 2π ≈ 6.3 positions, so sampled at whole positions it
    draws as a zig-zag (the heatmap still shows it)."""
    if table.dim() != 2:
        raise ValueError(f"table must be 2-D (positions, dim), got shape {tuple(table.shape)}")
    num_positions, dim = table.shape
    bad = [c for c in columns if not 0 <= c < dim]
    if bad:
        raise ValueError(f"columns {bad} are out of range for a table with {dim} columns")
    values = table.detach().cpu().float()
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    heat, curves = fig.subplots(1, 2, width_ratios=[1.2, 1])
    image = heat.imshow(values.numpy(), cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto", interpolation="nearest")
    heat.set_xlabel("dimension (even: sin, odd: cos)")
    heat.set_ylabel("position")
    heat.set_title(f"sinusoidal position table  [{num_positions}, {dim}]", fontsize=10)
    fig.colorbar(image, ax=heat, shrink=0.85)
    positions = torch.arange(num_positions).numpy()
    for c in columns:
        kind = "sin" if c % 2 == 0 else "cos"
        curves.plot(positions, values[:, c].numpy(), marker=".", markersize=3, label=f"column {c} ({kind})")
    curves.set_xlabel("position")
    curves.set_title("low columns turn fast, high columns slowly", fontsize=10)
    curves.set_ylim(-1.1, 1.45)
    curves.legend(fontsize=8, loc="upper center", ncols=2)
    fig.suptitle("Every position gets its own fixed pattern of sines and cosines", fontsize=12)
    return fig
