"""What the notebooks' diagrams share: matplotlib's tab10 colours, heatmaps, and the loss-curve plot."""

from __future__ import annotations

import matplotlib
import torch
from matplotlib.figure import Figure

from ..lookup import check_ids

#: matplotlib's ten categorical colours: blue, orange, green, red, purple, brown, pink, grey, olive, cyan
TAB10 = matplotlib.colormaps["tab10"].colors
#: the colour that frames what a figure points at: tab10's red
HIGHLIGHT = TAB10[3]
#: colours for a few runs or positions in a row: blue, red, green, purple, orange
SEQUENCE_COLOURS = tuple(TAB10[i] for i in (0, 3, 2, 4, 1))
#: colours for categories and ranks: tab10 without its red (the highlight) and its grey
GROUP_COLOURS = tuple(TAB10[i] for i in (0, 1, 2, 4, 5, 6, 9, 8))


def heatmap(ax, values: torch.Tensor, title: str, cmap: str = "viridis", vmin=None, vmax=None) -> None:
    """A 2-D tensor as an image with a title and no ticks."""
    ax.imshow(values.detach().cpu().numpy(), cmap=cmap, vmin=vmin, vmax=vmax, aspect="equal")
    ax.set_title(title, fontsize=10)
    ax.set_xticks([])
    ax.set_yticks([])


def annotated_heatmap(ax, values: torch.Tensor, title: str, limit: float, fontsize: float = 8) -> None:
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


def check_id_row(ids: torch.Tensor, vocab_size: int, what: str) -> torch.Tensor:
    """1-D token ids below ``vocab_size``, as CPU int64; ValueError naming ``what`` otherwise."""
    if not isinstance(ids, torch.Tensor) or ids.dim() != 1:
        raise ValueError(f"{what} must be a 1-D tensor of token ids")
    check_ids(ids, vocab_size)
    return ids.cpu().long()


def loss_curves_figure(curves: dict[str, list[float]], title: str = "Training loss", *, xlabel: str = "SGD step",
                       baseline: tuple[str, float] | list[tuple[str, float]] | None = None) -> Figure:
    """Loss per step for each named run on one axis (later runs dashed, so overlapping curves stay visible).

    ``baseline``: ``(label, value)`` of a dotted horizontal line, e.g. the uniform guess's loss ``ln V``, or a list of
    them (each in its own grey).
    """
    if not curves:
        raise ValueError("curves must hold at least one run")
    fig = Figure(figsize=(7, 3.6), layout="constrained")
    ax = fig.subplots()
    styles = ({"lw": 5, "alpha": 0.35}, {"lw": 1.6, "ls": "--", "marker": "o", "ms": 2.5})
    for k, (label, losses) in enumerate(curves.items()):
        style = styles[min(k, 1)] if len(curves) > 1 else {"lw": 2}  # one run: a plain line
        ax.plot(range(1, len(losses) + 1), list(losses), label=label, color=SEQUENCE_COLOURS[k % 5], **style)
    baselines = [] if baseline is None else [baseline] if isinstance(baseline, tuple) else list(baseline)
    for k, (label, value) in enumerate(baselines):
        ax.axhline(float(value), color=("black", "dimgrey", "darkgrey")[k % 3], ls=(":", "-.", "--")[k % 3], lw=1.2,
                   label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("cross-entropy loss")
    ax.set_title(title, fontsize=11)
    ax.grid(alpha=0.3)
    ax.legend()
    return fig
