"""Notebook 1's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import pytest
import torch

from utils.exercises import nb01 as exercises
from utils.vocab import build_vocab

VOCAB = build_vocab("The cat sat on the mat. The dog sat on the log. The cat saw the dog, and the dog saw the cat.")
#: the worked answers: the ids of "the cat sat" are 4, 5, 6 and of "the log" 4, 11
SHAPE_CAT, SHAPE_LOG = (3, 7), (2, 12)
PRODUCT_FLOPS = 2 * 8 * 1024 * 50_257 * 768
WEIGHT = torch.randn(6, 3, generator=torch.Generator().manual_seed(1))
SELECTION = torch.zeros(3, 6).index_put_((torch.tensor([0, 1, 2]), torch.tensor([3, 0, 3])), torch.tensor(1.0))
WRONG_ROWS = torch.zeros(3, 6).index_put_((torch.tensor([0, 1, 2]), torch.tensor([0, 3, 3])), torch.tensor(1.0))


@pytest.mark.parametrize(("shape_cat", "shape_log", "expected"), [
    (SHAPE_CAT, SHAPE_LOG, "pass"),
    (torch.Size(SHAPE_CAT), torch.Size(SHAPE_LOG), "pass"),
    ((3, 15), SHAPE_LOG, "only the ids, not the vocabulary"),  # the width of V: what num_classes would give
    (SHAPE_CAT, (2, 15), r"shape_log = \(2, 15\).*only the ids, not the vocabulary"),
    ((3, 6), SHAPE_LOG, "the width comes from the ids in this call alone"),
    ((2, 7), SHAPE_LOG, "count the tokens"),
    ((21,), SHAPE_LOG, "two numbers"),
    (None, SHAPE_LOG, "record your prediction in shape_cat first"),
    (..., SHAPE_LOG, "record your prediction in shape_cat first"),
    ([3, 7], SHAPE_LOG, "shape_cat must look like"),
])
def test_one_hot_widths(judge, shape_cat, shape_log, expected):
    judge(exercises.check_one_hot_widths, (shape_cat, shape_log, VOCAB), expected, never=("(3, 7)", "(2, 12)"))


@pytest.mark.parametrize(("product", "lookup", "expected"), [
    (PRODUCT_FLOPS, 0, "pass"),
    (PRODUCT_FLOPS // 2, 0, "count of multiply-adds"),
    (2 * 50_257 * 768, 0, "one token's count"),
    (50_257 * 768, 0, "one token's count"),
    (PRODUCT_FLOPS + 1, 0, "which shapes does it multiply"),
    (2 * PRODUCT_FLOPS, 0, "the one-hot rows need no gradient"),
    (PRODUCT_FLOPS, 8 * 1024 * 768, "not additions"),
    (PRODUCT_FLOPS, 2 * 8 * 1024 * 768, "is that a matrix product"),
    (float(PRODUCT_FLOPS), 0, "predicted_product_flops must look like"),
    (None, 0, "record your prediction in predicted_product_flops first"),
    (PRODUCT_FLOPS, True, "predicted_lookup_flops must look like"),
])
def test_flops_prediction(judge, product, lookup, expected):
    judge(exercises.check_flops_prediction, (product, lookup), expected,
          never=(str(PRODUCT_FLOPS), f"{PRODUCT_FLOPS:,}"))  # a hint, never the count


@pytest.mark.parametrize(("x", "expected"), [
    (SELECTION, "pass"),
    (WRONG_ROWS, r"x selects rows \[0, 3, 3\], expected \[3, 0, 3\]"),
    (SELECTION.long(), "dtype torch.int64"),
    (SELECTION.T, r"shape \(6, 3\), expected \(3, 6\)"),
    (SELECTION * 2, "single 1"),
    (SELECTION.tolist(), "must be a torch.Tensor"),
])
def test_selection_matrix(judge, x, expected):
    judge(exercises.check_selection_matrix, (x, WEIGHT), expected)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA: the notebook's W is on its DEVICE, a GPU there")
def test_selection_matrix_with_the_weight_on_a_gpu(judge):
    judge(exercises.check_selection_matrix, (SELECTION.cuda(), WEIGHT.cuda()), "pass")
