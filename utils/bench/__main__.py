"""``python -m utils.bench sweep|bandwidth|regimes``: the benchmark's command line.

- ``sweep``: time the lookup and the dense and sparse one-hot products, forward and forward + backward
  (default: GPT-2's sizes; ``--preset quick|full``: the notebook's three sweeps);
- ``bandwidth``: the lookup beside a copy of the same bytes, its yardstick (default: GPT-2's sizes);
- ``regimes``: the same study over the tokens per call, 16 to 131,072, each size's regime.

Every run ends with its noise verdict. A bad argument gets one line and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..checks import positive_argument
from ..cli import OneLineParser
from . import bandwidth, measure, tables

GPT2 = measure.GPT2


def _sizes(text: str) -> list[int]:
    try:
        values = [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated whole numbers like 1000,50257; got {text!r}") \
            from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive whole numbers like 1000,50257; got {text!r}")
    return values


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The parser, and each subcommand's (whose errors name it)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--device", default="auto", help="auto, cpu, cuda or mps (default auto)")
    common.add_argument("--dtype", default="float32", help="the weight's dtype (default float32)")
    common.add_argument("--threads", type=int, default=1,
                        help="CPU threads for the timed calls (default 1: on a machine whose cores are shared, a "
                             "multi-threaded call can wait milliseconds for a busy core)")
    common.add_argument("--min-run-time", type=positive_argument(),
                        help="seconds per timing (default 0.5 on a CPU, 0.05 on a GPU; with --preset, the preset's)")
    common.add_argument("--repeats", type=int, default=5,
                        help="interleaved repeats of every timing (default 5): their spread is the noise verdict")
    common.add_argument("--memory-budget-gib", type=positive_argument(), help="skip what needs more (default: "
                        f"{measure.BUDGET_FRACTION * 100:.0f}%% of the available memory, at most "
                        f"{measure.MAX_DEFAULT_BUDGET / measure.GIB:.0f})")
    common.add_argument("--seed", type=int, default=0)
    common.add_argument("--output", type=Path, help="also write the rows to this .csv or .json file")
    common.add_argument("--no-progress", action="store_true", help="no progress bar")

    parser = OneLineParser(prog="python -m utils.bench", description="What the lookup saves, measured (notebook 6): "
                     "sweep, bandwidth or regimes; each ends with its noise verdict.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="{sweep,bandwidth,regimes}")
    sweep = commands.add_parser("sweep", parents=[common], help="time the lookup and the one-hot products",
                                description="Time the lookup and the dense and sparse one-hot products, forward "
                                            "and forward + backward. Default: GPT-2's sizes (V=50257, d=768, "
                                            "n=2048); the dense product takes seconds a call there.")
    study = commands.add_parser("bandwidth", parents=[common], help="the lookup against a copy of the same bytes",
                                description="The lookup of ids drawn afresh against a copy of the same bytes from "
                                            "a large buffer in turn (a cold copy), its yardstick. Default: "
                                            "GPT-2's sizes.")
    for command in (sweep, study):
        command.add_argument("--vocab-sizes", type=_sizes, default=[GPT2.vocab_size], help="comma-separated V")
        command.add_argument("--dims", type=_sizes, default=[GPT2.embedding_dim], help="comma-separated d")
        command.add_argument("--tokens", type=_sizes, default=[GPT2.num_tokens], help="comma-separated n")
    sweep.add_argument("--preset", choices=tuple(measure.PRESETS),
                       help="instead of the sizes: the notebook's three sweeps (V, d, n) of this preset")
    sweep.add_argument("--methods", nargs="+", choices=measure.METHODS, default=list(measure.METHODS))
    sweep.add_argument("--passes", nargs="+", choices=measure.PASSES, default=list(measure.PASSES))
    regimes = commands.add_parser("regimes", parents=[common], help="the bandwidth study by tokens per call",
                                  description="The bandwidth study over the tokens per call, each size's regime.")
    regimes.add_argument("--vocab-size", type=_sizes, default=[GPT2.vocab_size], help="V (default 50257)")
    regimes.add_argument("--dim", type=_sizes, default=[GPT2.embedding_dim], help="d (default 768)")
    regimes.add_argument("--tokens", type=_sizes, default=list(bandwidth.REGIME_TOKENS["full"]),
                         help="comma-separated n (default 16 to 131,072)")
    return parser, {"sweep": sweep, "bandwidth": study, "regimes": regimes}


def _cases(args: argparse.Namespace) -> list[measure.Case]:
    if args.command == "regimes":
        if len(args.vocab_size) != 1 or len(args.dim) != 1:
            raise ValueError("regimes takes one --vocab-size and one --dim")
        return [measure.Case(args.vocab_size[0], args.dim[0], n) for n in args.tokens]
    if args.command == "sweep" and args.preset:
        sweeps = measure.PRESETS[args.preset]
        return list(dict.fromkeys(case for axis in measure.SWEEP_AXES for case in sweeps.cases(axis)))  # each once
    return [measure.Case(v, d, n) for v in args.vocab_sizes for d in args.dims for n in args.tokens]


def _min_run_time(args: argparse.Namespace) -> float:
    preset = getattr(args, "preset", None)
    return measure.PRESETS[preset].min_run_time if preset else measure.default_min_run_time(args.device)


def _run(args: argparse.Namespace, settings: measure.Settings, cases: list[measure.Case]) -> list:
    if args.command == "sweep":
        rows = measure.time_methods(cases, settings, args.methods, args.passes)
        print(tables.environment_line(rows) + f", memory budget {measure.format_bytes(settings.memory_budget)}")
        print(tables.format_timings(rows))
        for pass_ in args.passes:
            for method in ("dense", "sparse"):
                for case, speedup in tables.speedups(rows, method, pass_).items():
                    faster = (f"the lookup is {speedup:,.1f}x faster" if speedup >= 1
                              else f"the {method} product is {1 / speedup:,.1f}x faster")
                    print(f"lookup vs {method} ({pass_}) at {case.label()}: {faster}")
        return rows
    rows = bandwidth.study(cases, settings)
    print(tables.environment_line(rows))
    if args.command == "regimes":
        print(tables.format_study(rows))
    else:
        for row in rows:
            print(tables.describe_study_row(row))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser, commands = _parsers()
    args = parser.parse_args(argv)
    command = commands[args.command]
    if args.output is not None and args.output.suffix.lower() not in (".csv", ".json"):
        command.error(f"--output must end in .csv or .json, got {args.output.name!r}")
    try:
        settings = measure.Settings(
            args.device, args.dtype, threads=args.threads, min_run_time=args.min_run_time or _min_run_time(args),
            repeats=args.repeats,
            memory_budget=None if args.memory_budget_gib is None else args.memory_budget_gib * measure.GIB,
            seed=args.seed, progress=not args.no_progress)
        cases = _cases(args)
    except (TypeError, ValueError, RuntimeError) as error:  # RuntimeError: a GPU asked for that is not there
        command.error(str(error))
    rows = _run(args, settings, cases)
    if all(row.status == "skipped" for row in rows):
        budget = measure.format_bytes(settings.memory_budget)
        print(f"{parser.prog} {args.command}: every case was skipped, so nothing was measured (the lines above say "
              f"why); raise --memory-budget-gib (now {budget}), or choose smaller sizes", file=sys.stderr)
        return 1
    print(tables.verdict(rows))
    if args.output is not None:
        print(f"results written to {tables.write_results(rows, args.output)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
