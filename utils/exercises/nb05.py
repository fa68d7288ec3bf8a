"""Notebook 5, scale at initialisation: the checkers of its exercises."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from ..checks import check_positive
from ..init_stats import tied_logit_std
from ..language import N_, _
from .checking import (
    AnswerTypeError,
    answered,
    as_number,
    correct,
    hint,
    one_of,
    require,
    require_function,
    within,
    writes,
)

#: Exercise 5.1: Hugging Face's Llama draws every nn.Linear from N(0, LLAMA_STD²) (its config's initializer_range)
LLAMA_STD = 0.02
#: Exercise 5.1: the in_features (fan_in) of Llama 2 7B's up-projection and down-projection
LLAMA_UP_IN, LLAMA_DOWN_IN = 4096, 11008
#: Exercise 5.1: the sizes, weight stds and seeds at which the checker calls the learner's function
OUTPUT_VARIANCE_CASES = ((LLAMA_UP_IN, LLAMA_STD, 0), (LLAMA_DOWN_IN, LLAMA_STD, 1), (1000, 0.05, 2))
#: how far a measured output variance may be from the checker's own measurement and from fan_in * weight_std²
OUTPUT_VARIANCE_TOLERANCE = 0.05
#: Exercise 5.1: the in_features at which N(0, LLAMA_STD²) keeps the variance at 1: in_features * 0.02² = 1
UNIT_IN_FEATURES = round(1 / LLAMA_STD**2)
PREDICTED = N_("your prediction, a number")
#: Section 7's prediction: the loss of an untrained tied layer of std 1, at GPT-2's sizes, as a multiple of ln V,
#: chosen among these. Reasoned from the largest logit, about 4.25 * sqrt(768) ≈ 118 nats, it is 10.9 (the cruder
#: sqrt(768) * sqrt(2 ln V) gives 11.9). The notebook's run gives 10.5; seeds 0 to 199 of its draws give 9.7 to 12.6.
LOSS_OVER_LN_V_CHOICES = (1, 2, 5, 10, 20)
LOSS_OVER_LN_V = 10


def _positive(name: str, value: object, what: str) -> float:
    """``value`` as a positive, finite float (a tensor of one element is taken too)."""
    return check_positive(name, as_number(name, value, what))


def _measured_output_variance(in_features: int, weight_std: float, seed: int) -> float:
    """Exercise 5.1, measured by the checker: a weight ``[256, in_features]`` from N(0, weight_std²), then 256
    inputs of variance 1, both from one generator seeded with ``seed``; the variance of ``inputs @ weight.T``."""
    generator = torch.Generator().manual_seed(seed)
    weight = torch.randn(256, in_features, generator=generator, dtype=torch.float64) * weight_std
    inputs = torch.randn(256, in_features, generator=generator, dtype=torch.float64)
    return float((inputs @ weight.T).var())


def _predicted_variance_hint(predicted: float, fan_in: int, other_fan_in: int) -> str:
    """The hint for a prediction of Exercise 5.1 that is not ``fan_in * 0.02²``: the likeliest mistake, named."""
    return hint([
        (within(predicted, other_fan_in * LLAMA_STD**2, 0.02), _("that uses the other layer's size. Hint: each "
                                                                  "output sums in_features products; out_features "
                                                                  "only says how many outputs there are")),
        (within(predicted, 1 / 3, 0.02), _("that is PyTorch's default, variance factor 1/3, which Llama replaces. "
                                            "Hint: each output sums fan_in products of variance std(W)² times the "
                                            "input's variance")),
        (within(predicted, math.sqrt(fan_in) * LLAMA_STD, 0.02), _("that is the outputs' std. Hint: square it")),
        (within(predicted, LLAMA_STD**2, 0.02) or within(predicted, LLAMA_STD, 0.02),
         _("that is one product's. Hint: each output sums fan_in of them")),
    ], _("Hint: each output sums fan_in = {fan_in} products of a weight of std {llama_std} and an input of "
          "variance 1").format(fan_in=fan_in, llama_std=LLAMA_STD))


def check_llama_predictions(predicted_up: float, predicted_down: float, unit_in_features: float) -> None:
    """Exercise 5.1's predictions, judged at once, for Llama 2 7B's feed-forward block drawn from N(0, 0.02²) and
    inputs of variance 1: the output variance of the up-projection ``nn.Linear(4096, 11008)``, the variance after
    the down-projection ``nn.Linear(11008, 4096)`` fed those outputs (gate and activation left out), and the
    ``in_features`` at which that draw keeps the variance at 1.

    The first must be ``4096 * 0.02²``, the second that times ``11008 * 0.02²`` (each layer multiplies the variance
    by its fan_in · std²), the third ``1 / 0.02²``, each within 2%. While a guess is still ``None`` it judges
    nothing (one line says so). ``TypeError``/``ValueError`` for arguments of the wrong kind.
    """
    if not answered(predicted_up=predicted_up, predicted_down=predicted_down, unit_in_features=unit_in_features):
        return
    up_gain, down_gain = LLAMA_UP_IN * LLAMA_STD**2, LLAMA_DOWN_IN * LLAMA_STD**2  # what each layer multiplies by
    predicted = _positive("predicted_up", predicted_up, _(PREDICTED))
    require(within(predicted, up_gain, 0.02),
            _("your {name}, {predicted:.4g}, is not the variance of that layer's outputs. {hint}").format(
                name="predicted_up", predicted=predicted,
                hint=_predicted_variance_hint(predicted, LLAMA_UP_IN, LLAMA_DOWN_IN)))
    predicted = _positive("predicted_down", predicted_down, _(PREDICTED))
    require(within(predicted, up_gain * down_gain, 0.02),
            _("your {name}, {predicted:.4g}, is not the variance after both layers. {hint}").format(
                name="predicted_down", predicted=predicted, hint=hint([
                    (within(predicted, down_gain, 0.02),
                     _("Hint: that is the down-projection fed inputs of variance 1; here it is fed the "
                       "up-projection's outputs")),
                    (within(predicted, up_gain + down_gain, 0.02),
                     _("Hint: a layer multiplies its input's variance by fan_in · 0.02²; it does not add to it")),
                ], _("Hint: the down-projection multiplies the variance of what it is fed by fan_in · 0.02², "
                     "with fan_in = {fan_in}").format(fan_in=LLAMA_DOWN_IN))))
    unit = _positive("unit_in_features", unit_in_features, _("a number of input features"))
    require(within(unit, UNIT_IN_FEATURES, 0.02), _("your unit_in_features, {unit:.4g}, does not keep the "
                                                     "variance at 1. ").format(unit=unit) + hint([
                (within(unit, 1 / LLAMA_STD, 0.02), _("Hint: that makes in_features · 0.02 equal 1; the variance is "
                                                       "in_features times the square of the std")),
                (within(unit, 1 / LLAMA_STD**2 / 3, 0.02) or within(unit, 3 / LLAMA_STD**2, 0.02),
                 _("Hint: Llama's draw is N(0, 0.02²), not the uniform default; no factor 3")),
            ], _("Hint: the output variance is in_features · 0.02² times the input's; set it to 1")))
    return correct(_("your output variances, after the up-projection and after both layers, and your in_features "
                     "for variance 1 are right within 2%"))


@writes("output_variance")
def check_output_variance(output_variance: Callable[[int, float, int], float]) -> None:
    """Exercise 5.1, measured: ``output_variance(in_features, weight_std, seed)`` measures the variance of the
    outputs of a layer with 256 outputs, its weight from N(0, weight_std²), for inputs of variance 1.

    The checker calls the function at sizes of its own (``OUTPUT_VARIANCE_CASES``) and compares with its own
    measurement and with ``in_features * weight_std²``; it requires the same seed to give the same number and
    another seed another number (a measurement, not a formula). The learner's function runs with the global
    random state saved and restored (``nn.Linear`` draws its default weight from it). ``TypeError`` for a result
    that is not a number.
    """
    require_function("output_variance", output_variance)
    with torch.random.fork_rng(devices=[]):
        for in_features, weight_std, seed in OUTPUT_VARIANCE_CASES:
            got = as_number("output_variance(...)", output_variance(in_features, weight_std, seed),
                            _("a variance, e.g. `.item()`"))
            own, formula = _measured_output_variance(in_features, weight_std, seed), in_features * weight_std**2
            call = _("output_variance({in_features}, {weight_std}, seed={seed}) returned {got:.4g}").format(
                       in_features=in_features, weight_std=weight_std, seed=seed, got=got)
            require(within(got, own, OUTPUT_VARIANCE_TOLERANCE) and within(got, formula, OUTPUT_VARIANCE_TOLERANCE),
                    hint([
                        (got > 0 and within(got**2, own, OUTPUT_VARIANCE_TOLERANCE),
                         _("{call}, the std of the outputs. Hint: return their variance, .var()").format(call=call)),
                        (within(got, 1 / 3, OUTPUT_VARIANCE_TOLERANCE), _("{call}, the variance of "
                                                                           "PyTorch's default layer. Hint: "
                                                                           "re-draw its weight with "
                                                                           "nn.init.normal_(layer.weight, "
                                                                           "std=weight_std, ...)").format(call=call)),
                        (within(got, weight_std**2, OUTPUT_VARIANCE_TOLERANCE),
                         _("{call}, the variance of the weights. Hint: return the variance of the layer's "
                            "outputs").format(call=call)),
                    ], _("{call}, far from the variance of the outputs that the checker measured. Hint: "
                          "draw the weight and 256 inputs (256, in_features) from one generator, then take "
                          "layer(inputs).var()").format(call=call)))
        first, again, other = (output_variance(1000, 0.05, seed) for seed in (5, 5, 6))
    require(first == again, _("the same seed gave two different numbers. Hint: draw everything from g = "
                               "torch.Generator().manual_seed(seed), passing generator=g to each draw"))
    require(first != other, _("seeds 5 and 6 gave the same number: the function computes a formula instead of "
                               "measuring. Hint: draw the weight and the inputs, and measure the outputs' variance"))
    return correct(_("output_variance agrees with the checker's own measurements at 3 sizes and changes with the "
                      "seed"))


#: Exercise 5.2: the sizes, weight stds, LayerNorm scales and seeds at which the checker calls the learner's function
LOGIT_STD_CASES = ((64, 1.0, 1.0, 0), (256, 0.1, 2.0, 1), (768, 0.02, 0.5, 2))
#: how far a measured logit std may be from the checker's own measurement and from sqrt(d) * weight_std * gain
LOGIT_STD_TOLERANCE = 0.03
#: Exercise 5.2: the scale (weight) of the final LayerNorm at which the logits must have std 1
SCALE = 2.0
#: Exercise 5.2: the vectors reaching the LayerNorm have this std around this mean
ARRIVING_STD, ARRIVING_MEAN = 3.0, 1.0


def _measured_logit_std(d: int, weight_std: float, scale: float, seed: int) -> float:
    """Exercise 5.2, measured by the checker: a tied table ``[1000, d]`` from N(0, weight_std²), then 512 vectors
    ``3 * N(0, 1) + 1``, both from one generator seeded with ``seed``; the vectors through a LayerNorm with scale
    ``scale`` give the hidden states ``h``; the std of ``h @ table.T``."""
    generator = torch.Generator().manual_seed(seed)
    table = torch.randn(1_000, d, generator=generator, dtype=torch.float64) * weight_std
    arriving = ARRIVING_STD * torch.randn(512, d, generator=generator, dtype=torch.float64) + ARRIVING_MEAN
    hidden = scale * torch.nn.functional.layer_norm(arriving, (d,))
    return float((hidden @ table.T).std())


def check_logit_std_prediction(predicted_weight_std: float) -> None:
    """Exercise 5.2's prediction, judged at once: the weight std that gives logits of std 1 at ``d = 768`` behind a
    final LayerNorm with scale 2, for vectors that reach it with std 3 around a mean of 1: ``1 / (2 * sqrt(768))``
    within 10%. While the guess is still ``None`` it judges nothing (one line says so). ``TypeError``/``ValueError``
    for a guess that is not a positive number.
    """
    if not answered(predicted_weight_std=predicted_weight_std):
        return
    predicted = _positive("predicted_weight_std", predicted_weight_std, _("your prediction, a std"))
    why = hint([
        (within(predicted * math.sqrt(768), 1, 0.1),
         _("that is the std for hidden states of std 1; the scale 2 doubles them, and each logit is linear in h")),
        (within(predicted * math.sqrt(768) * SCALE * ARRIVING_STD, 1, 0.1)
         or within(predicted * math.sqrt(768) * ARRIVING_STD, 1, 0.1),
         _("the LayerNorm divides each vector by its own std: whatever reaches it leaves with std 1, times the scale")),
    ], _("each logit sums d products of a hidden state's entry and a weight of std std(W)"))
    require(within(predicted, 1 / tied_logit_std(768, 1.0, SCALE), 0.1),
            _("your prediction, {predicted:.4g}, does not give logits of std 1. Hint: {why}").format(
                predicted=predicted, why=why))
    return correct(_("your weight std gives logits of std 1 within 10%"))


@writes("measure_logit_std")
def check_logit_std_function(measure_logit_std: Callable[[int, float, float, int], float],
                             weight_std_for_unit_logits: float) -> None:
    """Exercise 5.2, measured: ``measure_logit_std(d, weight_std, scale, seed)`` measures the std of a tied layer's
    logits for hidden states that come out of a LayerNorm with scale ``scale``, and ``weight_std_for_unit_logits``
    gives logits of std 1 at ``d = 768`` behind a LayerNorm with scale ``SCALE`` = 2.

    The checker calls the function at sizes of its own (``LOGIT_STD_CASES``) and compares with its own
    measurement and with ``sqrt(d) * weight_std * gain``; it requires the same seed to give the same number and
    another seed another number (a measurement, not a formula); then it measures the logits that
    ``weight_std_for_unit_logits`` gives at ``d = 768`` and gain 2 itself. ``TypeError``/``ValueError`` for
    arguments of the wrong kind.
    """
    require_function("measure_logit_std", measure_logit_std)
    for d, weight_std, scale, seed in LOGIT_STD_CASES:
        got = as_number("measure_logit_std(...)", measure_logit_std(d, weight_std, scale, seed),
                        _("a std, e.g. `.item()`"))
        own, formula = _measured_logit_std(d, weight_std, scale, seed), tied_logit_std(d, weight_std, scale)
        call = _("measure_logit_std({d}, {weight_std}, {scale}, seed={seed}) returned {got:.4g}").format(
                   d=d, weight_std=weight_std, scale=scale, seed=seed, got=got)
        unnormalised = tied_logit_std(d, weight_std, math.hypot(ARRIVING_STD, ARRIVING_MEAN))
        require(within(got, own, LOGIT_STD_TOLERANCE) and within(got, formula, LOGIT_STD_TOLERANCE), hint([
            (got > 0 and within(got, own**2, LOGIT_STD_TOLERANCE),
             _("{call}, the variance of the logits. Hint: return their std").format(call=call)),
            (got > 0 and within(got, weight_std, LOGIT_STD_TOLERANCE),
             _("{call}, the std of the table. Hint: return the std of the logits, hidden @ table.T").format(
                 call=call)),
            (scale != 1 and within(got * scale, own, LOGIT_STD_TOLERANCE),
             _("{call}, as if the scale were 1. Hint: fill the LayerNorm's weight with scale before using "
                "it").format(call=call)),
            (within(got, unnormalised, LOGIT_STD_TOLERANCE) or within(got, unnormalised * scale, LOGIT_STD_TOLERANCE),
             _("{call}, the logits of the vectors as they reach the LayerNorm. Hint: pass them through it "
                "first").format(call=call)),
        ], _("{call}, far from the std of the logits that the checker measured with the same draws. Hint: "
              "draw the table [1000, d] times weight_std, then 512 vectors 3 * N(0, 1) + 1 (512, d), from "
              "one generator; pass the vectors through nn.LayerNorm(d) with its weight filled with scale; "
              "take (hidden @ table.T).std()").format(call=call)))
    first, again, other = (measure_logit_std(64, 1.0, 1.0, seed) for seed in (5, 5, 6))
    require(first == again, _("the same seed gave two different numbers. Hint: draw everything from g = "
                               "torch.Generator().manual_seed(seed), passing generator=g to each draw"))
    require(first != other, _("seeds 5 and 6 gave the same number: the function computes a formula instead of "
                               "measuring. Hint: draw the table and the vectors, and measure the logits' std"))
    if not answered(weight_std_for_unit_logits=weight_std_for_unit_logits):
        return
    weight_std = _positive("weight_std_for_unit_logits", weight_std_for_unit_logits, _("a std"))
    measured = _measured_logit_std(768, weight_std, SCALE, 3)  # the situation asked about: a LayerNorm with scale 2
    require(abs(measured - 1) <= LOGIT_STD_TOLERANCE, hint([
        (abs(weight_std - 1 / 768) < 1e-6, _("1/768 divides by d where a square root belongs. Hint: the variance is "
                                              "d * std² times the hidden states' variance, so the std of the logits "
                                              "is sqrt(d) * std * std(h)"))],
        _("with weight std {weight_std:.4g} the checker measured logits whose std is {measured} 1. Hint: "
           "the logits' std is proportional to the weight std; measure it at scale 2 and one weight std, "
           "then divide").format(weight_std=weight_std, measured=_('above') if measured > 1 else _('below'))))
    return correct(_("measure_logit_std agrees with the checker's own measurements at 3 sizes and changes with the "
                      "seed, and your weight_std_for_unit_logits gives logits of std 1 in the checker's measurement"))


#: Exercise 5.3: the default nn.Linear(V, d) whose weight the learner scales to std 1
SCALED_SHAPE = (70, 5000)


#: Exercise 5.3: the largest |w| of the scaled weight: U(-b, b) scaled to std 1 has bound b / (b / sqrt(3))
SCALED_MAX = math.sqrt(3)


def check_max_prediction(predicted_max: float) -> None:
    """Exercise 5.3's prediction, judged at once: the largest ``|w|`` of the default weight of
    ``nn.Linear(5000, 70)`` multiplied to std 1, within 5% of ``sqrt(3)``. While the guess is still ``None`` it
    judges nothing (one line says so). ``TypeError``/``ValueError`` for a guess that is not a positive number."""
    if not answered(predicted_max=predicted_max):
        return
    predicted = _positive("predicted_max", predicted_max, _(PREDICTED))
    why = (_("scaling every weight by one number keeps the shape of the distribution: a uniform stays uniform, and "
              "nothing lies beyond its bound") if predicted > SCALED_MAX else
           _("the std of U(-c, c) is c/sqrt(3), so a uniform of std 1 reaches further than 1"))
    require(within(predicted, SCALED_MAX, 0.05),
            _("your predicted_max, {predicted:.4g}, is not the largest |w| of the scaled weight. Hint: "
               "{why}").format(predicted=predicted, why=why))
    return correct(_("your largest |w| is right within 5%"))


def check_scaled_linear(scaled: torch.Tensor) -> None:
    """Exercise 5.3, done: ``scaled``, the default weight of ``nn.Linear(5000, 70)`` multiplied to std 1.

    ``scaled`` must have std 1 (within 1%) and still be nn.Linear's uniform draw, scaled: every ``|w|`` within
    the scaled bound and the largest close to it. ``TypeError`` for anything but a float tensor.
    """
    if not answered(scaled=scaled):
        return
    if not isinstance(scaled, torch.Tensor) or not scaled.is_floating_point():
        raise AnswerTypeError(_("scaled must be a float tensor (the scaled weight), got {type}").format(
                                  type=type(scaled).__name__))
    require(tuple(scaled.shape) == SCALED_SHAPE, _("scaled has shape {shape}, expected {scaled_shape}: the "
                                                    "weight of nn.Linear(5000, 70), [out_features, "
                                                    "in_features]").format(
                                                     shape=tuple(scaled.shape), scaled_shape=SCALED_SHAPE))
    scaled = scaled.detach().double().cpu()
    std = float(scaled.std())
    require(abs(std - 1) <= 0.01, _("scaled has std {std:.4g}, not 1. Hint: divide the default weight by "
                                     "its std, 1/sqrt(3 * fan_in), i.e. multiply it by sqrt(3 * fan_in)").format(
                                      std=std))
    require(SCALED_MAX * (1 - 1e-3) < float(scaled.abs().max()) <= SCALED_MAX * (1 + 1e-5), _("scaled has std 1 but "
                                                                                               "is not nn.Linear's "
                                                                                               "default draw, "
                                                                                               "scaled. Hint: "
                                                                                               "multiply the default "
                                                                                               "weight by one "
                                                                                               "number; do not draw "
                                                                                               "it again"))
    return correct(_("scaled has std 1 within 1% and is a default weight of nn.Linear(5000, 70) times one number"))


def check_loss_over_ln_v(loss_over_ln_v: object) -> None:
    """Section 7's prediction: the loss of an untrained tied output layer of std 1, at GPT-2's sizes, as a
    multiple of ``ln V``, one of ``LOSS_OVER_LN_V_CHOICES``. Logits of std ``sqrt(768) ≈ 28`` put almost all the
    probability on the largest logit, so the loss of a target unrelated to the weights is about the largest logit
    minus the target's: about ``4.25 · 28`` nats, 10.9 times ``ln V`` (9.7 to 12.6 over seeds 0 to 199 of the
    notebook's draws), nearest 10.

    While the guess is ``None`` it judges nothing (one line says so). ``AnswerValueError`` for a guess that is not
    one of the choices; a wrong guess fails with a hint, never the loss.
    """
    if not answered(loss_over_ln_v=loss_over_ln_v):
        return
    guess = one_of("loss_over_ln_v", loss_over_ln_v, LOSS_OVER_LN_V_CHOICES)
    require(guess == LOSS_OVER_LN_V, _(
        "your loss_over_ln_v, {guess:.3g}, is not what the cell below will show. Hint: "
        "logits of std 28 put almost all the probability on the largest one, so the "
        "loss of a target the model picked without looking at it is about the largest "
        "logit minus the target's, in nats. The largest of 50,257 draws of N(0, s²) "
        "averages about 4.25·s; ln V + s²/2 holds only for small s").format(guess=guess))
    return correct(_("your multiple of ln V for the loss at std 1 (the cell below prints the loss)"))
