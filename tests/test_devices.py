import pytest
import torch

from utils.devices import describe_device, resolve_device


def test_auto_prefers_cuda_then_mps_then_cpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr("utils.devices._mps_available", lambda: False)
    assert resolve_device("auto") == torch.device("cpu")
    monkeypatch.setattr("utils.devices._mps_available", lambda: True)
    assert resolve_device("auto") == torch.device("mps")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device(" AUTO ") == torch.device("cuda")


def test_cpu_is_always_there():
    assert resolve_device("cpu") == torch.device("cpu")
    assert describe_device(torch.device("cpu")) == "cpu"


def test_missing_cuda_fails_at_once_with_a_clear_message(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match=r"device='cuda' was requested, but CUDA is not available here"):
        resolve_device("cuda")


def test_missing_mps_fails_with_a_clear_message(monkeypatch):
    monkeypatch.setattr("utils.devices._mps_available", lambda: False)
    with pytest.raises(RuntimeError, match="device='mps' was requested"):
        resolve_device("mps")


def test_bad_device_arguments():
    with pytest.raises(ValueError, match=r"unknown device 'tpu'; expected one of \('auto', 'cpu', 'cuda', 'mps'\)"):
        resolve_device("tpu")
    with pytest.raises(TypeError, match="device must be a string"):
        resolve_device(0)
