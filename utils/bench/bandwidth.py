"""The bandwidth study: the lookup against a plain copy of the same bytes, by tokens per call."""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import torch
import torch.nn.functional as F
from tqdm import tqdm

from ..checks import check_int, check_positive
from ..devices import describe_device
from .measure import (
    ID_BYTES,
    Case,
    as_device,
    as_dtype,
    blocked_autorange,
    bytes_moved,
    default_memory_budget,
    format_bytes,
    itemsize,
    make_inputs,
)

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
    device = as_device(device)
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
    device = as_device(device)
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
    device, dtype = as_device(device), as_dtype(dtype)
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


