"""A vocabulary-parallel embedding on ``torch.distributed``.

When an embedding table ``[V, d]`` is too large for one device, ``P`` processes can
each hold a contiguous block of its rows. Process ``r`` holds rows ``[start_r, end_r)``
(:func:`shard_bounds`; when ``P`` does not divide ``V`` the first ``V % P`` processes
hold one row more). For a batch of ids, each process

1. masks the ids it does not own,
2. looks up the rest in its own rows (:func:`local_lookup`),
3. leaves zeros in the rows of the masked ids,

and an ``all_reduce(SUM)`` adds the ``P`` partial results: every id's row comes from
exactly one process and zeros from the others, so every process ends with exactly the
single-device result. In the backward pass the gradient of the output is the same on
every process (they all compute the same loss from the same output), so each process
keeps it as it is and its weight gradient is its slice of the single-device gradient.

Running it
----------
- From Python or a notebook: :func:`run_vocab_parallel` starts ``P`` worker processes
  with :func:`torch.multiprocessing.start_processes` (``forkserver`` where the platform
  has it, else ``spawn``), on the CPU with the ``gloo`` backend, on ``127.0.0.1`` and a
  free port chosen at run time (or with NCCL, one GPU per process, for
  ``device="cuda"``). The workers must be importable functions (this module): both
  start methods pickle a function by its module and name, so a function defined in a
  notebook cannot be sent. Each worker saves what it returns to a file in a temporary
  folder, and the parent loads the files once all workers have finished; their own
  output goes to log files there, so nothing they print reaches a notebook.
  :func:`prepare_workers` starts the fork server early, in the background.
- From a shell, on CPUs: ``python -m utils.distributed --nproc 3``.
- On GPUs, with NCCL and ``torchrun`` (one process per GPU)::

      torchrun --nproc-per-node 2 -m utils.distributed --device cuda

Failures
--------
Every process group is created with a timeout, which bounds every collective (with
NCCL, through its watchdog); the group is always destroyed, also when the worker
fails. The launcher waits for the workers with a deadline: when one fails, it stops
the others at once and raises :class:`WorkerError` naming the rank and the cause;
when the deadline passes, it stops them all and raises :class:`TimeoutError`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing.connection
import os
import pickle
import signal
import socket
import sys
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
import torch.nn as nn
import torch.nn.functional as F

from .checks import check_int, check_positive
from .lookup import check_ids

#: the loopback address: the worker processes talk to each other only on this machine
LOOPBACK = "127.0.0.1"
#: seconds a collective (and the start-up rendezvous) may wait before it raises
DEFAULT_TIMEOUT_S = 30.0
#: extra seconds the launcher allows on top of the collective timeout (start-up, imports)
STARTUP_ALLOWANCE_S = 60.0
FAULT_KINDS = ("raise", "exit", "kill", "hang")


# --- splitting the vocabulary ---------------------------------------------------------


def shard_bounds(vocab_size: int, world_size: int) -> list[tuple[int, int]]:
    """Rows ``[start, end)`` held by each of ``world_size`` processes, in rank order.

    Contiguous blocks covering ``0..vocab_size-1``; the first ``vocab_size % world_size``
    blocks hold one row more, so sizes differ by at most one
    (``shard_bounds(11, 3) == [(0, 4), (4, 8), (8, 11)]``).
    """
    check_int("vocab_size", vocab_size, 1)
    check_int("world_size", world_size, 1)
    if world_size > vocab_size:
        raise ValueError(
            f"world_size {world_size} is larger than vocab_size {vocab_size}: "
            "every process must hold at least one row"
        )
    base, extra = divmod(vocab_size, world_size)
    bounds, start = [], 0
    for rank in range(world_size):
        end = start + base + (1 if rank < extra else 0)
        bounds.append((start, end))
        start = end
    return bounds


def owner_of(ids: torch.Tensor, vocab_size: int, world_size: int) -> torch.Tensor:
    """The rank that holds the row of each id: ids ``S`` -> ranks ``S`` (int64)."""
    check_ids(ids, vocab_size)
    ends = torch.tensor([end for _, end in shard_bounds(vocab_size, world_size)], device=ids.device)
    return torch.bucketize(ids.long(), ends, right=True)


# --- what one process computes ----------------------------------------------------------


def _check_local_lookup(ids: object, local_weight: object, start: object) -> None:
    if not isinstance(local_weight, torch.Tensor) or local_weight.dim() != 2:
        shape = tuple(local_weight.shape) if isinstance(local_weight, torch.Tensor) else type(local_weight).__name__
        raise ValueError(f"local_weight must be a 2-D tensor [rows, d], got {shape}")
    check_int("start", start, 0)
    if not isinstance(ids, torch.Tensor) or ids.dtype not in (torch.int32, torch.int64):
        got = ids.dtype if isinstance(ids, torch.Tensor) else type(ids).__name__
        raise TypeError(f"ids must be an int64 (or int32) tensor, got {got}")


def local_lookup(ids: torch.Tensor, local_weight: torch.Tensor, start: int) -> torch.Tensor:
    """One process's share of the lookup: ids ``S`` int64 -> ``S + (d,)``.

    ``local_weight`` holds rows ``[start, start + n_local)`` of the full table. Ids
    outside that range are masked and their output rows stay zero; the others are
    looked up at local row ``id - start``. Only the owned ids are looked up
    (Megatron-LM instead looks up local row 0 for the masked ids and zeroes those
    rows afterwards, which keeps shapes fixed): this way each row's gradient sums
    the same values, in the same order, as on a single device.
    """
    _check_local_lookup(ids, local_weight, start)
    ids = ids.to(local_weight.device)
    end = start + local_weight.shape[0]
    owned = (ids >= start) & (ids < end)  # the mask: True where this process holds the row
    out = local_weight.new_zeros(*ids.shape, local_weight.shape[1])  # masked rows stay zero
    out[owned] = F.embedding(ids[owned] - start, local_weight)  # look up the rest, at local row id - start
    return out


class _AllReduceSum(torch.autograd.Function):
    """Forward: ``all_reduce(SUM)`` of the partial outputs. Backward: the identity.

    Every process computes the same loss from the same (all-reduced) output, so the
    gradient arriving here is already the same on every process; each one keeps it as
    it is. (An all-reduce in the backward as well would multiply it by ``P``.)
    """

    @staticmethod
    def forward(ctx, partial: torch.Tensor, group: Any) -> torch.Tensor:
        total = partial.clone()
        dist.all_reduce(total, op=dist.ReduceOp.SUM, group=group)
        return total

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor) -> tuple[torch.Tensor, None]:
        return grad_output, None


def all_reduce_sum(partial: torch.Tensor, group: Any = None) -> torch.Tensor:
    """Sum ``partial`` over the processes of ``group`` (default: all), with autograd."""
    if not dist.is_initialized():
        raise RuntimeError("all_reduce_sum needs a process group: call it inside process_group(...)")
    return _AllReduceSum.apply(partial, group)


class VocabParallelEmbedding(nn.Module):
    """An ``nn.Embedding(num_embeddings, embedding_dim)`` split by rows over ``world_size`` processes.

    Process ``rank`` stores only rows ``[start, end)`` as its ``weight`` parameter,
    shape ``[end - start, embedding_dim]``. ``forward(ids)``: ids ``S`` int64 ->
    ``S + (embedding_dim,)``, the same on every process; it needs an initialised
    process group unless ``world_size == 1``.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, rank: int, world_size: int, *,
                 group: Any = None, device: torch.device | str | None = None, dtype: torch.dtype | None = None,
                 generator: torch.Generator | None = None) -> None:
        super().__init__()
        check_int("embedding_dim", embedding_dim, 1)
        bounds = shard_bounds(num_embeddings, world_size)
        check_int("rank", rank, 0)
        if rank >= world_size:
            raise ValueError(f"rank {rank} is out of range for world_size {world_size} "
                             f"(valid ranks: 0..{world_size - 1})")
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.rank, self.world_size, self.group = rank, world_size, group
        self.start, self.end = bounds[rank]
        weight = torch.empty(self.end - self.start, embedding_dim, dtype=dtype)
        nn.init.normal_(weight, generator=generator)  # N(0, 1), as nn.Embedding, but only these rows
        self.weight = nn.Parameter(weight.to(device))

    @classmethod
    def from_full_weight(cls, weight: torch.Tensor, rank: int, world_size: int, *, group: Any = None,
                         device: torch.device | str | None = None) -> VocabParallelEmbedding:
        """The shard of ``rank``, holding a copy of rows ``[start, end)`` of ``weight`` ``[V, d]``."""
        if not isinstance(weight, torch.Tensor) or weight.dim() != 2:
            shape = tuple(weight.shape) if isinstance(weight, torch.Tensor) else type(weight).__name__
            raise ValueError(f"weight must be a 2-D tensor [num_embeddings, embedding_dim], got {shape}")
        layer = cls(weight.shape[0], weight.shape[1], rank, world_size, group=group, dtype=weight.dtype)
        with torch.no_grad():
            layer.weight.copy_(weight[layer.start:layer.end])
        return layer.to(device) if device is not None else layer

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        check_ids(ids, self.num_embeddings)
        partial = local_lookup(ids, self.weight, self.start)
        if self.world_size == 1 and not dist.is_initialized():
            return partial
        return all_reduce_sum(partial, self.group)

    def extra_repr(self) -> str:
        return (f"{self.num_embeddings}, {self.embedding_dim}, rank={self.rank}, world_size={self.world_size}, "
                f"rows=[{self.start}, {self.end})")


# --- process groups and the launcher ----------------------------------------------------


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
    (folder / f"rank{rank}.error.json").write_text(json.dumps(report))


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
    PyTorch, this module and ``modules`` while the caller goes on, so the first
    :func:`launch` finds it ready. Calling it again does nothing more.
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
    it) starts one server process that imports PyTorch and this module once, then
    forks each worker from it: after the first launch, starting workers takes a
    fraction of a second. Both import ``fn`` by module and name, so it must be
    importable. (The server's preload list is set for this Python process.)

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


# --- the experiment: one table, one batch, forward and backward -------------------------


@dataclass(frozen=True)
class ProblemSpec:
    """A seeded problem: a table ``[vocab_size, dim]``, ids ``(batch, seq_len)`` and a gradient for the output."""

    vocab_size: int = 11
    dim: int = 4
    batch: int = 2
    seq_len: int = 6
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("vocab_size", "dim", "batch", "seq_len"):
            check_int(name, getattr(self, name), 1)
        check_int("seed", self.seed, 0)


def make_problem(spec: ProblemSpec) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(weight [V, d], ids (B, T) int64, grad_out (B, T, d))``, drawn on the CPU from ``spec.seed``.

    ``grad_out`` is the gradient of the loss with respect to the output: the loss is
    ``(output * grad_out).sum()``. Its values are multiples of 1/8 in [-1, 1], so a row's
    weight gradient, the sum of the ``grad_out`` rows of its repeated ids, is exact in any
    order: the comparisons are bit for bit whatever order a backend adds in (CUDA's
    embedding backward may use atomics).
    """
    generator = torch.Generator().manual_seed(spec.seed)
    weight = torch.randn(spec.vocab_size, spec.dim, generator=generator)
    ids = torch.randint(0, spec.vocab_size, (spec.batch, spec.seq_len), generator=generator)
    grad_out = torch.randint(-8, 9, (spec.batch, spec.seq_len, spec.dim), generator=generator) / 8
    return weight, ids, grad_out


def single_device_reference(spec: ProblemSpec, device: torch.device | str = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
    """``(output (B, T, d), weight grad [V, d])`` of the whole table on one device, returned on the CPU."""
    weight, ids, grad_out = make_problem(spec)
    weight = weight.to(device).requires_grad_()
    output = F.embedding(ids.to(device), weight)
    (output * grad_out.to(device)).sum().backward()
    return output.detach().cpu(), weight.grad.cpu()


@dataclass(frozen=True)
class RankResult:
    """What one process returns: its rows, the output it ended with, its weight gradient (on the CPU)."""

    rank: int
    world_size: int
    start: int
    end: int
    output: torch.Tensor  # (B, T, d), after the all-reduce
    weight_grad: torch.Tensor  # [end - start, d]
    owned: int  # how many of the ids this process looked up
    shard_bytes: int  # bytes of its weight
    backend: str


def vocab_parallel_worker(rank: int, world_size: int, spec: ProblemSpec, fault: Fault | None = None) -> RankResult:
    """One process's forward and backward, inside an initialised process group.

    Every process draws the same seeded problem and keeps only its rows of the table
    (a real system would initialise or load just those). ``fault`` injects a failure
    just before the collective.
    """
    backend = dist.get_backend()
    device = torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else torch.device("cpu")
    weight, ids, grad_out = make_problem(spec)
    layer = VocabParallelEmbedding.from_full_weight(weight, rank, world_size, device=device)
    del weight  # from here on, this process holds only its rows
    ids, grad_out = ids.to(device), grad_out.to(device)
    if fault is not None:
        fault.trigger(rank)
    output = layer(ids)  # the forward: local lookup + all_reduce(SUM)
    (output * grad_out).sum().backward()
    owned = int(((ids >= layer.start) & (ids < layer.end)).sum())
    return RankResult(rank, world_size, layer.start, layer.end, output.detach().cpu(), layer.weight.grad.cpu(),
                      owned, layer.weight.numel() * layer.weight.element_size(), backend)


def run_vocab_parallel(spec: ProblemSpec, world_size: int = 2, *, device: str = "cpu",
                       timeout_s: float = DEFAULT_TIMEOUT_S, join_timeout_s: float | None = None,
                       fault: Fault | None = None, start_method: str | None = None) -> list[RankResult]:
    """Run :func:`vocab_parallel_worker` on ``world_size`` processes; their results in rank order.

    ``device="cpu"``: gloo; ``device="cuda"``: NCCL, one GPU per process. The other
    arguments go to :func:`launch`.
    """
    if not isinstance(spec, ProblemSpec):
        raise TypeError(f"spec must be a ProblemSpec, got {type(spec).__name__}")
    shard_bounds(spec.vocab_size, world_size)  # fails early for world_size > vocab_size
    backend = backend_for(device, world_size)
    return launch(vocab_parallel_worker, world_size, args=(spec, fault), backend=backend,
                  timeout_s=timeout_s, join_timeout_s=join_timeout_s, start_method=start_method)


def compare_with_single_device(results: list[RankResult], reference: tuple[torch.Tensor, torch.Tensor]) -> dict:
    """Exact comparisons of each rank's output and gradient with the single-device ones."""
    output, weight_grad = reference
    return {
        "forward": all(torch.equal(r.output, output) for r in results),
        "backward": all(torch.equal(r.weight_grad, weight_grad[r.start:r.end]) for r in results),
        "gradients_cover_table": torch.equal(torch.cat([r.weight_grad for r in results]), weight_grad),
    }


# --- what it costs ----------------------------------------------------------------------


@dataclass(frozen=True)
class ParallelCost:
    """Memory and communication of a vocabulary-parallel embedding with ``world_size`` processes."""

    world_size: int
    rows_per_process: int  # the largest shard
    table_bytes: int  # the whole table
    bytes_per_process: int  # the largest shard's bytes
    allreduce_values: int  # n * d: the output, summed once per forward
    allreduce_bytes: int
    ring_bytes_sent: int  # per process, by a ring all-reduce: 2 (P - 1) / P of the payload


def vocab_parallel_cost(vocab_size: int, dim: int, num_tokens: int, world_size: int,
                        bytes_per_value: int = 4) -> ParallelCost:
    """Memory per process and the one all-reduce of ``num_tokens * dim`` values per forward."""
    check_int("dim", dim, 1)
    check_int("num_tokens", num_tokens, 0)
    check_int("bytes_per_value", bytes_per_value, 1)
    rows = max(end - start for start, end in shard_bounds(vocab_size, world_size))
    values = num_tokens * dim
    return ParallelCost(
        world_size=world_size,
        rows_per_process=rows,
        table_bytes=vocab_size * dim * bytes_per_value,
        bytes_per_process=rows * dim * bytes_per_value,
        allreduce_values=values,
        allreduce_bytes=values * bytes_per_value,
        ring_bytes_sent=2 * (world_size - 1) * values * bytes_per_value // world_size,
    )


# --- command line: python -m utils.distributed, or under torchrun ----------------------


def _under_torchrun() -> bool:
    return all(name in os.environ for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Check a vocabulary-parallel embedding against one device, forward and backward. "
                    "Starts --nproc processes itself, or runs as one rank under torchrun.")
    parser.add_argument("--nproc", type=int, default=2, help="processes to start (ignored under torchrun)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="cpu: gloo; cuda: NCCL")
    parser.add_argument("--vocab-size", type=int, default=1_001)
    parser.add_argument("--dim", type=int, default=16)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--seq-len", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds a collective may wait")
    args = parser.parse_args(argv)
    spec = ProblemSpec(args.vocab_size, args.dim, args.batch, args.seq_len, args.seed)

    if _under_torchrun():
        rank, world_size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        backend = backend_for(args.device, int(os.environ.get("LOCAL_WORLD_SIZE", world_size)))
        with process_group(rank, world_size, backend=backend, timeout_s=args.timeout):
            result = vocab_parallel_worker(rank, world_size, spec)
            device = "cuda" if backend == "nccl" else "cpu"
            checks = compare_with_single_device([result], single_device_reference(spec, device))
        print(f"rank {rank} of {world_size} ({backend}): rows [{result.start}, {result.end}), "
              f"forward exact: {checks['forward']}, backward exact: {checks['backward']}", flush=True)
        return 0 if checks["forward"] and checks["backward"] else 1

    results = run_vocab_parallel(spec, args.nproc, device=args.device, timeout_s=args.timeout)
    checks = compare_with_single_device(results, single_device_reference(spec, args.device))
    print(f"V={spec.vocab_size}, d={spec.dim}, ids {spec.batch}x{spec.seq_len}, "
          f"{args.nproc} processes ({results[0].backend})")
    for r in results:
        print(f"  rank {r.rank}: rows [{r.start}, {r.end}), looked up {r.owned} ids, {r.shard_bytes:,} bytes")
    print(f"forward equal on every rank: {checks['forward']}; "
          f"gradients equal the single-device slices: {checks['backward']}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    # Run the copy imported as ``utils.distributed``, not this ``__main__`` one: the workers
    # import their function by that name, and the results must unpickle as its classes. The
    # workers need nothing from ``__main__``, so hide where it came from: otherwise
    # multiprocessing would run this file again in each worker before its function.
    __spec__ = None
    del __file__
    from utils.distributed import main as _main

    sys.exit(_main())
