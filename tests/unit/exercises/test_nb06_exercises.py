"""Notebook 6's checkers accept a right answer and reject a wrong one with a hint."""


import pytest
import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

from utils.exercises import nb06 as exercises

TIMINGS = {1_000: {"lookup": 4e-6, "dense": 1e-4}, 50_257: {"lookup": 4e-6, "dense": 9e-3}}

def test_lookup_timings(capsys):
    assert exercises.check_lookup_timings(TIMINGS)
    assert capsys.readouterr().out == ("correct: the lookup and the dense product timed at two vocabulary sizes "
                                       "at least 10 times apart: the lookup was the faster at both\n")
    swapped = {v: {"lookup": t["dense"], "dense": t["lookup"]} for v, t in TIMINGS.items()}
    with pytest.raises(exercises.ExerciseError, match="at V = 1,000 the dense product .* Hint: are the two swapped"):
        exercises.check_lookup_timings(swapped)
    with pytest.raises(exercises.ExerciseError, match=r"1 vocabulary size\(s\), \[1000\]; time both methods at two"):
        exercises.check_lookup_timings({1_000: TIMINGS[1_000]})
    with pytest.raises(exercises.ExerciseError, match="V = 100 is below 1,000"):
        exercises.check_lookup_timings({100: TIMINGS[1_000], 50_257: TIMINGS[50_257]})
    with pytest.raises(exercises.ExerciseError, match="less than 10x apart"):
        exercises.check_lookup_timings({1_000: TIMINGS[1_000], 3_000: TIMINGS[50_257]})
    with pytest.raises(exercises.ExerciseError, match=r"has keys \['lookup'\]; expected 'lookup' and 'dense'"):
        exercises.check_lookup_timings({1_000: {"lookup": 4e-6}, 50_257: TIMINGS[50_257]})
    with pytest.raises(exercises.ExerciseError, match="each time must be a positive number of seconds"):
        exercises.check_lookup_timings({1_000: {"lookup": 0.0, "dense": 1e-4}, 50_257: TIMINGS[50_257]})
    with pytest.raises(TypeError, match=r"timings must be a dict \{V: \{'lookup': seconds, 'dense': seconds\}\}, "
                                        "got list"):
        exercises.check_lookup_timings([4e-6, 1e-4])
    with pytest.raises(TypeError, match="must be a number of seconds, got str"):
        exercises.check_lookup_timings({1_000: {"lookup": "fast", "dense": 1e-4}, 50_257: TIMINGS[50_257]})
    with pytest.raises(TypeError, match=r"keys of timings must be vocabulary sizes \(ints\), got '1000'"):
        exercises.check_lookup_timings({"1000": TIMINGS[1_000], 50_257: TIMINGS[50_257]})

@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
def test_sparse_one_hot():
    ids = torch.tensor([4, 1, 4, 0, 2])
    right = torch.sparse_coo_tensor(torch.stack([torch.arange(5), ids]), torch.ones(5), (5, 6), check_invariants=True)
    assert exercises.check_sparse_one_hot(right, ids, 6)
    assert exercises.check_sparse_one_hot(right.to_sparse_csr(), ids, 6)  # CSR is fine too
    swapped = torch.sparse_coo_tensor(torch.stack([ids, torch.arange(5)]), torch.ones(5), (6, 5),
                                      check_invariants=True)
    with pytest.raises(exercises.ExerciseError, match=r"shape \(6, 5\), expected \(5, 6\)"):
        exercises.check_sparse_one_hot(swapped, ids, 6)
    wrong_columns = torch.sparse_coo_tensor(torch.stack([torch.arange(5), ids.flip(0)]), torch.ones(5), (5, 6),
                                            check_invariants=True)
    with pytest.raises(exercises.ExerciseError, match="does not return W\\[ids\\]"):
        exercises.check_sparse_one_hot(wrong_columns, ids, 6)
    with pytest.raises(exercises.ExerciseError, match="it is dense"):
        exercises.check_sparse_one_hot(right.to_dense(), ids, 6)
    with pytest.raises(exercises.ExerciseError, match="a single nonzero per row"):
        exercises.check_sparse_one_hot(torch.ones(5, 6).to_sparse(), ids, 6)
    with pytest.raises(exercises.ExerciseError, match="must be a torch.Tensor"):
        exercises.check_sparse_one_hot([[0, 1]], ids, 6)

def _counted_by_the_counter(sizes):
    n, V, d = sizes
    ids, weight = torch.randint(0, V, (n,)), torch.randn(V, d, requires_grad=True)
    counted = {}
    for name, forward in {"dense": lambda: F.one_hot(ids, V).float() @ weight,
                          "lookup": lambda: F.embedding(ids, weight)}.items():
        with FlopCounterMode(display=False) as counter:
            forward().backward(torch.ones(n, d))
        counted[name] = counter.get_total_flops()
    return counted


def test_counted_flops(capsys):
    sizes = (32, 2_000, 8)
    right = _counted_by_the_counter(sizes)
    assert exercises.check_counted_flops(sizes, right)
    assert capsys.readouterr().out == ("correct: the FLOPs of the dense product and of the lookup, forward and "
                                       "backward, counted again at your sizes\n")
    assert exercises.check_counted_flops((10**6, 10**6, 10**4), {"dense": 4 * 10**16, "lookup": 0})  # any size
    with pytest.raises(exercises.ExerciseError, match="it counted the forward only"):
        exercises.check_counted_flops(sizes, {**right, "dense": right["dense"] // 2})
    with pytest.raises(exercises.ExerciseError, match=r"Hint: are `sizes` the sizes you ran, in the order \(n, V, d\)"):
        exercises.check_counted_flops((8, 2_000, 32), {**right, "dense": right["dense"] + 1})
    with pytest.raises(exercises.ExerciseError, match="is not the counter's count for a lookup"):
        exercises.check_counted_flops(sizes, {**right, "lookup": right["dense"]})
    with pytest.raises(exercises.ExerciseError, match="keys 'dense' and 'lookup'"):
        exercises.check_counted_flops(sizes, {"dense": right["dense"]})
    with pytest.raises(TypeError, match=r"counted\['dense'\] must be an int"):
        exercises.check_counted_flops(sizes, {**right, "dense": float(right["dense"])})
    with pytest.raises(TypeError, match=r"sizes must be a tuple \(n, V, d\)"):
        exercises.check_counted_flops([32, 2_000, 8], right)
    with pytest.raises(ValueError, match="sizes' V must be >= 1, got 0"):
        exercises.check_counted_flops((32, 0, 8), right)
