"""Notebook 5, initialisation, in histograms: the checkers of its exercises."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..checks import check_positive
from ..init_stats import compare, linear_init, linear_std, normal, tied_logit_std
from .checking import ExerciseError, as_number, correct, require_function

#: Exercise 5.1: the in_features (fan_in) of Llama's feed-forward up-projection, nn.Linear(4096, 11008)
LLAMA_UP_PROJECTION_IN = 4096


MEASURED = "measured from layer.weight, e.g. with `.item()`"


def _positive(name: str, value: object, what: str) -> float:
    """``value`` as a positive, finite float (a tensor of one element is taken too)."""
    return check_positive(name, as_number(name, value, what))


def check_linear_init_draw(layer: torch.nn.Module, observed_std: float, observed_max: float) -> bool:
    """Exercise 5.1: a drawn ``nn.Linear`` with the scale of ``nn.Linear(4096, 11008)``, and its measured statistics.

    ``observed_std``: the std of ``layer.weight``; ``observed_max``: its largest ``|w|``. The layer must keep
    the up-projection's ``in_features`` (its fan_in) and PyTorch's default initialisation.
    ``TypeError``/``ValueError`` for arguments of the wrong kind.
    """
    if not isinstance(layer, torch.nn.Linear):
        raise TypeError(f"layer must be the torch.nn.Linear you drew, got {type(layer).__name__}")
    observed_std = _positive("observed_std", observed_std, MEASURED)
    observed_max = _positive("observed_max", observed_max, MEASURED)
    fan_in = LLAMA_UP_PROJECTION_IN
    std = linear_std(fan_in)
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
        raise ExerciseError(f"observed_std = {observed_std:.6f}{formula}, but that is not the std of your layer's "
                            "weights. Hint: measure it, layer.weight.std().item()")
    if abs(observed_max - actual_max) > 1e-5 * actual_max:
        raise ExerciseError(f"observed_max = {observed_max:.6f}, but that is not the largest |w| of your layer. "
                            "Hint: layer.weight.abs().max().item()")
    return correct("layer keeps fan_in = 4096 and PyTorch's default draw, and your two numbers are its weight's "
                   "std and largest |w|")


#: Exercise 5.2: the sizes, weight stds and seeds at which the checker calls the learner's function
LOGIT_STD_CASES = ((64, 1.0, 0), (256, 0.1, 1), (768, 0.02, 2))
#: how far a measured logit std may be from the checker's own measurement and from sqrt(d) * weight_std
LOGIT_STD_TOLERANCE = 0.03


def _measured_logit_std(d: int, weight_std: float, seed: int) -> float:
    """Exercise 5.2, measured by the checker: a tied table ``[1000, d]`` from N(0, weight_std²), then 512
    unit-variance hidden states, both from one generator seeded with ``seed``; the std of ``h @ table.T``."""
    generator = torch.Generator().manual_seed(seed)
    table = torch.randn(1_000, d, generator=generator, dtype=torch.float64) * weight_std
    hidden = torch.randn(512, d, generator=generator, dtype=torch.float64)
    return float((hidden @ table.T).std())


def _close(got: float, expected: float) -> bool:
    return abs(got / expected - 1) <= LOGIT_STD_TOLERANCE


def check_logit_std_function(measure_logit_std: Callable[[int, float, int], float],
                             weight_std_for_unit_logits: float) -> bool:
    """Exercise 5.2: ``measure_logit_std(d, weight_std, seed)`` measures the std of a tied layer's logits,
    and ``weight_std_for_unit_logits`` gives logits of std 1 at ``d = 768``.

    The checker calls the function at sizes of its own (``LOGIT_STD_CASES``) and compares with its own
    measurement and with ``sqrt(d) * weight_std``; it requires the same seed to give the same number and
    another seed another number (a measurement, not a formula); then it measures the logits that
    ``weight_std_for_unit_logits`` gives at ``d = 768`` itself. ``TypeError``/``ValueError`` for arguments
    of the wrong kind.
    """
    require_function("measure_logit_std", measure_logit_std)
    for d, weight_std, seed in LOGIT_STD_CASES:
        got = as_number("measure_logit_std(...)", measure_logit_std(d, weight_std, seed), "a std, e.g. `.item()`")
        own, formula = _measured_logit_std(d, weight_std, seed), tied_logit_std(d, weight_std)
        if _close(got, own) and _close(got, formula):
            continue
        call = f"measure_logit_std({d}, {weight_std}, seed={seed})"
        if got > 0 and _close(got, own**2):
            raise ExerciseError(f"{call} returned {got:.4g}, the variance of the logits. Hint: return their std")
        if got > 0 and _close(got, weight_std):
            raise ExerciseError(f"{call} returned {got:.4g}, the std of the table. Hint: return the std of the "
                                "logits, hidden @ table.T")
        raise ExerciseError(f"{call} returned {got:.4g}, far from the std of the logits that the checker measured "
                            "with the same draws. Hint: draw the table [1000, d] times weight_std and 512 hidden "
                            "states (512, d) from one generator, then take (hidden @ table.T).std()")
    first, again, other = (measure_logit_std(64, 1.0, seed) for seed in (5, 5, 6))
    if first != again:
        raise ExerciseError("the same seed gave two different numbers. Hint: draw everything from "
                            "g = torch.Generator().manual_seed(seed), passing generator=g to each draw")
    if first == other:
        raise ExerciseError("seeds 5 and 6 gave the same number: the function computes a formula instead of "
                            "measuring. Hint: draw the table and the hidden states, and measure the logits' std")
    weight_std = _positive("weight_std_for_unit_logits", weight_std_for_unit_logits, "a std")
    measured = _measured_logit_std(768, weight_std, 3)
    if abs(measured - 1) <= LOGIT_STD_TOLERANCE:
        return correct("measure_logit_std agrees with the checker's own measurements at 3 sizes and changes with "
                       "the seed, and your weight std gives logits of std 1 at d = 768 in the checker's measurement")
    if abs(weight_std - 1 / 768) < 1e-6:
        raise ExerciseError("1/768 makes the logits' variance 1/768. Hint: the variance is d * std², so the "
                            "std of the logits is sqrt(d) * std")
    direction = "above" if measured > 1 else "below"
    raise ExerciseError(f"with weight std {weight_std:.4g} the checker measured logits whose std is {direction} 1. "
                        "Hint: the logits' std is proportional to the weight std; measure it at one weight std "
                        "and scale")


def check_gpt2_init(init_fn: Callable[[torch.nn.Module], None]) -> bool:
    """Exercise 5.3: ``model.apply(init_fn)`` gives GPT-2's init.

    Every ``nn.Linear`` and ``nn.Embedding`` weight N(0, 0.02), Linear biases zero, other modules untouched.
    """
    require_function("gpt2_init", init_fn)
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
    return correct("on the checker's model, every Linear and Embedding weight is N(0, 0.02²) within 5 standard "
                   "errors, every Linear bias is 0, and the LayerNorm is untouched")
