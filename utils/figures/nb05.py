"""Notebook 5's diagrams: weight histograms with their densities."""

from __future__ import annotations

import math

import numpy as np
import torch
from matplotlib.figure import Figure

from ..init_stats import Expected, normal
from .drawing import SEQUENCE_COLOURS


def _as_expected(expected: object) -> Expected | None:
    """``("normal", std)``, ``("uniform", bound)``, an :class:`~utils.init_stats.Expected` or ``None``."""
    if expected is None or isinstance(expected, Expected):
        return expected
    if isinstance(expected, tuple) and len(expected) == 2 and expected[0] == "normal":
        return normal(expected[1])
    if isinstance(expected, tuple) and len(expected) == 2 and expected[0] == "uniform":
        bound = expected[1]
        return Expected(f"U(±{bound:g})", "uniform", bound / math.sqrt(3), bound=bound)
    raise TypeError("expected must be ('normal', std), ('uniform', bound), an init_stats.Expected or None, "
                    f"got {expected!r}")


def _draw_histograms(ax, entries, lo: float, hi: float, bins: int, labels: bool) -> None:

    for k, (label, values, expected) in enumerate(entries):
        data = values.detach().cpu().double().flatten().numpy()
        counts, edges = np.histogram(data, bins=bins, range=(lo, hi))
        density = counts / (data.size * (edges[1] - edges[0]))  # a density over all values, also those outside
        colour = SEQUENCE_COLOURS[k % len(SEQUENCE_COLOURS)]
        std_note = f"std {data.std(ddof=1):.4f}" + (f" (expected {expected.std:.4f})" if expected else "")
        text = f"{label}: {std_note}" if labels else None
        if k == 0:  # the first histogram filled, the others as outlines so that overlaps stay visible
            ax.stairs(density, edges, fill=True, alpha=0.35, color=colour, label=text)
        else:
            ax.stairs(density, edges, color=colour, lw=1.3, label=text)
        if expected is not None:  # the density averaged over each bin: the height a bar should have
            cdf = expected.torch_distribution().cdf(torch.as_tensor(edges, dtype=torch.float64)).numpy()
            ax.stairs(np.diff(cdf) / np.diff(edges), edges, color="black", ls="--", lw=1.0,
                      zorder=3)  # black, over the histograms: visible where it matches them
    ax.set_xlim(lo, hi)


def weight_histograms_figure(panels: dict[str, list[tuple[str, torch.Tensor, object]]], *, bins: int = 80,
                             log_y: bool = False, x_range: tuple[float, float] | None = None,
                             zoom: tuple[float, float] | None = None, title: str | None = None,
                             xlabel: str = "weight value") -> Figure:
    """Histograms of weights with their theoretical densities overlaid, one panel per entry of ``panels``.

    ``panels``: panel title -> list of ``(label, values, expected)``; ``values`` is a
    tensor of any shape (flattened), ``expected`` ``("normal", std)`` for N(0, std²),
    ``("uniform", bound)`` for U(-bound, bound), a :class:`utils.init_stats.Expected`,
    or ``None``. Each legend entry gives
    the observed and the expected std. Heights are ``np.histogram`` counts divided by
    ``n * bin width`` (a density; values outside the range still count in ``n``). The
    first entry is filled, later ones are outlines; each expected density is dashed black, averaged over each bin (so a
    bin wider than a whole uniform draw shows ``1/(bin width)``, as its bar does).
    ``zoom=(lo, hi)`` adds an inset with that range on a linear scale.
    """


    if not panels:
        raise ValueError("panels must hold at least one panel")
    rows = max(len(entries) for entries in panels.values()) + 1  # legend lines under each panel
    fig = Figure(figsize=(max(5.2 * len(panels), 7.0), 3.4 + 0.2 * rows), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (panel_title, entries) in zip(axes, panels.items(), strict=True):
        if not entries:
            raise ValueError(f"panel {panel_title!r} has no histograms")
        entries = [(label, values, _as_expected(expected)) for label, values, expected in entries]
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
            inset.set_xticks(np.linspace(zoom[0], zoom[1], 5)[1:-1])  # none at the edges, where labels get cut
            inset.tick_params(labelsize=7)
            inset.set_title("zoom, linear scale", fontsize=7)
        ax.plot([], [], color="black", ls="--", lw=1.0, label="theoretical density, averaged over each bin")
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

