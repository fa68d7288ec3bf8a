"""Notebook 5's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import pytest
import torch

from utils.exercises import nb05 as exercises

PREDICTED = (4096**-0.5, (3 * 4096) ** -0.5)  # Exercise 5.1's predictions: the bound and the std


def _drawn_linear(in_features, out_features=256, seed=0):
    torch.manual_seed(seed)
    return torch.nn.Linear(in_features, out_features)


def _measured(layer):
    """Exercise 5.1's worked measurements of ``layer``: the std and the largest |w| of its weight."""
    return layer.weight.std().item(), layer.weight.abs().max().item()


LAYER, NARROW, WRONG_WAY = _drawn_linear(4096), _drawn_linear(4096, 64, seed=1), _drawn_linear(256, 4096)
RENORMALISED = _drawn_linear(4096)
torch.nn.init.normal_(RENORMALISED.weight.data, std=0.02)
STD, LARGEST = _measured(LAYER)
FORMULA_STD = (3 * 4096) ** -0.5


@pytest.mark.parametrize(("answer", "expected"), [
    ((*PREDICTED, LAYER, STD, LARGEST), "pass"),
    ((*PREDICTED, LAYER, LAYER.weight.std(), LAYER.weight.abs().max()), "pass"),  # 0-d tensors
    ((*PREDICTED, NARROW, *_measured(NARROW)), "pass"),  # any out_features: only in_features sets the scale
    ((*PREDICTED, WRONG_WAY, *_measured(WRONG_WAY)), "in_features = 256.*keep in_features = 4096"),
    ((*PREDICTED, LAYER, FORMULA_STD, LARGEST), r"that is the formula's value.*layer.weight.std\(\)"),
    ((*PREDICTED, LAYER, STD, FORMULA_STD), r"observed_max = 0.009021, but that is not the largest \|w\|"),
    ((*PREDICTED, RENORMALISED, 0.02, 0.1), "not PyTorch's default initialisation"),
    ((11008**-0.5, FORMULA_STD, LAYER, STD, LARGEST), r"that is 1/sqrt\(out_features\); nn.Linear's fan_in is in_"),
    ((0.02, FORMULA_STD, LAYER, STD, LARGEST), r"the bound is 1/sqrt\(fan_in\)"),
    ((4096**-0.5, 4096**-0.5, LAYER, STD, LARGEST), "that is the bound itself"),
    ((4096**-0.5, 0.02, LAYER, STD, LARGEST), r"the std of U\(-b, b\) is b/sqrt\(3\)"),
    ((*PREDICTED, torch.nn.Embedding(4096, 8), 0.009, 0.0156),
     (TypeError, "layer must be the torch.nn.Linear you drew, got Embedding")),
    ((*PREDICTED, LAYER, "0.009", 0.0156), (TypeError, "observed_std must be a number")),
    ((*PREDICTED, LAYER, 0.009, LAYER.weight), (TypeError, "observed_max must be a number")),
    ((*PREDICTED, LAYER, -0.009, 0.0156), (ValueError, "positive, finite number, got -0.009")),
])
def test_linear_init_draw(judge, answer, expected):
    judge(exercises.check_linear_init_draw, answer, expected,
          never=(f"{STD:.6f}", f"{LARGEST:.6f}") if answer[:2] == PREDICTED else ())  # never the measurement
    # (a wrong predicted std of 1/64 prints as the largest |w| does)


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


def measure_logit_std(d, weight_std, seed):
    """Exercise 5.2's worked answer."""
    g = torch.Generator().manual_seed(seed)
    table = torch.randn(1_000, d, generator=g) * weight_std
    hidden = torch.randn(512, d, generator=g)
    return (hidden @ table.T).std().item()


def hidden_first(d, weight_std, seed):  # another order of the draws is another, equally good, measurement
    g = torch.Generator().manual_seed(seed)
    hidden = torch.randn(512, d, generator=g)
    return torch.tensor((hidden @ (torch.randn(1_000, d, generator=g) * weight_std).T).std().item())


def table_std(d, weight_std, seed):
    return (torch.randn(1_000, d, generator=torch.Generator().manual_seed(seed)) * weight_std).std().item()


MEASURED_WEIGHT_STD = 0.5 / measure_logit_std(768, 1.0, seed=0)


@pytest.mark.parametrize(("answer", "expected"), [
    ((measure_logit_std, MEASURED_WEIGHT_STD, HALF), "pass"),
    ((measure_logit_std, HALF, HALF), "pass"),  # the formula's std passes too
    ((hidden_first, torch.tensor(HALF), HALF), "pass"),  # 0-d tensors: numbers
    ((lambda *args: measure_logit_std(*args) ** 2, HALF, HALF), "the variance of the logits"),
    ((table_std, HALF, HALF), "the std of the table"),
    ((lambda d, weight_std, seed: (torch.randn(512, d) @ (torch.randn(1_000, d) * weight_std).T).std().item(), HALF,
      HALF), "the same seed gave two different numbers"),  # unseeded
    ((measure_logit_std, 0.01, HALF), "measured logits whose std is below 1"),
    ((measure_logit_std, 1.0, HALF), "measured logits whose std is above 1"),
    ((measure_logit_std, 1 / 768, HALF), r"the variance is d \* std²"),
    ((lambda d, weight_std, seed: 8.0, 0.0361, HALF), r"measure_logit_std\(256, 0.1, seed=1\) returned 8"),  # typed
    ((lambda d, weight_std, seed: d**0.5 * weight_std, 0.0361, HALF), "computes a formula instead of measuring"),
    ((1.0, 0.0361, HALF), "pass your function itself"),
    ((measure_logit_std, MEASURED_WEIGHT_STD, 768**-0.5), "your prediction, .* does not give logits of std 1"),
    ((measure_logit_std, MEASURED_WEIGHT_STD, 0.03), "your prediction, .* does not give logits of std 1"),
    ((measure_logit_std, MEASURED_WEIGHT_STD, 1 / 768), "your prediction, .* does not give logits of std 1"),
    ((lambda d, weight_std, seed: "27.7", 0.0361, HALF), (TypeError, "measure_logit_std.* must be a number")),
    ((measure_logit_std, None, HALF), (TypeError, "weight_std_for_unit_logits must be a number")),
    ((measure_logit_std, -0.036, HALF),
     (ValueError, "weight_std_for_unit_logits must be a positive, finite number, got -0.036")),
])
def test_logit_std_function(judge, answer, expected):
    judge(exercises.check_logit_std_function, answer, expected,
          never=("0.55", "0.018", f"{MEASURED_WEIGHT_STD:.3g}", f"{measure_logit_std(256, 0.1, 1):.4g}", "1.6"))


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
    assert torch.equal(torch.rand(3), expected)
