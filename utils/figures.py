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


# --- Notebooks 4 and 5: gradients and initialisation ---------------------------------

_SEQUENCE_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e")


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

    import numpy as np
    from matplotlib.patches import ConnectionPatch

    counts = torch.bincount(ids, minlength=vocab_size)
    scale = float(torch.cat([grad_out.abs().flatten(), grad.abs().flatten()]).max()) or 1.0
    fig = Figure(figsize=(10, 0.5 * max(vocab_size, len(ids)) + 1.4), layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=[1, 1])
    for ax, values, title in ((left, grad_out, f"grad_out  [T={len(ids)}, d={dim}]"),
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
                                arrowstyle="->", color=_SEQUENCE_COLOURS[t % len(_SEQUENCE_COLOURS)], lw=1.6)
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
    if len(groups) > len(_SEQUENCE_COLOURS):
        raise ValueError(f"at most {len(_SEQUENCE_COLOURS)} groups of rows, got {len(groups)}")
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
    for (label, rows), colour in zip(groups.items(), _SEQUENCE_COLOURS, strict=False):
        for v in rows:
            ax.add_patch(Rectangle((v - 0.45, -1.0), 0.9, 0.35, color=colour, clip_on=False))
        ax.plot([], [], "s", color=colour, label=label)
    ax.spines[:].set_visible(False)
    ax.set_ylim(len(masks) - 0.5, -1.05)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False, title="rows")
    ax.set_title("Rows changed by the last optimizer step", fontsize=11)
    return fig


def loss_curves_figure(curves: dict[str, list[float]], title: str = "Training loss") -> Figure:
    """Loss per step for each named run on one axis (later runs dashed, so overlapping curves stay visible)."""
    if not curves:
        raise ValueError("curves must hold at least one run")
    fig = Figure(figsize=(7, 3.6), layout="constrained")
    ax = fig.subplots()
    styles = ({"lw": 5, "alpha": 0.35}, {"lw": 1.6, "ls": "--", "marker": "o", "ms": 2.5})
    for k, (label, losses) in enumerate(curves.items()):
        ax.plot(range(1, len(losses) + 1), list(losses), label=label, color=_SEQUENCE_COLOURS[k % 5],
                **styles[min(k, 1)])
    ax.set_xlabel("SGD step")
    ax.set_ylabel("cross-entropy loss")
    ax.set_title(title, fontsize=11)
    ax.grid(alpha=0.3)
    ax.legend()
    return fig


def _draw_histograms(ax, entries, lo: float, hi: float, bins: int, labels: bool) -> None:
    import numpy as np

    for k, (label, values, expected) in enumerate(entries):
        data = values.detach().cpu().double().flatten().numpy()
        counts, edges = np.histogram(data, bins=bins, range=(lo, hi))
        density = counts / (data.size * (edges[1] - edges[0]))  # a density over all values, also those outside
        colour = _SEQUENCE_COLOURS[k % len(_SEQUENCE_COLOURS)]
        std_note = f"std {data.std(ddof=1):.4f}" + (f" (expected {expected.std:.4f})" if expected else "")
        text = f"{label}: {std_note}" if labels else None
        if k == 0:  # the first histogram filled, the others as outlines so that overlaps stay visible
            ax.stairs(density, edges, fill=True, alpha=0.35, color=colour, label=text)
        else:
            ax.stairs(density, edges, color=colour, lw=1.3, label=text)
        if expected is not None:
            x = np.linspace(lo, hi, 2001)
            ax.plot(x, expected.pdf(x), color="black" if k == 0 else colour, ls="--", lw=1.2)
    ax.set_xlim(lo, hi)


def weight_histograms_figure(panels: dict[str, list[tuple[str, torch.Tensor, object]]], *, bins: int = 80,
                             log_y: bool = False, x_range: tuple[float, float] | None = None,
                             zoom: tuple[float, float] | None = None, title: str | None = None,
                             xlabel: str = "weight value") -> Figure:
    """Histograms of weights with their theoretical densities overlaid, one panel per entry of ``panels``.

    ``panels``: panel title -> list of ``(label, values, expected)``; ``values`` is a
    tensor of any shape (flattened), ``expected`` a :class:`utils.init_stats.Expected`
    or ``None``. Each legend entry gives
    the observed and the expected std. Heights are ``np.histogram`` counts divided by
    ``n * bin width`` (a density; values outside the range still count in ``n``). The
    first entry is filled, later ones are outlines; each expected density is dashed.
    ``zoom=(lo, hi)`` adds an inset with that range on a linear scale.
    """
    from matplotlib.ticker import MaxNLocator

    from .init_stats import Expected

    if not panels:
        raise ValueError("panels must hold at least one panel")
    rows = max(len(entries) for entries in panels.values()) + 1  # legend lines under each panel
    fig = Figure(figsize=(max(5.2 * len(panels), 7.0), 3.4 + 0.2 * rows), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (panel_title, entries) in zip(axes, panels.items(), strict=True):
        if not entries:
            raise ValueError(f"panel {panel_title!r} has no histograms")
        for _, _, expected in entries:
            if expected is not None and not isinstance(expected, Expected):
                raise TypeError(f"expected must be an init_stats.Expected or None, got {type(expected).__name__}")
        if x_range is None:
            reach = max((e.bound * 1.25 if e.bound else 4.5 * e.std) if e is not None
                        else float(v.abs().max()) for _, v, e in entries)
            lo, hi = -reach, reach
        else:
            lo, hi = x_range
        _draw_histograms(ax, entries, lo, hi, bins, labels=True)
        if zoom is not None:
            inset = ax.inset_axes([0.64, 0.5, 0.34, 0.46])
            _draw_histograms(inset, entries, zoom[0], zoom[1], bins, labels=False)
            inset.xaxis.set_major_locator(MaxNLocator(4, symmetric=True))
            inset.tick_params(labelsize=7)
            inset.set_title("zoom, linear scale", fontsize=7)
        ax.plot([], [], color="black", ls="--", lw=1.2, label="theoretical density")
        if log_y:
            ax.set_yscale("log")
            ax.set_ylim(bottom=1e-3)
        ax.set_title(panel_title, fontsize=10)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("density")
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), frameon=False)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def sorted_probabilities_figure(logits: dict[str, torch.Tensor], title: str | None = None) -> Figure:
    """``softmax`` of each named row of logits ``(V,)``, sorted from the most likely token down, on log-log axes.

    The curve is drawn through about 600 ranks spaced evenly on the log axis (always
    including rank 1 and rank V). A dotted line marks the uniform distribution ``1/V``; each legend entry gives the
    top probability and the entropy in nats (``ln V`` for the uniform).
    """
    import math

    if not logits:
        raise ValueError("logits must hold at least one row")
    sizes = {row.numel() for row in logits.values()}
    if any(row.dim() != 1 for row in logits.values()) or len(sizes) != 1:
        raise ValueError(f"every row of logits must have shape (V,) with the same V; got "
                         f"{[tuple(row.shape) for row in logits.values()]}")
    vocab_size = sizes.pop()
    fig = Figure(figsize=(7, 3.8), layout="constrained")
    ax = fig.subplots()
    # about 600 ranks spaced evenly on the log axis: the same curve as all V points, drawn much faster
    ranks = torch.unique(torch.logspace(0, math.log10(vocab_size), 600).round().long().clamp(1, vocab_size))
    for k, (label, row) in enumerate(logits.items()):
        log_p = torch.log_softmax(row.detach().cpu().double(), dim=-1)
        p = log_p.exp()
        entropy = float(-(p * log_p).sum())
        sorted_p = p.sort(descending=True).values
        ax.plot(ranks.numpy(), sorted_p[ranks - 1].numpy(), color=_SEQUENCE_COLOURS[k % 5], lw=1.8,
                label=f"{label}: top p = {float(p.max()):.2g}, entropy {entropy:.2f} nats")
    ax.axhline(1 / vocab_size, color="black", ls=":", lw=1.2,
               label=f"uniform: p = 1/V, entropy ln V = {math.log(vocab_size):.2f} nats")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(bottom=1e-12, top=2)
    ax.set_xlabel("rank of the token (most likely first)")
    ax.set_ylabel("softmax probability")
    ax.set_title(title or f"Next-token distribution over V = {vocab_size:,} tokens", fontsize=11)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    return fig


def _course_gradient_rows() -> Figure:
    generator = torch.Generator().manual_seed(1)
    ids = torch.tensor([1, 3, 3, 6])
    grad_out = torch.randn(4, 4, generator=generator)
    return gradient_rows_figure(ids, grad_out, one_hot(ids, 8).T @ grad_out)


def _course_init_histograms() -> Figure:
    from .init_stats import embedding_init, linear_init

    generator = torch.Generator().manual_seed(0)
    vocab_size, dim = 5000, 70
    embedding = torch.nn.init.normal_(torch.empty(vocab_size, dim), generator=generator)
    linear = torch.nn.init.kaiming_uniform_(torch.empty(dim, vocab_size), a=5**0.5, generator=generator)
    return weight_histograms_figure({
        f"nn.Embedding({vocab_size}, {dim}).weight": [("observed", embedding, embedding_init())],
        f"nn.Linear({vocab_size}, {dim}).weight": [("observed", linear, linear_init(vocab_size))],
    }, bins=70, title="Default initialisation: N(0, 1) for the embedding, U(±1/√V) for the one-hot linear layer")


COURSE_IMAGES.update({
    "embedding_gradient_rows.png": _course_gradient_rows,
    "init_histograms.png": _course_init_histograms,
})
