"""A failing, killed or hanging worker ends the run with a clear error, within a bounded time.

The bounds are generous because starting the processes can take many seconds on a busy
machine; what they rule out is waiting for the 120 s collective timeout, or a hang.
"""

import re
import time
from types import SimpleNamespace

import pytest

from utils import distributed as D

SPEC = D.ProblemSpec()
LONG_TIMEOUT_S = 120  # far longer than any bound below: a test passing did not wait for it
BOUND_S = 60


def _run_with_fault(fault, **kwargs):
    start = time.perf_counter()
    with pytest.raises((D.WorkerError, TimeoutError)) as info:
        D.run_vocab_parallel(SPEC, 2, fault=fault, **kwargs)
    return info.value, time.perf_counter() - start


def test_a_worker_that_raises_surfaces_as_a_clear_error():
    error, elapsed = _run_with_fault(D.Fault(rank=1, kind="raise"), timeout_s=LONG_TIMEOUT_S)
    assert isinstance(error, D.WorkerError) and isinstance(error, RuntimeError)
    assert str(error) == ("rank 1 of 2 failed: RuntimeError: injected failure on rank 1; "
                          "the other processes were stopped")
    assert (error.rank, error.world_size) == (1, 2)
    assert "Traceback" in error.details and "injected failure on rank 1" in error.details
    assert elapsed < BOUND_S  # rank 0 was waiting in its all_reduce: it was stopped, not waited for


def test_a_killed_worker_ends_the_run():
    error, elapsed = _run_with_fault(D.Fault(rank=0, kind="kill"), timeout_s=LONG_TIMEOUT_S)
    assert str(error) == "rank 0 of 2 was killed by signal SIGKILL; the other processes were stopped"
    assert elapsed < BOUND_S


def test_the_collective_timeout_bounds_a_wait_for_a_hanging_peer():
    error, elapsed = _run_with_fault(D.Fault(rank=1, kind="hang"), timeout_s=2)
    assert isinstance(error, D.WorkerError) and error.rank == 0
    assert re.search(r"rank 0 of 2 failed: .*Timed out waiting 2000ms for recv", str(error)), str(error)
    assert elapsed < BOUND_S


def test_the_launcher_gives_up_at_its_deadline():
    # a collective timeout longer than the launcher's deadline: the launcher's bound acts first
    error, elapsed = _run_with_fault(D.Fault(rank=1, kind="hang"), timeout_s=LONG_TIMEOUT_S, join_timeout_s=3)
    assert isinstance(error, TimeoutError)
    assert str(error) == "the 2 worker processes did not finish within 3 s; they were stopped"
    assert 3 <= elapsed < 15


def test_root_cause_prefers_a_crash_and_names_exit_codes(tmp_path):
    def processes(*codes):
        return [SimpleNamespace(exitcode=code) for code in codes]

    error = D._root_cause(processes(0, 3), tmp_path, 2)
    assert str(error) == "rank 1 of 2 exited with code 3; the other processes were stopped"
    error = D._root_cause(processes(None, -9, 1), tmp_path, 3)
    assert str(error) == "rank 1 of 3 was killed by signal SIGKILL; the other processes were stopped"
    assert str(D._root_cause(processes(2), tmp_path, 1)) == "rank 0 of 1 exited with code 2"


def test_worker_functions_must_be_importable():
    def local_worker(rank, world_size):
        return rank

    with pytest.raises(ValueError, match="must be defined at the top level of an importable module"):
        D.launch(local_worker, 1)
    with pytest.raises(TypeError, match="fn must be a function, got int"):
        D.launch(3, 1)


def test_bad_fault_and_timeouts_are_rejected():
    with pytest.raises(ValueError, match=r"unknown fault kind 'explode'; expected one of \('raise', 'exit'"):
        D.Fault(0, "explode")
    with pytest.raises(ValueError, match="timeout_s must be a positive, finite number of seconds, got -1"):
        D.launch(D.vocab_parallel_worker, 1, timeout_s=-1)
    with pytest.raises(TypeError, match="join_timeout_s must be a number of seconds, got str"):
        D.launch(D.vocab_parallel_worker, 1, join_timeout_s="10")


def test_unknown_start_method_is_rejected():
    with pytest.raises(ValueError, match="start_method must be 'spawn' or 'forkserver', got 'fork'"):
        D.launch(D.vocab_parallel_worker, 1, start_method="fork")


def test_prepare_workers_picks_a_start_method():
    assert D.prepare_workers("spawn") == "spawn"
    assert D.prepare_workers() in ("forkserver", "spawn")
    assert D.prepare_workers() == D.prepare_workers()  # a second call changes nothing


def test_root_cause_uses_the_traceback_torch_saved(tmp_path):
    import pickle

    saved = tmp_path / "torch-error.pickle"
    saved.write_bytes(pickle.dumps("Traceback (most recent call last):\n  ...\nOSError: no space left\n"))
    error = D._root_cause([SimpleNamespace(exitcode=1), SimpleNamespace(exitcode=None)], tmp_path, 2,
                          [str(saved), None])
    assert str(error) == "rank 0 of 2 failed: OSError: no space left; the other processes were stopped"
    assert error.details.startswith("Traceback")
