"""Notebook 6's sweep over the vocabulary size: its table and its figure; the one-line range of a ratio
timed in interleaved rounds. The rounds' timing and their verdict are the notebook's own (section 4)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from matplotlib.figure import Figure

from ..bench.tables import format_time


def sweep_table(seconds: dict[int, dict[str, float]], d: int) -> str:
    """Section 4's table: per ``V``, the table's size, the two medians (``seconds[V][name]``, seconds per call) and
    their ratio: one sweep, so no verdict (section 4's rounds give those)."""
    rows = [f"{'V':>7}  {'W':>9}  {'lookup':>9}  {'dense':>10}  {'dense/lookup':>12}"]
    rows += [f"{V:>7,}  {V * d * 4 / 2**20:5.1f} MiB  {format_time(t['lookup']):>9}  {format_time(t['dense']):>10}  "
             f"{t['dense'] / t['lookup']:11,.0f}x" for V, t in seconds.items()]
    return "\n".join(rows)


def sweep_figure(seconds: dict[int, dict[str, float]], n: int, d: int) -> Figure:
    """The two medians against ``V``, log-log, with a dotted line in proportion to ``V`` from the first dense time."""
    sizes = sorted(seconds)
    fig = Figure(figsize=(6, 3.6), layout="constrained")
    ax = fig.subplots()
    for name, marker, color in [("lookup", "o", "C0"), ("dense", "s", "C3")]:  # Going deeper's colours
        ax.loglog(sizes, [seconds[V][name] for V in sizes], marker=marker, color=color, label=name)
    first = seconds[sizes[0]]["dense"]
    ax.loglog([sizes[0], sizes[-1]], [first, first * sizes[-1] / sizes[0]], ":", color="0.5",
              label="∝ V, from the first dense point")
    ax.set(xlabel="vocabulary size V", ylabel="seconds per call (median)", title=f"forward, n = {n}, d = {d}")
    ax.legend()
    return fig


def ratio(value: float) -> str:
    """A timing ratio at three significant figures, whole numbers from 100 up: 1,832x, 77.5x, 0.93x."""
    return f"{value:,.0f}x" if value >= 100 else f"{value:.3g}x"


def per_round(what: str, ratios: Sequence[float]) -> str:
    """One line for a ratio timed once a round: ``what``, its lowest and highest round and its median. Formatting
    only: the notebook's ``verdict`` adds which side of a mark every round fell on."""
    r = sorted(ratios)
    return f"{what}: {ratio(r[0])} to {ratio(r[-1])}, median {ratio(statistics.median(r))}"
