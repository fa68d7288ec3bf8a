"""Notebook 9's diagrams are drawn from real tensors and refuse input they would draw wrong."""

import pytest
import torch

from utils.figures import nb09 as figures

_WORDS = ["cat", "dog", "zebra", "red", "blue", "park"]

_CATEGORIES = ["animal", "animal", "animal", "colour", "colour", "place"]

def test_pca_2d_is_an_svd_of_the_centred_points():
    points = torch.randn(20, 5, generator=torch.Generator().manual_seed(0)) * torch.tensor([5.0, 3.0, 1, 1, 1])
    coords, explained = figures.pca_2d(points)
    centred = (points - points.mean(dim=0)).double()
    _, singular, vh = torch.linalg.svd(centred, full_matrices=False)
    assert coords.shape == (20, 2) and explained.shape == (2,)
    assert torch.allclose(coords.double().abs(), (centred @ vh[:2].T).abs(), atol=1e-5)  # up to each axis's sign
    assert torch.allclose(explained.double(), singular[:2] ** 2 / (singular**2).sum(), atol=1e-6)
    assert torch.equal(figures.pca_2d(points)[0], coords)  # deterministic: no random projection
    mirrored, _ = figures.pca_2d(-points)  # the same axes (largest loading > 0), so a mirrored picture
    assert torch.allclose(mirrored, -coords, atol=1e-5)
    with pytest.raises(ValueError, match=r"points must be a 2-D tensor \(n, d\) with n >= 2 and d >= 2, got \(1, 5\)"):
        figures.pca_2d(points[:1])

def test_embedding_pca_figure_draws_the_projected_rows():
    points = torch.randn(6, 4, generator=torch.Generator().manual_seed(1))
    fig = figures.embedding_pca_figure({"before": points, "after": 2 * points}, _WORDS, _CATEGORIES,
                                       held_out=("zebra",))
    assert len(fig.axes) == 2
    coords, _ = figures.pca_2d(points)
    animals, colours, places, unseen = fig.axes[0].collections  # one per category, then the held-out words
    assert torch.allclose(torch.from_numpy(animals.get_offsets().data).float(), coords[[0, 1]])
    assert torch.allclose(torch.from_numpy(unseen.get_offsets().data).float(), coords[[2]])
    assert [t.get_text() for t in fig.axes[0].texts] == _WORDS
    assert [t.get_text() for t in fig.axes[1].get_legend().get_texts()] == ["animal", "colour", "place",
                                                                            "never in a sentence"]
    with pytest.raises(ValueError, match=r"panel 'before': expected points of shape \(6, d\)"):
        figures.embedding_pca_figure({"before": points[:5]}, _WORDS, _CATEGORIES)
    with pytest.raises(ValueError, match="same length"):
        figures.embedding_pca_figure({"before": points}, _WORDS, _CATEGORIES[:5])

def test_similarity_matrix_figure_shows_the_cosines():
    points = torch.randn(6, 4, generator=torch.Generator().manual_seed(2))
    fig = figures.similarity_matrix_figure({"before": points, "after": points}, _WORDS, _CATEGORIES,
                                           held_out=("zebra",))
    image = torch.from_numpy(fig.axes[0].images[0].get_array().data)
    unit = torch.nn.functional.normalize(points, dim=1)
    assert torch.allclose(image, unit @ unit.T, atol=1e-6)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["animal", "colour", "place",
                                                                     "zebra (never in a sentence)"]
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["animal", "colour", "place", "zebra"]
    with pytest.raises(ValueError, match="next to each other"):
        figures.similarity_matrix_figure({"x": points}, _WORDS, ["animal", "colour"] * 3)
    with pytest.raises(ValueError, match="at least one"):
        figures.similarity_matrix_figure({}, _WORDS, _CATEGORIES)
