"""Notebook 5, initialisation, in histograms: the checkers of its exercises."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from ..checks import check_positive
from ..init_stats import compare, linear_bound, linear_init, linear_std, tied_logit_std
from .checking import as_number, correct, hint, require, require_function, within

#: Exercise 5.1: the in_features (fan_in) of Llama's feed-forward up-projection, nn.Linear(4096, 11008)
LLAMA_UP_PROJECTION_IN = 4096
MEASURED = "measured from layer.weight, e.g. with `.item()`"
PREDICTED = "your prediction, a number"


def _positive(name: str, value: object, what: str) -> float:
    """``value`` as a positive, finite float (a tensor of one element is taken too); a prediction still ``None`` is
    refused with one line asking for it."""
    require(value is not None or not name.startswith("predicted"),
            f"record your prediction in {name} first (the cell above still holds None)")
    return check_positive(name, as_number(name, value, what))


def check_linear_init_draw(predicted_bound: float, predicted_std: float, layer: torch.nn.Module,
                           observed_std: float, observed_max: float) -> bool:
    """Exercise 5.1: the predicted bound and std of ``nn.Linear(4096, 11008)``, then a drawn ``nn.Linear`` with
    its scale and its measured statistics.

    ``observed_std``: the std of ``layer.weight``; ``observed_max``: its largest ``|w|``. The layer must keep
    the up-projection's ``in_features`` (its fan_in) and PyTorch's default initialisation; the predictions must
    match the formulas within 1%. ``TypeError``/``ValueError`` for arguments of the wrong kind.
    """
    predicted_bound = _positive("predicted_bound", predicted_bound, PREDICTED)
    predicted_std = _positive("predicted_std", predicted_std, PREDICTED)
    if not isinstance(layer, torch.nn.Linear):
        raise TypeError(f"layer must be the torch.nn.Linear you drew, got {type(layer).__name__}")
    observed_std = _positive("observed_std", observed_std, MEASURED)
    observed_max = _positive("observed_max", observed_max, MEASURED)
    fan_in = LLAMA_UP_PROJECTION_IN
    require(layer.in_features == fan_in, f"your layer has in_features = {layer.in_features}: its weights are drawn "
            f"with bound 1/sqrt({layer.in_features}), not Llama's. Hint: nn.Linear's fan_in is in_features; keep "
            f"in_features = {fan_in} and make out_features small, e.g. nn.Linear({fan_in}, 256)")
    weight = layer.weight.detach()
    result = compare(weight, linear_init(fan_in))
    require(result.ok, f"layer.weight has std {result.std:.6f} and largest |w| {max(-result.min, result.max):.6f}, "
            "not PyTorch's default initialisation. Hint: draw a fresh nn.Linear and do not re-initialise it")
    formula = " (that is the formula's value)" if abs(observed_std - linear_std(fan_in)) < 1e-9 else ""
    require(within(observed_std, float(weight.double().std()), 1e-5),
            f"observed_std = {observed_std:.6f}{formula}, but that is not the std of your layer's weights. Hint: "
            "measure it, layer.weight.std().item()")
    require(within(observed_max, float(weight.abs().max()), 1e-5), f"observed_max = {observed_max:.6f}, but that is "
            "not the largest |w| of your layer. Hint: layer.weight.abs().max().item()")
    bound = linear_bound(fan_in)
    why = ("that is 1/sqrt(out_features); nn.Linear's fan_in is in_features, the number of inputs each output sums"
           if within(predicted_bound, linear_bound(11008), 0.01) else
           "the bound is 1/sqrt(fan_in), with fan_in = in_features")
    require(within(predicted_bound, bound, 0.01), f"your predicted_bound, {predicted_bound:.6g}, is not the bound of "
            f"nn.Linear(4096, 11008)'s draw. Hint: {why}")
    why = ("that is the bound itself; the std of U(-b, b) is smaller" if within(predicted_std, bound, 0.01)
           else "the std of U(-b, b) is b/sqrt(3)")
    require(within(predicted_std, linear_std(fan_in), 0.01),
            f"your predicted_std, {predicted_std:.6g}, is not the std of that draw. Hint: {why}")
    return correct("your layer keeps the right fan_in and PyTorch's default draw, your two measurements are its "
                   "weight's std and largest |w|, and your two predictions match the formulas within 1%")


#: Exercise 5.2: the sizes, weight stds and seeds at which the checker calls the learner's function
LOGIT_STD_CASES = ((64, 1.0, 0), (256, 0.1, 1), (768, 0.02, 2))
#: how far a measured logit std may be from the checker's own measurement and from sqrt(d) * weight_std
LOGIT_STD_TOLERANCE = 0.03
#: Exercise 5.2: the std of the hidden states (a final LayerNorm with gain 2) at which the logits must have std 1
HIDDEN_STD = 2.0


def _measured_logit_std(d: int, weight_std: float, seed: int) -> float:
    """Exercise 5.2, measured by the checker: a tied table ``[1000, d]`` from N(0, weight_std²), then 512
    unit-variance hidden states, both from one generator seeded with ``seed``; the std of ``h @ table.T``."""
    generator = torch.Generator().manual_seed(seed)
    table = torch.randn(1_000, d, generator=generator, dtype=torch.float64) * weight_std
    hidden = torch.randn(512, d, generator=generator, dtype=torch.float64)
    return float((hidden @ table.T).std())


def check_logit_std_prediction(predicted_weight_std: float) -> bool:
    """Exercise 5.2's prediction, recorded before anything is measured: the weight std that gives logits of
    std 1 at ``d = 768`` for hidden states of std 2. Only its kind is checked here (a positive number);
    :func:`check_logit_std_function`, after the measurement, holds it to the answer."""
    _positive("predicted_weight_std", predicted_weight_std, "your prediction, a std")
    print("recorded: your prediction; the measurement below will tell whether it holds")
    return True


def check_logit_std_function(measure_logit_std: Callable[[int, float, int], float],
                             weight_std_for_unit_logits: float, predicted_weight_std: float) -> bool:
    """Exercise 5.2: ``predicted_weight_std``, then ``measure_logit_std(d, weight_std, seed)`` measures the std of
    a tied layer's logits (unit-variance hidden states), and ``weight_std_for_unit_logits`` gives logits of
    std 1 at ``d = 768`` for hidden states of std ``HIDDEN_STD`` = 2.

    The prediction is checked first, against ``1 / (2 * sqrt(768))``, within 10%.
    The checker calls the function at sizes of its own (``LOGIT_STD_CASES``) and compares with its own
    measurement and with ``sqrt(d) * weight_std``; it requires the same seed to give the same number and
    another seed another number (a measurement, not a formula); then it measures the logits that
    ``weight_std_for_unit_logits`` gives at ``d = 768`` itself. ``TypeError``/``ValueError`` for arguments
    of the wrong kind.
    """
    require_function("measure_logit_std", measure_logit_std)
    predicted = _positive("predicted_weight_std", predicted_weight_std, "your prediction, a std")
    why = ("that is the std for hidden states of std 1; these have std 2, and each logit is linear in h too"
           if within(predicted * math.sqrt(768), 1, 0.1) else
           "each logit sums d products of an h of std 2 and a weight of std std(W)")
    require(within(predicted, 1 / tied_logit_std(768, 1.0, HIDDEN_STD), 0.1),  # the prediction first
            f"your prediction, {predicted:.4g}, does not give logits of std 1. Hint: {why}")
    for d, weight_std, seed in LOGIT_STD_CASES:
        got = as_number("measure_logit_std(...)", measure_logit_std(d, weight_std, seed), "a std, e.g. `.item()`")
        own, formula = _measured_logit_std(d, weight_std, seed), tied_logit_std(d, weight_std)
        call = f"measure_logit_std({d}, {weight_std}, seed={seed}) returned {got:.4g}"
        require(within(got, own, LOGIT_STD_TOLERANCE) and within(got, formula, LOGIT_STD_TOLERANCE), hint([
            (got > 0 and within(got, own**2, LOGIT_STD_TOLERANCE),
             f"{call}, the variance of the logits. Hint: return their std"),
            (got > 0 and within(got, weight_std, LOGIT_STD_TOLERANCE),
             f"{call}, the std of the table. Hint: return the std of the logits, hidden @ table.T"),
        ], f"{call}, far from the std of the logits that the checker measured with the same draws. Hint: draw the "
           "table [1000, d] times weight_std and 512 hidden states (512, d) from one generator, then take "
           "(hidden @ table.T).std()"))
    first, again, other = (measure_logit_std(64, 1.0, seed) for seed in (5, 5, 6))
    require(first == again, "the same seed gave two different numbers. Hint: draw everything from "
            "g = torch.Generator().manual_seed(seed), passing generator=g to each draw")
    require(first != other, "seeds 5 and 6 gave the same number: the function computes a formula instead of "
            "measuring. Hint: draw the table and the hidden states, and measure the logits' std")
    weight_std = _positive("weight_std_for_unit_logits", weight_std_for_unit_logits, "a std")
    measured = HIDDEN_STD * _measured_logit_std(768, weight_std, 3)  # hidden states of std 2: twice the logits
    require(abs(measured - 1) <= LOGIT_STD_TOLERANCE, hint([
        (abs(weight_std - 1 / 768) < 1e-6, "1/768 divides by d where a square root belongs. Hint: the variance is "
         "d * std², times the hidden states' variance, so the std of the logits is sqrt(d) * std * std(h)")],
        f"with weight std {weight_std:.4g} the checker measured logits whose std is "
        f"{'above' if measured > 1 else 'below'} 1. Hint: the logits' std is proportional to the weight std and to "
        "the hidden states' std; measure it at one weight std and scale"))
    return correct("your prediction was right within 10%, measure_logit_std agrees with the checker's own "
                   "measurements at 3 sizes and changes with the seed, and your weight std gives logits of "
                   "std 1 at d = 768 for hidden states of std 2 in the checker's measurement")


#: Exercise 5.3: the default nn.Linear(V, d) whose weight the learner scales to std 1
SCALED_SHAPE = (70, 5000)


def check_scaled_linear(predicted_max: float, scaled: torch.Tensor) -> bool:
    """Exercise 5.3: the default weight of ``nn.Linear(5000, 70)`` multiplied to std 1, and the largest ``|w|``
    predicted for it before the scaling.

    ``scaled`` must have std 1 (within 1%) and still be nn.Linear's uniform draw, scaled: every ``|w|`` within
    the scaled bound and the largest close to it; ``predicted_max`` must be within 5% of that bound.
    """
    predicted_max = _positive("predicted_max", predicted_max, PREDICTED)
    if not isinstance(scaled, torch.Tensor) or not scaled.is_floating_point():
        raise TypeError(f"scaled must be a float tensor (the scaled weight), got {type(scaled).__name__}")
    require(tuple(scaled.shape) == SCALED_SHAPE, f"scaled has shape {tuple(scaled.shape)}, expected {SCALED_SHAPE}: "
            "the weight of nn.Linear(5000, 70), [out_features, in_features]")
    scaled = scaled.detach().double().cpu()
    std = float(scaled.std())
    require(abs(std - 1) <= 0.01, f"scaled has std {std:.4g}, not 1. Hint: divide the default weight by its std, "
            "1/sqrt(3 * fan_in), i.e. multiply it by sqrt(3 * fan_in)")
    bound = math.sqrt(3)  # U(-b, b) scaled to std 1: b / std(U(-b, b)) = sqrt(3)
    require(bound * (1 - 1e-3) < float(scaled.abs().max()) <= bound * (1 + 1e-5), "scaled has std 1 but is not "
            "nn.Linear's uniform draw, scaled. Hint: multiply the default weight by one number; do not draw it again")
    why = ("scaling every weight by one number keeps the shape of the distribution: a uniform stays uniform, and "
           "nothing lies beyond its bound" if predicted_max > bound else
           "the std of U(-c, c) is c/sqrt(3), so a uniform of std 1 reaches further than 1")
    require(within(predicted_max, bound, 0.05),
            f"your predicted_max, {predicted_max:.4g}, is not the largest |w| of scaled. Hint: {why}")
    return correct("scaled has std 1 within 1% and is still nn.Linear's uniform draw, and your predicted largest "
                   "|w| matches it within 5%")
