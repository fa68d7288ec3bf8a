"""The benchmark's plots: time, speed-up and memory over a sweep, and bandwidth by tokens per call."""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter, NullLocator

from ..figures.drawing import TAB10
from .bandwidth import REGIMES, BandwidthRow
from .measure import Timing, format_bytes

#: One colour and marker per benchmark method, the same in every figure.
METHOD_STYLE = {
    "lookup": {"color": TAB10[0], "marker": "o", "label": "lookup (F.embedding)", "zorder": 4},
    "dense": {"color": TAB10[3], "marker": "s", "label": "dense one-hot @ W"},
    "sparse": {"color": TAB10[2], "marker": "^", "label": "sparse one-hot @ W"},
}
_AXIS_LABELS = {
    "vocab_size": "vocabulary size V",
    "embedding_dim": "embedding dim d",
    "num_tokens": "tokens per batch n",
}
_SIZES = tuple(_AXIS_LABELS)
_PASS_TITLES = {"forward": "forward", "backward": "forward + backward (grad of W)"}
#: Fixed margins instead of a layout engine (constrained layout doubles the drawing time).
_GRID = {"left": 0.08, "right": 0.98, "bottom": 0.12, "top": 0.85, "wspace": 0.08}


def _sweep_rows(rows: list[Timing], axis: str) -> tuple[list[Timing], str]:
    """The measured rows of a one-dimensional sweep along ``axis``, and a note on the fixed sizes."""
    if axis not in _AXIS_LABELS:
        raise ValueError(f"unknown axis {axis!r}; expected one of {tuple(_AXIS_LABELS)}")
    ok = [r for r in rows if r.status == "ok"]
    if not ok:
        raise ValueError("no measured rows (status 'ok') to draw; run utils.bench.measure.time_methods first")
    fixed = [name for name in _SIZES if name != axis]
    varying = [name for name in fixed if len({getattr(r, name) for r in ok}) > 1]
    if varying:
        raise ValueError(f"the rows vary in {varying} as well as {axis}: pass the rows of one sweep along {axis}")
    note = ", ".join(f"{axis_symbol(name)}={getattr(ok[0], name):,}" for name in fixed)
    threads = ok[0].threads
    return ok, f"{note}, {ok[0].dtype}, {ok[0].device_name}, {threads} thread{'' if threads == 1 else 's'}"


def _log_axes(ax, axis: str, rows: list[Timing], ybase: float = 10) -> None:
    """Log-log axes labelled at the measured sizes, without minor ticks (they cost drawing time, add little)."""

    ax.set_xscale("log")
    ax.set_yscale("log", base=ybase)
    sizes = sorted({getattr(r, axis) for r in rows})
    ax.set_xticks(sizes, [f"{v:,}" for v in sizes], fontsize=8)
    ax.xaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_xlabel(_AXIS_LABELS[axis])
    ax.grid(True, which="major", alpha=0.3)


def _series(rows: list[Timing], axis: str, method: str, pass_: str, field: str) -> tuple[list[int], list[float]]:
    points = sorted((getattr(r, axis), getattr(r, field)) for r in rows if r.method == method and r.pass_ == pass_
                    and getattr(r, field) is not None)
    return [p[0] for p in points], [p[1] for p in points]


def benchmark_time_figure(rows: list[Timing], axis: str = "vocab_size") -> Figure:
    """Median time per call against one size, log-log: forward and forward+backward panels, a line per method.

    ``rows``: the timings of :func:`utils.bench.measure.time_methods` for a sweep along ``axis``
    (``"vocab_size"``, ``"embedding_dim"`` or ``"num_tokens"``). A dotted grey line of slope 1
    through the dense product's first point shows what "grows in proportion" looks like.
    """
    ok, note = _sweep_rows(rows, axis)
    fig = Figure(figsize=(11, 4.2))  # no layout engine: Jupyter crops with bbox_inches="tight", and it is faster
    axes = fig.subplots(1, 2, sharey=True, gridspec_kw=_GRID)
    for ax, pass_ in zip(axes, _PASS_TITLES, strict=True):
        for method, style in METHOD_STYLE.items():
            xs, ys = _series(ok, axis, method, pass_, "seconds")
            if xs:
                ax.plot(xs, ys, **style)
        xs, ys = _series(ok, axis, "dense", pass_, "seconds")
        if len(xs) > 1:
            ax.plot([xs[0], xs[-1]], [ys[0], ys[0] * xs[-1] / xs[0]], ":", color="0.5", label=f"∝ {axis_symbol(axis)}")
        _log_axes(ax, axis, ok)
        ax.set_title(_PASS_TITLES[pass_], fontsize=10)
    axes[0].set_ylabel("median time per call (s)")
    axes[0].legend(fontsize=8, loc="best")
    fig.suptitle(f"Time against {_AXIS_LABELS[axis]} ({note})", fontsize=11)
    return fig


def axis_symbol(axis: str) -> str:
    """``"vocab_size"`` -> ``"V"``, ``"embedding_dim"`` -> ``"d"``, ``"num_tokens"`` -> ``"n"``."""
    symbols = {"vocab_size": "V", "embedding_dim": "d", "num_tokens": "n"}
    if axis not in symbols:
        raise ValueError(f"unknown axis {axis!r}; expected one of {tuple(symbols)}")
    return symbols[axis]


def benchmark_memory_figure(rows: list[Timing], axis: str = "vocab_size") -> Figure:
    """Bytes against one size, log-log: what each method builds from the ids, and one call's peak."""
    ok, note = _sweep_rows(rows, axis)
    fig = Figure(figsize=(11, 4.2))
    left, right = fig.subplots(1, 2, sharey=True, gridspec_kw=_GRID)
    for method, style in METHOD_STYLE.items():
        xs, ys = _series(ok, axis, method, "forward", "input_bytes")
        if xs:
            left.plot(xs, ys, **style)
        for pass_, line in (("forward", "-"), ("backward", "--")):
            xs, ys = _series(ok, axis, method, pass_, "peak_bytes")
            if xs:
                right.plot(xs, ys, line, color=style["color"], marker=style["marker"], zorder=style.get("zorder", 2))
    passes = [Line2D([], [], color="black", ls="-", label="forward"),
              Line2D([], [], color="black", ls="--", label="forward + backward")]
    methods = [Line2D([], [], color=style["color"], marker=style["marker"], label=style["label"])
               for style in METHOD_STYLE.values()]
    right.legend(handles=[*methods, *passes], fontsize=8, title="lines that coincide overlap", title_fontsize=7)
    sources = sorted({r.peak_source for r in ok if r.peak_source})
    left.set_title("input built from the ids (ids, one-hot, COO one-hot)", fontsize=10)
    right.set_title(f"peak bytes one call allocates ({' and '.join(sources)})", fontsize=10)
    for ax in (left, right):
        _log_axes(ax, axis, ok, ybase=2)
        ax.yaxis.set_major_formatter(_bytes_formatter())
    left.set_ylabel("bytes")
    left.legend(fontsize=8)
    fig.suptitle(f"Memory against {_AXIS_LABELS[axis]} ({note})", fontsize=11)
    return fig


def _bytes_formatter():
    return FuncFormatter(lambda value, _pos: format_bytes(value) if value > 0 else "")


_VARIANT_STYLE = {
    "lookup": {"color": TAB10[0], "marker": "o", "linestyle": ":", "label": "lookup, allocating its output"},
    "lookup_into": {"color": TAB10[0], "marker": "o", "label": "lookup into a preallocated output", "zorder": 4},
    "lookup_contiguous": {"color": TAB10[1], "marker": "^", "label": "the same, contiguous ids"},
    "copy_cold": {"color": "#2b2b2b", "marker": "D", "label": "cold copy: next rows of a large buffer"},
    "copy_cached": {"color": "#9a9a9a", "marker": "D", "linestyle": "--", "label": "cached copy: same rows every call"},
}
_REGIME_COLORS = dict(zip(REGIMES, ("#e8f4fa", "#eaf5ea"), strict=True))


def bandwidth_regimes_figure(rows: list[BandwidthRow]) -> Figure:
    """Achieved bandwidth against the bytes one call moves, log-log, from the rows of ``bandwidth.study``.

    One line per variant (ids drawn afresh for the lookups); the background is shaded by each
    row's regime, and a dashed line marks the last-level cache (a note at the right edge, where the cache is larger
    than every call); the legend sits below the axes.
    """
    ok = [r for r in rows if r.status == "ok"]
    if len(ok) < 2:
        raise ValueError("the figure needs at least two measured rows (status 'ok')")
    xs = [r.bytes_moved for r in ok]
    fig = Figure(figsize=(8, 5.4))  # fixed margins, no layout engine: faster (Jupyter crops the margins)
    ax = fig.subplots(gridspec_kw={"left": 0.09, "right": 0.98, "bottom": 0.29, "top": 0.93})
    edges = [xs[0] / 1.5] + [(a * b) ** 0.5 for a, b in zip(xs, xs[1:], strict=False)] + [xs[-1] * 1.5]
    for r, left, right in zip(ok, edges[:-1], edges[1:], strict=True):
        ax.axvspan(left, right, color=_REGIME_COLORS[r.regime], lw=0)
    for variant, style in _VARIANT_STYLE.items():
        ax.plot(xs, [getattr(r, f"{variant}_gbs") for r in ok], **style)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(_bytes_formatter())
    ax.set_yscale("log")
    for formatter in (ax.yaxis.set_major_formatter, ax.yaxis.set_minor_formatter):
        formatter(FuncFormatter(lambda y, _: f"{y:g}"))
    cache, label = ok[0].cache_bytes, f"last-level cache ({format_bytes(ok[0].cache_bytes)})"
    ax.set_xlim(edges[0], edges[-1])
    if cache <= edges[-1]:  # the cache's size within the axis: a dashed line, labelled inside the axes
        ax.axvline(cache, color="0.3", linestyle="--", lw=1)
        ax.annotate(f"{label} ", (cache, 1), xycoords=("data", "axes fraction"), fontsize=8, va="top", ha="right")
    else:  # larger than every call: said at the right edge, not drawn outside the axes
        ax.annotate(f"{label}: beyond the largest call \u2192", (1, 1), xycoords="axes fraction", xytext=(-4, -4),
                    textcoords="offset points", fontsize=8, va="top", ha="right")
    ax.set_xlabel("bytes one lookup moves (ids + rows read + output written)")
    ax.set_ylabel("achieved bandwidth (GB/s, median)")
    handles, labels = ax.get_legend_handles_labels()
    shown = [regime for regime in REGIMES if any(r.regime == regime for r in ok)]
    handles += [Rectangle((0, 0), 1, 1, color=_REGIME_COLORS[regime]) for regime in shown]
    # below the axes, where it can hide no point
    ax.legend(handles, labels + shown, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncols=3)
    ax.set_title(f"Bandwidth by call size: V={ok[0].vocab_size:,}, d={ok[0].embedding_dim:,}, {ok[0].dtype}, "
                 f"{ok[0].device_name}", fontsize=10)
    return fig
