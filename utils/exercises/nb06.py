"""Notebook 6, what the lookup saves, measured: the checkers of its exercises."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

from ..checks import check_int
from .checking import ExerciseError, correct

#: Exercise 6.1: the smallest vocabulary to time, and how far apart the two sizes must be.
_TIMED_V_MIN, _TIMED_V_FACTOR = 1_000, 10


def check_lookup_timings(timings: dict[int, dict[str, float]]) -> bool:
    """Exercise 6.1: ``{V: {"lookup": seconds, "dense": seconds}}``, measured at two vocabulary sizes.

    Checks the structure and the sign (at ``V >= 1,000`` the lookup is the faster), never a
    speed: timings differ from machine to machine and from run to run.
    """
    if not isinstance(timings, dict):
        raise TypeError("timings must be a dict {V: {'lookup': seconds, 'dense': seconds}}, "
                        f"got {type(timings).__name__}")
    for vocab_size, entry in timings.items():
        if not isinstance(vocab_size, int) or isinstance(vocab_size, bool):
            raise TypeError(f"the keys of timings must be vocabulary sizes (ints), got {vocab_size!r}")
        if not isinstance(entry, dict):
            raise TypeError(f"timings[{vocab_size}] must be a dict {{'lookup': seconds, 'dense': seconds}}, "
                            f"got {type(entry).__name__}")
        for name, seconds in entry.items():
            if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
                raise TypeError(f"timings[{vocab_size}][{name!r}] must be a number of seconds, "
                                f"got {type(seconds).__name__}")
    sizes = sorted(timings)
    if len(sizes) != 2:
        raise ExerciseError(f"timings has {len(sizes)} vocabulary size(s), {sizes}; time both methods at two "
                            "sizes, to see how the gap changes with V")
    if sizes[0] < _TIMED_V_MIN:
        raise ExerciseError(f"V = {sizes[0]:,} is below {_TIMED_V_MIN:,}: choose sizes from {_TIMED_V_MIN:,} up, "
                            "the range of section 3")
    if sizes[1] < _TIMED_V_FACTOR * sizes[0]:
        raise ExerciseError(f"V = {sizes[0]:,} and {sizes[1]:,} are less than {_TIMED_V_FACTOR}x apart: choose "
                            f"sizes further apart (for example 1,000 and 50,257), so that the difference shows")
    for vocab_size in sizes:
        entry = timings[vocab_size]
        if set(entry) != {"lookup", "dense"}:
            raise ExerciseError(f"timings[{vocab_size}] has keys {sorted(entry)}; expected 'lookup' and 'dense'")
        if not all(math.isfinite(s) and s > 0 for s in entry.values()):
            raise ExerciseError(f"timings[{vocab_size}] = {entry}: each time must be a positive number of "
                                "seconds per call (the median of blocked_autorange, for example)")
        if entry["dense"] <= entry["lookup"]:
            raise ExerciseError(
                f"at V = {vocab_size:,} the dense product ({entry['dense']:.3g} s) was not slower than the lookup "
                f"({entry['lookup']:.3g} s). Hint: are the two swapped? Time F.embedding(ids, W) "
                "and F.one_hot(ids, V).float() @ W, each after a warm-up and over many calls, and keep the median "
                "(Timer(...).blocked_autorange() does all three)")
    return correct("the lookup and the dense product timed at two vocabulary sizes at least 10 times apart: "
                   "the lookup was the faster at both")


def check_sparse_one_hot(x: torch.Tensor, ids: torch.Tensor, num_classes: int) -> bool:
    """Exercise 6.2: a sparse one-hot ``x`` of ``ids`` with ``torch.sparse.mm(x, W) == W[ids]`` exactly."""
    if not isinstance(x, torch.Tensor):
        raise ExerciseError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.layout not in (torch.sparse_coo, torch.sparse_csr):
        raise ExerciseError(
            f"x has layout {x.layout}: it is dense. Hint: build it with torch.sparse_coo_tensor(indices, values, size)"
        )
    expected_shape = (len(ids), num_classes)
    if tuple(x.shape) != expected_shape:
        raise ExerciseError(f"x has shape {tuple(x.shape)}, expected {expected_shape}: one row per id, V columns")
    nnz = x._nnz() if x.layout == torch.sparse_coo else x.values().numel()
    if nnz != len(ids):
        raise ExerciseError(f"x stores {nnz} values, expected {len(ids)}: a single nonzero per row")
    weight = torch.randn(num_classes, 3, generator=torch.Generator().manual_seed(6), dtype=x.dtype)
    got = torch.sparse.mm(x.cpu(), weight)
    expected = weight[ids.cpu()]
    if not torch.equal(got, expected):
        raise ExerciseError(
            "torch.sparse.mm(x, W) does not return W[ids]. Hint: the indices are a (2, n) tensor whose first row "
            "is the row number 0..n-1 and whose second row is the id (the column); every value is 1."
        )
    return correct("a sparse one-hot with a single nonzero per row: torch.sparse.mm(x, W) selects W[ids] exactly")


def _count(sizes: tuple[int, int, int]) -> dict[str, int]:
    """FlopCounterMode's count of the dense product and of the lookup, forward and backward, at ``(n, V, d)``,
    on the meta device: shapes only, so any sizes cost no memory and no time."""
    n, V, d = sizes
    weight = torch.zeros(V, d, device="meta", requires_grad=True)
    forwards = {"dense": lambda: torch.zeros(n, V, device="meta") @ weight,
                "lookup": lambda: F.embedding(torch.zeros(n, dtype=torch.long, device="meta"), weight)}
    counts = {}
    for name, forward in forwards.items():
        with FlopCounterMode(display=False) as counter:
            forward().backward(torch.zeros(n, d, device="meta"))
        counts[name] = counter.get_total_flops()
    return counts


def check_counted_flops(sizes: tuple[int, int, int], counted: dict[str, int]) -> bool:
    """Exercise 6.3: ``counted = {"dense": flops, "lookup": flops}``, PyTorch's ``FlopCounterMode`` run on each,
    forward and backward, at ``sizes = (n, V, d)``. The checker counts again at those sizes."""
    if not isinstance(sizes, tuple) or len(sizes) != 3:
        raise TypeError(f"sizes must be a tuple (n, V, d), got {sizes!r}")
    for name, value in zip(("n", "V", "d"), sizes, strict=True):
        check_int(f"sizes' {name}", value)
    if not isinstance(counted, dict) or set(counted) != {"dense", "lookup"}:
        raise ExerciseError(f"counted must be a dict with the keys 'dense' and 'lookup', got {counted!r}")
    for name, value in counted.items():
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"counted[{name!r}] must be an int (counter.get_total_flops()), got {type(value).__name__}")
    expected = _count(sizes)
    n, V, d = sizes
    if counted["dense"] * 2 == expected["dense"]:
        raise ExerciseError("counted['dense'] is half the counter's count at your sizes: it counted the forward only. "
                            "Hint: call .backward(grad_out) inside the `with FlopCounterMode(...)` block")
    if counted["dense"] != expected["dense"]:
        raise ExerciseError(f"counted['dense'] = {counted['dense']:,} is not the counter's count at n = {n:,}, "
                            f"V = {V:,}, d = {d:,}. Hint: are `sizes` the sizes you ran, in the order (n, V, d)?")
    if counted["lookup"] != expected["lookup"]:
        raise ExerciseError(f"counted['lookup'] = {counted['lookup']:,} is not the counter's count for a lookup at "
                            "your sizes. Hint: count F.embedding(ids, W) forward and backward, in a block of its own")
    return correct("the FLOPs of the dense product and of the lookup, forward and backward, counted again at your "
                   "sizes")
