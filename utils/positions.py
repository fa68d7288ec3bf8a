"""Position embeddings: the fixed sinusoidal table of *Attention Is All You Need*.

A learned position embedding is just ``nn.Embedding(context_length, d)`` (GPT-2's
``wpe``); the sinusoidal one is a fixed table of the same shape, which a model can
look up the same way (``nn.Embedding.from_pretrained(table, freeze=True)``).
"""

from __future__ import annotations

import math

import torch

from .checks import check_int


def sinusoidal_frequencies(dim: int, base: float = 10_000.0, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The angular frequencies ``omega_i = base ** (-2i / dim)``, ``i = 0 .. dim/2 - 1``: shape ``(dim // 2,)``.

    Used by :func:`sinusoidal_positions`.
    """
    check_int("dim", dim)
    if dim % 2:
        raise ValueError(f"dim must be even (sine and cosine columns come in pairs), got {dim}")
    if not isinstance(base, (int, float)) or isinstance(base, bool):
        raise TypeError(f"base must be a number > 1, got {type(base).__name__}")
    if not 1 < base < math.inf:  # also False for NaN
        raise ValueError(f"base must be a finite number > 1, got {base!r}")
    return torch.pow(float(base), -torch.arange(0, dim, 2, dtype=torch.float64) / dim).to(dtype)


def sinusoidal_positions(num_positions: int, dim: int, base: float = 10_000.0,
                         dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The table ``PE`` of shape ``(num_positions, dim)``:

    ``PE[p, 2i] = sin(p * omega_i)`` and ``PE[p, 2i + 1] = cos(p * omega_i)``, with
    ``omega_i = base ** (-2i / dim)``. Computed in float64, returned in ``dtype``.

    Taught in notebook 7.
    """
    check_int("num_positions", num_positions)
    omega = sinusoidal_frequencies(dim, base, torch.float64)  # (dim/2,)
    angles = torch.arange(num_positions, dtype=torch.float64)[:, None] * omega[None, :]  # (T, dim/2)
    table = torch.empty(num_positions, dim, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angles)
    table[:, 1::2] = torch.cos(angles)
    return table.to(dtype)
