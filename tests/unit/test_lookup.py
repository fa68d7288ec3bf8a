import pytest
import torch
import torch.nn.functional as F

from utils.lookup import check_ids, lookup, one_hot, one_hot_multiply_adds


def one_hot_matmul(ids, weight):
    """The product that notebook 1 writes out: one-hot rows times the table."""
    return one_hot(ids, weight.shape[0], weight.dtype) @ weight


@pytest.fixture
def weight():
    return torch.randn(5, 3, generator=torch.Generator().manual_seed(0))


def test_one_hot_matmul_equals_lookup_exactly_for_any_shape(weight):
    for ids in (torch.tensor(2), torch.tensor([0, 4, 4]), torch.tensor([[1, 2], [3, 0]])):
        out = one_hot_matmul(ids, weight)
        assert out.shape == ids.shape + (3,)
        assert torch.equal(out, lookup(ids, weight))
        assert torch.equal(out, weight[ids])


def test_one_hot_casts_to_the_requested_dtype():
    x = one_hot(torch.tensor([1, 0]), 3, torch.float64)
    assert x.dtype == torch.float64
    assert torch.equal(x, F.one_hot(torch.tensor([1, 0]), 3).double())


def test_int32_ids_are_accepted(weight):
    assert torch.equal(lookup(torch.tensor([1], dtype=torch.int32), weight), weight[[1]])


def test_out_of_range_id_gets_a_clear_message(weight):
    with pytest.raises(ValueError) as info:
        lookup(torch.tensor([0, 7]), weight)
    assert str(info.value) == "token id 7 is out of range for a vocabulary of 5 (valid ids: 0..4)"
    with pytest.raises(ValueError, match="token id -1 is out of range"):
        one_hot_matmul(torch.tensor([-1]), weight)


def test_float_and_non_tensor_ids_are_rejected():
    with pytest.raises(TypeError, match=r"ids must have an integer dtype \(torch.long is usual\), got torch.float32"):
        check_ids(torch.tensor([1.0]), 5)
    with pytest.raises(TypeError, match="ids must be a torch.Tensor of integer token ids, got list"):
        check_ids([1, 2], 5)
    with pytest.raises(TypeError, match="integer dtype"):
        check_ids(torch.tensor([True]), 5)


def test_bad_vocabulary_size_and_weight():
    with pytest.raises(ValueError, match="num_embeddings must be >= 1, got 0"):
        check_ids(torch.tensor([0]), 0)
    with pytest.raises(TypeError, match="num_embeddings must be an int, got float"):
        check_ids(torch.tensor([0]), 5.0)
    with pytest.raises(ValueError, match=r"weight must be 2-D .* got shape \(5,\)"):
        lookup(torch.tensor([0]), torch.zeros(5))
    with pytest.raises(TypeError, match="weight must be a floating-point tensor, got torch.int64"):
        lookup(torch.tensor([0]), torch.zeros(5, 2, dtype=torch.long))


def test_empty_ids_are_fine(weight):
    assert lookup(torch.tensor([], dtype=torch.long), weight).shape == (0, 3)


def test_multiply_add_count_matches_pytorchs_flop_counter(weight):
    from torch.utils.flop_counter import FlopCounterMode

    ids = torch.tensor([0, 1, 2, 3])
    count = one_hot_multiply_adds(4, 5, 3)
    with FlopCounterMode(display=False) as counter:
        one_hot_matmul(ids, weight)
    assert counter.get_total_flops() == 2 * count.total
    assert (count.total, count.useful) == (60, 12)
    assert count.useful_fraction == pytest.approx(1 / 5)
    assert one_hot_multiply_adds(0, 5, 3).useful_fraction == 0.0


def test_multiply_adds_rejects_negative_sizes():
    with pytest.raises(ValueError, match="num_tokens must be >= 0, got -1"):
        one_hot_multiply_adds(-1, 5, 3)
    with pytest.raises(ValueError, match="vocab_size must be >= 1, got 0"):
        one_hot_multiply_adds(1, 0, 3)
    with pytest.raises(TypeError, match="embedding_dim must be an int, got str"):
        one_hot_multiply_adds(1, 5, "3")


# --- Notebooks 2 and 3: every integer dtype that check_ids accepts also works in lookup ---


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64])
def test_lookup_accepts_every_integer_dtype_check_ids_accepts(weight, dtype):
    ids = torch.tensor([[4, 0], [2, 2]], dtype=dtype)
    assert torch.equal(lookup(ids, weight), weight[ids.long()])
    assert torch.equal(lookup(ids, weight), one_hot_matmul(ids, weight))
