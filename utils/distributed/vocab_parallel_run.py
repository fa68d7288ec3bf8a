"""Notebook 8's run: one seeded table and batch, forward and backward, on real processes.

:func:`run_vocab_parallel` starts ``P`` processes (:mod:`utils.distributed.launcher`) that
each run :func:`vocab_parallel_worker`: it keeps its rows of the table in a
:class:`utils.vocab_parallel.VocabParallelEmbedding`, runs the forward (a local lookup and
one all-reduce) and the backward, and returns what it computed. The worker lives here,
in a module, because the new processes import it by module and name.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.distributed as dist
import torch.nn.functional as F

from ..checks import check_int
from ..vocab_parallel import VocabParallelEmbedding, shard_bounds
from .launcher import DEFAULT_TIMEOUT_S, backend_for, launch

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


def vocab_parallel_worker(rank: int, world_size: int, spec: ProblemSpec) -> RankResult:
    """One process's forward and backward, inside an initialised process group.

    Every process draws the same seeded problem and keeps only its rows of the table
    (a real system would initialise or load just those).
    """
    backend = dist.get_backend()
    device = torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else torch.device("cpu")
    weight, ids, grad_out = make_problem(spec)
    layer = VocabParallelEmbedding.from_full_weight(weight, rank, world_size, device=device)
    del weight  # from here on, this process holds only its rows
    ids, grad_out = ids.to(device), grad_out.to(device)
    output = layer(ids)  # the forward: local lookup + all_reduce(SUM)
    (output * grad_out).sum().backward()
    owned = int(((ids >= layer.start) & (ids < layer.end)).sum())
    return RankResult(rank, world_size, layer.start, layer.end, output.detach().cpu(), layer.weight.grad.cpu(),
                      owned, layer.weight.numel() * layer.weight.element_size(), backend)


def run_vocab_parallel(spec: ProblemSpec, world_size: int = 2, *, device: str = "cpu",
                       timeout_s: float = DEFAULT_TIMEOUT_S, join_timeout_s: float | None = None,
                       start_method: str | None = None) -> list[RankResult]:
    """Run :func:`vocab_parallel_worker` on ``world_size`` processes; their results in rank order.

    ``device="cpu"``: gloo; ``device="cuda"``: NCCL, one GPU per process. The other
    arguments go to :func:`launch`.
    """
    if not isinstance(spec, ProblemSpec):
        raise TypeError(f"spec must be a ProblemSpec, got {type(spec).__name__}")
    shard_bounds(spec.vocab_size, world_size)  # fails early for world_size > vocab_size
    backend = backend_for(device, world_size)
    return launch(vocab_parallel_worker, world_size, args=(spec,), backend=backend,
                  timeout_s=timeout_s, join_timeout_s=join_timeout_s, start_method=start_method)


def compare_with_single_device(results: list[RankResult], reference: tuple[torch.Tensor, torch.Tensor]) -> dict:
    """Exact comparisons of each rank's output and gradient with the single-device ones."""
    output, weight_grad = reference
    return {
        "forward": all(torch.equal(r.output, output) for r in results),
        "backward": all(torch.equal(r.weight_grad, weight_grad[r.start:r.end]) for r in results),
        "gradients_cover_table": torch.equal(torch.cat([r.weight_grad for r in results]), weight_grad),
    }
