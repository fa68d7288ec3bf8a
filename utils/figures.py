"""Diagrams drawn from real tensors.

Each ``*_figure`` function returns a :class:`matplotlib.figure.Figure` built without
pyplot (no global state): a notebook shows it with ``display(fig)``, and
:func:`write_course_images` saves the same figures into ``images/`` for the README
and the web. ``python -m utils.sync`` calls it, so the files never drift from the code.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from .lookup import check_ids, one_hot

_HIGHLIGHT = "#d62728"


def _heatmap(ax, values: torch.Tensor, title: str, cmap: str = "viridis", vmin=None, vmax=None) -> None:
    ax.imshow(values.detach().cpu().numpy(), cmap=cmap, vmin=vmin, vmax=vmax, aspect="equal")
    ax.set_title(title, fontsize=10)
    ax.set_xticks([])
    ax.set_yticks([])


def one_hot_product_figure(token_id: int, weight: torch.Tensor, token: str | None = None) -> Figure:
    """Three panels: the one-hot row of ``token_id``, ``weight`` with that row framed, and the product.

    ``weight``: ``[V, d]``. The product shown is computed (``one_hot @ weight``),
    not copied from the weight, and it is checked to equal the framed row.
    """
    if weight.dim() != 2:
        raise ValueError(f"weight must be 2-D [V, d], got shape {tuple(weight.shape)}")
    vocab_size, dim = weight.shape
    ids = torch.tensor([token_id])
    check_ids(ids, vocab_size)
    x = one_hot(ids, vocab_size, weight.dtype)  # (1, V)
    product = x @ weight  # (1, d)
    if not torch.equal(product[0], weight[token_id]):
        raise AssertionError("the one-hot product did not select the row; the figure would be wrong")

    lo, hi = float(weight.min()), float(weight.max())
    fig = Figure(figsize=(11, 3.4), layout="constrained")
    axes = fig.subplots(1, 3, width_ratios=[vocab_size, dim, dim])
    name = f" ({token!r})" if token else ""
    _heatmap(axes[0], x, f"one-hot row of id {token_id}{name}\n[1, V={vocab_size}]", cmap="Greys", vmin=0, vmax=1)
    for v in range(vocab_size):
        axes[0].text(v, 0, str(int(x[0, v])), ha="center", va="center", color="white" if v == token_id else "black")
    axes[0].add_patch(Rectangle((token_id - 0.5, -0.5), 1, 1, fill=False, ec=_HIGHLIGHT, lw=2.5))
    _heatmap(axes[1], weight, f"@  weight W  [V={vocab_size}, d={dim}]", vmin=lo, vmax=hi)
    axes[1].set_yticks(range(vocab_size))
    axes[1].add_patch(Rectangle((-0.5, token_id - 0.5), dim, 1, fill=False, ec=_HIGHLIGHT, lw=2.5))
    _heatmap(axes[2], product, f"=  one_hot @ W  [1, d={dim}]\nrow {token_id} of W, bit for bit", vmin=lo, vmax=hi)
    axes[2].add_patch(Rectangle((-0.5, -0.5), dim, 1, fill=False, ec=_HIGHLIGHT, lw=2.5))
    fig.suptitle("A one-hot row times a matrix selects one row", fontsize=12)
    return fig


def _course_one_hot_product() -> Figure:
    generator = torch.Generator().manual_seed(123)
    weight = torch.randn(10, 6, generator=generator)
    return one_hot_product_figure(4, weight)


#: file name in ``images/`` -> function that draws it (seeded, so every run draws the same picture)
COURSE_IMAGES: dict[str, Callable[[], Figure]] = {
    "one_hot_product.png": _course_one_hot_product,
}


def save_figure(fig: Figure, path: Path) -> Path:
    """Save ``fig`` as a PNG with no time stamp or version in its metadata."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    return path


def write_course_images(directory: Path) -> list[Path]:
    """Draw every figure in :data:`COURSE_IMAGES` into ``directory``; return the paths."""
    return [save_figure(draw(), Path(directory) / name) for name, draw in COURSE_IMAGES.items()]


# --- Notebooks 7 and 8: bags, positions, and the vocabulary-parallel split ---------------

_RANK_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")


def multi_hot_bag_figure(bag_ids: torch.Tensor, weight: torch.Tensor, tokens: list[str] | None = None) -> Figure:
    """A bag of ids as a multi-hot (counts) row times ``weight`` ``[V, d]``: the bag's sum.

    ``bag_ids``: ``(L,)`` int64. Three panels: the counts row ``[1, V]`` (numbers
    written in), the weight with the used rows framed, and ``counts @ weight`` ``[1, d]``,
    which is checked against the sum of the looked-up rows.
    """
    if weight.dim() != 2:
        raise ValueError(f"weight must be 2-D [V, d], got shape {tuple(weight.shape)}")
    if not isinstance(bag_ids, torch.Tensor) or bag_ids.dim() != 1:
        raise ValueError("bag_ids must be a 1-D tensor of token ids (one bag)")
    weight = weight.detach().cpu()
    vocab_size, dim = weight.shape
    check_ids(bag_ids, vocab_size)
    bag_ids = bag_ids.cpu().long()
    counts = torch.bincount(bag_ids, minlength=vocab_size).to(weight.dtype)[None, :]  # (1, V)
    product = counts @ weight  # (1, d)
    if not torch.allclose(product[0], weight[bag_ids].sum(dim=0), rtol=0, atol=1e-5):
        raise AssertionError("counts @ W is not the sum of the bag's rows; the figure would be wrong")

    lo, hi = float(min(weight.min(), product.min())), float(max(weight.max(), product.max()))
    fig = Figure(figsize=(11, 3.6), layout="constrained")
    axes = fig.subplots(1, 3, width_ratios=[vocab_size, dim, dim])
    _heatmap(axes[0], counts, f"multi-hot counts of the bag\n[1, V={vocab_size}]", cmap="Greys",
             vmin=0, vmax=3 * float(counts.max()))
    for v in range(vocab_size):
        c = int(counts[0, v])
        axes[0].text(v, 0, str(c), ha="center", va="center", color="black" if c else "grey",
                     fontweight="bold" if c else "normal")
        if c:
            axes[0].add_patch(Rectangle((v - 0.5, -0.5), 1, 1, fill=False, ec=_HIGHLIGHT, lw=2))
    if tokens is not None:
        axes[0].set_xticks(range(vocab_size), tokens, rotation=90, fontsize=8)
    _heatmap(axes[1], weight, f"@  weight W  [V={vocab_size}, d={dim}]\nused rows framed", vmin=lo, vmax=hi)
    axes[1].set_yticks(range(vocab_size))
    axes[1].tick_params(labelsize=7)
    for v in bag_ids.unique().tolist():
        axes[1].add_patch(Rectangle((-0.5, v - 0.5), dim, 1, fill=False, ec=_HIGHLIGHT, lw=2))
    _heatmap(axes[2], product, f"=  counts @ W  [1, d={dim}]\nthe sum of the bag's rows", vmin=lo, vmax=hi)
    for j in range(dim):
        value = float(product[0, j])
        light = (value - lo) / (hi - lo) > 0.6 if hi > lo else False  # viridis is light at the top
        axes[2].text(j, 0, f"{value:.2f}", ha="center", va="center", color="black" if light else "white", fontsize=8)
    fig.suptitle(f"A bag of {len(bag_ids)} ids is a multi-hot row times the table", fontsize=12)
    return fig


def sinusoidal_positions_figure(table: torch.Tensor, columns: tuple[int, ...] = (0, 4, 8, 12)) -> Figure:
    """The sinusoidal position table ``(T, d)`` as a heatmap, beside a few of its columns as curves."""
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


def vocab_parallel_figure(weight: torch.Tensor, ids: torch.Tensor, world_size: int) -> Figure:
    """The vocabulary-parallel lookup: the table split by rows, each process's partial result, their sum.

    ``weight``: ``[V, d]``; ``ids``: ``(n,)`` int64. The partials are computed with
    :func:`utils.distributed.local_lookup` (what each process computes) and their sum
    is checked to equal ``weight[ids]`` exactly.
    """
    from .distributed import local_lookup, shard_bounds

    if weight.dim() != 2:
        raise ValueError(f"weight must be 2-D [V, d], got shape {tuple(weight.shape)}")
    if not isinstance(ids, torch.Tensor) or ids.dim() != 1:
        raise ValueError("ids must be a 1-D tensor of token ids")
    weight = weight.detach().cpu()
    vocab_size, dim = weight.shape
    check_ids(ids, vocab_size)
    bounds = shard_bounds(vocab_size, world_size)
    if world_size > len(_RANK_COLORS):
        raise ValueError(f"the figure draws at most {len(_RANK_COLORS)} processes, got world_size {world_size}")
    ids = ids.cpu().long()
    partials = [local_lookup(ids, weight[start:end], start) for start, end in bounds]
    total = torch.stack(partials).sum(dim=0)
    if not torch.equal(total, weight[ids]):
        raise AssertionError("the partial lookups do not sum to W[ids]; the figure would be wrong")
    owner = [next(r for r, (s, e) in enumerate(bounds) if s <= i < e) for i in ids.tolist()]

    lo, hi = float(weight.min()), float(weight.max())
    fig = Figure(figsize=(2.4 * (world_size + 2), 4.6), layout="constrained")
    axes = fig.subplots(1, world_size + 2)
    _heatmap(axes[0], weight, f"table W  [V={vocab_size}, d={dim}]\nsplit by rows", vmin=lo, vmax=hi)
    axes[0].set_yticks(range(vocab_size))
    axes[0].tick_params(labelsize=7)
    for rank, (start, end) in enumerate(bounds):
        color = _RANK_COLORS[rank]
        axes[0].add_patch(Rectangle((-0.45, start - 0.45), dim - 0.1, end - start - 0.1, fill=False, ec=color, lw=3))
        axes[0].text(dim - 0.2, (start + end - 1) / 2, f" rank {rank}\n rows {start}-{end - 1}", color=color,
                     ha="left", va="center", fontsize=9, fontweight="bold")

    def id_ticks(ax):
        ax.set_yticks(range(len(ids)), [str(i) for i in ids.tolist()], fontsize=8)
        for label, r in zip(ax.get_yticklabels(), owner, strict=True):
            label.set_color(_RANK_COLORS[r])

    for rank, (partial, (start, end)) in enumerate(zip(partials, bounds, strict=True)):
        ax = axes[rank + 1]
        _heatmap(ax, partial, f"rank {rank}: rows {start}-{end - 1}\nlooks up its ids, zeros the rest",
                 vmin=lo, vmax=hi)
        id_ticks(ax)
        for row, r in enumerate(owner):
            if r != rank:
                ax.add_patch(Rectangle((-0.5, row - 0.5), dim, 1, color="white", alpha=0.85))
                ax.text((dim - 1) / 2, row, "masked: 0", ha="center", va="center", fontsize=7, color="grey")
        for spine in ax.spines.values():
            spine.set_edgecolor(_RANK_COLORS[rank])
            spine.set_linewidth(2.5)
    _heatmap(axes[-1], total, "all_reduce(SUM)\n= W[ids] on every rank", vmin=lo, vmax=hi)
    id_ticks(axes[-1])
    axes[1].set_ylabel("token ids, coloured by the rank that holds them", fontsize=8)
    fig.suptitle(f"A vocabulary-parallel lookup over {world_size} processes: "
                 "each holds a block of rows, and one all-reduce adds the partial results", fontsize=11)
    return fig


def _course_vocab_parallel_split() -> Figure:
    generator = torch.Generator().manual_seed(0)
    weight = torch.randn(11, 4, generator=generator)
    ids = torch.tensor([4, 9, 0, 6, 4, 2, 10, 7])
    return vocab_parallel_figure(weight, ids, world_size=3)


COURSE_IMAGES["vocab_parallel_split.png"] = _course_vocab_parallel_split
