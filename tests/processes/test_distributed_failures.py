"""A failing, killed or hanging worker ends the run with a clear error, within a bounded time.

The bounds are generous because starting the processes can take many seconds on a busy
machine; what they rule out is waiting for the 120 s collective timeout, or a hang.
"""

import re
import time

import pytest
from fault_injection import Fault, faulty_worker

from utils.distributed import launcher as L
from utils.distributed.vocab_parallel_run import ProblemSpec

SPEC = ProblemSpec()
LONG_TIMEOUT_S = 120  # far longer than any bound below: a test passing did not wait for it
BOUND_S = 60


def _run_with_fault(fault, **kwargs):
    start = time.perf_counter()
    with pytest.raises((L.WorkerError, TimeoutError)) as info:
        L.launch(faulty_worker, 2, args=(SPEC, fault), **kwargs)
    return info.value, time.perf_counter() - start


def test_a_worker_that_raises_surfaces_as_a_clear_error():
    error, elapsed = _run_with_fault(Fault(rank=1, kind="raise"), timeout_s=LONG_TIMEOUT_S)
    assert isinstance(error, L.WorkerError) and isinstance(error, RuntimeError)
    assert str(error) == ("rank 1 of 2 failed: RuntimeError: injected failure on rank 1; "
                          "the other processes were stopped")
    assert (error.rank, error.world_size) == (1, 2)
    assert "Traceback" in error.details and "injected failure on rank 1" in error.details
    assert elapsed < BOUND_S  # rank 0 was waiting in its all_reduce: it was stopped, not waited for


def test_a_killed_worker_ends_the_run():
    error, elapsed = _run_with_fault(Fault(rank=0, kind="kill"), timeout_s=LONG_TIMEOUT_S)
    assert str(error) == "rank 0 of 2 was killed by signal SIGKILL; the other processes were stopped"
    assert elapsed < BOUND_S


def test_a_worker_that_exits_names_its_exit_code():
    error, elapsed = _run_with_fault(Fault(rank=1, kind="exit"), timeout_s=LONG_TIMEOUT_S)
    assert str(error) == "rank 1 of 2 exited with code 3; the other processes were stopped"
    assert elapsed < BOUND_S


def test_the_collective_timeout_bounds_a_wait_for_a_hanging_peer():
    error, elapsed = _run_with_fault(Fault(rank=1, kind="hang"), timeout_s=2)
    assert isinstance(error, L.WorkerError) and error.rank == 0
    assert re.search(r"rank 0 of 2 failed: .*Timed out waiting 2000ms for recv", str(error)), str(error)
    assert elapsed < BOUND_S


def test_the_launcher_gives_up_at_its_deadline():
    # a collective timeout longer than the launcher's deadline: the launcher's bound acts first
    error, elapsed = _run_with_fault(Fault(rank=1, kind="hang"), timeout_s=LONG_TIMEOUT_S, join_timeout_s=1)
    assert isinstance(error, TimeoutError)
    assert str(error) == "the 2 worker processes did not finish within 1 s; they were stopped"
    assert 1 <= elapsed < BOUND_S


def test_an_unknown_fault_is_refused():
    with pytest.raises(ValueError, match=r"unknown fault kind 'explode'; expected one of \('raise', 'exit'"):
        Fault(0, "explode")
