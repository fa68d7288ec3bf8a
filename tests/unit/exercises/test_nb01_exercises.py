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
ONE_HOT = torch.nn.functional.one_hot(torch.tensor([3, 0, 3, 5]), 6).float()
#: notebook 1's sentence and vocabulary size, for tables other than its own
IDS = torch.tensor([4, 5, 6, 7, 4, 1, 9])
ONE_HOT_15 = torch.nn.functional.one_hot(IDS, 15).float()


@pytest.mark.parametrize(("shape_cat", "shape_log", "expected"), [
    (SHAPE_CAT, SHAPE_LOG, "pass"),
    (torch.Size(SHAPE_CAT), torch.Size(SHAPE_LOG), "pass"),
    ((3, 15), SHAPE_LOG, "only the ids, not the vocabulary"),  # the width of V: what num_classes would give
    (SHAPE_CAT, (2, 15), r"shape_log = \(2, 15\).*only the ids, not the vocabulary"),
    ((3, 6), SHAPE_LOG, "the width comes from the ids in this call alone"),
    ((2, 7), SHAPE_LOG, "count the tokens"),
    ((21,), SHAPE_LOG, "two numbers"),
    (..., SHAPE_LOG, "record your prediction in shape_cat first"),
    ([3, 7], SHAPE_LOG, "shape_cat must look like"),
])
def test_one_hot_widths(judge, shape_cat, shape_log, expected):
    judge(exercises.check_one_hot_widths, (shape_cat, shape_log, VOCAB.encode, len(VOCAB)), expected,
          never=("(3, 7)", "(2, 12)"))


@pytest.mark.parametrize(("product", "expected"), [
    (PRODUCT_FLOPS, "pass"),
    (PRODUCT_FLOPS // 2, "count of multiply-adds"),
    (2 * 50_257 * 768, "one token's count"),
    (50_257 * 768, "one token's count"),
    (PRODUCT_FLOPS + 1, "which shapes does it multiply"),
    (2 * PRODUCT_FLOPS, "the one-hot rows need no gradient"),
    (float(PRODUCT_FLOPS), "predicted_product_flops must look like"),
    (..., "record your prediction in predicted_product_flops first"),
    (True, "predicted_product_flops must look like"),
])
def test_flops_prediction(judge, product, expected):
    judge(exercises.check_flops_prediction, (product,), expected,
          never=(str(PRODUCT_FLOPS), f"{PRODUCT_FLOPS:,}"))  # a hint, never the count


#: the worked answer: doubling and float64 leave the rows exact; a rounded 0.1 and float16 do not
EXACT = {"a", "c"}


@pytest.mark.parametrize(("exact", "expected"), [
    (EXACT, "pass"),
    (frozenset(EXACT), "pass"),
    ({"a"}, r"not right about 1 of the four.*float64"),
    ({"a", "b", "c"}, r"not right about 1 of the four.*1/10"),
    ({"c"}, r"not right about 1 of the four.*by 2"),
    ({"a", "c", "d"}, r"not right about 1 of the four.*float16"),
    ({"a", "b", "c", "d"}, "not right about 2 of the four"),
    (set(), "not right about 2 of the four"),
    ({"A", "c"}, r"exact holds \['A'\]: use the letters"),
    (["a", "c"], "exact must look like"),
])
def test_exact_expressions(judge, exact, expected):
    judge(exercises.check_exact_expressions, (exact, ONE_HOT, WEIGHT), expected, never=("{'a', 'c'}", "{'c', 'a'}"))


def test_the_worked_answer_holds_for_other_tables():
    """Not a property of one table: over 20 seeds, a and c are exact, b and d are not."""
    for seed in range(20):
        weight = torch.randn(15, 4, generator=torch.Generator().manual_seed(seed))
        rows = weight[IDS]
        measured = {letter for letter, f in exercises.EXPRESSIONS.items() if torch.equal(f(ONE_HOT_15, weight), rows)}
        assert measured == EXACT, seed


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA: the notebook's x and W are on its DEVICE")
def test_exact_expressions_with_tensors_on_a_gpu(judge):
    judge(exercises.check_exact_expressions, (EXACT, ONE_HOT.cuda(), WEIGHT.cuda()), "pass")


@pytest.mark.parametrize(("checker", "guesses", "named"), [
    (exercises.check_one_hot_widths, (None, SHAPE_LOG, VOCAB.encode, len(VOCAB)), "shape_cat"),
    (exercises.check_one_hot_widths, (None, None, VOCAB.encode, len(VOCAB)), "shape_cat and shape_log"),
    (exercises.check_flops_prediction, (None,), "predicted_product_flops"),
    (exercises.check_exact_expressions, (None, ONE_HOT, WEIGHT), "exact"),
])
def test_no_guess_yet_judges_nothing(capsys, checker, guesses, named):
    """Run top to bottom before the learner guesses: one line asking for the guess, no verdict, no failure."""
    assert checker(*guesses) is True
    assert capsys.readouterr().out == f"no guess yet: record {named} in the cell above, then run this cell again\n"
