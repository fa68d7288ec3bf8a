"""Start ``P`` processes in one ``torch.distributed`` process group, on PyTorch's own process machinery.

:func:`launch` runs ``fn(rank, world_size, *args)`` in ``world_size`` new processes and
returns what each call returned, in rank order. :func:`torch.multiprocessing.start_processes`
starts them (``forkserver`` where the platform has it, else ``spawn``), and its
``ProcessContext.join`` waits for them: when one fails it stops the others and raises,
naming the process. The processes meet on ``127.0.0.1`` at a port chosen at run time,
with the ``gloo`` backend on the CPU or NCCL, one GPU per process (:func:`backend_for`).

``fn`` must be an importable function (for example
``utils.distributed.vocab_parallel_run.vocab_parallel_worker``): both start methods send a
function by its module and name, so one defined in a notebook cannot be sent. Each
worker's output goes to a log file in a temporary folder, so nothing it prints reaches a
notebook, and what it returns comes back through a file there.

Failures
--------
Every process group is created with a timeout, which bounds every collective (with NCCL,
through its watchdog), and it is destroyed when the worker ends, also when it fails
(:func:`process_group`). When a worker fails, the launcher raises :class:`WorkerError`
naming the first cause: a process that died on its own (a signal, an exit code), else
the earliest exception (its peers' errors only say that it went away). When
``join_timeout_s`` passes first, it stops them all and raises :class:`TimeoutError`.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import signal
import socket
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from ..checks import check_int, check_positive

#: the loopback address: the worker processes talk to each other only on this machine
LOOPBACK = "127.0.0.1"
#: seconds a collective (and the start-up rendezvous) may wait before it raises
DEFAULT_TIMEOUT_S = 30.0
#: extra seconds the launcher allows on top of the collective timeout (start-up, imports)
STARTUP_ALLOWANCE_S = 60.0
START_METHODS = ("spawn", "forkserver")


class WorkerError(RuntimeError):
    """A worker process failed. ``rank``: the first rank that failed; ``details``: its traceback."""

    def __init__(self, message: str, rank: int, world_size: int, details: str = "") -> None:
        super().__init__(message)
        self.rank, self.world_size, self.details = rank, world_size, details


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


def use_tcp_store_without_libuv_on_windows() -> None:
    """On Windows, let the rendezvous store run without libuv (``USE_LIBUV=0``), unless set already.

    From PyTorch 2.4 on, ``init_process_group``'s TCP store asks for libuv, and PyTorch's
    Windows builds (2.4 to at least 2.6) lack it: "use_libuv was requested but PyTorch was
    build without libuv support" (pytorch/pytorch#139990). ``USE_LIBUV=0`` picks the store's
    older backend, as LLMs-from-scratch's Windows DDP script does; both the ``tcp://`` and the
    ``env://`` rendezvous read it, and PyTorch before 2.4 ignores it. Elsewhere nothing changes.
    """
    if sys.platform == "win32":
        os.environ.setdefault("USE_LIBUV", "0")


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
    use_tcp_store_without_libuv_on_windows()
    dist.init_process_group(backend, init_method=init_method, rank=rank, world_size=world_size,
                            timeout=timedelta(seconds=timeout_s))
    try:
        yield dist.group.WORLD
    finally:
        dist.destroy_process_group()


def _worker(rank: int, fn: Callable[..., Any], args: tuple, world_size: int, backend: str, init_method: str,
            timeout_s: float, folder: str) -> None:
    """What each started process runs: join the group, call ``fn(rank, world_size, *args)``, save its result."""
    folder = Path(folder)
    # the worker's own output (and PyTorch's C++ warnings) goes to a log file, not into the notebook
    log = os.open(folder / f"rank{rank}.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(log, 1)
    os.dup2(log, 2)
    if backend == "gloo":
        torch.set_num_threads(1)  # P processes share the cores
        loopback = _loopback_interface()
        if loopback and "GLOO_SOCKET_IFNAME" not in os.environ:
            os.environ["GLOO_SOCKET_IFNAME"] = loopback  # gloo's connections stay on this machine too
    with contextlib.ExitStack() as group:
        try:
            group.enter_context(process_group(rank, world_size, backend=backend, init_method=init_method,
                                              timeout_s=timeout_s))
            result = fn(rank, world_size, *args)
        except Exception as error:
            _write_note(folder, rank, error)  # before the group goes down and the peers see this process go
            raise
    torch.save(result, folder / f"rank{rank}.pt")


def _write_note(folder: Path, rank: int, error: BaseException) -> None:
    """Note when and how this worker failed, in ``rank<r>.error.json`` (written whole, then renamed into
    place: a worker stopped while writing leaves no half-written note). The time is the machine's
    monotonic clock, which every process shares: the earliest note is the first cause."""
    note = {"time": time.monotonic(), "error": f"{type(error).__name__}: {error}",
            "traceback": "".join(traceback.format_exception(error))}
    partial = folder / f"rank{rank}.error.json.partial"
    partial.write_text(json.dumps(note))
    partial.replace(folder / f"rank{rank}.error.json")


def _loopback_interface() -> str | None:
    """The name of the loopback network interface (``lo`` on Linux, ``lo0`` on macOS), if there is one."""
    try:
        names = {name for _, name in socket.if_nameindex()}
    except (AttributeError, OSError):  # no if_nameindex (older Windows Pythons), or no permission
        return None
    return next((name for name in ("lo", "lo0") if name in names), None)


def _importable(fn: Callable[..., Any]) -> None:
    if not callable(fn):
        raise TypeError(f"fn must be a function, got {type(fn).__name__}")
    module, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if module in (None, "__main__") or "<" in qualname:
        raise ValueError(
            f"the worker function {qualname or fn!r} must be defined at the top level of an importable module "
            "(for example utils/distributed/vocab_parallel_run.py), not in a notebook or inside another "
            "function: the new processes import it by module and name"
        )


def _first_failure(processes: list, folder: Path, world_size: int) -> WorkerError:
    """The first cause among the failed workers, as a :class:`WorkerError`.

    A process that died on its own, by a signal other than the SIGTERM that stopped the
    others or by an exit code without an exception, is the cause: its peers only saw
    their connections close. Otherwise the earliest exception is.
    """
    stopped = "; the other processes were stopped" if world_size > 1 else ""
    notes = {rank: json.loads(path.read_text()) for rank in range(world_size)
             if (path := folder / f"rank{rank}.error.json").is_file()}
    died = [rank for rank, process in enumerate(processes)
            if process.exitcode not in (0, None, -signal.SIGTERM) and rank not in notes]
    if died or not notes:
        rank = died[0] if died else next(r for r, p in enumerate(processes) if p.exitcode not in (0, None))
        code = processes[rank].exitcode
        how = f"was killed by signal {signal.Signals(-code).name}" if code < 0 else f"exited with code {code}"
        return WorkerError(f"rank {rank} of {world_size} {how}{stopped}", rank, world_size)
    rank = min(notes, key=lambda r: (notes[r]["time"], r))
    return WorkerError(f"rank {rank} of {world_size} failed: {notes[rank]['error']}{stopped}", rank, world_size,
                       notes[rank]["traceback"])


def prepare_workers(start_method: str | None = None, modules: tuple[str, ...] = ()) -> str:
    """Choose the start method (default: ``forkserver`` where the platform has it, else ``spawn``); return it.

    With ``forkserver``, also start the server now, in the background: it imports
    PyTorch, this module and ``modules`` (such as the workers' own module) while the
    caller goes on, so the first :func:`launch` finds it ready. Calling it again does
    nothing more.
    """
    if start_method is None:
        start_method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    if start_method not in START_METHODS:
        raise ValueError(f"start_method must be 'spawn' or 'forkserver', got {start_method!r}")
    if start_method == "forkserver":
        from multiprocessing import forkserver  # imported here: the module exists on POSIX only

        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(list(dict.fromkeys(["torch", __name__, *modules])))
        forkserver.ensure_running()  # returns at once; the server imports in the background
    return start_method


def prepare_workers_in_a_kernel(modules: tuple[str, ...] = ()) -> str | None:
    """In a Jupyter kernel, :func:`prepare_workers` now (the server starts in the background); elsewhere nothing.

    Returns the start method, or None outside a kernel. :mod:`utils.distributed.vocab_parallel_run`
    calls it as it is imported: notebook 8 imports that module in its first cells, so the
    server imports PyTorch while the learner reads the sections before the first run, which
    then finds it ready (1.6 s sooner, measured on two cores). Only in a kernel: the server
    and the workers import that module too and must not start servers of their own, and a
    script or a test has the server started by its first :func:`launch`.
    """
    ipython = sys.modules.get("IPython")
    if "ipykernel" not in sys.modules or ipython is None or ipython.get_ipython() is None:
        return None
    return prepare_workers(modules=modules)


def launch(fn: Callable[..., Any], world_size: int = 2, *, args: tuple = (), backend: str = "gloo",
           timeout_s: float = DEFAULT_TIMEOUT_S, join_timeout_s: float | None = None,
           start_method: str | None = None) -> list[Any]:
    """Run ``fn(rank, world_size, *args)`` in ``world_size`` new processes, inside one process group.

    Returns what each call returned, in rank order. ``timeout_s`` bounds every collective;
    the launcher itself gives up after ``join_timeout_s`` (default: ``timeout_s`` + 60 s).

    ``start_method``: ``"spawn"`` starts a fresh Python for each process, which imports
    PyTorch again (seconds each). ``"forkserver"`` (the default where the platform has
    it) starts one server process that imports PyTorch and ``fn``'s module once, then
    forks each worker from it: after the first launch, starting workers takes a fraction
    of a second (:func:`prepare_workers`).

    Raises :class:`WorkerError` as soon as one process fails (the others are stopped),
    :class:`TimeoutError` when the deadline passes (all are stopped).
    """
    _importable(fn)
    check_int("world_size", world_size, 1)
    timeout_s = check_positive("timeout_s", timeout_s, unit="seconds")
    join_timeout_s = check_positive("join_timeout_s", timeout_s + STARTUP_ALLOWANCE_S
                                    if join_timeout_s is None else join_timeout_s, unit="seconds")
    start_method = prepare_workers(start_method, modules=(fn.__module__,))
    init_method = f"tcp://{LOOPBACK}:{free_port()}"
    with tempfile.TemporaryDirectory(prefix="workers-") as folder:
        context = mp.start_processes(_worker, args=(fn, args, world_size, backend, init_method, timeout_s, folder),
                                     nprocs=world_size, join=False, start_method=start_method)
        deadline = time.monotonic() + join_timeout_s
        try:
            # join() returns True once every process has ended well; when one fails, it stops the
            # others and raises (which one it names is the first it noticed, not always the cause)
            while not context.join(timeout=max(0.0, deadline - time.monotonic())):
                if time.monotonic() >= deadline:
                    raise TimeoutError(f"the {world_size} worker processes did not finish within "
                                       f"{join_timeout_s:g} s; they were stopped")
        except (mp.ProcessRaisedException, mp.ProcessExitedException):
            raise _first_failure(context.processes, Path(folder), world_size) from None
        finally:
            for process in context.processes:  # after a timeout: stop what still runs
                if process.is_alive():
                    process.kill()
                process.join()
        return [torch.load(Path(folder) / f"rank{rank}.pt", weights_only=False) for rank in range(world_size)]
