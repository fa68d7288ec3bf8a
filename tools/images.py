"""The diagrams in ``images/`` that the README and the web site show, drawn by ``make sync`` with the notebooks' own
figure functions (utils/figures/) from seeded tensors, so that every run draws the same picture.
"""

from collections.abc import Callable
from pathlib import Path

import torch
from matplotlib.figure import Figure

from utils.figures.nb01 import one_hot_product_figure
from utils.figures.nb02 import embedding_lookup_figure
from utils.figures.nb03 import linear_embedding_transpose_figure
from utils.figures.nb04 import gradient_rows_figure
from utils.figures.nb05 import weight_histograms_figure
from utils.figures.nb08 import vocab_parallel_figure
from utils.init_stats import embedding_init, linear_init
from utils.lookup import one_hot


def randn(*shape: int, seed: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def answer_table() -> torch.Tensor:
    """The answer's example (notebook 0): the values of nn.Embedding(4, 5) after manual_seed(123)."""
    return randn(4, 5, seed=123)


def linear_embedding_transpose() -> Figure:
    weight = randn(8, 4, seed=3)
    return linear_embedding_transpose_figure(weight, weight.T, 5)


def gradient_rows() -> Figure:
    ids, grad_out = torch.tensor([1, 3, 3, 6]), randn(4, 4, seed=1)
    return gradient_rows_figure(ids, grad_out, one_hot(ids, 8).T @ grad_out)


def init_histograms() -> Figure:
    generator = torch.Generator().manual_seed(0)
    vocab_size, dim = 5000, 70
    embedding = torch.nn.init.normal_(torch.empty(vocab_size, dim), generator=generator)
    linear = torch.nn.init.kaiming_uniform_(torch.empty(dim, vocab_size), a=5**0.5, generator=generator)
    return weight_histograms_figure({
        f"nn.Embedding({vocab_size}, {dim}).weight": [("observed", embedding, embedding_init())],
        f"nn.Linear({vocab_size}, {dim}).weight": [("observed", linear, linear_init(vocab_size))],
    }, bins=70, title="Default initialisation: N(0, 1) for the embedding, U(±1/√V) for the one-hot linear layer")


#: file name in ``images/`` -> function that draws it
COURSE_IMAGES: dict[str, Callable[[], Figure]] = {
    "one_hot_product.png": lambda: one_hot_product_figure(2, answer_table()),
    "embedding_lookup.png": lambda: embedding_lookup_figure(torch.tensor([[2, 3, 1], [1, 0, 2]]), answer_table()),
    "linear_embedding_transpose.png": linear_embedding_transpose,
    "embedding_gradient_rows.png": gradient_rows,
    "init_histograms.png": init_histograms,
    "vocab_parallel_split.png": lambda: vocab_parallel_figure(randn(11, 4, seed=0),
                                                              torch.tensor([4, 9, 0, 6, 4, 2, 10, 7]), world_size=3),
}


def write_course_images(directory: Path) -> list[Path]:
    """Draw every figure in :data:`COURSE_IMAGES` into ``directory``, as PNGs with no time stamp or version in
    their metadata (so a second run writes the same bytes); return the paths."""
    paths = [Path(directory) / name for name in COURSE_IMAGES]
    paths[0].parent.mkdir(parents=True, exist_ok=True)
    for path, draw in zip(paths, COURSE_IMAGES.values(), strict=True):
        draw().savefig(path, dpi=110, metadata={"Software": None})
    return paths
