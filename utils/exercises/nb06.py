"""Notebook 6, what the lookup saves, measured: the checkers of its exercises."""

from __future__ import annotations

import math

import torch

from .checking import ExerciseError, correct

_LLAMA3_V = 128_256
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
                            "the range of section 4")
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
                "(bench.blocked_autorange does all three)")
    return correct(f"the lookup and the dense product timed at V = {sizes[0]:,} and V = {sizes[1]:,}: "
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
    return correct(f"a {expected_shape[0]} x {num_classes:,} one-hot stored as {nnz} nonzeros selects W[ids]")


def check_largest_batch(num_tokens: int) -> bool:
    """Exercise 6.3: the most tokens whose ``F.one_hot(ids, 128256).float()`` fits 1 GiB (int64 and float32 at once)."""
    per_token = _LLAMA3_V * (8 + 4)
    expected = 2**30 // per_token
    if not isinstance(num_tokens, int) or isinstance(num_tokens, bool):
        raise ExerciseError(f"num_tokens must be an int (a whole number of tokens), got {type(num_tokens).__name__}")
    if num_tokens == 2**30 // (_LLAMA3_V * 4):
        raise ExerciseError(
            f"num_tokens = {num_tokens:,} counts only the float32 one-hot. Hint: F.one_hot first returns int64 "
            "(8 bytes an entry); while .float() copies it, both exist: 12 bytes an entry."
        )
    if num_tokens == expected + 1:
        raise ExerciseError(f"num_tokens = {num_tokens:,} is one too many: round down, or the last token overflows")
    if num_tokens != expected:
        raise ExerciseError(
            f"num_tokens = {num_tokens:,}, expected {expected:,}. Hint: each token needs V·(8 + 4) bytes at the peak; "
            "divide 2**30 by that and round down."
        )
    return correct(f"{expected:,} tokens: {expected * per_token / 2**30:.3f} GiB at the peak of the cast")
