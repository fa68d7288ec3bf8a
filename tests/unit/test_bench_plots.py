"""The benchmark's plots are drawn from the typed rows they are given, and refuse rows they cannot draw."""

import dataclasses

import pytest
import torch
from matplotlib.figure import Figure

from utils.bench import bandwidth, measure
from utils.bench import plots as figures


def _timing(method, pass_, V, d=16, n=64, seconds=1e-3, status="ok"):
    case = measure.Case(V, d, n)
    ok = status == "ok"
    return measure.Timing(
        method, pass_, V, d, n, status=status, reason="", seconds=seconds if ok else None, spread=0.0 if ok else None,
        repeats=3, flops=measure.flops(method, pass_, case), input_bytes=measure.input_bytes(method, case),
        peak_bytes=measure.peak_bytes_estimate(method, pass_, case) if ok else None, peak_source="counted",
        exact=True, max_abs_diff=0.0, dtype="float32", device="cpu", device_name="cpu", threads=1,
        torch_version=torch.__version__, min_run_time=0.1)


def _vocab_rows():
    rows = []
    for V in (1_000, 4_000, 16_000):
        for pass_ in measure.PASSES:
            for method, seconds in (("lookup", 1e-5), ("dense", V * 1e-7), ("sparse", 3e-5)):
                rows.append(_timing(method, pass_, V, seconds=seconds * (2 if pass_ == "backward" else 1)))
    return rows


def test_benchmark_time_figure_plots_the_measured_times():
    fig = figures.benchmark_time_figure(_vocab_rows(), "vocab_size")
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    forward = fig.axes[0]
    assert forward.get_xscale() == "log" and forward.get_yscale() == "log"
    dense = next(line for line in forward.lines if line.get_label() == figures.METHOD_STYLE["dense"]["label"])
    assert list(dense.get_xdata()) == [1_000, 4_000, 16_000]
    assert list(dense.get_ydata()) == pytest.approx([1e-4, 4e-4, 1.6e-3])


def test_benchmark_memory_figure():
    rows = _vocab_rows()
    memory = figures.benchmark_memory_figure(rows)
    assert len(memory.axes) == 2
    dense_input = memory.axes[0].lines[1]
    assert list(dense_input.get_ydata()) == [64 * V * 4 for V in (1_000, 4_000, 16_000)]


def test_bandwidth_regimes_figure_draws_each_variant_over_the_regimes():
    def row(n, gbs, regime):
        return bandwidth.BandwidthRow(
            vocab_size=50, embedding_dim=12, num_tokens=n, status="ok", reason="", regime=regime, bytes_moved=n * 100,
            table_bytes=2_400, cache_bytes=10_000, cache_source="assumed", cold_bytes=40_000, repeats=3,
            dtype="float32", device="cpu", device_name="cpu",
            **{f"{v}_gbs": gbs * k for k, v in enumerate(bandwidth.VARIANTS, 1)})
    smaller, larger = bandwidth.REGIMES
    rows = [row(1, 1.0, smaller), row(50, 5.0, larger), row(1_000, 2.0, larger)]
    fig = figures.bandwidth_regimes_figure(rows)
    (ax,) = fig.axes
    into = next(line for line in ax.lines if line.get_label() == "lookup into a preallocated output")
    assert list(into.get_xdata()) == [100, 5_000, 100_000] and list(into.get_ydata()) == [2.0, 10.0, 4.0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert smaller in labels and larger in labels and "per-call overhead" not in labels
    fig.canvas.draw()  # the legend below the axes, where it hides no point; the cache's label inside them
    assert ax.get_legend().get_window_extent().y1 < ax.get_window_extent().y0
    (note,) = [t for t in ax.texts if "last-level cache" in t.get_text()]
    assert "beyond" not in note.get_text() and ax.get_window_extent().contains(*note.get_window_extent().p0)
    big = figures.bandwidth_regimes_figure([dataclasses.replace(r, cache_bytes=10**9) for r in rows])
    (ax,) = big.axes
    (note,) = [t for t in ax.texts if "last-level cache" in t.get_text()]  # past every call: said, not drawn
    assert "beyond the largest call" in note.get_text() and not any(line.get_linestyle() == "--" and
                                                                     line.get_xdata()[0] == 10**9 for line in ax.lines)
    with pytest.raises(ValueError, match="at least two measured rows"):
        figures.bandwidth_regimes_figure([rows[0], dataclasses.replace(rows[1], status="skipped")])


def test_benchmark_figures_reject_rows_they_cannot_draw():
    rows = _vocab_rows()
    with pytest.raises(ValueError, match="unknown axis 'V'"):
        figures.benchmark_time_figure(rows, "V")
    with pytest.raises(ValueError, match=r"the rows vary in \['vocab_size'\] as well as num_tokens"):
        figures.benchmark_time_figure(rows, "num_tokens")
    skipped = [dataclasses.replace(r, status="skipped") for r in rows]
    with pytest.raises(ValueError, match="no measured rows"):
        figures.benchmark_memory_figure(skipped)
    with pytest.raises(ValueError, match="unknown axis"):
        figures.axis_symbol("x")
