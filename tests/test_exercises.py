"""Every checker accepts a right answer and rejects a wrong one with a hint."""

import pytest
import torch

from utils import exercises
from utils.vocab import build_vocab, tokenize

VOCAB = build_vocab("The cat sat on the mat. The dog sat on the log.")


def test_encode_function_right(capsys):
    def encode(sentence):
        return torch.tensor([VOCAB.stoi.get(t, VOCAB.unk_id) for t in tokenize(sentence)], dtype=torch.long)

    assert exercises.check_encode_function(encode, VOCAB) is True
    assert capsys.readouterr().out.startswith("correct:")


@pytest.mark.parametrize(
    ("encode", "message"),
    [
        (lambda s: torch.tensor([VOCAB.stoi.get(t, 0) for t in tokenize(s)], dtype=torch.long), "Hint: tokenize"),
        (lambda s: [VOCAB.stoi.get(t, 1) for t in tokenize(s)], "returned list; return a torch.Tensor"),
        (lambda s: torch.tensor([VOCAB.stoi.get(t, 1) for t in tokenize(s)], dtype=torch.int32), "torch.long"),
        (lambda s: torch.tensor([VOCAB.stoi.get(t, 1) for t in s.split()], dtype=torch.long), "expected"),
        ("not a function", "pass your function itself"),
    ],
)
def test_encode_function_wrong(encode, message):
    with pytest.raises(exercises.ExerciseError, match=message):
        exercises.check_encode_function(encode, VOCAB)


def test_gpt2_multiply_adds():
    assert exercises.check_gpt2_multiply_adds(1024 * 50_257 * 768, 1024 * 768)
    with pytest.raises(exercises.ExerciseError, match="that is the FLOP count"):
        exercises.check_gpt2_multiply_adds(2 * 1024 * 50_257 * 768, 1024 * 768)
    with pytest.raises(exercises.ExerciseError, match="useful = 768, expected 786432"):
        exercises.check_gpt2_multiply_adds(1024 * 50_257 * 768, 768)
    with pytest.raises(AssertionError):  # ExerciseError is an AssertionError
        exercises.check_gpt2_multiply_adds(0, 1024 * 768)


def test_selection_matrix():
    weight = torch.randn(6, 3, generator=torch.Generator().manual_seed(1))
    right = torch.zeros(3, 6)
    right[[0, 1, 2], [3, 0, 3]] = 1.0
    assert exercises.check_selection_matrix(right, weight, [3, 0, 3])

    wrong_rows = torch.zeros(3, 6)
    wrong_rows[[0, 1, 2], [0, 3, 3]] = 1.0
    with pytest.raises(exercises.ExerciseError, match=r"x selects rows \[0, 3, 3\], expected \[3, 0, 3\]"):
        exercises.check_selection_matrix(wrong_rows, weight, [3, 0, 3])
    with pytest.raises(exercises.ExerciseError, match="dtype torch.int64"):
        exercises.check_selection_matrix(right.long(), weight, [3, 0, 3])
    with pytest.raises(exercises.ExerciseError, match=r"shape \(6, 3\), expected \(3, 6\)"):
        exercises.check_selection_matrix(right.T, weight, [3, 0, 3])
    with pytest.raises(exercises.ExerciseError, match="single 1"):
        exercises.check_selection_matrix(right * 2, weight, [3, 0, 3])
    with pytest.raises(exercises.ExerciseError, match="must be a torch.Tensor"):
        exercises.check_selection_matrix(right.tolist(), weight, [3, 0, 3])


# --- Notebook 6: what the lookup saves, measured ---------------------------------------


def test_dense_costs():
    assert exercises.check_dense_costs(2 * 2048 * 50_257 * 768, 2048 * 50_257 * 4)
    with pytest.raises(exercises.ExerciseError, match="that counts multiply-adds"):
        exercises.check_dense_costs(2048 * 50_257 * 768, 2048 * 50_257 * 4)
    with pytest.raises(exercises.ExerciseError, match="int64 tensor F.one_hot returns"):
        exercises.check_dense_costs(2 * 2048 * 50_257 * 768, 2048 * 50_257 * 8)
    with pytest.raises(exercises.ExerciseError, match="n rows of V entries"):
        exercises.check_dense_costs(2 * 2048 * 50_257 * 768, 50_257 * 4)


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
