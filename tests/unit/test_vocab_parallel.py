"""The vocabulary-parallel embedding within one process: the split, one process's share, the layer, the cost.

Runs on real processes are in tests/processes/; the launcher's own checks are in test_launcher.py.
"""

import pytest
import torch
import torch.distributed as dist
import torch.nn.functional as F

from utils import vocab_parallel as D
from utils.distributed import launcher as L
from utils.distributed.vocab_parallel_run import ProblemSpec, make_problem


@pytest.mark.parametrize(
    ("vocab_size", "world_size", "expected"),
    [
        (11, 1, [(0, 11)]),
        (11, 2, [(0, 6), (6, 11)]),
        (11, 3, [(0, 4), (4, 8), (8, 11)]),
        (12, 3, [(0, 4), (4, 8), (8, 12)]),
        (3, 3, [(0, 1), (1, 2), (2, 3)]),
    ],
)
def test_shard_bounds(vocab_size, world_size, expected):
    assert D.shard_bounds(vocab_size, world_size) == expected


def test_shard_bounds_cover_the_vocabulary_evenly():
    for vocab_size in range(1, 40):
        for world_size in range(1, vocab_size + 1):
            bounds = D.shard_bounds(vocab_size, world_size)
            assert bounds[0][0] == 0 and bounds[-1][1] == vocab_size
            assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:], strict=False))
            sizes = [end - start for start, end in bounds]
            assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)


def test_shard_bounds_rejects_bad_sizes():
    with pytest.raises(ValueError, match="world_size 4 is larger than vocab_size 3: every process must hold"):
        D.shard_bounds(3, 4)
    with pytest.raises(ValueError, match="world_size must be >= 1, got 0"):
        D.shard_bounds(3, 0)
    with pytest.raises(TypeError, match="vocab_size must be an int, got float"):
        D.shard_bounds(3.0, 1)


def test_shard_of_is_one_block_of_shard_bounds():
    for world_size in range(1, 12):
        assert [D.shard_of(11, world_size, rank) for rank in range(world_size)] == D.shard_bounds(11, world_size)
    with pytest.raises(ValueError, match=r"rank 3 is out of range for world_size 3 \(valid ranks: 0..2\)"):
        D.shard_of(10, 3, 3)
    with pytest.raises(ValueError, match="rank must be >= 0, got -1"):
        D.shard_of(10, 3, -1)
    with pytest.raises(ValueError, match="world_size 4 is larger than vocab_size 3"):
        D.shard_of(3, 4, 0)


def test_owner_of():
    ids = torch.tensor([[0, 3, 4], [7, 8, 10]])
    assert torch.equal(D.owner_of(ids, 11, 3), torch.tensor([[0, 0, 1], [1, 2, 2]]))
    with pytest.raises(ValueError, match="token id 11 is out of range for a vocabulary of 11"):
        D.owner_of(torch.tensor([11]), 11, 3)


@pytest.fixture
def problem():
    return make_problem(ProblemSpec(vocab_size=13, dim=3, batch=4, seq_len=9, seed=1))


def test_local_lookups_sum_to_the_full_lookup_exactly(problem):
    weight, ids, _ = problem
    for world_size in range(1, 6):
        partials = [D.local_lookup(ids, weight[s:e], s) for s, e in D.shard_bounds(13, world_size)]
        for (s, e), partial in zip(D.shard_bounds(13, world_size), partials, strict=True):
            owned = (ids >= s) & (ids < e)
            assert torch.equal(partial[owned], weight[ids[owned]])
            assert not partial[~owned].any()  # the masked rows are zeros
        assert torch.equal(sum(partials), F.embedding(ids, weight))


def test_local_gradients_are_slices_of_the_single_device_gradient(problem):
    weight, ids, grad_out = problem
    full = weight.clone().requires_grad_()
    (F.embedding(ids, full) * grad_out).sum().backward()
    for start, end in D.shard_bounds(13, 3):
        local = weight[start:end].clone().requires_grad_()
        # the all-reduce's backward is the identity: each process sees grad_out as it is
        (D.local_lookup(ids, local, start) * grad_out).sum().backward()
        assert torch.equal(local.grad, full.grad[start:end])


def test_the_layer_on_one_process_is_an_embedding(problem):
    weight, ids, _ = problem
    layer = D.VocabParallelEmbedding(weight, rank=0, world_size=1)
    assert torch.equal(layer(ids), F.embedding(ids, weight))
    shard = D.VocabParallelEmbedding(weight, rank=2, world_size=3)
    assert (shard.start, shard.end) == (9, 13) and torch.equal(shard.weight, weight[9:13])  # 13 = 5 + 4 + 4
    assert shard.weight.data_ptr() != weight.data_ptr() and shard.weight.is_leaf  # a copy, its own parameter
    with pytest.raises(ValueError, match="token id 13 is out of range for a vocabulary of 13"):
        layer(torch.tensor([13]))


def test_the_layer_rejects_bad_arguments():
    with pytest.raises(ValueError, match=r"rank 3 is out of range for world_size 3 \(valid ranks: 0..2\)"):
        D.VocabParallelEmbedding(torch.zeros(10, 2), rank=3, world_size=3)
    layer = D.VocabParallelEmbedding(torch.zeros(10, 2), rank=0, world_size=2)
    with pytest.raises(RuntimeError, match=r"needs a process group: run it in the processes that launch starts"):
        layer(torch.tensor([0]))


def test_process_group_is_destroyed_even_after_an_error(problem):
    weight, ids, grad_out = problem
    init = f"tcp://{L.LOOPBACK}:{L.free_port()}"
    with pytest.raises(KeyError, match="boom"):
        with L.process_group(0, 1, backend="gloo", init_method=init, timeout_s=10):
            assert dist.is_initialized() and dist.get_world_size() == 1
            layer = D.VocabParallelEmbedding(weight, 0, 1)
            out = layer(ids)  # a real all_reduce, over one process
            (out * grad_out).sum().backward()
            assert torch.equal(out, F.embedding(ids, weight))
            raise KeyError("boom")
    assert not dist.is_initialized()


def test_all_reduce_sum_is_an_all_reduce_forward_and_the_identity_backward():
    init = f"tcp://{L.LOOPBACK}:{L.free_port()}"
    with L.process_group(0, 1, backend="gloo", init_method=init, timeout_s=10):
        partial = torch.tensor([1.0, -2.0], requires_grad=True)
        total = D.all_reduce_sum(partial)
        assert torch.equal(total, partial) and total.data_ptr() != partial.data_ptr()  # a copy, summed over 1
        (total * torch.tensor([3.0, 5.0])).sum().backward()
        assert torch.equal(partial.grad, torch.tensor([3.0, 5.0]))  # the gradient, passed on unchanged
    with pytest.raises(RuntimeError, match="all_reduce_sum needs a process group"):
        D.all_reduce_sum(torch.zeros(2))
