"""The diagrams `make sync` writes into images/ (tools/images.py)."""

import numpy as np
import torch
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text

from tools import images
from utils.figures.nb01 import one_hot_product_figure


def _drawn(figure):
    """What a figure shows, artist by artist in drawing order, without rendering it (rendering all six
    takes seconds): each text and where it stands, each line's points, each patch's outline and colour,
    each image's or collection's values."""
    shown = []
    for artist in figure.findobj():
        if isinstance(artist, Text):
            shown += [artist.get_text(), artist.get_position()]
        elif isinstance(artist, Line2D):
            shown.append(artist.get_xydata().tobytes())
        elif isinstance(artist, Patch):
            shown += [artist.get_path().vertices.tobytes(), artist.get_facecolor()]
        elif hasattr(artist, "get_array") and artist.get_array() is not None:
            shown.append(np.asarray(artist.get_array()).tobytes())
    return shown


def test_write_course_images_writes_every_png_without_a_timestamp(tmp_path):
    paths = images.write_course_images(tmp_path)
    assert sorted(p.name for p in paths) == sorted(images.COURSE_IMAGES)
    assert "vocab_parallel_split.png" in images.COURSE_IMAGES
    for path in paths:
        data = path.read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 5_000
        assert b"Software" not in data and b"Creation Time" not in data


def test_every_run_draws_the_same_picture():
    """Each figure is drawn from seeded tensors: drawn twice, it shows the same texts, lines, shapes and values
    (with no time stamp in the file, above, the PNG's bytes are then the same: Agg renders deterministically)."""
    for name, draw in images.COURSE_IMAGES.items():
        first = _drawn(draw())
        assert len(first) > 20 and first == _drawn(draw()), name


def test_a_figure_drawn_from_other_values_is_told_apart():
    """The comparison above sees the values: one weight changed is a different picture."""
    figure = images.COURSE_IMAGES["one_hot_product.png"]()
    weight = torch.randn(4, 5, generator=torch.Generator().manual_seed(123))  # the image's
    assert _drawn(figure) == _drawn(one_hot_product_figure(2, weight))
    weight[2, 0] += 1
    assert _drawn(figure) != _drawn(one_hot_product_figure(2, weight))


def test_the_readme_picture_is_the_answers_example():
    """The README shows it beside the answer: notebook 0's table, nn.Embedding(4, 5) after manual_seed(123), and
    id 2, one of the answer's ids [2, 3, 1] (a 4-row table has no id 4)."""
    torch.manual_seed(123)
    table = torch.nn.Embedding(4, 5).weight.detach()
    assert _drawn(images.COURSE_IMAGES["one_hot_product.png"]()) == _drawn(one_hot_product_figure(2, table))
