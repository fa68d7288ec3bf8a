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
- From Python or a notebook: :func:`run_vocab_parallel` starts ``P`` processes that
  each run :func:`vocab_parallel_worker`, on the CPU with the ``gloo`` backend (or with
  NCCL, one GPU per process, for ``device="cuda"``), and returns their results. The
  worker lives in this module, not in a notebook, because the new processes import it
  by module and name. How the processes are started, and what happens when one fails,
  is in ``utils/launcher.py``.
- From a shell, on CPUs: ``python -m utils.distributed --nproc 3``.
- On GPUs, with NCCL and ``torchrun`` (one process per GPU)::

      torchrun --nproc-per-node 2 -m utils.distributed --device cuda
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

from .checks import check_int
from .launcher import DEFAULT_TIMEOUT_S, Fault, backend_for, launch, process_group
from .lookup import check_ids

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
