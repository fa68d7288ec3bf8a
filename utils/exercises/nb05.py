"""Notebook 5, initialisation, in histograms: the checkers of its exercises."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..init_stats import compare, linear_bound, linear_init, linear_std, normal, tied_logit_std
from .checking import ExerciseError, as_number, correct

#: Exercise 5.1: the in_features (fan_in) of Llama's feed-forward up-projection, nn.Linear(4096, 11008)
LLAMA_UP_PROJECTION_IN = 4096


def _observed(name: str, value: object) -> float:
    value = as_number(name, value, "measured from layer.weight, e.g. with `.item()`")
    if not 0 < value < float("inf"):
        raise ValueError(f"{name} must be a positive, finite number, got {value}")
    return float(value)


def check_linear_init_draw(layer: torch.nn.Module, observed_std: float, observed_max: float) -> bool:
    """Exercise 5.1: a drawn ``nn.Linear`` with the scale of ``nn.Linear(4096, 11008)``, and its measured statistics.

    ``observed_std``: the std of ``layer.weight``; ``observed_max``: its largest ``|w|``. The layer must keep
    the up-projection's ``in_features`` (its fan_in) and PyTorch's default initialisation.
    ``TypeError``/``ValueError`` for arguments of the wrong kind.
    """
    if not isinstance(layer, torch.nn.Linear):
        raise TypeError(f"layer must be the torch.nn.Linear you drew, got {type(layer).__name__}")
    observed_std = _observed("observed_std", observed_std)
    observed_max = _observed("observed_max", observed_max)
    fan_in = LLAMA_UP_PROJECTION_IN
    bound, std = linear_bound(fan_in), linear_std(fan_in)
    if layer.in_features != fan_in:
        raise ExerciseError(
            f"your layer has in_features = {layer.in_features}: its weights are drawn with bound "
            f"1/sqrt({layer.in_features}), not Llama's. Hint: nn.Linear's fan_in is in_features; keep "
            f"in_features = {fan_in} and make out_features small, e.g. nn.Linear({fan_in}, 256)"
        )
    weight = layer.weight.detach()
    result = compare(weight, linear_init(fan_in))
    if not result.ok:
        largest = max(-result.min, result.max)
        raise ExerciseError(f"layer.weight has std {result.std:.6f} and largest |w| {largest:.6f}, not PyTorch's "
                            "default initialisation. Hint: draw a fresh nn.Linear and do not re-initialise it")
    actual_std, actual_max = float(weight.double().std()), float(weight.abs().max())
    if abs(observed_std - actual_std) > 1e-5 * actual_std:
        formula = " (that is the formula's value)" if abs(observed_std - std) < 1e-9 else ""
        raise ExerciseError(f"observed_std = {observed_std:.6f}{formula}, but your layer's weights have std "
                            f"{actual_std:.6f}. Hint: measure it, layer.weight.std().item()")
    if abs(observed_max - actual_max) > 1e-5 * actual_max:
        raise ExerciseError(f"observed_max = {observed_max:.6f}, but the largest |w| of your layer is "
                            f"{actual_max:.6f}. Hint: layer.weight.abs().max().item()")
    return correct(f"std {actual_std:.6f} (1/sqrt(3 * {fan_in}) = {std:.6f}), largest |w| {actual_max:.6f} "
                    f"(bound 1/sqrt({fan_in}) = {bound:.6f}): nn.Linear({fan_in}, 11008) draws from the same "
                    f"U(-{bound:.6f}, {bound:.6f})")


def check_tied_weight_std(weight_std: float) -> bool:
    """Exercise 5.2: the weight std that gives a tied output layer (d = 768) logits of std 1 at init."""
    if isinstance(weight_std, bool) or not isinstance(weight_std, (int, float)):
        raise ExerciseError(f"weight_std must be a number, got {type(weight_std).__name__}")
    expected = 768**-0.5
    if abs(weight_std - expected) <= 0.01 * expected:
        return correct(f"std {expected:.4f} = 1/sqrt(768): logits of std {tied_logit_std(768, expected):.2f}")
    if abs(weight_std - 1 / 768) < 1e-6:
        raise ExerciseError("1/768 makes the logits' variance 1/768. "
                            "Hint: the variance is d * std², so std = 1/sqrt(d)")
    if weight_std > 0:
        got = tied_logit_std(768, float(weight_std))
        raise ExerciseError(f"with std {weight_std:g} the logits have std {got:.3f}, not 1. "
                            "Hint: logit std = sqrt(d) * weight std * hidden std")
    raise ExerciseError(f"weight_std must be positive, got {weight_std}")


def check_gpt2_init(init_fn: Callable[[torch.nn.Module], None]) -> bool:
    """Exercise 5.3: ``model.apply(init_fn)`` gives GPT-2's init.

    Every ``nn.Linear`` and ``nn.Embedding`` weight N(0, 0.02), Linear biases zero, other modules untouched.
    """
    if not callable(init_fn):
        raise ExerciseError(f"pass your function itself, not its result; got {type(init_fn).__name__}")
    with torch.random.fork_rng(devices=[]):  # seed a copy of the global RNG; the learner's stream is left alone
        torch.manual_seed(0)
        model = torch.nn.Sequential(
            torch.nn.Embedding(3000, 64), torch.nn.LayerNorm(64), torch.nn.Linear(64, 256), torch.nn.Linear(256, 64),
        )
        model.apply(init_fn)
    layer_norm = model[1]
    if not (torch.equal(layer_norm.weight, torch.ones(64)) and torch.equal(layer_norm.bias, torch.zeros(64))):
        raise ExerciseError("the LayerNorm changed. Hint: re-initialise only nn.Linear and nn.Embedding modules")
    for name, module in (("nn.Embedding(3000, 64)", model[0]), ("nn.Linear(64, 256)", model[2]),
                         ("nn.Linear(256, 64)", model[3])):
        result = compare(module.weight, normal(0.02))
        if not result.ok:
            raise ExerciseError(f"{name}.weight has std {result.std:.4f} and mean {result.mean:+.4f}; expected "
                                "N(0, 0.02). Hint: torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)")
        if isinstance(module, torch.nn.Linear) and not bool((module.bias == 0).all()):
            raise ExerciseError(f"{name}.bias is not zero. Hint: torch.nn.init.zeros_(module.bias)")
    return correct("every Linear and Embedding weight ~ N(0, 0.02), biases 0, LayerNorm untouched")
