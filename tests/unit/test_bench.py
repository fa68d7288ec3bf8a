"""utils.bench: its settings, counts, memory guard, equality checks, typed rows, bandwidth study, and command line."""

import csv
import dataclasses
import importlib.abc
import importlib.util
import json
import logging
import platform
import statistics
import sys
import time
import timeit
import types
import warnings

import pytest
import torch
import torch.nn.functional as F

from utils.bench import bandwidth, measure, tables
from utils.bench.__main__ import main as bench_main
from utils.bench.measure import Case, Settings
from utils.lookup import bytes_moved, one_hot_bytes

FAST = Settings("cpu", min_run_time=0.001, repeats=2)  # keep the timing loops short in tests
MACHINE_CACHE = bandwidth.last_level_cache  # this machine's; the studies below assume a small one


@pytest.fixture(autouse=True, scope="module")
def small_cache():
    """A study fills a cold buffer four times the last-level cache: with 1 MiB, not this machine's
    32 MiB or more, each study here takes a tenth of a second instead of two."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bandwidth, "last_level_cache", lambda device="cpu": (2**20, "assumed in the tests"))
        yield


# --- arguments ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sizes", "error", "message"),
    [
        ((10.0, 4, 3), TypeError, "vocab_size must be an int, got float"),
        ((10, True, 3), TypeError, "embedding_dim must be an int, got bool"),
        ((10, 4, 0), ValueError, "num_tokens must be >= 1, got 0"),
        ((-1, 4, 3), ValueError, "vocab_size must be >= 1, got -1"),
    ],
)
def test_case_rejects_bad_sizes(sizes, error, message):
    with pytest.raises(error, match=message):
        Case(*sizes)


def test_as_dtype():
    assert measure.as_dtype("float32") is torch.float32
    assert measure.as_dtype(torch.bfloat16) is torch.bfloat16
    with pytest.raises(TypeError, match="must be a floating-point type.*got torch.int64"):
        measure.as_dtype("int64")
    with pytest.raises(ValueError, match="unknown dtype 'float33'"):
        measure.as_dtype("float33")
    with pytest.raises(TypeError, match="dtype must be a torch.dtype or its name, got int"):
        measure.as_dtype(4)


def test_settings_check_and_normalise_their_values():
    settings = Settings("cpu", "float16", memory_budget=2.5 * 2**20)
    assert settings.device == torch.device("cpu") and settings.dtype is torch.float16
    assert settings.memory_budget == int(2.5 * 2**20) and settings.threads == 1 and settings.repeats == 5
    clock = measure.CLOCKS[measure.clock(settings)]
    assert settings.environment() == {"dtype": "float16", "device": "cpu", "device_name": "cpu", "threads": 1,
                                      "torch_version": torch.__version__, "clock": clock}


def test_one_cpu_thread_is_timed_by_its_own_cpu_time_where_that_clock_is_fine(monkeypatch):
    """Time the operating system gives other programs must not stretch a repeat: a single-threaded CPU timing reads
    the thread's CPU time; more threads, or a clock coarser than a microsecond (Windows), read the wall clock."""
    assert measure.clock(Settings("cpu", threads=2)) is timeit.default_timer
    fine = time.get_clock_info("thread_time").resolution <= 1e-6
    assert measure.clock(Settings("cpu")) is (time.thread_time if fine else timeit.default_timer)
    coarse = types.SimpleNamespace(resolution=0.0156)
    monkeypatch.setattr(measure.time, "get_clock_info", lambda name: coarse)
    assert measure.clock(Settings("cpu")) is timeit.default_timer


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"min_run_time": 0}, ValueError, "min_run_time must be a positive, finite number of seconds, got 0"),
        ({"min_run_time": float("nan")}, ValueError, "min_run_time must be a positive, finite number"),
        ({"min_run_time": float("inf")}, ValueError, "min_run_time must be a positive, finite number"),
        ({"min_run_time": "1"}, TypeError, "min_run_time must be a number of seconds, got str"),
        ({"threads": 0}, ValueError, "threads must be >= 1, got 0"),
        ({"repeats": 0}, ValueError, "repeats must be >= 1, got 0"),
        ({"repeats": 2.0}, TypeError, "repeats must be an int, got float"),
        ({"memory_budget": -5}, ValueError, "memory_budget must be a positive, finite number of bytes"),
        ({"memory_budget": float("inf")}, ValueError, "memory_budget must be a positive, finite number"),
        ({"dtype": "int32"}, TypeError, "floating-point"),
        ({"device": "tpu"}, ValueError, "unknown device 'tpu'"),
        ({"device": 0}, TypeError, "device must be a torch.device or a name"),
        ({"seed": -1}, ValueError, "seed must be >= 0"),
        ({"progress": "no"}, TypeError, "progress must be True or False, got str"),
    ],
)
def test_settings_reject_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        Settings(**{"device": "cpu", **kwargs})


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"methods": ["lookup", "gather"]}, ValueError, r"unknown methods \['gather'\]; expected some of"),
        ({"methods": "lookup"}, TypeError, "methods must be a list of names"),
        ({"methods": []}, ValueError, "no methods given"),
        ({"passes": ["sideways"]}, ValueError, r"unknown passes \['sideways'\]"),
    ],
)
def test_time_methods_rejects_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        measure.time_methods([Case(10, 4, 3)], FAST, **kwargs)


def test_time_methods_and_the_study_need_cases():
    for run in (measure.time_methods, bandwidth.study):
        for cases in ([], [(10, 4, 3)]):
            with pytest.raises(TypeError, match="cases must be a non-empty list of Case"):
                run(cases, FAST)


# --- counts -------------------------------------------------------------------------------


def test_counts_come_from_the_lesson_and_follow_the_formulas():
    c = Case(vocab_size=1_000, embedding_dim=16, num_tokens=64)
    n, V, d = 64, 1_000, 16
    assert measure.flops("dense", "forward", c) == 2 * n * V * d
    assert measure.flops("dense", "backward", c) == 4 * n * V * d
    assert measure.flops("sparse", "forward", c) == 2 * n * d
    assert measure.flops("lookup", "forward", c) == 0 and measure.flops("lookup", "backward", c) == n * d
    assert measure.input_bytes("lookup", c) == n * 8
    assert measure.input_bytes("dense", c, "float32") == one_hot_bytes(n, V) == n * V * 4
    assert measure.input_bytes("dense", c, torch.float16) == n * V * 2
    assert measure.input_bytes("sparse", c) == n * (8 + 8 + 4)
    assert bytes_moved(n, d) == n * 8 + 2 * n * d * 4 and bytes_moved(n, d, ids=False) == 2 * n * d * 4
    # the dense peak: int64 one-hot and its float copy at once
    assert measure.peak_bytes_estimate("dense", "forward", c) == one_hot_bytes(n, V, cast_peak=True) == n * V * 12
    # a backward allocates the [V, d] weight gradient, for the lookup too
    assert measure.peak_bytes_estimate("lookup", "backward", c) - measure.peak_bytes_estimate("lookup", "forward", c) \
        == V * d * 4
    batches = measure.len_id_batches(c)
    assert measure.memory_needed("lookup", "forward", c) == V * d * 4 + batches * n * 8 + n * d * 4
    with pytest.raises(ValueError, match=r"unknown method \['gather'\]"):
        measure.flops("gather", "forward", c)
    with pytest.raises(ValueError, match=r"unknown pass \['up'\]"):
        measure.peak_bytes_estimate("dense", "up", c)


def test_format_bytes():
    assert measure.format_bytes(512) == "512 B"
    assert measure.format_bytes(1536) == "1.5 KiB"
    assert measure.format_bytes(64 * 2**20) == "64 MiB"
    assert measure.format_bytes(1002 * 2**20) == "1,002 MiB"
    assert measure.format_bytes(3 * 2**40) == "3,072 GiB"


def test_format_time():
    assert tables.format_time(1.5) == "1.5 s" and tables.format_time(0.00123) == "1.23 ms"
    assert tables.format_time(4.2e-6) == "4.2 µs" and tables.format_time(None) == "-"


# --- the methods agree; the ids are drawn afresh ----------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("case", [Case(7, 3, 40), Case(1_000, 16, 64), Case(5, 2, 1)])  # n > V: repeated ids
def test_every_method_matches_the_lookup_exactly_forward_and_backward(case, dtype):
    batches, weight, grad_out = measure.make_inputs(case, Settings("cpu", dtype, seed=3))
    ids = batches[0]
    reference = F.embedding(ids, weight)
    dense_grad = F.one_hot(ids, case.vocab_size).to(dtype).T @ grad_out
    for method in measure.METHODS:
        out = measure.forward(method, ids, weight)
        assert out.dtype == dtype and torch.equal(out, reference), method
        grad = measure.weight_gradient(method, ids, weight, grad_out)
        assert grad.layout == torch.strided and torch.equal(grad, dense_grad), method
    with pytest.raises(ValueError, match="unknown method 'copy'"):
        measure.forward("copy", ids, weight)


def test_make_inputs_is_seeded_and_dyadic():
    case = Case(50, 4, 30)
    first, second = measure.make_inputs(case, Settings(seed=1)), measure.make_inputs(case, Settings(seed=1))
    assert all(torch.equal(a, b) for a, b in zip(first[0], second[0], strict=True))
    assert torch.equal(first[1], second[1]) and torch.equal(first[2], second[2])
    batches, weight, grad_out = first
    assert weight.shape == (50, 4) and grad_out.shape == (30, 4)
    assert torch.equal(grad_out * 8, (grad_out * 8).round()) and float(grad_out.abs().max()) <= 1
    assert not torch.equal(measure.make_inputs(case, Settings(seed=2))[1], weight)


def test_id_batches_visit_every_row_once_before_any_comes_back():
    case = Case(vocab_size=100, embedding_dim=4, num_tokens=8)
    batches = measure.id_batches(case, seed=0)
    assert len(batches) == measure.len_id_batches(case) == 13 and all(b.shape == (8,) for b in batches)
    stream = torch.cat(batches)
    assert stream.dtype == torch.int64 and sorted(stream[:100].tolist()) == list(range(100))  # a whole pass first
    assert all(len(set(b.tolist())) == 8 for b in batches[:12])  # rows within a batch are distinct
    assert not torch.equal(batches[0], batches[1])
    assert len(measure.id_batches(Case(5, 2, 12))) == 2  # n > V: two batches, each covering the table
    assert sorted(set(torch.cat(measure.id_batches(Case(5, 2, 12))).tolist())) == list(range(5))


def test_sparse_one_hot():
    ids = torch.tensor([3, 0, 3])
    x = measure.sparse_one_hot(ids, 5)
    assert x.layout == torch.sparse_coo and x.shape == (3, 5) and x._nnz() == 3 and x.is_coalesced()
    assert torch.equal(x.to_dense(), F.one_hot(ids, 5).float())
    with pytest.raises(ValueError, match=r"ids must be a 1-D tensor of token ids, got torch.Size\(\[1, 3\]\)"):
        measure.sparse_one_hot(ids[None], 5)


def test_the_sparse_one_hot_warns_nothing():
    """PyTorch 2.11 warns on stderr when sparse invariant checks are off by default rather than by choice."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = measure.sparse_one_hot(torch.tensor([2, 0]), 3)
        assert torch.equal(torch.sparse.mm(x, torch.eye(3)), torch.eye(3)[[2, 0]])


def test_tolerance():
    assert measure.tolerance("dense", "forward", "float32") == (0.0, 0.0)
    assert measure.tolerance("dense", "backward", "float32") == (0.0, 0.0)
    assert measure.tolerance("sparse", "forward", "float32") == (torch.finfo(torch.float32).eps, 0.0)
    assert measure.tolerance("lookup", "backward", torch.bfloat16)[0] > 0


def test_a_method_that_computes_something_else_is_never_timed(monkeypatch):
    real = measure.forward
    monkeypatch.setattr(measure, "forward", lambda m, ids, w: real(m, ids, w) + (1e-3 if m == "dense" else 0))
    monkeypatch.setattr(measure, "time_call", lambda *args: pytest.fail("a wrong method was timed"))
    with pytest.raises(AssertionError, match=r"(?s)dense forward at V=20, d=4, n=9 differs from the lookup's; .*"
                                             r"Greatest absolute difference: 0\.001"):
        measure.time_methods([Case(20, 4, 9)], FAST, methods=["dense"], passes=["forward"])


# --- timing ------------------------------------------------------------------------------------


def test_time_call_is_torch_timer_with_the_thread_count_it_was_given():
    threads_seen = set()
    before = torch.get_num_threads()
    seconds, _ = measure.time_call(lambda: threads_seen.add(torch.get_num_threads()), Settings(min_run_time=0.01))
    assert threads_seen == {1} and torch.get_num_threads() == before and seconds > 0
    assert measure.Timer.__module__.startswith("torch.utils.benchmark")  # PyTorch's own, not a copy
    calls = []
    seconds, number = measure.time_call(lambda: calls.append(1), Settings(min_run_time=0.01), number=200)
    assert number == 200 and seconds > 0 and len(calls) % 202 == 0  # blocks of 200 calls, each after 2 to warm up


def test_interleaved_times_every_call_once_a_round(monkeypatch):
    order, numbers = [], []
    seconds = {"a": 1e-6, "b": 1e-5}  # per call, each in blocks of 10,000 calls in the first round

    def fake(call, settings, number):
        order.append(call())
        numbers.append(number)
        return seconds[order[-1]], number or 10_000

    monkeypatch.setattr(measure, "time_call", fake)
    times = measure.interleaved({"a": lambda: "a", "b": lambda: "b"}, Settings(repeats=3, min_run_time=0.02))
    assert order == ["a", "b"] * 3 and times == {"a": [1e-6] * 3, "b": [1e-5] * 3}
    # the first round finds the block size; later ones time about min_run_time a block, no more than the first's
    assert numbers == [None, None, 10_000, 2_000, 10_000, 2_000]
    assert measure.spread([1.0, 1.1, 0.9]) == pytest.approx(0.1) and measure.spread([2.0]) == 0
    assert measure.spread([1.0, 1.0, 1.0, 1.0, 9.0]) == 0  # one disturbed repeat does not move the median


def test_the_cpu_allocator_is_steadied_where_glibc_allows_it(monkeypatch):
    # glibc accepts both settings (mallopt returns 1); elsewhere nothing is changed and the answer is False
    assert measure.steady_cpu_allocator() == (sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc")
    monkeypatch.setattr(sys, "platform", "darwin")
    assert measure.steady_cpu_allocator() is False


class FakeLibc:
    """glibc's malloc, free, memset and mallopt, recorded: malloc hands out addresses from a heap top that only grows
    (each chunk 16 bytes past its request), except the addresses in ``elsewhere``, served first to the sizes given."""

    def __init__(self, elsewhere=()):
        self.top, self.elsewhere = 2**32, list(elsewhere)
        self.options, self.written, self.freed, self.allocated = [], [], [], []

        def malloc(size):
            if self.elsewhere and self.elsewhere[0][0] == size:
                address = self.elsewhere.pop(0)[1]
            else:
                address, self.top = self.top + 16, self.top + size + 16
            self.allocated.append((address, size))
            return address
        self.malloc, self.memset = malloc, lambda *args: self.written.append(args)
        self.free = lambda address: self.freed.append(address)
        self.mallopt = lambda option, value: self.options.append((option, value)) or 1


def test_glibc_gets_the_settings_and_a_reserve_in_pieces_below_the_mmap_threshold_once(monkeypatch):
    libc = FakeLibc()
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(measure.ctypes, "CDLL", lambda name: libc)
    monkeypatch.setattr(measure, "_reserved", [])
    assert measure.steady_cpu_allocator() is True
    assert libc.options == [(-3, 32 * 2**20), (-1, 2**30)]  # M_MMAP_THRESHOLD fixed at its largest, M_TRIM_THRESHOLD
    blocks = [address for address, size in libc.allocated if size == measure.RESERVE_PIECE]
    fences = [address for address, size in libc.allocated if size == measure.RESERVE_FENCE]
    assert len(blocks) == len(fences) == measure.RESERVE_PIECES and measure.RESERVE_PIECE < 32 * 2**20
    assert libc.written == [(block, 1, measure.RESERVE_PIECE) for block in blocks]  # every page written once
    assert libc.freed == blocks and measure._reserved == fences  # the blocks freed, the fences between them kept
    assert all(block < fence < next_block for block, fence, next_block in zip(blocks, fences, blocks[1:], strict=False))
    libc.allocated.clear()
    assert measure.steady_cpu_allocator() is True and libc.allocated == []  # one reserve a process
    assert libc.options[2:] == libc.options[:2]  # the settings asked again: another library may have changed them


def test_a_fence_served_from_elsewhere_in_the_heap_is_freed_and_another_tried(monkeypatch):
    libc = FakeLibc(elsewhere=[(64, 1024)])  # the first fence comes from a free chunk below the heap's top
    monkeypatch.setattr(measure, "_reserved", [])
    fences = measure._fenced_reserve(libc, pieces=2, piece=4096, fence=64)
    assert 1024 in libc.freed and 1024 not in fences and len(fences) == 2
    assert [size for _, size in libc.allocated] == [4096, 64, 64, 4096, 64]


@pytest.mark.parametrize("libc", [OSError("libc.so.6: cannot open shared object file"), types.SimpleNamespace()])
def test_without_glibc_the_allocator_is_left_alone(monkeypatch, libc):
    def cdll(name):  # musl has no libc.so.6, or one without mallopt
        if isinstance(libc, Exception):
            raise libc
        return libc
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(measure.ctypes, "CDLL", cdll)
    monkeypatch.setattr(measure, "_reserved", [])
    assert measure.steady_cpu_allocator() is False and measure._reserved == []
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(measure.ctypes, "CDLL", lambda name: pytest.fail("nothing is loaded on macOS"))
    assert measure.steady_cpu_allocator() is False


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the reserve is made with glibc only")
def test_the_reserve_serves_calls_below_32_mib_and_leaves_larger_outputs_their_page_faults():
    """Notebook 6's sweep (under 32 MiB a call) runs on pages already mapped in; the regimes cell's 48 MiB output
    (16,384 tokens of GPT-2's width) still faults its pages in on every call."""
    resource = pytest.importorskip("resource")
    assert measure.steady_cpu_allocator()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    torch.empty(6 * 2**20).fill_(1)  # 24 MiB, the first call of this size: its pages are the reserve's, mapped in
    assert resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before < 6 * 2**22 / 4096 / 10  # not 6,144 pages
    assert bandwidth.page_faults(lambda: torch.empty(12 * 2**20).fill_(1)) > 12 * 2**22 / 2**21 / 2


def test_both_timing_programs_steady_the_allocator_on_a_cpu_before_timing(monkeypatch):
    events = []
    monkeypatch.setattr(measure, "steady_cpu_allocator", lambda: events.append("steady"))
    monkeypatch.setattr(measure, "time_call", lambda call, settings, number: events.append("time") or (1.0, 1))
    measure.time_methods([Case(50, 4, 8)], FAST, methods=["lookup"], passes=["forward"])
    assert events[0] == "steady" and "time" in events
    events.clear()
    bandwidth.study([Case(50, 4, 8)], FAST)
    assert events[0] == "steady" and "time" in events


def test_each_call_takes_the_next_batch_of_ids(monkeypatch):
    seen = []
    real = measure.forward
    monkeypatch.setattr(measure, "forward", lambda m, ids, w: seen.append(ids.tolist()) or real(m, ids, w))
    measure.time_methods([Case(50, 4, 8)], FAST, methods=["lookup"], passes=["forward"])
    batches = [b.tolist() for b in measure.id_batches(Case(50, 4, 8))]
    assert seen[:3] == [batches[0]] * 3  # the references (forward, backward) and the check
    assert seen[3:10] == batches  # then the timer's calls, one batch after another


# --- the memory guard --------------------------------------------------------------------


def test_available_memory_and_the_default_budget(monkeypatch):
    available = measure.available_memory("cpu")
    if sys.platform.startswith("linux"):
        assert isinstance(available, int) and available > 0
    assert 0 < measure.default_memory_budget("cpu") <= (available or measure.FALLBACK_BUDGET)
    monkeypatch.setattr(measure, "available_memory", lambda device: None)
    assert measure.default_memory_budget("cpu") == measure.FALLBACK_BUDGET == 2**30
    monkeypatch.setattr(measure, "available_memory", lambda device: 10 * 2**30)
    assert measure.default_memory_budget("cpu") == 5 * 2**30
    assert Settings("cpu").memory_budget == 5 * 2**30  # the default budget: half of what is available
    assert measure.default_memory_budget("cpu", fraction=0.25) == 2.5 * 2**30
    with pytest.raises(ValueError, match="fraction must be at most 1"):
        measure.default_memory_budget("cpu", fraction=2)


# --- what grows on a GPU, bounded: a faked device with 80 GiB free ---------------------------------

GPU = torch.device("cuda")  # a device object needs no GPU until a tensor is made on it


def test_a_large_gpu_gets_a_bounded_budget_a_short_timing_and_a_bounded_cold_copy(monkeypatch):
    monkeypatch.setattr(measure, "available_memory", lambda device: 80 * 2**30)
    assert measure.default_memory_budget(GPU) == measure.MAX_DEFAULT_BUDGET == 8 * 2**30  # not half of 80 GiB
    assert Settings(GPU).memory_budget == 8 * 2**30
    assert measure.default_min_run_time(GPU) == 0.05 and measure.default_min_run_time("cpu") == 0.5
    case = Case(50_257, 768, 16)  # 48 KiB slices
    assert bandwidth.cold_slices(case, "float32", 2**40) == bandwidth.cold_slices(case, "float32", bandwidth.MAX_CACHE)


def test_regimes_on_a_gpu_is_planned_within_a_minute(monkeypatch):
    """What `python -m utils.bench regimes --device cuda` runs by default: every case fits the bounded budget, and
    the timings add up to well under a minute (Timer's own calibration and the set-up add a few seconds)."""
    monkeypatch.setattr(measure, "available_memory", lambda device: 80 * 2**30)
    settings = Settings(GPU, min_run_time=measure.default_min_run_time(GPU))
    cases = [Case(50_257, 768, n) for n in bandwidth.REGIME_TOKENS["full"]]
    l2 = 50 * 2**20  # an H100's
    assert all(bandwidth.study_memory_needed(c, "float32", l2) <= settings.memory_budget for c in cases)
    timings = len(cases) * (len(bandwidth.VARIANTS) + 1) * settings.repeats
    assert timings * settings.min_run_time <= 20


def test_a_case_over_budget_is_skipped_with_a_printed_reason(capsys):
    case = Case(50_257, 64, 1_024)
    rows = measure.time_methods([case], dataclasses.replace(FAST, memory_budget=64 * 2**20),
                                methods=["lookup", "dense"], passes=["forward"])
    printed = capsys.readouterr().out
    assert "skipped dense forward at V=50,257, d=64, n=1,024: needs about 602 MiB, over the memory budget of " \
           "64 MiB (the dense one-hot alone is 196 MiB)" in printed
    lookup, dense = rows
    assert (lookup.method, lookup.status) == ("lookup", "ok") and lookup.seconds > 0
    assert (dense.method, dense.status) == ("dense", "skipped")
    assert dense.seconds is None and dense.peak_bytes is None and "over the memory budget" in dense.reason
    assert dense.input_bytes == 1_024 * 50_257 * 4  # the row still says what it would have needed


def test_a_case_over_budget_is_never_attempted(monkeypatch, capsys):
    monkeypatch.setattr(measure, "make_inputs", lambda *args: pytest.fail("a skipped case must not allocate"))
    rows = measure.time_methods([Case(1_000, 16, 64), Case(2_000, 16, 64)], dataclasses.replace(FAST,
                                memory_budget=1_000))
    assert len(rows) == 2 * 6 and all(r.status == "skipped" for r in rows)
    assert capsys.readouterr().out.count("skipped ") == 12


# --- the typed rows ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def rows():
    return measure.time_methods([Case(300, 8, 32), Case(1_000, 8, 32)], FAST)


def test_rows_are_typed_timings(rows):
    assert len(rows) == 2 * 6 and all(isinstance(r, measure.Timing) for r in rows)
    for row in rows:
        assert row.device == "cpu" and row.device_name == "cpu" and row.dtype == "float32"
        assert row.threads == 1 and row.torch_version == torch.__version__ and row.min_run_time == 0.001
        assert row.status == "ok" and row.reason == "" and row.repeats == 2
        assert row.seconds > 0 and row.spread >= 0
        assert row.exact is True and row.max_abs_diff == 0.0  # every method matched the lookup exactly
        assert row.peak_source == "counted" and row.peak_bytes > 0
        assert row.flops == measure.flops(row.method, row.pass_, row.case)
        assert row.input_bytes == measure.input_bytes(row.method, row.case)
    assert {(r.method, r.pass_) for r in rows} == {(m, p) for m in measure.METHODS for p in measure.PASSES}
    assert all(len(r.rounds) == r.repeats and statistics.median(r.rounds) == r.seconds for r in rows)


def test_sweep_observations_follow_the_numbers(rows):
    """Notebook 6's sentences under its sweep: each follows the rows it is given, set here by hand."""
    def timed(row, seconds, rounds, spread=0.05):
        return dataclasses.replace(row, seconds=seconds, rounds=rounds, spread=spread)
    base = {(r.method, r.pass_, r.vocab_size): r for r in rows}
    fast = [timed(r, 1e-3, (1e-3, 1e-3)) for r in rows]
    lines = tables.sweep_observations(fast)
    assert lines[0] == "spreads over 10%, PyTorch's fluctuation mark, as the table rounds them (11% and up): 0 of 12"
    assert not any("the time grew" in line for line in lines)  # two medians a pass say nothing of why growth differs
    assert not any(line.startswith("warning") for line in lines)
    assert lines[-1] == ("lookup vs sparse one-hot, fwd+bwd at V = 1,000, round by round: neither method faster in "
                         "every round: too close to call")
    split = {**{k: timed(r, 1e-3, (1e-3, 1e-3)) for k, r in base.items()},
             ("sparse", "backward", 1_000): timed(base["sparse", "backward", 1_000], 3e-3, (2e-3, 4e-3), spread=0.5),
             ("lookup", "backward", 300): timed(base["lookup", "backward", 300], 5e-4, (5e-4, 5e-4))}
    lines = tables.sweep_observations(list(split.values()))
    assert lines[0] == "spreads over 10%, PyTorch's fluctuation mark, as the table rounds them (11% and up): 1 of 12"
    assert "warning: fwd+bwd below its forward median (lookup at V = 300)" in lines[1]
    assert lines[-1] == ("lookup vs sparse one-hot, fwd+bwd at V = 1,000, round by round: the lookup faster in every "
                         "round, by 2.00x to 4.00x (median 3.00x)")


def test_speedups(rows):
    speed = tables.speedups(rows, "dense", "forward")
    assert list(speed) == [Case(300, 8, 32), Case(1_000, 8, 32)]
    for case, speedup in speed.items():
        times = {r.method: r.seconds for r in rows if r.pass_ == "forward" and r.case == case}
        assert speedup == pytest.approx(times["dense"] / times["lookup"])
    skipped = [dataclasses.replace(r, status="skipped") if r.method == "dense" else r for r in rows]
    assert tables.speedups(skipped, "dense") == {}


def test_format_timings_environment_line_and_verdict(rows):
    text = tables.format_timings(rows)
    assert text.splitlines()[1].split() == ["V", "d", "n", "method", "pass", "time", "spread", "input", "peak",
                                            "check", "status"]
    assert len(text.splitlines()) == len(rows) + 2 and "exact" in text
    assert text.splitlines()[0].endswith("peak: the most one call allocates, counted from the sizes, not measured "
                                         "(only a GPU run measures it)")  # on the CPU
    measured = [dataclasses.replace(r, peak_source="measured") for r in rows]
    assert tables.peak_legend(measured).endswith("measured by torch.cuda.max_memory_allocated")
    assert tables.environment_line(rows) == f"device cpu, float32, 1 thread, torch {torch.__version__}; times: " + \
        rows[0].clock and rows[0].clock in measure.CLOCKS.values()
    assert tables.environment_line([dataclasses.replace(rows[0], threads=2)]).startswith("device cpu, float32, 2 thr")
    with pytest.raises(ValueError, match="no rows"):
        tables.environment_line([])
    calm = [dataclasses.replace(r, spread=0.05) for r in rows]
    assert tables.verdict(calm).startswith("no spread over 25% (PyTorch's 'environmental "
                                           "influence' mark): over 2 interleaved repeats, the middle half of every "
                                           "figure's repeats spans at most 5% of its median")
    busy = calm[:3] + [dataclasses.replace(calm[3], spread=0.5)]
    assert tables.verdict(busy) == (
        f"noisy: over 2 interleaved repeats, the middle half of the repeats spans over 25% of the median in 1 of "
        f"{len(busy)} figures (widest: lookup fwd+bwd at V=300, d=8, n=32, 50%): that median is not reliable, "
        f"the other {len(busy) - 1} are within 25%; run again at a quiet moment or with more repeats")
    all_busy = [dataclasses.replace(r, spread=0.5) for r in calm]  # no "the other 0 are within 25%"
    assert tables.verdict(all_busy).endswith("50%): those medians are not reliable; run again at a quiet moment or "
                                             "with more repeats")
    assert tables.verdict([dataclasses.replace(r, repeats=1) for r in calm]).startswith("one repeat at most")


def test_write_results_as_csv_and_json(rows, tmp_path):
    tables.write_results(rows, tmp_path / "out" / "r.csv")
    with (tmp_path / "out" / "r.csv").open(newline="") as handle:
        table = list(csv.DictReader(handle))
    assert list(table[0]) == [f.name for f in dataclasses.fields(measure.Timing)] and len(table) == len(rows)
    tables.write_results(rows, tmp_path / "r.json")
    records = [dataclasses.asdict(r) for r in rows]
    assert json.loads((tmp_path / "r.json").read_text()) == json.loads(json.dumps(records))  # rounds: a list
    with pytest.raises(ValueError, match=r"cannot write results to 'r.txt': expected a file name ending in .csv"):
        tables.write_results(rows, tmp_path / "r.txt")


# --- sizes ---------------------------------------------------------------------------------


def test_presets_and_sweeps():
    quick, full = measure.preset(True), measure.preset(False)
    assert quick is measure.PRESETS["quick"] and full is measure.PRESETS["full"]
    assert full.vocab_sizes[0] == 1_000 and {50_257, 128_256} <= set(full.vocab_sizes)
    assert full.anchor == measure.GPT2 == Case(50_257, 768, 2_048)
    cases = quick.cases("vocab_size")
    assert [c.vocab_size for c in cases] == list(quick.vocab_sizes)
    assert {(c.embedding_dim, c.num_tokens) for c in cases} == {(quick.anchor.embedding_dim, quick.anchor.num_tokens)}
    assert [c.num_tokens for c in quick.cases("num_tokens")] == list(quick.token_counts)
    assert measure.preset(True, [500, 5_000]).vocab_sizes == (500, 5_000)
    with pytest.raises(ValueError, match=r"unknown axis \['V'\]"):
        quick.cases("V")
    with pytest.raises(TypeError, match="quick must be True or False, got str"):
        measure.preset("yes")
    with pytest.raises(TypeError, match="vocab_sizes must be a non-empty list of sizes"):
        measure.preset(True, [])
    with pytest.raises(ValueError, match="a vocabulary size must be >= 1, got 0"):
        measure.preset(True, [0])


def test_quick_preset_needs_little_memory():
    quick = measure.PRESETS["quick"]
    cases = [c for axis in measure.SWEEP_AXES for c in quick.cases(axis)]
    worst = max(measure.memory_needed(m, p, c) for c in cases for m in measure.METHODS for p in measure.PASSES)
    assert worst < 256 * 2**20


# --- the bandwidth study ---------------------------------------------------------------------


def test_the_cache_size_and_the_cold_buffer():
    cache, source = MACHINE_CACHE("cpu")
    assert cache > 0 and source
    case = Case(100, 4, 8)  # 128-byte slices
    assert bandwidth.cold_slices(case, "float32", 1024) == bandwidth.COLD_FACTOR * 1024 // 128 == 32
    assert bandwidth.cold_slices(case, "float32", 1) == 2  # at least two, to rotate
    assert bandwidth.study_memory_needed(case, "float32", 1024) == 100 * 4 * 4 + 2 * 13 * 8 * 8 + (3 + 32) * 128


@pytest.fixture(scope="module")
def study_row():
    (row,) = bandwidth.study([Case(300, 8, 32)], Settings("cpu", min_run_time=0.001, repeats=3))
    return row


def test_the_study_row_holds_every_variant_and_the_ratios_with_their_range(study_row):
    row = study_row
    assert isinstance(row, bandwidth.BandwidthRow) and row.status == "ok" and row.repeats == 3
    assert row.bytes_moved == bytes_moved(32, 8) and row.table_bytes == 300 * 8 * 4
    for variant in bandwidth.VARIANTS:
        assert getattr(row, f"{variant}_gbs") > 0
    assert row.ratio_low <= row.ratio <= row.ratio_high and row.alloc_low <= row.alloc_cost <= row.alloc_high
    assert row.contiguous_ratio_low <= row.contiguous_ratio <= row.contiguous_ratio_high
    assert row.noisy == (row.widest_spread > measure.NOISY_SPREAD)
    assert row.widest_spread == max(row.ratio_spread, row.contiguous_spread) >= 0
    assert row.cold_bytes >= bandwidth.COLD_FACTOR * row.cache_bytes
    assert row.regime == "table smaller than the cache"  # a 9.4 KiB table fits any cache
    assert row.floor_seconds > 0 and row.lookup_into_seconds > 0


def test_the_contiguous_lookup_walks_the_table_in_order_and_the_row_says_what_that_did(study_row):
    batches = bandwidth.contiguous_batches(Case(10, 4, 4))
    assert [b.tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 0, 1]]  # as many as id_batches
    assert len(batches) == measure.len_id_batches(Case(10, 4, 4))
    row = study_row
    assert row.contiguous_low <= row.contiguous_gain <= row.contiguous_high
    assert row.output_bytes == 32 * 8 * 4 and (row.alloc_faults is None or row.alloc_faults >= 0)
    effects = [tables.contiguous_effect(dataclasses.replace(row, contiguous_low=low, contiguous_high=high))
               for low, high in [(1.2, 1.5), (0.5, 0.8), (0.9, 1.1)]]
    assert effects == ["faster in every round", "slower in every round",
                       "no faster or slower than the repeats can tell apart"]
    once = dataclasses.replace(row, repeats=1, contiguous_gain=1.5, contiguous_low=1.5, contiguous_high=1.5)
    assert tables.contiguous_effect(once) == "faster in the one round timed"
    assert tables.format_study([row]).splitlines()[3].split()[:4] == ["n", "moved", "lookup", "contiguous"]
    assert "with contiguous ids: " in tables.describe_study_row(row)


def test_page_faults_count_the_pages_a_fresh_allocation_maps_in():
    """A 256 MiB buffer written once: over glibc's 32 MiB mmap threshold, and more than its heap holds free, so on
    Linux every call maps fresh pages."""
    pytest.importorskip("resource")
    measure.steady_cpu_allocator()  # as every timing starts: its reserve must not serve this buffer
    faults = bandwidth.page_faults(lambda: torch.empty(2**26).fill_(1), calls=2)
    assert faults is not None and faults >= 0
    if sys.platform.startswith("linux"):
        assert faults > 2**28 / 2**21 / 2  # at least half the buffer's pages, even were they 2 MiB huge pages


def test_the_regime_rule_is_the_sizes_alone():
    assert bandwidth.regime(table_bytes=10**5, cache_bytes=10**6) == "table smaller than the cache"
    assert bandwidth.regime(table_bytes=10**9, cache_bytes=10**6) == "table larger than the cache"


def test_the_study_in_words_never_calls_the_cold_copy_a_limit(study_row):
    words = {regime: tables.describe_study_row(dataclasses.replace(study_row, regime=regime))
             for regime in bandwidth.REGIMES}
    assert "a cold copy" in words["table larger than the cache"]
    larger = words["table larger than the cache"]  # the source's size against the cache, as measured, not assumed
    assert f"{study_row.cold_bytes / study_row.cache_bytes:.1f}x the" in larger
    assert all("median of 3 interleaved repeats" in text and "limit" not in text for text in words.values())
    assert "table fits the" in words["table smaller than the cache"]
    assert all("allocating its output, as nn.Embedding does" in text for text in words.values())
    free = dataclasses.replace(study_row, alloc_cost=1.01, alloc_low=0.98, alloc_high=1.05)
    faults = dataclasses.replace(study_row, alloc_cost=5.0, alloc_low=4.5, alloc_high=5.5)
    assert tables.allocation_cost(free) == "≈1x" and tables.allocation_cost(faults) == "5.00x"
    assert "no cost the repeats can tell apart (its time over the preallocated one's, range 0.98-1.05)" in \
        tables.describe_study_row(free)
    assert "5.00x the time (its time over the preallocated one's, range 4.50-5.50)" in tables.describe_study_row(faults)
    table = tables.format_study([study_row])
    assert f" {study_row.ratio:.2f} " in table and f" {study_row.contiguous_ratio:.2f} " in table
    calm = dataclasses.replace(study_row, ratio_spread=0.05, contiguous_spread=0.1, ratio_low=0.5, ratio_high=1.5)
    assert not calm.noisy and tables.verdict([calm]).startswith(  # one far round moves no median: the range may
        "no spread over 25% (PyTorch's 'environmental influence' mark): over 3 interleaved repeats, the middle half "
        "of every ratio's rounds spans at most 10% of its median")
    noisy = dataclasses.replace(calm, contiguous_spread=0.5)
    assert noisy.noisy and tables.verdict([noisy]).startswith(
        "noisy: over 3 interleaved repeats, the middle half of the rounds spans over 25% of the median in 1 of 1 "
        "cases (widest: a ratio to the cold copy at V=300, d=8, n=32, 50%)")


def test_the_study_draws_the_lookups_ids_afresh_and_reuses_one_cold_buffer(monkeypatch):
    calls = []
    real = bandwidth._variants
    monkeypatch.setattr(bandwidth, "_variants", lambda case, weight, storage, cache, seed: calls.append(
        (storage.data_ptr(), storage.numel())) or real(case, weight, storage, cache, seed))
    cases = [Case(300, 8, 16), Case(300, 8, 64), Case(300, 8, 32)]
    rows = bandwidth.study(cases, Settings("cpu", min_run_time=0.001, repeats=1))
    assert [r.status for r in rows] == ["ok"] * 3
    largest = max(bandwidth.cold_slices(c, "float32", rows[0].cache_bytes) * c.num_tokens * 8 for c in cases)
    assert len(set(calls)) == 1 and calls[0][1] == largest  # one buffer, as large as the largest case needs
    weight = torch.randn(300, 8)
    variants = real(Case(300, 8, 16), weight, torch.empty(largest), rows[0].cache_bytes, 0)
    first, second = variants["lookup"](), variants["lookup"]()
    assert not torch.equal(first, second)  # each call gathers other rows


def test_the_study_skips_a_case_over_the_budget(capsys):
    rows = bandwidth.study([Case(300, 8, 32)], Settings("cpu", min_run_time=0.001, repeats=1, memory_budget=1024))
    assert rows[0].status == "skipped" and "over the memory budget of 1 KiB" in rows[0].reason
    assert "skipped the bandwidth study at V=300, d=8, n=32" in capsys.readouterr().out
    assert rows[0].regime == "skipped" and "skipped" in tables.format_study(rows)
    assert tables.describe_study_row(rows[0]).endswith("over the memory budget of 1 KiB")


def test_the_study_never_times_a_variant_that_computes_something_else(monkeypatch):
    monkeypatch.setattr(bandwidth.torch, "index_select", lambda weight, dim, ids, out: out.fill_(0))
    with pytest.raises(AssertionError, match="lookup_into at V=300, d=8, n=32 differs from the lookup"):
        bandwidth.study([Case(300, 8, 32)], FAST)


# --- the command line ------------------------------------------------------------------------

TINY = ["--device", "cpu", "--min-run-time", "0.001", "--repeats", "2", "--no-progress"]


def test_sweep_prints_the_speedups_and_the_verdict_and_writes_the_table(tmp_path, capsys):
    out = tmp_path / "results.csv"
    assert bench_main(["sweep", "--vocab-sizes", "2000", "--dims", "16", "--tokens", "64", *TINY,
                       "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "device cpu, float32, 1 thread, torch" in printed
    assert "lookup vs dense (forward) at V=2,000, d=16, n=64: the lookup is" in printed
    assert "lookup vs dense (backward) at V=2,000, d=16, n=64: the lookup is" in printed
    assert printed.splitlines()[-2].startswith(("no spread over 25% ", "noisy: "))
    assert len(list(csv.DictReader(out.open()))) == 6


def test_sweep_names_the_faster_method_where_the_lookup_is_slower(monkeypatch, capsys):
    monkeypatch.setattr(tables, "speedups", lambda rows, method, pass_: {Case(2_000, 16, 64): 0.25})
    assert bench_main(["sweep", "--vocab-sizes", "2000", "--dims", "16", "--tokens", "64", "--methods", "lookup",
                       "sparse", "--passes", "backward", *TINY]) == 0
    assert "lookup vs sparse (backward) at V=2,000, d=16, n=64: the sparse product is 4.0x faster" in \
        capsys.readouterr().out


def test_bandwidth_describes_each_case_and_ends_with_the_verdict(capsys):
    assert bench_main(["bandwidth", "--vocab-sizes", "300", "--dims", "8", "--tokens", "32,64", *TINY]) == 0
    printed = capsys.readouterr().out
    assert printed.count("lookup at V=300, d=8, n=") == 2 and "allocating its output" in printed
    assert printed.rstrip().splitlines()[-1].startswith(("no spread over 25% ", "noisy: "))


def test_regimes_runs_the_token_sweep_and_writes_the_study(tmp_path, capsys):
    out = tmp_path / "study.json"
    assert bench_main(["regimes", "--vocab-size", "300", "--dim", "4", "--tokens", "8,32", *TINY,
                       "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "lookup/cold" in printed and "allocating" in printed and "regime" in printed
    assert [row["num_tokens"] for row in json.loads(out.read_text())] == [8, 32]


def test_a_run_that_skips_every_case_says_so_in_one_line_and_fails(capsys):
    assert bench_main(["bandwidth", "--memory-budget-gib", "0.0001", *TINY]) == 1
    captured = capsys.readouterr()
    assert captured.err == ("python -m utils.bench bandwidth: every case was skipped, so nothing was measured (the "
                            "lines above say why); raise --memory-budget-gib (now 105 KiB), or choose smaller sizes\n")
    assert "over the memory budget of 105 KiB" in captured.out and "repeats" not in captured.out  # no verdict


def test_sweep_skips_what_does_not_fit_and_goes_on(capsys):
    assert bench_main(["sweep", "--vocab-sizes", "1000,50_257", "--dims", "16", "--tokens", "512", "--methods",
                       "lookup", "dense", "--passes", "forward", "--memory-budget-gib", "0.02", *TINY]) == 0
    printed = capsys.readouterr().out
    assert "skipped dense forward at V=50,257, d=16, n=512: needs about" in printed
    assert "lookup vs dense (forward) at V=1,000, d=16, n=512" in printed  # the case that fit was measured
    assert "memory budget 20.5 MiB" in printed


def test_sweep_preset_runs_the_three_sweeps(monkeypatch, capsys):
    tiny = measure.Sweeps(vocab_sizes=(300, 600), embedding_dims=(4, 8), token_counts=(16,), anchor=Case(300, 4, 16),
                          min_run_time=0.001)
    monkeypatch.setitem(measure.PRESETS, "quick", tiny)
    assert bench_main(["sweep", "--preset", "quick", "--passes", "forward", *TINY]) == 0
    printed = capsys.readouterr().out
    for label in ("V=300, d=4, n=16", "V=600, d=4, n=16", "V=300, d=8, n=16"):  # each case once
        assert printed.count(f"lookup vs dense (forward) at {label}:") == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "the following arguments are required: {sweep,bandwidth,regimes}"),
        (["time"], "invalid choice: 'time'"),
        (["sweep", "--output", "results.txt"], "--output must end in .csv or .json"),
        (["sweep", "--vocab-sizes", "10,abc"], "expected comma-separated whole numbers"),
        (["bandwidth", "--tokens", "0"], "expected positive whole numbers"),
        (["sweep", "--methods", "gather"], "invalid choice: 'gather'"),
        (["sweep", "--dtype", "int64"], "floating-point"),
        (["bandwidth", "--device", "tpu"], "unknown device 'tpu'"),
        (["sweep", "--threads", "0"], "threads must be >= 1"),
        (["regimes", "--repeats", "0"], "repeats must be >= 1"),
        (["sweep", "--min-run-time", "nan"], "--min-run-time: expected a positive, finite number, got 'nan'"),
        (["bandwidth", "--min-run-time", "inf"], "expected a positive, finite number, got 'inf'"),
        (["bandwidth", "--min-run-time", "-1"], "expected a positive, finite number, got '-1'"),
        (["sweep", "--memory-budget-gib", "nan"], "--memory-budget-gib: expected a positive, finite number"),
        (["sweep", "--repeats", "2.5"], "invalid int value: '2.5'"),
        (["regimes", "--vocab-size", "300,600"], "regimes takes one --vocab-size and one --dim"),
        (["sweep", "--seed", "-1"], "seed must be >= 0"),
    ],
)
def test_a_bad_argument_gets_one_line_and_no_traceback(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        bench_main(argv + ["--no-progress"] if argv and argv[0] in ("sweep", "bandwidth", "regimes") else argv)
    err = capsys.readouterr().err
    assert info.value.code == 2 and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


class _NoisyTimerFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """A stand-in for torch.utils.benchmark that, as it is imported, writes what PyTorch's CUDA builds write on a
    machine without a GPU: the notice printed (torch < 2.4) or logged (torch >= 2.4), and a line of its own."""

    def find_spec(self, name, path, target=None):
        return importlib.util.spec_from_loader(name, self) if name == "torch.utils.benchmark" else None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        sys.stderr.write("No CUDA runtime is found, using CUDA_HOME='/usr/local'\n")
        logging.getLogger("torch.utils.cpp_extension").warning("No CUDA runtime is found, using CUDA_HOME='/usr'")
        sys.stderr.write("something else\n")
        module.Timer = object


def test_importing_the_benchmark_holds_back_the_cuda_runtime_notice_alone(monkeypatch, capsys):
    """measure.py, imported afresh (as another module name) with that stand-in: only its own line passes."""
    monkeypatch.setattr(torch.utils, "benchmark", torch.utils.benchmark)  # restored after the fresh import
    monkeypatch.delitem(sys.modules, "torch.utils.benchmark")
    monkeypatch.setattr(sys, "meta_path", [_NoisyTimerFinder(), *sys.meta_path])
    spec = importlib.util.spec_from_file_location("utils.bench._measure_fresh", measure.__file__)
    fresh = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, fresh)  # its dataclasses look their module up there
    spec.loader.exec_module(fresh)
    assert capsys.readouterr().err == "something else\n"


def test_help_names_the_default_sizes(capsys):
    with pytest.raises(SystemExit) as info:
        bench_main(["sweep", "--help"])
    assert info.value.code == 0 and "GPT-2's sizes (V=50257, d=768, n=2048)" in capsys.readouterr().out
