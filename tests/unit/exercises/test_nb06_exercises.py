"""Notebook 6's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import torch

from tests.unit.exercises.checker_table import checker_tests
from utils.exercises import nb06 as exercises
from utils.exercises.checking import ExerciseError as E

FORWARD = 2 * 32 * 2_000 * 8  # one (32, 2000) @ (2000, 8) product, in FLOPs
WORKED = {
    "check_predicted_growth": {"lookup": 1, "dense": 10},
    "check_measured_growth": {"lookup": 1.2, "dense": 8.7},
    "check_largest_batch": 768,
    "check_predicted_flops": {"dense": 2 * FORWARD, "lookup": 0},
}
WRONG = [
    ("check_predicted_growth", {"lookup": 10, "dense": 10}, E,
     r"predicted_growth\['lookup'\] = 10 .* Hint: how many rows does the lookup read"),
    ("check_predicted_growth", {"lookup": 1, "dense": 1}, E,
     r"predicted_growth\['dense'\] = 1 .* Hint: the dense product does 2·n·V·d FLOPs"),
    ("check_predicted_growth", {"lookup": 1, "dense": 100}, E, r"\['dense'\] = 100 is far"),
    ("check_predicted_growth", {"dense": 10}, E, "the keys 'lookup' and 'dense'"),
    ("check_predicted_growth", {"lookup": 0, "dense": 10}, E, "a positive number"),
    ("check_predicted_growth", {"lookup": "1", "dense": 10}, TypeError, "must be a number"),
    ("check_measured_growth", {"lookup": 8.7, "dense": 1.2}, E,
     "did not grow more than the lookup's. Hint: .* swapped"),
    ("check_measured_growth", {"lookup": 1.0, "dense": float("nan")}, E, "positive number"),
    ("check_largest_batch", 384, E, "8 bytes an entry: .* as float32"),
    ("check_largest_batch", 767, E, "one short"),
    ("check_largest_batch", 50_257, E, "Hint: write both sizes in bytes"),
    ("check_largest_batch", 768.0, TypeError, "a whole number of tokens, got float"),
    ("check_predicted_flops", {"dense": FORWARD, "lookup": 0}, E,
     "one matrix product's count. The backward computes W's gradient"),
    ("check_predicted_flops", {"dense": FORWARD // 2, "lookup": 0}, E,
     "a multiply-add counts as 2 FLOPs"),
    ("check_predicted_flops", {"dense": 3 * FORWARD, "lookup": 0}, E,
     "the one-hot is an input, not a parameter"),
    ("check_predicted_flops", {"dense": 12345, "lookup": 0}, E,
     "count each matrix product as 2·rows·inner·columns"),
    ("check_predicted_flops", {"dense": 2 * FORWARD, "lookup": 2 * 32 * 8}, E,
     r"predicted_flops\['lookup'\] is not the counter's count. Hint: the counter counts the FLOPs of matrix"),
    ("check_predicted_flops", [2 * FORWARD, 0], E, "keys 'dense' and 'lookup'"),
]
#: what no message may show: the answers
ANSWERS = ["faster", "768 ", "10x", "zero", " 0 "]
test_the_worked_answer_passes, test_a_wrong_answer_fails_with_its_hint = checker_tests(
    exercises, [(checker, (answer,)) for checker, answer in WORKED.items()],
    [(checker, (answer,), error, message) for checker, answer, error, message in WRONG], ANSWERS)


def test_the_flop_checker_counts_with_the_counter_at_its_sizes():
    """The checker's count is FlopCounterMode's on the meta device, the same as on real tensors."""
    from torch.utils.flop_counter import FlopCounterMode

    n, V, d = exercises.FLOP_SIZES
    weight = torch.randn(V, d, requires_grad=True)
    with FlopCounterMode(display=False) as counter:
        (torch.nn.functional.one_hot(torch.randint(0, V, (n,)), V).float() @ weight).backward(torch.ones(n, d))
    assert exercises._count(exercises.FLOP_SIZES) == {"dense": counter.get_total_flops(), "lookup": 0}
