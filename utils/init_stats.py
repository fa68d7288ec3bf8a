"""Expected statistics of initialised weights, and the tolerances to check them with.

What PyTorch draws (defaults of the layers, ``torch.nn.init``):

- ``nn.Embedding(V, d)``: every weight from N(0, 1).
- ``nn.Linear(in_features, out_features)``: Kaiming-uniform with ``a = sqrt(5)``, which
  is U(-b, b) with ``b = 1/sqrt(fan_in)`` and ``fan_in = in_features``; its std is
  ``b/sqrt(3) = 1/sqrt(3*fan_in)``.
- Xavier (Glorot) normal: N(0, 2/(fan_in + fan_out)).

Observed statistics of ``n`` draws scatter around the expected ones by a standard
error that shrinks like ``1/sqrt(n)``; :func:`compare` accepts an observation within a
number of standard errors (5 by default: a chance of about 6 in 10 million for a
normal estimate to land further out), so the check follows from the sample size
instead of a guessed tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from .checks import check_int, check_positive

#: kurtosis E[(x-mu)^4]/sigma^4 of the two distributions PyTorch draws from
NORMAL_KURTOSIS = 3.0
UNIFORM_KURTOSIS = 9.0 / 5.0


@dataclass(frozen=True)
class Expected:
    """The distribution a weight is drawn from: ``"normal"`` N(mean, std²) or ``"uniform"`` U(-bound, bound).

    Returned by normal, embedding_init and linear_init (notebook 5).
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

    @property
    def kurtosis(self) -> float:
        return NORMAL_KURTOSIS if self.distribution == "normal" else UNIFORM_KURTOSIS

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

    Taught in notebook 5.
    """
    std = check_positive("std", std)
    return Expected(name or f"N(0, {std:g}²)", "normal", std)


def embedding_init() -> Expected:
    """What ``nn.Embedding`` draws, at any size: N(0, 1) (``torch.nn.init.normal_``).

    Taught in notebook 5.
    """
    return Expected("nn.Embedding: N(0, 1)", "normal", 1.0)


def linear_bound(fan_in: int) -> float:
    """Half-width of ``nn.Linear``'s uniform weights: ``1/sqrt(fan_in)`` (``fan_in = in_features``).

    Used by linear_std and linear_init (notebook 5).
    """
    return 1.0 / math.sqrt(check_int("fan_in", fan_in))


def linear_std(fan_in: int) -> float:
    """Std of ``nn.Linear``'s weights: ``bound/sqrt(3) = 1/sqrt(3*fan_in)`` (the std of U(-b, b) is b/sqrt(3)).

    Used by linear_init (notebook 5, which writes ``1/sqrt(3 * V)`` out).
    """
    return linear_bound(fan_in) / math.sqrt(3.0)


def linear_init(fan_in: int) -> Expected:
    """What ``nn.Linear(fan_in, out)`` draws for its weight: U(-1/sqrt(fan_in), 1/sqrt(fan_in)).

    Taught in notebook 5.
    """
    bound = linear_bound(fan_in)
    return Expected(f"nn.Linear: U(±1/√{fan_in})", "uniform", linear_std(fan_in), bound=bound)


def xavier_normal_std(fan_in: int, fan_out: int, gain: float = 1.0) -> float:
    """Std of ``torch.nn.init.xavier_normal_``: ``gain * sqrt(2/(fan_in + fan_out))``.

    For a 2-D weight of shape ``[rows, cols]`` PyTorch takes ``fan_in = cols`` and
    ``fan_out = rows``.

    Taught in notebook 5.
    """
    check_int("fan_in", fan_in)
    check_int("fan_out", fan_out)
    return check_positive("gain", gain) * math.sqrt(2.0 / (fan_in + fan_out))


def std_standard_error(std: float, n: int, kurtosis: float = NORMAL_KURTOSIS) -> float:
    """Standard error of the sample std of ``n`` independent draws with this ``std`` and ``kurtosis``.

    ``sqrt((kurtosis - 1)/(4n)) * std`` (the delta method); for a normal (kurtosis 3)
    that is the familiar ``std/sqrt(2n)``, for a uniform (9/5) ``std*sqrt(0.2/n)``.

    Used by compare (notebook 5 writes the formula out and checks it against an experiment).
    """
    std = check_positive("std", std)
    check_int("n", n)
    if isinstance(kurtosis, bool) or not isinstance(kurtosis, (int, float)) or not 1 < kurtosis < math.inf:
        raise ValueError(f"kurtosis must be a finite number > 1, got {kurtosis!r}")
    return std * math.sqrt((kurtosis - 1.0) / (4.0 * n))


def mean_standard_error(std: float, n: int) -> float:
    """Standard error of the sample mean of ``n`` independent draws: ``std/sqrt(n)``.

    Used by compare (notebook 5 shows where its tolerances come from).
    """
    return check_positive("std", std) / math.sqrt(check_int("n", n))


@dataclass(frozen=True)
class Comparison:
    """Observed statistics of a weight next to the expected ones, with the tolerances used.

    Returned by compare (notebook 5).
    """

    expected: Expected
    n: int
    mean: float
    std: float
    min: float
    max: float
    mean_tolerance: float  # n_se standard errors of the mean
    std_tolerance: float  # n_se standard errors of the std
    bound_gap_tolerance: float | None  # uniform only: how far inside the bound the extremes may stay
    bound_slack: float = 0.0  # uniform only: rounding of the bound to the weight's dtype (a few ulps)

    @property
    def mean_ok(self) -> bool:
        return abs(self.mean - self.expected.mean) <= self.mean_tolerance

    @property
    def std_ok(self) -> bool:
        return abs(self.std - self.expected.std) <= self.std_tolerance

    @property
    def bounds_ok(self) -> bool:
        """Uniform: every value within ±bound, and the extremes close to it. Normal: always True."""
        if self.expected.bound is None:
            return True
        lo, hi = self.expected.mean - self.expected.bound, self.expected.mean + self.expected.bound
        inside = lo - self.bound_slack <= self.min and self.max <= hi + self.bound_slack
        return inside and (self.min - lo) <= self.bound_gap_tolerance and (hi - self.max) <= self.bound_gap_tolerance

    @property
    def ok(self) -> bool:
        return self.mean_ok and self.std_ok and self.bounds_ok

    def row(self) -> str:
        """One table row: expected and observed std (and bound), 4 decimals."""
        bound = "" if self.expected.bound is None else (
            f"   bound ±{self.expected.bound:.4f}  observed [{self.min:+.4f}, {self.max:+.4f}]")
        return (f"{self.expected.name:<24} n={self.n:>7,}  std expected {self.expected.std:.4f} "
                f"observed {self.std:.4f} (±{self.std_tolerance:.4f}){bound}")


def compare(weight: torch.Tensor, expected: Expected, n_se: float = 5.0) -> Comparison:
    """Observed mean, std, min and max of ``weight`` (any shape, ``n`` values) against ``expected``.

    Tolerances: ``n_se`` standard errors for the mean and the std (see
    :func:`std_standard_error`). For a uniform, the smallest and largest of ``n`` draws
    fall short of ``±bound`` by about ``2*bound/n``; a gap over ``20 * 2*bound/n`` has a
    chance of about ``e^-20`` and is rejected. Values may pass ``±bound`` by the rounding
    of the bound to the weight's dtype (4 units in the last place).

    Taught in notebook 5.
    """
    if not isinstance(weight, torch.Tensor):
        raise TypeError(f"weight must be a torch.Tensor, got {type(weight).__name__}")
    if not weight.is_floating_point():
        raise TypeError(f"weight must be a floating-point tensor, got {weight.dtype}")
    if not isinstance(expected, Expected):
        raise TypeError(
            f"expected must be an Expected (e.g. init_stats.embedding_init()), got {type(expected).__name__}"
        )
    n_se = check_positive("n_se", n_se)
    n = weight.numel()
    if n < 2:
        raise ValueError(f"need at least 2 values to estimate a std, got {n}")
    values = weight.detach().double().flatten()
    if not bool(values.isfinite().all()):
        bad = int((~values.isfinite()).sum())
        raise ValueError(f"weight holds {bad} NaN or infinite value(s) out of {n}; expected finite initial weights "
                         "(statistics of them would be NaN or inf)")
    gap = None if expected.bound is None else 20.0 * 2.0 * expected.bound / n
    slack = 0.0 if expected.bound is None else 4.0 * torch.finfo(weight.dtype).eps * expected.bound
    return Comparison(
        expected=expected, n=n,
        mean=float(values.mean()), std=float(values.std()),
        min=float(values.min()), max=float(values.max()),
        mean_tolerance=n_se * mean_standard_error(expected.std, n),
        std_tolerance=n_se * std_standard_error(expected.std, n, expected.kurtosis),
        bound_gap_tolerance=gap, bound_slack=slack,
    )


# --- A tied output layer at initialisation ---------------------------------------------


def tied_logit_std(embedding_dim: int, weight_std: float, hidden_std: float = 1.0) -> float:
    """Std of the logits ``h @ W.T``, ``W`` ``[V, d]`` with iid entries of ``weight_std``, ``h`` of ``hidden_std``:
    each logit sums ``d`` products of independent zero-mean factors, variance ``d * weight_std² * hidden_std²``.

    Used by notebook 5's exercise checkers (the notebook writes ``sqrt(d) * std(W)`` out).
    """
    scale = check_positive("weight_std", weight_std) * check_positive("hidden_std", hidden_std)
    return math.sqrt(check_int("embedding_dim", embedding_dim)) * scale
