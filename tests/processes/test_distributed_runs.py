"""The vocabulary-parallel embedding, run on real processes (gloo): one launch per world size.

Starting processes can take minutes on a busy machine, so every collective and launcher timeout
here is an hour (NO_BOUND_S): pytest-timeout's limit (pyproject.toml: 600 s) is the guard against a hang.
"""

import functools
import subprocess
import sys

import pytest
import torch

from tools.manifest import ROOT
from utils import vocab_parallel
from utils.distributed import vocab_parallel_run as D
from utils.distributed.__main__ import main
from utils.distributed.launcher import launch
from utils.exercises import nb08 as exercises
from utils.exercises.checking import ExerciseError

NO_BOUND_S = 3600  # longer than pytest-timeout's 600 s


@pytest.mark.parametrize("world_size", [1, 2, 3])
def test_parallel_run_equals_one_device_exactly(world_size):
    spec = D.ProblemSpec(vocab_size=11, dim=5, batch=3, seq_len=16, seed=world_size)  # 11: uneven for P = 2, 3
    start_method = "spawn" if world_size == 1 else None  # spawn once, the default (forkserver) otherwise
    results = D.run_vocab_parallel(spec, world_size, timeout_s=NO_BOUND_S, start_method=start_method)
    output, weight_grad = D.single_device_reference(spec)
    assert [r.rank for r in results] == list(range(world_size))
    assert [(r.start, r.end) for r in results] == vocab_parallel.shard_bounds(11, world_size)
    for r in results:
        assert r.backend == "gloo" and r.world_size == world_size
        assert torch.equal(r.output, output)  # forward: every rank holds the whole result
        assert torch.equal(r.weight_grad, weight_grad[r.start:r.end])  # backward: its slice
        assert r.shard_bytes == (r.end - r.start) * 5 * 4
    _, ids, _ = D.make_problem(spec)
    assert torch.equal(sum(r.owned.int() for r in results), torch.ones_like(ids, dtype=torch.int))  # one owner each
    for r in results:
        assert torch.equal(r.owned, (ids >= r.start) & (ids < r.end))
        assert torch.equal(r.partial, vocab_parallel.local_lookup(ids, D.make_problem(spec)[0][r.start:r.end], r.start))
    assert torch.equal(sum(r.partial for r in results), output)  # the all-reduce adds the partials
    assert D.compare_with_single_device(results, (output, weight_grad)) == {
        "forward": True, "backward": True, "gradients_cover_table": True}


@pytest.mark.parametrize("world_size", [1, 3])
def test_a_backward_that_all_reduces_too_gives_p_times_the_gradient(world_size):
    """Going deeper's mistake, on real processes: every weight gradient is P times its single-device slice."""
    spec = D.ProblemSpec(vocab_size=11, dim=4, batch=2, seq_len=6, seed=world_size)
    weight, ids, grad_out = D.make_problem(spec)
    grads = launch(D.all_reduced_backward_step, world_size, args=(weight, ids, grad_out), timeout_s=NO_BOUND_S)
    _, weight_grad = D.single_device_reference(spec)
    assert [len(g) for g in grads] == [e - s for s, e in vocab_parallel.shard_bounds(11, world_size)]
    assert torch.equal(torch.cat(grads), world_size * weight_grad) and weight_grad.any()


@pytest.mark.parametrize("world_size", [1, 3])
def test_with_the_loss_on_rank_0_alone_only_the_all_reducing_backward_is_right(world_size):
    """Exercise 8.3, on real processes: the identity leaves every other rank a zero gradient; the all-reduce in the
    backward gives every rank its slice of the single-device gradient."""
    spec = D.ProblemSpec(vocab_size=11, dim=4, batch=2, seq_len=6, seed=world_size)
    weight, ids, grad_out = D.make_problem(spec)
    grads = launch(D.loss_on_rank_0_step, world_size, args=(weight, ids, grad_out), timeout_s=NO_BOUND_S)
    _, weight_grad = D.single_device_reference(spec)
    bounds = vocab_parallel.shard_bounds(11, world_size)
    for rank, ((identity, all_reduced), (start, end)) in enumerate(zip(grads, bounds, strict=True)):
        assert torch.equal(identity, weight_grad[start:end] if rank == 0 else torch.zeros(end - start, 4))
        assert torch.equal(all_reduced, weight_grad[start:end])
    assert weight_grad[bounds[-1][0]:].any()  # the last rank's slice is not all zeros: the comparison means something


def test_exercise_8_3s_checker_measures_on_four_processes(capsys, monkeypatch):
    # one launch of the 4 processes, by the first call, judges both answers; with the hour's timeouts
    monkeypatch.setattr(exercises, "launch", functools.partial(launch, timeout_s=NO_BOUND_S))
    monkeypatch.setattr(exercises, "loss_on_rank_0_gradients", functools.cache(exercises.loss_on_rank_0_gradients))
    assert exercises.check_loss_on_rank_0(0, 1) is None
    assert capsys.readouterr().out.startswith("correct: both multiples match what 4 real processes measured")
    with pytest.raises(ExerciseError, match="all_reduce_factor = 4 is not what 4 processes measured"):
        exercises.check_loss_on_rank_0(0, 4)


@pytest.mark.skipif(not D.ROWWISE_AVAILABLE, reason=f"RowwiseParallel needs {D.ROWWISE_NEEDS}")
@pytest.mark.parametrize("world_size", [2, 3])
def test_rowwise_parallel_gives_the_same_result_as_the_layer(world_size):
    spec = D.ProblemSpec(vocab_size=11, dim=4, batch=2, seq_len=6, seed=0)
    results = D.run_rowwise_parallel(spec, world_size, timeout_s=NO_BOUND_S)
    output, weight_grad = D.single_device_reference(spec)
    assert [r.rank for r in results] == list(range(world_size))
    assert [r.rows for r in results] == [e - s for s, e in vocab_parallel.shard_bounds(11, world_size)]  # V = 11
    for r in results:
        assert torch.equal(r.output, output) and torch.equal(r.full_grad, weight_grad)
        assert "Shard(dim=0)" in r.placements


@pytest.mark.skipif(not D.ROWWISE_AVAILABLE, reason=f"RowwiseParallel needs {D.ROWWISE_NEEDS}")
def test_rowwise_parallel_refuses_a_split_that_leaves_a_process_no_rows():
    with pytest.raises(ValueError, match="torch.chunk's split of 11 rows leaves one of 5 processes without rows"):
        D.run_rowwise_parallel(D.ProblemSpec(vocab_size=11), 5)


def test_command_line_starts_processes(capsys):
    assert main(["--nproc", "2", "--vocab-size", "7", "--dim", "3", "--timeout", str(NO_BOUND_S)]) == 0
    out = capsys.readouterr().out
    assert "2 processes (gloo)" in out and "rank 1: rows [4, 7)" in out
    assert "forward equal on every rank: True; gradients equal the single-device slices: True" in out


def test_python_dash_m_runs_the_check_without_rerunning_itself():
    """``python -m utils.distributed``: the workers import their function from its own module, and
    the results unpickle as its classes (no ``__main__`` trick)."""
    result = subprocess.run([sys.executable, "-m", "utils.distributed", "--nproc", "2", "--vocab-size", "7",
                             "--timeout", str(NO_BOUND_S)], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "rank 1: rows [4, 7)" in result.stdout and result.stderr == ""


def test_notebook_8s_script_of_what_launch_does_runs_and_prints_what_it_says(tmp_path):
    """Notebook 8's Going deeper shows, as a script it does not run, what `launch` does: it must run as shown
    (its fixed port swapped for a free one), and each rank prints the sum, 3.0 (1 + 2), as the page says."""
    import re

    import nbformat

    from tools.manifest import NOTEBOOKS
    from utils.distributed.launcher import free_port

    cell = next(c for c in nbformat.read(NOTEBOOKS[8].path, as_version=4).cells if c.get("id") == "gpu-intro")
    [script] = re.findall(r"```python\n(.*?)```", cell.source, re.S)
    assert "prints the sum" in cell.source and ":29500" in script
    path = tmp_path / "all_reduce_script.py"
    path.write_text(script.replace(":29500", f":{free_port()}"), encoding="utf-8")
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=NO_BOUND_S)
    assert run.returncode == 0, run.stderr
    # two processes print to one pipe: a line from one can land inside the other's, so match the lines' text
    assert sorted(re.findall(r"rank \d: [\d.]+", run.stdout)) == ["rank 0: 3.0", "rank 1: 3.0"]
