"""Notebook 8's diagram: the vocabulary-parallel lookup, process by process."""

from __future__ import annotations

import torch
from matplotlib import colormaps
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..lookup import check_weight
from ..vocab_parallel import local_lookup, owner_of, shard_bounds
from .drawing import GROUP_COLOURS, check_id_row, heatmap


def vocab_parallel_figure(weight: torch.Tensor, ids: torch.Tensor, world_size: int) -> Figure:
    """The vocabulary-parallel lookup: the table split by rows, each process's partial result, their sum.

    ``weight``: ``[V, d]``; ``ids``: ``(n,)`` int64. The partials are computed with
    :func:`utils.vocab_parallel.local_lookup` (what each process computes) and their sum
    is checked to equal ``weight[ids]`` exactly. Every panel shares one colour scale, drawn last (``fig.axes[-1]``).
    """

    weight = check_weight(weight).detach().cpu()
    vocab_size, dim = weight.shape
    ids = check_id_row(ids, vocab_size, "ids")
    bounds = shard_bounds(vocab_size, world_size)  # any world_size from 1 to vocab_size
    colours = rank_colours(world_size)
    wide = world_size <= 4  # room for a sentence in each panel's title
    partials = [local_lookup(ids, weight[start:end], start) for start, end in bounds]
    total = torch.stack(partials).sum(dim=0)
    if not torch.equal(total, weight[ids]):
        raise AssertionError("the partial lookups do not sum to W[ids]; the figure would be wrong")
    owner = owner_of(ids, len(weight), world_size).tolist()

    lo, hi = float(weight.min()), float(weight.max())
    width = (2.4 if wide else 1.5) * (world_size + 2) + 1  # + 1 inch: the colour scale
    fig = Figure(figsize=(width, 4.6), layout="constrained")
    axes = fig.subplots(1, world_size + 2)
    heatmap(axes[0], weight, f"table W  [V={vocab_size}, d={dim}]\nsplit by rows", vmin=lo, vmax=hi)
    axes[0].set_yticks(range(vocab_size))
    axes[0].tick_params(labelsize=7)
    for rank, (start, end) in enumerate(bounds):
        color = colours[rank]
        axes[0].add_patch(Rectangle((-0.45, start - 0.45), dim - 0.1, end - start - 0.1, fill=False, ec=color, lw=3))
        label = f" rank {rank}\n rows [{start}, {end})" if end - start > 1 else f" rank {rank}: row {start}"
        axes[0].text(dim - 0.2, (start + end - 1) / 2, label, color=color, ha="left", va="center",
                     fontsize=9 if end - start > 1 else 7, fontweight="bold")

    def id_ticks(ax):
        ax.set_yticks(range(len(ids)), [str(i) for i in ids.tolist()], fontsize=8)
        for label, r in zip(ax.get_yticklabels(), owner, strict=True):
            label.set_color(colours[r])

    for rank, (partial, (start, end)) in enumerate(zip(partials, bounds, strict=True)):
        ax = axes[rank + 1]
        title = f"rank {rank}: rows [{start}, {end})\nlooks up its ids, zeros the rest" if wide else \
            f"rank {rank}\n" + (f"rows [{start}, {end})" if end - start > 1 else f"row {start}")
        heatmap(ax, partial, title, vmin=lo, vmax=hi)
        id_ticks(ax)
        for row, r in enumerate(owner):
            if r != rank:
                ax.add_patch(Rectangle((-0.5, row - 0.5), dim, 1, color="white", alpha=0.85))
                ax.text((dim - 1) / 2, row, "masked: 0", ha="center", va="center", fontsize=7, color="grey")
        for spine in ax.spines.values():
            spine.set_edgecolor(colours[rank])
            spine.set_linewidth(2.5)
    heatmap(axes[-1], total, "all_reduce(SUM)\n= W[ids] on every rank" if wide else "all_reduce\n= W[ids]",
            vmin=lo, vmax=hi)
    id_ticks(axes[-1])
    axes[1].set_ylabel("token ids, coloured by the rank that holds them", fontsize=8)
    fig.colorbar(axes[-1].images[0], ax=list(axes), shrink=0.7, pad=0.01, label="value (one scale for all panels)")
    fig.suptitle(f"A vocabulary-parallel lookup over {world_size} process{'es' if world_size > 1 else ''}: "
                 "each holds a block of rows, and one all-reduce adds the partial results", fontsize=11)
    return fig


def rank_colours(world_size: int) -> list:
    """One colour per process: the course's eight group colours, or matplotlib's ``tab20`` beyond eight."""
    if world_size <= len(GROUP_COLOURS):
        return list(GROUP_COLOURS[:world_size])
    return [colormaps["tab20"](i % 20) for i in range(world_size)]
