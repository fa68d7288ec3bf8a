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


# --- Notebooks 2 and 3 ------------------------------------------------------------------


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
