"""Notebook 6's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import pytest
import torch

from utils.exercises import nb06 as exercises
from utils.exercises.checking import ExerciseError

FORWARD = 2 * 32 * 2_000 * 8  # one (32, 2000) @ (2000, 8) product, in FLOPs
WORKED = {
    "check_predicted_growth": {"lookup": 1, "dense": 10},
    "check_measured_growth": {"lookup": 1.2, "dense": 8.7},
    "check_largest_batch": 768,
    "check_predicted_flops": {"dense": 2 * FORWARD, "lookup": 0},
}


@pytest.mark.parametrize("checker", WORKED)
def test_the_worked_answer_passes_and_says_what_was_checked_not_the_answer(checker, capsys):
    assert getattr(exercises, checker)(WORKED[checker])
    printed = capsys.readouterr().out
    assert printed.startswith("correct: ") and printed.count("\n") == 1
    for answer in ("faster", "768 ", "10x", "zero", " 0 "):  # no answer in the line a stored run shows
        assert answer not in printed.removeprefix("correct: ")


@pytest.mark.parametrize(
    ("checker", "answer", "error", "message"),
    [
        ("check_predicted_growth", {"lookup": 10, "dense": 10}, ExerciseError,
         r"predicted_growth\['lookup'\] = 10 .* Hint: how many rows does the lookup read"),
        ("check_predicted_growth", {"lookup": 1, "dense": 1}, ExerciseError,
         r"predicted_growth\['dense'\] = 1 .* Hint: the dense product does 2·n·V·d FLOPs"),
        ("check_predicted_growth", {"lookup": 1, "dense": 100}, ExerciseError, r"\['dense'\] = 100 is far"),
        ("check_predicted_growth", {"dense": 10}, ExerciseError, "the keys 'lookup' and 'dense'"),
        ("check_predicted_growth", {"lookup": 0, "dense": 10}, ExerciseError, "a positive number"),
        ("check_predicted_growth", {"lookup": "1", "dense": 10}, TypeError, "must be a number"),
        ("check_measured_growth", {"lookup": 8.7, "dense": 1.2}, ExerciseError,
         "did not grow more than the lookup's. Hint: .* swapped"),
        ("check_measured_growth", {"lookup": 1.0, "dense": float("nan")}, ExerciseError, "positive number"),
        ("check_largest_batch", 384, ExerciseError, "8 bytes an entry: .* as float32"),
        ("check_largest_batch", 767, ExerciseError, "one short"),
        ("check_largest_batch", 50_257, ExerciseError, "Hint: write both sizes in bytes"),
        ("check_largest_batch", 768.0, TypeError, "a whole number of tokens, got float"),
        ("check_predicted_flops", {"dense": FORWARD, "lookup": 0}, ExerciseError,
         "one matrix product's count. The backward computes W's gradient"),
        ("check_predicted_flops", {"dense": FORWARD // 2, "lookup": 0}, ExerciseError,
         "a multiply-add counts as 2 FLOPs"),
        ("check_predicted_flops", {"dense": 3 * FORWARD, "lookup": 0}, ExerciseError,
         "the one-hot is an input, not a parameter"),
        ("check_predicted_flops", {"dense": 12345, "lookup": 0}, ExerciseError,
         "count each matrix product as 2·rows·inner·columns"),
        ("check_predicted_flops", {"dense": 2 * FORWARD, "lookup": 2 * 32 * 8}, ExerciseError,
         r"predicted_flops\['lookup'\] is not the counter's count. Hint: the counter counts the FLOPs of matrix"),
        ("check_predicted_flops", [2 * FORWARD, 0], ExerciseError, "keys 'dense' and 'lookup'"),
    ],
)
def test_a_wrong_answer_fails_with_its_hint(checker, answer, error, message):
    with pytest.raises(error, match=message):
        getattr(exercises, checker)(answer)


def test_the_flop_checker_counts_with_the_counter_at_its_sizes():
    """The checker's count is FlopCounterMode's on the meta device, the same as on real tensors."""
    from torch.utils.flop_counter import FlopCounterMode

    n, V, d = exercises.FLOP_SIZES
    weight = torch.randn(V, d, requires_grad=True)
    with FlopCounterMode(display=False) as counter:
        (torch.nn.functional.one_hot(torch.randint(0, V, (n,)), V).float() @ weight).backward(torch.ones(n, d))
    assert exercises._count(exercises.FLOP_SIZES) == {"dense": counter.get_total_flops(), "lookup": 0}
