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
