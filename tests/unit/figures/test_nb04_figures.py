"""Notebook 4's diagrams are drawn from real tensors and refuse input they would draw wrong."""

import pytest
import torch

from utils.figures import nb04 as figures


def test_gradient_rows_figure_draws_the_real_gradient():
    ids = torch.tensor([1, 3, 3])
    grad_out = torch.randn(3, 2, generator=torch.Generator().manual_seed(0))
    grad = torch.zeros(5, 2).index_add_(0, ids, grad_out)
    fig = figures.gradient_rows_figure(ids, grad_out, grad)
    assert len(fig.axes) == 2
    shown = torch.from_numpy(fig.axes[1].images[0].get_array().data).float()
    assert torch.equal(shown, grad)
    assert [t.get_text() for t in fig.axes[1].get_yticklabels()][3] == "row 3: looked up 2×"

def test_gradient_rows_figure_rejects_a_wrong_gradient():
    ids = torch.tensor([1, 3, 3])
    grad_out = torch.ones(3, 2)
    assigned = torch.zeros(5, 2)
    assigned[ids] = grad_out  # overwrites instead of adding
    with pytest.raises(AssertionError, match="grad is not one_hot"):
        figures.gradient_rows_figure(ids, grad_out, assigned)
    with pytest.raises(ValueError, match=r"grad_out must have shape \(T=3, d=2\), got \(2, 2\)"):
        figures.gradient_rows_figure(ids, torch.ones(2, 2), assigned)
    with pytest.raises(ValueError, match=r"expected ids \(T,\)"):
        figures.gradient_rows_figure(ids[None], grad_out, assigned)

def test_moved_rows_figure():
    moved = {"SGD": torch.tensor([False, True, False]), "AdamW": torch.tensor([True, True, True])}
    fig = figures.moved_rows_figure(moved, {"looked up": [1], "never": [0, 2]})
    grid = fig.axes[0].images[0].get_array()
    assert grid.tolist() == [[0.0, 1.0, 0.0], [1.0, 1.0, 1.0]]
    with pytest.raises(ValueError, match="same V"):
        figures.moved_rows_figure({"a": torch.ones(3, dtype=torch.bool), "b": torch.ones(4, dtype=torch.bool)}, {})
    with pytest.raises(ValueError, match="at least one optimizer"):
        figures.moved_rows_figure({}, {})
