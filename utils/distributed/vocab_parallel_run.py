"""Notebook 8's run: one seeded table and batch, forward and backward, on real processes.

:func:`vocab_parallel_step` is what each process runs: it keeps its rows of the table in a
:class:`utils.vocab_parallel.VocabParallelEmbedding`, runs the forward (a local lookup and
one all-reduce) and the backward, and returns what it computed. Notebook 8 starts ``P``
processes that run it with :func:`utils.distributed.launcher.launch`, handing them its own
tensors; :func:`run_vocab_parallel` does the same on a seeded :class:`ProblemSpec` (the
command line and the tests). The worker lives here, in a module, because the new processes
import it by module and name.

:func:`all_reduced_backward_step` runs the same layer with a backward that all-reduces too
(:class:`AllReduceBothWays`): wrong when every process takes the same loss (notebook 8, Going deeper), right when
only rank 0 takes it (:func:`loss_on_rank_0_step`, notebook 8's Exercise 8.3). :func:`pytorch_all_reduce_step` shows
that PyTorch's differentiable ``torch.distributed.nn.functional.all_reduce`` has that backward.

:func:`run_rowwise_parallel` runs the same problem through PyTorch's own engine:
``torch.distributed.tensor.parallel.RowwiseParallel`` applied to an ``nn.Embedding``
(:func:`rowwise_parallel_worker`). Its public API, ``torch.distributed.tensor``, came with PyTorch 2.5
(pytorch/pytorch#133881); :data:`ROWWISE_AVAILABLE` says whether the installed PyTorch has it.

Imported in a Jupyter kernel (notebook 8's imports), the module starts the launcher's process
server in the background (:func:`~utils.distributed.launcher.prepare_workers_in_a_kernel`), so
the notebook's imports cell holds only imports and its first run finds the server ready.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.nn.functional import all_reduce as differentiable_all_reduce  # PyTorch's, with autograd

from ..checks import check_int
from ..vocab_parallel import AllReduceSum, VocabParallelEmbedding, local_lookup, shard_bounds
from .launcher import DEFAULT_TIMEOUT_S, backend_for, launch, prepare_workers_in_a_kernel

try:  # public from PyTorch 2.5 on (pytorch/pytorch#133881 moved DTensor out of torch.distributed._tensor)
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Replicate
    from torch.distributed.tensor.parallel import RowwiseParallel, parallelize_module
except ImportError:
    ROWWISE_AVAILABLE = False
else:
    ROWWISE_AVAILABLE = True
#: what PyTorch's RowwiseParallel needs, named for a learner whose PyTorch lacks it (the version: see the import above)
ROWWISE_NEEDS = "the public torch.distributed.tensor (PyTorch 2.5 or newer)"

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
    order: the comparisons are bit for bit even where the processes and the single-device
    reference add with different kernels (on GPUs and on the CPU).
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
    """What one process returns (on the CPU): its rows, the ids it looked up, its partial and final outputs,
    its weight gradient."""

    rank: int
    world_size: int
    start: int
    end: int
    owned: torch.Tensor  # (B, T) bool: the ids this process looked up (the others it masked)
    partial: torch.Tensor  # (B, T, d): its local lookup, before the all-reduce
    output: torch.Tensor  # (B, T, d), after the all-reduce
    weight_grad: torch.Tensor  # [end - start, d]
    shard_bytes: int  # bytes of its weight
    backend: str

    @classmethod
    def of(cls, rank: int, layer: VocabParallelEmbedding, ids: torch.Tensor, output: torch.Tensor,
           backend: str) -> RankResult:
        """Process ``rank``'s result: ``layer``'s forward (``output``, for ``ids``) and backward, copied to the CPU."""
        partial = local_lookup(ids, layer.weight.detach(), layer.start)  # its share of the output, from its rows alone
        owned = (ids >= layer.start) & (ids < layer.end)
        return cls(rank, layer.world_size, layer.start, layer.end, owned.cpu(), partial.cpu(),
                   output.detach().cpu(), layer.weight.grad.cpu(), layer.weight.numel() * layer.weight.element_size(),
                   backend)


def vocab_parallel_step(rank: int, world_size: int, weight: torch.Tensor, ids: torch.Tensor,
                        grad_out: torch.Tensor) -> RankResult:
    """What each process runs (notebook 8, section 5): its layer's forward and backward, for the loss
    ``(output * grad_out).sum()``. Its layer keeps a copy of its rows of ``weight`` and uses nothing else."""
    backend = dist.get_backend()
    device = torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else torch.device("cpu")
    layer = VocabParallelEmbedding(weight, rank, world_size).to(device)  # a copy of its rows
    ids, grad_out = ids.to(device), grad_out.to(device)
    output = layer(ids)  # the forward: local lookup + all_reduce(SUM)
    (output * grad_out).sum().backward()
    return RankResult.of(rank, layer, ids, output, backend)  # its rows, output and weight gradient, on the CPU


def vocab_parallel_worker(rank: int, world_size: int, spec: ProblemSpec) -> RankResult:
    """:func:`vocab_parallel_step` on the seeded problem ``spec`` (every process draws the same one)."""
    return vocab_parallel_step(rank, world_size, *make_problem(spec))


def run_vocab_parallel(spec: ProblemSpec, world_size: int = 2, *, device: str = "cpu",
                       timeout_s: float = DEFAULT_TIMEOUT_S, start_method: str | None = None) -> list[RankResult]:
    """Run :func:`vocab_parallel_worker` on ``world_size`` processes; their results in rank order.

    ``device="cpu"``: gloo; ``device="cuda"``: NCCL, one GPU per process. The other
    arguments go to :func:`launch`.
    """
    if not isinstance(spec, ProblemSpec):
        raise TypeError(f"spec must be a ProblemSpec, got {type(spec).__name__}")
    shard_bounds(spec.vocab_size, world_size)  # fails early for world_size > vocab_size
    backend = backend_for(device, world_size)
    return launch(vocab_parallel_worker, world_size, args=(spec,), backend=backend,
                  timeout_s=timeout_s, start_method=start_method)


def compare_with_single_device(results: list[RankResult], reference: tuple[torch.Tensor, torch.Tensor]) -> dict:
    """Exact comparisons of each rank's output and gradient with the single-device ones."""
    output, weight_grad = reference
    return {
        "forward": all(torch.equal(r.output, output) for r in results),
        "backward": all(torch.equal(r.weight_grad, weight_grad[r.start:r.end]) for r in results),
        "gradients_cover_table": torch.equal(torch.cat([r.weight_grad for r in results]), weight_grad),
    }


# --- a backward that all-reduces too (Going deeper), and a loss on rank 0 alone (Exercise 8.3) ---


class AllReduceBothWays(AllReduceSum):
    """:class:`~utils.vocab_parallel.AllReduceSum` with a backward that all-reduces as well: ``P`` times too large
    when every process takes the same loss."""

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor) -> tuple[torch.Tensor, None]:
        total = grad_output.clone()
        dist.all_reduce(total, op=dist.ReduceOp.SUM)  # adds the gradients of all processes, as the forward does
        return total, None


def all_reduced_backward_step(rank: int, world_size: int, weight: torch.Tensor, ids: torch.Tensor,
                              grad_out: torch.Tensor) -> torch.Tensor:
    """:func:`vocab_parallel_step`'s forward and backward with :class:`AllReduceBothWays` in place of the layer's
    all-reduce: this process's weight gradient ``[end - start, d]``, on the CPU."""
    backend = dist.get_backend()
    device = torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else torch.device("cpu")
    layer = VocabParallelEmbedding(weight, rank, world_size).to(device)
    ids, grad_out = ids.to(device), grad_out.to(device)
    output = AllReduceBothWays.apply(local_lookup(ids, layer.weight, layer.start), None)
    (output * grad_out).sum().backward()
    return layer.weight.grad.cpu()


def pytorch_all_reduce_step(rank: int, world_size: int, weight: torch.Tensor, ids: torch.Tensor,
                            grad_out: torch.Tensor) -> torch.Tensor:
    """:func:`all_reduced_backward_step` with PyTorch's differentiable ``torch.distributed.nn.functional.all_reduce``
    in place of :class:`AllReduceBothWays`: its backward all-reduces too. This process's weight gradient, on the CPU."""
    backend = dist.get_backend()
    device = torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else torch.device("cpu")
    layer = VocabParallelEmbedding(weight, rank, world_size).to(device)
    ids, grad_out = ids.to(device), grad_out.to(device)
    output = differentiable_all_reduce(local_lookup(ids, layer.weight, layer.start))
    (output * grad_out).sum().backward()
    return layer.weight.grad.cpu()


def loss_on_rank_0_step(rank: int, world_size: int, weight: torch.Tensor, ids: torch.Tensor,
                        grad_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Exercise 8.3: only rank 0 takes the loss ``(output * grad_out).sum()``; the other processes backpropagate
    zeros. This process's weight gradients ``[end - start, d]`` (on the CPU): with :class:`AllReduceSum`'s identity
    backward, then with :class:`AllReduceBothWays`'s backward, which all-reduces."""
    backend = dist.get_backend()
    device = torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else torch.device("cpu")
    ids, grad_out = ids.to(device), grad_out.to(device)
    grads = []
    for function in (AllReduceSum, AllReduceBothWays):
        layer = VocabParallelEmbedding(weight, rank, world_size).to(device)
        output = function.apply(local_lookup(ids, layer.weight, layer.start), None)
        output.backward(grad_out if rank == 0 else torch.zeros_like(grad_out))  # the loss's gradient: rank 0's only
        grads.append(layer.weight.grad.cpu())
    return grads[0], grads[1]


# --- the same split by PyTorch's own engine: RowwiseParallel ---------------------------


def chunk_gives_every_rank_rows(vocab_size: int, world_size: int) -> bool:
    """Whether ``torch.chunk``'s split of ``vocab_size`` rows, ``ceil(V / P)`` each, leaves every process a row.

    RowwiseParallel shards the table that way; with ``V = 11`` and ``P = 5`` (3 + 3 + 3 + 2 + 0)
    the last process would hold no row, which PyTorch's embedding does not accept.
    """
    check_int("vocab_size", vocab_size, 1)
    check_int("world_size", world_size, 1)
    return -(-vocab_size // world_size) * (world_size - 1) < vocab_size


@dataclass(frozen=True)
class RowwiseResult:
    """What one process of the RowwiseParallel run returns (on the CPU)."""

    rank: int
    world_size: int
    rows: int  # the rows of the table this process holds
    placements: str  # how the weight is laid out over the processes, as PyTorch prints it
    output: torch.Tensor  # (B, T, d), after PyTorch's all-reduce
    full_grad: torch.Tensor  # [V, d]: the weight's gradient, gathered whole


def rowwise_parallel_step(rank: int, world_size: int, weight: torch.Tensor, ids: torch.Tensor,
                          grad_out: torch.Tensor) -> RowwiseResult:
    """The forward and backward of :func:`vocab_parallel_step`, with the table split by ``RowwiseParallel``.

    ``parallelize_module`` shards an ``nn.Embedding``'s weight by rows over a device mesh of
    all the processes (the process group the launcher started) and wants every id on every
    process (``input_layouts=Replicate()``).
    """
    backend = dist.get_backend()
    device = torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else torch.device("cpu")
    mesh = init_device_mesh(device.type, (world_size,))
    layer = parallelize_module(nn.Embedding.from_pretrained(weight, freeze=False).to(device), mesh,
                               RowwiseParallel(input_layouts=Replicate()))
    ids, grad_out = ids.to(device), grad_out.to(device)
    output = layer(ids)  # a plain tensor: the local lookups, all-reduced
    (output * grad_out).sum().backward()
    return RowwiseResult(rank, world_size, layer.weight.to_local().shape[0], str(layer.weight.placements),
                         output.detach().cpu(), layer.weight.grad.full_tensor().cpu())


def rowwise_parallel_worker(rank: int, world_size: int, spec: ProblemSpec) -> RowwiseResult:
    """:func:`rowwise_parallel_step` on the seeded problem ``spec``."""
    return rowwise_parallel_step(rank, world_size, *make_problem(spec))


def run_rowwise_parallel(spec: ProblemSpec, world_size: int = 2, *, device: str = "cpu",
                         timeout_s: float = DEFAULT_TIMEOUT_S, start_method: str | None = None) -> list[RowwiseResult]:
    """Run :func:`rowwise_parallel_worker` on ``world_size`` processes, as :func:`run_vocab_parallel` runs its worker.

    Raises ``RuntimeError`` where the installed PyTorch lacks :data:`ROWWISE_NEEDS`, and
    ``ValueError`` where ``torch.chunk``'s split would leave a process without rows.
    """
    if not isinstance(spec, ProblemSpec):
        raise TypeError(f"spec must be a ProblemSpec, got {type(spec).__name__}")
    if not ROWWISE_AVAILABLE:
        raise RuntimeError(f"RowwiseParallel needs {ROWWISE_NEEDS}; this is PyTorch {torch.__version__}")
    if not chunk_gives_every_rank_rows(spec.vocab_size, world_size):
        raise ValueError(f"torch.chunk's split of {spec.vocab_size} rows leaves one of {world_size} processes "
                         "without rows")
    backend = backend_for(device, world_size)
    return launch(rowwise_parallel_worker, world_size, args=(spec,), backend=backend,
                  timeout_s=timeout_s, start_method=start_method)


# Imported in notebook 8's kernel, this module starts the process server at once, in the background:
# the notebook's first run then finds it ready. Elsewhere, the server and the workers included, it does nothing.
# The server also imports torch._dynamo, which RowwiseParallel's first call would import in every worker
# (measured: 8.7 s of that call's 9 s, on a busy two-core machine; 11 workers then passed the 90 s limit).
prepare_workers_in_a_kernel(modules=(__name__, "torch._dynamo") if ROWWISE_AVAILABLE else (__name__,))
