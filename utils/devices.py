"""Choosing the device a notebook runs on.

Every notebook has a papermill ``parameters`` cell with ``device = "cpu"`` (the lessons,
whose stored outputs come from the CPU) or ``device = "auto"`` (the benchmark and the
distributed notebook); the next cell turns that string into a :class:`torch.device` with
:func:`resolve_device`. Apple's MPS is never picked by ``"auto"``: it is untested here,
and asking for it prints the known PyTorch MPS gaps that touch the notebook.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

DEVICE_CHOICES = ("auto", "cpu", "cuda", "mps")

#: Known PyTorch gaps on Apple's MPS backend that touch the lessons, by topic.
MPS_GAPS = {
    "padding_idx": "the padding_idx row's gradient may not be zeroed (pytorch#103023)",
    "out_of_range": "an out-of-range id may return zeros instead of raising (pytorch#123119)",
    "embedding_bag": "nn.EmbeddingBag needs PyTorch 2.10 or newer, and include_last_offset and "
                     "scale_grad_by_freq give wrong results (pytorch#190060, pytorch#190061)",
    "sparse": "sparse matrices are not supported: the benchmark skips the sparse product",
}


def _mps_available() -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def resolve_device(name: str = "auto", mps_gaps: Sequence[str] = ()) -> torch.device:
    """Turn a device name into a :class:`torch.device`, failing at once if it is absent.

    ``"auto"`` picks CUDA when it is available, else the CPU. ``"cuda"`` or ``"mps"``
    on a machine without them raises :class:`RuntimeError` immediately, so a run
    asked for a GPU never silently falls back to the CPU. ``"mps"`` prints one line:
    MPS is untested in this course, and the known PyTorch gaps ``mps_gaps`` (keys of
    :data:`MPS_GAPS`) touch this notebook. ``option`` (e.g. ``"--device"``): the command-line option the
    name came from, which the messages then name instead of the notebook's ``device=``.

    Used in every notebook's first cells, to turn its device parameter into a device.
    """
    if not isinstance(name, str):
        raise TypeError(f"device must be a string, one of {DEVICE_CHOICES}; got {type(name).__name__}")
    if isinstance(mps_gaps, str) or not all(gap in MPS_GAPS for gap in mps_gaps):
        raise ValueError(f"mps_gaps must be a list of keys from {tuple(MPS_GAPS)}, got {mps_gaps!r}")
    choice = name.strip().lower()
    if choice not in DEVICE_CHOICES:
        raise ValueError(f"unknown device {name!r}; expected one of {DEVICE_CHOICES}")
    if choice == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if choice == "cuda" and not torch.cuda.is_available():
        raise RuntimeError(
            "device='cuda' was requested, but CUDA is not available here "
            "(torch.cuda.is_available() is False). Run with device='cpu' or device='auto', "
            "or on a machine with an NVIDIA GPU and a CUDA build of PyTorch."
        )
    if choice == "mps" and not _mps_available():
        raise RuntimeError(
            "device='mps' was requested, but Apple's MPS backend is not available here. "
            "Run with device='cpu' or device='auto'."
        )
    if choice == "mps":
        print(mps_notice(mps_gaps))
    return torch.device(choice)


def mps_notice(gaps: Sequence[str]) -> str:
    """The one line printed when a notebook runs on MPS.

    Used by resolve_device.
    """
    known = "; ".join(MPS_GAPS[gap] for gap in gaps) if gaps else "none known"
    return f"device='mps' is untested in this course; PyTorch's MPS gaps that touch this notebook: {known}"


def describe_device(device: torch.device) -> str:
    """A one-line description: ``cpu``, ``cuda (NVIDIA H100 ...)`` or ``mps``.

    Used by utils.env_check and the benchmark.
    """
    if device.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(device)})"
    return device.type
