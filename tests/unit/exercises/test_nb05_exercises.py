"""Notebook 5's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import math

import pytest
import torch

from utils.exercises import nb05 as exercises

UP = 4096 * 0.02**2  # Exercise 5.1's first prediction: in_features · 0.02²
DOWN = UP * 11008 * 0.02**2  # its second: the down-projection multiplies the variance it is fed by 11008 · 0.02²


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


UNIT = 2500  # Exercise 5.1's third prediction: in_features · 0.02² = 1


@pytest.mark.parametrize(("answer", "expected"), [
    ((UP, DOWN, UNIT), "pass"),
    ((torch.tensor(UP), DOWN, 2500.0), "pass"),  # 0-d tensors and floats: numbers
    ((11008 * 0.02**2, DOWN, UNIT), "the other layer's size.*in_features"),
    ((1 / 3, DOWN, UNIT), "PyTorch's default, variance factor 1/3"),
    ((math.sqrt(UP), DOWN, UNIT), "the outputs' std. Hint: square it"),
    ((0.02**2, DOWN, UNIT), "that is one product's"),
    ((UP, 11008 * 0.02**2, UNIT), r"predicted_down, 4.403, is not the variance after both.*fed inputs of variance 1"),
    ((UP, UP + 11008 * 0.02**2, UNIT), r"predicted_down, 6.042, .*multiplies .*does not add"),
    ((UP, 2.0, UNIT), r"predicted_down, 2, is not.*Hint: the down-projection multiplies .* fan_in = 11008"),
    ((UP, DOWN, 50), r"unit_in_features, 50, .*in_features · 0.02 equal 1"),
    ((UP, DOWN, 7500), r"unit_in_features, 7500, .*no factor 3"),
    ((UP, DOWN, 1000), r"unit_in_features, 1000, .*set it to 1"),
    ((-1.0, DOWN, UNIT), (ValueError, "positive, finite number, got -1")),
    (("1.6", DOWN, UNIT), (TypeError, "predicted_up must be a number")),
])
def test_llama_predictions(judge, answer, expected):
    echoed = {f"{float(value):.4g}" for value in answer if not isinstance(value, str)}  # the learner's own numbers
    judge(exercises.check_llama_predictions, answer, expected, never={"1.638", "7.214", "2500"} - echoed)


@pytest.mark.parametrize("answer", [(None, None, None), (UP, None, UNIT), (UP, DOWN, None)])
def test_llama_predictions_judge_nothing_until_every_guess_is_in(capsys, answer):
    assert exercises.check_llama_predictions(*answer) is None
    out = capsys.readouterr().out
    assert out.startswith("not answered yet: fill in ") and "correct" not in out and "1.638" not in out
    if answer == (None, None, None):
        assert out.startswith("not answered yet: fill in predicted_up, predicted_down and unit_in_features above")


@pytest.mark.parametrize(("function", "expected"), [
    (output_variance, "pass"),
    (inputs_first, "pass"),  # another order of the draws, a 0-d tensor: equally good
    (lambda *args: output_variance(*args) ** 0.5, "the std of the outputs"),
    (default_layer, "the variance of PyTorch's default layer"),
    (lambda in_features, weight_std, seed: weight_std**2, "the variance of the weights"),
    (lambda in_features, weight_std, seed: 3.0, r"output_variance\(4096, 0.02, seed=0\) returned 3"),
    (lambda in_features, weight_std, seed: in_features * weight_std**2, "computes a formula instead of measuring"),
    (lambda in_features, weight_std, seed: (torch.randn(256, in_features)
                                            @ (torch.randn(64, in_features) * weight_std).T).var().item(),
     "the same seed gave two different numbers"),  # unseeded
    (1.64, "pass your function itself"),
    (lambda *args: "1.6", (TypeError, r"output_variance\(...\) must be a number")),
])
def test_output_variance(judge, function, expected):
    judge(exercises.check_output_variance, (function,), expected, never={"1.638", "4.403"})


HALF = 0.5 * 768**-0.5  # exercise 5.2's answer: hidden states of std 2


@pytest.mark.parametrize(("prediction", "expected"), [
    (HALF, "pass"),
    (torch.tensor(HALF * 1.05), "pass"),  # within 10%, as a 0-d tensor
    (768**-0.5, "the scale 2 doubles them"),
    (1 / (6 * 768**0.5), "the LayerNorm divides each vector by its own std"),
    (0.03, "your prediction, .* does not give logits of std 1"),
    (1 / 768, "your prediction, .* does not give logits of std 1"),
    (-0.02, (ValueError, "positive, finite number, got -0.02")),
    ("0.02", (TypeError, "predicted_weight_std must be a number")),
])
def test_logit_std_prediction(judge, prediction, expected):
    judge(exercises.check_logit_std_prediction, (prediction,), expected, never=("0.018",))


def test_logit_std_prediction_judges_nothing_before_a_guess(capsys):
    assert exercises.check_logit_std_prediction(None) is None
    assert capsys.readouterr().out.startswith("not answered yet: fill in predicted_weight_std")


def _arriving(d, g):
    return 3 * torch.randn(512, d, generator=g) + 1


def _layer_norm(d, scale):
    norm = torch.nn.LayerNorm(d)
    norm.weight.data.fill_(scale)
    return norm


def measure_logit_std(d, weight_std, scale, seed):
    """Exercise 5.2's worked answer."""
    g = torch.Generator().manual_seed(seed)
    table = torch.randn(1_000, d, generator=g) * weight_std
    with torch.no_grad():
        return (_layer_norm(d, scale)(_arriving(d, g)) @ table.T).std().item()


def vectors_first(d, weight_std, scale, seed):  # another order of the draws is another, equally good, measurement
    g = torch.Generator().manual_seed(seed)
    hidden = scale * torch.nn.functional.layer_norm(_arriving(d, g), (d,))
    return torch.tensor((hidden @ (torch.randn(1_000, d, generator=g) * weight_std).T).std().item())


def no_scale(d, weight_std, scale, seed):
    return measure_logit_std(d, weight_std, 1.0, seed)


def no_layer_norm(d, weight_std, scale, seed):
    g = torch.Generator().manual_seed(seed)
    table = torch.randn(1_000, d, generator=g) * weight_std
    return (scale * _arriving(d, g) @ table.T).std().item()


def table_std(d, weight_std, scale, seed):
    return (torch.randn(1_000, d, generator=torch.Generator().manual_seed(seed)) * weight_std).std().item()


MEASURED_WEIGHT_STD = 0.02 / measure_logit_std(768, 0.02, 2.0, seed=0)


@pytest.mark.parametrize(("answer", "expected"), [
    ((measure_logit_std, MEASURED_WEIGHT_STD), "pass"),
    ((measure_logit_std, HALF), "pass"),  # the formula's std passes too
    ((vectors_first, torch.tensor(HALF)), "pass"),  # 0-d tensors: numbers
    ((lambda *args: measure_logit_std(*args) ** 2, HALF), "the variance of the logits"),
    ((table_std, HALF), "the std of the table"),
    ((no_scale, HALF), "as if the scale were 1"),
    ((no_layer_norm, HALF), "the logits of the vectors as they reach the LayerNorm"),
    ((lambda d, weight_std, scale, seed: (torch.randn(512, d) @ (torch.randn(1_000, d) * weight_std).T).std().item()
      * scale, HALF), "the same seed gave two different numbers"),  # unseeded
    ((measure_logit_std, 0.01), "measured logits whose std is below 1"),
    ((measure_logit_std, 1.0), "measured logits whose std is above 1"),
    ((measure_logit_std, 1 / 768), r"the variance is d \* std²"),
    ((lambda d, weight_std, scale, seed: 8.0, 0.0361),
     r"measure_logit_std\(256, 0.1, 2.0, seed=1\) returned 8"),  # typed
    ((lambda d, weight_std, scale, seed: d**0.5 * weight_std * scale, HALF),
     "computes a formula instead of measuring"),
    ((1.0, 0.0361), "pass your function itself"),
    ((lambda d, weight_std, scale, seed: "27.7", 0.0361), (TypeError, "measure_logit_std.* must be a number")),
    ((measure_logit_std, -0.036),
     (ValueError, "weight_std_for_unit_logits must be a positive, finite number, got -0.036")),
])
def test_logit_std_function(judge, answer, expected):
    judge(exercises.check_logit_std_function, answer, expected,
          never=("0.018", f"{MEASURED_WEIGHT_STD:.3g}", f"{measure_logit_std(256, 0.1, 2.0, 1):.4g}"))


def scaled(seed=0):
    """Exercise 5.3's worked answer: the default weight of nn.Linear(5000, 70), times sqrt(3 * 5000)."""
    torch.manual_seed(seed)
    return torch.nn.Linear(5000, 70, bias=False).weight.detach() * (3 * 5000) ** 0.5


@pytest.mark.parametrize(("predicted_max", "expected"), [
    (3**0.5, "pass"),
    (1.7, "pass"),  # within 5%
    (4.7, "a uniform stays uniform"),  # as if it had become N(0, 1)
    (1.0, r"the std of U\(-c, c\) is c/sqrt\(3\)"),
    ("1.7", (TypeError, "predicted_max must be a number")),
    (0.0, (ValueError, "positive, finite number, got 0")),
])
def test_max_prediction(judge, predicted_max, expected):
    judge(exercises.check_max_prediction, (predicted_max,), expected, never=("1.73",))


def test_max_prediction_judges_nothing_before_a_guess(capsys):
    assert exercises.check_max_prediction(None) is None
    assert capsys.readouterr().out.startswith("not answered yet: fill in predicted_max")


@pytest.mark.parametrize(("weight", "expected"), [
    (scaled(), "pass"),
    (scaled(1).float(), "pass"),  # another seed's default draw
    (scaled() / 3**0.5, "not 1. Hint: divide the default weight by its std"),
    (torch.randn(70, 5000, generator=torch.Generator().manual_seed(0)), "not nn.Linear's default draw"),
    (scaled().T, r"expected \(70, 5000\)"),
    ([1.0], (TypeError, "scaled must be a float tensor")),
])
def test_scaled_linear(judge, weight, expected):
    judge(exercises.check_scaled_linear, (weight,), expected, never=("1.73",))


def test_checkers_leave_the_global_rng_alone():
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    exercises.check_logit_std_function(measure_logit_std, HALF)
    exercises.check_output_variance(output_variance)  # its nn.Linear draws from the global state
    assert torch.equal(torch.rand(3), expected)


def test_loss_over_ln_v_prediction(capsys):
    """Section 7's prediction: None judges nothing, 10 passes, the other choices hint without the loss, others are
    refused."""
    exercises.check_loss_over_ln_v(None)
    assert capsys.readouterr().out.startswith("not answered yet")
    exercises.check_loss_over_ln_v(10)
    assert capsys.readouterr().out.startswith("correct:")
    for wrong in (1, 2, 5, 20):  # near ln V; twice it; half and twice the answer
        with pytest.raises(AssertionError, match="Hint") as failed:
            exercises.check_loss_over_ln_v(wrong)
        assert "113" not in str(failed.value) and "10.5" not in str(failed.value)
    for refused in (10.9, "far above ln V"):
        with pytest.raises((TypeError, ValueError)):
            exercises.check_loss_over_ln_v(refused)


def test_loss_over_ln_v_choice_is_the_notebook_run():
    """The right choice is the one nearest the loss section 7 prints, as a multiple of ln V, for section 7's draws
    (seed 6), as the notebook makes them."""
    v, d = 50_257, 768
    generator = torch.Generator().manual_seed(6)
    z = torch.randn(v, d, generator=generator)
    hidden = torch.randn(32, d, generator=generator)
    next_ids = torch.randint(0, v, (32,), generator=generator)
    ratio = torch.nn.functional.cross_entropy(hidden @ z.T, next_ids).item() / math.log(v)
    nearest = min(exercises.LOSS_OVER_LN_V_CHOICES, key=lambda choice: abs(math.log(ratio / choice)))
    assert nearest == exercises.LOSS_OVER_LN_V
