"""Notebook 8's run, within one process: the seeded problem, the command line's checks, one rank under torchrun.

Runs on real processes are in tests/processes/.
"""

import pytest
import torch
import torch.distributed as dist

from utils.distributed import launcher as L
from utils.distributed import vocab_parallel_run as R
from utils.distributed.__main__ import main


def test_problem_spec_is_checked_and_seeded():
    with pytest.raises(ValueError, match="vocab_size must be >= 1, got 0"):
        R.ProblemSpec(vocab_size=0)
    a, b = R.make_problem(R.ProblemSpec()), R.make_problem(R.ProblemSpec())
    assert all(torch.equal(x, y) for x, y in zip(a, b, strict=True))
    with pytest.raises(TypeError, match="spec must be a ProblemSpec, got dict"):
        R.run_vocab_parallel({}, 2)
    with pytest.raises(ValueError, match="world_size 12 is larger than vocab_size 11"):
        R.run_vocab_parallel(R.ProblemSpec(), 12)


def test_chunk_gives_every_rank_rows():
    # torch.chunk's split, ceil(V / P) rows each: 11 rows over 5 processes is 3 + 3 + 3 + 2 + 0
    assert [P for P in range(1, 12) if not R.chunk_gives_every_rank_rows(11, P)] == [5, 7, 8, 9, 10]
    assert all(R.chunk_gives_every_rank_rows(12, P) for P in (1, 2, 3, 4, 6, 12))
    with pytest.raises(ValueError, match="world_size must be >= 1, got 0"):
        R.chunk_gives_every_rank_rows(11, 0)


def test_rowwise_parallel_says_in_one_line_what_an_old_pytorch_lacks(monkeypatch):
    monkeypatch.setattr(R, "ROWWISE_AVAILABLE", False)
    with pytest.raises(RuntimeError, match=r"^RowwiseParallel needs the public torch.distributed.tensor \(PyTorch 2.5 "
                                           r"or newer\); this is PyTorch \S+$"):
        R.run_rowwise_parallel(R.ProblemSpec(), 2)
    with pytest.raises(TypeError, match="spec must be a ProblemSpec, got dict"):
        R.run_rowwise_parallel({}, 2)


def test_rowwise_parallel_is_importable_exactly_where_torch_has_its_public_api():
    major, minor = (int(part) for part in torch.__version__.split(".")[:2])
    assert R.ROWWISE_AVAILABLE == ((major, minor) >= (2, 5))


def test_command_line_under_torchrun_runs_one_rank(monkeypatch, capsys):
    env = {"RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0", "MASTER_ADDR": L.LOOPBACK,
           "MASTER_PORT": str(L.free_port())}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["--vocab-size", "9"]) == 0
    assert capsys.readouterr().out == "rank 0 of 1 (gloo): rows [0, 9), forward exact: True, backward exact: True\n"
    assert not dist.is_initialized()


@pytest.mark.parametrize(("argv", "message"), [
    (["--nproc", "0"], "argument --nproc: expected a whole number >= 1, got 0"),
    (["--nproc", "two"], "argument --nproc: expected a whole number, got 'two'"),
    (["--timeout", "nan"], "argument --timeout: expected a positive, finite number of seconds, got 'nan'"),
    (["--nproc", "12", "--vocab-size", "11"], "world_size 12 is larger than vocab_size 11"),
    (["--device", "tpu"], "argument --device: invalid choice: 'tpu'"),
])
def test_command_line_reports_bad_arguments_in_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
