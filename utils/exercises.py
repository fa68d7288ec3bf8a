"""Checkers for the exercises at the end of each notebook.

A checker takes the learner's answer. If it is right, it prints a line starting with
``correct`` and returns ``True``; if it is wrong, it raises :class:`ExerciseError`
(an ``AssertionError``) whose message says what is off and gives a hint. Each checker
is unit-tested against a right and a wrong answer (``tests/test_exercises.py``).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from .lookup import one_hot_multiply_adds
from .vocab import Vocab


class ExerciseError(AssertionError):
    """The answer is wrong; the message says how and hints at the fix."""


def _correct(label: str) -> bool:
    print(f"correct: {label}")
    return True


# --- Notebook 1: one-hot vectors and the matrix product that only selects -----------


def check_encode_function(encode: Callable[[str], torch.Tensor], vocab: Vocab) -> bool:
    """Exercise 1.1: ``encode(sentence)`` -> int64 ids, unknown words -> ``<unk>``."""
    if not callable(encode):
        raise ExerciseError(f"pass your function itself (encode, not encode(...)); got {type(encode).__name__}")
    sentences = ["the cat sat on the mat .", "a zebra sat on the sofa !", "THE Cat", ""]
    for sentence in sentences:
        expected = vocab.encode(sentence)
        got = encode(sentence)
        if not isinstance(got, torch.Tensor):
            raise ExerciseError(f"encode({sentence!r}) returned {type(got).__name__}; return a torch.Tensor")
        if got.dtype != torch.long:
            raise ExerciseError(f"encode({sentence!r}) has dtype {got.dtype}; ids should be torch.long (int64)")
        if not torch.equal(got, expected):
            raise ExerciseError(
                f"encode({sentence!r}) gave {got.tolist()}, expected {expected.tolist()}. "
                "Hint: tokenize (lower-case) first, then map each word with vocab.stoi, "
                "using vocab.unk_id for words that are missing."
            )
    return _correct("unknown words map to <unk>, known words to their ids")


def check_gpt2_multiply_adds(total: int, useful: int) -> bool:
    """Exercise 1.2: multiply-adds of a one-hot matmul for 1024 tokens at GPT-2's sizes."""
    expected = one_hot_multiply_adds(num_tokens=1024, vocab_size=50_257, embedding_dim=768)
    if useful != expected.useful:
        raise ExerciseError(
            f"useful = {useful}, expected {expected.useful}. Hint: only the products with the single 1 "
            "matter: one per output value, and each token has d output values."
        )
    if total != expected.total:
        hint = " (that is the FLOP count: count a multiply-add once)" if total == 2 * expected.total else ""
        raise ExerciseError(
            f"total = {total}, expected {expected.total}{hint}. Hint: each of the d outputs of a token "
            "sums V products."
        )
    return _correct(f"{expected.total:,} multiply-adds, of which {expected.useful:,} are useful (1 in 50,257)")


def check_selection_matrix(x: torch.Tensor, weight: torch.Tensor, rows: list[int]) -> bool:
    """Exercise 1.3: a hand-built ``x`` with ``x @ weight == weight[rows]``, exactly."""
    if not isinstance(x, torch.Tensor):
        raise ExerciseError(f"x must be a torch.Tensor, got {type(x).__name__}")
    expected_shape = (len(rows), weight.shape[0])
    if tuple(x.shape) != expected_shape:
        raise ExerciseError(
            f"x has shape {tuple(x.shape)}, expected {expected_shape}: one row per selected row, V columns"
        )
    if x.dtype != weight.dtype:
        raise ExerciseError(f"x has dtype {x.dtype}; a matrix product with the weight needs {weight.dtype}")
    if not bool(((x == 0) | (x == 1)).all()) or not bool((x.sum(dim=1) == 1).all()):
        raise ExerciseError("each row of x must hold a single 1 and zeros elsewhere (a one-hot row)")
    if not torch.equal(x @ weight, weight[rows]):
        picked = x.argmax(dim=1).tolist()
        raise ExerciseError(
            f"x selects rows {picked}, expected {list(rows)}. Hint: put the 1 of row i in column rows[i]"
        )
    return _correct(f"x @ W returns rows {list(rows)} of W, exactly")


# --- Notebook 4: gradients, what training touches -------------------------------------

#: Exercise 4.1's ids: id 2 three times, id 0 once, id 5 once, in a vocabulary of 7
GRAD_EXERCISE_IDS = (2, 0, 2, 2, 5)
GRAD_EXERCISE_VOCAB = 7


def check_embedding_grad(grad: torch.Tensor, grad_out: torch.Tensor) -> bool:
    """Exercise 4.1: the embedding weight's gradient for ``GRAD_EXERCISE_IDS``, computed without autograd.

    ``grad_out``: ``(5, d)``, the gradient of the lookup's output; ``grad``: ``(7, d)``.
    """
    from .lookup import one_hot  # imported here so that this section stays self-contained

    ids = torch.tensor(GRAD_EXERCISE_IDS)
    if not isinstance(grad, torch.Tensor):
        raise ExerciseError(f"grad must be a torch.Tensor, got {type(grad).__name__}")
    grad_out = grad_out.detach().cpu()
    expected_shape = (GRAD_EXERCISE_VOCAB, grad_out.shape[1])
    if tuple(grad.shape) != expected_shape:
        raise ExerciseError(
            f"grad has shape {tuple(grad.shape)}, expected {expected_shape}: the gradient of the weight has "
            "the weight's shape [V, d], one row per token id (not one per position)"
        )
    grad = grad.detach().cpu().to(grad_out.dtype)
    expected = one_hot(ids, GRAD_EXERCISE_VOCAB, grad_out.dtype).T @ grad_out
    if torch.allclose(grad, expected, rtol=1e-6, atol=1e-6):
        return _correct("rows 0 and 5 got one gradient row each, row 2 the sum of three, the rest exactly 0")
    assigned = torch.zeros_like(expected)
    assigned[ids] = grad_out
    if torch.equal(grad, assigned) or torch.allclose(grad[2], grad_out[3]):
        raise ExerciseError(
            "row 2 holds only one of the three gradient rows of the positions that looked it up. Hint: "
            "`grad[ids] = grad_out` keeps one of the repeated rows; add them up with "
            "`grad.index_add_(0, ids, grad_out)` or `one_hot(ids, V).T @ grad_out`"
        )
    untouched = [v for v in range(GRAD_EXERCISE_VOCAB) if v not in GRAD_EXERCISE_IDS]
    if bool(grad[untouched].ne(0).any()):
        raise ExerciseError(f"rows {untouched} are never looked up, so their gradient must be exactly 0")
    raise ExerciseError(
        "the gradient differs from one_hot(ids, V).T @ grad_out. Hint: row v is the sum of the rows of "
        "grad_out at the positions t where ids[t] == v"
    )


#: Exercise 4.2's scenario: two steps of a loss sum(E(ids)**2) on ids STEP_1, then STEP_2
MOVED_EXERCISE_STEPS = ((0, 4), (1, 4))
MOVED_EXERCISE_VOCAB = 6
MOVED_EXERCISE_OPTIMIZERS = ("SGD", "SGD with momentum", "Adam", "AdamW")


def _moved_rows_in_second_step(name: str) -> set[int]:
    weight = torch.randn(MOVED_EXERCISE_VOCAB, 3, generator=torch.Generator().manual_seed(0))
    embedding = torch.nn.Embedding.from_pretrained(weight, freeze=False)
    params = embedding.parameters()
    optimizer = {
        "SGD": lambda: torch.optim.SGD(params, lr=0.1),
        "SGD with momentum": lambda: torch.optim.SGD(params, lr=0.1, momentum=0.9),
        "Adam": lambda: torch.optim.Adam(params, lr=0.1),
        "AdamW": lambda: torch.optim.AdamW(params, lr=0.1, weight_decay=0.01),
    }[name]()
    before = embedding.weight.detach().clone()
    for step_ids in MOVED_EXERCISE_STEPS:
        before = embedding.weight.detach().clone()
        optimizer.zero_grad()
        embedding(torch.tensor(step_ids)).pow(2).sum().backward()
        optimizer.step()
    return set((embedding.weight.detach() != before).any(dim=1).nonzero().flatten().tolist())


def check_moved_rows(answer: dict[str, set[int]]) -> bool:
    """Exercise 4.2: for each optimizer, the set of rows that the SECOND step changes."""
    if not isinstance(answer, dict):
        raise ExerciseError(f"answer must be a dict from optimizer name to a set of rows, got {type(answer).__name__}")
    missing = [name for name in MOVED_EXERCISE_OPTIMIZERS if name not in answer]
    if missing:
        raise ExerciseError(f"answer is missing {missing}; expected the keys {list(MOVED_EXERCISE_OPTIMIZERS)}")
    hints = {
        "SGD": "plain SGD moves a row only when that row has a gradient in this step",
        "SGD with momentum": "the momentum buffer remembers rows from the first step; rows never looked up have "
                             "a zero buffer",
        "Adam": "Adam's first moment remembers rows from the first step; rows never looked up have zero moments, "
                "so their update is 0 / (sqrt(0) + eps) = 0",
        "AdamW": "AdamW's decoupled weight decay shrinks every row by lr * weight_decay * w, looked up or not",
    }
    for name in MOVED_EXERCISE_OPTIMIZERS:
        got = answer[name]
        if not isinstance(got, (set, frozenset, list, tuple)):
            raise ExerciseError(f"answer[{name!r}] must be a set of row ids, got {type(got).__name__}")
        expected = _moved_rows_in_second_step(name)
        if set(got) != expected:
            raise ExerciseError(f"{name}: you said rows {sorted(got)}, but rows {sorted(expected)} move. "
                                f"Hint: {hints[name]}")
    return _correct("SGD: only this step's rows; momentum and Adam: also earlier rows; AdamW: every row")


def check_touched_rows(touched_rows: Callable[[torch.Tensor], torch.Tensor]) -> bool:
    """Exercise 4.3: ``touched_rows(sparse_grad)`` -> sorted int64 tensor of the distinct rows it holds."""
    if not callable(touched_rows):
        raise ExerciseError(f"pass your function itself, not its result; got {type(touched_rows).__name__}")
    cases = [((3, 1, 3, 7, 1), 9), ((5,), 6), ((0, 0, 0), 4)]
    for ids, vocab in cases:
        embedding = torch.nn.Embedding.from_pretrained(torch.ones(vocab, 2), freeze=False, sparse=True)
        embedding(torch.tensor(ids)).sum().backward()
        grad = embedding.weight.grad  # uncoalesced: one entry per position, duplicates included
        expected = torch.tensor(sorted(set(ids)))
        try:
            got = touched_rows(grad)
        except RuntimeError as error:
            raise ExerciseError(
                f"touched_rows raised RuntimeError: {str(error).splitlines()[0]}. Hint: the gradient of a lookup "
                "with repeated ids is uncoalesced; call grad.coalesce() before grad.indices()"
            ) from error
        if not isinstance(got, torch.Tensor) or got.dtype != torch.long:
            raise ExerciseError("return an int64 torch.Tensor of row ids (grad.indices() has one)")
        if not torch.equal(got.flatten().cpu(), expected):
            raise ExerciseError(
                f"for ids {list(ids)} you returned {got.tolist()}, expected {expected.tolist()}. Hint: coalesce "
                "first (it sums duplicate entries and sorts them), then take row 0 of the indices"
            )
    return _correct("coalesce() merges repeated ids; the indices are then the distinct rows, sorted")


# --- Notebook 5: initialisation, in histograms ----------------------------------------


def check_linear_init_numbers(bound: float, std: float) -> bool:
    """Exercise 5.1: bound and std of ``nn.Linear(4096, 11008)``'s weights at init."""
    from .init_stats import linear_bound, linear_std

    expected_bound, expected_std = linear_bound(4096), linear_std(4096)
    for name, got in (("bound", bound), ("std", std)):
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            raise ExerciseError(f"{name} must be a number, got {type(got).__name__}")
    if abs(bound - linear_bound(11008)) < 1e-9 or abs(std - linear_std(11008)) < 1e-9:
        raise ExerciseError("you used out_features = 11008. Hint: nn.Linear's fan_in is in_features, 4096")
    if abs(bound - expected_bound) > 1e-6 * expected_bound:
        raise ExerciseError(f"bound = {bound:.6f}, expected {expected_bound:.6f}. Hint: the bound is 1/sqrt(fan_in)")
    if abs(std - expected_bound) < 1e-6 * expected_bound:
        raise ExerciseError("std equals the bound. Hint: the std of U(-b, b) is b/sqrt(3)")
    if abs(std - expected_std) > 1e-6 * expected_std:
        raise ExerciseError(f"std = {std:.6f}, expected {expected_std:.6f}. Hint: 1/sqrt(3 * fan_in)")
    return _correct(f"bound {expected_bound:.6f}, std {expected_std:.6f}")


def check_tied_weight_std(weight_std: float) -> bool:
    """Exercise 5.2: the weight std that gives a tied output layer (d = 768) logits of std 1 at init."""
    from .init_stats import tied_logit_std

    if isinstance(weight_std, bool) or not isinstance(weight_std, (int, float)):
        raise ExerciseError(f"weight_std must be a number, got {type(weight_std).__name__}")
    expected = 768**-0.5
    if abs(weight_std - expected) <= 0.01 * expected:
        return _correct(f"std {expected:.4f} = 1/sqrt(768): logits of std {tied_logit_std(768, expected):.2f}")
    if abs(weight_std - 1 / 768) < 1e-6:
        raise ExerciseError("1/768 makes the logits' variance 1/768. "
                            "Hint: the variance is d * std², so std = 1/sqrt(d)")
    if weight_std > 0:
        got = tied_logit_std(768, float(weight_std))
        raise ExerciseError(f"with std {weight_std:g} the logits have std {got:.3f}, not 1. "
                            "Hint: logit std = sqrt(d) * weight std * hidden std")
    raise ExerciseError(f"weight_std must be positive, got {weight_std}")


def check_gpt2_init(init_fn: Callable[[torch.nn.Module], None]) -> bool:
    """Exercise 5.3: ``model.apply(init_fn)`` gives GPT-2's init.

    Every ``nn.Linear`` and ``nn.Embedding`` weight N(0, 0.02), Linear biases zero, other modules untouched.
    """
    from .init_stats import compare, normal

    if not callable(init_fn):
        raise ExerciseError(f"pass your function itself, not its result; got {type(init_fn).__name__}")
    with torch.random.fork_rng(devices=[]):  # seed a copy of the global RNG; the learner's stream is left alone
        torch.manual_seed(0)
        model = torch.nn.Sequential(
            torch.nn.Embedding(3000, 64), torch.nn.LayerNorm(64), torch.nn.Linear(64, 256), torch.nn.Linear(256, 64),
        )
        model.apply(init_fn)
    layer_norm = model[1]
    if not (torch.equal(layer_norm.weight, torch.ones(64)) and torch.equal(layer_norm.bias, torch.zeros(64))):
        raise ExerciseError("the LayerNorm changed. Hint: re-initialise only nn.Linear and nn.Embedding modules")
    for name, module in (("nn.Embedding(3000, 64)", model[0]), ("nn.Linear(64, 256)", model[2]),
                         ("nn.Linear(256, 64)", model[3])):
        result = compare(module.weight, normal(0.02))
        if not result.ok:
            raise ExerciseError(f"{name}.weight has std {result.std:.4f} and mean {result.mean:+.4f}; expected "
                                "N(0, 0.02). Hint: torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)")
        if isinstance(module, torch.nn.Linear) and not bool((module.bias == 0).all()):
            raise ExerciseError(f"{name}.bias is not zero. Hint: torch.nn.init.zeros_(module.bias)")
    return _correct("every Linear and Embedding weight ~ N(0, 0.02), biases 0, LayerNorm untouched")
