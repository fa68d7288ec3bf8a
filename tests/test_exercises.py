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


# --- Notebook 4: gradients ------------------------------------------------------------


def _grad_exercise_inputs():
    ids = torch.tensor(exercises.GRAD_EXERCISE_IDS)
    grad_out = torch.randn(len(ids), 3, generator=torch.Generator().manual_seed(0))
    return ids, grad_out


def test_embedding_grad_right(capsys):
    ids, grad_out = _grad_exercise_inputs()
    right = torch.zeros(exercises.GRAD_EXERCISE_VOCAB, 3).index_add_(0, ids, grad_out)
    assert exercises.check_embedding_grad(right, grad_out)
    assert capsys.readouterr().out.startswith("correct:")
    embedding = torch.nn.Embedding(exercises.GRAD_EXERCISE_VOCAB, 3)
    embedding(ids).backward(grad_out)
    assert exercises.check_embedding_grad(embedding.weight.grad, grad_out)  # autograd agrees


def test_embedding_grad_wrong():
    ids, grad_out = _grad_exercise_inputs()
    assigned = torch.zeros(exercises.GRAD_EXERCISE_VOCAB, 3)
    assigned[ids] = grad_out  # the classic mistake: repeated rows overwrite instead of adding up
    with pytest.raises(exercises.ExerciseError, match="index_add_"):
        exercises.check_embedding_grad(assigned, grad_out)
    with pytest.raises(exercises.ExerciseError, match=r"shape \(5, 3\), expected \(7, 3\)"):
        exercises.check_embedding_grad(grad_out, grad_out)
    noisy = torch.zeros(exercises.GRAD_EXERCISE_VOCAB, 3).index_add_(0, ids, grad_out)
    noisy[6] = 1.0
    with pytest.raises(exercises.ExerciseError, match=r"rows \[1, 3, 4, 6\] are never looked up"):
        exercises.check_embedding_grad(noisy, grad_out)
    with pytest.raises(exercises.ExerciseError, match="must be a torch.Tensor"):
        exercises.check_embedding_grad(noisy.tolist(), grad_out)
    scaled = 2 * torch.zeros(exercises.GRAD_EXERCISE_VOCAB, 3).index_add_(0, ids, grad_out)
    with pytest.raises(exercises.ExerciseError, match="differs from one_hot"):
        exercises.check_embedding_grad(scaled, grad_out)


MOVED_RIGHT = {"SGD": {1, 4}, "SGD with momentum": {0, 1, 4}, "Adam": {0, 1, 4}, "AdamW": set(range(6))}


def test_moved_rows_right():
    assert exercises.check_moved_rows(MOVED_RIGHT)
    assert exercises.check_moved_rows({**MOVED_RIGHT, "SGD": [4, 1]})  # any collection of row ids


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"Adam": set(range(6))}, r"Adam: you said rows \[0, 1, 2, 3, 4, 5\], but rows \[0, 1, 4\] move"),
        ({"SGD": {0, 1, 4}}, "plain SGD moves a row only when"),
        ({"SGD with momentum": {1, 4}}, "momentum buffer remembers"),
        ({"AdamW": {0, 1, 4}}, "decoupled weight decay"),
        ({"Adam": 3}, "must be a set of row ids"),
    ],
)
def test_moved_rows_wrong(change, message):
    with pytest.raises(exercises.ExerciseError, match=message):
        exercises.check_moved_rows({**MOVED_RIGHT, **change})


def test_moved_rows_wrong_shape_of_answer():
    with pytest.raises(exercises.ExerciseError, match=r"missing \['AdamW'\]"):
        exercises.check_moved_rows({k: v for k, v in MOVED_RIGHT.items() if k != "AdamW"})
    with pytest.raises(exercises.ExerciseError, match="must be a dict"):
        exercises.check_moved_rows([1, 4])


def test_touched_rows():
    assert exercises.check_touched_rows(lambda grad: grad.coalesce().indices()[0])
    with pytest.raises(exercises.ExerciseError, match="uncoalesced; call grad.coalesce"):
        exercises.check_touched_rows(lambda grad: grad.indices()[0])
    with pytest.raises(exercises.ExerciseError, match=r"you returned \[3, 1, 3, 7, 1\], expected \[1, 3, 7\]"):
        exercises.check_touched_rows(lambda grad: grad._indices()[0])
    with pytest.raises(exercises.ExerciseError, match="int64 torch.Tensor"):
        exercises.check_touched_rows(lambda grad: grad.coalesce().indices()[0].tolist())
    with pytest.raises(exercises.ExerciseError, match="pass your function itself"):
        exercises.check_touched_rows(torch.tensor([1, 3, 7]))


# --- Notebook 5: initialisation ---------------------------------------------------------


def test_linear_init_numbers():
    assert exercises.check_linear_init_numbers(4096**-0.5, (3 * 4096) ** -0.5)
    with pytest.raises(exercises.ExerciseError, match="out_features = 11008"):
        exercises.check_linear_init_numbers(11008**-0.5, (3 * 11008) ** -0.5)
    with pytest.raises(exercises.ExerciseError, match="std equals the bound"):
        exercises.check_linear_init_numbers(4096**-0.5, 4096**-0.5)
    with pytest.raises(exercises.ExerciseError, match="bound = 0.009021, expected 0.015625"):
        exercises.check_linear_init_numbers((3 * 4096) ** -0.5, (3 * 4096) ** -0.5)
    with pytest.raises(exercises.ExerciseError, match=r"Hint: 1/sqrt\(3 \* fan_in\)"):
        exercises.check_linear_init_numbers(4096**-0.5, 0.01)
    with pytest.raises(exercises.ExerciseError, match="std must be a number, got str"):
        exercises.check_linear_init_numbers(4096**-0.5, "0.009")


def test_tied_weight_std():
    assert exercises.check_tied_weight_std(768**-0.5)
    with pytest.raises(exercises.ExerciseError, match="with std 0.02 the logits have std 0.554"):
        exercises.check_tied_weight_std(0.02)
    with pytest.raises(exercises.ExerciseError, match=r"so std = 1/sqrt\(d\)"):
        exercises.check_tied_weight_std(1 / 768)
    with pytest.raises(exercises.ExerciseError, match="must be positive"):
        exercises.check_tied_weight_std(-0.036)
    with pytest.raises(exercises.ExerciseError, match="must be a number"):
        exercises.check_tied_weight_std(None)


def _gpt2_init(module):
    if isinstance(module, (torch.nn.Linear, torch.nn.Embedding)):
        torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
    if isinstance(module, torch.nn.Linear) and module.bias is not None:
        torch.nn.init.zeros_(module.bias)


def test_gpt2_init_right():
    assert exercises.check_gpt2_init(_gpt2_init)


def test_gpt2_init_wrong():
    def linear_only(module):
        if isinstance(module, torch.nn.Linear):
            _gpt2_init(module)

    def everything(module):
        for parameter in module.parameters(recurse=False):
            torch.nn.init.normal_(parameter, std=0.02)

    def keeps_bias(module):
        if isinstance(module, (torch.nn.Linear, torch.nn.Embedding)):
            torch.nn.init.normal_(module.weight, std=0.02)

    with pytest.raises(exercises.ExerciseError, match=r"nn.Embedding\(3000, 64\).weight has std 1.00"):
        exercises.check_gpt2_init(linear_only)
    with pytest.raises(exercises.ExerciseError, match="the LayerNorm changed"):
        exercises.check_gpt2_init(everything)
    with pytest.raises(exercises.ExerciseError, match=r"nn.Linear\(64, 256\).bias is not zero"):
        exercises.check_gpt2_init(keeps_bias)
    with pytest.raises(exercises.ExerciseError, match="pass your function itself"):
        exercises.check_gpt2_init(None)


def test_checkers_leave_the_global_rng_alone():
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    exercises.check_moved_rows(MOVED_RIGHT)
    exercises.check_touched_rows(lambda grad: grad.coalesce().indices()[0])
    exercises.check_gpt2_init(_gpt2_init)
    assert torch.equal(torch.rand(3), expected)
