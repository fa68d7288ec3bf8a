"""Notebook 5's diagrams are drawn from real tensors and refuse input they would draw wrong."""

import pytest
import torch

from utils import init_stats
from utils.figures import nb05 as figures


def test_weight_histograms_figure_overlays_the_density():

    values = torch.randn(20_000, generator=torch.Generator().manual_seed(0))
    expected = init_stats.embedding_init()
    fig = figures.weight_histograms_figure({"N(0, 1)": [("draws", values, expected)]}, bins=40, zoom=(-1, 1))
    ax = fig.axes[0]
    heights = ax.patches[0].get_data().values  # the filled StepPatch
    assert abs(heights.max() - 0.4) < 0.03  # the normal density's peak, 1/sqrt(2 pi)
    observed = float(values.double().std())
    assert ax.get_legend().get_texts()[0].get_text() == f"draws: std {observed:.4f} (expected 1.0000)"
    assert len(fig.axes) == 1 and len(ax.child_axes) == 1  # the panel and its zoom inset
    with pytest.raises(TypeError, match=r"expected must be \('normal', std\), \('uniform', bound\)"):
        figures.weight_histograms_figure({"x": [("draws", values, 1.0)]})
    uniform = torch.rand(20_000, generator=torch.Generator().manual_seed(1)) * 0.2 - 0.1
    fig = figures.weight_histograms_figure({"U": [("draws", uniform, ("uniform", 0.1))],
                                            "N": [("draws", values, ("normal", 1.0))]}, bins=40)
    assert fig.axes[0].get_legend().get_texts()[0].get_text().endswith(f"(expected {0.1 / 3**0.5:.4f})")
    assert fig.axes[1].get_legend().get_texts()[0].get_text().endswith("(expected 1.0000)")
    with pytest.raises(ValueError, match="has no histograms"):
        figures.weight_histograms_figure({"x": []})
