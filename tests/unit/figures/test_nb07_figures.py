"""Notebook 7's diagrams are drawn from real tensors and refuse input they would draw wrong."""

import pytest
import torch
from matplotlib.figure import Figure

from utils.figures import nb07 as figures


def test_multi_hot_bag_figure_is_drawn_from_the_tensors():
    weight = torch.randn(6, 3, generator=torch.Generator().manual_seed(0))
    fig = figures.multi_hot_bag_figure(torch.tensor([1, 4, 1]), weight, tokens=list("abcdef"))
    assert isinstance(fig, Figure) and len(fig.axes) == 4  # three panels and the colour scale of W and the product
    counts = torch.from_numpy(fig.axes[0].images[0].get_array().data)
    assert counts.tolist() == [[0, 2, 0, 0, 1, 0]]
    product = torch.from_numpy(fig.axes[2].images[0].get_array().data).float()
    assert torch.allclose(product, (2 * weight[1] + weight[4])[None], atol=1e-6)

def test_multi_hot_bag_figure_rejects_bad_input():
    with pytest.raises(ValueError, match="token id 6 is out of range for a vocabulary of 6"):
        figures.multi_hot_bag_figure(torch.tensor([6]), torch.zeros(6, 3))
    with pytest.raises(ValueError, match="bag_ids must be a 1-D tensor"):
        figures.multi_hot_bag_figure(torch.tensor([[1]]), torch.zeros(6, 3))
    with pytest.raises(ValueError, match=r"weight must be 2-D with shape \[num_embeddings, embedding_dim\]"):
        figures.multi_hot_bag_figure(torch.tensor([1]), torch.zeros(6))

def test_sinusoidal_positions_figure():

    table = torch.rand(20, 8, generator=torch.Generator().manual_seed(0)) * 2 - 1  # any table of values in [-1, 1]
    fig = figures.sinusoidal_positions_figure(table, columns=(0, 3))
    heat, curves = fig.axes[0], fig.axes[1]
    assert torch.equal(torch.from_numpy(heat.images[0].get_array().data), table)
    assert len(curves.lines) == 2
    with pytest.raises(ValueError, match=r"columns \[8\] are out of range for a table with 8 columns"):
        figures.sinusoidal_positions_figure(table, columns=(8,))
    with pytest.raises(ValueError, match="table must be 2-D"):
        figures.sinusoidal_positions_figure(table[0])
