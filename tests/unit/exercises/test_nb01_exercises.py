"""Notebook 1's checkers accept a right answer and reject a wrong one with a hint."""


import pytest
import torch

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
        (lambda s: torch.tensor([VOCAB.stoi.get(t, 1) for t in s.split()], dtype=torch.long), "expected"),
        ("not a function", "pass your function itself"),
    ],
)
def test_encode_function_wrong(encode, message):
    with pytest.raises(exercises.ExerciseError, match=message):
        exercises.check_encode_function(encode, VOCAB)

def _flops(num_tokens=7, dim=4, sizes=(15, 30, 60, 120)):
    """What FlopCounterMode measures: 2·T·V·d FLOPs for the product, 0 for the lookup."""
    return {v: 2 * num_tokens * v * dim for v in sizes}, dict.fromkeys(sizes, 0)

def test_flop_growth_right(capsys):
    product, lookup = _flops()
    assert exercises.check_flop_growth(product, lookup, 2.0, num_tokens=7, dim=4) is True
    assert capsys.readouterr().out == ("correct: your counts agree with 2·T·V·d at every V, the lookup's with 0, "
                                       "and growth with their ratio\n")

def test_flop_growth_matches_what_flop_counter_mode_measures():
    from torch.utils.flop_counter import FlopCounterMode

    ids = torch.tensor([4, 5, 6, 7, 4, 1, 9])
    product, lookup = {}, {}
    for size in (15, 30, 60):
        table = torch.randn(size, 4)
        with FlopCounterMode(display=False) as counter:
            torch.nn.functional.one_hot(ids, size).float() @ table
        product[size] = counter.get_total_flops()
        with FlopCounterMode(display=False) as counter:
            table[ids]
        lookup[size] = counter.get_total_flops()
    assert exercises.check_flop_growth(product, lookup, product[30] / product[15], num_tokens=7, dim=4)

@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p, lk, g: ({v: f // 2 for v, f in p.items()}, lk, g), "count of multiply-adds"),
        (lambda p, lk, g: ({v: 2 * v * 4 for v in p}, lk, g), "one token's count"),
        (lambda p, lk, g: ({v: f + 1 for v, f in p.items()}, lk, g), r"product_flops\[15\] = 841, expected 840"),
        (lambda p, lk, g: (p, p, g), "copies rows and multiplies nothing"),
        (lambda p, lk, g: (p, lk, 4.0), "growth = 4.0, expected 2"),
        (lambda p, lk, g: ({15: p[15], 30: p[30]}, lk, g), "measure at least three"),
        (lambda p, lk, g: ({**p, 100: 2 * 7 * 100 * 4}, lk, g), "do not double"),
        (lambda p, lk, g: (p, {15: 0, 30: 0, 60: 0}, g), "measure both at every V"),
    ],
)
def test_flop_growth_wrong(change, message):
    product, lookup, growth = change(*_flops(), 2.0)
    with pytest.raises(exercises.ExerciseError, match=message):
        exercises.check_flop_growth(product, lookup, growth, num_tokens=7, dim=4)

@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        (([840, 1680, 3360], {}, 2.0), TypeError, r"product_flops must be a dict \{V: FLOPs\}, got list"),
        (({"15": 840}, {}, 2.0), TypeError, "keys of product_flops must be vocabulary sizes"),
        (({15: "840"}, {}, 2.0), TypeError, r"product_flops\[15\] must be a number of FLOPs"),
        (({15: 840}, {15: 0}, "2"), TypeError, "growth must be a number"),
    ],
)
def test_flop_growth_bad_input(args, error, message):
    with pytest.raises(error, match=message):
        exercises.check_flop_growth(*args, num_tokens=7, dim=4)

def test_flop_growth_bad_sizes():
    with pytest.raises(ValueError, match="embedding_dim must be >= 1"):
        exercises.check_flop_growth(*_flops(), 2.0, num_tokens=7, dim=0)
    with pytest.raises(TypeError, match="num_tokens must be an int"):
        exercises.check_flop_growth(*_flops(), 2.0, num_tokens=7.0, dim=4)

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
