"""Notebook 3's diagrams are drawn from real tensors and refuse input they would draw wrong."""

import pytest
import torch
from matplotlib.figure import Figure

from utils.figures import nb03 as figures


def test_linear_embedding_transpose_figure():
    weight = torch.randn(8, 4, generator=torch.Generator().manual_seed(3))
    fig = figures.linear_embedding_transpose_figure(weight, weight.T, 5)
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    arrays = [torch.from_numpy(ax.images[0].get_array().data).float() for ax in fig.axes]
    assert arrays[0].shape == (8, 4) and arrays[1].shape == (4, 8)
    assert torch.equal(arrays[1], weight.T) and torch.equal(arrays[2], weight[[5]])

def test_linear_embedding_transpose_figure_rejects_an_untransposed_weight():
    weight = torch.randn(8, 4, generator=torch.Generator().manual_seed(3))
    with pytest.raises(ValueError, match=r"must have shape \[out_features=4, in_features=8\], got \(8, 4\)"):
        figures.linear_embedding_transpose_figure(weight, weight, 5)
    with pytest.raises(ValueError, match="is not embedding_weight transposed"):
        figures.linear_embedding_transpose_figure(weight, weight.T + 1, 5)
    with pytest.raises(ValueError, match="token id 8 is out of range"):
        figures.linear_embedding_transpose_figure(weight, weight.T, 8)
