"""Notebook 8's diagrams are drawn from real tensors and refuse input they would draw wrong."""

import pytest
import torch

from utils.figures import nb08 as figures


def test_vocab_parallel_figure_shows_each_rank_and_the_sum():
    weight = torch.randn(11, 4, generator=torch.Generator().manual_seed(0))
    ids = torch.tensor([4, 9, 0, 6, 4])
    fig = figures.vocab_parallel_figure(weight, ids, world_size=3)
    assert len(fig.axes) == 6  # the table, three partial results, the sum, the colour scale
    total = torch.from_numpy(fig.axes[-2].images[0].get_array().data)
    assert torch.equal(total, weight[ids])
    rank1 = torch.from_numpy(fig.axes[2].images[0].get_array().data)  # rows 4..7: ids 4, 6, 4
    assert torch.equal(rank1[[0, 3, 4]], weight[[4, 6, 4]]) and not rank1[[1, 2]].any()
    with pytest.raises(ValueError, match="ids must be a 1-D tensor"):
        figures.vocab_parallel_figure(weight, ids[None], 2)
    for world_size in (1, 9, 11):  # every world_size notebook 8's parameters cell invites, up to V = 11
        fig = figures.vocab_parallel_figure(weight, ids, world_size)
        assert len(fig.axes) == world_size + 3
        assert torch.equal(torch.from_numpy(fig.axes[-2].images[0].get_array().data), weight[ids])
    with pytest.raises(ValueError, match="world_size 12 is larger than vocab_size 11"):
        figures.vocab_parallel_figure(weight, ids, 12)
