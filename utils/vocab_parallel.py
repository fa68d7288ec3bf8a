"""A vocabulary-parallel embedding: one table split by rows over ``P`` processes (notebook 8).

When an embedding table ``[V, d]`` is too large for one device, ``P`` processes can
each hold a contiguous block of its rows. Process ``r`` holds rows ``[start_r, end_r)``
(:func:`shard_bounds`; when ``P`` does not divide ``V`` the first ``V % P`` processes
hold one row more). For a batch of ids, each process

1. masks the ids it does not own,
2. looks up the rest in its own rows (:func:`local_lookup`),
3. leaves zeros in the rows of the masked ids,

and an ``all_reduce(SUM)`` (:class:`AllReduceSum`) adds the ``P`` partial results: every
id's row comes from exactly one process and zeros from the others, so every process
ends with exactly the single-device result. In the backward pass the gradient of the
output is the same on every process (in notebook 8 they all take the same loss of the
same output), so each process keeps it as it is and its weight gradient is its slice of the
single-device gradient.

Notebook 8 writes :func:`local_lookup`, :class:`AllReduceSum`, :func:`all_reduce_sum` and
:class:`VocabParallelEmbedding` in its own cells, where the learner reads them; this module
holds the same code (with docstrings) for the worker processes, which import it by name.
``tests/notebooks/test_vocab_parallel_source.py`` checks that the two stay identical.
Starting the processes is furniture, in ``utils/distributed/``.
"""

from __future__ import annotations

import ast
import inspect
import operator
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist
import torch.nn as nn

from .checks import check_int
from .lookup import check_ids

# --- splitting the vocabulary ---------------------------------------------------------


def shard_bounds(vocab_size: int, world_size: int) -> list[tuple[int, int]]:
    """Rows ``[start, end)`` held by each of ``world_size`` processes, in rank order.

    Contiguous blocks covering ``0..vocab_size-1``; the first ``vocab_size % world_size``
    blocks hold one row more, so sizes differ by at most one
    (``shard_bounds(11, 3) == [(0, 4), (4, 8), (8, 11)]``).

    Taught in notebook 8.
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
    """The rank that holds the row of each id: ids ``S`` -> ranks ``S`` (int64).

    Used by notebook 8's figures (the notebook finds the owners with the masks of its split).
    """
    check_ids(ids, vocab_size)
    ends = torch.tensor([end for _, end in shard_bounds(vocab_size, world_size)], device=ids.device)
    return torch.bucketize(ids.long(), ends, right=True)


def shard_of(vocab_size: int, world_size: int, rank: int) -> tuple[int, int]:
    """Rows ``[start, end)`` held by process ``rank`` of ``world_size`` (its block of :func:`shard_bounds`).

    Taught in notebook 8.
    """
    bounds = shard_bounds(vocab_size, world_size)
    check_int("rank", rank, 0)
    if rank >= world_size:
        raise ValueError(f"rank {rank} is out of range for world_size {world_size} "
                         f"(valid ranks: 0..{world_size - 1})")
    return bounds[rank]


# --- what one process computes ----------------------------------------------------------


def local_lookup(ids: torch.Tensor, local_weight: torch.Tensor, start: int) -> torch.Tensor:
    """One process's share of the lookup: ids ``S`` int64 -> ``S + (d,)``.

    ``local_weight`` holds rows ``[start, start + n_local)`` of the full table. Ids
    outside that range are masked and their output rows stay zero; the others are
    looked up at local row ``id - start``. Only the owned ids are looked up
    (Megatron-LM instead looks up local row 0 for the masked ids and zeroes those
    rows afterwards, which keeps shapes fixed). ``ids`` and ``local_weight`` are on one device.

    Taught in notebook 8.
    """
    end = start + local_weight.shape[0]
    owned = (ids >= start) & (ids < end)  # 1. the mask: True where it holds the id's row
    out = local_weight.new_zeros(*ids.shape, local_weight.shape[1])  # 2. zeros first: the masked ids' rows stay so
    out[owned] = local_weight[ids[owned] - start]  # 3. then the owned ids, looked up at local row id - start
    return out


class AllReduceSum(torch.autograd.Function):
    """Forward: ``all_reduce(SUM)`` of the partial outputs. Backward: the identity.

    The gradient arriving here is already the same on every process: in notebook 8 every
    process takes the same loss of the same output, and in a model whose later layers are
    split too, their backward makes it so. Each process keeps it as it is. (An all-reduce in
    the backward as well would multiply it by ``P``: notebook 8, Going deeper, measures it.)

    Taught in notebook 8.
    """

    @staticmethod
    def forward(ctx, partial: torch.Tensor, group: Any) -> torch.Tensor:
        total = partial.clone()  # all_reduce works in place: leave the caller's tensor as it was
        dist.all_reduce(total, op=dist.ReduceOp.SUM, group=group)  # every process receives the sum over all
        return total

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor) -> tuple[torch.Tensor, None]:
        # the same gradient on every process already: pass it on
        return grad_output, None


def all_reduce_sum(partial: torch.Tensor, group: Any = None) -> torch.Tensor:
    """Sum ``partial`` over the processes of ``group`` (default: all of them), with autograd.

    Taught in notebook 8.
    """
    if not dist.is_initialized():
        raise RuntimeError("all_reduce_sum needs a process group: run it in the processes that launch starts")
    return AllReduceSum.apply(partial, group)


class VocabParallelEmbedding(nn.Module):
    """An ``nn.Embedding`` of the table ``weight`` ``[V, d]``, split by rows over ``world_size`` processes.

    Process ``rank`` keeps a copy of rows ``[start, end)`` only, as its ``weight`` parameter
    ``[end - start, d]`` (a real system would initialise or load just those rows). ``forward(ids)``: ids ``S``
    int64 -> ``S + (d,)``, the same on every process; it needs an initialised process group unless
    ``world_size == 1``. Move it with ``.to(device)``, as any module.

    Taught in notebook 8.
    """

    def __init__(self, weight: torch.Tensor, rank: int, world_size: int, group: Any = None) -> None:
        super().__init__()
        self.num_embeddings, self.world_size, self.group = weight.shape[0], world_size, group
        self.start, self.end = shard_of(self.num_embeddings, world_size, rank)  # its block of rows (section 1)
        self.weight = nn.Parameter(weight[self.start:self.end].clone())  # a copy of its rows, no more

    def forward(self, ids: torch.Tensor) -> torch.Tensor:  # ids S (int64) -> S + (d,), on every process
        check_ids(ids, self.num_embeddings)  # a bad id stops every process here, with a clear message
        partial = local_lookup(ids, self.weight, self.start)  # its rows for the ids it owns, zeros for the others
        if self.world_size == 1 and not dist.is_initialized():
            return partial  # one process holds the whole table: nothing to add
        return all_reduce_sum(partial, self.group)  # every process ends with the whole lookup


# --- the notebook's cells and this copy ----------------------------------------------------


def holds_the_code_of(*functions: Callable) -> bool:
    """Whether this module defines each of ``functions`` (notebook 8's, by qualified name: ``local_lookup``,
    ``AllReduceSum.forward``, ...) with the same code, docstrings and comments aside: the two are compared as
    syntax trees.

    Used by notebook 8, section 5, on its cells' layer before the processes run this copy.
    """

    def code(function: Callable) -> str:
        node = ast.parse(textwrap.dedent(inspect.getsource(function))).body[0]
        node.body = node.body[1:] if ast.get_docstring(node) else node.body
        return ast.dump(node)

    module = sys.modules[__name__]
    return all(code(f) == code(operator.attrgetter(f.__qualname__)(module)) for f in functions)


def check_the_copy(*definitions: Callable | type) -> None:
    """Raise if this module does not hold the code of notebook 8's ``definitions`` (functions, or classes: each
    method they define): the processes would run other code than the cells show. Silent when it does.

    Used by notebook 8, section 5, above the code the processes run.
    """
    functions = [getattr(item, name) for item in definitions if isinstance(item, type)
                 for name, value in vars(item).items() if isinstance(value, (staticmethod, classmethod))
                 or inspect.isfunction(value)]
    functions += [item for item in definitions if not isinstance(item, type)]
    same = holds_the_code_of(*functions)
    if not same:
        names = ", ".join(item.__name__ for item in definitions)
        raise AssertionError(f"sections 2-3's cells ({names}) differ from utils/vocab_parallel.py, which section "
                             "5's processes run: make the same edit in utils/vocab_parallel.py, then restart the "
                             "Jupyter kernel")
