"""Failures injected into real worker processes, for the launcher's tests (test_distributed_failures.py).

The worker processes import :func:`faulty_worker` by module and name, so it lives in a module of
its own, importable as ``fault_injection`` (pytest puts this folder on ``sys.path``).
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass

from utils.distributed.vocab_parallel_run import ProblemSpec, RankResult, vocab_parallel_worker

FAULT_KINDS = ("raise", "exit", "kill", "hang")


@dataclass(frozen=True)
class Fault:
    """A failure to inject into one worker before its first collective.

    ``kind``: ``"raise"`` (an exception), ``"exit"`` (exit code 3, no exception), ``"kill"``
    (SIGKILL itself) or ``"hang"`` (sleep instead of joining the collective).
    """

    rank: int
    kind: str = "raise"

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; expected one of {FAULT_KINDS}")

    def trigger(self, rank: int) -> None:
        """Fail in the chosen way if ``rank`` is the faulty one; otherwise do nothing."""
        if rank != self.rank:
            return
        if self.kind == "raise":
            raise RuntimeError(f"injected failure on rank {rank}")
        if self.kind == "exit":
            os._exit(3)
        if self.kind == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(24 * 3600)  # "hang": never reach the collective


def faulty_worker(rank: int, world_size: int, spec: ProblemSpec, fault: Fault) -> RankResult:
    """Notebook 8's worker, with ``fault`` injected first: the other ranks wait for this one in their all-reduce."""
    fault.trigger(rank)
    return vocab_parallel_worker(rank, world_size, spec)
