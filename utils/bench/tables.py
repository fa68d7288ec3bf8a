"""The benchmark's results as tables: speed-ups, a text table, the environment line, CSV and JSON files."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from .measure import FIELDS, METHODS, PASSES, check_choices, format_bytes

# --- summaries ---------------------------------------------------------------------------


def _ok(rows: Iterable[dict], **match) -> list[dict]:
    return [r for r in rows if r["status"] == "ok" and all(r[k] == v for k, v in match.items())]


def _case_key(r: dict) -> tuple[int, int, int]:
    return (r["vocab_size"], r["embedding_dim"], r["num_tokens"])


def speedups(rows: Sequence[dict], method: str = "dense", pass_: str = "forward") -> list[dict]:
    """Per case: how many times longer ``method`` takes than the lookup (``time / lookup time``).

    Returns ``{"vocab_size", "embedding_dim", "num_tokens", "pass", "method", "speedup"}`` for every
    case where both were measured, in the order of the rows.
    """
    check_choices("method", [method], METHODS)
    check_choices("pass", [pass_], PASSES)
    lookup = {_case_key(r): r["time_s"] for r in _ok(rows, method="lookup", **{"pass": pass_})}
    out = []
    for r in _ok(rows, method=method, **{"pass": pass_}):
        key = _case_key(r)
        if key in lookup:
            out.append({"vocab_size": key[0], "embedding_dim": key[1], "num_tokens": key[2], "pass": pass_,
                        "method": method, "speedup": r["time_s"] / lookup[key]})
    return out


def _format_time(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale or unit == "us":
            return f"{seconds / scale:.3g} {unit}"
    raise AssertionError("unreachable")


def format_table(rows: Sequence[dict]) -> str:
    """The rows as a text table: sizes, method, pass, median time, bandwidth, memory, check, status."""
    header = ["V", "d", "n", "method", "pass", "time", "GB/s", "input", "peak", "check", "status"]
    lines = []
    for r in rows:
        ok = r["status"] == "ok"
        lines.append([
            f"{r['vocab_size']:,}", f"{r['embedding_dim']:,}", f"{r['num_tokens']:,}", r["method"], r["pass"],
            _format_time(r["time_s"]), "-" if r["bandwidth_gbs"] is None else f"{r['bandwidth_gbs']:.3g}",
            format_bytes(r["input_bytes"]), "-" if r["peak_bytes"] is None else format_bytes(r["peak_bytes"]),
            ("exact" if r["exact"] else f"<= {r['max_abs_diff']:.1g}") if ok else "-",
            "ok" if ok else "skipped",
        ])
    widths = [max(len(h), *(len(line[i]) for line in lines)) if lines else len(h) for i, h in enumerate(header)]
    left = {"method", "pass", "check", "status"}

    def fmt(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if h in left else c.rjust(w) for c, w, h in zip(cells, widths, header, strict=True))

    return "\n".join([fmt(header)] + [fmt(line) for line in lines])


def environment_line(rows: Sequence[dict]) -> str:
    """``device cpu, float32, 2 threads, torch 2.x.y``: what the timings were taken on."""
    if not rows:
        raise ValueError("no rows: run the benchmark first")
    r = rows[0]
    threads = f"{r['threads']} thread" + ("" if r["threads"] == 1 else "s")
    return f"device {r['device_name']}, {r['dtype']}, {threads}, torch {r['torch_version']}"


def write_results(rows: Sequence[dict], path: str | Path) -> Path:
    """Save tidy rows (:func:`run_benchmark`'s or :func:`bandwidth_study`'s) as ``.csv`` (one row per line,
    the first row's keys as header) or ``.json``."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".json"):
        raise ValueError(f"cannot write results to {path.name!r}: expected a file name ending in .csv or .json")
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".json":
        path.write_text(json.dumps(list(rows), indent=1) + "\n", encoding="utf-8")
    else:
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else FIELDS)
            writer.writeheader()
            writer.writerows(rows)
    return path


