"""The launcher's checks and its error reports, without starting worker processes.

Real runs, and real failures injected into them, are in test_distributed.py and
test_distributed_failures.py.
"""

import json
import pickle
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
import torch.distributed as dist

from utils import launcher as L


def rank_of(rank, world_size):
    """A worker function at the top level of a module: the launches below are rejected before one starts."""
    return rank


def test_backend_for():
    assert L.backend_for("cpu", 4) == "gloo"
    with pytest.raises(ValueError, match="device must be 'cpu' or 'cuda', got 'tpu'"):
        L.backend_for("tpu", 2)
    if torch.cuda.device_count() < 64:
        with pytest.raises(ValueError, match="device='cuda' needs one GPU per process: world_size 64"):
            L.backend_for("cuda", 64)


def test_process_group_rejects_a_bad_timeout():
    with pytest.raises(ValueError, match="timeout_s must be a positive, finite number of seconds, got 0"):
        with L.process_group(0, 1, timeout_s=0):
            pass
    assert not dist.is_initialized()


def test_process_group_is_destroyed_when_its_block_raises(tmp_path):
    """The guard a failing worker relies on: the group goes down with the error, so no peer waits on it."""
    with pytest.raises(RuntimeError, match="the worker failed"):
        with L.process_group(0, 1, init_method=f"file://{tmp_path / 'rendezvous'}", timeout_s=30):
            assert dist.is_initialized() and dist.get_world_size() == 1
            raise RuntimeError("the worker failed")
    assert not dist.is_initialized()


def test_worker_functions_must_be_importable():
    def local_worker(rank, world_size):
        return rank

    with pytest.raises(ValueError, match="must be defined at the top level of an importable module"):
        L.launch(local_worker, 1)
    with pytest.raises(TypeError, match="fn must be a function, got int"):
        L.launch(3, 1)


def test_unknown_start_method_is_rejected():
    with pytest.raises(ValueError, match="start_method must be 'spawn' or 'forkserver', got 'fork'"):
        L.launch(rank_of, 1, start_method="fork")


def test_bad_fault_and_timeouts_are_rejected():
    with pytest.raises(ValueError, match=r"unknown fault kind 'explode'; expected one of \('raise', 'exit'"):
        L.Fault(0, "explode")
    with pytest.raises(ValueError, match="timeout_s must be a positive, finite number of seconds, got -1"):
        L.launch(rank_of, 1, timeout_s=-1)
    with pytest.raises(TypeError, match="join_timeout_s must be a number of seconds, got str"):
        L.launch(rank_of, 1, join_timeout_s="10")


def test_prepare_workers_picks_a_start_method():
    assert L.prepare_workers("spawn") == "spawn"
    assert L.prepare_workers() in ("forkserver", "spawn")
    assert L.prepare_workers() == L.prepare_workers()  # a second call changes nothing


def test_root_cause_prefers_a_crash_and_names_exit_codes(tmp_path):
    def processes(*codes):
        return [SimpleNamespace(exitcode=code) for code in codes]

    error = L._root_cause(processes(0, 3), tmp_path, 2)
    assert str(error) == "rank 1 of 2 exited with code 3; the other processes were stopped"
    error = L._root_cause(processes(None, -9, 1), tmp_path, 3)
    assert str(error) == "rank 1 of 3 was killed by signal SIGKILL; the other processes were stopped"
    assert str(L._root_cause(processes(2), tmp_path, 1)) == "rank 0 of 1 exited with code 2"


def test_root_cause_uses_the_traceback_torch_saved(tmp_path):
    saved = tmp_path / "torch-error.pickle"
    saved.write_bytes(pickle.dumps("Traceback (most recent call last):\n  ...\nOSError: no space left\n"))
    error = L._root_cause([SimpleNamespace(exitcode=1), SimpleNamespace(exitcode=None)], tmp_path, 2,
                          [str(saved), None])
    assert str(error) == "rank 0 of 2 failed: OSError: no space left; the other processes were stopped"
    assert error.details.startswith("Traceback")


def test_an_error_report_appears_whole(tmp_path, monkeypatch):
    """The launcher reads the folder while workers fail: a report must never be seen half written."""
    renames = []
    replace = Path.replace

    def recorded(source, target):
        renames.append((Path(target).name, Path(target).exists(), json.loads(Path(source).read_text())["error"]))
        return replace(source, target)

    monkeypatch.setattr(Path, "replace", recorded)
    try:
        raise ValueError("bad row")
    except ValueError as error:
        L._report_error(tmp_path, 1, error)
    assert renames == [("rank1.error.json", False, "ValueError: bad row")]
    assert [path.name for path in tmp_path.iterdir()] == ["rank1.error.json"]
    assert L._read_error(tmp_path, 1)["error"] == "ValueError: bad row"
