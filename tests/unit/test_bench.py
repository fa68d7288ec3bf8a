"""utils.bench: counts, the memory guard, the equality checks, the tidy table, and the command line."""

import csv
import json
import sys
import warnings

import pytest
import torch
import torch.nn.functional as F

from utils import bench
from utils.bench import Case, bandwidth, measure
from utils.bench.__main__ import main as bench_main

FAST = {"min_run_time": 0.001, "threads": 1, "progress": False}  # keep the timing loops short in tests


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
    assert bench.as_dtype("float32") is torch.float32
    assert bench.as_dtype(torch.bfloat16) is torch.bfloat16
    with pytest.raises(TypeError, match="must be a floating-point type.*got torch.int64"):
        bench.as_dtype("int64")
    with pytest.raises(ValueError, match="unknown dtype 'float33'"):
        bench.as_dtype("float33")
    with pytest.raises(TypeError, match="dtype must be a torch.dtype or its name, got int"):
        bench.as_dtype(4)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"methods": ["lookup", "gather"]}, ValueError, r"unknown methods \['gather'\]; expected some of"),
        ({"methods": "lookup"}, TypeError, "methods must be a list of names"),
        ({"methods": []}, ValueError, "no methods given"),
        ({"passes": ["sideways"]}, ValueError, r"unknown passes \['sideways'\]"),
        ({"min_run_time": 0}, ValueError, "min_run_time must be a positive, finite number, got 0"),
        ({"min_run_time": "1"}, TypeError, "min_run_time must be a number, got str"),
        ({"threads": 0}, ValueError, "threads must be >= 1, got 0"),
        ({"memory_budget": -5}, ValueError, "memory_budget must be a positive, finite number"),
        ({"dtype": "int32"}, TypeError, "floating-point"),
        ({"device": "tpu"}, ValueError, "unknown device 'tpu'"),
        ({"device": 0}, TypeError, "device must be a torch.device or a name"),
        ({"seed": -1}, ValueError, "seed must be >= 0"),
    ],
)
def test_run_benchmark_rejects_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        bench.run_benchmark([Case(10, 4, 3)], **{**FAST, **kwargs})


def test_run_benchmark_needs_cases():
    with pytest.raises(TypeError, match="cases must be a non-empty list of Case"):
        bench.run_benchmark([], **FAST)
    with pytest.raises(TypeError, match="cases must be a non-empty list of Case"):
        bench.run_benchmark([(10, 4, 3)], **FAST)


# --- counts -------------------------------------------------------------------------------


def test_flops_and_bytes_follow_the_formulas():
    c = Case(vocab_size=1_000, embedding_dim=16, num_tokens=64)
    n, V, d = 64, 1_000, 16
    assert bench.flops("dense", "forward", c) == 2 * n * V * d
    assert bench.flops("dense", "backward", c) == 4 * n * V * d
    assert bench.flops("sparse", "forward", c) == 2 * n * d
    assert bench.flops("lookup", "forward", c) == bench.flops("copy", "forward", c) == 0
    assert bench.input_bytes("lookup", c) == n * 8
    assert bench.input_bytes("dense", c, "float32") == n * V * 4
    assert bench.input_bytes("dense", c, torch.float16) == n * V * 2
    assert bench.input_bytes("sparse", c) == n * (8 + 8 + 4)
    assert bench.input_bytes("copy", c) == n * d * 4
    assert bench.bytes_moved("lookup", "forward", c) == n * 8 + 2 * n * d * 4
    assert bench.bytes_moved("copy", "forward", c) == 2 * n * d * 4
    assert bench.bytes_moved("dense", "forward", c) is None and bench.bytes_moved("lookup", "backward", c) is None
    # the dense peak: int64 one-hot and its float copy at once
    assert bench.peak_bytes_estimate("dense", "forward", c) == n * V * (8 + 4)
    # a backward allocates the [V, d] weight gradient, for the lookup too
    assert bench.peak_bytes_estimate("lookup", "backward", c) - bench.peak_bytes_estimate("lookup", "forward", c) \
        == V * d * 4
    assert bench.memory_needed("lookup", "forward", c) == V * d * 4 + n * 8 + n * d * 4
    with pytest.raises(ValueError, match=r"unknown method \['gather'\]"):
        bench.flops("gather", "forward", c)
    with pytest.raises(ValueError, match=r"unknown pass \['up'\]"):
        bench.peak_bytes_estimate("dense", "up", c)


def test_format_bytes():
    assert bench.format_bytes(512) == "512 B"
    assert bench.format_bytes(1536) == "1.5 KiB"
    assert bench.format_bytes(64 * 2**20) == "64 MiB"
    assert bench.format_bytes(1002 * 2**20) == "1,002 MiB"
    assert bench.format_bytes(3 * 2**40) == "3,072 GiB"


# --- the methods agree -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("case", [Case(7, 3, 40), Case(1_000, 16, 64), Case(5, 2, 1)])  # n > V: repeated ids
def test_every_method_matches_the_lookup_exactly_forward_and_backward(case, dtype):
    ids, weight, grad_out = bench.make_inputs(case, "cpu", dtype, seed=3)
    reference = F.embedding(ids, weight)
    for method in bench.METHODS:
        out = bench.forward_fn(method, ids, weight, copy_source=reference)()
        assert out.dtype == dtype and torch.equal(out, reference), method
    grads = {m: bench.backward_fn(m, ids, weight, grad_out)() for m in bench.BACKWARD_METHODS}
    dense_grad = F.one_hot(ids, case.vocab_size).to(dtype).T @ grad_out
    for method, grad in grads.items():
        assert grad.layout == torch.strided and torch.equal(grad, dense_grad), method


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_runs_and_is_recorded(dtype):
    rows = bench.run_benchmark([Case(200, 8, 32)], dtype=dtype, **FAST)
    assert {r["dtype"] for r in rows} == {dtype} and all(r["status"] == "ok" for r in rows)
    assert all(r["input_bytes"] == bench.input_bytes(r["method"], Case(200, 8, 32), dtype) for r in rows)


def test_make_inputs_is_seeded_and_dyadic():
    case = Case(50, 4, 30)
    first, second = bench.make_inputs(case, seed=1), bench.make_inputs(case, seed=1)
    assert all(torch.equal(a, b) for a, b in zip(first, second, strict=True))
    ids, weight, grad_out = first
    assert ids.dtype == torch.int64 and int(ids.min()) >= 0 and int(ids.max()) < 50
    assert weight.shape == (50, 4) and grad_out.shape == (30, 4)
    assert torch.equal(grad_out * 8, (grad_out * 8).round()) and float(grad_out.abs().max()) <= 1
    assert not torch.equal(bench.make_inputs(case, seed=2)[1], weight)


def test_sparse_one_hot():
    ids = torch.tensor([3, 0, 3])
    x = bench.sparse_one_hot(ids, 5)
    assert x.layout == torch.sparse_coo and x.shape == (3, 5) and x._nnz() == 3 and x.is_coalesced()
    assert torch.equal(x.to_dense(), F.one_hot(ids, 5).float())
    with pytest.raises(ValueError, match=r"ids must be a 1-D tensor of token ids, got torch.Size\(\[1, 3\]\)"):
        bench.sparse_one_hot(ids[None], 5)


def test_forward_and_backward_fn_reject_what_they_cannot_do():
    ids, weight, grad_out = bench.make_inputs(Case(5, 2, 3))
    with pytest.raises(ValueError, match="the copy needs copy_source"):
        bench.forward_fn("copy", ids, weight)
    with pytest.raises(ValueError, match="'copy' has no backward pass"):
        bench.backward_fn("copy", ids, weight, grad_out)


def test_available_methods():
    assert bench.available_methods("cpu") == bench.METHODS


def test_tolerance():
    assert bench.tolerance("dense", "forward", "float32") == (0.0, 0.0)
    assert bench.tolerance("dense", "backward", "float32") == (0.0, 0.0)
    assert bench.tolerance("sparse", "forward", "float32") == (torch.finfo(torch.float32).eps, 0.0)
    assert bench.tolerance("lookup", "backward", torch.bfloat16)[0] > 0


def test_a_method_that_computes_something_else_is_never_timed(monkeypatch):
    real = bench.forward_fn

    def wrong_dense(method, ids, weight, copy_source=None):
        fn = real(method, ids, weight, copy_source)
        return (lambda: fn() + 1e-3) if method == "dense" else fn

    monkeypatch.setattr(measure, "forward_fn", wrong_dense)
    timed = []
    monkeypatch.setattr(measure, "blocked_autorange",
                        lambda *args, **kwargs: timed.append(args) or pytest.fail("timed"))
    with pytest.raises(AssertionError, match=r"(?s)dense forward at V=20, d=4, n=9 differs from the lookup's; .*"
                                             r"Greatest absolute difference: 0\.001"):
        bench.run_benchmark([Case(20, 4, 9)], methods=["dense"], passes=["forward"], **FAST)
    assert not timed


def test_blocked_autorange_times_blocks_of_calls_with_the_thread_count_it_was_given():
    calls, threads_seen = [], set()

    def fn():
        calls.append(1)
        threads_seen.add(torch.get_num_threads())

    before = torch.get_num_threads()
    measurement = bench.blocked_autorange(fn, torch.device("cpu"), threads=1, min_run_time=0.01)
    assert threads_seen == {1} and torch.get_num_threads() == before  # set while timing, restored after
    assert len(calls) > len(measurement.times) >= 1  # warm-up blocks, then timed blocks of many calls
    assert all(t > 0 for t in measurement.times)
    assert min(measurement.times) <= measurement.median <= max(measurement.times) and measurement.iqr >= 0
    assert bench.Measurement((1.0,)).iqr == 0.0 and bench.Measurement((1.0, 2.0, 3.0, 4.0, 5.0)).iqr == 2.0


def test_the_sparse_one_hot_warns_nothing():
    """PyTorch 2.11 warns on stderr when sparse invariant checks are off by default rather than by choice."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = bench.sparse_one_hot(torch.tensor([2, 0]), 3)
        assert torch.equal(torch.sparse.mm(x, torch.eye(3)), torch.eye(3)[[2, 0]])


# --- the memory guard --------------------------------------------------------------------


def test_available_memory_and_the_default_budget(monkeypatch):
    available = bench.available_memory("cpu")
    if sys.platform.startswith("linux"):
        assert isinstance(available, int) and available > 0
    assert 0 < bench.default_memory_budget("cpu") <= (available or bench.FALLBACK_BUDGET)
    monkeypatch.setattr(measure, "available_memory", lambda device: None)
    assert bench.default_memory_budget("cpu") == bench.FALLBACK_BUDGET == 2**30
    monkeypatch.setattr(measure, "available_memory", lambda device: 10 * 2**30)
    assert bench.default_memory_budget("cpu") == 5 * 2**30
    assert bench.default_memory_budget("cpu", fraction=0.25) == 2.5 * 2**30
    with pytest.raises(ValueError, match="fraction must be at most 1"):
        bench.default_memory_budget("cpu", fraction=2)


def test_a_case_over_budget_is_skipped_with_a_printed_reason(capsys):
    case = Case(50_257, 64, 1_024)
    rows = bench.run_benchmark([case], methods=["lookup", "dense"], passes=["forward"], memory_budget=64 * 2**20,
                               **FAST)
    printed = capsys.readouterr().out
    assert "skipped dense forward at V=50,257, d=64, n=1,024: needs about 601 MiB, over the memory budget of " \
           "64 MiB (the dense one-hot alone is 196 MiB)" in printed
    lookup, dense = rows
    assert (lookup["method"], lookup["status"]) == ("lookup", "ok") and lookup["time_s"] > 0
    assert (dense["method"], dense["status"]) == ("dense", "skipped")
    assert dense["time_s"] is None and dense["peak_bytes"] is None and "over the memory budget" in dense["reason"]
    assert dense["input_bytes"] == 1_024 * 50_257 * 4  # the row still says what it would have needed


def test_a_case_over_budget_is_never_attempted(monkeypatch, capsys):
    def no_allocation(*args, **kwargs):
        raise AssertionError("a skipped case must not allocate its inputs")

    monkeypatch.setattr(measure, "make_inputs", no_allocation)
    rows = bench.run_benchmark([Case(1_000, 16, 64), Case(2_000, 16, 64)], memory_budget=1_000, **FAST)
    assert len(rows) == 2 * 7 and all(r["status"] == "skipped" for r in rows)
    assert capsys.readouterr().out.count("skipped ") == 14


# --- the tidy table ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def rows():
    return bench.run_benchmark([Case(300, 8, 32), Case(1_000, 8, 32)], **FAST)


def test_rows_are_a_tidy_table(rows):
    assert len(rows) == 2 * (4 + 3)  # per case: 4 forward methods, 3 backward (no backward copy)
    for row in rows:
        assert list(row) == list(bench.FIELDS)
        assert row["device"] == "cpu" and row["device_name"] == "cpu" and row["dtype"] == "float32"
        assert row["threads"] == 1 and row["torch_version"] == torch.__version__ and row["min_run_time"] == 0.001
        assert row["status"] == "ok" and row["reason"] == ""
        assert row["time_s"] > 0 and row["time_iqr_s"] >= 0 and row["measurements"] >= 1
        assert row["exact"] is True and row["max_abs_diff"] == 0.0  # every method matched the lookup exactly
        assert row["peak_source"] == "computed" and row["peak_bytes"] > 0
        case = Case(row["vocab_size"], row["embedding_dim"], row["num_tokens"])
        assert row["flops"] == bench.flops(row["method"], row["pass"], case)
        assert row["input_bytes"] == bench.input_bytes(row["method"], case)
        has_bandwidth = row["pass"] == "forward" and row["method"] in ("lookup", "copy")
        assert (row["bandwidth_gbs"] is not None) == has_bandwidth
        if has_bandwidth:
            assert row["bandwidth_gbs"] == pytest.approx(row["bytes_moved"] / row["time_s"] / 1e9)
    assert {(r["method"], r["pass"]) for r in rows} == {
        (m, p) for m in bench.METHODS for p in bench.PASSES if p == "forward" or m != "copy"}


def test_speedups(rows):
    speed = bench.speedups(rows, "dense", "forward")
    assert [s["vocab_size"] for s in speed] == [300, 1_000]
    for s in speed:
        times = {r["method"]: r["time_s"] for r in rows
                 if r["pass"] == "forward" and r["vocab_size"] == s["vocab_size"]}
        assert s["speedup"] == pytest.approx(times["dense"] / times["lookup"])
    assert bench.speedups(rows, "dense", "backward")[0]["pass"] == "backward"
    skipped = [dict(r, status="skipped") if r["method"] == "dense" else r for r in rows]
    assert bench.speedups(skipped, "dense") == []


def test_format_table_and_environment_line(rows):
    text = bench.format_table(rows)
    header = text.splitlines()[0].split()
    assert header == ["V", "d", "n", "method", "pass", "time", "GB/s", "input", "peak", "check", "status"]
    assert len(text.splitlines()) == len(rows) + 1 and "exact" in text
    assert bench.environment_line(rows) == f"device cpu, float32, 1 thread, torch {torch.__version__}"
    assert bench.environment_line([dict(rows[0], threads=2)]).startswith("device cpu, float32, 2 threads,")
    with pytest.raises(ValueError, match="no rows"):
        bench.environment_line([])


def test_write_results_as_csv_and_json(rows, tmp_path):
    bench.write_results(rows, tmp_path / "out" / "r.csv")
    with (tmp_path / "out" / "r.csv").open(newline="") as handle:
        table = list(csv.DictReader(handle))
    assert list(table[0]) == list(bench.FIELDS) and len(table) == len(rows)
    bench.write_results(rows, tmp_path / "r.json")
    assert json.loads((tmp_path / "r.json").read_text()) == rows
    with pytest.raises(ValueError, match=r"cannot write results to 'r.txt': expected a file name ending in .csv"):
        bench.write_results(rows, tmp_path / "r.txt")


# --- sizes ---------------------------------------------------------------------------------


def test_presets_and_sweeps():
    quick, full = bench.preset(True), bench.preset(False)
    assert quick is bench.PRESETS["quick"] and full is bench.PRESETS["full"]
    assert full.vocab_sizes[0] == 1_000 and {50_257, 128_256} <= set(full.vocab_sizes)
    assert min(full.embedding_dims) == 64 and max(full.embedding_dims) == 768
    assert quick.bandwidth == full.bandwidth == Case(50_257, 768, 2_048)  # GPT-2's sizes
    cases = quick.cases("vocab_size")
    assert [c.vocab_size for c in cases] == list(quick.vocab_sizes)
    assert {(c.embedding_dim, c.num_tokens) for c in cases} == {(quick.anchor.embedding_dim, quick.anchor.num_tokens)}
    assert [c.num_tokens for c in quick.cases("num_tokens")] == list(quick.token_counts)
    with pytest.raises(ValueError, match=r"unknown axis \['V'\]"):
        quick.cases("V")
    with pytest.raises(TypeError, match="quick must be True or False, got str"):
        bench.preset("yes")


def test_run_sweeps_measures_the_shared_anchor_once(monkeypatch):
    tiny = bench.Sweeps(vocab_sizes=(300, 600), embedding_dims=(4, 8), token_counts=(16, 32), anchor=Case(300, 4, 16),
                        bandwidth=Case(300, 4, 16), min_run_time=0.001)
    seen = []
    real = bench.run_benchmark
    monkeypatch.setattr(measure, "run_benchmark", lambda cases, **kw: seen.extend(cases) or real(cases, **kw))
    sweeps = bench.run_sweeps(tiny, ["embedding_dim", "num_tokens"], methods=["lookup"], passes=["forward"], **FAST)
    assert seen == [Case(300, 4, 16), Case(300, 8, 16), Case(300, 4, 32)]  # the anchor once
    assert [r["embedding_dim"] for r in sweeps["embedding_dim"]] == [4, 8]
    assert [r["num_tokens"] for r in sweeps["num_tokens"]] == [16, 32]
    assert sweeps["embedding_dim"][0] is sweeps["num_tokens"][0]
    with pytest.raises(ValueError, match=r"unknown axes \['V'\]"):
        bench.run_sweeps(tiny, ["V"])


def test_quick_preset_needs_little_memory():
    quick = bench.PRESETS["quick"]
    cases = [c for axis in bench.SWEEP_AXES for c in quick.cases(axis)]
    worst = max(bench.memory_needed(m, p, c) for c in cases for m in bench.METHODS for p in bench.PASSES)
    assert worst < 256 * 2**20


# --- the bandwidth study ---------------------------------------------------------------------

STUDY = {"min_run_time": 0.001, "repeats": 3, "threads": 1, "progress": False}


def test_the_cache_size_and_the_cold_buffer():
    cache, source = bench.last_level_cache("cpu")
    assert cache > 0 and source
    case = Case(100, 4, 8)  # 128-byte slices
    slices = bench.cold_buffer_slices(case, "float32", 1024)
    assert slices == bench.COLD_FACTOR * 1024 // 128 == 32
    assert bench.cold_buffer_slices(Case(100, 4, 8), "float32", 1) == 2  # at least two, to rotate
    assert bench.study_memory_needed(case, "float32", 1024) == 100 * 4 * 4 + 8 * 8 + (3 + 32) * 128


def test_bandwidth_study_rows_hold_every_variant_and_the_ratio_with_its_spread(capsys):
    (row,) = bench.bandwidth_study([Case(300, 8, 32)], **STUDY)
    assert row["status"] == "ok" and row["repeats"] == 3
    assert row["bytes_moved"] == 32 * 8 + 2 * 32 * 8 * 4
    for variant in bench.BANDWIDTH_VARIANTS:
        assert row[f"{variant}_gbs"] > 0 and row[f"{variant}_time_s"] > 0
    assert row["ratio_min"] <= row["ratio"] <= row["ratio_max"] and row["best_ratio"] > 0
    assert row["noisy"] == ((row["ratio_max"] - row["ratio_min"]) / row["ratio"] > bench.NOISY_SPREAD)
    assert row["cold_buffer_bytes"] >= bench.COLD_FACTOR * row["cache_bytes"]
    words = bench.describe_study_row(row)
    assert f"{row['ratio']:.2f}x a copy from a cold source" in words and "median of 3 interleaved repeats" in words
    assert ("one number is not reliable" in words) == row["noisy"]


def test_bandwidth_study_reuses_one_cold_buffer_for_cases_of_any_size(monkeypatch):
    buffers = []
    real = bandwidth._study_fns
    monkeypatch.setattr(bandwidth, "_study_fns", lambda case, weight, seed, cache, storage: buffers.append(
        (storage.data_ptr(), storage.numel())) or real(case, weight, seed, cache, storage))
    cases = [Case(300, 8, 16), Case(300, 8, 64), Case(300, 8, 32)]
    rows = bench.bandwidth_study(cases, **STUDY)  # each case checks that its cold copy returns the lookup
    assert [r["status"] for r in rows] == ["ok"] * 3
    largest = max(bench.cold_buffer_slices(c, "float32", rows[0]["cache_bytes"]) * c.num_tokens * 8 for c in cases)
    assert len(set(buffers)) == 1 and buffers[0][1] == largest  # one buffer, as large as the largest case needs


def test_bandwidth_study_skips_a_case_over_the_budget(capsys):
    rows = bench.bandwidth_study([Case(300, 8, 32)], memory_budget=1024, **STUDY)
    assert rows[0]["status"] == "skipped" and "over the memory budget of 1 KiB" in rows[0]["reason"]
    assert "skipped the bandwidth study at V=300, d=8, n=32" in capsys.readouterr().out
    assert bench.regimes(rows) == ["skipped"] and "skipped" in bench.format_study(rows)


def test_bandwidth_study_never_times_a_variant_that_computes_something_else(monkeypatch):
    monkeypatch.setattr(bench.torch, "index_select", lambda weight, dim, ids, out: out.fill_(0))
    with pytest.raises(AssertionError, match="lookup_into at V=300, d=8, n=32 differs from the lookup"):
        bench.bandwidth_study([Case(300, 8, 32)], **STUDY)


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"repeats": 0}, ValueError, "repeats must be >= 1"),
    ({"min_run_time": -1}, ValueError, "min_run_time must be a positive"),
])
def test_bandwidth_study_rejects_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        bench.bandwidth_study([Case(10, 2, 2)], **{**STUDY, **kwargs})
    with pytest.raises(TypeError, match="cases must be a non-empty list"):
        bench.bandwidth_study([], **STUDY)


def test_regimes_floor_then_cache_then_dram():
    def row(n, seconds, moved, cache=1000):
        return {"status": "ok", "num_tokens": n, "lookup_into_time_s": seconds, "bytes_moved": moved,
                "cache_bytes": cache}
    rows = [row(1, 1e-6, 10), row(4, 1.5e-6, 40), row(100, 1e-5, 1000), row(1000, 1e-4, 10_000)]
    assert bench.regimes(rows) == ["per-call overhead", "per-call overhead", "cache-resident", "DRAM-bound"]


# --- the command line ------------------------------------------------------------------------


def test_cli_prints_speedup_and_bandwidth_ratio_and_writes_the_table(tmp_path, capsys):
    out = tmp_path / "results.csv"
    code = bench_main(["--vocab-sizes", "2000", "--dims", "16", "--tokens", "64", "--device", "cpu",
                       "--min-run-time", "0.001", "--threads", "1", "--no-progress", "--output", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    assert "device cpu, float32, 1 thread, torch" in printed
    assert "lookup vs dense (forward) at V=2,000, d=16, n=64: the lookup is" in printed
    assert "lookup vs dense (backward) at V=2,000, d=16, n=64: the lookup is" in printed
    assert "lookup at V=2,000, d=16, n=64: into a preallocated output" in printed
    assert "a copy from a cold source" in printed and "median of 5 interleaved repeats, spread" in printed
    assert len(list(csv.DictReader(out.open()))) == 7


def test_cli_regimes_runs_the_token_sweep_and_writes_the_study(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(bench.REGIME_TOKENS, "full", (8, 32))
    out = tmp_path / "study.json"
    assert bench_main(["--regimes", "--vocab-sizes", "300", "--dims", "4", "--min-run-time", "0.001",
                       "--repeats", "2", "--threads", "1", "--no-progress", "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "into/cold" in printed and "per-call overhead" in printed
    assert [row["num_tokens"] for row in json.loads(out.read_text())] == [8, 32]


def test_cli_skips_what_does_not_fit_and_goes_on(capsys):
    code = bench_main(["--vocab-sizes", "1000,50_257", "--dims", "16", "--tokens", "512", "--methods", "lookup",
                       "dense", "--passes", "forward", "--min-run-time", "0.001", "--threads", "1",
                       "--memory-budget-gib", "0.02", "--no-progress"])
    printed = capsys.readouterr().out
    assert code == 0
    assert "skipped dense forward at V=50,257, d=16, n=512: needs about" in printed
    assert "lookup vs dense (forward) at V=1,000, d=16, n=512" in printed  # the case that fit was measured
    assert "memory budget 20.5 MiB" in printed


def test_cli_sweep_runs_the_three_sweeps_of_a_preset(monkeypatch, capsys):
    tiny = bench.Sweeps(vocab_sizes=(300, 600), embedding_dims=(4, 8), token_counts=(16,), anchor=Case(300, 4, 16),
                        bandwidth=Case(300, 4, 16), min_run_time=0.001)
    monkeypatch.setitem(bench.PRESETS, "quick", tiny)
    assert bench_main(["--sweep", "quick", "--passes", "forward", "--min-run-time", "0.001", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    for label in ("V=300, d=4, n=16", "V=600, d=4, n=16", "V=300, d=8, n=16"):  # each case once
        assert printed.count(f"lookup vs dense (forward) at {label}:") == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--output", "results.txt"], "--output must end in .csv or .json"),
        (["--vocab-sizes", "10,abc"], "expected comma-separated whole numbers"),
        (["--tokens", "0"], "expected positive whole numbers"),
        (["--methods", "gather"], "invalid choice: 'gather'"),
        (["--dtype", "int64", "--vocab-sizes", "5", "--dims", "2", "--tokens", "2"], "floating-point"),
        (["--device", "tpu"], "unknown device 'tpu'"),
        (["--threads", "0", "--vocab-sizes", "5", "--dims", "2", "--tokens", "2"], "threads must be >= 1"),
    ],
)
def test_cli_rejects_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        bench_main(argv + ["--no-progress"])
    assert info.value.code == 2 and message in capsys.readouterr().err
