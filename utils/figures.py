"""Diagrams drawn from real tensors.

Each ``*_figure`` function returns a :class:`matplotlib.figure.Figure` built without
pyplot (no global state): a notebook shows it with ``display(fig)``, and
``make sync`` saves some of the same figures into ``images/`` for the README and the web
(tools/images.py), so the files never drift from the code.
"""

from __future__ import annotations

import torch
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter

from .lookup import check_ids, check_weight, one_hot

_HIGHLIGHT = "#d62728"


def _heatmap(ax, values: torch.Tensor, title: str, cmap: str = "viridis", vmin=None, vmax=None) -> None:
    ax.imshow(values.detach().cpu().numpy(), cmap=cmap, vmin=vmin, vmax=vmax, aspect="equal")
    ax.set_title(title, fontsize=10)
    ax.set_xticks([])
    ax.set_yticks([])


def _check_id_row(ids: torch.Tensor, vocab_size: int, what: str) -> torch.Tensor:
    """1-D token ids below ``vocab_size``, as CPU int64; ValueError naming ``what`` otherwise."""
    if not isinstance(ids, torch.Tensor) or ids.dim() != 1:
        raise ValueError(f"{what} must be a 1-D tensor of token ids")
    check_ids(ids, vocab_size)
    return ids.cpu().long()


# --- Notebook 1: the one-hot product -------------------------------------------------------


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


# --- Notebooks 2 and 3: the lookup as row selection; the transpose between Linear and Embedding ---

_ID_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
               "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")  # matplotlib's tab10


def _annotated_heatmap(ax, values: torch.Tensor, title: str, limit: float, fontsize: float = 8) -> None:
    """A ``coolwarm`` heatmap of a 2-D tensor with every value written in its cell."""
    data = values.detach().cpu().float()
    ax.imshow(data.numpy(), cmap="coolwarm", vmin=-limit, vmax=limit, aspect="equal")
    ax.set_title(title, fontsize=10)
    ax.set_xticks([])
    ax.set_yticks([])
    for r, row in enumerate(data.tolist()):
        for c, value in enumerate(row):
            ax.text(c, r, f"{value:.2f}", ha="center", va="center", fontsize=fontsize,
                    color="white" if abs(value) > 0.6 * limit else "black")


def embedding_lookup_figure(ids: torch.Tensor, weight: torch.Tensor) -> Figure:
    """Three panels: the ``(B, T)`` ids, the weight with the rows they pick framed, and ``E(ids)``.

    ``ids``: ``(B, T)`` (or ``(T,)``) integer tensor; ``weight``: ``[V, d]`` with ``V <= 10``
    (one colour per id) and at most 12 ids. The output panel is computed with
    ``F.embedding`` and checked to equal ``weight[ids]`` before it is drawn.
    """
    import torch.nn.functional as F
    from matplotlib.patches import ConnectionPatch

    if not isinstance(weight, torch.Tensor) or weight.dim() != 2:
        raise ValueError(f"weight must be a 2-D tensor [V, d], got {getattr(weight, 'shape', type(weight).__name__)}")
    vocab_size, dim = weight.shape
    if vocab_size > len(_ID_COLOURS):
        raise ValueError(f"the figure colours each id, so V must be <= {len(_ID_COLOURS)}; got V={vocab_size}")
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
            ax_ids.add_patch(Rectangle((t - 0.45, b - 0.45), 0.9, 0.9, color=_ID_COLOURS[i], alpha=0.85))
            ax_ids.text(t, b, str(i), ha="center", va="center", color="white", fontsize=14, fontweight="bold")
    ax_ids.set_xticks(range(steps), [f"t={t}" for t in range(steps)])
    ax_ids.set_yticks(range(batch), [f"b={b}" for b in range(batch)])
    ax_ids.set_title(f"ids  (B={batch}, T={steps})", fontsize=10)
    # the weight, each used row framed in its id's colour
    _annotated_heatmap(ax_w, weight, f"weight  [V={vocab_size}, d={dim}]\n(one row per id)", limit)
    ax_w.set_yticks(range(vocab_size), [f"id {v}" for v in range(vocab_size)])
    for v in sorted(set(flat_ids)):
        ax_w.add_patch(Rectangle((-0.5, v - 0.5), dim, 1, fill=False, ec=_ID_COLOURS[v], lw=3))
        ax_w.get_yticklabels()[v].set_color(_ID_COLOURS[v])
    # the output, one row per id, framed in the same colour and linked to its source row
    _annotated_heatmap(ax_out, rows, f"E(ids)  (B, T, d) = {tuple(out.shape)}\nshown as B·T = {len(flat_ids)} rows",
                       limit)
    labels = [f"[{b},{t}] ← id {int(ids[b, t])}" for b in range(batch) for t in range(steps)]
    ax_out.yaxis.tick_right()  # labels on the right, so the links from the weight's rows stay clear
    ax_out.set_yticks(range(len(flat_ids)), labels)
    for k, v in enumerate(flat_ids):
        ax_out.add_patch(Rectangle((-0.5, k - 0.5), dim, 1, fill=False, ec=_ID_COLOURS[v], lw=3))
        ax_out.get_yticklabels()[k].set_color(_ID_COLOURS[v])
        fig.add_artist(ConnectionPatch(xyA=(dim - 0.5, v), coordsA=ax_w.transData, xyB=(-0.5, k),
                                       coordsB=ax_out.transData, color=_ID_COLOURS[v], lw=1.2, alpha=0.7))
    fig.suptitle("nn.Embedding looks rows up: E(ids)[b, t] = weight[ids[b, t]], copied, nothing multiplied",
                 fontsize=12)
    return fig


def linear_embedding_transpose_figure(embedding_weight: torch.Tensor, linear_weight: torch.Tensor,
                                      token_id: int) -> Figure:
    """Three panels: ``nn.Embedding``'s weight ``[V, d]`` with row ``token_id`` framed, ``nn.Linear``'s
    weight ``[d, V]`` with column ``token_id`` framed, and the one output row both give.

    ``linear_weight`` must equal ``embedding_weight.T`` exactly (checked); the output is
    computed both ways (``F.embedding`` and ``F.linear`` on a one-hot row) and checked equal.
    """
    import torch.nn.functional as F

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
    _annotated_heatmap(ax_e, ew, f"nn.Embedding({vocab_size}, {dim}).weight\n"
                                 f"[num_embeddings, embedding_dim]\n= [V, d] = [{vocab_size}, {dim}]", limit)
    ax_e.set_yticks(range(vocab_size), [f"id {v}" for v in range(vocab_size)])
    ax_e.add_patch(Rectangle((-0.5, token_id - 0.5), dim, 1, fill=False, ec=_HIGHLIGHT, lw=3))
    ax_e.set_xlabel(f"row {token_id} = E.weight[{token_id}]", color=_HIGHLIGHT)
    _annotated_heatmap(ax_l, lw, f"nn.Linear({vocab_size}, {dim}, bias=False).weight = E.weight.T\n"
                                 f"[out_features, in_features]\n= [d, V] = [{dim}, {vocab_size}]", limit)
    ax_l.set_xticks(range(vocab_size), [f"id {v}" for v in range(vocab_size)], fontsize=8)
    ax_l.add_patch(Rectangle((token_id - 0.5, -0.5), 1, dim, fill=False, ec=_HIGHLIGHT, lw=3))
    ax_l.set_xlabel(f"column {token_id} = L.weight[:, {token_id}]", color=_HIGHLIGHT)
    _annotated_heatmap(ax_o, from_embedding, f"E({token_id}) = L(one_hot({token_id}))\n[1, d={dim}]", limit)
    ax_o.add_patch(Rectangle((-0.5, -0.5), dim, 1, fill=False, ec=_HIGHLIGHT, lw=3))
    fig.suptitle("The same numbers, stored transposed: the embedding's rows are the linear layer's columns",
                 fontsize=12)
    return fig


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


def loss_curves_figure(curves: dict[str, list[float]], title: str = "Training loss", *, xlabel: str = "SGD step",
                       baseline: tuple[str, float] | None = None) -> Figure:
    """Loss per step for each named run on one axis (later runs dashed, so overlapping curves stay visible).

    ``baseline``: ``(label, value)`` of a dotted horizontal line, e.g. the uniform guess's loss ``ln V``.
    """
    if not curves:
        raise ValueError("curves must hold at least one run")
    fig = Figure(figsize=(7, 3.6), layout="constrained")
    ax = fig.subplots()
    styles = ({"lw": 5, "alpha": 0.35}, {"lw": 1.6, "ls": "--", "marker": "o", "ms": 2.5})
    for k, (label, losses) in enumerate(curves.items()):
        style = styles[min(k, 1)] if len(curves) > 1 else {"lw": 2}  # one run: a plain line
        ax.plot(range(1, len(losses) + 1), list(losses), label=label, color=_SEQUENCE_COLOURS[k % 5], **style)
    if baseline is not None:
        label, value = baseline
        ax.axhline(float(value), color="black", ls=":", lw=1.2, label=label)
    ax.set_xlabel(xlabel)
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


# --- Notebook 6: what the lookup saves, measured -----------------------------------------

#: One colour and marker per benchmark method, the same in every figure.
METHOD_STYLE = {
    "lookup": {"color": "#1f77b4", "marker": "o", "label": "lookup (F.embedding)", "zorder": 4},
    "dense": {"color": "#d62728", "marker": "s", "label": "dense one-hot @ W"},
    "sparse": {"color": "#2ca02c", "marker": "^", "label": "sparse one-hot @ W"},
    "copy": {"color": "#7f7f7f", "marker": "D", "label": "plain copy of n·d values"},
}
_AXIS_LABELS = {
    "vocab_size": "vocabulary size V",
    "embedding_dim": "embedding dim d",
    "num_tokens": "tokens per batch n",
}
_SIZES = tuple(_AXIS_LABELS)
_PASS_TITLES = {"forward": "forward", "backward": "forward + backward (grad of W)"}
#: Fixed margins instead of a layout engine (constrained layout doubles the drawing time).
_GRID = {"left": 0.08, "right": 0.98, "bottom": 0.12, "top": 0.85, "wspace": 0.08}


def _sweep_rows(rows: list[dict], axis: str) -> tuple[list[dict], str]:
    """The measured rows of a one-dimensional sweep along ``axis``, and a note on the fixed sizes."""
    if axis not in _AXIS_LABELS:
        raise ValueError(f"unknown axis {axis!r}; expected one of {tuple(_AXIS_LABELS)}")
    ok = [r for r in rows if r.get("status") == "ok"]
    if not ok:
        raise ValueError("no measured rows (status 'ok') to draw; run utils.bench.run_benchmark first")
    fixed = [name for name in _SIZES if name != axis]
    varying = [name for name in fixed if len({r[name] for r in ok}) > 1]
    if varying:
        raise ValueError(f"the rows vary in {varying} as well as {axis}: pass the rows of one sweep along {axis}")
    short = {"vocab_size": "V", "embedding_dim": "d", "num_tokens": "n"}
    note = ", ".join(f"{short[name]}={ok[0][name]:,}" for name in fixed)
    threads = ok[0]["threads"]
    return ok, f"{note}, {ok[0]['dtype']}, {ok[0]['device_name']}, {threads} thread{'' if threads == 1 else 's'}"


def _log_axes(ax, axis: str, rows: list[dict], ybase: float = 10) -> None:
    """Log-log axes labelled at the measured sizes, without minor ticks (they cost drawing time, add little)."""
    from matplotlib.ticker import NullLocator

    ax.set_xscale("log")
    ax.set_yscale("log", base=ybase)
    sizes = sorted({r[axis] for r in rows})
    ax.set_xticks(sizes, [f"{v:,}" for v in sizes], fontsize=8)
    ax.xaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_xlabel(_AXIS_LABELS[axis])
    ax.grid(True, which="major", alpha=0.3)


def _series(rows: list[dict], axis: str, method: str, pass_: str, field: str) -> tuple[list[int], list[float]]:
    points = sorted((r[axis], r[field]) for r in rows if r["method"] == method and r["pass"] == pass_
                    and r[field] is not None)
    return [p[0] for p in points], [p[1] for p in points]


def benchmark_time_figure(rows: list[dict], axis: str = "vocab_size") -> Figure:
    """Median time per call against one size, log-log: forward and forward+backward panels, a line per method.

    ``rows``: the tidy rows of :func:`utils.bench.run_benchmark` for a sweep along ``axis``
    (``"vocab_size"``, ``"embedding_dim"`` or ``"num_tokens"``). A dotted grey line of slope 1
    through the dense product's first point shows what "grows in proportion" looks like.
    """
    ok, note = _sweep_rows(rows, axis)
    fig = Figure(figsize=(11, 4.2))  # no layout engine: Jupyter crops with bbox_inches="tight", and it is faster
    axes = fig.subplots(1, 2, sharey=True, gridspec_kw=_GRID)
    for ax, pass_ in zip(axes, _PASS_TITLES, strict=True):
        for method, style in METHOD_STYLE.items():
            xs, ys = _series(ok, axis, method, pass_, "time_s")
            if xs:
                ax.plot(xs, ys, **style)
        xs, ys = _series(ok, axis, "dense", pass_, "time_s")
        if len(xs) > 1:
            ax.plot([xs[0], xs[-1]], [ys[0], ys[0] * xs[-1] / xs[0]], ":", color="0.5", label=f"∝ {axis_symbol(axis)}")
        _log_axes(ax, axis, ok)
        ax.set_title(_PASS_TITLES[pass_], fontsize=10)
    axes[0].set_ylabel("median time per call (s)")
    axes[0].legend(fontsize=8, loc="best")
    fig.suptitle(f"Time against {_AXIS_LABELS[axis]} ({note})", fontsize=11)
    return fig


def axis_symbol(axis: str) -> str:
    """``"vocab_size"`` -> ``"V"``, ``"embedding_dim"`` -> ``"d"``, ``"num_tokens"`` -> ``"n"``."""
    symbols = {"vocab_size": "V", "embedding_dim": "d", "num_tokens": "n"}
    if axis not in symbols:
        raise ValueError(f"unknown axis {axis!r}; expected one of {tuple(symbols)}")
    return symbols[axis]


def benchmark_speedup_figure(rows: list[dict], axis: str = "vocab_size") -> Figure:
    """How many times slower than the lookup the dense and sparse products are, against one size, log-log."""
    from .bench import speedups

    ok, note = _sweep_rows(rows, axis)
    fig = Figure(figsize=(6.5, 4.2))
    ax = fig.subplots(gridspec_kw=_GRID)
    for method in ("dense", "sparse"):
        for pass_, line in (("forward", "-"), ("backward", "--")):
            points = sorted((s[axis], s["speedup"]) for s in speedups(ok, method, pass_))
            if points:
                style = METHOD_STYLE[method]
                ax.plot([p[0] for p in points], [p[1] for p in points], line, color=style["color"],
                        marker=style["marker"], label=f"{method} / lookup, {_PASS_TITLES[pass_]}")
    ax.axhline(1.0, color="black", lw=0.8)
    ax.text(0.01, 1.0, " as fast as the lookup", transform=ax.get_yaxis_transform(), va="bottom", fontsize=8)
    _log_axes(ax, axis, ok)
    ax.set_ylabel("time / lookup's time (how much faster the lookup is)")
    ax.legend(fontsize=8)
    ax.set_title(f"The lookup's speed-up ({note})", fontsize=10)
    return fig


def benchmark_memory_figure(rows: list[dict], axis: str = "vocab_size") -> Figure:
    """Bytes against one size, log-log: what each method builds from the ids, and one call's peak."""
    ok, note = _sweep_rows(rows, axis)
    fig = Figure(figsize=(11, 4.2))
    left, right = fig.subplots(1, 2, sharey=True, gridspec_kw=_GRID)
    for method, style in METHOD_STYLE.items():
        xs, ys = _series(ok, axis, method, "forward", "input_bytes")
        if xs:
            left.plot(xs, ys, **style)
        for pass_, line in (("forward", "-"), ("backward", "--")):
            xs, ys = _series(ok, axis, method, pass_, "peak_bytes")
            if xs:
                right.plot(xs, ys, line, color=style["color"], marker=style["marker"], zorder=style.get("zorder", 2))
    passes = [Line2D([], [], color="black", ls="-", label="forward"),
              Line2D([], [], color="black", ls="--", label="forward + backward")]
    right.legend(handles=passes, fontsize=8, title="colours as on the left; lines that coincide overlap",
                 title_fontsize=7)
    sources = sorted({r["peak_source"] for r in ok if r["peak_source"]})
    left.set_title("input built from the ids (ids, one-hot, COO, copy source)", fontsize=10)
    right.set_title(f"peak bytes one call allocates ({' and '.join(sources)})", fontsize=10)
    for ax in (left, right):
        _log_axes(ax, axis, ok, ybase=2)
        ax.yaxis.set_major_formatter(_bytes_formatter())
    left.set_ylabel("bytes")
    left.legend(fontsize=8)
    fig.suptitle(f"Memory against {_AXIS_LABELS[axis]} ({note})", fontsize=11)
    return fig


def _bytes_formatter():
    from matplotlib.ticker import FuncFormatter

    from .bench import format_bytes

    return FuncFormatter(lambda value, _pos: format_bytes(value) if value > 0 else "")


def benchmark_scaling_figure(sweeps: dict[str, list[dict]], pass_: str = "forward") -> Figure:
    """Median time per call, log-log, one panel per sweep: ``{axis: rows of the sweep along axis}``.

    A dotted grey line of slope 1 through each method's first point shows proportional growth.
    """
    if pass_ not in _PASS_TITLES:
        raise ValueError(f"unknown pass {pass_!r}; expected one of {tuple(_PASS_TITLES)}")
    if not isinstance(sweeps, dict) or not sweeps:
        raise ValueError("sweeps must be a non-empty dict {axis: rows}, e.g. {'embedding_dim': rows}")
    fig = Figure(figsize=(5.5 * len(sweeps), 4.2))
    axes = fig.subplots(1, len(sweeps), squeeze=False, gridspec_kw={**_GRID, "wspace": 0.25})[0]
    for ax, (axis, rows) in zip(axes, sweeps.items(), strict=True):
        ok, note = _sweep_rows(rows, axis)
        for method, style in METHOD_STYLE.items():
            xs, ys = _series(ok, axis, method, pass_, "time_s")
            if xs:
                ax.plot(xs, ys, **style)
                if len(xs) > 1:
                    ax.plot([xs[0], xs[-1]], [ys[0], ys[0] * xs[-1] / xs[0]], ":", color="0.5",
                            label=f"∝ {axis_symbol(axis)}" if method == "lookup" else None)
        _log_axes(ax, axis, ok)
        ax.set_title(note.split(", float")[0].split(", bfloat")[0], fontsize=10)
        ax.legend(fontsize=8)
    axes[0].set_ylabel("median time per call (s)")
    fig.suptitle(f"Time against d and n, {_PASS_TITLES[pass_]}", fontsize=11)
    return fig


_VARIANT_STYLE = {
    "lookup": {"color": "#1f77b4", "marker": "o", "linestyle": ":", "label": "lookup, allocating its output"},
    "lookup_into": {"color": "#1f77b4", "marker": "o", "label": "lookup into a preallocated output", "zorder": 4},
    "copy_cold": {"color": "#2b2b2b", "marker": "D", "label": "copy, source not in cache (fair reference)"},
    "copy_cached": {"color": "#9a9a9a", "marker": "D", "linestyle": "--", "label": "copy, source in cache"},
}
_REGIME_COLORS = {"per-call overhead": "#fdebd0", "cache-resident": "#e8f4fa", "DRAM-bound": "#eaf5ea"}


def _binary_bytes(num: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if num < 1024 or unit == "GiB":
            return f"{num:.0f} {unit}"
        num /= 1024
    raise AssertionError("unreachable")


def bandwidth_regimes_figure(rows: list[dict], regimes: list[str]) -> Figure:
    """Achieved bandwidth against the bytes one call moves, log-log, from ``bench.bandwidth_study`` rows.

    One line per variant; the background is shaded by ``regimes`` (``bench.regimes(rows)``,
    one label per row), and a dashed line marks the last-level cache.
    """
    if len(rows) != len(regimes):
        raise ValueError(f"one regime per row: got {len(rows)} rows and {len(regimes)} regimes")
    ok = [(r, g) for r, g in zip(rows, regimes, strict=True) if r.get("status") == "ok"]
    if len(ok) < 2:
        raise ValueError("the figure needs at least two measured rows (status 'ok')")
    xs = [r["bytes_moved"] for r, _ in ok]
    fig = Figure(figsize=(8, 4.4))  # fixed margins, no layout engine: faster (Jupyter crops the margins)
    ax = fig.subplots(gridspec_kw={"left": 0.09, "right": 0.98, "bottom": 0.12, "top": 0.92})
    edges = [xs[0] / 1.5] + [(a * b) ** 0.5 for a, b in zip(xs, xs[1:], strict=False)] + [xs[-1] * 1.5]
    for (_, regime), left, right in zip(ok, edges[:-1], edges[1:], strict=True):
        ax.axvspan(left, right, color=_REGIME_COLORS.get(regime, "white"), lw=0)
    for variant, style in _VARIANT_STYLE.items():
        ax.plot(xs, [r[f"{variant}_gbs"] for r, _ in ok], **style)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: _binary_bytes(x)))
    ax.set_yscale("log")
    for formatter in (ax.yaxis.set_major_formatter, ax.yaxis.set_minor_formatter):
        formatter(FuncFormatter(lambda y, _: f"{y:g}"))
    cache = ok[0][0]["cache_bytes"]
    ax.axvline(cache, color="0.3", linestyle="--", lw=1)
    ax.text(cache, ax.get_ylim()[1], f"last-level cache ({_binary_bytes(cache)}) ", fontsize=8, va="top", ha="right")
    ax.set_xlim(edges[0], edges[-1])
    ax.set_xlabel("bytes one lookup moves (ids + rows read + output written)")
    ax.set_ylabel("achieved bandwidth (GB/s, median)")
    handles, labels = ax.get_legend_handles_labels()
    handles += [Rectangle((0, 0), 1, 1, color=color) for color in _REGIME_COLORS.values()]
    labels += list(_REGIME_COLORS)
    ax.legend(handles, labels, fontsize=8, loc="lower right", ncols=2)
    first = ok[0][0]
    ax.set_title(f"Bandwidth by call size: V={first['vocab_size']:,}, d={first['embedding_dim']:,}, "
                 f"{first['dtype']}, {first['device_name']}", fontsize=10)
    return fig


# --- Notebooks 7 and 8: bags, positions, and the vocabulary-parallel split ---------------

_RANK_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")


def multi_hot_bag_figure(bag_ids: torch.Tensor, weight: torch.Tensor, tokens: list[str] | None = None) -> Figure:
    """A bag of ids as a multi-hot (counts) row times ``weight`` ``[V, d]``: the bag's sum.

    ``bag_ids``: ``(L,)`` int64. Three panels: the counts row ``[1, V]`` (numbers
    written in), the weight with the used rows framed, and ``counts @ weight`` ``[1, d]``,
    which is checked against the sum of the looked-up rows.
    """
    weight = check_weight(weight).detach().cpu()
    vocab_size, dim = weight.shape
    bag_ids = _check_id_row(bag_ids, vocab_size, "bag_ids")
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

    weight = check_weight(weight).detach().cpu()
    vocab_size, dim = weight.shape
    ids = _check_id_row(ids, vocab_size, "ids")
    bounds = shard_bounds(vocab_size, world_size)
    if world_size > len(_RANK_COLORS):
        raise ValueError(f"the figure draws at most {len(_RANK_COLORS)} processes, got world_size {world_size}")
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


# --- Notebook 9: what the table learns ------------------------------------------------------

#: one colour per word category (matplotlib's tab10 without its red, which would read as a highlight)
_CATEGORY_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")


def pca_2d(points: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The first two principal components of ``points`` ``(n, d)``: coordinates ``(n, 2)`` and the fraction of
    the variance that each of the two explains ``(2,)``.

    The points are centred and decomposed with an SVD, in float64: deterministic, unlike
    ``torch.pca_lowrank``, which draws a random projection. Each axis is signed so that its
    largest loading is positive, so the same points always give the same picture.
    """
    if not isinstance(points, torch.Tensor) or points.dim() != 2 or min(points.shape) < 2:
        shape = tuple(points.shape) if isinstance(points, torch.Tensor) else type(points).__name__
        raise ValueError(f"points must be a 2-D tensor (n, d) with n >= 2 and d >= 2, got {shape}")
    x = points.detach().cpu().double()
    centred = x - x.mean(dim=0)
    _, singular, vh = torch.linalg.svd(centred, full_matrices=False)
    axes = vh[:2]  # (2, d): the two directions of largest variance
    axes = axes * torch.sign(axes.gather(1, axes.abs().argmax(dim=1, keepdim=True)))  # largest loading > 0
    variance = singular**2
    return (centred @ axes.T).float(), (variance[:2] / variance.sum()).float()


def _check_labelled_points(panels: dict[str, torch.Tensor], words: list[str], categories: list[str]) -> list[str]:
    """The categories in order of first appearance; ValueError unless every panel has one row per word."""
    if not panels:
        raise ValueError("panels must hold at least one (title -> points) entry")
    if len(words) != len(categories):
        raise ValueError(f"words and categories must have the same length, got {len(words)} and {len(categories)}")
    for title, points in panels.items():
        if not isinstance(points, torch.Tensor) or points.dim() != 2 or points.shape[0] != len(words):
            shape = tuple(points.shape) if isinstance(points, torch.Tensor) else type(points).__name__
            raise ValueError(f"panel {title!r}: expected points of shape ({len(words)}, d), one row per word; "
                             f"got {shape}")
    order = list(dict.fromkeys(categories))
    if len(order) > len(_CATEGORY_COLOURS):
        raise ValueError(f"at most {len(_CATEGORY_COLOURS)} categories, got {len(order)}")
    return order


def embedding_pca_figure(panels: dict[str, torch.Tensor], words: list[str], categories: list[str],
                         held_out: tuple[str, ...] = ()) -> Figure:
    """Each panel: the rows of a table (``(n, d)``, one per word) projected on their first two principal axes,
    coloured by category, every point labelled with its word.

    ``categories[i]`` is the category of ``words[i]``. Words in ``held_out`` are drawn as
    hollow markers: rows that no training example looked up. Each panel has its own
    axes (from :func:`pca_2d` of that panel's points).
    """
    order = _check_labelled_points(panels, words, categories)
    colour = dict(zip(order, _CATEGORY_COLOURS, strict=False))
    fig = Figure(figsize=(5.4 * len(panels), 5.0))  # no layout engine: Jupyter crops with bbox_inches="tight"
    axes = fig.subplots(1, len(panels), squeeze=False, gridspec_kw={"wspace": 0.25, "top": 0.88})[0]
    for ax, (title, points) in zip(axes, panels.items(), strict=True):
        coords, explained = pca_2d(points)
        for category in order:
            seen = [i for i, (w, c) in enumerate(zip(words, categories, strict=True))
                    if c == category and w not in held_out]
            ax.scatter(coords[seen, 0].numpy(), coords[seen, 1].numpy(), s=36, color=colour[category],
                       label=category, zorder=3)
        unseen = [i for i, w in enumerate(words) if w in held_out]
        if unseen:
            ax.scatter(coords[unseen, 0].numpy(), coords[unseen, 1].numpy(), s=70, facecolors="none",
                       edgecolors=[colour[categories[i]] for i in unseen], linewidths=2,
                       label="never in a sentence", zorder=3)
        for i, word in enumerate(words):
            ax.annotate(word, (float(coords[i, 0]), float(coords[i, 1])), xytext=(3, 3), textcoords="offset points",
                        fontsize=7, color="#333333", fontweight="bold" if word in held_out else "normal")
        ax.set_xlabel(f"first principal axis ({float(explained[0]):.0%} of the variance)")
        ax.set_ylabel(f"second principal axis ({float(explained[1]):.0%})")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
    axes[-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, title="category")
    fig.suptitle("The rows of the table in 2-D (PCA), coloured by the category of their word", fontsize=12)
    return fig


def similarity_matrix_figure(panels: dict[str, torch.Tensor], words: list[str], categories: list[str],
                             held_out: tuple[str, ...] = ()) -> Figure:
    """Each panel: the cosine similarity of every pair of rows (``(n, d)``, one per word) as a heatmap.

    ``categories[i]`` is the category of ``words[i]``; each category's words must be next
    to each other. Thin lines frame the category blocks, whose names label the axes; words
    in ``held_out`` (rows no training example looked up) get a tick of their own.
    """
    order = _check_labelled_points(panels, words, categories)
    runs = [c for k, c in enumerate(categories) if k == 0 or categories[k - 1] != c]
    if len(runs) != len(order):
        raise ValueError("the words of each category must be next to each other (sort them by category)")
    starts = [k for k in range(len(categories)) if k == 0 or categories[k] != categories[k - 1]]
    ends = [*starts[1:], len(categories)]
    ticks = [(start + end - 1) / 2 for start, end in zip(starts, ends, strict=True)]
    labels = list(order)
    for k, word in enumerate(words):
        if word in held_out:
            ticks.append(k)
            labels.append(f"{word} (never seen)")
    fig = Figure(figsize=(5.2 * len(panels) + 1.0, 5.4), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (title, points) in zip(axes, panels.items(), strict=True):
        unit = torch.nn.functional.normalize(points.detach().cpu().float(), dim=1)
        image = ax.imshow((unit @ unit.T).numpy(), cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest")
        ax.set_xticks(ticks, labels, rotation=90, fontsize=8)
        ax.set_yticks(ticks, labels, fontsize=8)
        for edge in starts[1:]:
            ax.axhline(edge - 0.5, color="black", lw=0.8)
            ax.axvline(edge - 0.5, color="black", lw=0.8)
        ax.set_title(title, fontsize=10)
    fig.colorbar(image, ax=list(axes), shrink=0.8, label="cosine similarity")
    fig.suptitle(f"Cosine similarity of every pair of the {len(words)} words' rows, grouped by category", fontsize=12)
    return fig
