import pytest
import torch

from utils.devices import describe_device, resolve_device


def test_auto_picks_cuda_else_the_cpu_never_mps(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr("utils.devices._mps_available", lambda: True)
    assert resolve_device("auto") == torch.device("cpu")  # MPS is untested: only when asked for
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device(" AUTO ") == torch.device("cuda")


def test_asking_for_mps_prints_the_gaps_that_touch_the_notebook(monkeypatch, capsys):
    monkeypatch.setattr("utils.devices._mps_available", lambda: True)
    assert resolve_device("mps", mps_gaps=("padding_idx", "embedding_bag")) == torch.device("mps")
    line = capsys.readouterr().out
    assert line.count("\n") == 1 and line.startswith("device='mps' is untested in this course")
    assert "pytorch#103023" in line and "pytorch#190060" in line and "pytorch#123119" not in line
    resolve_device("mps")
    assert capsys.readouterr().out.endswith("touch this notebook: none known\n")
    resolve_device("cpu", mps_gaps=("padding_idx",))
    assert capsys.readouterr().out == ""  # nothing printed off MPS


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
    with pytest.raises(ValueError, match=r"mps_gaps must be a list of keys from \('padding_idx', "):
        resolve_device("cpu", mps_gaps="padding_idx")
    with pytest.raises(ValueError, match=r"mps_gaps must be a list of keys .*, got \('tpu',\)"):
        resolve_device("cpu", mps_gaps=("tpu",))
