"""Notebook 6's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import pytest
import torch

from utils.exercises import nb06 as exercises

FORWARD = 2 * 32 * 2_000 * 8  # one (32, 2000) @ (2000, 8) product, in FLOPs
WORKED = {
    "check_backward_prediction": (True,),
    "check_backward_measurement": ({1_000: 1_000 * 16 * 4, 50_257: 50_257 * 16 * 4}, 3.1),
    "check_largest_batch": (768,),
    "check_predicted_flops": ({"dense": 3 * FORWARD, "lookup": 0},),
}


@pytest.mark.parametrize("checker", WORKED)
def test_the_worked_answer_passes_and_says_what_was_checked_not_the_answer(checker, capsys):
    assert getattr(exercises, checker)(*WORKED[checker])
    printed = capsys.readouterr().out
    assert printed.startswith("correct: ") and printed.count("\n") == 1
    # no answer in the line a stored run shows
    for answer in ("faster", "768 ", "10x", "zero", " 0 ", "grow ", "grows", "3.1"):
        assert answer not in printed.removeprefix("correct: ")


@pytest.mark.parametrize(
    ("checker", "answer", "error", "message"),
    [
        ("check_backward_prediction", (False,), exercises.ExerciseError,
         "backward_grows_with_V = False: .* what does the backward hand back for W"),
        ("check_backward_prediction", (None,), exercises.ExerciseError,
         "record your prediction in backward_grows_with_V first"),
        ("check_backward_prediction", ("yes",), exercises.ExerciseError,
         "backward_grows_with_V must look like True, got str"),
        ("check_backward_measurement", ({1_000: 64_000, 50_257: 64_000}, 3.1), exercises.ExerciseError,
         r"grad_bytes\[50257\] = 64,000 is not the bytes of W's gradient .* it holds every row"),
        ("check_backward_measurement", ({1_000: 64_000}, 3.1), exercises.ExerciseError, "with the keys"),
        ("check_backward_measurement", ({1_000: 64_000, 50_257: 3_216_448}, float("nan")), exercises.ExerciseError,
         "a positive number"),
        ("check_backward_measurement", ({1_000: 64_000, 50_257: 3_216_448}, "3"), TypeError, "must be a number"),
        ("check_largest_batch", (384,), exercises.ExerciseError, "8 bytes an entry: .* as float32"),
        ("check_largest_batch", (767,), exercises.ExerciseError, "one short"),
        ("check_largest_batch", (50_257,), exercises.ExerciseError, "Hint: write both sizes in bytes"),
        ("check_largest_batch", (768.0,), TypeError, "a whole number of tokens, got float"),
        ("check_predicted_flops", ({"dense": FORWARD, "lookup": 0},), exercises.ExerciseError,
         "one matrix product's count. The backward computes two gradients"),
        ("check_predicted_flops", ({"dense": FORWARD // 2, "lookup": 0},), exercises.ExerciseError,
         "a multiply-add counts as 2 FLOPs"),
        ("check_predicted_flops", ({"dense": 2 * FORWARD, "lookup": 0},), exercises.ExerciseError,
         "that counts W's gradient; the one-hot requires a gradient here too"),
        ("check_predicted_flops", ({"dense": 12345, "lookup": 0},), exercises.ExerciseError,
         "count each matrix product as 2·rows·inner·columns"),
        ("check_predicted_flops", ({"dense": 3 * FORWARD, "lookup": 2 * 32 * 8},), exercises.ExerciseError,
         r"predicted_flops\['lookup'\] is not the counter's count. Hint: the counter counts the FLOPs of matrix"),
        ("check_predicted_flops", ([3 * FORWARD, 0],), exercises.ExerciseError, "keys 'dense' and 'lookup'"),
    ],
)
def test_a_wrong_answer_fails_with_its_hint(checker, answer, error, message):
    with pytest.raises(error, match=message):
        getattr(exercises, checker)(*answer)


def test_the_flop_checker_counts_with_the_counter_at_its_sizes():
    """The checker's count is FlopCounterMode's on the meta device, the same as on real tensors (the one-hot
    requiring a gradient, as exercise 6.3 sets it)."""
    from torch.utils.flop_counter import FlopCounterMode

    n, V, d = exercises.FLOP_SIZES
    weight = torch.randn(V, d, requires_grad=True)
    with FlopCounterMode(display=False) as counter:
        one_hot = torch.nn.functional.one_hot(torch.randint(0, V, (n,)), V).float().requires_grad_()
        (one_hot @ weight).backward(torch.ones(n, d))
    assert exercises._count(exercises.FLOP_SIZES) == {"dense": counter.get_total_flops(), "lookup": 0}
