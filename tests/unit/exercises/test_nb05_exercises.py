"""Notebook 5's checkers accept a right answer and reject a wrong one with a hint."""


import pytest
import torch

from utils.exercises import nb05 as exercises

PREDICTED = (4096**-0.5, (3 * 4096) ** -0.5)  # Exercise 5.1's predictions: the bound and the std


def _drawn_linear(in_features, out_features=256, seed=0):
    torch.manual_seed(seed)
    return torch.nn.Linear(in_features, out_features)

def test_linear_init_draw_right(capsys):
    layer = _drawn_linear(4096)
    std, largest = layer.weight.std().item(), layer.weight.abs().max().item()
    assert exercises.check_linear_init_draw(*PREDICTED, layer, std, largest)
    out = capsys.readouterr().out
    assert out.startswith("correct: your layer keeps the right fan_in")
    assert "4096" not in out and "0.00902" not in out  # what was checked, not the answer
    assert exercises.check_linear_init_draw(*PREDICTED, layer, layer.weight.std(), layer.weight.abs().max())  # 0-d
    narrow = _drawn_linear(4096, 64, seed=1)  # any out_features: only in_features sets the scale
    assert exercises.check_linear_init_draw(*PREDICTED, narrow, narrow.weight.std().item(),
                                            narrow.weight.abs().max().item())

def test_linear_init_draw_wrong():
    wrong_way = _drawn_linear(256, 4096)  # out_features = 4096: the fan_in is 256
    with pytest.raises(exercises.ExerciseError, match="in_features = 256.*keep in_features = 4096"):
        exercises.check_linear_init_draw(*PREDICTED, wrong_way, wrong_way.weight.std().item(),
                                         wrong_way.weight.abs().max().item())
    layer = _drawn_linear(4096)
    std, largest = layer.weight.std().item(), layer.weight.abs().max().item()
    with pytest.raises(exercises.ExerciseError, match=r"that is the formula's value.*layer.weight.std\(\)") as error:
        exercises.check_linear_init_draw(*PREDICTED, layer, (3 * 4096) ** -0.5, largest)
    assert f"{std:.6f}" not in str(error.value)  # a hint, never the measured std
    with pytest.raises(exercises.ExerciseError, match=r"observed_max = 0.009021, but that is not the largest \|w\|") \
            as error:
        exercises.check_linear_init_draw(*PREDICTED, layer, std, (3 * 4096) ** -0.5)
    assert f"{largest:.6f}" not in str(error.value) and f"{largest:.4f}" not in str(error.value)
    renormalised = _drawn_linear(4096)
    with torch.no_grad():
        torch.nn.init.normal_(renormalised.weight, std=0.02)
    with pytest.raises(exercises.ExerciseError, match="not PyTorch's default initialisation"):
        exercises.check_linear_init_draw(*PREDICTED, renormalised, 0.02, 0.1)

def test_linear_init_draw_bad_input():
    layer = _drawn_linear(4096, 8)
    with pytest.raises(TypeError, match="layer must be the torch.nn.Linear you drew, got Embedding"):
        exercises.check_linear_init_draw(*PREDICTED, torch.nn.Embedding(4096, 8), 0.009, 0.0156)
    with pytest.raises(TypeError, match="observed_std must be a number"):
        exercises.check_linear_init_draw(*PREDICTED, layer, "0.009", 0.0156)
    with pytest.raises(TypeError, match="observed_max must be a number"):
        exercises.check_linear_init_draw(*PREDICTED, layer, 0.009, layer.weight)
    with pytest.raises(ValueError, match="positive, finite number, got -0.009"):
        exercises.check_linear_init_draw(*PREDICTED, layer, -0.009, 0.0156)

HALF = 0.5 * 768**-0.5  # exercise 5.2's answer: hidden states of std 2


def _measure_logit_std(d, weight_std, seed):
    """Exercise 5.2's worked answer."""
    g = torch.Generator().manual_seed(seed)
    table = torch.randn(1_000, d, generator=g) * weight_std
    hidden = torch.randn(512, d, generator=g)
    return (hidden @ table.T).std().item()

def test_logit_std_function_right(capsys):
    weight_std = 0.5 / _measure_logit_std(768, 1.0, seed=0)
    assert exercises.check_logit_std_function(_measure_logit_std, weight_std, HALF)
    out = capsys.readouterr().out
    assert out.startswith("correct: your prediction was right within 10%, measure_logit_std agrees")
    assert "0.018" not in out  # says what was checked, not the answer
    assert exercises.check_logit_std_function(_measure_logit_std, HALF, HALF)  # the formula's std passes too

    def hidden_first(d, weight_std, seed):  # another order of the draws is another, equally good, measurement
        g = torch.Generator().manual_seed(seed)
        hidden = torch.randn(512, d, generator=g)
        return torch.tensor((hidden @ (torch.randn(1_000, d, generator=g) * weight_std).T).std().item())

    assert exercises.check_logit_std_function(hidden_first, torch.tensor(HALF), HALF)  # 0-d: numbers

def test_logit_std_function_wrong():
    right = HALF

    def variance(d, weight_std, seed):
        return _measure_logit_std(d, weight_std, seed) ** 2

    def table_std(d, weight_std, seed):
        g = torch.Generator().manual_seed(seed)
        return (torch.randn(1_000, d, generator=g) * weight_std).std().item()

    def unseeded(d, weight_std, seed):
        return (torch.randn(512, d) @ (torch.randn(1_000, d) * weight_std).T).std().item()

    with pytest.raises(exercises.ExerciseError, match="the variance of the logits"):
        exercises.check_logit_std_function(variance, right, HALF)
    with pytest.raises(exercises.ExerciseError, match="the std of the table"):
        exercises.check_logit_std_function(table_std, right, HALF)
    with pytest.raises(exercises.ExerciseError, match="the same seed gave two different numbers"):
        exercises.check_logit_std_function(unseeded, right, HALF)
    with pytest.raises(exercises.ExerciseError, match=r"measured logits whose std is below 1") as error:
        exercises.check_logit_std_function(_measure_logit_std, 0.01, HALF)
    assert "0.55" not in str(error.value) and "0.018" not in str(error.value)  # a direction, never a value
    with pytest.raises(exercises.ExerciseError, match=r"measured logits whose std is above 1"):
        exercises.check_logit_std_function(_measure_logit_std, 1.0, HALF)
    with pytest.raises(exercises.ExerciseError, match=r"the variance is d \* std²"):
        exercises.check_logit_std_function(_measure_logit_std, 1 / 768, HALF)

def test_logit_std_function_typed():
    """A typed-in number cannot pass: the function is called at the checker's own sizes and seeds."""
    with pytest.raises(exercises.ExerciseError, match=r"measure_logit_std\(256, 0.1, seed=1\) returned 8") as error:
        exercises.check_logit_std_function(lambda d, weight_std, seed: 8.0, 0.0361, HALF)  # right at d = 64 only
    expected = _measure_logit_std(256, 0.1, 1)
    assert f"{expected:.4g}" not in str(error.value) and "1.6" not in str(error.value)  # never the expected std
    with pytest.raises(exercises.ExerciseError, match="computes a formula instead of measuring"):
        exercises.check_logit_std_function(lambda d, weight_std, seed: d**0.5 * weight_std, 0.0361, HALF)
    with pytest.raises(exercises.ExerciseError, match="pass your function itself"):
        exercises.check_logit_std_function(1.0, 0.0361, HALF)

def test_logit_std_function_bad_input():
    with pytest.raises(TypeError, match="measure_logit_std.* must be a number"):
        exercises.check_logit_std_function(lambda d, weight_std, seed: "27.7", 0.0361, HALF)
    with pytest.raises(TypeError, match="weight_std_for_unit_logits must be a number"):
        exercises.check_logit_std_function(_measure_logit_std, None, HALF)
    with pytest.raises(ValueError, match="weight_std_for_unit_logits must be a positive, finite number, got -0.036"):
        exercises.check_logit_std_function(_measure_logit_std, -0.036, HALF)

@pytest.mark.parametrize(("predicted_bound", "predicted_std", "hint"), [
    (11008**-0.5, (3 * 4096) ** -0.5, "that is 1/sqrt\\(out_features\\); nn.Linear's fan_in is in_features"),
    (0.02, (3 * 4096) ** -0.5, r"the bound is 1/sqrt\(fan_in\)"),
    (4096**-0.5, 4096**-0.5, "that is the bound itself"),
    (4096**-0.5, 0.02, r"the std of U\(-b, b\) is b/sqrt\(3\)"),
])
def test_linear_init_draw_wrong_predictions(predicted_bound, predicted_std, hint):
    layer = _drawn_linear(4096)
    with pytest.raises(exercises.ExerciseError, match=hint):
        exercises.check_linear_init_draw(predicted_bound, predicted_std, layer, layer.weight.std().item(),
                                         layer.weight.abs().max().item())


def test_logit_std_wrong_prediction():
    weight_std = 0.5 / _measure_logit_std(768, 1.0, seed=0)
    for wrong in (768**-0.5, 0.03, 1 / 768):  # the unit-variance answer, and two others
        with pytest.raises(exercises.ExerciseError, match="your prediction, .* does not give logits of std 1") as error:
            exercises.check_logit_std_function(_measure_logit_std, weight_std, wrong)
        assert f"{weight_std:.3g}" not in str(error.value)  # never the measured std


def _scaled(seed=0):
    """Exercise 5.3's worked answer: the default weight of nn.Linear(5000, 70), times sqrt(3 * 5000)."""
    torch.manual_seed(seed)
    return torch.nn.Linear(5000, 70, bias=False).weight.detach() * (3 * 5000) ** 0.5


def test_scaled_linear_right(capsys):
    assert exercises.check_scaled_linear(3**0.5, _scaled())
    out = capsys.readouterr().out
    assert out.startswith("correct: scaled has std 1") and "1.73" not in out  # what was checked, not the answer


@pytest.mark.parametrize(("predicted_max", "scaled", "hint"), [
    (4.7, _scaled(), "a uniform stays uniform"),  # as if it had become N(0, 1)
    (1.0, _scaled(), r"the std of U\(-c, c\) is c/sqrt\(3\)"),
    (3**0.5, _scaled() / 3**0.5, "not 1. Hint: divide the default weight by its std"),
    (3**0.5, torch.randn(70, 5000, generator=torch.Generator().manual_seed(0)), "not nn.Linear's uniform draw"),
    (3**0.5, _scaled().T, r"expected \(70, 5000\)"),
])
def test_scaled_linear_wrong(predicted_max, scaled, hint):
    with pytest.raises(exercises.ExerciseError, match=hint) as error:
        exercises.check_scaled_linear(predicted_max, scaled)
    assert "1.73" not in str(error.value)


def test_scaled_linear_bad_input():
    with pytest.raises(TypeError, match="scaled must be a float tensor"):
        exercises.check_scaled_linear(3**0.5, [1.0])
    with pytest.raises(TypeError, match="predicted_max must be a number"):
        exercises.check_scaled_linear("1.7", _scaled())


def test_checkers_leave_the_global_rng_alone(capsys):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    exercises.check_logit_std_function(_measure_logit_std, HALF, HALF)
    assert torch.equal(torch.rand(3), expected)
