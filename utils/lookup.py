"""One-hot vectors, the lookup, and what each costs.

The two forms of the same computation, for ids of any shape ``S``:

- the product: ``one_hot(ids, V, W.dtype) @ W``, ``S -> S + (d,)`` (notebook 1 writes it out)
- ``lookup(ids, W)``: ``W[ids]``, ``S -> S + (d,)``

Both check their arguments first and say what was wrong in plain words; PyTorch's
own messages for the same mistakes are terse ("index out of range in self").

What each costs, counted (the benchmark of notebook 6 measures it): the multiply-adds of the
one-hot product (:func:`one_hot_multiply_adds`), the bytes of its one-hot input
(:func:`one_hot_bytes`), and the bytes a lookup reads and writes (:func:`bytes_moved`).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from .checks import check_int

_INTEGER_DTYPES = (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64)


def check_ids(ids: torch.Tensor, num_embeddings: int) -> torch.Tensor:
    """Check that ``ids`` is an integer tensor of token ids below ``num_embeddings``.

    Returns ``ids`` unchanged. Raises ``TypeError`` for a non-tensor or a
    non-integer dtype, ``ValueError`` for an id outside ``0..num_embeddings-1``
    (naming the first offending id).

    Used by one_hot, lookup and notebook 8 (notebook 2 writes the same checks out in a cell).
    """
    check_int("num_embeddings", num_embeddings)
    if not isinstance(ids, torch.Tensor):
        raise TypeError(f"ids must be a torch.Tensor of integer token ids, got {type(ids).__name__}")
    if ids.dtype not in _INTEGER_DTYPES:
        raise TypeError(
            f"ids must have an integer dtype (torch.long is usual), got {ids.dtype}; "
            "token ids index rows, so they cannot be fractional"
        )
    if ids.numel() == 0:
        return ids
    bad = (ids < 0) | (ids >= num_embeddings)
    if bool(bad.any()):
        first = int(ids[bad].flatten()[0])
        raise ValueError(
            f"token id {first} is out of range for a vocabulary of {num_embeddings} "
            f"(valid ids: 0..{num_embeddings - 1})"
        )
    return ids


def check_weight(weight: torch.Tensor) -> torch.Tensor:
    """Return ``weight`` if it is a floating-point ``[num_embeddings, embedding_dim]`` tensor.

    TypeError for something else than a floating-point tensor, ValueError for another shape.

    Used by the other helpers, to check a weight first.
    """
    if not isinstance(weight, torch.Tensor):
        raise TypeError(f"weight must be a torch.Tensor, got {type(weight).__name__}")
    if weight.dim() != 2:
        raise ValueError(
            f"weight must be 2-D with shape [num_embeddings, embedding_dim], got shape {tuple(weight.shape)}"
        )
    if not weight.is_floating_point():
        raise TypeError(f"weight must be a floating-point tensor, got {weight.dtype}")
    return weight


def one_hot(ids: torch.Tensor, num_classes: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """``F.one_hot`` after checking the ids, cast to ``dtype``: ``S -> S + (num_classes,)``.

    ``F.one_hot`` returns int64; a matrix product with a float weight needs a float.

    Taught in notebook 1.
    """
    check_ids(ids, num_classes)
    return F.one_hot(ids.long(), num_classes).to(dtype)


def lookup(ids: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """The lookup form: rows of ``weight`` selected by ``ids``; ``S`` -> ``S + (d,)``.

    Every integer dtype that :func:`check_ids` accepts works: the ids are cast to
    int64 first (``F.embedding`` itself takes only int64 and int32).

    Taught in notebook 1.
    """
    check_weight(weight)
    check_ids(ids, weight.shape[0])
    return F.embedding(ids.to(device=weight.device, dtype=torch.long), weight)


@dataclass(frozen=True)
class MultiplyAdds:
    """Multiply-adds a one-hot matrix product spends, and how many of them matter.

    Returned by one_hot_multiply_adds (notebook 1).
    """

    total: int  # every product x_v * W[v, j] the matmul computes
    useful: int  # the ones where x_v == 1: the values that end up in the output

    @property
    def useful_fraction(self) -> float:
        return self.useful / self.total if self.total else 0.0


def one_hot_multiply_adds(num_tokens: int, vocab_size: int, embedding_dim: int) -> MultiplyAdds:
    """Count the multiply-adds of ``one_hot(ids, V) @ W`` for ``num_tokens`` ids.

    Each token's output has ``d`` entries, each a sum over ``V`` products:
    ``V * d`` multiply-adds per token, of which ``d`` multiply by the single 1.
    (A FLOP counter reports twice the multiply-adds: a multiply and an add each.)

    Used by utils.bench.measure, the benchmark of notebook 6's Going deeper.
    """
    check_int("num_tokens", num_tokens, minimum=0)
    check_int("vocab_size", vocab_size)
    check_int("embedding_dim", embedding_dim)
    return MultiplyAdds(total=num_tokens * vocab_size * embedding_dim, useful=num_tokens * embedding_dim)


#: Bytes of one token id: ``F.one_hot`` and ``F.embedding`` take int64 ids.
ID_BYTES = 8


def one_hot_bytes(num_tokens: int, vocab_size: int, itemsize: int = 4, *, cast_peak: bool = False) -> int:
    """Bytes of the one-hot input ``(n, V)`` in a float dtype of ``itemsize`` bytes: ``n·V·itemsize``.

    The ids it is made from take ``n·8`` bytes, so the one-hot is ``V·itemsize/8`` times as large
    (``V/2`` in float32). ``F.one_hot`` returns int64, 8 bytes an entry, and while ``.float()``
    copies it both exist: ``cast_peak=True`` counts that peak, ``n·V·(8 + itemsize)``.

    Taught in notebook 1.
    """
    check_int("num_tokens", num_tokens, minimum=0)
    check_int("vocab_size", vocab_size)
    check_int("itemsize", itemsize)
    return num_tokens * vocab_size * (itemsize + (ID_BYTES if cast_peak else 0))


def bytes_moved(num_tokens: int, embedding_dim: int, itemsize: int = 4, *, ids: bool = True) -> int:
    """The fewest bytes a lookup reads and writes: ``n`` ids, ``n`` rows read, ``n`` rows written.

    ``n·8 + 2·n·d·itemsize``; with ``ids=False``, a plain copy of the ``(n, d)`` output: ``2·n·d·itemsize``.
    The lookup does no arithmetic, so these bytes are all its work.

    Used by utils.bench, the benchmark of notebook 6's Going deeper.
    """
    check_int("num_tokens", num_tokens, minimum=0)
    check_int("embedding_dim", embedding_dim)
    check_int("itemsize", itemsize)
    return (num_tokens * ID_BYTES if ids else 0) + 2 * num_tokens * embedding_dim * itemsize
