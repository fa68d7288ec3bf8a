import pytest
import torch
from matplotlib.figure import Figure

from utils import figures


def test_one_hot_product_figure_is_drawn_from_the_tensors():
    weight = torch.randn(7, 3, generator=torch.Generator().manual_seed(0))
    fig = figures.one_hot_product_figure(2, weight, token="cat")
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    product_image = fig.axes[2].images[0].get_array()
    assert product_image.shape == (1, 3)
    assert torch.equal(torch.from_numpy(product_image.data).float(), weight[[2]])


def test_one_hot_product_figure_rejects_bad_input():
    with pytest.raises(ValueError, match="token id 9 is out of range for a vocabulary of 7"):
        figures.one_hot_product_figure(9, torch.zeros(7, 3))
    with pytest.raises(ValueError, match=r"weight must be 2-D \[V, d\], got shape \(7,\)"):
        figures.one_hot_product_figure(0, torch.zeros(7))


def test_write_course_images_writes_every_png_without_a_timestamp(tmp_path):
    paths = figures.write_course_images(tmp_path)
    assert sorted(p.name for p in paths) == sorted(figures.COURSE_IMAGES)
    for path in paths:
        data = path.read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 5_000
        assert b"Software" not in data and b"Creation Time" not in data


def test_course_images_are_deterministic(tmp_path):
    first = [p.read_bytes() for p in figures.write_course_images(tmp_path / "a")]
    second = [p.read_bytes() for p in figures.write_course_images(tmp_path / "b")]
    assert first == second


# --- Notebooks 4 and 5 ------------------------------------------------------------------


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


def test_loss_curves_figure_plots_every_run():
    fig = figures.loss_curves_figure({"a": [3.0, 2.0, 1.5], "b": [3.0, 2.0, 1.5]})
    lines = fig.axes[0].get_lines()
    assert [list(line.get_ydata()) for line in lines] == [[3.0, 2.0, 1.5]] * 2
    with pytest.raises(ValueError, match="at least one run"):
        figures.loss_curves_figure({})


def test_weight_histograms_figure_overlays_the_density():
    from utils import init_stats

    values = torch.randn(20_000, generator=torch.Generator().manual_seed(0))
    expected = init_stats.embedding_init()
    fig = figures.weight_histograms_figure({"N(0, 1)": [("draws", values, expected)]}, bins=40, zoom=(-1, 1))
    ax = fig.axes[0]
    heights = ax.patches[0].get_data().values  # the filled StepPatch
    assert abs(heights.max() - 0.4) < 0.03  # the normal density's peak, 1/sqrt(2 pi)
    observed = float(values.double().std())
    assert ax.get_legend().get_texts()[0].get_text() == f"draws: std {observed:.4f} (expected 1.0000)"
    assert len(fig.axes) == 1 and len(ax.child_axes) == 1  # the panel and its zoom inset
    with pytest.raises(TypeError, match="expected must be an init_stats.Expected or None"):
        figures.weight_histograms_figure({"x": [("draws", values, 1.0)]})
    with pytest.raises(ValueError, match="has no histograms"):
        figures.weight_histograms_figure({"x": []})


def test_sorted_probabilities_figure():
    logits = {"flat": torch.zeros(50), "peaked": torch.arange(50.0)}
    fig = figures.sorted_probabilities_figure(logits)
    flat, peaked = fig.axes[0].get_lines()[:2]
    assert list(flat.get_xdata()) == list(range(1, 51))  # every rank when V is small
    assert abs(flat.get_ydata() - 1 / 50).max() < 1e-12
    assert list(peaked.get_ydata()) == sorted(peaked.get_ydata(), reverse=True)
    assert "entropy 3.91 nats" in fig.axes[0].get_legend().get_texts()[0].get_text()  # ln 50
    with pytest.raises(ValueError, match="same V"):
        figures.sorted_probabilities_figure({"a": torch.zeros(3), "b": torch.zeros(4)})
    with pytest.raises(ValueError, match="at least one row"):
        figures.sorted_probabilities_figure({})
