"""Notebook 6's checkers accept a right answer and reject a wrong one with a hint."""


import pytest
import torch

from utils.exercises import nb06 as exercises

TIMINGS = {1_000: {"lookup": 4e-6, "dense": 1e-4}, 50_257: {"lookup": 4e-6, "dense": 9e-3}}

def test_lookup_timings(capsys):
    assert exercises.check_lookup_timings(TIMINGS)
    assert capsys.readouterr().out == ("correct: the lookup and the dense product timed at V = 1,000 and "
                                       "V = 50,257: the lookup was the faster at both\n")
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

def test_largest_batch():
    assert exercises.check_largest_batch(697)
    with pytest.raises(exercises.ExerciseError, match="counts only the float32 one-hot"):
        exercises.check_largest_batch(2_092)
    with pytest.raises(exercises.ExerciseError, match="one too many"):
        exercises.check_largest_batch(698)
    with pytest.raises(exercises.ExerciseError, match="expected 697"):
        exercises.check_largest_batch(100)
    with pytest.raises(exercises.ExerciseError, match="must be an int"):
        exercises.check_largest_batch(697.0)
