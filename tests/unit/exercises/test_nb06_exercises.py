"""Notebook 6's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import pytest
import torch

from utils.exercises import nb06 as exercises

FORWARD = 2 * 32 * 2_000 * 8  # one (32, 2000) @ (2000, 8) product, in FLOPs
BYTES = {1_000: 1_000 * 16 * 4, 50_257: 50_257 * 16 * 4}
backward_prediction, backward_measurement = exercises.check_backward_prediction, exercises.check_backward_measurement
largest_batch, predicted_flops = exercises.check_largest_batch, exercises.check_predicted_flops


@pytest.mark.parametrize(("checker", "answer", "expected"), [
    (backward_prediction, (True,), "pass"),
    (backward_prediction, (False,), "backward_grows_with_V = False: .* what does the backward hand back for W"),
    (backward_prediction, (None,), "record your prediction in backward_grows_with_V first"),
    (backward_prediction, ("yes",), "backward_grows_with_V must look like True, got str"),
    (backward_measurement, (BYTES, 3.1), "pass"),
    (backward_measurement, ({V: torch.tensor(n) for V, n in BYTES.items()}, torch.tensor(3.1)), "pass"),  # .nbytes
    (backward_measurement, ({1_000: torch.tensor(64_000), 50_257: torch.tensor(64_000)}, 3.1), r"= 64,000 is not"),
    (backward_measurement, ({1_000: 64_000.5, 50_257: BYTES[50_257]}, 3.1), r"grad_bytes\[1000\] = 64,000.5 is not"),
    (backward_measurement, ({1_000: 64_000, 50_257: 64_000}, 3.1),
     r"grad_bytes\[50257\] = 64,000 is not the bytes of W's gradient .* it holds every row"),
    (backward_measurement, ({1_000: 64_000}, 3.1), r"must have the keys \[1000, 50257\]: missing \[50257\]"),
    (backward_measurement, (BYTES, float("nan")), "a positive number"),
    (backward_measurement, (BYTES, "3"), (TypeError, "must be a number")),
    (largest_batch, (768,), "pass"),
    (largest_batch, (384,), "8 bytes an entry: .* as float32"),
    (largest_batch, (767,), "one short"),
    (largest_batch, (50_257,), "Hint: write both sizes in bytes"),
    (largest_batch, (768.0,), (TypeError, "a whole number of tokens, got float")),
    (predicted_flops, ({"dense": 3 * FORWARD, "lookup": 0},), "pass"),
    (predicted_flops, ({"dense": FORWARD, "lookup": 0},), "one matrix product's count. The backward computes two"),
    (predicted_flops, ({"dense": FORWARD // 2, "lookup": 0},), "a multiply-add counts as 2 FLOPs"),
    (predicted_flops, ({"dense": 2 * FORWARD, "lookup": 0},), "that counts W's gradient; the one-hot requires a"),
    (predicted_flops, ({"dense": 12345, "lookup": 0},), "count each matrix product as 2·rows·inner·columns"),
    (predicted_flops, ({"dense": 3 * FORWARD, "lookup": 2 * 32 * 8},),
     r"predicted_flops\['lookup'\] is not the counter's count. Hint: the counter counts the FLOPs of matrix"),
    (predicted_flops, ([3 * FORWARD, 0],), "predicted_flops must be a dict from 'dense' and 'lookup'"),
])
def test_checker(judge, checker, answer, expected):
    judge(checker, answer, expected)


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
