"""Choosing the device a notebook runs on.

Every notebook has a papermill ``parameters`` cell with ``device = "auto"``; the
next cell turns that string into a :class:`torch.device` with :func:`resolve_device`.
"""

from __future__ import annotations

import torch

DEVICE_CHOICES = ("auto", "cpu", "cuda", "mps")


def _mps_available() -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def resolve_device(name: str = "auto") -> torch.device:
    """Turn a device name into a :class:`torch.device`, failing at once if it is absent.

    ``"auto"`` picks CUDA, then Apple's MPS, then the CPU. ``"cuda"`` or ``"mps"``
    on a machine without them raises :class:`RuntimeError` immediately, so a run
    asked for a GPU never silently falls back to the CPU.
    """
    if not isinstance(name, str):
        raise TypeError(f"device must be a string, one of {DEVICE_CHOICES}; got {type(name).__name__}")
    choice = name.strip().lower()
    if choice not in DEVICE_CHOICES:
        raise ValueError(f"unknown device {name!r}; expected one of {DEVICE_CHOICES}")
    if choice == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if _mps_available():
            return torch.device("mps")
        return torch.device("cpu")
    if choice == "cuda" and not torch.cuda.is_available():
        raise RuntimeError(
            "device='cuda' was requested, but CUDA is not available here "
            "(torch.cuda.is_available() is False). Run with device='auto' or 'cpu', "
            "or on a machine with an NVIDIA GPU and a CUDA build of PyTorch."
        )
    if choice == "mps" and not _mps_available():
        raise RuntimeError(
            "device='mps' was requested, but Apple's MPS backend is not available here. "
            "Run with device='auto' or 'cpu'."
        )
    return torch.device(choice)


def describe_device(device: torch.device) -> str:
    """A one-line description: ``cpu``, ``cuda (NVIDIA H100 ...)`` or ``mps``."""
    if device.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(device)})"
    return device.type
