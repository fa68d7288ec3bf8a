"""Start ``P`` processes in one ``torch.distributed`` process group, and stop them all when one fails.

:func:`launch` runs ``fn(rank, world_size, *args)`` in ``world_size`` new processes
and returns what each call returned, in rank order. It starts them with
:func:`torch.multiprocessing.start_processes` (``forkserver`` where the platform has
it, else ``spawn``); they meet on ``127.0.0.1`` at a free port chosen at run time, with
the ``gloo`` backend on the CPU or NCCL, one GPU per process (:func:`backend_for`).
``fn`` must be an importable function (for example in ``utils/distributed.py``): both
start methods pickle a function by its module and name, so a function defined in a
notebook cannot be sent. Each worker saves what it returns to a file in a temporary
folder, and the parent loads the files once all workers have finished; their own
output goes to log files there, so nothing they print reaches a notebook.
:func:`prepare_workers` starts the fork server early, in the background.

Failures
--------
Every process group is created with a timeout, which bounds every collective (with
NCCL, through its watchdog); the group is always destroyed, also when the worker
fails (:func:`process_group`). The launcher waits for the workers with a deadline:
when one fails, it stops the others at once and raises :class:`WorkerError` naming the
rank and the cause; when the deadline passes, it stops them all and raises
:class:`TimeoutError`. :class:`Fault` makes one worker fail on purpose, for
demonstrations and tests.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing.connection
import os
import pickle
import signal
import socket
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

from .checks import check_int, check_positive

#: the loopback address: the worker processes talk to each other only on this machine
LOOPBACK = "127.0.0.1"
#: seconds a collective (and the start-up rendezvous) may wait before it raises
DEFAULT_TIMEOUT_S = 30.0
#: extra seconds the launcher allows on top of the collective timeout (start-up, imports)
STARTUP_ALLOWANCE_S = 60.0
FAULT_KINDS = ("raise", "exit", "kill", "hang")


class WorkerError(RuntimeError):
    """A worker process failed. ``rank``: the first rank that failed; ``details``: its traceback."""

    def __init__(self, message: str, rank: int, world_size: int, details: str = "") -> None:
        super().__init__(message)
        self.rank, self.world_size, self.details = rank, world_size, details


@dataclass(frozen=True)
class Fault:
    """A failure to inject into one worker, just before its collective (for demonstrations and tests).

    ``kind``: ``"raise"`` (an exception), ``"exit"`` (exit code 3), ``"kill"`` (SIGKILL
    itself) or ``"hang"`` (sleep instead of joining the collective).
    """

    rank: int
    kind: str = "raise"

    def __post_init__(self) -> None:
        check_int("Fault.rank", self.rank, 0)
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


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port that is free on ``host`` right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def backend_for(device: str, world_size: int) -> str:
    """``"gloo"`` for ``device="cpu"``; ``"nccl"`` for ``"cuda"``, which needs one GPU per process."""
    if device == "cpu":
        return "gloo"
    if device == "cuda":
        found = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if found < world_size:
            raise ValueError(f"device='cuda' needs one GPU per process: world_size {world_size}, "
                             f"but {found} GPU(s) are visible; use device='cpu' (gloo)")
        if not dist.is_nccl_available():
            raise ValueError("device='cuda' uses the NCCL backend, which this PyTorch build lacks")
        return "nccl"
    raise ValueError(f"device must be 'cpu' or 'cuda', got {device!r}")


@contextlib.contextmanager
def process_group(rank: int, world_size: int, *, backend: str = "gloo", init_method: str = "env://",
                  timeout_s: float = DEFAULT_TIMEOUT_S) -> Iterator[Any]:
    """Join a process group for the duration of a ``with`` block; always destroy it afterwards.

    ``timeout_s`` bounds the rendezvous and every collective: one that waits longer
    raises instead of hanging. With NCCL, the process uses GPU ``LOCAL_RANK`` (or ``rank``).
    """
    timeout_s = check_positive("timeout_s", timeout_s, unit="seconds")
    if backend == "nccl":
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    dist.init_process_group(backend, init_method=init_method, rank=rank, world_size=world_size,
                            timeout=timedelta(seconds=timeout_s))
    try:
        yield dist.group.WORLD
    finally:
        dist.destroy_process_group()


def _entry(rank: int, fn: Callable[..., Any], world_size: int, backend: str, init_method: str, timeout_s: float,
           result_dir: str, args: tuple) -> None:
    """What each spawned process runs: join the group, call ``fn(rank, world_size, *args)``, save the result."""
    folder = Path(result_dir)
    # The workers' own output (and PyTorch's C++ warnings) goes to a per-rank log file,
    # not into the notebook; an error reaches the parent through the error file below.
    log = os.open(folder / f"rank{rank}.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(log, 1)
    os.dup2(log, 2)
    if backend == "gloo":
        torch.set_num_threads(1)  # P processes share the cores
        loopback = _loopback_interface()
        if loopback and "GLOO_SOCKET_IFNAME" not in os.environ:
            os.environ["GLOO_SOCKET_IFNAME"] = loopback  # gloo's connections stay on this machine too
    try:
        with process_group(rank, world_size, backend=backend, init_method=init_method, timeout_s=timeout_s):
            try:
                result = fn(rank, world_size, *args)
            except Exception as error:
                _report_error(folder, rank, error)  # before the group goes down and the peers see it close
                raise
        partial = folder / f"rank{rank}.pt.partial"
        torch.save(result, partial)
        partial.rename(folder / f"rank{rank}.pt")
    except Exception as error:
        if not (folder / f"rank{rank}.error.json").is_file():
            _report_error(folder, rank, error)
        raise


def _loopback_interface() -> str | None:
    """The name of the loopback network interface (``lo`` on Linux, ``lo0`` on macOS), if there is one."""
    try:
        names = {name for _, name in socket.if_nameindex()}
    except (AttributeError, OSError):
        return None
    return next((name for name in ("lo", "lo0") if name in names), None)


def _report_error(folder: Path, rank: int, error: Exception) -> None:
    report = {"time": time.time(), "error": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc()}
    # written whole, then renamed into place (as the results are): the launcher may read the
    # folder while this process is still writing, and an empty file is not a report
    partial = folder / f"rank{rank}.error.json.partial"
    partial.write_text(json.dumps(report))
    partial.replace(folder / f"rank{rank}.error.json")


def _importable(fn: Callable[..., Any]) -> None:
    if not callable(fn):
        raise TypeError(f"fn must be a function, got {type(fn).__name__}")
    module, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if module in (None, "__main__") or "<" in qualname:
        raise ValueError(
            f"the worker function {qualname or fn!r} must be defined at the top level of an importable module "
            "(for example utils/distributed.py), not in a notebook or inside another function: "
            "spawned processes import it by module and name"
        )


def _read_error(folder: Path, rank: int) -> dict | None:
    path = folder / f"rank{rank}.error.json"
    return json.loads(path.read_text()) if path.is_file() else None


def _torch_traceback(error_files: list | None, rank: int) -> str:
    """The traceback torch.multiprocessing saved for ``rank`` (an exception outside our report), or ``""``."""
    path = error_files[rank] if error_files else None
    if not path or not os.path.isfile(path):
        return ""
    with open(path, "rb") as file:
        return str(pickle.load(file))


def _root_cause(processes: list, folder: Path, world_size: int, error_files: list | None = None) -> WorkerError:
    """The first failure among the workers, as a :class:`WorkerError`.

    A process that died without an error report (a signal, ``os._exit``) is the cause
    (its peers only saw their connections close); otherwise the earliest error report.
    """
    stopped = "; the other processes were stopped" if world_size > 1 else ""
    failed = [r for r, p in enumerate(processes) if p.exitcode not in (None, 0)]
    reports = {r: report for r in range(world_size) if (report := _read_error(folder, r)) is not None}
    crashed = [r for r in failed if r not in reports]
    if crashed or not reports:
        rank = (crashed or failed)[0]
        code = processes[rank].exitcode
        details = _torch_traceback(error_files, rank)
        if details.strip():
            how = f"failed: {details.strip().splitlines()[-1]}"
        elif code < 0:
            how = f"was killed by signal {signal.Signals(-code).name}"
        else:
            how = f"exited with code {code}"
        return WorkerError(f"rank {rank} of {world_size} {how}{stopped}", rank, world_size, details)
    rank = min(reports, key=lambda r: (reports[r]["time"], r))
    return WorkerError(f"rank {rank} of {world_size} failed: {reports[rank]['error']}{stopped}",
                       rank, world_size, reports[rank]["traceback"])


def _stop(processes: list, grace_s: float = 2.0) -> None:
    """SIGTERM every live process, then SIGKILL what is still alive after ``grace_s``."""
    for process in processes:
        if process.is_alive():
            process.terminate()
    deadline = time.monotonic() + grace_s
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.kill()
        process.join()


def prepare_workers(start_method: str | None = None, modules: tuple[str, ...] = ()) -> str:
    """Choose the start method (default: ``forkserver`` where the platform has it, else ``spawn``); return it.

    With ``forkserver``, also start the server now, in the background: it imports
    PyTorch, this module and ``modules`` (such as the workers' own module) while the
    caller goes on, so the first :func:`launch` finds it ready. Calling it again does
    nothing more.
    """
    if start_method is None:
        start_method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    if start_method not in ("spawn", "forkserver"):
        raise ValueError(f"start_method must be 'spawn' or 'forkserver', got {start_method!r}")
    if start_method == "forkserver":
        from multiprocessing import forkserver  # POSIX only

        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(list(dict.fromkeys(["torch", __name__, *modules])))
        forkserver.ensure_running()  # returns at once; the server imports in the background
    return start_method


def launch(fn: Callable[..., Any], world_size: int = 2, *, args: tuple = (), backend: str = "gloo",
           timeout_s: float = DEFAULT_TIMEOUT_S, join_timeout_s: float | None = None,
           start_method: str | None = None) -> list[Any]:
    """Run ``fn(rank, world_size, *args)`` in ``world_size`` new processes, inside one process group.

    Returns what each call returned, in rank order. The processes find each other on
    ``127.0.0.1`` at a port chosen now. ``timeout_s`` bounds every collective; the
    launcher itself gives up after ``join_timeout_s`` (default: ``timeout_s`` + 60 s).

    ``start_method``: ``"spawn"`` starts a fresh Python for each process, which imports
    PyTorch again (seconds each). ``"forkserver"`` (the default where the platform has
    it) starts one server process that imports PyTorch, this module and ``fn``'s
    module once, then forks each worker from it: after the first launch, starting
    workers takes a fraction of a second. Both import ``fn`` by module and name, so it
    must be importable. (The server's preload list is set for this Python process.)

    Raises :class:`WorkerError` as soon as one process fails (the others are stopped),
    :class:`TimeoutError` when the deadline passes (all are stopped).
    """
    import torch.multiprocessing as mp

    _importable(fn)
    check_int("world_size", world_size, 1)
    timeout_s = check_positive("timeout_s", timeout_s, unit="seconds")
    join_timeout_s = check_positive("join_timeout_s", timeout_s + STARTUP_ALLOWANCE_S
                                    if join_timeout_s is None else join_timeout_s, unit="seconds")
    start_method = prepare_workers(start_method, modules=(fn.__module__,))
    init_method = f"tcp://{LOOPBACK}:{free_port()}"
    with tempfile.TemporaryDirectory(prefix="vocab-parallel-") as tmp:
        folder = Path(tmp)
        context = mp.start_processes(_entry, args=(fn, world_size, backend, init_method, timeout_s, tmp, args),
                                     nprocs=world_size, join=False, start_method=start_method)
        processes = context.processes
        # tracebacks torch.multiprocessing writes for failed workers (PyTorch >= 2.3; older releases have none)
        error_files = getattr(context, "error_files", None) or []
        try:
            deadline = time.monotonic() + join_timeout_s
            while True:
                if any(p.exitcode not in (None, 0) for p in processes):
                    raise _root_cause(processes, folder, world_size, error_files)
                alive = [p for p in processes if p.exitcode is None]
                if not alive:
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"the {world_size} worker processes did not finish within "
                                       f"{join_timeout_s:g} s; they were stopped")
                multiprocessing.connection.wait([p.sentinel for p in alive], timeout=min(left, 0.5))
            # our own files, written by the workers just now: any picklable result may come back
            return [torch.load(folder / f"rank{rank}.pt", weights_only=False) for rank in range(world_size)]
        finally:
            _stop(processes)
            for path in error_files:
                with contextlib.suppress(FileNotFoundError, TypeError):
                    os.unlink(path)
