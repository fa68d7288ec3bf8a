"""Every checker accepts a right answer and rejects a wrong one with a hint."""

import math
import re

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


def _flops(num_tokens=7, dim=4, sizes=(15, 30, 60, 120)):
    """What FlopCounterMode measures: 2·T·V·d FLOPs for the product, 0 for the lookup."""
    return {v: 2 * num_tokens * v * dim for v in sizes}, dict.fromkeys(sizes, 0)


def test_flop_growth_right(capsys):
    product, lookup = _flops()
    assert exercises.check_flop_growth(product, lookup, 2.0, num_tokens=7, dim=4) is True
    assert capsys.readouterr().out.startswith("correct: the product's FLOPs double with V (840 -> 1,680")


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


# --- Notebooks 2 and 3 ------------------------------------------------------------------

import torch.nn as nn  # noqa: E402


def test_embedding_shapes():
    assert exercises.check_embedding_shapes((100, 32), (8, 16, 32))
    with pytest.raises(exercises.ExerciseError, match=r"weight_shape = \(32, 100\).*nn.Linear's order"):
        exercises.check_embedding_shapes((32, 100), (8, 16, 32))
    with pytest.raises(exercises.ExerciseError, match=r"output_shape = \(8, 32\), expected \(8, 16, 32\)"):
        exercises.check_embedding_shapes((100, 32), (8, 32))


def test_pretrained_embedding():
    vectors = torch.randn(6, 3, generator=torch.Generator().manual_seed(0))
    right = nn.Embedding.from_pretrained(vectors.clone(), freeze=False, padding_idx=0)
    assert exercises.check_pretrained_embedding(right, vectors)

    with pytest.raises(exercises.ExerciseError, match="frozen.*freeze=False"):
        exercises.check_pretrained_embedding(nn.Embedding.from_pretrained(vectors.clone(), padding_idx=0), vectors)
    with pytest.raises(exercises.ExerciseError, match="shares memory.*clone"):
        exercises.check_pretrained_embedding(
            nn.Embedding.from_pretrained(vectors, freeze=False, padding_idx=0), vectors)
    with pytest.raises(exercises.ExerciseError, match="padding_idx is None, expected 0"):
        exercises.check_pretrained_embedding(nn.Embedding.from_pretrained(vectors.clone(), freeze=False), vectors)
    with pytest.raises(exercises.ExerciseError, match="does not hold the pretrained vectors"):
        exercises.check_pretrained_embedding(nn.Embedding(6, 3, padding_idx=0), vectors)
    with pytest.raises(exercises.ExerciseError, match="expected an nn.Embedding, got Tensor"):
        exercises.check_pretrained_embedding(vectors, vectors)


def test_max_norm_rows():
    weight = torch.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0], [0.0, 2.0]])  # norms 5, 0.5, 10, 2
    ids = torch.tensor([0, 1, 1, 3])
    assert exercises.check_max_norm_rows([0, 3], weight, ids, max_norm=1.0)
    assert exercises.check_max_norm_rows([3, 0, 3], weight, ids, max_norm=1.0)  # order and repeats do not matter
    with pytest.raises(exercises.ExerciseError, match=r"rows = \[0, 2, 3\], expected \[0, 3\].*looked up AND"):
        exercises.check_max_norm_rows([0, 2, 3], weight, ids, max_norm=1.0)  # row 2 is never looked up
    with pytest.raises(exercises.ExerciseError, match=r"rows = \[0, 1, 3\], expected \[0, 3\]"):
        exercises.check_max_norm_rows([0, 1, 3], weight, ids, max_norm=1.0)  # row 1 is short enough
    with pytest.raises(exercises.ExerciseError, match="rows must be a list of row numbers"):
        exercises.check_max_norm_rows(["a"], weight, ids, max_norm=1.0)
    assert torch.equal(weight[0], torch.tensor([3.0, 4.0]))  # the checker works on a copy


def _embedding(seed=0, vocab=7, dim=3):
    torch.manual_seed(seed)
    return nn.Embedding(vocab, dim)


def test_linear_from_embedding():
    embedding = _embedding()
    right = nn.Linear(7, 3, bias=False)
    with torch.no_grad():
        right.weight.copy_(embedding.weight.T)
    assert exercises.check_linear_from_embedding(right, embedding)

    untransposed = nn.Linear(7, 3, bias=False)
    untransposed.weight = nn.Parameter(embedding.weight.detach().clone())
    with pytest.raises(exercises.ExerciseError, match=r"shape \(7, 3\), expected \(3, 7\).*\[out_features, in_f"):
        exercises.check_linear_from_embedding(untransposed, embedding)
    with pytest.raises(exercises.ExerciseError, match="copy the embedding's weight"):
        exercises.check_linear_from_embedding(nn.Linear(7, 3, bias=False), embedding)  # right shape, own numbers
    with pytest.raises(exercises.ExerciseError, match="bias=False"):
        exercises.check_linear_from_embedding(nn.Linear(7, 3), embedding)
    with pytest.raises(exercises.ExerciseError, match=r"nn.Linear\(3, 7\); expected nn.Linear\(7, 3\)"):
        exercises.check_linear_from_embedding(nn.Linear(3, 7, bias=False), embedding)
    with pytest.raises(exercises.ExerciseError, match="expected an nn.Linear"):
        exercises.check_linear_from_embedding(embedding, embedding)


def test_output_layer_from_embedding(capsys):
    embedding = _embedding()
    copied = nn.Linear(3, 7, bias=False)
    with torch.no_grad():
        copied.weight.copy_(embedding.weight)
    assert exercises.check_output_layer_from_embedding(copied, embedding)
    assert "(copied, no transpose)" in capsys.readouterr().out
    tied = nn.Linear(3, 7, bias=False)
    tied.weight = embedding.weight
    assert exercises.check_output_layer_from_embedding(tied, embedding)
    assert "(tied: the same Parameter)" in capsys.readouterr().out

    with pytest.raises(exercises.ExerciseError, match=r"nn.Linear\(7, 3\); an output layer.*nn.Linear\(3, 7, bias"):
        exercises.check_output_layer_from_embedding(nn.Linear(7, 3, bias=False), embedding)  # the input layer's layout
    with pytest.raises(exercises.ExerciseError, match="no transpose"):
        exercises.check_output_layer_from_embedding(nn.Linear(3, 7, bias=False), embedding)  # its own numbers
    transposed = nn.Linear(3, 7, bias=False)
    transposed.weight = nn.Parameter(embedding.weight.detach().T.clone())  # exercise 3.1's transpose, not needed
    with pytest.raises(exercises.ExerciseError, match=r"\[out_features, in_features\] = \[7, 3\].*no transpose"):
        exercises.check_output_layer_from_embedding(transposed, embedding)
    with pytest.raises(exercises.ExerciseError, match="bias=False"):
        exercises.check_output_layer_from_embedding(nn.Linear(3, 7), embedding)
    with pytest.raises(exercises.ExerciseError, match="expected an nn.Linear, got Embedding"):
        exercises.check_output_layer_from_embedding(embedding, embedding)
    with pytest.raises(TypeError, match="embedding must be an nn.Embedding, got Parameter"):
        exercises.check_output_layer_from_embedding(copied, embedding.weight)


def test_parameter_embedding():
    class Right(nn.Module):
        def __init__(self, v, d):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(v, d, generator=torch.Generator().manual_seed(0)))

        def forward(self, ids):
            return self.weight[ids]

    class PlainTensor(nn.Module):
        def __init__(self, v, d):
            super().__init__()
            self.weight = torch.randn(v, d, requires_grad=True)

        def forward(self, ids):
            return self.weight[ids]

    class Transposed(Right):
        def forward(self, ids):
            return self.weight[ids].flip(-1)

    module = Right(6, 4)
    assert exercises.check_parameter_embedding(module, 6, 4)
    assert module.weight.grad is None  # the checker leaves no gradient behind
    with pytest.raises(exercises.ExerciseError, match="no parameter named 'weight'.*nn.Parameter"):
        exercises.check_parameter_embedding(PlainTensor(6, 4), 6, 4)
    with pytest.raises(exercises.ExerciseError, match=r"shape \(4, 6\), expected \(6, 4\)"):
        exercises.check_parameter_embedding(Right(4, 6), 6, 4)
    with pytest.raises(exercises.ExerciseError, match="differs from weight\\[ids\\]"):
        exercises.check_parameter_embedding(Transposed(6, 4), 6, 4)
    with pytest.raises(exercises.ExerciseError, match="expected an instance"):
        exercises.check_parameter_embedding(Right, 6, 4)


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


def _row_0_distance(optimizer_class, steps=exercises.DECAY_EXERCISE_STEPS, weight_decay=0.01, row=0):
    """Exercise 4.4 as a learner would write it (the notebook's worked answer)."""
    start = torch.randn(6, 4, generator=torch.Generator().manual_seed(4))
    table = torch.nn.Embedding.from_pretrained(start.clone(), freeze=False)
    optimizer = optimizer_class(table.parameters(), lr=0.01, weight_decay=weight_decay)
    for _ in range(steps):
        optimizer.zero_grad()
        table(torch.tensor([1, 4])).pow(2).sum().backward()
        optimizer.step()
    return (table.weight[row] - start[row]).norm()


def test_decay_distances_right(capsys):
    adam, adamw = _row_0_distance(torch.optim.Adam), _row_0_distance(torch.optim.AdamW)
    assert exercises.check_decay_distances(adam.item(), adamw.item())
    assert re.search(r"^correct: .* 1\d\d times less", capsys.readouterr().out)
    assert exercises.check_decay_distances(adam, adamw)  # 0-d tensors are numbers too
    assert adam > 100 * adamw  # Adam's L2 decay moves the row about lr a step, AdamW lr * wd * w


def test_decay_distances_wrong():
    adam, adamw = _row_0_distance(torch.optim.Adam).item(), _row_0_distance(torch.optim.AdamW).item()
    with pytest.raises(exercises.ExerciseError, match="swapped"):
        exercises.check_decay_distances(adamw, adam)
    with pytest.raises(exercises.ExerciseError, match="in one step; take 10 steps"):
        exercises.check_decay_distances(_row_0_distance(torch.optim.Adam, steps=1).item(), adamw)
    with pytest.raises(exercises.ExerciseError, match="a distance of 0.*weight_decay=0.01"):
        exercises.check_decay_distances(_row_0_distance(torch.optim.Adam, weight_decay=0).item(), adamw)
    with pytest.raises(exercises.ExerciseError, match=r"AdamW: you found .*, expected 0.00159"):
        exercises.check_decay_distances(adam, _row_0_distance(torch.optim.AdamW, row=1).item())


def test_decay_distances_bad_input():
    with pytest.raises(TypeError, match="adam_l2_distance must be a number"):
        exercises.check_decay_distances("0.2", 0.0016)
    with pytest.raises(TypeError, match="adamw_distance must be a number"):
        exercises.check_decay_distances(0.2, torch.zeros(4))
    with pytest.raises(ValueError, match="finite distance >= 0, got -0.2"):
        exercises.check_decay_distances(-0.2, 0.0016)
    with pytest.raises(ValueError, match="got nan"):
        exercises.check_decay_distances(0.2, float("nan"))


# --- Notebook 5: initialisation ---------------------------------------------------------


def _drawn_linear(in_features, out_features=256, seed=0):
    torch.manual_seed(seed)
    return torch.nn.Linear(in_features, out_features)


def test_linear_init_draw_right(capsys):
    layer = _drawn_linear(4096)
    std, largest = layer.weight.std().item(), layer.weight.abs().max().item()
    assert exercises.check_linear_init_draw(layer, std, largest)
    assert capsys.readouterr().out.startswith("correct: std 0.00902")
    assert exercises.check_linear_init_draw(layer, layer.weight.std(), layer.weight.abs().max())  # 0-d tensors
    narrow = _drawn_linear(4096, 64, seed=1)  # any out_features: only in_features sets the scale
    assert exercises.check_linear_init_draw(narrow, narrow.weight.std().item(), narrow.weight.abs().max().item())


def test_linear_init_draw_wrong():
    wrong_way = _drawn_linear(256, 4096)  # out_features = 4096: the fan_in is 256
    with pytest.raises(exercises.ExerciseError, match="in_features = 256.*keep in_features = 4096"):
        exercises.check_linear_init_draw(wrong_way, wrong_way.weight.std().item(), wrong_way.weight.abs().max().item())
    layer = _drawn_linear(4096)
    std, largest = layer.weight.std().item(), layer.weight.abs().max().item()
    with pytest.raises(exercises.ExerciseError, match=r"that is the formula's value.*layer.weight.std\(\)"):
        exercises.check_linear_init_draw(layer, (3 * 4096) ** -0.5, largest)
    with pytest.raises(exercises.ExerciseError, match=r"observed_max = 0.009021, but the largest \|w\| .* 0.01562"):
        exercises.check_linear_init_draw(layer, std, (3 * 4096) ** -0.5)
    renormalised = _drawn_linear(4096)
    with torch.no_grad():
        torch.nn.init.normal_(renormalised.weight, std=0.02)
    with pytest.raises(exercises.ExerciseError, match="not PyTorch's default initialisation"):
        exercises.check_linear_init_draw(renormalised, 0.02, 0.1)


def test_linear_init_draw_bad_input():
    layer = _drawn_linear(4096, 8)
    with pytest.raises(TypeError, match="layer must be the torch.nn.Linear you drew, got Embedding"):
        exercises.check_linear_init_draw(torch.nn.Embedding(4096, 8), 0.009, 0.0156)
    with pytest.raises(TypeError, match="observed_std must be a number"):
        exercises.check_linear_init_draw(layer, "0.009", 0.0156)
    with pytest.raises(TypeError, match="observed_max must be a number"):
        exercises.check_linear_init_draw(layer, 0.009, layer.weight)
    with pytest.raises(ValueError, match="positive, finite number, got -0.009"):
        exercises.check_linear_init_draw(layer, -0.009, 0.0156)


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
    exercises.check_decay_distances(0.19642, 0.0015928)
    exercises.check_gpt2_init(_gpt2_init)
    table = torch.zeros(42, 2)
    exercises.check_unmoved_rows(lambda a, b: (a == b).all(dim=1).nonzero().flatten(), table, table,
                                 build_vocab(" ".join(f"w{i}" for i in range(38))))
    assert torch.equal(torch.rand(3), expected)


# --- Notebook 6: what the lookup saves, measured ---------------------------------------


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


# --- Notebooks 7 and 8 ------------------------------------------------------------------


def test_bag_mean_matrix():
    ids, offsets, vocab_size = torch.tensor([1, 2, 1, 3, 0]), torch.tensor([0, 3, 3]), 4
    right = torch.tensor([[0, 2 / 3, 1 / 3, 0], [0, 0, 0, 0], [0.5, 0, 0, 0.5]])
    assert exercises.check_bag_mean_matrix(right, ids, offsets, vocab_size)
    counts = torch.tensor([[0, 2.0, 1, 0], [0, 0, 0, 0], [1, 0, 0, 1]])
    with pytest.raises(exercises.ExerciseError, match=r"row 0 .* these are the counts \(mode='sum'\)"):
        exercises.check_bag_mean_matrix(counts, ids, offsets, vocab_size)
    with pytest.raises(exercises.ExerciseError, match="NaN: an empty bag"):
        exercises.check_bag_mean_matrix(right.clone().index_fill_(0, torch.tensor([1]), float("nan")), ids,
                                        offsets, vocab_size)
    with pytest.raises(exercises.ExerciseError, match=r"shape \(2, 4\), expected \(3, 4\)"):
        exercises.check_bag_mean_matrix(right[:2], ids, offsets, vocab_size)
    with pytest.raises(exercises.ExerciseError, match="must be a float tensor"):
        exercises.check_bag_mean_matrix(counts.long(), ids, offsets, vocab_size)
    with pytest.raises(exercises.ExerciseError, match="must be a torch.Tensor"):
        exercises.check_bag_mean_matrix(right.tolist(), ids, offsets, vocab_size)
    once = torch.tensor([[0, 0.5, 0.5, 0], [0, 0, 0, 0], [0.5, 0, 0, 0.5]])  # "1" counted once in bag 0
    with pytest.raises(exercises.ExerciseError, match="row 0 .* counts once per occurrence"):
        exercises.check_bag_mean_matrix(once, ids, offsets, vocab_size)


class _TinyLM(nn.Module):  # notebook 7's model
    def __init__(self, vocab_size, d_model, context_length, tie):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(context_length, d_model)
        self.block = nn.Linear(d_model, d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        if tie:
            self.lm_head.weight = self.tok_emb.weight

    def forward(self, ids):
        x = self.tok_emb(ids) + self.pos_emb(torch.arange(ids.shape[1]))
        return self.lm_head(torch.tanh(self.block(x)))


TYING_IDS = torch.randint(0, exercises.TYING_EXERCISE_VOCAB, (4, 9), generator=torch.Generator().manual_seed(7))


@pytest.fixture(scope="module")
def initial_losses():
    losses = {}
    for dim in exercises.TYING_EXERCISE_DIMS:
        for tie in (True, False):
            torch.manual_seed(0)
            model = _TinyLM(exercises.TYING_EXERCISE_VOCAB, dim, 8, tie)
            logits = model(TYING_IDS[:, :-1])
            losses[(dim, tie)] = torch.nn.functional.cross_entropy(logits.flatten(0, 1), TYING_IDS[:, 1:].flatten())
    return {key: loss.item() for key, loss in losses.items()}


def test_tying_initial_loss(initial_losses, capsys):
    torch.manual_seed(123)
    state = torch.get_rng_state()
    assert exercises.check_tying_initial_loss(initial_losses, _TinyLM, TYING_IDS, 8)
    assert torch.equal(torch.get_rng_state(), state)  # the checker leaves the learner's generator alone
    out = capsys.readouterr().out
    assert re.search(r"untied (\d+\.\d\d, ){2}\d+\.\d\d, all near ln V = 6\.91", out)
    assert "growing with d" in out
    as_tensors = {key: torch.tensor(loss) for key, loss in initial_losses.items()}
    assert exercises.check_tying_initial_loss(as_tensors, _TinyLM, TYING_IDS, 8)  # loss tensors, not .item(): fine

    swapped = {(dim, tie): initial_losses[(dim, not tie)] for dim, tie in initial_losses}
    with pytest.raises(exercises.ExerciseError, match=r"initial_loss\[\(16, False\)\] = .*the loss of the tied model"):
        exercises.check_tying_initial_loss(swapped, _TinyLM, TYING_IDS, 8)
    uniform = {**initial_losses, (64, True): math.log(exercises.TYING_EXERCISE_VOCAB)}
    with pytest.raises(exercises.ExerciseError, match=r"\(64, True\).*that is ln V, the uniform guess"):
        exercises.check_tying_initial_loss(uniform, _TinyLM, TYING_IDS, 8)
    off = {**initial_losses, (256, True): initial_losses[(256, True)] + 1}
    with pytest.raises(exercises.ExerciseError, match=r"\(256, True\).*right after torch.manual_seed\(0\)"):
        exercises.check_tying_initial_loss(off, _TinyLM, TYING_IDS, 8)

    class Scaled(_TinyLM):  # a tied table re-initialised small: no longer the lesson's model
        def __init__(self, vocab_size, d_model, context_length, tie):
            super().__init__(vocab_size, d_model, context_length, tie)
            nn.init.normal_(self.tok_emb.weight, std=0.02)

    scaled = {}
    for dim, tie in initial_losses:
        torch.manual_seed(0)
        logits = Scaled(exercises.TYING_EXERCISE_VOCAB, dim, 8, tie)(TYING_IDS[:, :-1])
        scaled[(dim, tie)] = torch.nn.functional.cross_entropy(logits.flatten(0, 1), TYING_IDS[:, 1:].flatten()).item()
    with pytest.raises(exercises.ExerciseError, match="pass the notebook's TinyLM, unchanged"):
        exercises.check_tying_initial_loss(scaled, Scaled, TYING_IDS, 8)


def test_tying_initial_loss_rejects_bad_input(initial_losses):
    with pytest.raises(TypeError, match="initial_loss must be a dict"):
        exercises.check_tying_initial_loss(list(initial_losses.values()), _TinyLM, TYING_IDS, 8)
    with pytest.raises(ValueError, match=r"missing \[\(256, False\)\]"):
        exercises.check_tying_initial_loss({k: v for k, v in initial_losses.items() if k != (256, False)},
                                           _TinyLM, TYING_IDS, 8)
    with pytest.raises(ValueError, match=r"unexpected \[\(8, True\)\]"):
        exercises.check_tying_initial_loss({**initial_losses, (8, True): 1.0}, _TinyLM, TYING_IDS, 8)
    with pytest.raises(TypeError, match=r"initial_loss\[\(16, True\)\] must be a number"):
        exercises.check_tying_initial_loss({**initial_losses, (16, True): "7.0"}, _TinyLM, TYING_IDS, 8)
    with pytest.raises(TypeError, match="model_class must be the model's class"):
        exercises.check_tying_initial_loss(initial_losses, "TinyLM", TYING_IDS, 8)
    with pytest.raises(ValueError, match="ids must be a 2-D tensor of token ids"):
        exercises.check_tying_initial_loss(initial_losses, _TinyLM, TYING_IDS.float(), 8)


def test_sinusoidal_function():
    from utils.positions import sinusoidal_positions

    assert exercises.check_sinusoidal_function(sinusoidal_positions)

    def swapped(num_positions, dim):
        table = sinusoidal_positions(num_positions, dim)
        return table.view(num_positions, dim // 2, 2).flip(-1).reshape(num_positions, dim)

    with pytest.raises(exercises.ExerciseError, match="the sine goes in the even columns"):
        exercises.check_sinusoidal_function(swapped)
    with pytest.raises(exercises.ExerciseError, match=r"omega_i = 10000 \*\* \(-2i / dim\)"):
        exercises.check_sinusoidal_function(lambda t, d: sinusoidal_positions(t, d, base=100.0))
    with pytest.raises(exercises.ExerciseError, match=r"has shape \(2, 1\), expected \(1, 2\)"):
        exercises.check_sinusoidal_function(lambda t, d: sinusoidal_positions(t, d).T)
    with pytest.raises(exercises.ExerciseError, match="returned list"):
        exercises.check_sinusoidal_function(lambda t, d: sinusoidal_positions(t, d).tolist())
    with pytest.raises(exercises.ExerciseError, match="pass your function itself"):
        exercises.check_sinusoidal_function(sinusoidal_positions(2, 2))


def test_shard_bounds_function():
    from utils.distributed import shard_bounds

    assert exercises.check_shard_bounds_function(shard_bounds)

    def larger_last(vocab_size, world_size):  # also valid: the extra rows at the end
        return [(vocab_size - e, vocab_size - s) for s, e in reversed(shard_bounds(vocab_size, world_size))]

    assert exercises.check_shard_bounds_function(larger_last)

    def floor_split(vocab_size, world_size):  # the remainder all goes to the last block
        size = vocab_size // world_size
        return [(r * size, vocab_size if r == world_size - 1 else (r + 1) * size) for r in range(world_size)]

    with pytest.raises(exercises.ExerciseError, match="differ by more than one row"):
        exercises.check_shard_bounds_function(floor_split)
    with pytest.raises(exercises.ExerciseError, match="must start at 0 and end at 10"):
        exercises.check_shard_bounds_function(lambda v, p: [(0, v - 1)] if p == 1 else shard_bounds(v, p))
    with pytest.raises(exercises.ExerciseError, match="expected 2 blocks"):
        exercises.check_shard_bounds_function(lambda v, p: [(0, v)])
    with pytest.raises(exercises.ExerciseError, match="start where the previous one ends"):
        exercises.check_shard_bounds_function(
            lambda v, p: [(0, v // 2), (v // 2 + 1, v)] if p == 2 else shard_bounds(v, p))
    with pytest.raises(exercises.ExerciseError, match="not its result"):
        exercises.check_shard_bounds_function([(0, 10)])


def test_owner_function():
    from utils.distributed import shard_bounds

    def owner(token_id, vocab_size, world_size):
        for rank, (start, end) in enumerate(shard_bounds(vocab_size, world_size)):
            if start <= token_id < end:
                return rank, token_id - start

    assert exercises.check_owner_function(owner)
    with pytest.raises(exercises.ExerciseError, match=r"fn\(6, 11, 2\) = \(1, 6\), expected \(1, 0\)"):
        exercises.check_owner_function(lambda t, v, p: (owner(t, v, p)[0], t))
    with pytest.raises(exercises.ExerciseError, match="not its result"):
        exercises.check_owner_function((0, 0))


def _parallel_bag_mean(bags, weight, world_size):
    from utils.distributed import local_lookup, shard_bounds

    total = 0
    for start, end in shard_bounds(weight.shape[0], world_size):
        total = total + local_lookup(bags, weight[start:end], start).sum(dim=1)  # the shard's partial sums
    return total / bags.shape[1]


def _mean_of_means(bags, weight, world_size):
    from utils.distributed import local_lookup, shard_bounds

    means = []
    for start, end in shard_bounds(weight.shape[0], world_size):
        owned = ((bags >= start) & (bags < end)).sum(dim=1, keepdim=True)
        means.append(local_lookup(bags, weight[start:end], start).sum(dim=1) / owned)  # the shard's own mean
    return sum(means) / world_size


def test_parallel_bag_mean(capsys):
    assert exercises.check_parallel_bag_mean(_parallel_bag_mean)
    printed = capsys.readouterr().out
    assert re.fullmatch(r"correct: the bag means equal F.embedding_bag\(mode='mean'\) on the whole table, for P = 2 "
                        r"and P = 3; averaging the shards' own means would be off by up to \d\.\d\d\n", printed)
    assert exercises.check_parallel_bag_mean(
        lambda bags, weight, p: torch.nn.functional.embedding_bag(bags, weight, mode="mean"))  # the whole table
    with pytest.raises(exercises.ExerciseError, match="averages the shards' own means"):
        exercises.check_parallel_bag_mean(_mean_of_means)
    with pytest.raises(exercises.ExerciseError, match="divides by the number of processes too"):
        exercises.check_parallel_bag_mean(lambda bags, weight, p: _parallel_bag_mean(bags, weight, p) / p)
    with pytest.raises(exercises.ExerciseError, match="these are the bag sums"):
        exercises.check_parallel_bag_mean(lambda bags, weight, p: _parallel_bag_mean(bags, weight, p) * bags.shape[1])
    with pytest.raises(exercises.ExerciseError, match="holds NaN"):
        exercises.check_parallel_bag_mean(lambda bags, weight, p: _mean_of_means(bags[:, :1], weight, p))
    with pytest.raises(exercises.ExerciseError, match=r"has shape \(4, 3\), expected \(3, 4\)"):
        exercises.check_parallel_bag_mean(lambda bags, weight, p: _parallel_bag_mean(bags, weight, p).T)
    with pytest.raises(exercises.ExerciseError, match="returned list"):
        exercises.check_parallel_bag_mean(lambda bags, weight, p: _parallel_bag_mean(bags, weight, p).tolist())
    with pytest.raises(exercises.ExerciseError, match="each shard sums the rows it holds"):
        exercises.check_parallel_bag_mean(lambda bags, weight, p: _parallel_bag_mean(bags, weight, p) + 1)
    with pytest.raises(TypeError, match=r"pass your function itself \(parallel_bag_mean, not"):
        exercises.check_parallel_bag_mean(torch.zeros(3, 4))


# --- Notebook 9: what the table learns --------------------------------------------------

from utils import corpus  # noqa: E402

CORPUS_VOCAB = corpus.corpus_vocab()


def _table_with_cat_close_to(word):
    table = torch.randn(len(CORPUS_VOCAB), 8, generator=torch.Generator().manual_seed(0))
    stoi = CORPUS_VOCAB.stoi
    table[stoi[word]] = table[stoi["cat"]] + 0.01
    return table


def test_closest_to_cat(capsys):
    assert exercises.check_closest_to_cat("dog", _table_with_cat_close_to("dog"), CORPUS_VOCAB)
    assert "dog (+1.00) fills the same slots as cat" in capsys.readouterr().out
    table = _table_with_cat_close_to("dog")
    with pytest.raises(exercises.ExerciseError, match="zebra: cosine similarity .* never looked up"):
        exercises.check_closest_to_cat("zebra", table, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match="bread is in the category 'food', cat in 'animal'"):
        exercises.check_closest_to_cat("bread", table, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match=r"answer must be one of the words \['dog', 'bread'"):
        exercises.check_closest_to_cat("horse", table, CORPUS_VOCAB)
    # the checker measures the table it is given: if zebra's random row happened to be closest, zebra is right
    assert exercises.check_closest_to_cat("zebra", _table_with_cat_close_to("zebra"), CORPUS_VOCAB)


def _unmoved(before, after):
    return [v for v in range(before.shape[0]) if torch.equal(before[v], after[v])]


def test_unmoved_rows(capsys):
    before = torch.randn(len(CORPUS_VOCAB), 4, generator=torch.Generator().manual_seed(1))
    after = before + 0.5
    after[[0, 1, 41]] = before[[0, 1, 41]]
    assert exercises.check_unmoved_rows(_unmoved, before, after, CORPUS_VOCAB)
    assert "rows [0, 1, 41]: <pad>, <unk>, zebra" in capsys.readouterr().out
    assert exercises.check_unmoved_rows(lambda a, b: (a == b).all(dim=1).nonzero().flatten(), before, after,
                                        CORPUS_VOCAB)  # a tensor of ids is fine too

    def close(a, b):
        return [v for v in range(a.shape[0]) if torch.allclose(a[v], b[v])]

    with pytest.raises(exercises.ExerciseError, match="row 3 changed in its last bit only.*not torch.allclose"):
        exercises.check_unmoved_rows(close, before, after, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match=r"you returned \[1, 3, 5\], expected \[0, 2, 4, 5\]"):
        exercises.check_unmoved_rows(lambda a, b: [v for v in range(a.shape[0]) if v % 2], before, after,
                                     CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match=r"on the notebook's table you returned \[0, 1\]"):
        exercises.check_unmoved_rows(lambda a, b: _unmoved(a, b)[:2] if len(a) > 6 else _unmoved(a, b),
                                     before, after, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match="return a list of row ids"):
        exercises.check_unmoved_rows(lambda a, b: {0, 2}, before, after, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match="pass your function itself"):
        exercises.check_unmoved_rows([0, 1], before, after, CORPUS_VOCAB)


class _CBOW(nn.Module):
    def __init__(self, vocab_size, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.head = nn.Linear(dim, vocab_size)

    def forward(self, context):
        return self.head(self.embed(context).sum(dim=1) / (context != 0).sum(dim=1, keepdim=True))


@pytest.fixture(scope="module")
def cbow_data():
    return corpus.context_windows(corpus.generate_sentences(40, 0), CORPUS_VOCAB)


def _cbow(dim, steps, data):
    contexts, targets = data
    torch.manual_seed(0)
    model = _CBOW(len(CORPUS_VOCAB), dim)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(steps):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(contexts), targets).backward()
        optimizer.step()
    return model


def test_narrow_tables(cbow_data, capsys):
    trained = {dim: _cbow(dim, 300, cbow_data) for dim in (1, 2, 8)}
    assert exercises.check_narrow_tables(trained, *cbow_data)
    assert re.search(r"final loss \d\.\d{3} \(d=1\), \d\.\d{3} \(d=2\), \d\.\d{3} \(d=8\)", capsys.readouterr().out)

    with pytest.raises(exercises.ExerciseError, match=r"models\[2\] has a loss of .* has it been trained"):
        exercises.check_narrow_tables({**trained, 2: _cbow(2, 0, cbow_data)}, *cbow_data)
    with pytest.raises(exercises.ExerciseError, match="do not fall as d grows"):
        exercises.check_narrow_tables({**trained, 8: _cbow(8, 20, cbow_data)}, *cbow_data)
    with pytest.raises(exercises.ExerciseError, match=r"models\[1\] has a table of width 2, not 1"):
        exercises.check_narrow_tables({**trained, 1: trained[2]}, *cbow_data)
    with pytest.raises(exercises.ExerciseError, match=r"has the widths \[1, 8\]; expected 1, 2 and"):
        exercises.check_narrow_tables({1: trained[1], 8: trained[8]}, *cbow_data)
    with pytest.raises(exercises.ExerciseError, match="must be a model with one nn.Embedding"):
        exercises.check_narrow_tables({**trained, 2: "model"}, *cbow_data)
    with pytest.raises(exercises.ExerciseError, match="must be a dict"):
        exercises.check_narrow_tables([trained[1]], *cbow_data)
