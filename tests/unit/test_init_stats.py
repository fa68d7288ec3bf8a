"""The expected statistics in utils.init_stats agree with what PyTorch actually draws."""

import math

import numpy as np
import pytest
import torch
from torch import nn

from utils import init_stats


def test_embedding_draws_match_the_expected_normal():
    torch.manual_seed(0)
    weight = nn.Embedding(2000, 32).weight
    result = init_stats.compare(weight, init_stats.embedding_init())
    assert result.ok, result.row()
    assert result.n == 64_000 and result.expected.bound is None


@pytest.mark.parametrize("fan_in", [10, 500, 5000])
def test_linear_draws_match_the_expected_uniform(fan_in):
    torch.manual_seed(fan_in)
    weight = nn.Linear(fan_in, 40).weight
    expected = init_stats.linear_init(fan_in)
    assert expected.bound == pytest.approx(1 / math.sqrt(fan_in))
    assert expected.std == pytest.approx(1 / math.sqrt(3 * fan_in))
    result = init_stats.compare(weight, expected)
    assert result.ok, result.row()


def test_linear_bound_is_kaiming_uniform_with_a_sqrt5():
    fan_in = 300
    gain = nn.init.calculate_gain("leaky_relu", math.sqrt(5))
    assert init_stats.linear_std(fan_in) == pytest.approx(gain / math.sqrt(fan_in))
    assert init_stats.linear_bound(fan_in) == pytest.approx(math.sqrt(3) * gain / math.sqrt(fan_in))


def test_xavier_normal_std_matches_torch():
    weight = torch.empty(1000, 64)  # PyTorch: fan_in = 64 (columns), fan_out = 1000 (rows)
    nn.init.xavier_normal_(weight, generator=torch.Generator().manual_seed(0))
    std = init_stats.xavier_normal_std(fan_in=64, fan_out=1000)
    assert std == pytest.approx(math.sqrt(2 / 1064))
    assert init_stats.compare(weight, init_stats.normal(std)).ok


def test_wrong_expectations_are_rejected():
    torch.manual_seed(1)
    weight = nn.Linear(1000, 64).weight
    # a std off by 10% is hundreds of standard errors away at n = 64,000
    assert not init_stats.compare(weight, init_stats.normal(1.1 * init_stats.linear_std(1000))).std_ok
    # a bound twice too wide: the extremes stay far inside it
    wide = init_stats.Expected("wide", "uniform", std=init_stats.linear_std(1000),
                               bound=2 * init_stats.linear_bound(1000))
    assert not init_stats.compare(weight, wide).bounds_ok
    # a bound too narrow: values fall outside it
    narrow = init_stats.Expected("narrow", "uniform", std=init_stats.linear_std(1000),
                                 bound=0.9 * init_stats.linear_bound(1000))
    assert not init_stats.compare(weight, narrow).bounds_ok
    assert not init_stats.compare(weight + 0.01, init_stats.linear_init(1000)).mean_ok


@pytest.mark.parametrize(("expected", "kurtosis"), [
    (init_stats.normal(2.0), init_stats.NORMAL_KURTOSIS),
    (init_stats.linear_init(50), init_stats.UNIFORM_KURTOSIS),
])
def test_std_standard_error_matches_the_spread_of_many_sample_stds(expected, kurtosis):
    generator = torch.Generator().manual_seed(3)
    n, repeats = 400, 4000
    if expected.distribution == "normal":
        draws = torch.randn(repeats, n, generator=generator, dtype=torch.float64) * expected.std
    else:
        draws = (torch.rand(repeats, n, generator=generator, dtype=torch.float64) * 2 - 1) * expected.bound
    spread = float(draws.std(dim=1).std())
    predicted = init_stats.std_standard_error(expected.std, n, kurtosis)
    assert spread == pytest.approx(predicted, rel=0.1)
    assert init_stats.std_standard_error(1.0, 50) == pytest.approx(1 / math.sqrt(100))  # normal: sigma/sqrt(2n)
    assert init_stats.mean_standard_error(2.0, 400) == pytest.approx(0.1)


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
    with pytest.raises(ValueError, match="kurtosis must be a finite number > 1"):
        init_stats.std_standard_error(1.0, 10, kurtosis=1.0)
    with pytest.raises(TypeError, match="weight must be a torch.Tensor, got list"):
        init_stats.compare([1.0, 2.0], init_stats.embedding_init())
    with pytest.raises(TypeError, match="floating-point tensor, got torch.int64"):
        init_stats.compare(torch.arange(4), init_stats.embedding_init())
    with pytest.raises(TypeError, match="expected must be an Expected"):
        init_stats.compare(torch.zeros(4), 1.0)
    with pytest.raises(ValueError, match="kurtosis must be a finite number > 1, got inf"):
        init_stats.std_standard_error(1.0, 10, kurtosis=float("inf"))
    with pytest.raises(ValueError, match="n_se must be a positive, finite number, got nan"):
        init_stats.compare(torch.zeros(4), init_stats.embedding_init(), n_se=float("nan"))
    with pytest.raises(ValueError, match="need at least 2 values"):
        init_stats.compare(torch.zeros(1), init_stats.embedding_init())
    for bad in (float("nan"), float("inf")):  # statistics of them would be NaN or inf, and no check could pass
        with pytest.raises(ValueError, match=r"weight holds 4 NaN or infinite value\(s\) out of 4"):
            init_stats.compare(torch.full((2, 2), bad), init_stats.embedding_init())
    with pytest.raises(ValueError, match="distribution must be 'normal' or 'uniform', got 'cauchy'"):
        init_stats.Expected("x", "cauchy", 1.0)
    with pytest.raises(ValueError, match="a uniform distribution needs its bound"):
        init_stats.Expected("x", "uniform", 1.0)


def test_a_large_uniform_draw_may_touch_the_float32_rounded_bound():
    torch.manual_seed(128_256)  # this draw's minimum lies 6e-11 beyond -1/sqrt(128256) computed in float64
    weight = nn.Linear(128_256, 64, bias=False).weight
    result = init_stats.compare(weight, init_stats.linear_init(128_256))
    assert result.min < -result.expected.bound and result.bounds_ok
    assert result.bound_slack < 2e-9  # 4 float32 ulps of the bound 0.0028
