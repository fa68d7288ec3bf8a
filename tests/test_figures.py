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


# --- Notebooks 7 and 8 ------------------------------------------------------------------


def test_multi_hot_bag_figure_is_drawn_from_the_tensors():
    weight = torch.randn(6, 3, generator=torch.Generator().manual_seed(0))
    fig = figures.multi_hot_bag_figure(torch.tensor([1, 4, 1]), weight, tokens=list("abcdef"))
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    counts = torch.from_numpy(fig.axes[0].images[0].get_array().data)
    assert counts.tolist() == [[0, 2, 0, 0, 1, 0]]
    product = torch.from_numpy(fig.axes[2].images[0].get_array().data).float()
    assert torch.allclose(product, (2 * weight[1] + weight[4])[None], atol=1e-6)


def test_multi_hot_bag_figure_rejects_bad_input():
    with pytest.raises(ValueError, match="token id 6 is out of range for a vocabulary of 6"):
        figures.multi_hot_bag_figure(torch.tensor([6]), torch.zeros(6, 3))
    with pytest.raises(ValueError, match="bag_ids must be a 1-D tensor"):
        figures.multi_hot_bag_figure(torch.tensor([[1]]), torch.zeros(6, 3))
    with pytest.raises(ValueError, match=r"weight must be 2-D \[V, d\]"):
        figures.multi_hot_bag_figure(torch.tensor([1]), torch.zeros(6))


def test_sinusoidal_positions_figure():
    from utils.positions import sinusoidal_positions

    table = sinusoidal_positions(20, 8)
    fig = figures.sinusoidal_positions_figure(table, columns=(0, 3))
    heat, curves = fig.axes[0], fig.axes[1]
    assert torch.equal(torch.from_numpy(heat.images[0].get_array().data), table)
    assert len(curves.lines) == 2
    with pytest.raises(ValueError, match=r"columns \[8\] are out of range for a table with 8 columns"):
        figures.sinusoidal_positions_figure(table, columns=(8,))
    with pytest.raises(ValueError, match="table must be 2-D"):
        figures.sinusoidal_positions_figure(table[0])


def test_vocab_parallel_figure_shows_each_rank_and_the_sum():
    weight = torch.randn(11, 4, generator=torch.Generator().manual_seed(0))
    ids = torch.tensor([4, 9, 0, 6, 4])
    fig = figures.vocab_parallel_figure(weight, ids, world_size=3)
    assert len(fig.axes) == 5  # the table, three partial results, the sum
    total = torch.from_numpy(fig.axes[-1].images[0].get_array().data)
    assert torch.equal(total, weight[ids])
    rank1 = torch.from_numpy(fig.axes[2].images[0].get_array().data)  # rows 4..7: ids 4, 6, 4
    assert torch.equal(rank1[[0, 3, 4]], weight[[4, 6, 4]]) and not rank1[[1, 2]].any()
    with pytest.raises(ValueError, match="ids must be a 1-D tensor"):
        figures.vocab_parallel_figure(weight, ids[None], 2)
    with pytest.raises(ValueError, match="at most 8 processes"):
        figures.vocab_parallel_figure(weight, ids, 9)
    with pytest.raises(ValueError, match="world_size 12 is larger than vocab_size 11"):
        figures.vocab_parallel_figure(weight, ids, 12)


def test_the_split_is_a_course_image():
    assert "vocab_parallel_split.png" in figures.COURSE_IMAGES
