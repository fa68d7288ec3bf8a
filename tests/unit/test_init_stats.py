"""The expected statistics in utils.init_stats agree with what PyTorch actually draws."""

import math

import numpy as np
import pytest
import torch
from torch import nn

from utils import init_stats


def test_embedding_draws_match_the_expected_normal():
    torch.manual_seed(0)
    weight = nn.Embedding(2000, 32).weight.detach().double()  # 64,000 draws: the std's standard error is 0.3%
    expected = init_stats.embedding_init()
    assert expected.bound is None and expected.mean == 0
    assert abs(weight.mean().item()) < 5 * expected.std / math.sqrt(weight.numel())
    assert weight.std().item() == pytest.approx(expected.std, rel=0.015)


@pytest.mark.parametrize("fan_in", [10, 500, 5000])
def test_linear_draws_match_the_expected_uniform(fan_in):
    torch.manual_seed(fan_in)
    weight = nn.Linear(fan_in, 40).weight.detach().double()
    expected = init_stats.linear_init(fan_in)
    assert expected.bound == pytest.approx(1 / math.sqrt(fan_in))
    assert expected.std == pytest.approx(1 / math.sqrt(3 * fan_in))
    assert weight.std().item() == pytest.approx(expected.std, rel=0.05)  # 400 draws or more: SE 2.2% at most
    assert weight.abs().max().item() <= expected.bound * (1 + 1e-6)


def test_linear_bound_is_kaiming_uniform_with_a_sqrt5():
    fan_in = 300
    gain = nn.init.calculate_gain("leaky_relu", math.sqrt(5))
    assert init_stats.linear_std(fan_in) == pytest.approx(gain / math.sqrt(fan_in))
    assert init_stats.linear_bound(fan_in) == pytest.approx(math.sqrt(3) * gain / math.sqrt(fan_in))


def test_densities_integrate_to_one_and_match_a_histogram():
    x = np.linspace(-10, 10, 200_001)
    dx = x[1] - x[0]
    assert (init_stats.normal(1.5).pdf(x) * dx).sum() == pytest.approx(1.0, abs=1e-6)
    assert (init_stats.linear_init(4).pdf(x) * dx).sum() == pytest.approx(1.0, abs=1e-3)  # U(-0.5, 0.5)
    assert init_stats.linear_init(4).pdf(np.array([0.6, 0.4, -0.6])).tolist() == [0.0, 1.0, 0.0]
    assert isinstance(init_stats.normal(1.5).torch_distribution(), torch.distributions.Normal)
    samples = torch.randn(200_000, generator=torch.Generator().manual_seed(0)).numpy()
    density, edges = np.histogram(samples, bins=40, range=(-4, 4), density=True)
    centres = (edges[:-1] + edges[1:]) / 2
    assert np.abs(density - init_stats.embedding_init().pdf(centres)).max() < 0.01


def test_tied_logit_std_matches_draws():
    generator = torch.Generator().manual_seed(0)
    dim, std = 256, 0.02
    logits = torch.randn(64, dim, generator=generator) @ (torch.randn(20_000, dim, generator=generator) * std).T
    s = init_stats.tied_logit_std(dim, std)
    assert s == pytest.approx(math.sqrt(dim) * std)
    assert float(logits.std()) == pytest.approx(s, rel=0.02)


def test_bad_arguments_say_what_was_expected():
    with pytest.raises(TypeError, match="fan_in must be an int, got float"):
        init_stats.linear_bound(3.0)
    with pytest.raises(ValueError, match="fan_in must be >= 1, got 0"):
        init_stats.linear_std(0)
    with pytest.raises(ValueError, match="std must be a positive, finite number, got -1"):
        init_stats.normal(-1)
    with pytest.raises(TypeError, match="std must be a number, got str"):
        init_stats.normal("1")
    with pytest.raises(ValueError, match="std must be a positive, finite number, got nan"):
        init_stats.Expected("x", "normal", float("nan"))
    with pytest.raises(ValueError, match="mean must be a finite number, got inf"):
        init_stats.Expected("x", "normal", 1.0, mean=float("inf"))
    with pytest.raises(ValueError, match="bound must be a positive, finite number, got nan"):
        init_stats.Expected("x", "uniform", 1.0, bound=float("nan"))
    with pytest.raises(ValueError, match="distribution must be 'normal' or 'uniform', got 'cauchy'"):
        init_stats.Expected("x", "cauchy", 1.0)
    with pytest.raises(ValueError, match="a uniform distribution needs its bound"):
        init_stats.Expected("x", "uniform", 1.0)



@pytest.mark.parametrize("kind", ["normal", "uniform"])
def test_standard_error_of_a_std_follows_the_kurtosis_formula(kind):
    generator = torch.Generator().manual_seed(8)
    n, samples = 1_000, 400
    if kind == "normal":
        x, sigma, kurtosis = torch.randn(samples, n, generator=generator, dtype=torch.float64), 1.0, 3.0
    else:
        x, sigma, kurtosis = torch.rand(samples, n, generator=generator, dtype=torch.float64) * 2 - 1, 3**-0.5, 9 / 5
    predicted = sigma * math.sqrt((kurtosis - 1) / (4 * n))
    observed = x.std(dim=1).std().item()
    assert abs(observed / predicted - 1) < 5 / math.sqrt(2 * (samples - 1))  # within 5 SEs of the 400-sample spread
    if kind == "uniform":
        assert observed < 0.7 * sigma / math.sqrt(2 * n)  # the normal's rule would overstate it


def test_xavier_backward_factor_spread_leaves_the_5_percent_tolerance_wide():
    V, d, generator = 5000, 70, torch.Generator().manual_seed(3)
    layer, ratios = nn.Linear(V, d, bias=False), []
    for _ in range(100):
        with torch.no_grad():
            nn.init.xavier_normal_(layer.weight, generator=generator)
        x = torch.randn(256, V, generator=generator).requires_grad_()
        grad_out = torch.randn(256, d, generator=generator)
        layer(x).backward(grad_out)
        ratios.append((x.grad.var() / grad_out.var()).item() / (2 * d / (V + d)))
    assert 0.05 / torch.tensor(ratios).std().item() > 15
