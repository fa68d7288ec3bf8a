"""Notebook 1's checkers: the worked answer passes, and each listed wrong answer fails with its hint, never the
answer itself."""

import torch

from tests.unit.exercises.checker_table import checker_tests
from utils.exercises import nb01 as exercises
from utils.exercises.checking import ExerciseError
from utils.vocab import build_vocab

VOCAB = build_vocab("The cat sat on the mat. The dog sat on the log. The cat saw the dog, and the dog saw the cat.")
#: the worked answers: the ids of "the cat sat" are 4, 5, 6 and of "the log" 4, 11
SHAPE_CAT, SHAPE_LOG = (3, 7), (2, 12)
PRODUCT_FLOPS, LOOKUP_FLOPS = 2 * 8 * 1024 * 50_257 * 768, 0
WEIGHT = torch.randn(6, 3, generator=torch.Generator().manual_seed(1))


def selection(columns=(3, 0, 3)):
    return torch.zeros(3, 6).index_put_((torch.tensor([0, 1, 2]), torch.tensor(columns)), torch.tensor(1.0))


WORKED = [
    ("check_one_hot_widths", (SHAPE_CAT, SHAPE_LOG, VOCAB)),
    ("check_one_hot_widths", (torch.Size(SHAPE_CAT), torch.Size(SHAPE_LOG), VOCAB)),
    ("check_flops_prediction", (PRODUCT_FLOPS, LOOKUP_FLOPS)),
    ("check_selection_matrix", (selection(), WEIGHT)),
]
WRONG = [
    ("check_one_hot_widths", ((3, 15), SHAPE_LOG, VOCAB), "only the ids, not the vocabulary"),  # num_classes=V
    ("check_one_hot_widths", (SHAPE_CAT, (2, 15), VOCAB), r"shape_log = \(2, 15\).*only the ids, not the vocabulary"),
    ("check_one_hot_widths", ((3, 6), SHAPE_LOG, VOCAB), "the width comes from the ids in this call alone"),
    ("check_one_hot_widths", ((2, 7), SHAPE_LOG, VOCAB), "count the tokens"),
    ("check_one_hot_widths", ((21,), SHAPE_LOG, VOCAB), "two numbers"),
    ("check_one_hot_widths", (None, SHAPE_LOG, VOCAB), "record your prediction in shape_cat first"),
    ("check_one_hot_widths", (..., SHAPE_LOG, VOCAB), "record your prediction in shape_cat first"),
    ("check_one_hot_widths", ([3, 7], SHAPE_LOG, VOCAB), "shape_cat must look like"),
    ("check_flops_prediction", (PRODUCT_FLOPS // 2, 0), "count of multiply-adds"),
    ("check_flops_prediction", (2 * 50_257 * 768, 0), "one token's count"),
    ("check_flops_prediction", (50_257 * 768, 0), "one token's count"),
    ("check_flops_prediction", (PRODUCT_FLOPS + 1, 0), "each of the B·T tokens"),
    ("check_flops_prediction", (PRODUCT_FLOPS, 2 * 8 * 1024 * 768), "what arithmetic does copying rows do"),
    ("check_flops_prediction", (float(PRODUCT_FLOPS), 0), "predicted_product_flops must look like"),
    ("check_flops_prediction", (None, 0), "record your prediction in predicted_product_flops first"),
    ("check_flops_prediction", (PRODUCT_FLOPS, True), "predicted_lookup_flops must look like"),
    ("check_selection_matrix", (selection((0, 3, 3)), WEIGHT), r"x selects rows \[0, 3, 3\], expected \[3, 0, 3\]"),
    ("check_selection_matrix", (selection().long(), WEIGHT), "dtype torch.int64"),
    ("check_selection_matrix", (selection().T, WEIGHT), r"shape \(6, 3\), expected \(3, 6\)"),
    ("check_selection_matrix", (selection() * 2, WEIGHT), "single 1"),
    ("check_selection_matrix", (selection().tolist(), WEIGHT), "must be a torch.Tensor"),
]
#: what no message may show: the shapes and the count
ANSWERS = [str(SHAPE_CAT), str(SHAPE_LOG), str(PRODUCT_FLOPS), f"{PRODUCT_FLOPS:,}"]


test_the_worked_answer_passes, test_a_wrong_answer_fails_with_its_hint = checker_tests(
    exercises, WORKED, [(checker, args, ExerciseError, message) for checker, args, message in WRONG], ANSWERS)
