"""Notebook 1's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import pytest
import torch

from utils.exercises import nb01 as exercises
from utils.vocab import build_vocab

VOCAB = build_vocab("The cat sat on the mat. The dog sat on the log. The cat saw the dog, and the dog saw the cat.")
#: the worked answers: the ids of "the cat sat" are 4, 5, 6 and of "the log" 4, 11
SHAPE_CAT, SHAPE_LOG = (3, 7), (2, 12)
PRODUCT_FLOPS = 2 * 8 * 1024 * 50_257 * 768
#: Exercise 1.2's worked answer: one product in the backward pass, as in the forward; the lookup's backward adds each
#: of grad_out's B·T·d numbers once
BACKWARD_RATIO, LOOKUP_ADDITIONS = 1, 8 * 1024 * 768
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


@pytest.mark.parametrize(("ratio", "lookup", "expected"), [
    (BACKWARD_RATIO, LOOKUP_ADDITIONS, "pass"),
    (1.0, LOOKUP_ADDITIONS, "pass"),
    (2, LOOKUP_ADDITIONS, "which of them needs one"),  # the rule of thumb: a gradient for the one-hot rows too
    (0, LOOKUP_ADDITIONS, "the table's gradient is a matrix product"),
    (0.5, LOOKUP_ADDITIONS, r"backward_ratio = 0.5 is not.*compare the sizes of the two products"),
    (BACKWARD_RATIO, 0, "FlopCounterMode's 0 is no measurement"),  # recall of section 5's count, not the work done
    (BACKWARD_RATIO, PRODUCT_FLOPS, "that is the product's count"),
    (BACKWARD_RATIO, PRODUCT_FLOPS // 2, "that is the product's count"),
    (BACKWARD_RATIO, 50_257 * 768, "rows that no id picked get nothing added"),
    (BACKWARD_RATIO, 8 * 1024, "more than one number"),
    (BACKWARD_RATIO, 2 * LOOKUP_ADDITIONS, r"lookup_backward_additions is not.*what shape has grad_out"),
    (BACKWARD_RATIO, float(LOOKUP_ADDITIONS), "lookup_backward_additions must look like"),
    ("1", LOOKUP_ADDITIONS, "backward_ratio must look like"),
    (True, LOOKUP_ADDITIONS, "backward_ratio must look like"),
    (..., LOOKUP_ADDITIONS, "record your prediction in backward_ratio first"),
])
def test_flops_prediction(judge, ratio, lookup, expected):
    judge(exercises.check_flops_prediction, (ratio, lookup), expected,
          never=(str(PRODUCT_FLOPS), f"{PRODUCT_FLOPS:,}", "ratio is 1", str(LOOKUP_ADDITIONS),
                 f"{LOOKUP_ADDITIONS:,}", "B·T·d"))  # a hint, never the count


def test_the_flop_counts_are_the_hand_counts():
    """The counts the checker compares with: 2·V·(B·T)·d for each pass of the product, B·T·d additions for the
    lookup's backward pass, whichever ids the batch holds."""
    assert exercises._counted_flops() == (PRODUCT_FLOPS, PRODUCT_FLOPS)
    assert exercises._recorded_lookup_additions() == LOOKUP_ADDITIONS


def test_the_recorder_counts_the_additions_of_a_real_backward_pass():
    """On real tensors too: the lookup's backward adds every number of grad_out once, repeated ids included."""
    table = torch.zeros(5, 3, requires_grad=True)
    rows = table[torch.tensor([[1, 1], [4, 1]])]
    with exercises._AdditionRecorder() as recorder:
        rows.backward(torch.ones_like(rows))
    assert recorder.additions == rows.numel() == 12
    assert table.grad[1].tolist() == [3.0, 3.0, 3.0]


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
    (exercises.check_flops_prediction, (None, LOOKUP_ADDITIONS), "backward_ratio"),
    (exercises.check_flops_prediction, (None, None), "backward_ratio and lookup_backward_additions"),
    (exercises.check_exact_expressions, (None, ONE_HOT, WEIGHT), "exact"),
])
def test_no_guess_yet_judges_nothing(capsys, checker, guesses, named):
    """Run top to bottom before the learner guesses: one line asking for the guess, no verdict, no failure."""
    assert checker(*guesses) is None
    assert capsys.readouterr().out == f"not answered yet: fill in {named} above, then run this cell again\n"
