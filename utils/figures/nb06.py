"""Notebook 6's sweep over the vocabulary size: its table, its figure and the step's report."""

from __future__ import annotations

from matplotlib.figure import Figure


def sweep_table(seconds: dict[int, dict[str, float]], d: int) -> str:
    """Section 4's table: per ``V``, the table's size, the two medians (``seconds[V][name]``, seconds per call) and
    their ratio, then whether the lookup was the faster at every ``V``."""
    rows = [f"{'V':>7}  {'W':>9}  {'lookup':>9}  {'dense':>10}  {'dense/lookup':>12}"]
    rows += [f"{V:>7,}  {V * d * 4 / 2**20:5.1f} MiB  {t['lookup'] * 1e6:6.1f} µs  {t['dense'] * 1e6:7,.0f} µs  "
             f"{t['dense'] / t['lookup']:11,.0f}x" for V, t in seconds.items()]
    rows.append(f"the lookup was the faster at every V: {all(t['dense'] > t['lookup'] for t in seconds.values())}")
    return "\n".join(rows)


def step_report(V: int, rounds: list[dict[str, float]], step: dict[str, float], lead: float,
                forward: dict[str, float]) -> list[str]:
    """Section 4's step, once guessed: the medians ``step`` of the ``rounds`` (seconds per call), what allocating
    and zeroing a ``[V, d]`` tensor takes over the lookup's step round by round, a warning if a forward + backward
    median is below its forward one (``forward``, section 4's last row), and how the lead changed."""
    share = sorted(r["zeros"] / r["lookup"] for r in rounds)
    mid = len(share) // 2
    if share[mid] > 1:
        part = "the part came out longer than its whole, so this run cannot tell the two apart"
    elif share[mid] >= 0.9:
        part = "nearly all of the step: the lookup's step is mostly making this tensor"
    elif share[mid] > 0.5:
        part = "over half of the step"
    else:
        part = "less than half of the step"
    report = [f"forward + backward at V = {V:,}, median of {len(rounds)} rounds: "
              f"lookup {step['lookup'] * 1e3:,.1f} ms, dense {step['dense'] * 1e3:,.1f} ms",
              f"allocating and zeroing a [V, d] tensor alone ({step['zeros'] * 1e3:,.1f} ms), over the lookup's step, "
              f"round by round: {share[0]:.2f} to {share[-1]:.2f}, median {share[mid]:.2f}: {part}"]
    if any(step[name] < forward[name] for name in forward):
        report.append("warning: a forward + backward median is below its forward median, so the machine was busy "
                      "(run again)")
    forward_lead = forward["dense"] / forward["lookup"]
    report.append(f"in this run, the lookup's lead fell from {forward_lead:,.0f}x (forward) to {lead:,.1f}x "
                  "(forward + backward)" if lead < forward_lead else
                  "in this run, the lookup's lead did not fall with the backward")
    return report


def sweep_figure(seconds: dict[int, dict[str, float]], n: int, d: int) -> Figure:
    """The two medians against ``V``, log-log, with a dotted line in proportion to ``V`` from the first dense time."""
    sizes = sorted(seconds)
    fig = Figure(figsize=(6, 3.6), layout="constrained")
    ax = fig.subplots()
    for name, marker, color in [("lookup", "o", "C0"), ("dense", "s", "C3")]:  # Going deeper's colours
        ax.loglog(sizes, [seconds[V][name] for V in sizes], marker=marker, color=color, label=name)
    first = seconds[sizes[0]]["dense"]
    ax.loglog([sizes[0], sizes[-1]], [first, first * sizes[-1] / sizes[0]], ":", color="0.5", label="∝ V")
    ax.set(xlabel="vocabulary size V", ylabel="seconds per call (median)", title=f"forward, n = {n}, d = {d}")
    ax.legend()
    return fig
