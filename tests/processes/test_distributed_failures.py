"""A failing, killed or hanging worker ends the run with a clear error, and nothing waits for a peer's timeout.

No assert here times the run: on a busy machine starting the processes alone can take minutes.
The collective and launcher timeouts are an hour (NO_BOUND_S) unless a test is about one of them,
so a run that waited for one of them would hang, and pytest-timeout's limit (pyproject.toml: 600 s)
turns that hang into a failure.
"""

import re

import pytest
from fault_injection import Fault, faulty_worker

from utils.distributed import launcher as L
from utils.distributed.vocab_parallel_run import ProblemSpec

SPEC = ProblemSpec()
NO_BOUND_S = 3600  # longer than pytest-timeout's 600 s: a test that passes did not wait for it


def _run_with_fault(fault, **kwargs):
    with pytest.raises((L.WorkerError, TimeoutError)) as info:
        L.launch(faulty_worker, 2, args=(SPEC, fault), **kwargs)
    return info.value


def test_a_worker_that_raises_surfaces_as_a_clear_error():
    error = _run_with_fault(Fault(rank=1, kind="raise"), timeout_s=NO_BOUND_S)
    assert isinstance(error, L.WorkerError) and isinstance(error, RuntimeError)
    assert str(error) == ("rank 1 of 2 failed: RuntimeError: injected failure on rank 1; "
                          "the other processes were stopped")
    assert (error.rank, error.world_size) == (1, 2)
    assert "Traceback" in error.details and "injected failure on rank 1" in error.details
    # rank 0 was in its all_reduce, with an hour's timeout: it failed too (its peer went) or was stopped, and the
    # error names rank 1, the cause


def test_a_killed_worker_ends_the_run():
    error = _run_with_fault(Fault(rank=0, kind="kill"), timeout_s=NO_BOUND_S)
    assert str(error) == "rank 0 of 2 was killed by signal SIGKILL; the other processes were stopped"


def test_a_worker_that_exits_names_its_exit_code():
    error = _run_with_fault(Fault(rank=1, kind="exit"), timeout_s=NO_BOUND_S)
    assert str(error) == "rank 1 of 2 exited with code 3; the other processes were stopped"


def test_the_collective_timeout_bounds_a_wait_for_a_hanging_peer():
    error = _run_with_fault(Fault(rank=1, kind="hang"), timeout_s=2, join_timeout_s=NO_BOUND_S)
    assert isinstance(error, L.WorkerError) and error.rank == 0
    # the launcher's own deadline is an hour: rank 0's 2 s collective timeout is what ended the run
    assert re.search(r"rank 0 of 2 failed: .*Timed out waiting 2000ms for recv", str(error)), str(error)


def test_the_launcher_gives_up_at_its_deadline():
    # a collective timeout longer than the launcher's deadline: the launcher's bound acts first
    error = _run_with_fault(Fault(rank=1, kind="hang"), timeout_s=NO_BOUND_S, join_timeout_s=1)
    assert isinstance(error, TimeoutError)
    assert str(error) == "the 2 worker processes did not finish within 1 s; they were stopped"


def test_an_unknown_fault_is_refused():
    with pytest.raises(ValueError, match=r"unknown fault kind 'explode'; expected one of \('raise', 'exit'"):
        Fault(0, "explode")
