"""The vocabulary-parallel embedding, run on real processes (gloo): one launch per world size."""

import pytest
import torch

from utils import distributed as D


@pytest.mark.parametrize("world_size", [1, 2, 3])
def test_parallel_run_equals_one_device_exactly(world_size):
    spec = D.ProblemSpec(vocab_size=11, dim=5, batch=3, seq_len=16, seed=world_size)  # 11: uneven for P = 2, 3
    start_method = "spawn" if world_size == 1 else None  # spawn once, the default (forkserver) otherwise
    results = D.run_vocab_parallel(spec, world_size, timeout_s=30, start_method=start_method)
    output, weight_grad = D.single_device_reference(spec)
    assert [r.rank for r in results] == list(range(world_size))
    assert [(r.start, r.end) for r in results] == D.shard_bounds(11, world_size)
    for r in results:
        assert r.backend == "gloo" and r.world_size == world_size
        assert torch.equal(r.output, output)  # forward: every rank holds the whole result
        assert torch.equal(r.weight_grad, weight_grad[r.start:r.end])  # backward: its slice
        assert r.shard_bytes == (r.end - r.start) * 5 * 4
    assert sum(r.owned for r in results) == 3 * 16
    assert D.compare_with_single_device(results, (output, weight_grad)) == {
        "forward": True, "backward": True, "gradients_cover_table": True}


def test_command_line_starts_processes(capsys):
    assert D.main(["--nproc", "2", "--vocab-size", "7", "--dim", "3", "--timeout", "30"]) == 0
    out = capsys.readouterr().out
    assert "2 processes (gloo)" in out and "rank 1: rows [4, 7)" in out
    assert "forward equal on every rank: True; gradients equal the single-device slices: True" in out
