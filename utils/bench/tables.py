"""The benchmark's results in words and tables: speed-ups, text tables, the noise verdict, CSV and JSON files."""

from __future__ import annotations

import csv
import dataclasses
import json
import statistics
from collections.abc import Sequence
from pathlib import Path

from .bandwidth import REGIMES, BandwidthRow
from .measure import METHODS, NOISY_SPREAD, PASSES, Case, Timing, check_choices, format_bytes


def speedups(rows: Sequence[Timing], method: str = "dense", pass_: str = "forward") -> dict[Case, float]:
    """``{case: method's time / the lookup's}`` for every case where both were measured, in the rows' order."""
    check_choices("method", [method], METHODS)
    check_choices("pass", [pass_], PASSES)
    ok = [r for r in rows if r.status == "ok" and r.pass_ == pass_]
    lookup = {r.case: r.seconds for r in ok if r.method == "lookup"}
    return {r.case: r.seconds / lookup[r.case] for r in ok if r.method == method and r.case in lookup}


def format_time(seconds: float | None) -> str:
    """``0.00123`` -> ``'1.23 ms'``: three significant figures, in s, ms or µs."""
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale or unit == "µs":
            return f"{seconds / scale:.3g} {unit}"
    raise AssertionError("unreachable")


def _columns(header: list[str], lines: list[list[str]], left: set[str]) -> str:
    widths = [max(len(h), *(len(line[i]) for line in lines)) if lines else len(h) for i, h in enumerate(header)]

    def fmt(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if h in left else c.rjust(w)
                         for c, w, h in zip(cells, widths, header, strict=True)).rstrip()

    return "\n".join([fmt(header)] + [fmt(line) for line in lines])


#: How the tables name each pass: a backward is timed with its forward.
PASS_LABELS = {"forward": "forward", "backward": "fwd+bwd"}


def format_timings(rows: Sequence[Timing]) -> str:
    """The timings as a text table: sizes, method, pass (``fwd+bwd`` for the backward, timed with its forward),
    median time and its spread, memory, check, status."""
    lines = []
    for r in rows:
        ok = r.status == "ok"
        lines.append([
            f"{r.vocab_size:,}", f"{r.embedding_dim:,}", f"{r.num_tokens:,}", r.method, PASS_LABELS[r.pass_],
            format_time(r.seconds), f"{r.spread:.0%}" if ok and r.repeats > 1 else "-", format_bytes(r.input_bytes),
            format_bytes(r.peak_bytes) if ok else "-",
            ("exact" if r.exact else f"<= {r.max_abs_diff:.1g}") if ok else "-", "ok" if ok else "skipped",
        ])
    header = ["V", "d", "n", "method", "pass", "time", "spread", "input", "peak", "check", "status"]
    return peak_legend(rows) + "\n" + _columns(header, lines, {"method", "pass", "check", "status"})


def peak_legend(rows: Sequence[Timing]) -> str:
    """What the ``peak`` column is: measured (CUDA, ``torch.cuda.max_memory_allocated``) or counted from the sizes
    (:func:`.measure.peak_bytes_estimate`, on any other device), as the rows record it."""
    sources = {r.peak_source for r in rows if r.status == "ok"}
    how = {frozenset({"measured"}): "measured by torch.cuda.max_memory_allocated",
           frozenset({"counted"}): "counted from the sizes, not measured (only a GPU run measures it)"}.get(
        frozenset(sources), "measured by torch.cuda.max_memory_allocated on a GPU, else counted from the sizes")
    return ("pass: forward, or fwd+bwd (forward and backward); time: median of the repeats; "
            "spread: the range of their middle half, over the median; input: what the "
            f"method builds from the ids; peak: the most one call allocates, {how}")


def environment_line(rows: Sequence[Timing | BandwidthRow]) -> str:
    """``device cpu, float32, 1 thread, torch 2.x.y``: what the timings were taken on."""
    if not rows:
        raise ValueError("no rows: run the benchmark first")
    r = rows[0]
    return f"device {r.device_name}, {r.dtype}, {r.threads} thread{'' if r.threads == 1 else 's'}, " \
           f"torch {r.torch_version}; times: {r.clock}"


def verdict(rows: Sequence[Timing | BandwidthRow]) -> str:
    """Whether one run's figures agree with themselves: the widest spread of their interleaved repeats, in words.

    Each figure's :func:`.measure.spread`, the range of the middle half of its repeats over their median (for the
    bandwidth study, of each ratio's rounds): a figure reported as a median is moved by the middle of its repeats,
    not by one disturbed repeat. Over :data:`NOISY_SPREAD` (25%), one number is not reliable.
    """
    measured = [r for r in rows if r.status == "ok" and r.repeats > 1]
    if not measured:
        return "one repeat at most: no spread to judge the noise by; run with more repeats"
    repeats = min(r.repeats for r in measured)
    spreads = {r: r.widest_spread if isinstance(r, BandwidthRow) else r.spread for r in measured}
    worst = max(spreads, key=spreads.get)
    study = isinstance(worst, BandwidthRow)
    what = "a ratio to the cold copy" if study else f"{worst.method} {PASS_LABELS[worst.pass_]}"
    where = f"{what} at {worst.case.label()}"
    figures = "every ratio's rounds" if study else "every figure's repeats"
    if spreads[worst] <= NOISY_SPREAD:
        return (f"no spread over {NOISY_SPREAD:.0%} (PyTorch's 'environmental influence' mark): over {repeats} "
                f"interleaved repeats, the middle half of {figures} spans at most {spreads[worst]:.0%} of its median "
                f"(widest: {where})")
    wide = sum(value > NOISY_SPREAD for value in spreads.values())  # the figures whose median is not reliable
    kind = "cases" if study else "figures"
    calm = len(spreads) - wide
    rest = f", the other {calm} {'is' if calm == 1 else 'are'} within {NOISY_SPREAD:.0%}" if calm else ""
    return (f"noisy: over {repeats} interleaved repeats, the middle half of the {'rounds' if study else 'repeats'} "
            f"spans over {NOISY_SPREAD:.0%} of the median in {wide} of {len(spreads)} {kind} (widest: {where}, "
            f"{spreads[worst]:.0%}): {'those medians are' if wide > 1 else 'that median is'} not reliable{rest}; run "
            "again at a quiet moment or with more repeats")


def sweep_observations(rows: Sequence[Timing]) -> list[str]:
    """What notebook 6's sweep printed under its verdict, one sentence a line: how many spreads pass PyTorch's 10%
    fluctuation mark; a warning if a ``fwd+bwd`` median is below its forward one (it does all of the forward's work
    and more); whether the lookup's median was lower than each one-hot product's in every case; and, at the largest
    ``V``, whether one ``fwd+bwd`` was faster in every round. (No growth line: two medians a pass cannot say why the
    forward's and the fwd+bwd's growth differ; notebook 6's figure shows the growth against a ``∝ V`` guide.)"""
    ok_rows = [r for r in rows if r.status == "ok"]
    spreads = [round(r.spread * 100) for r in ok_rows]  # in percent, as the table prints them
    lines = [f"spreads over 10%, PyTorch's fluctuation mark, as the table rounds them (11% and up): "
             f"{sum(s > 10 for s in spreads)} of {len(spreads)}"]
    ok = {(r.method, r.pass_, r.vocab_size): r.seconds for r in ok_rows}
    below = [f"{m} at V = {V:,}" for (m, p, V), s in ok.items() if p == "backward" and s < ok.get((m, "forward", V), 0)]
    if below:
        lines.append(f"warning: fwd+bwd below its forward median ({', '.join(below)}): the run disagrees with "
                     "itself; run again")
    for method in ("dense", "sparse"):
        ratios = [s for pass_ in PASSES for s in speedups(rows, method, pass_).values()]
        if ratios:
            lines.append(f"in this run, the lookup's median was lower than the {method} one-hot product's in every "
                         f"case, forward and fwd+bwd (medians): {all(s > 1 for s in ratios)}")
    fwd_bwd = {(r.method, r.vocab_size): r.rounds for r in ok_rows if r.pass_ == "backward"}
    swept = sorted({V for _, V in fwd_bwd})
    if swept and ("sparse", swept[-1]) in fwd_bwd:  # the two fwd+bwd at the largest V, timed in the same rounds
        pairs = zip(fwd_bwd["sparse", swept[-1]], fwd_bwd["lookup", swept[-1]], strict=True)
        ratios = [sparse / lookup for sparse, lookup in pairs]  # the sparse one-hot product's time over the lookup's
        if min(ratios) > 1 or max(ratios) < 1:
            faster, by = (("the lookup", ratios) if min(ratios) > 1
                          else ("the sparse one-hot product", [1 / r for r in ratios]))
            found = (f"{faster} faster in every round, by {min(by):.2f}x to {max(by):.2f}x "
                     f"(median {statistics.median(by):.2f}x)")
        else:
            found = "neither method faster in every round: too close to call"
        lines.append(f"lookup vs sparse one-hot, fwd+bwd at V = {swept[-1]:,}, round by round: {found}")
    return lines


def allocation_cost(r: BandwidthRow) -> str:
    """What allocating the output cost, in the allocating lookup's time over the preallocated one's (paired by
    round): ``"≈1x"`` where the range of the rounds takes in 1, no cost that the repeats can tell apart."""
    return "≈1x" if r.alloc_low <= 1 <= r.alloc_high else f"{r.alloc_cost:.2f}x"


def format_study(rows: Sequence[BandwidthRow]) -> str:
    """The bandwidth study as a text table, one line per case: GB/s of each variant, the two ratios to the cold
    copy (each the median of its per-round ratios) with their range, the cost of allocating."""
    lines = []
    for r in rows:
        if r.status != "ok":
            lines.append([f"{r.num_tokens:,}", format_bytes(r.bytes_moved), *["-"] * 8, "skipped"])
            continue
        lines.append([f"{r.num_tokens:,}", format_bytes(r.bytes_moved),
                      *(f"{gbs:.3g}" for gbs in (r.lookup_into_gbs, r.lookup_contiguous_gbs, r.copy_cold_gbs,
                                                  r.copy_cached_gbs)),
                      f"{r.ratio:.2f}", f"{r.ratio_low:.2f}-{r.ratio_high:.2f}", f"{r.contiguous_ratio:.2f}",
                      f"{r.contiguous_ratio_low:.2f}-{r.contiguous_ratio_high:.2f}", allocation_cost(r)])
    header = ["n", "moved", "lookup", "contiguous", "copy cold", "copy cached", "lookup/cold", "range",
              "contig/cold", "range", "allocating"]
    return ("GB/s: the median of the repeats. lookup: into a preallocated output, ids drawn afresh. contiguous: the "
            "same, contiguous ids.\nlookup/cold, contig/cold: that lookup's GB/s over the cold copy's in the same "
            "round, the median over the rounds (not the quotient of two GB/s columns); range: lowest and highest "
            "round.\nallocating: a lookup that allocates its output, its time over the preallocated one's (≈1x: the "
            "rounds cannot tell them apart).\n"
            + _columns(header, lines, set()))


def contiguous_effect(r: BandwidthRow) -> str:
    """What contiguous ids did to the lookup's bandwidth, paired by round: ``"faster in every round"``, ``"slower
    in every round"``, or ``"no faster or slower than the repeats can tell apart"`` where the range takes in 1
    (with one round: ``"faster in the one round timed"``, and so on)."""
    rounds = "in every round" if r.repeats > 1 else "in the one round timed"
    if r.contiguous_low > 1:
        return f"faster {rounds}"
    if r.contiguous_high < 1:
        return f"slower {rounds}"
    return "no faster or slower than the repeats can tell apart"


def describe_study_row(r: BandwidthRow) -> str:
    """One case of the study in words: what the reference means in its regime, and the cost of allocating."""
    if r.status != "ok":
        return f"bandwidth study at {r.case.label()}: skipped, {r.reason}"
    rounds = f"median of {r.repeats} interleaved repeats, range {r.ratio_low:.2f}-{r.ratio_high:.2f}"
    head = (f"lookup at {r.case.label()}, ids drawn afresh, into a preallocated output: {r.lookup_into_gbs:.3g} GB/s, "
            f"{format_time(r.lookup_into_seconds)} a call")
    if r.regime == REGIMES[0]:
        text = (f"{head}: its {format_bytes(r.table_bytes)} table fits the {format_bytes(r.cache_bytes)} cache "
                f"({r.ratio:.2f}x a cold copy, {rounds}; a copy whose source is in cache: "
                f"{r.copy_cached_gbs:.3g} GB/s)")
    else:
        text = (f"{head}: {r.ratio:.2f}x a cold copy ({r.copy_cold_gbs:.3g} GB/s; {rounds}; the source rotates "
                f"through {format_bytes(r.cold_bytes)}, {r.cold_bytes / r.cache_bytes:.1f}x the "
                f"{format_bytes(r.cache_bytes)} cache, as the rows come from a {format_bytes(r.table_bytes)} table)")
    text += (f"\nwith contiguous ids: {r.lookup_contiguous_gbs:.3g} GB/s, {contiguous_effect(r)} "
             f"({r.contiguous_gain:.2f}x, range {r.contiguous_low:.2f}-{r.contiguous_high:.2f}); "
             f"{r.contiguous_ratio:.2f}x the cold copy (range {r.contiguous_ratio_low:.2f}-"
             f"{r.contiguous_ratio_high:.2f})")
    cost = "no cost the repeats can tell apart" if allocation_cost(r) == "≈1x" else f"{r.alloc_cost:.2f}x the time"
    text += (f"\nallocating its output, as nn.Embedding does: {cost} (its time over the preallocated one's, "
             f"range {r.alloc_low:.2f}-{r.alloc_high:.2f})")
    if r.alloc_faults is not None:
        text += f", {r.alloc_faults:,.0f} page faults a call"
    if r.peak_gbs:
        text += f"; {r.lookup_into_gbs / r.peak_gbs:.0%} of the device's peak {r.peak_gbs:,.0f} GB/s"
    return text


def write_results(rows: Sequence[Timing | BandwidthRow], path: str | Path) -> Path:
    """Save result rows as ``.csv`` (a header of the field names, a line per row) or ``.json``."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".json"):
        raise ValueError(f"cannot write results to {path.name!r}: expected a file name ending in .csv or .json")
    records = [dataclasses.asdict(r) for r in rows]
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".json":
        path.write_text(json.dumps(records, indent=1) + "\n", encoding="utf-8")
    else:
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(records[0]) if records else ["status"])
            writer.writeheader()
            writer.writerows(records)
    return path
