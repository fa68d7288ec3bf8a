import math

import pytest
import torch

from utils.positions import sinusoidal_frequencies, sinusoidal_positions


def test_table_follows_the_formula():
    table = sinusoidal_positions(7, 6, dtype=torch.float64)
    assert table.shape == (7, 6) and table.dtype == torch.float64
    for p in range(7):
        for i in range(3):
            omega = 10_000 ** (-2 * i / 6)
            assert table[p, 2 * i].item() == pytest.approx(math.sin(p * omega), abs=1e-12)
            assert table[p, 2 * i + 1].item() == pytest.approx(math.cos(p * omega), abs=1e-12)


def test_table_is_notebook_7s_formula_bit_for_bit():
    """Notebook 7 builds the table from the formula in a cell, then uses this function for its fixed layer."""
    n_positions, dim = 64, 32
    omega = 10_000.0 ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)  # the notebook's cell, as written
    angles = torch.arange(n_positions, dtype=torch.float64)[:, None] * omega
    table = torch.stack([torch.sin(angles), torch.cos(angles)], dim=-1).flatten(1)
    assert torch.equal(sinusoidal_frequencies(dim, dtype=torch.float64), omega)
    assert torch.equal(sinusoidal_positions(n_positions, dim), table.float())
    assert torch.equal(sinusoidal_positions(n_positions, dim, dtype=torch.float64), table)


def test_position_zero_and_range():
    table = sinusoidal_positions(100, 16)
    assert table.dtype == torch.float32
    assert torch.equal(table[0], torch.tensor([0.0, 1.0] * 8))
    assert table.abs().max() <= 1


def test_frequencies_and_base():
    assert torch.allclose(sinusoidal_frequencies(4, base=100.0, dtype=torch.float64),
                          torch.tensor([1.0, 0.1], dtype=torch.float64))


def test_bad_arguments():
    with pytest.raises(ValueError, match="dim must be even .* got 5"):
        sinusoidal_positions(3, 5)
    with pytest.raises(ValueError, match="num_positions must be >= 1, got 0"):
        sinusoidal_positions(0, 4)
    with pytest.raises(TypeError, match="dim must be an int, got float"):
        sinusoidal_positions(3, 4.0)
    with pytest.raises(ValueError, match="base must be a finite number > 1, got 1"):
        sinusoidal_frequencies(4, base=1)
    with pytest.raises(TypeError, match="base must be a number > 1, got str"):
        sinusoidal_frequencies(4, base="10000")
    for bad in (float("nan"), float("inf")):  # a NaN base would fill the whole table with NaN
        with pytest.raises(ValueError, match=f"base must be a finite number > 1, got {bad}"):
            sinusoidal_positions(4, 4, base=bad)
