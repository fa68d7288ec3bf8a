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

import os
import statistics
import sys
import timeit
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from tqdm import tqdm

from ..checks import check_int, check_positive
from ..devices import describe_device, resolve_device
from ..lookup import one_hot_multiply_adds

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


def check_choices(name: str, values: object, choices: tuple[str, ...]) -> tuple[str, ...]:
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


def as_device(device: torch.device | str) -> torch.device:
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
    check_choices("method", [method], METHODS)
    check_choices("pass", [pass_], PASSES)
    products = 2 if pass_ == "backward" else 1
    # the one-hot product's count, from the lesson (utils.lookup): all V·d multiply-adds per token for
    # the dense matrix, only the d useful ones for the sparse one; a FLOP counter counts each as 2
    count = one_hot_multiply_adds(case.num_tokens, case.vocab_size, case.embedding_dim)
    if method == "dense":
        return products * 2 * count.total
    if method == "sparse":
        return products * 2 * count.useful
    if method == "lookup" and pass_ == "backward":
        return count.useful  # n·d gradient values added into rows
    return 0


def input_bytes(method: str, case: Case, dtype: torch.dtype | str = torch.float32) -> int:
    """Bytes of the input a method materialises from the ids.

    ``lookup``: the ids, ``n·8``. ``dense``: the one-hot matrix, ``n·V·itemsize``.
    ``sparse``: the COO one-hot, ``n`` nonzeros with two int64 indices and a value each.
    ``copy``: its ``(n, d)`` source.
    """
    check_choices("method", [method], METHODS)
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
    check_choices("method", [method], METHODS)
    check_choices("pass", [pass_], PASSES)
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
    check_choices("method", [method], METHODS)
    check_choices("pass", [pass_], PASSES)
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
    check_choices("method", [method], METHODS)
    check_choices("pass", [pass_], PASSES)
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
    device = as_device(device)
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
    check_choices("method", [method], METHODS)
    check_choices("pass", [pass_], PASSES)
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
    device, dtype = as_device(device), as_dtype(dtype)
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
    check_choices("method", [method], METHODS)
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
    device = as_device(device)
    try:
        torch.sparse.mm(sparse_one_hot(torch.tensor([1], device=device), 2), torch.ones(2, 1, device=device))
    except NotImplementedError:
        return tuple(m for m in METHODS if m != "sparse")
    return METHODS


# --- measuring ---------------------------------------------------------------------------


def _compare(got: torch.Tensor, expected: torch.Tensor, rtol: float, atol: float, what: str) -> tuple[float, bool]:
    """``(largest difference, exact?)`` of a method's result against the lookup's; AssertionError (from
    :func:`torch.testing.assert_close`) when it is not within ``rtol``/``atol``."""
    got = got.to_dense() if got.is_sparse else got
    torch.testing.assert_close(got, expected, rtol=rtol, atol=atol, msg=lambda message: (
        f"{what} differs from the lookup's; a method that computes something else must not be timed. {message}"))
    exact = torch.equal(got, expected)
    return (0.0 if exact else float((got - expected).abs().max())), exact


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
    methods = check_choices("methods", methods, METHODS)
    passes = check_choices("passes", passes, PASSES)
    device, dtype = as_device(device), as_dtype(dtype)
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
        check_choices("axis", [axis], SWEEP_AXES)
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
    axes = check_choices("axes", axes, SWEEP_AXES)
    per_axis = {axis: sweeps.cases(axis) for axis in axes}
    cases = list(dict.fromkeys(case for cases in per_axis.values() for case in cases))
    rows = run_benchmark(cases, **kwargs)
    by_case: dict[Case, list[dict]] = {}
    for row in rows:
        by_case.setdefault(Case(row["vocab_size"], row["embedding_dim"], row["num_tokens"]), []).append(row)
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


