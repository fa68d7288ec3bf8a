"""``python -m utils.distributed``: check the vocabulary-parallel embedding against one device.

It starts ``--nproc`` processes itself (CPU, gloo), or runs as one rank under ``torchrun``
(one process per GPU, NCCL)::

    python -m utils.distributed --nproc 3
    torchrun --nproc-per-node 2 -m utils.distributed --device cuda

The workers import their function from :mod:`utils.distributed.vocab_parallel_run`, a
module of its own, so starting them never runs this file again.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..checks import positive_argument
from ..cli import OneLineParser
from .launcher import DEFAULT_TIMEOUT_S, WorkerError, backend_for, process_group
from .vocab_parallel_run import (
    ProblemSpec,
    compare_with_single_device,
    run_vocab_parallel,
    single_device_reference,
    vocab_parallel_worker,
)


def _under_torchrun() -> bool:
    return all(name in os.environ for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"))


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(
        prog="python -m utils.distributed",
        description="Check a vocabulary-parallel embedding against one device, forward and backward. "
                    "Starts --nproc processes itself, or runs as one rank under torchrun.")
    parser.add_argument("--nproc", type=_positive, default=2, help="processes to start (ignored under torchrun)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="cpu: gloo; cuda: NCCL")
    parser.add_argument("--vocab-size", type=_positive, default=1_001)
    parser.add_argument("--dim", type=_positive, default=16)
    parser.add_argument("--batch", type=_positive, default=4)
    parser.add_argument("--seq-len", type=_positive, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=positive_argument("seconds"), default=DEFAULT_TIMEOUT_S,
                        help="seconds a collective may wait")
    args = parser.parse_args(argv)
    try:
        spec = ProblemSpec(args.vocab_size, args.dim, args.batch, args.seq_len, args.seed)
        if _under_torchrun():
            rank, world_size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
            backend = backend_for(args.device, int(os.environ.get("LOCAL_WORLD_SIZE", world_size)))
            with process_group(rank, world_size, backend=backend, timeout_s=args.timeout):
                result = vocab_parallel_worker(rank, world_size, spec)
                device = "cuda" if backend == "nccl" else "cpu"
                checks = compare_with_single_device([result], single_device_reference(spec, device))
            print(f"rank {rank} of {world_size} ({backend}): rows [{result.start}, {result.end}), "
                  f"forward exact: {checks['forward']}, backward exact: {checks['backward']}", flush=True)
            return 0 if checks["forward"] and checks["backward"] else 1
        results = run_vocab_parallel(spec, args.nproc, device=args.device, timeout_s=args.timeout)
    except (TypeError, ValueError) as error:  # sizes that cannot be split, a GPU that is not there
        parser.error(str(error))
    except (WorkerError, TimeoutError) as error:
        print(f"{parser.prog}: the run failed: {error}", file=sys.stderr)
        return 1
    checks = compare_with_single_device(results, single_device_reference(spec, args.device))
    print(f"V={spec.vocab_size}, d={spec.dim}, ids {spec.batch}x{spec.seq_len}, "
          f"{args.nproc} processes ({results[0].backend})")
    for r in results:
        rows, size = r.end - r.start, r.shard_bytes // ((r.end - r.start) * spec.dim)  # size: bytes per number
        print(f"  rank {r.rank}: rows [{r.start}, {r.end}), looked up {int(r.owned.sum())} ids; its weight: "
              f"{rows} rows x {spec.dim} numbers x {size} bytes = {r.shard_bytes:,} bytes")
    print(f"forward equal on every rank: {checks['forward']}; "
          f"gradients equal the single-device slices: {checks['backward']}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
