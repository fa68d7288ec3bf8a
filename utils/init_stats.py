"""The distributions that initialised weights are drawn from, and the tied logits' std at initialisation.

What PyTorch draws (defaults of the layers, ``torch.nn.init``):

- ``nn.Embedding(V, d)``: every weight from N(0, 1).
- ``nn.Linear(in_features, out_features)``: Kaiming-uniform with ``a = sqrt(5)``, which
  is U(-b, b) with ``b = 1/sqrt(fan_in)`` and ``fan_in = in_features``; its std is
  ``b/sqrt(3) = 1/sqrt(3*fan_in)``.

The figures that draw these distributions over real draws (``utils.figures.nb05``, ``tools/images.py``) take
them from here; notebook 5 writes the same formulas out and checks them against PyTorch.

How notebook 5's tolerances are sized (maintainers' note; tests/unit/test_init_stats.py checks the formula):

- An observed std scatters by its standard error ``sigma*sqrt((kurtosis - 1)/(4n))``: ``sigma/sqrt(2n)`` for a
  normal (kurtosis 3), ``sigma*sqrt(0.2/n)`` for a uniform (9/5). A variance's relative SE is twice that.
- Each tolerance is 4.4 or more SEs (two-sided normal tail: about 1 in 90,000 or rarer). Section 2: 1% on n =
  350,000 (8.4 and 13 SEs). Section 4: 10% on 16*V draws (5.6 or more). Section 3: 5% on the lookup's output std
  (n = 4,340: 62 distinct ids of 64, 70 outputs each; 4.7), 10% on the variance factors (7.4 one-hot, 4.7 dense,
  n = 4,480). Xavier: 5% on the forward factor (n = 17,920; 4.7); the backward factor's spread over fresh draws
  is measured in the tests (about 0.27%), so 5% is over 15 of them.
- Section 7: the logit std's relative SE is about sqrt(2/768)/2/sqrt(32) = 0.45% from |h| alone; 2% is 4.4 of
  them (the table's 32 x 50,257 logits add little; not measured separately). At std 0.02 the mean target logit over
  32 rows scatters by about 0.1 nats, 0.9% of ln V: 7% is over 6 of them. At std 1 one row's largest-minus-target
  scatters by about 1.03*s, the mean of 32 by 0.18*s, 4.3% of 4.25*s: 22% is about 5 of them. The largest logit's
  mean over 32 rows scatters by about 0.046*s (1.1% of 4.25): 6% is 5 or more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from .checks import check_int, check_positive


@dataclass(frozen=True)
class Expected:
    """The distribution a weight is drawn from: ``"normal"`` N(mean, std²) or ``"uniform"`` U(-bound, bound).

    Returned by normal, embedding_init and linear_init.
    """

    name: str  # a label for tables and plots, e.g. "nn.Embedding: N(0, 1)"
    distribution: str  # "normal" or "uniform"
    std: float
    mean: float = 0.0
    bound: float | None = None  # half-width of a uniform; None for a normal

    def __post_init__(self) -> None:
        if self.distribution not in ("normal", "uniform"):
            raise ValueError(f"distribution must be 'normal' or 'uniform', got {self.distribution!r}")
        if self.distribution == "uniform" and self.bound is None:
            raise ValueError("a uniform distribution needs its bound (half-width)")
        check_positive("std", self.std)
        if isinstance(self.mean, bool) or not isinstance(self.mean, (int, float)) or not math.isfinite(self.mean):
            raise ValueError(f"mean must be a finite number, got {self.mean!r}")
        if self.bound is not None:
            check_positive("bound", self.bound)

    def torch_distribution(self) -> torch.distributions.Distribution:
        """The distribution as :mod:`torch.distributions` has it: ``Normal`` or ``Uniform``."""
        if self.distribution == "normal":
            return torch.distributions.Normal(self.mean, self.std)
        # validate_args=False: the density is 0 outside the bounds (instead of an error), as a plot needs
        return torch.distributions.Uniform(self.mean - self.bound, self.mean + self.bound, validate_args=False)

    def pdf(self, x: np.ndarray | torch.Tensor) -> np.ndarray:
        """The density at ``x`` (any shape -> same shape), from :meth:`torch_distribution`."""
        values = torch.as_tensor(np.asarray(x, dtype=float))
        return self.torch_distribution().log_prob(values).exp().numpy()


def normal(std: float, name: str | None = None) -> Expected:
    """N(0, std²), e.g. ``normal(0.02)`` for GPT-2's ``normal_(std=0.02)``.

    Used by utils.figures.nb05 (notebook 5's histograms).
    """
    std = check_positive("std", std)
    return Expected(name or f"N(0, {std:g}²)", "normal", std)


def embedding_init() -> Expected:
    """What ``nn.Embedding`` draws, at any size: N(0, 1) (``torch.nn.init.normal_``).

    Used by tools/images.py (images/init_histograms.png).
    """
    return Expected("nn.Embedding: N(0, 1)", "normal", 1.0)


def linear_bound(fan_in: int) -> float:
    """Half-width of ``nn.Linear``'s uniform weights: ``1/sqrt(fan_in)`` (``fan_in = in_features``).

    Used by linear_std and linear_init.
    """
    return 1.0 / math.sqrt(check_int("fan_in", fan_in))


def linear_std(fan_in: int) -> float:
    """Std of ``nn.Linear``'s weights: ``bound/sqrt(3) = 1/sqrt(3*fan_in)`` (the std of U(-b, b) is b/sqrt(3)).

    Used by linear_init (notebook 5 writes ``1/sqrt(3 * V)`` out).
    """
    return linear_bound(fan_in) / math.sqrt(3.0)


def linear_init(fan_in: int) -> Expected:
    """What ``nn.Linear(fan_in, out)`` draws for its weight: U(-1/sqrt(fan_in), 1/sqrt(fan_in)).

    Used by tools/images.py (images/init_histograms.png).
    """
    bound = linear_bound(fan_in)
    return Expected(f"nn.Linear: U(±1/√{fan_in})", "uniform", linear_std(fan_in), bound=bound)


# --- A tied output layer at initialisation ---------------------------------------------


def tied_logit_std(embedding_dim: int, weight_std: float, hidden_std: float = 1.0) -> float:
    """Std of the logits ``h @ W.T``, ``W`` ``[V, d]`` with iid entries of ``weight_std``, ``h`` of ``hidden_std``:
    each logit sums ``d`` products of independent zero-mean factors, variance ``d * weight_std² * hidden_std²``.

    Used by notebook 5's exercise checkers (the notebook writes ``sqrt(d) * std(W)`` out).
    """
    scale = check_positive("weight_std", weight_std) * check_positive("hidden_std", hidden_std)
    return math.sqrt(check_int("embedding_dim", embedding_dim)) * scale
