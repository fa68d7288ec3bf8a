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
