"""Notebook 1's diagrams are drawn from real tensors and refuse input they would draw wrong."""

import pytest
import torch
from matplotlib.figure import Figure

from utils.figures import nb01 as figures


def test_one_hot_product_figure_is_drawn_from_the_tensors():
    weight = torch.randn(7, 3, generator=torch.Generator().manual_seed(0))
    fig = figures.one_hot_product_figure(2, weight, token="cat")
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    product_image = fig.axes[2].images[0].get_array()
    assert product_image.shape == (1, 3)
    assert torch.equal(torch.from_numpy(product_image.data).float(), weight[[2]])

def test_a_small_weight_has_its_numbers_written_in_the_picture():
    weight = torch.randn(4, 5, generator=torch.Generator().manual_seed(123))
    written = figures.one_hot_product_figure(2, weight).axes
    assert [text.get_text() for text in written[2].texts] == [f"{value:.2f}" for value in weight[2].tolist()]
    assert len(written[1].texts) == weight.numel()
    tall = figures.one_hot_product_figure(5, torch.randn(15, 4)).axes  # notebook 1's shape: written too
    assert len(tall[1].texts) == 60 and len(tall[2].texts) == 4
    assert not figures.one_hot_product_figure(2, torch.randn(20, 6)).axes[1].texts  # a larger one: colours only


def test_one_hot_product_figure_rejects_bad_input():
    with pytest.raises(ValueError, match="token id 9 is out of range for a vocabulary of 7"):
        figures.one_hot_product_figure(9, torch.zeros(7, 3))
    with pytest.raises(
            ValueError, match=r"weight must be 2-D with shape \[num_embeddings, embedding_dim\], got shape \(7,\)"
    ):
        figures.one_hot_product_figure(0, torch.zeros(7))
