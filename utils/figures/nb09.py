"""Notebook 9's diagrams: the table's rows in 2-D, and their cosine similarities; loss curves as in notebook 4."""

from __future__ import annotations

import torch
from matplotlib.figure import Figure

from .drawing import GROUP_COLOURS
from .drawing import loss_curves_figure as loss_curves_figure


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
    if len(order) > len(GROUP_COLOURS):
        raise ValueError(f"at most {len(GROUP_COLOURS)} categories, got {len(order)}")
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
    colour = dict(zip(order, GROUP_COLOURS, strict=False))
    fig = Figure(figsize=(6.2 * len(panels), 5.6))  # no layout engine: Jupyter crops with bbox_inches="tight"
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
        _label_points(ax, coords, words, held_out)
        ax.set_xlabel(f"first principal axis ({float(explained[0]):.0%} of the variance)")
        ax.set_ylabel(f"second principal axis ({float(explained[1]):.0%})")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
    axes[-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, title="category")
    fig.suptitle("The rows of the table in 2-D (PCA), coloured by the category of their word", fontsize=12)
    return fig


_LABEL_SIZE = 7  # points: the font size of a word's label


def _label_points(ax, coords: torch.Tensor, words: list[str], bold: tuple[str, ...]) -> None:
    """Each word's label beside its point: above right if that place is free, else the nearest free place around
    the point (right or left, then a line further up or down each time), free meaning clear of the labels already
    placed (the words taken in order) and of every other point. A label moved off its first place gets a thin line
    back to its point: a tight cluster's words stay readable."""
    ax.get_xlim(), ax.get_ylim()  # the scatter's limits, settled before positions are measured
    to_points = 72 / ax.figure.dpi  # display pixels -> points
    line = _LABEL_SIZE + 1.5  # the height of a label, in points
    dots = [tuple(float(v) * to_points for v in ax.transData.transform((float(c[0]), float(c[1])))) for c in coords]
    marker = 4.0  # points: half the width of a marker, as a box
    dot_boxes = [(x - marker, y - marker, x + marker, y + marker) for x, y in dots]
    placed = []  # the labels' boxes so far: (left, bottom, right, top), in points

    def overlaps(a, b):
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

    for i, word in enumerate(words):
        x, y = dots[i]
        width = 0.6 * _LABEL_SIZE * len(word)
        offsets = [(3, 3), (3, -3 - line), (-3 - width, 3), (-3 - width, -3 - line)]  # the four corners
        for step in range(1, 6):  # then further up or down, right then left
            offsets += [(3, 3 + step * line), (3, -3 - (step + 1) * line),
                        (-3 - width, 3 + step * line), (-3 - width, -3 - (step + 1) * line)]
        others = dot_boxes[:i] + dot_boxes[i + 1:]
        free = [(dx, dy) for dx, dy in offsets
                if not any(overlaps((x + dx, y + dy, x + dx + width, y + dy + line), b) for b in placed + others)]
        dx, dy = free[0] if free else offsets[0]
        placed.append((x + dx, y + dy, x + dx + width, y + dy + line))
        moved = (dx, dy) != offsets[0]  # off its first place: a line back to the point
        ax.annotate(word, (float(coords[i, 0]), float(coords[i, 1])), xytext=(dx, dy),
                    textcoords="offset points", fontsize=_LABEL_SIZE, color="#333333",
                    fontweight="bold" if word in bold else "normal",
                    arrowprops={"arrowstyle": "-", "lw": 0.4, "color": "#999999"} if moved else None)


def similarity_matrix_figure(panels: dict[str, torch.Tensor], words: list[str], categories: list[str],
                             held_out: tuple[str, ...] = ()) -> Figure:
    """Each panel: the cosine similarity of every pair of rows (``(n, d)``, one per word) as a heatmap.

    ``categories[i]`` is the category of ``words[i]``; each category's words must be next
    to each other. Thin lines frame the category blocks, whose names label the axes; words
    in ``held_out`` (rows no training example looked up) get a tick of their own, named in full on the y axis.
    """
    order = _check_labelled_points(panels, words, categories)
    runs = [c for k, c in enumerate(categories) if k == 0 or categories[k - 1] != c]
    if len(runs) != len(order):
        raise ValueError("the words of each category must be next to each other (sort them by category)")
    starts = [k for k in range(len(categories)) if k == 0 or categories[k] != categories[k - 1]]
    ends = [*starts[1:], len(categories)]
    ticks = [(start + end - 1) / 2 for start, end in zip(starts, ends, strict=True)]
    labels = list(order)
    short = list(order)  # the x axis's: a held-out word's name alone, which does not run into its category's
    for k, word in enumerate(words):
        if word in held_out:
            ticks.append(k)
            labels.append(f"{word} (never in a sentence)")
            short.append(word)
    fig = Figure(figsize=(5.2 * len(panels) + 1.0, 5.4), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (title, points) in zip(axes, panels.items(), strict=True):
        unit = torch.nn.functional.normalize(points.detach().cpu().float(), dim=1)
        image = ax.imshow((unit @ unit.T).numpy(), cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest")
        ax.set_xticks(ticks, short, rotation=90, fontsize=8)
        ax.set_yticks(ticks, labels, fontsize=8)
        for edge in starts[1:]:
            ax.axhline(edge - 0.5, color="black", lw=0.8)
            ax.axvline(edge - 0.5, color="black", lw=0.8)
        ax.set_title(title, fontsize=10)
    fig.colorbar(image, ax=list(axes), shrink=0.8, label="cosine similarity")
    fig.suptitle(f"Cosine similarity of every pair of the {len(words)} words' rows, grouped by category", fontsize=12)
    return fig
