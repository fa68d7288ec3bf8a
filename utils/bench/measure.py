"""Check, then time, the ways of getting embedding rows: notebook 6's sweeps, ``python -m utils.bench sweep``.

``lookup`` (``F.embedding(ids, W)``), ``dense`` (``F.one_hot(ids, V).to(dtype) @ W``) and ``sparse``
(``torch.sparse.mm`` of the one-hot as a COO matrix, built inside the call as the dense one-hot is), forward
and forward + backward, on seeded inputs, each checked against the lookup first (:func:`tolerance`). Every
call takes the next batch of ids (:func:`id_batches`), as a model's every step does. The timer is PyTorch's
``torch.utils.benchmark.Timer``, run in interleaved rounds (:func:`interleaved`) whose :func:`spread` says
how far one number can be trusted. A memory guard skips, with a printed reason, what would not fit the
budget (:func:`memory_needed`). No global state: the device, dtype, threads, seed and budget are a :class:`Settings`.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import io
import itertools
import logging
import math
import os
import statistics
import sys
import time
import timeit
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from tqdm import tqdm

from ..checks import check_int, check_positive
from ..devices import describe_device, resolve_device
from ..lookup import ID_BYTES, one_hot_bytes, one_hot_multiply_adds

# torch.utils.benchmark imports torch.utils.cpp_extension (for its Callgrind tools), which on a CUDA build of
# PyTorch on a machine without a GPU (Colab's CPU runtime) writes "No CUDA runtime is found" to stderr as it
# is imported (torch >= 2.4 logs it, older releases print it). The Timer compiles nothing: that one line is
# held back; anything else the import writes passes through.
_cpp_log = logging.getLogger("torch.utils.cpp_extension")
_cpp_level = _cpp_log.level
_cpp_log.setLevel(logging.ERROR)
with contextlib.redirect_stderr(io.StringIO()) as _import_log:
    from torch.utils.benchmark import Timer
_cpp_log.setLevel(_cpp_level)
sys.stderr.write("".join(line for line in _import_log.getvalue().splitlines(keepends=True)
                         if "No CUDA runtime is found" not in line))

METHODS = ("lookup", "dense", "sparse")
PASSES = ("forward", "backward")  # "backward" times forward + backward together
GIB = 2**30
#: Fraction of the available memory the default budget allows.
BUDGET_FRACTION = 0.5
#: The budget when the available memory cannot be read: small enough for any laptop or Colab.
FALLBACK_BUDGET = 1 * GIB
#: The largest default budget, however much is free: a GPU with 80 GiB free would otherwise admit cases that
#: take minutes (the full preset's dense product at Llama 3's vocabulary); ``--memory-budget-gib`` raises it.
MAX_DEFAULT_BUDGET = 8 * GIB
#: Seconds each timing runs for by default on the command line: a CPU call at GPT-2's sizes takes up to
#: milliseconds, a GPU call microseconds, so 0.05 s is already thousands of GPU calls (and keeps
#: ``regimes --device cuda`` within about a minute).
DEFAULT_MIN_RUN_TIME = {"cpu": 0.5, "cuda": 0.05}
#: A figure whose repeats spread by more than this (:func:`spread`) is not reliable: the interquartile range past
#: which PyTorch's own ``Measurement`` warns of "significant environmental influence" (``meets_confidence(0.25)``).
NOISY_SPREAD = 0.25


# --- arguments -------------------------------------------------------------------------


def check_choices(name: str, values: object, choices: tuple[str, ...]) -> tuple[str, ...]:
    """``values`` as a tuple, if it is a non-empty list of names from ``choices``."""
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


def itemsize(dtype: torch.dtype | str) -> int:
    """Bytes per element of a floating-point ``dtype`` (4 for float32)."""
    return as_dtype(dtype).itemsize


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


#: GPT-2's vocabulary and width, and a batch of 2,048 tokens.
GPT2 = Case(50_257, 768, 2_048)


def check_cases(cases: Case | Sequence[Case]) -> list[Case]:
    cases = [cases] if isinstance(cases, Case) else list(cases) if isinstance(cases, Iterable) else None
    if not cases or not all(isinstance(c, Case) for c in cases):
        raise TypeError("cases must be a non-empty list of Case(vocab_size, embedding_dim, num_tokens)")
    return cases


@dataclass(frozen=True)
class Settings:
    """How every measurement of the benchmark runs: where, in what dtype, how long, how often, within what memory.

    ``threads``: CPU threads for the timed calls (1 by default: on a machine whose cores are shared, a
    multi-threaded call can wait milliseconds for a busy core). ``min_run_time``: seconds each timing
    repeats its call for. ``repeats``: interleaved rounds. ``memory_budget``: bytes; ``None``, half of
    the memory available now, at most 8 GiB (:func:`default_memory_budget`). ``progress``: a tqdm bar on stderr.
    """

    device: torch.device | str = "cpu"
    dtype: torch.dtype | str = torch.float32
    threads: int = 1
    min_run_time: float = 0.2
    repeats: int = 5
    memory_budget: int | float | None = None
    seed: int = 0
    progress: bool = False

    def __post_init__(self) -> None:
        set_ = object.__setattr__  # frozen: the checked values replace the given ones once, here
        set_(self, "device", as_device(self.device))
        set_(self, "dtype", as_dtype(self.dtype))
        check_int("threads", self.threads)
        set_(self, "min_run_time", check_positive("min_run_time", self.min_run_time, "seconds"))
        check_int("repeats", self.repeats)
        check_int("seed", self.seed, minimum=0)
        if not isinstance(self.progress, bool):
            raise TypeError(f"progress must be True or False, got {type(self.progress).__name__}")
        budget = self.memory_budget
        set_(self, "memory_budget", default_memory_budget(self.device) if budget is None
             else int(check_positive("memory_budget", budget, "bytes")))

    def environment(self) -> dict[str, object]:
        """What the timings were taken on: the columns every result row repeats."""
        return {"dtype": str(self.dtype).removeprefix("torch."), "device": self.device.type,
                "device_name": describe_device(self.device), "threads": self.threads,
                "torch_version": torch.__version__, "clock": CLOCKS[clock(self)]}


#: What each clock :func:`clock` may choose measures, in the result rows' ``clock`` column.
CLOCKS = {time.thread_time: "the thread's CPU time", timeit.default_timer: "wall-clock time"}


def clock(settings: Settings) -> Callable[[], float]:
    """The clock the timer reads: on a CPU with one thread, the thread's CPU time (``time.thread_time``, user and
    system, page faults included), which leaves out the time the operating system gives other programs, so that a
    busy machine does not stretch some repeats and not others; where that clock ticks coarser than a microsecond
    (Windows: 15.6 ms), on a GPU (whose work runs outside the thread) and with more threads, the wall clock."""
    fine = time.get_clock_info("thread_time").resolution <= 1e-6
    one_cpu_thread = settings.device.type == "cpu" and settings.threads == 1
    return time.thread_time if one_cpu_thread and fine else timeit.default_timer


# --- what each method costs, counted -------------------------------------------------------


def flops(method: str, pass_: str, case: Case) -> int:
    """Floating-point operations a method spends, from the lesson's count (a multiply-add counts 2).

    ``dense``: every one of the ``n·V·d`` multiply-adds of :func:`utils.lookup.one_hot_multiply_adds`,
    once forward and once more for the weight's gradient; ``sparse``: only the ``n·d`` useful ones.
    The lookup does no arithmetic (its backward adds ``n·d`` gradient values into rows: counted ``n·d``).
    """
    check_choices("method", [method], METHODS)
    check_choices("pass", [pass_], PASSES)
    products = 2 if pass_ == "backward" else 1
    count = one_hot_multiply_adds(case.num_tokens, case.vocab_size, case.embedding_dim)
    if method == "dense":
        return products * 2 * count.total
    if method == "sparse":
        return products * 2 * count.useful
    return count.useful if pass_ == "backward" else 0


def input_bytes(method: str, case: Case, dtype: torch.dtype | str = torch.float32) -> int:
    """Bytes of the input a method builds from the ids: the ids (``lookup``), the one-hot (``dense``,
    :func:`utils.lookup.one_hot_bytes`), or the COO one-hot's ``n`` nonzeros (two int64 indices and a value each)."""
    check_choices("method", [method], METHODS)
    n, item = case.num_tokens, itemsize(dtype)
    return {"lookup": n * ID_BYTES, "dense": one_hot_bytes(n, case.vocab_size, item),
            "sparse": n * (2 * ID_BYTES + item)}[method]


def peak_bytes_estimate(method: str, pass_: str, case: Case, dtype: torch.dtype | str = torch.float32) -> int:
    """Bytes one call allocates at its peak, beyond the inputs already held (counted, not measured).

    Every call allocates its ``(n, d)`` output; a backward call also the ``(V, d)`` weight gradient.
    ``dense`` builds ``F.one_hot`` as int64 and casts it: both exist during the cast. ``sparse`` builds
    its COO one-hot (and its transpose in the backward).
    """
    check_choices("method", [method], METHODS)
    check_choices("pass", [pass_], PASSES)
    n, V, d, item = case.num_tokens, case.vocab_size, case.embedding_dim, itemsize(dtype)
    out = n * d * item
    grad = V * d * item if pass_ == "backward" else 0
    if method == "dense":
        return max(one_hot_bytes(n, V, item, cast_peak=True), one_hot_bytes(n, V, item) + out + grad)
    if method == "sparse":
        coo = n * ID_BYTES + input_bytes("sparse", case, dtype)  # row indices (arange) + the COO tensor
        return (2 if pass_ == "backward" else 1) * coo + out + grad
    return out + grad


def memory_needed(method: str, pass_: str, case: Case, dtype: torch.dtype | str = torch.float32) -> int:
    """What the memory guard compares with the budget: what is held while a method is timed (the weight,
    the batches of ids, the output gradient of a backward), plus one call's peak."""
    n, V, d, item = case.num_tokens, case.vocab_size, case.embedding_dim, itemsize(dtype)
    held = V * d * item + len_id_batches(case) * n * ID_BYTES + (n * d * item if pass_ == "backward" else 0)
    return held + peak_bytes_estimate(method, pass_, case, dtype)


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


def default_min_run_time(device: torch.device | str = "cpu") -> float:
    """Seconds per timing for ``device`` (:data:`DEFAULT_MIN_RUN_TIME`; a device not listed takes the CPU's)."""
    return DEFAULT_MIN_RUN_TIME.get(as_device(device).type, DEFAULT_MIN_RUN_TIME["cpu"])


def default_memory_budget(device: torch.device | str = "cpu", fraction: float = BUDGET_FRACTION) -> int:
    """Half (``fraction``) of :func:`available_memory`, at most :data:`MAX_DEFAULT_BUDGET` (8 GiB), or
    :data:`FALLBACK_BUDGET` (1 GiB) if unknown."""
    fraction = check_positive("fraction", fraction)
    if fraction > 1:
        raise ValueError(f"fraction must be at most 1 (a share of the available memory), got {fraction}")
    available = available_memory(device)
    return FALLBACK_BUDGET if available is None else min(int(available * fraction), MAX_DEFAULT_BUDGET)


def over_budget(needed: int, budget: int, what: str = "") -> str | None:
    """The reason to skip something that needs ``needed`` bytes, or ``None`` when it fits ``budget``."""
    if needed <= budget:
        return None
    return f"needs about {format_bytes(needed)}, over the memory budget of {format_bytes(budget)}{what}"


# --- the methods -------------------------------------------------------------------------


def tolerance(method: str, pass_: str, dtype: torch.dtype | str) -> tuple[float, float]:
    """``(rtol, atol)`` within which ``method`` must match the lookup before it is timed.

    Forward: every output value is ``1·w`` plus zeros, which rounds nowhere, so the dense product
    must match **exactly** (0, 0). The sparse product goes through a sparse-matrix library, so it is
    allowed one rounding (``rtol = eps``); on the CPU it is exact too (the rows record ``exact``).
    Backward: the output gradient is made of multiples of 1/8 in [-1, 1] (:func:`make_inputs`), whose
    sums are exact in float32/float64 in any order, so gradients must match exactly there;
    float16/bfloat16 use :func:`torch.testing.assert_close`'s defaults for the dtype.
    """
    check_choices("method", [method], METHODS)
    check_choices("pass", [pass_], PASSES)
    dtype = as_dtype(dtype)
    if pass_ == "backward" and dtype not in (torch.float32, torch.float64):
        return {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5)}.get(dtype, (1e-3, 1e-5))
    if method == "sparse":
        return (torch.finfo(dtype).eps, 0.0)
    return (0.0, 0.0)


def len_id_batches(case: Case) -> int:
    """How many batches of ids :func:`id_batches` makes: enough for a whole pass over the table, two at least."""
    return max(2, -(-case.vocab_size // case.num_tokens))


def id_batches(case: Case, device: torch.device | str = "cpu", seed: int = 0) -> list[torch.Tensor]:
    """Batches of ``n`` ids, ``(n,) int64`` each, for the calls to take in turn: ids drawn afresh.

    The table's rows in a random order, then in another, and so on, cut into batches of ``n``:
    a row comes back only after a whole pass over the table, so once the table is larger than the
    cache, every call gathers rows that are not in it (as a model's next batch does). Seeded, and
    drawn on the CPU: the same ids on every device.
    """
    count = len_id_batches(case)
    generator = torch.Generator().manual_seed(seed)
    orders = -(-count * case.num_tokens // case.vocab_size)
    stream = torch.cat([torch.randperm(case.vocab_size, generator=generator) for _ in range(orders)])
    return list(stream[:count * case.num_tokens].view(count, case.num_tokens).to(as_device(device)).unbind())


def make_inputs(case: Case, settings: Settings) -> tuple[list[torch.Tensor], torch.Tensor, torch.Tensor]:
    """Seeded inputs, drawn on the CPU and moved to the device (the same values on every device).

    Returns the batches of ids (:func:`id_batches`), ``weight: (V, d)`` from N(0, 1), and
    ``grad_out: (n, d)``, multiples of 1/8 in [-1, 1] (so gradient sums are exact).
    """
    generator = torch.Generator().manual_seed(settings.seed)
    weight = torch.randn(case.vocab_size, case.embedding_dim, generator=generator, dtype=settings.dtype)
    grad_out = torch.randint(-8, 9, (case.num_tokens, case.embedding_dim), generator=generator) / 8
    return (id_batches(case, settings.device, settings.seed), weight.to(settings.device),
            grad_out.to(settings.device, settings.dtype))


def sparse_one_hot(ids: torch.Tensor, num_classes: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The one-hot rows of ``ids`` as a sparse COO matrix: ``(n,) -> (n, num_classes)``, ``n`` nonzeros.

    Row ``i`` holds a single 1 in column ``ids[i]``. The indices are built already sorted
    and unique (rows ``0..n-1``), so the tensor is declared coalesced and nothing is sorted.
    """
    if not isinstance(ids, torch.Tensor) or ids.dim() != 1:
        raise ValueError(f"ids must be a 1-D tensor of token ids, got {getattr(ids, 'shape', type(ids).__name__)}")
    n = ids.shape[0]
    indices = torch.stack([torch.arange(n, device=ids.device), ids.long()])
    values = torch.ones(n, dtype=dtype, device=ids.device)
    # Opt out of the invariant checks explicitly, for this tensor only (they would re-verify what is true
    # by construction); PyTorch 2.11 warns once on stderr when they are off only by default.
    with torch.sparse.check_sparse_tensor_invariants(enable=False):
        return torch.sparse_coo_tensor(indices, values, (n, num_classes), is_coalesced=True, check_invariants=False)


def forward(method: str, ids: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """``method``'s ``(n, d)`` rows of ``weight: (V, d)`` for ``ids: (n,)``."""
    if method == "lookup":
        return F.embedding(ids, weight)
    if method == "dense":
        return F.one_hot(ids, weight.shape[0]).to(weight.dtype) @ weight
    if method == "sparse":
        with torch.sparse.check_sparse_tensor_invariants(enable=False):  # as in sparse_one_hot
            return torch.sparse.mm(sparse_one_hot(ids, weight.shape[0], weight.dtype), weight)
    raise ValueError(f"unknown method {method!r}; expected one of {METHODS}")


def weight_gradient(method: str, ids: torch.Tensor, weight: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    """``method`` forward and backward: the gradient of ``weight``, ``(V, d)``, for the output gradient ``grad_out``.

    The loss is ``(output * grad_out).sum()``, whose gradient with respect to the output is ``grad_out``
    exactly, as in a training step; ``torch.autograd.grad`` returns a fresh gradient each call.
    """
    leaf = weight.detach().requires_grad_(True)
    # the sparse product's backward makes sparse tensors too: their checks are opted out of explicitly, as in
    # sparse_one_hot (on a GPU, PyTorch 2.11 warns on stderr when they are off only by default)
    with torch.sparse.check_sparse_tensor_invariants(enable=False):
        (grad,) = torch.autograd.grad((forward(method, ids, leaf) * grad_out).sum(), leaf)
    return grad


# --- timing --------------------------------------------------------------------------------


#: glibc's ``mallopt`` parameters (``malloc.h``) and the largest mmap threshold it accepts on 64 bits.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _MMAP_THRESHOLD_MAX = -1, -3, 32 * 2**20
#: The heap reserve :func:`steady_cpu_allocator` faults in once and frees: pieces of 31 MiB, each below the mmap
#: threshold, kept apart by small fences that are never freed, so that no free piece reaches 32 MiB.
RESERVE_PIECE, RESERVE_PIECES, RESERVE_FENCE = 31 * 2**20, 8, 64 * 2**10
#: How many mallocs :func:`_fenced_reserve` may try for a fence that lands right after its piece.
_FENCE_TRIES = 1_000
_reserved: list[int] = []  # the fences of this process's reserve: it is made once


def steady_cpu_allocator() -> bool:
    """Ask glibc to keep the memory a call frees for the next call of the same size; True if it agreed.

    By default glibc returns a large freed block at the top of its heap to the operating system, so the
    next call faults fresh pages in and has them zeroed: a dense call's time then doubles for a second or
    two at a time (8 ms against 17 ms at V = 50,257, n = 64 on this course's CI machine), and no number of
    repeats makes the run reliable. Here blocks up to 32 MiB (glibc's largest mmap threshold) come from a
    heap that keeps up to 1 GiB of freed memory, and larger ones are mapped afresh on every call, page
    faults and all, as glibc's default does for them (its dynamic threshold never rises past 32 MiB): what
    notebook 6 measures, without the phases. Kept memory is not enough on its own: the sweep's methods leave
    the heap in pieces, and it grows into fresh pages mid-sweep (thousands of page faults in a slow round), so
    the heap starts with a reserve already faulted in (:func:`_fenced_reserve`, 248 MiB, made once a process).
    A GPU's caching allocator already keeps its blocks. Elsewhere than Linux with glibc, nothing changes and
    this returns False."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # musl and other C libraries have no mallopt
        return False
    if not (mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_MAX) and mallopt(_M_TRIM_THRESHOLD, 2**30)):
        return False
    if not _reserved:
        _reserved.extend(_fenced_reserve(libc))
    return True


def _fenced_reserve(libc: ctypes.CDLL, pieces: int = RESERVE_PIECES, piece: int = RESERVE_PIECE,
                    fence: int = RESERVE_FENCE) -> list[int]:
    """Fault ``pieces`` heap blocks of ``piece`` bytes in (written once), each followed by a ``fence``, then free the
    blocks: the next calls find their pages mapped. The fences stay allocated, so the freed blocks cannot merge with
    each other or with the heap's top: a request of 32 MiB or more finds no free piece that fits and is mapped
    afresh, as without the reserve. A fence is kept only where it lands right after its block (a malloc may be
    served from a free chunk elsewhere: those are freed again). Returns the fences' addresses."""
    libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    libc.free.restype, libc.free.argtypes = None, [ctypes.c_void_p]
    libc.memset.restype, libc.memset.argtypes = ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
    blocks, fences, strays = [], [], []
    for _ in range(pieces):
        block = libc.malloc(piece)
        if not block:
            break
        libc.memset(block, 1, piece)  # every page written: faulted in now, not while a call is timed
        blocks.append(block)
        for _ in range(_FENCE_TRIES):
            guard = libc.malloc(fence)
            if not guard or block < guard <= block + piece + 64:  # the chunk right after the block's
                break
            strays.append(guard)
        if guard:
            (fences if block < guard <= block + piece + 64 else strays).append(guard)
    for address in blocks + strays:
        libc.free(address)
    return fences


#: The smallest block size (calls a block) that :func:`time_call` reuses rather than finds again.
REUSED_BLOCK = 100


def time_call(call: Callable[[], object], settings: Settings, number: int | None = None) -> tuple[float, int]:
    """``(median seconds per call, calls per block)`` of ``call()``, by PyTorch's ``torch.utils.benchmark.Timer``
    reading :func:`clock`.

    Without ``number``, ``Timer.blocked_autorange``, which first finds how many calls a block needs (for a
    call of microseconds, about as long as the timing itself). Given a ``number`` of at least
    :data:`REUSED_BLOCK`, blocks of that many calls (``Timer.timeit``, which warms up on 1% of them) until
    ``settings.min_run_time`` has passed: :func:`interleaved`'s later rounds reuse the first round's block size
    instead of finding it again. A smaller block (a call of a millisecond or more) is found again: finding it
    costs a call or two, fewer than ``timeit``'s warm-up of two."""
    timer = Timer("call()", globals={"call": call}, num_threads=settings.threads, timer=clock(settings))
    if number is None or number < REUSED_BLOCK:
        measurement = timer.blocked_autorange(min_run_time=settings.min_run_time)
        return measurement.median, measurement.number_per_run
    blocks: list[float] = []
    while not blocks or sum(blocks) * number < settings.min_run_time:
        blocks.append(timer.timeit(number).median)
    return statistics.median(blocks), number


def interleaved(calls: dict, settings: Settings, bar: tqdm | None = None) -> dict:
    """``{key: [seconds per call, one per round]}``: ``settings.repeats`` rounds, each timing every call in turn
    (on a CPU, with the allocator steadied first: :func:`steady_cpu_allocator`). The first round finds each
    call's block size with ``Timer``'s own estimate, which makes a block at least 10,000 times the cost of reading
    the clock (on a GPU, where reading it waits for the device, a tenth of a second or more); the later rounds
    time blocks of about ``settings.min_run_time``, no larger than the first round's (:func:`time_call`)."""
    if settings.device.type == "cpu":
        steady_cpu_allocator()
    times: dict = {key: [] for key in calls}
    numbers: dict = {key: None for key in calls}
    for _ in range(settings.repeats):
        for key, call in calls.items():
            seconds, block = time_call(call, settings, numbers[key])
            if numbers[key] is None:  # later rounds: blocks of about min_run_time, no longer than the first round's
                numbers[key] = min(block, math.ceil(settings.min_run_time / seconds))
            times[key].append(seconds)
            if bar is not None:
                bar.update(1)
    return times


def spread(values: Sequence[float]) -> float:
    """How far repeats disagree: the range of their middle half (interquartile range) over their median, as
    ``torch.utils.benchmark`` judges its blocks. A figure reported as a median is moved by the middle of the
    repeats, not by one disturbed repeat; 0 for a single value."""
    if len(values) < 2:
        return 0.0
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return (q3 - q1) / statistics.median(values)


def _measured_peak(call: Callable[[], object], device: torch.device) -> int:
    """Peak bytes allocated by one call beyond what was allocated before (CUDA only)."""
    torch.cuda.synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    before = torch.cuda.memory_allocated(device)
    result = call()
    torch.cuda.synchronize(device)
    peak = torch.cuda.max_memory_allocated(device) - before
    del result
    return int(peak)


@dataclass(frozen=True)
class Timing:
    """One method and pass on one case: measured (``status="ok"``) or skipped, with the reason.

    ``seconds``: the median, over the rounds, of the median time per call; ``spread``: how far the
    rounds disagree (:func:`spread`); ``rounds``: each round's time per call, in order (a round times every
    method once, so two methods can be compared round by round).
    ``peak_bytes``: measured on CUDA, counted elsewhere (``peak_source``).
    ``exact``/``max_abs_diff``: the check against the lookup before timing.
    """

    method: str
    pass_: str
    vocab_size: int
    embedding_dim: int
    num_tokens: int
    status: str
    reason: str
    seconds: float | None
    spread: float | None
    repeats: int
    flops: int
    input_bytes: int
    peak_bytes: int | None
    peak_source: str
    exact: bool | None
    max_abs_diff: float | None
    dtype: str
    device: str
    device_name: str
    threads: int
    torch_version: str
    min_run_time: float
    clock: str = ""
    rounds: tuple[float, ...] = ()

    @property
    def case(self) -> Case:
        return Case(self.vocab_size, self.embedding_dim, self.num_tokens)


def time_methods(cases: Case | Sequence[Case], settings: Settings, methods: Sequence[str] = METHODS,
                 passes: Sequence[str] = PASSES, repeats: int | None = None) -> list[Timing]:
    """Check, then time, every method and pass on every case: one :class:`Timing` each, in that order.

    A method that would exceed the memory budget is skipped, never attempted (its row says why,
    and the reason is printed), as is one the device cannot run (sparse matrices on some backends).
    ``repeats``: instead of ``settings.repeats`` (one is enough where the gap is a thousandfold).
    """
    if repeats is not None:
        settings = dataclasses.replace(settings, repeats=repeats)
    cases = check_cases(cases)
    methods = check_choices("methods", methods, METHODS)
    passes = check_choices("passes", passes, PASSES)
    jobs = [(m, p) for p in passes for m in methods]
    rows: list[Timing] = []
    with tqdm(total=len(cases) * len(jobs) * settings.repeats, desc="timing", unit="timing",
              disable=not settings.progress) as bar:
        for case in cases:
            rows += _time_case(case, jobs, settings, bar)
    return rows


def _time_case(case: Case, jobs: list[tuple[str, str]], settings: Settings, bar: tqdm) -> list[Timing]:
    one_hot = format_bytes(input_bytes("dense", case, settings.dtype))
    skipped = {(m, p): over_budget(memory_needed(m, p, case, settings.dtype), settings.memory_budget,
                                   f" (the dense one-hot alone is {one_hot})" if m == "dense" else "")
               for m, p in jobs}
    calls, checks, peaks = {}, {}, {}
    if not all(skipped.values()):
        batches, weight, grad_out = make_inputs(case, settings)
        reference = {"forward": forward("lookup", batches[0], weight),
                     "backward": weight_gradient("lookup", batches[0], weight, grad_out)}
        for method, pass_ in jobs:
            if skipped[method, pass_]:
                continue
            compute = (forward if pass_ == "forward" else
                       lambda m, ids, w: weight_gradient(m, ids, w, grad_out))
            try:
                result = compute(method, batches[0], weight)
            except NotImplementedError as error:  # e.g. sparse matrices on a backend without them
                skipped[method, pass_] = f"not supported on {settings.device.type}: {str(error).splitlines()[0]}"
                continue
            rtol, atol = tolerance(method, pass_, settings.dtype)
            checks[method, pass_] = _compare(result, reference[pass_], rtol, atol,
                                             f"{method} {pass_} at {case.label()}")
            ids = itertools.cycle(batches)  # each call takes the next batch
            calls[method, pass_] = (lambda c=compute, m=method, ids=ids: c(m, next(ids), weight))
            peaks[method, pass_] = (_measured_peak(calls[method, pass_], settings.device)
                                    if settings.device.type == "cuda" else None)
    for (method, pass_), reason in skipped.items():
        if reason:
            tqdm.write(f"skipped {method} {pass_} at {case.label()}: {reason}", file=sys.stdout)
            bar.update(settings.repeats)
    times = interleaved(calls, settings, bar)
    rows = []
    for method, pass_ in jobs:
        ok = (method, pass_) in times
        peak = peaks.get((method, pass_)) if ok else None
        exact, diff = checks.get((method, pass_), (None, None))
        rows.append(Timing(
            method, pass_, case.vocab_size, case.embedding_dim, case.num_tokens,
            status="ok" if ok else "skipped", reason="" if ok else skipped[method, pass_],
            seconds=statistics.median(times[method, pass_]) if ok else None,
            spread=spread(times[method, pass_]) if ok else None, repeats=settings.repeats,
            flops=flops(method, pass_, case), input_bytes=input_bytes(method, case, settings.dtype),
            peak_bytes=(peak if peak is not None else peak_bytes_estimate(method, pass_, case, settings.dtype))
            if ok else None,
            peak_source=("measured" if peak is not None else "counted") if ok else "",
            exact=exact, max_abs_diff=diff, min_run_time=settings.min_run_time, **settings.environment(),
            rounds=tuple(times[method, pass_]) if ok else ()))
    return rows


def _compare(got: torch.Tensor, expected: torch.Tensor, rtol: float, atol: float, what: str) -> tuple[bool, float]:
    """``(exact?, largest difference)`` of a method's result against the lookup's; AssertionError (from
    :func:`torch.testing.assert_close`) when it is not within ``rtol``/``atol``: a method that computes
    something else is never timed."""
    got = got.to_dense() if got.is_sparse else got
    torch.testing.assert_close(got, expected, rtol=rtol, atol=atol, msg=lambda message: (
        f"{what} differs from the lookup's; a method that computes something else must not be timed. {message}"))
    exact = torch.equal(got, expected)
    return exact, (0.0 if exact else float((got - expected).abs().max()))


# --- sizes -------------------------------------------------------------------------------

SWEEP_AXES = ("vocab_size", "embedding_dim", "num_tokens")


@dataclass(frozen=True)
class Sweeps:
    """Sizes for three one-dimensional sweeps, around an anchor that fixes the other two sizes.

    The vocabulary sweep runs ``vocab_sizes`` at the anchor's ``d`` and ``n``; the embedding-dim
    sweep ``embedding_dims`` at the anchor's ``V`` and ``n``; the token sweep ``token_counts`` at the
    anchor's ``V`` and ``d``. ``min_run_time``: the seconds each timing takes at these sizes.
    """

    vocab_sizes: tuple[int, ...]
    embedding_dims: tuple[int, ...]
    token_counts: tuple[int, ...]
    anchor: Case
    min_run_time: float

    def cases(self, axis: str) -> list[Case]:
        """The cases of one sweep: ``axis`` is ``"vocab_size"``, ``"embedding_dim"`` or ``"num_tokens"``."""
        check_choices("axis", [axis], SWEEP_AXES)
        values = {"vocab_size": self.vocab_sizes, "embedding_dim": self.embedding_dims,
                  "num_tokens": self.token_counts}[axis]
        base = {"vocab_size": self.anchor.vocab_size, "embedding_dim": self.anchor.embedding_dim,
                "num_tokens": self.anchor.num_tokens}
        return [Case(**{**base, axis: value}) for value in values]


#: ``quick``: seconds on a laptop CPU (notebook 6 runs it; 0.02 s a timing is still hundreds of calls at these sizes,
#: and the repeats' verdict says when that is too little). ``full``: GPT-2's sizes and Llama 3's vocabulary
#: (minutes on a CPU; the memory guard skips what does not fit).
PRESETS = {
    "quick": Sweeps(vocab_sizes=(1_000, 3_000, 10_000, 50_257), embedding_dims=(16, 64, 256),
                    token_counts=(64, 256, 1_024), anchor=Case(2_000, 16, 64), min_run_time=0.02),
    "full": Sweeps(vocab_sizes=(1_000, 2_000, 5_000, 10_000, 20_000, 50_257, 128_256),
                   embedding_dims=(64, 128, 256, 512, 768), token_counts=(256, 512, 1_024, 2_048, 4_096),
                   anchor=GPT2, min_run_time=0.5),
}


def preset(quick: bool, vocab_sizes: Sequence[int] | None = None) -> Sweeps:
    """``PRESETS["quick"]`` or ``PRESETS["full"]``, with its vocabulary sweep replaced by ``vocab_sizes`` if given."""
    if not isinstance(quick, bool):
        raise TypeError(f"quick must be True or False, got {type(quick).__name__}")
    sweeps = PRESETS["quick" if quick else "full"]
    if vocab_sizes is None:
        return sweeps
    sizes = tuple(vocab_sizes) if isinstance(vocab_sizes, Iterable) else vocab_sizes
    if not isinstance(sizes, tuple) or not sizes:
        raise TypeError(f"vocab_sizes must be a non-empty list of sizes, got {vocab_sizes!r}")
    for size in sizes:
        check_int("a vocabulary size", size)
    return Sweeps(sizes, sweeps.embedding_dims, sweeps.token_counts, sweeps.anchor, sweeps.min_run_time)

