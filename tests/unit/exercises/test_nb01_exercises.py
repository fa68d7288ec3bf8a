"""Notebook 1's checkers accept a right answer and reject a wrong one with a hint."""


import pytest
import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

from utils.exercises import nb01 as exercises
from utils.vocab import build_vocab, tokenize

VOCAB = build_vocab("The cat sat on the mat. The dog sat on the log.")

def test_encode_function_right(capsys):
    def encode(sentence):
        return torch.tensor([VOCAB.stoi.get(t, VOCAB.unk_id) for t in tokenize(sentence)], dtype=torch.long)

    assert exercises.check_encode_function(encode, VOCAB) is True
    assert capsys.readouterr().out == ("correct: my_encode agrees with vocab.encode on 4 sentences, unknown words "
                                       "and capitals included\n")

@pytest.mark.parametrize(
    ("encode", "message"),
    [
        (lambda s: torch.tensor([VOCAB.stoi.get(t, 0) for t in tokenize(s)], dtype=torch.long), "Hint: tokenize"),
        (lambda s: [VOCAB.stoi.get(t, 1) for t in tokenize(s)], "returned list; return a torch.Tensor"),
        (lambda s: torch.tensor([VOCAB.stoi.get(t, 1) for t in tokenize(s)], dtype=torch.int32), "torch.long"),
        (lambda s: torch.tensor([VOCAB.stoi.get(t, 1) for t in s.split()], dtype=torch.long),
         "a wrong id for the token 'the'"),
        (lambda s: torch.tensor([VOCAB.stoi.get(t, 1) for t in tokenize(s)][:-1], dtype=torch.long),
         "ids for the 7 tokens"),
        ("not a function", "pass your function itself"),
    ],
)
def test_encode_function_wrong(encode, message):
    with pytest.raises(exercises.ExerciseError, match=message) as raised:
        exercises.check_encode_function(encode, VOCAB)
    assert "[4, 5, 6, 7, 4, 8, 9]" not in str(raised.value)  # vocab.encode's ids of the first sentence: never shown

def product_flops_at(V):
    """The worked answer: FlopCounterMode's count for the one-hot product of the sentence's 7 ids."""
    table = torch.randn(V, 4)
    with FlopCounterMode(display=False) as counter:
        F.one_hot(IDS, V).float() @ table
    return counter.get_total_flops()


IDS = torch.tensor([4, 5, 6, 7, 4, 1, 9])
#: the checker's own counts, 2·T·V·d at its sizes: no wrong answer's message may hold one
EXPECTED = [str(2 * 7 * v * 4) for v in (10, 17, 64, 250)]


def test_product_flops_right(capsys):
    state = torch.random.get_rng_state()
    assert exercises.check_product_flops(product_flops_at, num_tokens=7, dim=4) is True
    assert capsys.readouterr().out == ("correct: product_flops_at agrees with the checker's own FLOP counts at 4 "
                                       "vocabulary sizes of its own\n")
    assert torch.equal(torch.random.get_rng_state(), state)  # the learner's draws leave no trace
    assert exercises.check_product_flops(lambda V: 2 * 7 * V * 4, num_tokens=7, dim=4)  # the formula is right too


@pytest.mark.parametrize(
    ("function", "message"),
    [
        (lambda V: 7 * V * 4, "count of multiply-adds"),
        (lambda V: 2 * V * 4, "one token's count"),
        (lambda V: 0, "returned 0 at every V"),
        (lambda V: 0 if V < 20 else 2 * 7 * V * 4, "0 is what the lookup costs"),
        (lambda V: 2 * 7 * V * 4 + 1, r"product_flops_at\(10\) = 561, which is not what FlopCounterMode counts"),
        (lambda V: {15: 840, 30: 1680, 60: 3360, 120: 6720}.get(V, 840), "returned 840 at every V"),  # typed in
        (lambda V: float(2 * 7 * V * 4), "returned float; return the count"),
        (lambda V: True, "returned bool"),
        (840, "pass your function itself"),
    ],
)
def test_product_flops_wrong(function, message):
    with pytest.raises(exercises.ExerciseError, match=message) as raised:
        exercises.check_product_flops(function, num_tokens=7, dim=4)
    assert not any(count in str(raised.value) for count in EXPECTED)  # a hint, never the expected count


def test_product_flops_bad_sizes():
    with pytest.raises(ValueError, match="embedding_dim must be >= 1"):
        exercises.check_product_flops(product_flops_at, num_tokens=7, dim=0)
    with pytest.raises(TypeError, match="num_tokens must be an int"):
        exercises.check_product_flops(product_flops_at, num_tokens=7.0, dim=4)


def test_selection_matrix():
    weight = torch.randn(6, 3, generator=torch.Generator().manual_seed(1))
    right = torch.zeros(3, 6)
    right[[0, 1, 2], [3, 0, 3]] = 1.0
    assert exercises.check_selection_matrix(right, weight)

    wrong_rows = torch.zeros(3, 6)
    wrong_rows[[0, 1, 2], [0, 3, 3]] = 1.0
    with pytest.raises(exercises.ExerciseError, match=r"x selects rows \[0, 3, 3\], expected \[3, 0, 3\]"):
        exercises.check_selection_matrix(wrong_rows, weight)
    with pytest.raises(exercises.ExerciseError, match="dtype torch.int64"):
        exercises.check_selection_matrix(right.long(), weight)
    with pytest.raises(exercises.ExerciseError, match=r"shape \(6, 3\), expected \(3, 6\)"):
        exercises.check_selection_matrix(right.T, weight)
    with pytest.raises(exercises.ExerciseError, match="single 1"):
        exercises.check_selection_matrix(right * 2, weight)
    with pytest.raises(exercises.ExerciseError, match="must be a torch.Tensor"):
        exercises.check_selection_matrix(right.tolist(), weight)
