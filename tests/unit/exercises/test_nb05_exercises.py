"""Notebook 5's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import math

import pytest
import torch

from utils.exercises import nb05 as exercises

UP, DOWN = 4096 * 0.02**2, 11008 * 0.02**2  # Exercise 5.1's predictions: in_features · 0.02²


def output_variance(in_features, weight_std, seed):
    """Exercise 5.1's worked answer."""
    g = torch.Generator().manual_seed(seed)
    layer = torch.nn.Linear(in_features, 256, bias=False)
    with torch.no_grad():
        torch.nn.init.normal_(layer.weight, std=weight_std, generator=g)
        return layer(torch.randn(256, in_features, generator=g)).var().item()


def inputs_first(in_features, weight_std, seed):  # another order of the draws, as a 0-d tensor: equally good
    g = torch.Generator().manual_seed(seed)
    inputs = torch.randn(256, in_features, generator=g)
    return (inputs @ (torch.randn(64, in_features, generator=g) * weight_std).T).var()


def default_layer(in_features, weight_std, seed):  # forgets to re-draw: PyTorch's default, variance 1/3
    torch.manual_seed(seed)
    layer = torch.nn.Linear(in_features, 256, bias=False)
    with torch.no_grad():
        return layer(torch.randn(256, in_features)).var().item()


@pytest.mark.parametrize(("answer", "expected"), [
    ((UP, DOWN, output_variance), "pass"),
    ((torch.tensor(UP), DOWN, inputs_first), "pass"),  # 0-d tensors: numbers
    ((None, DOWN, output_variance), r"record your prediction in predicted_up first"),
    ((DOWN, UP, output_variance), "the other layer's size.*in_features"),
    ((1 / 3, DOWN, output_variance), "PyTorch's default, forward gain 1/3"),
    ((UP, math.sqrt(DOWN), output_variance), "the outputs' std. Hint: square it"),
    ((0.02**2, DOWN, output_variance), "that is one product's"),
    ((UP, 2.0, output_variance), r"predicted_down, 2, is not.*Hint: each output sums fan_in = 11008 products"),
    ((UP, DOWN, lambda *args: output_variance(*args) ** 0.5), "the std of the outputs"),
    ((UP, DOWN, default_layer), "the variance of PyTorch's default layer"),
    ((UP, DOWN, lambda in_features, weight_std, seed: weight_std**2), "the variance of the weights"),
    ((UP, DOWN, lambda in_features, weight_std, seed: 3.0), r"output_variance\(4096, 0.02, seed=0\) returned 3"),
    ((UP, DOWN, lambda in_features, weight_std, seed: in_features * weight_std**2),
     "computes a formula instead of measuring"),
    ((UP, DOWN, lambda in_features, weight_std, seed: (torch.randn(256, in_features)
                                                      @ (torch.randn(64, in_features) * weight_std).T).var().item()),
     "the same seed gave two different numbers"),  # unseeded
    ((UP, DOWN, 1.64), "pass your function itself"),
    ((UP, DOWN, lambda *args: "1.6"), (TypeError, r"output_variance\(...\) must be a number")),
    ((-1.0, DOWN, output_variance), (ValueError, "positive, finite number, got -1")),
])
def test_llama_output_variance(judge, answer, expected):
    echoed = {f"{float(value):.4g}" for value in answer[:2] if value is not None}  # the learner's own numbers
    judge(exercises.check_llama_output_variance, answer, expected, never={"1.638", "4.403"} - echoed)


HALF = 0.5 * 768**-0.5  # exercise 5.2's answer: hidden states of std 2


@pytest.mark.parametrize(("prediction", "expected"), [
    (HALF, "recorded"), (0.03, "recorded"), (1.0, "recorded"),  # any std is recorded; the measurement judges it
    (None, r"record your prediction in predicted_weight_std first \(the cell above still holds None\)"),
    (-0.02, (ValueError, "positive, finite number, got -0.02")),
])
def test_logit_std_prediction(judge, capsys, prediction, expected):
    """Recorded before the measurement, judged after it: any positive std is recorded ("recorded:", never
    "correct:"), and never judged here; a guess still None is refused."""
    if expected == "recorded":
        assert exercises.check_logit_std_prediction(prediction) is True
        assert capsys.readouterr().out.splitlines()[-1].startswith("recorded: ")
        return
    judge(exercises.check_logit_std_prediction, (prediction,), expected, never=("0.018",))


def _arriving(d, g):
    return 3 * torch.randn(512, d, generator=g) + 1


def _layer_norm(d, gain):
    norm = torch.nn.LayerNorm(d)
    norm.weight.data.fill_(gain)
    return norm


def measure_logit_std(d, weight_std, gain, seed):
    """Exercise 5.2's worked answer."""
    g = torch.Generator().manual_seed(seed)
    table = torch.randn(1_000, d, generator=g) * weight_std
    with torch.no_grad():
        return (_layer_norm(d, gain)(_arriving(d, g)) @ table.T).std().item()


def vectors_first(d, weight_std, gain, seed):  # another order of the draws is another, equally good, measurement
    g = torch.Generator().manual_seed(seed)
    hidden = gain * torch.nn.functional.layer_norm(_arriving(d, g), (d,))
    return torch.tensor((hidden @ (torch.randn(1_000, d, generator=g) * weight_std).T).std().item())


def no_gain(d, weight_std, gain, seed):
    return measure_logit_std(d, weight_std, 1.0, seed)


def no_layer_norm(d, weight_std, gain, seed):
    g = torch.Generator().manual_seed(seed)
    table = torch.randn(1_000, d, generator=g) * weight_std
    return (gain * _arriving(d, g) @ table.T).std().item()


def table_std(d, weight_std, gain, seed):
    return (torch.randn(1_000, d, generator=torch.Generator().manual_seed(seed)) * weight_std).std().item()


MEASURED_WEIGHT_STD = 0.02 / measure_logit_std(768, 0.02, 2.0, seed=0)


@pytest.mark.parametrize(("answer", "expected"), [
    ((measure_logit_std, MEASURED_WEIGHT_STD, HALF), "pass"),
    ((measure_logit_std, HALF, HALF), "pass"),  # the formula's std passes too
    ((vectors_first, torch.tensor(HALF), HALF), "pass"),  # 0-d tensors: numbers
    ((lambda *args: measure_logit_std(*args) ** 2, HALF, HALF), "the variance of the logits"),
    ((table_std, HALF, HALF), "the std of the table"),
    ((no_gain, HALF, HALF), "as if the gain were 1"),
    ((no_layer_norm, HALF, HALF), "the logits of the vectors as they reach the LayerNorm"),
    ((lambda d, weight_std, gain, seed: (torch.randn(512, d) @ (torch.randn(1_000, d) * weight_std).T).std().item()
      * gain, HALF, HALF), "the same seed gave two different numbers"),  # unseeded
    ((measure_logit_std, 0.01, HALF), "measured logits whose std is below 1"),
    ((measure_logit_std, 1.0, HALF), "measured logits whose std is above 1"),
    ((measure_logit_std, 1 / 768, HALF), r"the variance is d \* std²"),
    ((lambda d, weight_std, gain, seed: 8.0, 0.0361, HALF),
     r"measure_logit_std\(256, 0.1, 2.0, seed=1\) returned 8"),  # typed
    ((lambda d, weight_std, gain, seed: d**0.5 * weight_std * gain, HALF, HALF),
     "computes a formula instead of measuring"),
    ((1.0, 0.0361, HALF), "pass your function itself"),
    ((measure_logit_std, MEASURED_WEIGHT_STD, 768**-0.5), "the gain 2 doubles them"),
    ((measure_logit_std, MEASURED_WEIGHT_STD, 1 / (6 * 768**0.5)), "the LayerNorm divides each vector by its own std"),
    ((measure_logit_std, MEASURED_WEIGHT_STD, 0.03), "your prediction, .* does not give logits of std 1"),
    ((measure_logit_std, MEASURED_WEIGHT_STD, 1 / 768), "your prediction, .* does not give logits of std 1"),
    ((lambda d, weight_std, gain, seed: "27.7", 0.0361, HALF), (TypeError, "measure_logit_std.* must be a number")),
    ((measure_logit_std, None, HALF), (TypeError, "weight_std_for_unit_logits must be a number")),
    ((measure_logit_std, -0.036, HALF),
     (ValueError, "weight_std_for_unit_logits must be a positive, finite number, got -0.036")),
])
def test_logit_std_function(judge, answer, expected):
    judge(exercises.check_logit_std_function, answer, expected,
          never=("0.018", f"{MEASURED_WEIGHT_STD:.3g}", f"{measure_logit_std(256, 0.1, 2.0, 1):.4g}"))


def scaled(seed=0):
    """Exercise 5.3's worked answer: the default weight of nn.Linear(5000, 70), times sqrt(3 * 5000)."""
    torch.manual_seed(seed)
    return torch.nn.Linear(5000, 70, bias=False).weight.detach() * (3 * 5000) ** 0.5


@pytest.mark.parametrize(("predicted_max", "weight", "expected"), [
    (3**0.5, scaled(), "pass"),
    (4.7, scaled(), "a uniform stays uniform"),  # as if it had become N(0, 1)
    (1.0, scaled(), r"the std of U\(-c, c\) is c/sqrt\(3\)"),
    (3**0.5, scaled() / 3**0.5, "not 1. Hint: divide the default weight by its std"),
    (3**0.5, torch.randn(70, 5000, generator=torch.Generator().manual_seed(0)), "not nn.Linear's uniform draw"),
    (3**0.5, scaled().T, r"expected \(70, 5000\)"),
    (3**0.5, [1.0], (TypeError, "scaled must be a float tensor")),
    ("1.7", scaled(), (TypeError, "predicted_max must be a number")),
])
def test_scaled_linear(judge, predicted_max, weight, expected):
    judge(exercises.check_scaled_linear, (predicted_max, weight), expected, never=("1.73",))


def test_checkers_leave_the_global_rng_alone():
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    exercises.check_logit_std_function(measure_logit_std, HALF, HALF)
    exercises.check_llama_output_variance(UP, DOWN, output_variance)  # its nn.Linear draws from the global state
    assert torch.equal(torch.rand(3), expected)
