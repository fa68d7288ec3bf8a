"""``python -m utils.bench``: the benchmark's command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..devices import resolve_device
from .bandwidth import REGIME_TOKENS, bandwidth_study, describe_study_row, format_study
from .measure import (
    BUDGET_FRACTION,
    GIB,
    METHODS,
    PASSES,
    PRESETS,
    SWEEP_AXES,
    Case,
    default_memory_budget,
    format_bytes,
    run_benchmark,
)
from .tables import environment_line, format_table, speedups, write_results

# --- command line ------------------------------------------------------------------------


def _sizes(text: str) -> list[int]:
    try:
        values = [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated whole numbers like 1000,50257; got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive whole numbers like 1000,50257; got {text!r}")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m utils.bench",
        description="Time the embedding lookup against the dense and sparse one-hot products and a plain copy. "
                    "Default: GPT-2's sizes (V=50257, d=768, n=2048).",
    )
    parser.add_argument("--vocab-sizes", type=_sizes, default=[50_257], help="comma-separated V (default 50257)")
    parser.add_argument("--dims", type=_sizes, default=[768], help="comma-separated d (default 768)")
    parser.add_argument("--tokens", type=_sizes, default=[2_048], help="comma-separated n (default 2048)")
    parser.add_argument("--sweep", choices=("quick", "full"),
                        help="run the notebook's three sweeps (V, d, n) of this preset instead of the sizes above")
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    parser.add_argument("--passes", nargs="+", choices=PASSES, default=list(PASSES))
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda or mps (default auto)")
    parser.add_argument("--dtype", default="float32", help="weight dtype (default float32)")
    parser.add_argument("--min-run-time", type=float, default=0.5, help="seconds per measurement (default 0.5)")
    parser.add_argument("--threads", type=int, default=1,
                        help="CPU threads for the timed calls (default 1: on a machine whose cores are shared, a "
                             "multi-threaded call can wait milliseconds for a busy core, and its timing means "
                             "nothing; pass the core count for a quiet machine's best)")
    parser.add_argument("--memory-budget-gib", type=float,
                        help=f"skip what needs more (default: {BUDGET_FRACTION * 100:.0f}%% of the available memory)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, help="write the results table to this .csv or .json file")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--repeats", type=int, default=5,
                        help="interleaved repeats of the bandwidth study (default 5): its ratio's spread is reported")
    parser.add_argument("--regimes", action="store_true",
                        help="instead: the bandwidth study over tokens per call, 16 to 131,072, at the first V and d, "
                             "with each size's regime (--output then writes the study's rows)")
    args = parser.parse_args(argv)

    if args.output is not None and args.output.suffix.lower() not in (".csv", ".json"):
        parser.error(f"--output must end in .csv or .json, got {args.output.name!r}")
    if args.sweep:
        sweeps = PRESETS[args.sweep]
        cases = list(dict.fromkeys(case for axis in SWEEP_AXES for case in sweeps.cases(axis)))  # each once
    else:
        cases = [Case(v, d, n) for v in args.vocab_sizes for d in args.dims for n in args.tokens]
    try:
        device = resolve_device(args.device)
    except (RuntimeError, ValueError) as error:  # an unknown device, or a GPU that is not there
        parser.error(str(error))
    budget = None if args.memory_budget_gib is None else int(args.memory_budget_gib * GIB)
    study = {"device": device, "dtype": args.dtype, "min_run_time": args.min_run_time, "repeats": args.repeats,
             "threads": args.threads, "memory_budget": budget, "seed": args.seed, "progress": not args.no_progress}
    if args.regimes:
        try:
            rows = bandwidth_study([Case(args.vocab_sizes[0], args.dims[0], n) for n in REGIME_TOKENS["full"]],
                                   **study)
        except (TypeError, ValueError) as error:
            parser.error(str(error))
        print(environment_line(rows))
        print(format_study(rows))
        if args.output is not None:
            print(f"results written to {write_results(rows, args.output)}")
        return 0
    try:
        rows = run_benchmark(cases, methods=args.methods, passes=args.passes, device=device, dtype=args.dtype,
                             min_run_time=args.min_run_time, threads=args.threads, memory_budget=budget,
                             seed=args.seed, progress=not args.no_progress)
    except (TypeError, ValueError) as error:
        parser.error(str(error))

    print(environment_line(rows))
    print(f"memory budget {format_bytes(budget if budget is not None else default_memory_budget(device))}")
    print()
    print(format_table(rows))
    print()
    for pass_ in args.passes:
        for method in ("dense", "sparse"):
            for s in speedups(rows, method, pass_):
                print(f"lookup vs {method} ({pass_}) at V={s['vocab_size']:,}, d={s['embedding_dim']:,}, "
                      f"n={s['num_tokens']:,}: the lookup is {s['speedup']:,.1f}x faster")
    if "forward" in args.passes and {"lookup", "copy"} <= set(args.methods):
        for row in bandwidth_study(cases, **study):  # the lookup against a fair copy, with its spread
            print(describe_study_row(row))
    if args.output is not None:
        print(f"results written to {write_results(rows, args.output)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
