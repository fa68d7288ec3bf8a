"""What the lookup saves, measured: ``python -m utils.bench``.

Four ways to turn token ids into embedding rows, on identical inputs
(``ids: (n,) int64``, ``weight: (V, d)``, each giving ``(n, d)``):

- ``lookup``: ``F.embedding(ids, weight)``, what ``nn.Embedding`` calls;
- ``dense``:  ``F.one_hot(ids, V).to(dtype) @ weight``, the one-hot matrix product;
- ``sparse``: ``torch.sparse.mm(X, weight)`` with ``X`` the one-hot as a sparse COO matrix
  (``n`` nonzeros), built from the ids inside the timed call, as the dense one-hot is;
- ``copy``:   ``src.clone()`` of an ``(n, d)`` tensor: the bytes the lookup writes, copied
  plainly. It is the physical reference (forward only: a copy has no backward).

Each is timed forward, and forward+backward (the gradient with respect to the weight),
with :func:`blocked_autorange`, the method of ``torch.utils.benchmark``'s ``Timer.blocked_autorange``
(it warms up, runs blocks of calls, synchronises CUDA, and fixes the number of CPU threads).
Before timing, every method's output (and weight gradient) is checked against the lookup's:
see :func:`tolerance`.

A memory guard skips, with a printed reason, any method whose memory (computed before anything
is allocated, :func:`memory_needed`) exceeds a budget; by default half of the memory available
(:func:`default_memory_budget`). Results are a tidy table: one dict per (case, method, pass),
with the fields in :data:`FIELDS`; :func:`write_results` saves them as CSV or JSON.

No global state: the device, dtype, seed, thread count and budget are arguments.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import sys
import timeit
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from tqdm import tqdm

from .checks import check_int, check_positive
from .devices import describe_device, resolve_device

METHODS = ("lookup", "dense", "sparse", "copy")
PASSES = ("forward", "backward")  # "backward" times forward + backward together
#: The methods that have a backward pass (the copy is a forward-only reference).
BACKWARD_METHODS = ("lookup", "dense", "sparse")
ID_BYTES = 8  # int64 token ids
GIB = 2**30
#: Fraction of the available memory the default budget allows.
BUDGET_FRACTION = 0.5
#: The budget when the available memory cannot be read: small enough for any laptop or Colab.
FALLBACK_BUDGET = 1 * GIB

#: The columns of the tidy results table, in order.
FIELDS = (
    "method", "pass", "vocab_size", "embedding_dim", "num_tokens",
    "dtype", "device", "device_name", "threads", "torch_version",
    "status", "reason",
    "time_s", "time_iqr_s", "measurements", "min_run_time",
    "flops", "input_bytes", "peak_bytes", "peak_source",
    "bytes_moved", "bandwidth_gbs", "max_abs_diff", "exact",
)


# --- arguments -------------------------------------------------------------------------


def _check_choices(name: str, values: object, choices: tuple[str, ...]) -> tuple[str, ...]:
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a list of names from {choices}, got {type(values).__name__}")
    values = tuple(values)
    unknown = [v for v in values if v not in choices]
    if unknown or not values:
        what = f"unknown {name} {unknown}" if unknown else f"no {name} given"
        raise ValueError(f"{what}; expected some of {choices}")
    return values


def as_dtype(dtype: torch.dtype | str) -> torch.dtype:
    """``torch.float32`` or ``"float32"`` -> ``torch.float32``; floating-point types only."""
    if isinstance(dtype, str):
        value = getattr(torch, dtype, None)
        if not isinstance(value, torch.dtype):
            raise ValueError(f"unknown dtype {dtype!r}; expected a name like 'float32', 'float16' or 'bfloat16'")
        dtype = value
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"dtype must be a torch.dtype or its name, got {type(dtype).__name__}")
    if not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating-point type (the weight's), got {dtype}")
    return dtype


def _as_device(device: torch.device | str) -> torch.device:
    if isinstance(device, torch.device):
        return device
    if isinstance(device, str):
        return resolve_device(device)
    raise TypeError(f"device must be a torch.device or a name like 'cpu' or 'cuda', got {type(device).__name__}")


@dataclass(frozen=True)
class Case:
    """One set of sizes: ``num_tokens`` ids into a ``vocab_size`` x ``embedding_dim`` table."""

    vocab_size: int
    embedding_dim: int
    num_tokens: int

    def __post_init__(self) -> None:
        check_int("vocab_size", self.vocab_size)
        check_int("embedding_dim", self.embedding_dim)
        check_int("num_tokens", self.num_tokens)

    def label(self) -> str:
        return f"V={self.vocab_size:,}, d={self.embedding_dim:,}, n={self.num_tokens:,}"


# --- what each method costs, on paper ------------------------------------------------


def itemsize(dtype: torch.dtype | str) -> int:
    """Bytes per element of a floating-point ``dtype`` (4 for float32)."""
    return torch.empty((), dtype=as_dtype(dtype)).element_size()


def flops(method: str, pass_: str, case: Case) -> int:
    """Floating-point operations a method spends (a multiply-add counts 2).

    ``dense`` forward multiplies ``(n, V) @ (V, d)``: ``2·n·V·d``, for ``n·d`` useful values;
    its backward adds ``one_hot.T @ grad_out``, another ``2·n·V·d``. ``sparse`` spends
    ``2·n·d`` per product (one nonzero per row). The lookup and the copy do no arithmetic
    (the lookup's backward adds ``n·d`` gradient values into rows: counted as ``n·d``).
    """
    _check_choices("method", [method], METHODS)
    _check_choices("pass", [pass_], PASSES)
    n, V, d = case.num_tokens, case.vocab_size, case.embedding_dim
    products = 2 if pass_ == "backward" else 1
    if method == "dense":
        return products * 2 * n * V * d
    if method == "sparse":
        return products * 2 * n * d
    if method == "lookup" and pass_ == "backward":
        return n * d
    return 0


def input_bytes(method: str, case: Case, dtype: torch.dtype | str = torch.float32) -> int:
    """Bytes of the input a method materialises from the ids.

    ``lookup``: the ids, ``n·8``. ``dense``: the one-hot matrix, ``n·V·itemsize``.
    ``sparse``: the COO one-hot, ``n`` nonzeros with two int64 indices and a value each.
    ``copy``: its ``(n, d)`` source.
    """
    _check_choices("method", [method], METHODS)
    n, V, d, item = case.num_tokens, case.vocab_size, case.embedding_dim, itemsize(dtype)
    return {
        "lookup": n * ID_BYTES,
        "dense": n * V * item,
        "sparse": n * (2 * ID_BYTES + item),
        "copy": n * d * item,
    }[method]


def peak_bytes_estimate(method: str, pass_: str, case: Case, dtype: torch.dtype | str = torch.float32) -> int:
    """Bytes one call allocates at its peak, beyond the inputs already held (computed, not measured).

    Every call allocates its ``(n, d)`` output; a backward call also the ``(V, d)`` weight
    gradient. ``dense`` first builds ``F.one_hot`` as int64 (``n·V·8``) and casts it
    (``n·V·itemsize``): both exist during the cast. ``sparse`` builds its COO one-hot
    (and its transpose in the backward).
    """
    _check_choices("method", [method], METHODS)
    _check_choices("pass", [pass_], PASSES)
    n, V, d, item = case.num_tokens, case.vocab_size, case.embedding_dim, itemsize(dtype)
    out = n * d * item
    grad = V * d * item if pass_ == "backward" else 0
    if method == "dense":
        one_hot = n * V * item
        return max(n * V * ID_BYTES + one_hot, one_hot + out + grad)
    if method == "sparse":
        coo = n * ID_BYTES + input_bytes("sparse", case, dtype)  # row indices (arange) + the COO tensor
        return (2 if pass_ == "backward" else 1) * coo + out + grad
    return out + grad


def held_bytes(method: str, pass_: str, case: Case, dtype: torch.dtype | str = torch.float32) -> int:
    """Bytes held while a method is timed: weight, ids, the output gradient (backward), the copy's source."""
    _check_choices("method", [method], METHODS)
    _check_choices("pass", [pass_], PASSES)
    n, V, d, item = case.num_tokens, case.vocab_size, case.embedding_dim, itemsize(dtype)
    held = V * d * item + n * ID_BYTES
    if pass_ == "backward":
        held += n * d * item
    if method == "copy":
        held += n * d * item
    return held


def memory_needed(method: str, pass_: str, case: Case, dtype: torch.dtype | str = torch.float32) -> int:
    """What the memory guard compares with the budget: held inputs + the call's peak."""
    return held_bytes(method, pass_, case, dtype) + peak_bytes_estimate(method, pass_, case, dtype)


def bytes_moved(method: str, pass_: str, case: Case, dtype: torch.dtype | str = torch.float32) -> int | None:
    """Bytes a forward lookup or copy must read and write at the least; ``None`` otherwise.

    ``lookup``: reads ``n`` ids and ``n`` rows of ``d`` values, writes ``n·d`` values:
    ``n·8 + 2·n·d·itemsize``. ``copy``: reads and writes ``n·d`` values: ``2·n·d·itemsize``.
    """
    _check_choices("method", [method], METHODS)
    _check_choices("pass", [pass_], PASSES)
    if pass_ != "forward" or method not in ("lookup", "copy"):
        return None
    n, d, item = case.num_tokens, case.embedding_dim, itemsize(dtype)
    return (n * ID_BYTES if method == "lookup" else 0) + 2 * n * d * item


def format_bytes(num: int | float) -> str:
    """``1536`` -> ``'1.5 KiB'``; binary units, three significant figures (``'1,002 MiB'`` above 999)."""
    value = float(num)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            if unit == "B":
                return f"{value:.0f} B"
            return f"{value:.3g} {unit}" if abs(value) < 1000 else f"{value:,.0f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


# --- memory guard ----------------------------------------------------------------------


def available_memory(device: torch.device | str = "cpu") -> int | None:
    """Bytes free for new tensors on ``device``, or ``None`` if it cannot be read.

    CUDA: ``torch.cuda.mem_get_info``. CPU on Linux: ``MemAvailable`` in ``/proc/meminfo``,
    else ``os.sysconf`` (available pages). Elsewhere (Apple MPS, Windows): ``None``.
    """
    device = _as_device(device)
    if device.type == "cuda":
        free, _total = torch.cuda.mem_get_info(device)
        return int(free)
    if device.type != "cpu":
        return None
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024  # the value is in kB
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def default_memory_budget(device: torch.device | str = "cpu", fraction: float = BUDGET_FRACTION) -> int:
    """Half (``fraction``) of :func:`available_memory`, or :data:`FALLBACK_BUDGET` (1 GiB) if unknown."""
    fraction = check_positive("fraction", fraction)
    if fraction > 1:
        raise ValueError(f"fraction must be at most 1 (a share of the available memory), got {fraction}")
    available = available_memory(device)
    return FALLBACK_BUDGET if available is None else int(available * fraction)


def over_budget(method: str, pass_: str, case: Case, dtype: torch.dtype | str, budget: int) -> str | None:
    """The reason to skip this method, pass and case, or ``None`` when it fits the budget."""
    needed = memory_needed(method, pass_, case, dtype)
    if needed <= budget:
        return None
    return (f"needs about {format_bytes(needed)}, over the memory budget of {format_bytes(budget)}"
            + (" (the dense one-hot alone is " + format_bytes(input_bytes("dense", case, dtype)) + ")"
               if method == "dense" else ""))


# --- the methods -------------------------------------------------------------------------


def tolerance(method: str, pass_: str, dtype: torch.dtype | str) -> tuple[float, float]:
    """``(rtol, atol)`` within which ``method`` must match the lookup before it is timed.

    Forward: every output value is ``1·w`` plus zeros, which rounds nowhere, so the dense
    product and the copy must match **exactly** (0, 0). The sparse product goes through a
    sparse-matrix library, so it is allowed one rounding (``rtol = eps``); on the CPU it
    is exact too (the results table records ``exact``). Backward: the output gradient is
    made of multiples of 1/8 in [-1, 1] (:func:`make_inputs`), whose sums are exact in
    float32/float64 in any order, so gradients must match exactly there; float16/bfloat16
    use :func:`torch.testing.assert_close`'s defaults for the dtype.
    """
    _check_choices("method", [method], METHODS)
    _check_choices("pass", [pass_], PASSES)
    dtype = as_dtype(dtype)
    if pass_ == "backward" and dtype not in (torch.float32, torch.float64):
        return {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5)}.get(dtype, (1e-3, 1e-5))
    if method == "sparse":
        return (torch.finfo(dtype).eps, 0.0)
    return (0.0, 0.0)


def make_inputs(case: Case, device: torch.device | str = "cpu", dtype: torch.dtype | str = torch.float32,
                seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Seeded inputs, drawn on the CPU and moved to ``device`` (the same values on every device).

    Returns ``ids: (n,) int64`` in ``0..V-1``, ``weight: (V, d)`` from N(0, 1), and
    ``grad_out: (n, d)``, multiples of 1/8 in [-1, 1] (so gradient sums are exact).
    """
    device, dtype = _as_device(device), as_dtype(dtype)
    check_int("seed", seed, minimum=0)
    generator = torch.Generator().manual_seed(seed)
    n, V, d = case.num_tokens, case.vocab_size, case.embedding_dim
    ids = torch.randint(0, V, (n,), generator=generator)
    weight = torch.randn(V, d, generator=generator).to(dtype)
    grad_out = (torch.randint(-8, 9, (n, d), generator=generator) / 8).to(dtype)
    return ids.to(device), weight.to(device), grad_out.to(device)


def sparse_one_hot(ids: torch.Tensor, num_classes: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The one-hot rows of ``ids`` as a sparse COO matrix: ``(n,) -> (n, num_classes)``, ``n`` nonzeros.

    Row ``i`` holds a single 1 in column ``ids[i]``. The indices are built already sorted
    and unique (rows ``0..n-1``), so the tensor is declared coalesced and nothing is sorted.
    """
    if not isinstance(ids, torch.Tensor) or ids.dim() != 1:
        raise ValueError(f"ids must be a 1-D tensor of token ids, got {getattr(ids, 'shape', type(ids).__name__)}")
    n = ids.shape[0]
    rows = torch.arange(n, device=ids.device)
    indices = torch.stack([rows, ids.long()])
    values = torch.ones(n, dtype=dtype, device=ids.device)
    # Opt out of the invariant checks explicitly, for this tensor only (they would re-verify what is true
    # by construction); PyTorch 2.11 warns once on stderr when they are off only by default.
    with torch.sparse.check_sparse_tensor_invariants(enable=False):
        return torch.sparse_coo_tensor(indices, values, (n, num_classes), is_coalesced=True, check_invariants=False)


def forward_fn(method: str, ids: torch.Tensor, weight: torch.Tensor, copy_source: torch.Tensor | None = None
               ) -> Callable[[], torch.Tensor]:
    """A no-argument function computing ``method``'s ``(n, d)`` output from ``ids: (n,)`` and ``weight: (V, d)``."""
    _check_choices("method", [method], METHODS)
    V = weight.shape[0]
    if method == "lookup":
        return lambda: F.embedding(ids, weight)
    if method == "dense":
        return lambda: F.one_hot(ids, V).to(weight.dtype) @ weight
    if method == "sparse":
        return lambda: torch.sparse.mm(sparse_one_hot(ids, V, weight.dtype), weight)
    if copy_source is None:
        raise ValueError("the copy needs copy_source: the (n, d) tensor whose bytes it copies")
    return copy_source.clone


def backward_fn(method: str, ids: torch.Tensor, weight: torch.Tensor, grad_out: torch.Tensor
                ) -> Callable[[], torch.Tensor]:
    """A no-argument function running ``method`` forward and backward; returns the weight's gradient ``(V, d)``.

    The loss is ``(output * grad_out).sum()``, whose gradient with respect to the output is
    ``grad_out`` exactly, as in a training step. (Passing ``grad_out`` to ``torch.autograd.grad``
    instead gives the same gradient, but its first call imports sympy: a second or so.)
    ``torch.autograd.grad`` returns a fresh gradient each call (nothing accumulates in ``.grad``).
    """
    if method not in BACKWARD_METHODS:
        raise ValueError(f"{method!r} has no backward pass; expected one of {BACKWARD_METHODS}")
    leaf = weight.detach().requires_grad_(True)
    forward = forward_fn(method, ids, leaf)

    def run() -> torch.Tensor:
        (grad,) = torch.autograd.grad((forward() * grad_out).sum(), leaf)
        return grad

    return run


def available_methods(device: torch.device | str = "cpu") -> tuple[str, ...]:
    """The methods that run on ``device``: all of :data:`METHODS`, less ``sparse`` where the backend
    has no sparse matrices (PyTorch raises ``NotImplementedError``, e.g. on some Apple MPS builds)."""
    device = _as_device(device)
    try:
        torch.sparse.mm(sparse_one_hot(torch.tensor([1], device=device), 2), torch.ones(2, 1, device=device))
    except NotImplementedError:
        return tuple(m for m in METHODS if m != "sparse")
    return METHODS


# --- measuring ---------------------------------------------------------------------------


def _compare(got: torch.Tensor, expected: torch.Tensor, rtol: float, atol: float, what: str) -> tuple[float, bool]:
    if got.is_sparse:
        got = got.to_dense()
    if got.shape != expected.shape:
        raise AssertionError(f"{what}: shape {tuple(got.shape)} differs from the lookup's {tuple(expected.shape)}")
    if torch.equal(got, expected):
        return 0.0, True
    max_diff = float((got - expected).abs().max())
    if not bool(torch.isclose(got, expected, rtol=rtol, atol=atol).all()):
        raise AssertionError(
            f"{what} differs from the lookup's by up to {max_diff:.3g} (allowed: rtol={rtol}, atol={atol}); "
            "a method that computes something else must not be timed"
        )
    return max_diff, False


def _measured_peak(fn: Callable[[], torch.Tensor], device: torch.device) -> int:
    """Peak bytes allocated by one call of ``fn`` beyond what was allocated before (CUDA only)."""
    torch.cuda.synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    before = torch.cuda.memory_allocated(device)
    result = fn()
    torch.cuda.synchronize(device)
    peak = torch.cuda.max_memory_allocated(device) - before
    del result
    return int(peak)


@dataclass(frozen=True)
class Measurement:
    """Seconds per call, one figure per timed block of calls."""

    times: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def iqr(self) -> float:
        """The spread: the interquartile range of the per-block times (0 for a single block)."""
        if len(self.times) < 2:
            return 0.0
        q1, _, q3 = statistics.quantiles(self.times, n=4, method="inclusive")
        return q3 - q1


def blocked_autorange(fn: Callable[[], object], device: torch.device, threads: int,
                      min_run_time: float) -> Measurement:
    """Time ``fn`` as ``torch.utils.benchmark.Timer.blocked_autorange`` does, with :mod:`timeit`'s clock.

    Grow the number of calls per block tenfold until a block lasts at least
    ``min_run_time / 1000`` seconds (this is also the warm-up), then run blocks until
    ``min_run_time`` seconds have been spent; each block gives one time per call. CUDA is
    synchronised around every block, so no launch goes untimed, and the CPU thread count
    is ``threads`` while timing.

    (``torch.utils.benchmark`` itself is not imported: it loads PyTorch's C++ extension
    builder, which on a CUDA build of PyTorch without a GPU logs a warning to stderr.)
    """
    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    def block(number: int) -> float:
        sync()
        start = timeit.default_timer()
        for _ in range(number):
            fn()
        sync()
        return timeit.default_timer() - start

    previous_threads = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        number = 1
        while block(number) < min_run_time / 1000 and number < 10**9:
            number *= 10
        times, spent = [], 0.0
        while spent < min_run_time:
            seconds = block(number)
            times.append(seconds / number)
            spent += seconds
    finally:
        torch.set_num_threads(previous_threads)
    return Measurement(tuple(times))


def run_benchmark(
    cases: Sequence[Case],
    *,
    methods: Sequence[str] = METHODS,
    passes: Sequence[str] = PASSES,
    device: torch.device | str = "cpu",
    dtype: torch.dtype | str = torch.float32,
    min_run_time: float = 0.2,
    threads: int | None = None,
    memory_budget: int | None = None,
    seed: int = 0,
    progress: bool = True,
) -> list[dict]:
    """Check, then time, every method and pass on every case; return the tidy rows (:data:`FIELDS`).

    ``min_run_time``: seconds each measurement repeats its call for (``blocked_autorange``).
    ``threads``: CPU threads for the timed calls (default ``torch.get_num_threads()``).
    ``memory_budget``: bytes; default :func:`default_memory_budget`. A method that would
    exceed it is skipped, never attempted: a row with ``status="skipped"`` and the reason,
    which is also printed. ``progress``: a ``tqdm`` bar (on stderr) over the measurements.
    """
    if isinstance(cases, Case):
        cases = [cases]
    cases = list(cases)
    if not cases or not all(isinstance(c, Case) for c in cases):
        raise TypeError("cases must be a non-empty list of Case(vocab_size, embedding_dim, num_tokens)")
    methods = _check_choices("methods", methods, METHODS)
    passes = _check_choices("passes", passes, PASSES)
    device, dtype = _as_device(device), as_dtype(dtype)
    min_run_time = check_positive("min_run_time", min_run_time)
    threads = torch.get_num_threads() if threads is None else check_int("threads", threads)
    budget = default_memory_budget(device) if memory_budget is None else int(check_positive(
        "memory_budget", memory_budget))
    check_int("seed", seed, minimum=0)

    common = {
        "dtype": str(dtype).removeprefix("torch."), "device": device.type, "device_name": describe_device(device),
        "threads": threads, "torch_version": torch.__version__, "min_run_time": min_run_time,
    }
    jobs = [(case, m, p) for case in cases for p in passes for m in methods
            if p == "forward" or m in BACKWARD_METHODS]
    rows: list[dict] = []
    with tqdm(total=len(jobs), desc="benchmark", unit="measurement", disable=not progress) as bar:
        for case in cases:
            case_jobs = [(m, p) for c, m, p in jobs if c == case]
            rows += _run_case(case, case_jobs, device, dtype, budget, threads, min_run_time, seed, common, bar)
    return rows


def _run_case(case: Case, jobs: list[tuple[str, str]], device: torch.device, dtype: torch.dtype, budget: int,
              threads: int, min_run_time: float, seed: int, common: dict, bar: tqdm) -> list[dict]:
    def row(method: str, pass_: str, **values) -> dict:
        base = {field: None for field in FIELDS}
        base.update(common, method=method, vocab_size=case.vocab_size, embedding_dim=case.embedding_dim,
                    num_tokens=case.num_tokens, flops=flops(method, pass_, case),
                    input_bytes=input_bytes(method, case, dtype), bytes_moved=bytes_moved(method, pass_, case, dtype))
        base["pass"] = pass_
        base.update(values)
        return base

    rows: dict[tuple[str, str], dict] = {}
    runnable = []
    for method, pass_ in jobs:
        reason = over_budget(method, pass_, case, dtype, budget)
        if reason:
            rows[method, pass_] = row(method, pass_, status="skipped", reason=reason)
            tqdm.write(f"skipped {method} {pass_} at {case.label()}: {reason}", file=sys.stdout)
            bar.update(1)
        else:
            runnable.append((method, pass_))
    if not runnable:
        return [rows[job] for job in jobs]

    ids, weight, grad_out = make_inputs(case, device, dtype, seed)
    reference = {"forward": F.embedding(ids, weight)}
    if any(p == "backward" for _, p in runnable):
        reference["backward"] = backward_fn("lookup", ids, weight, grad_out)()
    for method, pass_ in runnable:
        bar.set_postfix_str(f"{method} {pass_} {case.label()}")
        if pass_ == "forward":
            fn = forward_fn(method, ids, weight, copy_source=reference["forward"])
        else:
            fn = backward_fn(method, ids, weight, grad_out)
        try:
            output = fn()
        except NotImplementedError as error:  # e.g. sparse matrices on a backend without them
            reason = f"not supported on {device.type}: {str(error).splitlines()[0]}"
            rows[method, pass_] = row(method, pass_, status="skipped", reason=reason)
            tqdm.write(f"skipped {method} {pass_} at {case.label()}: {reason}", file=sys.stdout)
            bar.update(1)
            continue
        rtol, atol = tolerance(method, pass_, dtype)
        max_diff, exact = _compare(output, reference[pass_], rtol, atol, f"{method} {pass_} at {case.label()}")
        del output
        if device.type == "cuda":
            peak, source = _measured_peak(fn, device), "measured"
        else:
            peak, source = peak_bytes_estimate(method, pass_, case, dtype), "computed"
        measurement = blocked_autorange(fn, device, threads, min_run_time)
        moved = bytes_moved(method, pass_, case, dtype)
        rows[method, pass_] = row(
            method, pass_, status="ok", reason="", time_s=measurement.median, time_iqr_s=measurement.iqr,
            measurements=len(measurement.times), peak_bytes=peak, peak_source=source,
            bandwidth_gbs=None if moved is None else moved / measurement.median / 1e9,
            max_abs_diff=max_diff, exact=exact,
        )
        bar.update(1)
    return [rows[job] for job in jobs]


# --- the bandwidth study: a fair reference, allocation apart, the regimes by size -----------

#: The forward variants of the bandwidth study (:func:`bandwidth_study`):
#: ``lookup``: ``F.embedding``, a fresh output each call (what a model pays);
#: ``lookup_into``: ``torch.index_select(W, 0, ids, out=buf)``, into a preallocated output;
#: ``copy_cold``: ``buf.copy_(src)`` with ``src`` the next ``(n, d)`` slice of a buffer several times
#: the last-level cache, so that it is not cache-resident: the fair reference for the lookup, whose
#: rows come from a table larger than the cache;
#: ``copy_cached``: ``src.clone()`` of a source just written, as ``copy`` in :data:`METHODS`: a copy
#: that finds its source in cache (an upper reference, unfair to the lookup).
BANDWIDTH_VARIANTS = ("lookup", "lookup_into", "copy_cold", "copy_cached")
#: The cold copy's rotating source spans at least this many times the last-level cache.
COLD_FACTOR = 4
#: Assumed last-level cache when the device does not say (bytes).
FALLBACK_CACHE = 32 * 2**20
#: The regimes, from small to large calls.
REGIMES = ("per-call overhead", "cache-resident", "DRAM-bound")
#: A run whose lookup/copy ratio varies more than this (relative, max - min over the median)
#: across repeats says that one number would not be reliable.
NOISY_SPREAD = 0.2


def last_level_cache(device: torch.device | str = "cpu") -> tuple[int, str]:
    """``(bytes, source)`` of the device's last-level cache: the L3 (or largest) cache a Linux CPU
    lists in ``/sys``, a CUDA device's L2; else :data:`FALLBACK_CACHE` with ``source="assumed"``."""
    device = _as_device(device)
    if device.type == "cuda":
        size = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 0)
        return (int(size), "L2 (device properties)") if size else (FALLBACK_CACHE, "assumed")
    sizes = []
    for entry in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            text = (entry / "size").read_text().strip()
            sizes.append(int(text[:-1]) * {"K": 2**10, "M": 2**20, "G": 2**30}[text[-1]])
        except (OSError, ValueError, KeyError, IndexError):
            continue
    return (max(sizes), "largest CPU cache in /sys") if sizes else (FALLBACK_CACHE, "assumed")


#: Peak memory bandwidth (GB/s) of some GPUs, from their data sheets, for devices whose properties
#: do not give the memory clock and bus width.
PEAK_BANDWIDTH_GBS = {"H200": 4_800, "H100 SXM": 3_350, "H100 80GB HBM3": 3_350, "H100 PCIe": 2_000,
                      "A100-SXM4-80GB": 2_039, "A100-SXM4-40GB": 1_555, "L4": 300, "T4": 320}


def device_peak_bandwidth(device: torch.device | str = "cpu") -> float | None:
    """A CUDA device's peak memory bandwidth in GB/s: 2 x memory clock x bus width (double data rate) from
    its properties, else :data:`PEAK_BANDWIDTH_GBS` by name; ``None`` for a CPU or an unknown device."""
    device = _as_device(device)
    if device.type != "cuda":
        return None
    props = torch.cuda.get_device_properties(device)
    clock_khz, bus_bits = getattr(props, "memory_clock_rate", 0), getattr(props, "memory_bus_width", 0)
    if clock_khz and bus_bits:
        return 2 * clock_khz * 1e3 * bus_bits / 8 / 1e9
    return next((gbs for name, gbs in PEAK_BANDWIDTH_GBS.items() if name in props.name), None)


def cold_buffer_slices(case: Case, dtype: torch.dtype | str, cache_bytes: int) -> int:
    """How many ``(n, d)`` slices the cold copy rotates through: at least 2, spanning ``COLD_FACTOR`` x the cache."""
    slice_bytes = case.num_tokens * case.embedding_dim * itemsize(dtype)
    return max(2, -(-COLD_FACTOR * cache_bytes // slice_bytes))


def study_memory_needed(case: Case, dtype: torch.dtype | str, cache_bytes: int) -> int:
    """Bytes the bandwidth study holds for one case: table, ids, output buffer, the cached and the cold sources,
    and one allocated output."""
    n, V, d, item = case.num_tokens, case.vocab_size, case.embedding_dim, itemsize(dtype)
    return V * d * item + n * ID_BYTES + (3 + cold_buffer_slices(case, dtype, cache_bytes)) * n * d * item


def _study_fns(case: Case, weight: torch.Tensor, seed: int, cache_bytes: int,
               storage: torch.Tensor) -> dict[str, Callable[[], torch.Tensor]]:
    """The four variants on ``case``. ``storage``: a flat buffer, at least as large as the cold copy's
    rotating source, reused from case to case."""
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, case.vocab_size, (case.num_tokens,), generator=generator).to(weight.device)
    expected = F.embedding(ids, weight)
    out = torch.empty_like(expected)
    slices = cold_buffer_slices(case, weight.dtype, cache_bytes)
    cold = storage[:slices * expected.numel()].view(slices, *expected.shape)
    cold.copy_(expected.expand_as(cold))  # every slice holds the lookup's result
    position = [0]

    def copy_cold() -> torch.Tensor:
        position[0] = (position[0] + 1) % slices
        return out.copy_(cold[position[0]])

    fns = {
        "lookup": lambda: F.embedding(ids, weight),
        "lookup_into": lambda: torch.index_select(weight, 0, ids, out=out),
        "copy_cold": copy_cold,
        "copy_cached": expected.clone,
    }
    for name, fn in fns.items():  # each variant computes the lookup's result, exactly
        if not torch.equal(fn(), expected):
            raise AssertionError(f"{name} at {case.label()} differs from the lookup; it must not be timed")
    return fns


def bandwidth_study(cases: Sequence[Case], *, device: torch.device | str = "cpu",
                    dtype: torch.dtype | str = torch.float32, min_run_time: float = 0.1, repeats: int = 5,
                    threads: int | None = None, memory_budget: int | None = None, seed: int = 0,
                    progress: bool = True) -> list[dict]:
    """Time :data:`BANDWIDTH_VARIANTS` on each case, ``repeats`` times, the variants interleaved.

    Interleaving puts a passing load on every variant alike, so the ratio of two variants
    within a repeat is steadier than either time. Returns one row per case: the sizes,
    ``bytes_moved`` (the lookup's, :func:`bytes_moved`), the ``cache_bytes`` and the cold
    buffer's size, and per variant the median bandwidth over the repeats (``<variant>_gbs``);
    ``ratio`` (``lookup_into`` / ``copy_cold``, median over repeats) with ``ratio_min`` and
    ``ratio_max``; ``noisy`` when their spread exceeds :data:`NOISY_SPREAD`; ``best_ratio``, the
    two variants' best repeats compared (a busy machine only ever slows a call down, so the best
    repeat is the one least disturbed). A case over the memory budget gets ``status="skipped"``
    and a printed reason.
    """
    if isinstance(cases, Case):
        cases = [cases]
    cases = list(cases)
    if not cases or not all(isinstance(c, Case) for c in cases):
        raise TypeError("cases must be a non-empty list of Case(vocab_size, embedding_dim, num_tokens)")
    device, dtype = _as_device(device), as_dtype(dtype)
    min_run_time = check_positive("min_run_time", min_run_time)
    repeats = check_int("repeats", repeats)
    threads = torch.get_num_threads() if threads is None else check_int("threads", threads)
    budget = default_memory_budget(device) if memory_budget is None else int(check_positive(
        "memory_budget", memory_budget))
    check_int("seed", seed, minimum=0)
    cache_bytes, cache_source = last_level_cache(device)
    peak = device_peak_bandwidth(device)
    tables: dict[tuple[int, int], torch.Tensor] = {}  # one seeded table per (V, d), shared by the sizes of a sweep
    fitting = [c for c in cases if study_memory_needed(c, dtype, cache_bytes) <= budget]
    # one buffer for the cold copy's source, as large as the largest case needs, reused by every case:
    # allocating and first touching a buffer of four caches for each case would take longer than timing it
    storage_numel = max((cold_buffer_slices(c, dtype, cache_bytes) * c.num_tokens * c.embedding_dim
                         for c in fitting), default=0)
    storage = torch.empty(storage_numel, dtype=dtype, device=device)
    rows = []
    for case in tqdm(cases, desc="bandwidth", unit="case", disable=not progress):
        row = {"vocab_size": case.vocab_size, "embedding_dim": case.embedding_dim, "num_tokens": case.num_tokens,
               "dtype": str(dtype).removeprefix("torch."), "device": device.type,
               "device_name": describe_device(device), "threads": threads, "torch_version": torch.__version__,
               "bytes_moved": bytes_moved("lookup", "forward", case, dtype), "cache_bytes": cache_bytes,
               "cache_source": cache_source,
               "cold_buffer_bytes": cold_buffer_slices(case, dtype, cache_bytes) * case.num_tokens
               * case.embedding_dim * itemsize(dtype), "peak_gbs": peak, "repeats": repeats, "status": "ok",
               "reason": ""}
        needed = study_memory_needed(case, dtype, cache_bytes)
        if needed > budget:
            row.update(status="skipped", reason=f"needs about {format_bytes(needed)}, over the memory budget of "
                                                f"{format_bytes(budget)}")
            tqdm.write(f"skipped the bandwidth study at {case.label()}: {row['reason']}", file=sys.stdout)
            rows.append(row)
            continue
        shape = (case.vocab_size, case.embedding_dim)
        if shape not in tables:
            tables = {shape: make_inputs(Case(*shape, 1), device, dtype, seed)[1]}  # hold one table at a time
        fns = _study_fns(case, tables[shape], seed, cache_bytes, storage)
        moved = {v: bytes_moved("lookup" if v.startswith("lookup") else "copy", "forward", case, dtype)
                 for v in BANDWIDTH_VARIANTS}
        gbs: dict[str, list[float]] = {v: [] for v in BANDWIDTH_VARIANTS}
        for _ in range(repeats):
            for variant, fn in fns.items():
                seconds = blocked_autorange(fn, device, threads, min_run_time).median
                gbs[variant].append(moved[variant] / seconds / 1e9)
        ratios = [a / b for a, b in zip(gbs["lookup_into"], gbs["copy_cold"], strict=True)]
        for variant in BANDWIDTH_VARIANTS:
            row[f"{variant}_gbs"] = statistics.median(gbs[variant])
            row[f"{variant}_time_s"] = moved[variant] / row[f"{variant}_gbs"] / 1e9
        ratio = statistics.median(ratios)
        row.update(ratio=ratio, ratio_min=min(ratios), ratio_max=max(ratios),
                   best_ratio=max(gbs["lookup_into"]) / max(gbs["copy_cold"]),
                   noisy=(max(ratios) - min(ratios)) / ratio > NOISY_SPREAD)
        rows.append(row)
        del fns
    return rows


def regimes(rows: Sequence[dict]) -> list[str]:
    """The regime of each row of :func:`bandwidth_study` (skipped rows: ``"skipped"``), in order.

    ``per-call overhead``: the preallocated lookup takes less than twice the time of the
    smallest call measured (its time hardly grows with the bytes); else ``cache-resident``
    when the bytes it moves fit the last-level cache, ``DRAM-bound`` when they do not.
    """
    ok = [r for r in rows if r["status"] == "ok"]
    if not ok:
        return ["skipped"] * len(rows)
    floor = min(r["lookup_into_time_s"] for r in ok)
    labels = []
    for r in rows:
        if r["status"] != "ok":
            labels.append("skipped")
        elif r["lookup_into_time_s"] < 2 * floor:
            labels.append(REGIMES[0])
        elif r["bytes_moved"] <= r["cache_bytes"]:
            labels.append(REGIMES[1])
        else:
            labels.append(REGIMES[2])
    return labels


def format_study(rows: Sequence[dict]) -> str:
    """The bandwidth study as a text table, one line per case, with its regime."""
    header = ["n", "moved", "lookup", "into buf", "copy cold", "copy cached", "into/cold", "spread", "regime"]
    lines = []
    for r, regime in zip(rows, regimes(rows), strict=True):
        if r["status"] != "ok":
            lines.append([f"{r['num_tokens']:,}", format_bytes(r["bytes_moved"]), "-", "-", "-", "-", "-", "-",
                          "skipped"])
            continue
        lines.append([f"{r['num_tokens']:,}", format_bytes(r["bytes_moved"]),
                      *(f"{r[f'{v}_gbs']:.3g}" for v in BANDWIDTH_VARIANTS),
                      f"{r['ratio']:.2f}", f"{r['ratio_min']:.2f}-{r['ratio_max']:.2f}", regime])
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]

    def fmt(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i < len(header) - 1 else c
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True)))

    title = "GB/s (median of the repeats); into/cold: the preallocated lookup over the cold copy"
    return "\n".join([title, fmt(header), *(fmt(line) for line in lines)])


def describe_study_row(r: dict) -> str:
    """One case of the study in words: the fair ratio with its spread, and the other references."""
    if r["status"] != "ok":
        return f"bandwidth study at n={r['num_tokens']:,}: skipped, {r['reason']}"
    text = (f"lookup at V={r['vocab_size']:,}, d={r['embedding_dim']:,}, n={r['num_tokens']:,}: into a preallocated "
            f"output {r['lookup_into_gbs']:.3g} GB/s, {r['ratio']:.2f}x a copy from a cold source "
            f"({r['copy_cold_gbs']:.3g} GB/s; median of {r['repeats']} interleaved repeats, spread "
            f"{r['ratio_min']:.2f}-{r['ratio_max']:.2f}); allocating its output {r['lookup_gbs']:.3g} GB/s; "
            f"a copy whose source is in cache {r['copy_cached_gbs']:.3g} GB/s "
            f"(cold source: a {format_bytes(r['cold_buffer_bytes'])} buffer, {COLD_FACTOR}x or more the "
            f"{format_bytes(r['cache_bytes'])} last-level cache)")
    if r["peak_gbs"]:
        text += f"; the preallocated lookup reaches {r['lookup_into_gbs'] / r['peak_gbs']:.0%} of the device's peak " \
                f"{r['peak_gbs']:,.0f} GB/s"
    if r["noisy"]:
        text += (f"\nthe ratio varied by more than {NOISY_SPREAD:.0%} across the repeats: this machine is busy, "
                 "so one number is not reliable; run again on a quiet machine or with more --repeats")
    return text


#: Tokens per call for the regime sweep: from a per-call-overhead floor to past the caches. The quick
#: sweep's largest call moves 96 MiB, past a 32 MiB CPU cache and an H100's 50 MiB L2, in seconds.
REGIME_TOKENS = {"quick": (16, 256, 2_048, 16_384),
                 "full": (16, 64, 256, 1_024, 2_048, 4_096, 16_384, 65_536, 131_072)}


# --- sizes -------------------------------------------------------------------------------

SWEEP_AXES = ("vocab_size", "embedding_dim", "num_tokens")


@dataclass(frozen=True)
class Sweeps:
    """Sizes for the three one-dimensional sweeps, and the anchor that fixes the other two sizes.

    The vocabulary sweep runs ``vocab_sizes`` at the anchor's ``d`` and ``n``; the
    embedding-dim sweep runs ``embedding_dims`` at the anchor's ``V`` and ``n``; the token
    sweep ``token_counts`` at the anchor's ``V`` and ``d``. ``bandwidth`` is the case whose
    lookup is compared with a copy.
    """

    vocab_sizes: tuple[int, ...]
    embedding_dims: tuple[int, ...]
    token_counts: tuple[int, ...]
    anchor: Case
    bandwidth: Case
    min_run_time: float

    def cases(self, axis: str) -> list[Case]:
        """The cases of one sweep: ``axis`` is ``"vocab_size"``, ``"embedding_dim"`` or ``"num_tokens"``."""
        _check_choices("axis", [axis], SWEEP_AXES)
        values = {"vocab_size": self.vocab_sizes, "embedding_dim": self.embedding_dims,
                  "num_tokens": self.token_counts}[axis]
        base = {"vocab_size": self.anchor.vocab_size, "embedding_dim": self.anchor.embedding_dim,
                "num_tokens": self.anchor.num_tokens}
        return [Case(**{**base, axis: value}) for value in values]


def run_sweeps(sweeps: Sweeps, axes: Sequence[str] = SWEEP_AXES, **kwargs) -> dict[str, list[dict]]:
    """Run the sweeps along ``axes``, measuring each distinct case once; ``{axis: its rows}``.

    The anchor case belongs to every sweep: it is measured once and its rows appear in each.
    ``kwargs`` go to :func:`run_benchmark` (methods, passes, device, dtype, budget, ...).
    """
    axes = _check_choices("axes", axes, SWEEP_AXES)
    per_axis = {axis: sweeps.cases(axis) for axis in axes}
    cases = list(dict.fromkeys(case for cases in per_axis.values() for case in cases))
    rows = run_benchmark(cases, **kwargs)
    by_case: dict[Case, list[dict]] = {}
    for row in rows:
        by_case.setdefault(Case(*_case_key(row)), []).append(row)
    return {axis: [row for case in cases for row in by_case[case]] for axis, cases in per_axis.items()}


#: ``quick``: seconds on a laptop CPU (CI runs it). ``full``: GPT-2's sizes and Llama 3's vocabulary
#: (minutes on a CPU; the memory guard skips what does not fit).
PRESETS = {
    "quick": Sweeps(
        vocab_sizes=(1_000, 3_000, 10_000, 50_257), embedding_dims=(16, 64, 256), token_counts=(64, 256, 1_024),
        anchor=Case(2_000, 16, 64), bandwidth=Case(50_257, 768, 2_048), min_run_time=0.01,
    ),
    "full": Sweeps(
        vocab_sizes=(1_000, 2_000, 5_000, 10_000, 20_000, 50_257, 128_256),
        embedding_dims=(64, 128, 256, 512, 768), token_counts=(256, 512, 1_024, 2_048, 4_096),
        anchor=Case(50_257, 768, 2_048), bandwidth=Case(50_257, 768, 2_048), min_run_time=0.5,
    ),
}


def preset(quick: bool) -> Sweeps:
    """``PRESETS["quick"]`` or ``PRESETS["full"]``."""
    if not isinstance(quick, bool):
        raise TypeError(f"quick must be True or False, got {type(quick).__name__}")
    return PRESETS["quick" if quick else "full"]


# --- summaries ---------------------------------------------------------------------------


def _ok(rows: Iterable[dict], **match) -> list[dict]:
    return [r for r in rows if r["status"] == "ok" and all(r[k] == v for k, v in match.items())]


def _case_key(r: dict) -> tuple[int, int, int]:
    return (r["vocab_size"], r["embedding_dim"], r["num_tokens"])


def speedups(rows: Sequence[dict], method: str = "dense", pass_: str = "forward") -> list[dict]:
    """Per case: how many times longer ``method`` takes than the lookup (``time / lookup time``).

    Returns ``{"vocab_size", "embedding_dim", "num_tokens", "pass", "method", "speedup"}`` for every
    case where both were measured, in the order of the rows.
    """
    _check_choices("method", [method], METHODS)
    _check_choices("pass", [pass_], PASSES)
    lookup = {_case_key(r): r["time_s"] for r in _ok(rows, method="lookup", **{"pass": pass_})}
    out = []
    for r in _ok(rows, method=method, **{"pass": pass_}):
        key = _case_key(r)
        if key in lookup:
            out.append({"vocab_size": key[0], "embedding_dim": key[1], "num_tokens": key[2], "pass": pass_,
                        "method": method, "speedup": r["time_s"] / lookup[key]})
    return out


def _format_time(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale or unit == "us":
            return f"{seconds / scale:.3g} {unit}"
    raise AssertionError("unreachable")


def format_table(rows: Sequence[dict]) -> str:
    """The rows as a text table: sizes, method, pass, median time, bandwidth, memory, check, status."""
    header = ["V", "d", "n", "method", "pass", "time", "GB/s", "input", "peak", "check", "status"]
    lines = []
    for r in rows:
        ok = r["status"] == "ok"
        lines.append([
            f"{r['vocab_size']:,}", f"{r['embedding_dim']:,}", f"{r['num_tokens']:,}", r["method"], r["pass"],
            _format_time(r["time_s"]), "-" if r["bandwidth_gbs"] is None else f"{r['bandwidth_gbs']:.3g}",
            format_bytes(r["input_bytes"]), "-" if r["peak_bytes"] is None else format_bytes(r["peak_bytes"]),
            ("exact" if r["exact"] else f"<= {r['max_abs_diff']:.1g}") if ok else "-",
            "ok" if ok else "skipped",
        ])
    widths = [max(len(h), *(len(line[i]) for line in lines)) if lines else len(h) for i, h in enumerate(header)]
    left = {"method", "pass", "check", "status"}

    def fmt(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if h in left else c.rjust(w) for c, w, h in zip(cells, widths, header, strict=True))

    return "\n".join([fmt(header)] + [fmt(line) for line in lines])


def environment_line(rows: Sequence[dict]) -> str:
    """``device cpu, float32, 2 threads, torch 2.x.y``: what the timings were taken on."""
    if not rows:
        raise ValueError("no rows: run the benchmark first")
    r = rows[0]
    threads = f"{r['threads']} thread" + ("" if r["threads"] == 1 else "s")
    return f"device {r['device_name']}, {r['dtype']}, {threads}, torch {r['torch_version']}"


def write_results(rows: Sequence[dict], path: str | Path) -> Path:
    """Save tidy rows (:func:`run_benchmark`'s or :func:`bandwidth_study`'s) as ``.csv`` (one row per line,
    the first row's keys as header) or ``.json``."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".json"):
        raise ValueError(f"cannot write results to {path.name!r}: expected a file name ending in .csv or .json")
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".json":
        path.write_text(json.dumps(list(rows), indent=1) + "\n", encoding="utf-8")
    else:
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else FIELDS)
            writer.writeheader()
            writer.writerows(rows)
    return path


# --- command line ------------------------------------------------------------------------


def _sizes(text: str) -> list[int]:
    try:
        values = [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated whole numbers like 1000,50257; got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive whole numbers like 1000,50257; got {text!r}")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m utils.bench",
        description="Time the embedding lookup against the dense and sparse one-hot products and a plain copy. "
                    "Default: GPT-2's sizes (V=50257, d=768, n=2048).",
    )
    parser.add_argument("--vocab-sizes", type=_sizes, default=[50_257], help="comma-separated V (default 50257)")
    parser.add_argument("--dims", type=_sizes, default=[768], help="comma-separated d (default 768)")
    parser.add_argument("--tokens", type=_sizes, default=[2_048], help="comma-separated n (default 2048)")
    parser.add_argument("--sweep", choices=("quick", "full"),
                        help="run the notebook's three sweeps (V, d, n) of this preset instead of the sizes above")
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    parser.add_argument("--passes", nargs="+", choices=PASSES, default=list(PASSES))
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda or mps (default auto)")
    parser.add_argument("--dtype", default="float32", help="weight dtype (default float32)")
    parser.add_argument("--min-run-time", type=float, default=0.5, help="seconds per measurement (default 0.5)")
    parser.add_argument("--threads", type=int, default=1,
                        help="CPU threads for the timed calls (default 1: on a machine whose cores are shared, a "
                             "multi-threaded call can wait milliseconds for a busy core, and its timing means "
                             "nothing; pass the core count for a quiet machine's best)")
    parser.add_argument("--memory-budget-gib", type=float,
                        help=f"skip what needs more (default: {BUDGET_FRACTION * 100:.0f}%% of the available memory)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, help="write the results table to this .csv or .json file")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--repeats", type=int, default=5,
                        help="interleaved repeats of the bandwidth study (default 5): its ratio's spread is reported")
    parser.add_argument("--regimes", action="store_true",
                        help="instead: the bandwidth study over tokens per call, 16 to 131,072, at the first V and d, "
                             "with each size's regime (--output then writes the study's rows)")
    args = parser.parse_args(argv)

    if args.output is not None and args.output.suffix.lower() not in (".csv", ".json"):
        parser.error(f"--output must end in .csv or .json, got {args.output.name!r}")
    if args.sweep:
        sweeps = PRESETS[args.sweep]
        cases = list(dict.fromkeys(case for axis in SWEEP_AXES for case in sweeps.cases(axis)))  # each once
    else:
        cases = [Case(v, d, n) for v in args.vocab_sizes for d in args.dims for n in args.tokens]
    try:
        device = resolve_device(args.device)
    except (RuntimeError, ValueError) as error:  # an unknown device, or a GPU that is not there
        parser.error(str(error))
    budget = None if args.memory_budget_gib is None else int(args.memory_budget_gib * GIB)
    study = {"device": device, "dtype": args.dtype, "min_run_time": args.min_run_time, "repeats": args.repeats,
             "threads": args.threads, "memory_budget": budget, "seed": args.seed, "progress": not args.no_progress}
    if args.regimes:
        try:
            rows = bandwidth_study([Case(args.vocab_sizes[0], args.dims[0], n) for n in REGIME_TOKENS["full"]],
                                   **study)
        except (TypeError, ValueError) as error:
            parser.error(str(error))
        print(environment_line(rows))
        print(format_study(rows))
        if args.output is not None:
            print(f"results written to {write_results(rows, args.output)}")
        return 0
    try:
        rows = run_benchmark(cases, methods=args.methods, passes=args.passes, device=device, dtype=args.dtype,
                             min_run_time=args.min_run_time, threads=args.threads, memory_budget=budget,
                             seed=args.seed, progress=not args.no_progress)
    except (TypeError, ValueError) as error:
        parser.error(str(error))

    print(environment_line(rows))
    print(f"memory budget {format_bytes(budget if budget is not None else default_memory_budget(device))}")
    print()
    print(format_table(rows))
    print()
    for pass_ in args.passes:
        for method in ("dense", "sparse"):
            for s in speedups(rows, method, pass_):
                print(f"lookup vs {method} ({pass_}) at V={s['vocab_size']:,}, d={s['embedding_dim']:,}, "
                      f"n={s['num_tokens']:,}: the lookup is {s['speedup']:,.1f}x faster")
    if "forward" in args.passes and {"lookup", "copy"} <= set(args.methods):
        for row in bandwidth_study(cases, **study):  # the lookup against a fair copy, with its spread
            print(describe_study_row(row))
    if args.output is not None:
        print(f"results written to {write_results(rows, args.output)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
