"""What the notebooks' diagrams share."""

import pytest

from utils.figures import drawing as figures


def test_loss_curves_figure_plots_every_run():
    fig = figures.loss_curves_figure({"a": [3.0, 2.0, 1.5], "b": [3.0, 2.0, 1.5]})
    lines = fig.axes[0].get_lines()
    assert [list(line.get_ydata()) for line in lines] == [[3.0, 2.0, 1.5]] * 2
    with pytest.raises(ValueError, match="at least one run"):
        figures.loss_curves_figure({})

def test_loss_curves_figure_draws_a_baseline():
    fig = figures.loss_curves_figure({"a": [3.0, 2.0]}, xlabel="Adam step", baseline=("ln V", 3.5))
    ax = fig.axes[0]
    assert [list(line.get_ydata()) for line in ax.get_lines()] == [[3.0, 2.0], [3.5, 3.5]]
    assert ax.get_xlabel() == "Adam step"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "ln V"]


def test_loss_curves_figure_draws_several_baselines():
    fig = figures.loss_curves_figure({"a": [3.0, 2.0]}, baseline=[("ln V", 3.5), ("floor", 1.0)])
    ax = fig.axes[0]
    assert [list(line.get_ydata()) for line in ax.get_lines()] == [[3.0, 2.0], [3.5, 3.5], [1.0, 1.0]]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "ln V", "floor"]
