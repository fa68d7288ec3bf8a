"""Notebook 2's diagrams are drawn from real tensors and refuse input they would draw wrong."""

import pytest
import torch
from matplotlib.figure import Figure

from utils.figures import nb02 as figures


def test_embedding_lookup_figure_shows_the_looked_up_rows():
    weight = torch.randn(4, 5, generator=torch.Generator().manual_seed(123))
    ids = torch.tensor([[2, 3, 1], [1, 0, 2]])
    fig = figures.embedding_lookup_figure(ids, weight)
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    output_image = torch.from_numpy(fig.axes[2].images[0].get_array().data).float()
    assert torch.equal(output_image, weight[ids].reshape(6, 5))
    assert len(fig.axes[1].patches) == len(set(ids.flatten().tolist()))  # one frame per distinct row
    assert figures.embedding_lookup_figure(torch.tensor([0, 0]), weight).axes[2].images[0].get_array().shape == (2, 5)

def test_embedding_lookup_figure_rejects_bad_input():
    weight = torch.zeros(4, 5)
    with pytest.raises(ValueError, match="token id 4 is out of range for a vocabulary of 4"):
        figures.embedding_lookup_figure(torch.tensor([[4]]), weight)
    with pytest.raises(TypeError, match="integer dtype"):
        figures.embedding_lookup_figure(torch.tensor([[1.0]]), weight)
    with pytest.raises(ValueError, match="V must be <= 10; got V=11"):
        figures.embedding_lookup_figure(torch.tensor([[1]]), torch.zeros(11, 2))
    with pytest.raises(ValueError, match=r"1 to 12 ids, got shape \(2, 7\)"):
        figures.embedding_lookup_figure(torch.zeros(2, 7, dtype=torch.long), weight)
    with pytest.raises(ValueError, match=r"weight must be a 2-D tensor \[V, d\]"):
        figures.embedding_lookup_figure(torch.tensor([0]), torch.zeros(4))
