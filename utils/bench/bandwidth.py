"""The lookup beside a copy of the same bytes (``python -m utils.bench bandwidth|regimes``).

The lookup does no arithmetic: it moves bytes. Its yardstick is a plain copy of the same bytes, read from where
the lookup's rows come from; a yardstick, not a bound (a lookup can beat it). On each case, :func:`study`
times, in interleaved rounds:

- ``lookup``: ``F.embedding(ids, W)``, ids drawn afresh (:func:`.measure.id_batches`), allocating its
  output, as a model's ``nn.Embedding`` does;
- ``lookup_into``: ``torch.index_select(W, 0, ids, out=out)``, the same into a preallocated output;
- ``lookup_contiguous``: the same with contiguous ids, ``k, k+1, ..., k+n-1`` (:func:`contiguous_batches`): the
  table read in order, as the copy reads its source, so the difference from ``lookup_into`` is the jumps from row
  to row;
- ``copy_cold``: ``out.copy_(src)``, ``src`` the next ``(n, d)`` slice of a buffer at least
  :data:`COLD_FACTOR` times the last-level cache (at most ``COLD_FACTOR`` x :data:`MAX_CACHE`, so fewer times a
  larger cache), so that a row comes back only after the rest of the buffer: "cold" names that design, it is
  not measured;
- ``copy_cached``: ``out.copy_(src)`` from the same source every call: in cache while it fits;
- ``floor``: ``lookup_into`` of :data:`FLOOR_TOKENS` ids, a small call's time.

Each case's table fits the last-level cache or not (:data:`REGIMES`). On a CPU, the page faults of the
allocating lookup are counted too (:func:`page_faults`).
"""

from __future__ import annotations

import itertools
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from tqdm import tqdm

try:
    import resource  # page faults (POSIX only)
except ImportError:  # Windows
    resource = None

from ..lookup import ID_BYTES, bytes_moved
from .measure import (
    NOISY_SPREAD,
    Case,
    Settings,
    as_device,
    check_cases,
    id_batches,
    interleaved,
    itemsize,
    len_id_batches,
    make_inputs,
    over_budget,
    spread,
)

VARIANTS = ("lookup", "lookup_into", "lookup_contiguous", "copy_cold", "copy_cached")
#: The cold copy's rotating source spans at least this many times the last-level cache.
COLD_FACTOR = 4
#: Assumed last-level cache when the device does not say (bytes).
FALLBACK_CACHE = 32 * 2**20
#: The largest cache the cold copy is sized against: a GPU's L2 is 50 MiB (H100) to about 128 MiB (B200), so
#: the cold source stays at most 4 x this, however large a future cache is reported.
MAX_CACHE = 256 * 2**20
#: The size of a small call, timed beside each case.
FLOOR_TOKENS = 16
#: The table against the last-level cache, from the sizes alone. Larger: rows of ids drawn afresh come mostly from
#: DRAM, as the cold copy's bytes do. Smaller: the rows may stay in the cache, or other work may push them out;
#: the sizes cannot tell which.
REGIMES = ("table smaller than the cache", "table larger than the cache")
#: Tokens per call for :func:`study` by size: from the per-call floor to past the caches. The quick sweep's
#: largest call moves 96 MiB, past a 32 MiB CPU cache and an H100's 50 MiB L2.
REGIME_TOKENS = {"quick": (16, 256, 2_048, 16_384),
                 "full": (16, 64, 256, 1_024, 2_048, 4_096, 16_384, 65_536, 131_072)}


def last_level_cache(device: torch.device | str = "cpu") -> tuple[int, str]:
    """``(bytes, source)`` of the device's last-level cache: the largest cache a Linux CPU lists in
    ``/sys``, a CUDA device's L2; else :data:`FALLBACK_CACHE` with ``source="assumed"``."""
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


def contiguous_batches(case: Case, device: torch.device | str = "cpu") -> list[torch.Tensor]:
    """Batches of ``n`` contiguous ids, ``(n,) int64`` each: batch ``k`` is ``k·n, k·n + 1, ...`` (modulo ``V``), as
    many batches as :func:`.measure.id_batches` makes, so that the calls walk through the whole table in order."""
    starts = torch.arange(len_id_batches(case)) * case.num_tokens
    ids = (starts[:, None] + torch.arange(case.num_tokens)) % case.vocab_size
    return list(ids.to(as_device(device)).unbind())


#: How many allocating calls :func:`page_faults` counts over.
FAULT_CALLS = 5


def page_faults(call: Callable[[], object], calls: int = FAULT_CALLS) -> float | None:
    """Minor page faults per call of ``call()`` (the process's ``ru_minflt``, after one call to warm up): each is a
    page of memory the system had to map in, zeroed, at the first write. ``None`` where ``resource`` is missing
    (Windows)."""
    if resource is None:
        return None
    call()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(calls):
        call()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / calls


def cold_slices(case: Case, dtype: torch.dtype | str, cache_bytes: int) -> int:
    """How many ``(n, d)`` slices the cold copy rotates through: at least 2, spanning ``COLD_FACTOR`` x the cache
    (a cache over :data:`MAX_CACHE` counts as that)."""
    slice_bytes = case.num_tokens * case.embedding_dim * itemsize(dtype)
    return max(2, -(-COLD_FACTOR * min(cache_bytes, MAX_CACHE) // slice_bytes))


def study_memory_needed(case: Case, dtype: torch.dtype | str, cache_bytes: int) -> int:
    """Bytes the study holds for one case: the table, the batches of ids (drawn afresh, and contiguous), the cold
    source, the cached source, the preallocated output and one allocated output (the floor's few rows aside)."""
    n, V, d, item = case.num_tokens, case.vocab_size, case.embedding_dim, itemsize(dtype)
    ids = 2 * len_id_batches(case) * n * ID_BYTES
    return V * d * item + ids + (3 + cold_slices(case, dtype, cache_bytes)) * n * d * item


@dataclass(frozen=True)
class BandwidthRow:
    """The study of one case: each variant's median bandwidth over the rounds (GB/s, from the bytes the
    lesson counts, :func:`utils.lookup.bytes_moved`), the regime, and three ratios with their range over
    the rounds, each the median of the per-round ratios: ``ratio`` (the preallocated lookup's bandwidth over the
    cold copy's), ``contiguous_ratio`` (the same with contiguous ids), ``contiguous_gain`` (the
    lookup's bandwidth with contiguous ids over its bandwidth with ids drawn afresh) and ``alloc_cost`` (the
    allocating lookup's time over the preallocated one's); ``ratio_spread`` and ``contiguous_spread``, the two
    ratios' :func:`.measure.spread`;
    ``alloc_faults``, the allocating lookup's page faults per call (:func:`page_faults`; CPU only).
    A skipped case has ``status="skipped"``."""

    vocab_size: int
    embedding_dim: int
    num_tokens: int
    status: str
    reason: str
    regime: str
    bytes_moved: int
    table_bytes: int
    cache_bytes: int
    cache_source: str
    cold_bytes: int
    repeats: int
    lookup_gbs: float | None = None
    lookup_into_gbs: float | None = None
    lookup_contiguous_gbs: float | None = None
    copy_cold_gbs: float | None = None
    copy_cached_gbs: float | None = None
    lookup_into_seconds: float | None = None
    floor_seconds: float | None = None
    ratio: float | None = None
    ratio_low: float | None = None
    ratio_high: float | None = None
    ratio_spread: float | None = None
    contiguous_ratio: float | None = None
    contiguous_ratio_low: float | None = None
    contiguous_ratio_high: float | None = None
    contiguous_spread: float | None = None
    contiguous_gain: float | None = None
    contiguous_low: float | None = None
    contiguous_high: float | None = None
    alloc_cost: float | None = None
    alloc_low: float | None = None
    alloc_high: float | None = None
    alloc_faults: float | None = None
    output_bytes: int = 0
    peak_gbs: float | None = None
    dtype: str = ""
    device: str = ""
    device_name: str = ""
    threads: int = 0
    torch_version: str = ""
    clock: str = ""

    @property
    def case(self) -> Case:
        return Case(self.vocab_size, self.embedding_dim, self.num_tokens)

    @property
    def widest_spread(self) -> float:
        """The larger of the two ratios' :func:`.measure.spread`: the range of the middle half of their rounds."""
        return max(self.ratio_spread, self.contiguous_spread)

    @property
    def noisy(self) -> bool:
        """Whether the middle half of a ratio's rounds spans more than :data:`NOISY_SPREAD` of its median."""
        return self.status == "ok" and self.widest_spread > NOISY_SPREAD


def _variants(case: Case, weight: torch.Tensor, storage: torch.Tensor, cache_bytes: int,
              seed: int) -> dict[str, Callable[[], torch.Tensor]]:
    """The timed calls on ``case``, each checked to return the lookup's rows (the floor aside).
    ``storage``: a flat buffer at least as large as the cold copy's source, shared by the cases."""
    batches = id_batches(case, weight.device, seed)
    expected = F.embedding(batches[0], weight)
    out = torch.empty_like(expected)
    slices = cold_slices(case, weight.dtype, cache_bytes)
    cold = storage[:slices * expected.numel()].view(slices, *expected.shape)
    cold.copy_(expected.expand_as(cold))  # every slice holds the lookup's rows
    floor_out = torch.empty(FLOOR_TOKENS, case.embedding_dim, dtype=weight.dtype, device=weight.device)
    floor_ids = itertools.cycle(id_batches(Case(case.vocab_size, case.embedding_dim, FLOOR_TOKENS),
                                           weight.device, seed))
    contiguous = contiguous_batches(case, weight.device)
    ids, ids_into, sources = itertools.cycle(batches), itertools.cycle(batches), itertools.cycle(cold.unbind())
    ids_contiguous = itertools.cycle(contiguous)
    calls = {
        "lookup": lambda: F.embedding(next(ids), weight),
        "lookup_into": lambda: torch.index_select(weight, 0, next(ids_into), out=out),
        "lookup_contiguous": lambda: torch.index_select(weight, 0, next(ids_contiguous), out=out),
        "copy_cold": lambda: out.copy_(next(sources)),
        "copy_cached": lambda: out.copy_(expected),
    }
    for name, call in calls.items():  # each first call reads batch 0 or slice 0: the lookup's rows, exactly
        want = F.embedding(contiguous[0], weight) if name == "lookup_contiguous" else expected
        if not torch.equal(call(), want):
            raise AssertionError(f"{name} at {case.label()} differs from the lookup; it must not be timed")
    return {**calls, "floor": lambda: torch.index_select(weight, 0, next(floor_ids), out=floor_out)}


def regime(table_bytes: int, cache_bytes: int) -> str:
    """The regime of a case (:data:`REGIMES`): its table against the last-level cache, from the sizes alone."""
    return REGIMES[0] if table_bytes <= cache_bytes else REGIMES[1]


def study(cases: Case | Sequence[Case], settings: Settings) -> list[BandwidthRow]:
    """Time the variants on each case in ``settings.repeats`` interleaved rounds: one row per case.

    Interleaving puts a passing load on every variant alike, so the ratio of two variants within a
    round is steadier than either time. A case over the memory budget is skipped with a printed reason.
    """
    cases = check_cases(cases)
    cache_bytes, cache_source = last_level_cache(settings.device)
    item = itemsize(settings.dtype)
    reasons = {c: over_budget(study_memory_needed(c, settings.dtype, cache_bytes), settings.memory_budget)
               for c in cases}  # "" where the case fits
    fitting = [c for c in cases if not reasons[c]]
    # one buffer for the cold copy's source, as large as the largest case needs, reused by every case:
    # allocating and first touching four caches' worth for each case would take longer than timing it
    storage = torch.empty(max((cold_slices(c, settings.dtype, cache_bytes) * c.num_tokens * c.embedding_dim
                               for c in fitting), default=0), dtype=settings.dtype, device=settings.device)
    tables: dict[tuple[int, int], torch.Tensor] = {}  # one seeded table at a time, shared by a sweep's sizes
    rows = []
    with tqdm(total=len(fitting) * (len(VARIANTS) + 1) * settings.repeats, desc="bandwidth", unit="timing",
              disable=not settings.progress) as bar:
        for case in cases:
            common = {"vocab_size": case.vocab_size, "embedding_dim": case.embedding_dim,
                      "num_tokens": case.num_tokens,
                      "bytes_moved": bytes_moved(case.num_tokens, case.embedding_dim, item),
                      "table_bytes": case.vocab_size * case.embedding_dim * item, "cache_bytes": cache_bytes,
                      "cache_source": cache_source, "repeats": settings.repeats,
                      "cold_bytes": cold_slices(case, settings.dtype, cache_bytes) * case.num_tokens
                      * case.embedding_dim * item, "output_bytes": case.num_tokens * case.embedding_dim * item,
                      **settings.environment()}
            reason = reasons[case]
            if reason:
                tqdm.write(f"skipped the bandwidth study at {case.label()}: {reason}", file=sys.stdout)
                rows.append(BandwidthRow(status="skipped", reason=reason, regime="skipped", **common))
                continue
            shape = (case.vocab_size, case.embedding_dim)
            if shape not in tables:
                tables = {shape: make_inputs(Case(*shape, 1), settings)[1]}
            variants = _variants(case, tables[shape], storage, cache_bytes, settings.seed)
            times = interleaved(variants, settings, bar)
            faults = page_faults(variants["lookup"]) if settings.device.type == "cpu" else None
            rows.append(_measured_row(times, common, item, settings.device, faults))
    return rows


def _measured_row(times: dict[str, list[float]], common: dict, item: int, device: torch.device,
                  faults: float | None = None) -> BandwidthRow:
    lookup_bytes = common["bytes_moved"]
    copy_bytes = bytes_moved(common["num_tokens"], common["embedding_dim"], item, ids=False)  # rows, no ids
    gbs = {v: [(lookup_bytes if v.startswith("lookup") else copy_bytes) / s / 1e9 for s in times[v]]
           for v in VARIANTS}
    ratios = [a / b for a, b in zip(gbs["lookup_into"], gbs["copy_cold"], strict=True)]
    contiguous = [a / b for a, b in zip(gbs["lookup_contiguous"], gbs["copy_cold"], strict=True)]
    alloc = [a / b for a, b in zip(times["lookup"], times["lookup_into"], strict=True)]
    gains = [a / b for a, b in zip(gbs["lookup_contiguous"], gbs["lookup_into"], strict=True)]
    seconds, floor = statistics.median(times["lookup_into"]), statistics.median(times["floor"])
    return BandwidthRow(
        status="ok", reason="", regime=regime(common["table_bytes"], common["cache_bytes"]),
        **{f"{v}_gbs": statistics.median(gbs[v]) for v in VARIANTS},
        lookup_into_seconds=seconds, floor_seconds=floor,
        ratio=statistics.median(ratios), ratio_low=min(ratios), ratio_high=max(ratios), ratio_spread=spread(ratios),
        contiguous_ratio=statistics.median(contiguous), contiguous_ratio_low=min(contiguous),
        contiguous_ratio_high=max(contiguous), contiguous_spread=spread(contiguous),
        contiguous_gain=statistics.median(gains), contiguous_low=min(gains), contiguous_high=max(gains),
        alloc_cost=statistics.median(alloc), alloc_low=min(alloc), alloc_high=max(alloc), alloc_faults=faults,
        peak_gbs=device_peak_bandwidth(device), **common)
