"""Notebook 5's checkers accept a right answer and reject a wrong one with a hint."""


import pytest
import torch

from utils.exercises import nb05 as exercises


def _drawn_linear(in_features, out_features=256, seed=0):
    torch.manual_seed(seed)
    return torch.nn.Linear(in_features, out_features)

def test_linear_init_draw_right(capsys):
    layer = _drawn_linear(4096)
    std, largest = layer.weight.std().item(), layer.weight.abs().max().item()
    assert exercises.check_linear_init_draw(layer, std, largest)
    assert capsys.readouterr().out.startswith("correct: std 0.00902")
    assert exercises.check_linear_init_draw(layer, layer.weight.std(), layer.weight.abs().max())  # 0-d tensors
    narrow = _drawn_linear(4096, 64, seed=1)  # any out_features: only in_features sets the scale
    assert exercises.check_linear_init_draw(narrow, narrow.weight.std().item(), narrow.weight.abs().max().item())

def test_linear_init_draw_wrong():
    wrong_way = _drawn_linear(256, 4096)  # out_features = 4096: the fan_in is 256
    with pytest.raises(exercises.ExerciseError, match="in_features = 256.*keep in_features = 4096"):
        exercises.check_linear_init_draw(wrong_way, wrong_way.weight.std().item(), wrong_way.weight.abs().max().item())
    layer = _drawn_linear(4096)
    std, largest = layer.weight.std().item(), layer.weight.abs().max().item()
    with pytest.raises(exercises.ExerciseError, match=r"that is the formula's value.*layer.weight.std\(\)"):
        exercises.check_linear_init_draw(layer, (3 * 4096) ** -0.5, largest)
    with pytest.raises(exercises.ExerciseError, match=r"observed_max = 0.009021, but the largest \|w\| .* 0.01562"):
        exercises.check_linear_init_draw(layer, std, (3 * 4096) ** -0.5)
    renormalised = _drawn_linear(4096)
    with torch.no_grad():
        torch.nn.init.normal_(renormalised.weight, std=0.02)
    with pytest.raises(exercises.ExerciseError, match="not PyTorch's default initialisation"):
        exercises.check_linear_init_draw(renormalised, 0.02, 0.1)

def test_linear_init_draw_bad_input():
    layer = _drawn_linear(4096, 8)
    with pytest.raises(TypeError, match="layer must be the torch.nn.Linear you drew, got Embedding"):
        exercises.check_linear_init_draw(torch.nn.Embedding(4096, 8), 0.009, 0.0156)
    with pytest.raises(TypeError, match="observed_std must be a number"):
        exercises.check_linear_init_draw(layer, "0.009", 0.0156)
    with pytest.raises(TypeError, match="observed_max must be a number"):
        exercises.check_linear_init_draw(layer, 0.009, layer.weight)
    with pytest.raises(ValueError, match="positive, finite number, got -0.009"):
        exercises.check_linear_init_draw(layer, -0.009, 0.0156)

def test_tied_weight_std():
    assert exercises.check_tied_weight_std(768**-0.5)
    with pytest.raises(exercises.ExerciseError, match="with std 0.02 the logits have std 0.554"):
        exercises.check_tied_weight_std(0.02)
    with pytest.raises(exercises.ExerciseError, match=r"so std = 1/sqrt\(d\)"):
        exercises.check_tied_weight_std(1 / 768)
    with pytest.raises(exercises.ExerciseError, match="must be positive"):
        exercises.check_tied_weight_std(-0.036)
    with pytest.raises(exercises.ExerciseError, match="must be a number"):
        exercises.check_tied_weight_std(None)

def _gpt2_init(module):
    if isinstance(module, (torch.nn.Linear, torch.nn.Embedding)):
        torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
    if isinstance(module, torch.nn.Linear) and module.bias is not None:
        torch.nn.init.zeros_(module.bias)

def test_gpt2_init_right():
    assert exercises.check_gpt2_init(_gpt2_init)

def test_gpt2_init_wrong():
    def linear_only(module):
        if isinstance(module, torch.nn.Linear):
            _gpt2_init(module)

    def everything(module):
        for parameter in module.parameters(recurse=False):
            torch.nn.init.normal_(parameter, std=0.02)

    def keeps_bias(module):
        if isinstance(module, (torch.nn.Linear, torch.nn.Embedding)):
            torch.nn.init.normal_(module.weight, std=0.02)

    with pytest.raises(exercises.ExerciseError, match=r"nn.Embedding\(3000, 64\).weight has std 1.00"):
        exercises.check_gpt2_init(linear_only)
    with pytest.raises(exercises.ExerciseError, match="the LayerNorm changed"):
        exercises.check_gpt2_init(everything)
    with pytest.raises(exercises.ExerciseError, match=r"nn.Linear\(64, 256\).bias is not zero"):
        exercises.check_gpt2_init(keeps_bias)
    with pytest.raises(exercises.ExerciseError, match="pass your function itself"):
        exercises.check_gpt2_init(None)


def test_checkers_leave_the_global_rng_alone(capsys):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    exercises.check_gpt2_init(_gpt2_init)
    assert torch.equal(torch.rand(3), expected)
