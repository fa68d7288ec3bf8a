"""Checkers for the exercises at the end of each notebook.

A checker takes the learner's answer. If it is right, it prints a line starting with
``correct`` and returns ``True``; if it is wrong, it raises :class:`ExerciseError`
(an ``AssertionError``) whose message says what is off and gives a hint. Each checker
is unit-tested against a right and a wrong answer (``tests/unit/test_exercises.py``).
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


def _number(name: str, value: object, what: str) -> float:
    """``value`` as a float: a Python number or a one-element tensor; ``TypeError`` naming ``what`` otherwise."""
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number ({what}), got {type(value).__name__}")
    return float(value)


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


def check_flop_growth(product_flops: dict[int, int], lookup_flops: dict[int, int], growth: float,
                      num_tokens: int, dim: int) -> bool:
    """Exercise 1.2: FLOPs measured with ``FlopCounterMode`` as ``V`` doubles, for ``num_tokens`` ids and ``d = dim``.

    ``product_flops[V]``: the one-hot product ``(T, V) @ (V, d)``, ``2·T·V·d`` FLOPs (a multiply and an
    add per multiply-add); ``lookup_flops[V]``: the lookup, 0 FLOPs; ``growth``: the product's factor
    per doubling of ``V``, 2.
    """
    one_hot_multiply_adds(num_tokens, 1, dim)  # TypeError or ValueError for a bad count or size
    for name, counts in (("product_flops", product_flops), ("lookup_flops", lookup_flops)):
        if not isinstance(counts, dict):
            raise TypeError(f"{name} must be a dict {{V: FLOPs}}, got {type(counts).__name__}")
        for size, flops in counts.items():
            if not isinstance(size, int) or isinstance(size, bool) or size < 1:
                raise TypeError(f"the keys of {name} must be vocabulary sizes V (positive ints), got {size!r}")
            if not isinstance(flops, (int, float)) or isinstance(flops, bool):
                raise TypeError(f"{name}[{size}] must be a number of FLOPs, got {type(flops).__name__}")
    if not isinstance(growth, (int, float)) or isinstance(growth, bool):
        raise TypeError(f"growth must be a number (a ratio of FLOP counts), got {type(growth).__name__}")

    sizes = sorted(product_flops)
    if len(sizes) < 3:
        raise ExerciseError(f"product_flops has {len(sizes)} size(s) of V; measure at least three: V = 15, 30, 60, 120")
    if any(larger != 2 * smaller for smaller, larger in zip(sizes, sizes[1:], strict=False)):
        raise ExerciseError(f"the sizes {sizes} do not double one after the other; use V = 15, 30, 60, 120")
    if sorted(lookup_flops) != sizes:
        raise ExerciseError(
            f"lookup_flops has the sizes {sorted(lookup_flops)}, product_flops {sizes}: measure both at every V"
        )
    for size in sizes:
        expected, got = 2 * one_hot_multiply_adds(num_tokens, size, dim).total, product_flops[size]
        if got == expected:
            continue
        if got == expected // 2:
            hint = "That is the count of multiply-adds; FlopCounterMode counts a multiply and an add: measure with it."
        elif got == 2 * size * dim:
            hint = f"That is one token's count: multiply the one-hot rows of all {num_tokens} ids."
        else:
            hint = ("Hint: wrap only the product in `with FlopCounterMode(display=False) as counter:` "
                    "and read counter.get_total_flops().")
        raise ExerciseError(f"product_flops[{size}] = {got}, expected {expected} (2·T·V·d). {hint}")
    counted = {size: flops for size, flops in lookup_flops.items() if flops != 0}
    if counted:
        raise ExerciseError(
            f"lookup_flops = {counted} where FlopCounterMode counts 0: the lookup table[ids] copies rows and "
            "multiplies nothing. Hint: measure the lookup alone, in its own `with FlopCounterMode(...)` block."
        )
    if abs(growth - 2) > 1e-9:
        raise ExerciseError(
            f"growth = {growth}, expected 2. Hint: divide the product's FLOPs at one V by those at half that V, "
            "e.g. product_flops[30] / product_flops[15]."
        )
    steps = " -> ".join(f"{product_flops[size]:,}" for size in sizes)
    return _correct(f"the product's FLOPs double with V ({steps}); the lookup's stay 0")


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


# --- Notebook 2: nn.Embedding is a lookup table -------------------------------------


def check_embedding_shapes(weight_shape: tuple[int, ...], output_shape: tuple[int, ...]) -> bool:
    """Exercise 2.1: shapes for ``nn.Embedding(100, 32)`` applied to ids of shape ``(8, 16)``."""
    import torch.nn as nn

    embedding = nn.Embedding(100, 32)
    expected_weight = tuple(embedding.weight.shape)
    expected_output = tuple(embedding(torch.zeros(8, 16, dtype=torch.long)).shape)
    weight_shape, output_shape = tuple(weight_shape), tuple(output_shape)
    if weight_shape != expected_weight:
        hint = " (that is nn.Linear's order)" if weight_shape == expected_weight[::-1] else ""
        raise ExerciseError(
            f"weight_shape = {weight_shape}, expected {expected_weight}{hint}. "
            "Hint: the weight holds one row per id: [num_embeddings, embedding_dim]."
        )
    if output_shape != expected_output:
        raise ExerciseError(
            f"output_shape = {output_shape}, expected {expected_output}. "
            "Hint: every id is replaced by its row, so the ids' shape gains a last axis of size embedding_dim."
        )
    return _correct(f"weight {expected_weight}, output {expected_output}: ids (B, T) -> (B, T, d)")


def check_pretrained_embedding(embedding: object, vectors: torch.Tensor) -> bool:
    """Exercise 2.2: ``vectors`` as a trainable embedding, id 0 as padding, with its own copy of the numbers."""
    import torch.nn as nn

    if not isinstance(embedding, nn.Embedding):
        raise ExerciseError(f"expected an nn.Embedding, got {type(embedding).__name__}")
    if tuple(embedding.weight.shape) != tuple(vectors.shape):
        raise ExerciseError(f"weight has shape {tuple(embedding.weight.shape)}, expected {tuple(vectors.shape)}")
    if not torch.equal(embedding.weight.detach().cpu(), vectors.detach().cpu()):
        raise ExerciseError(
            "the weight does not hold the pretrained vectors. Hint: nn.Embedding.from_pretrained keeps them as they "
            "are (padding_idx does not zero a pretrained row)."
        )
    if not embedding.weight.requires_grad:
        raise ExerciseError("the weight is frozen (requires_grad is False). Hint: from_pretrained(..., freeze=False)")
    if embedding.padding_idx != 0:
        raise ExerciseError(f"padding_idx is {embedding.padding_idx}, expected 0")
    if embedding.weight.data_ptr() == vectors.data_ptr():
        raise ExerciseError(
            "the weight shares memory with `vectors`: training would overwrite them. "
            "Hint: pass vectors.clone() to from_pretrained."
        )
    return _correct("trainable, padding id 0, the pretrained numbers in memory of its own")


def check_max_norm_rows(rows: list[int], weight: torch.Tensor, ids: torch.Tensor, max_norm: float) -> bool:
    """Exercise 2.3: which rows does one forward pass of ``nn.Embedding(max_norm=...)`` rewrite?

    The reference answer comes from PyTorch itself: a copy of ``weight`` is looked up
    with ``ids`` and the rows that changed are listed.
    """
    import torch.nn as nn

    embedding = nn.Embedding.from_pretrained(weight.detach().cpu().clone(), max_norm=max_norm)
    embedding(ids.cpu())
    changed = (embedding.weight != weight.detach().cpu()).any(dim=1)
    expected = [int(i) for i in changed.nonzero().flatten()]
    try:
        answer = sorted({int(r) for r in rows})
    except (TypeError, ValueError):
        raise ExerciseError(f"rows must be a list of row numbers, got {rows!r}") from None
    if answer != expected:
        norms = weight.detach().cpu().norm(dim=1)
        raise ExerciseError(
            f"rows = {answer}, expected {expected}. Hint: a row is rescaled only if it is looked up AND its norm "
            f"exceeds max_norm={max_norm}; the row norms are {[round(float(n), 3) for n in norms]}."
        )
    return _correct(f"one forward pass rescales rows {expected} and leaves the others untouched")


# --- Notebook 3: nn.Embedding vs nn.Linear ------------------------------------------


def check_linear_from_embedding(linear: object, embedding: object) -> bool:
    """Exercise 3.1: an ``nn.Linear`` that gives ``embedding(ids)`` on one-hot rows, exactly."""
    import torch.nn as nn
    import torch.nn.functional as F

    if not isinstance(linear, nn.Linear):
        raise ExerciseError(f"expected an nn.Linear, got {type(linear).__name__}")
    vocab_size, dim = embedding.weight.shape
    if (linear.in_features, linear.out_features) != (vocab_size, dim):
        raise ExerciseError(
            f"nn.Linear({linear.in_features}, {linear.out_features}); expected nn.Linear({vocab_size}, {dim}): "
            "in_features is the vocabulary (the one-hot width), out_features the embedding size"
        )
    if linear.bias is not None:
        raise ExerciseError("the layer has a bias, which is added to every output. Hint: bias=False")
    if tuple(linear.weight.shape) != (dim, vocab_size):
        raise ExerciseError(
            f"linear.weight has shape {tuple(linear.weight.shape)}, expected {(dim, vocab_size)}. Hint: nn.Linear "
            "stores [out_features, in_features], the transpose of the embedding's [num_embeddings, embedding_dim]."
        )
    ids = torch.arange(vocab_size, device=embedding.weight.device)
    x = F.one_hot(ids, vocab_size).to(linear.weight.dtype).to(linear.weight.device)
    with torch.no_grad():
        got, expected = linear(x).to(embedding.weight.device), embedding(ids)
    if not torch.equal(got, expected):
        raise ExerciseError(
            "linear(one_hot(ids)) differs from embedding(ids). Hint: copy the embedding's weight, "
            "transposed, into linear.weight."
        )
    return _correct("linear(one_hot(ids)) == embedding(ids) for every id, exactly")


def check_output_layer_from_embedding(head: object, embedding: object) -> bool:
    """Exercise 3.2: an output layer ``nn.Linear(d, V, bias=False)`` holding the embedding's numbers.

    Its weight is ``[V, d]``, the embedding's own shape: row ``v`` gives token ``v``'s logit, and no
    transpose is needed (copied or tied, both are right).
    """
    import torch.nn as nn

    if not isinstance(embedding, nn.Embedding):
        raise TypeError(f"embedding must be an nn.Embedding, got {type(embedding).__name__}")
    if not isinstance(head, nn.Linear):
        raise ExerciseError(f"expected an nn.Linear, got {type(head).__name__}")
    vocab_size, dim = embedding.weight.shape
    if (head.in_features, head.out_features) != (dim, vocab_size):
        raise ExerciseError(
            f"nn.Linear({head.in_features}, {head.out_features}); an output layer maps d={dim} features to "
            f"V={vocab_size} logits: nn.Linear({dim}, {vocab_size}, bias=False)"
        )
    if head.bias is not None:
        raise ExerciseError("the layer has a bias, which is added to every logit. Hint: bias=False")
    weight, table = head.weight.detach(), embedding.weight.detach().to(head.weight.device)
    if not torch.equal(weight, table):
        raise ExerciseError(
            "head.weight does not hold the embedding's numbers. Hint: copy embedding.weight into head.weight "
            f"as it is: nn.Linear({dim}, {vocab_size}) stores [out_features, in_features] = [{vocab_size}, {dim}], "
            "the embedding's own shape, so no transpose"
        )
    how = "tied: the same Parameter" if head.weight is embedding.weight else "copied, no transpose"
    return _correct(f"head.weight is [V={vocab_size}, d={dim}], the embedding's shape; row v gives token v's logit "
                    f"({how})")


def check_parameter_embedding(module: object, num_embeddings: int, embedding_dim: int) -> bool:
    """Exercise 3.3: a module holding an ``nn.Parameter`` ``weight [V, d]`` whose forward indexes it."""
    import torch.nn as nn

    if not isinstance(module, nn.Module):
        raise ExerciseError(f"expected an instance of your nn.Module subclass, got {type(module).__name__}")
    parameters = dict(module.named_parameters())
    if "weight" not in parameters:
        raise ExerciseError(
            f"the module has no parameter named 'weight' (its parameters: {sorted(parameters)}). Hint: a plain tensor "
            "attribute is not registered; wrap it: self.weight = nn.Parameter(...)"
        )
    weight = parameters["weight"]
    if tuple(weight.shape) != (num_embeddings, embedding_dim):
        raise ExerciseError(f"weight has shape {tuple(weight.shape)}, expected {(num_embeddings, embedding_dim)}")
    ids = torch.tensor([[1, 0, 1], [num_embeddings - 1, 2 % num_embeddings, 1]], device=weight.device)
    out = module(ids)
    if not isinstance(out, torch.Tensor) or tuple(out.shape) != (2, 3, embedding_dim):
        raise ExerciseError(
            f"module(ids) for ids of shape (2, 3) returned shape {tuple(getattr(out, 'shape', ()))}, "
            f"expected {(2, 3, embedding_dim)}"
        )
    if not torch.equal(out, weight[ids]):
        raise ExerciseError("module(ids) differs from weight[ids]. Hint: forward(ids) returns self.weight[ids]")
    weight.grad = None
    out.sum().backward()
    counts = torch.bincount(ids.flatten(), minlength=num_embeddings).to(weight.dtype)
    if weight.grad is None or not torch.equal(weight.grad, counts[:, None].expand_as(weight)):
        raise ExerciseError("the gradient does not reach the weight row by row. Hint: index the Parameter itself")
    weight.grad = None
    return _correct("an nn.Parameter plus indexing: a registered, trainable lookup table")


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


#: Exercise 4.4's experiment: a (6, 4) table from this seed, rows DECAY_EXERCISE_IDS looked up at every
#: step of the loss sum(E(ids)**2), row 0 never; Adam and AdamW with the same lr and weight_decay
DECAY_EXERCISE_SEED = 4
DECAY_EXERCISE_IDS = (1, 4)
DECAY_EXERCISE_STEPS = 10
DECAY_EXERCISE_LR = 0.01
DECAY_EXERCISE_WEIGHT_DECAY = 0.01


def _decay_exercise_start() -> torch.Tensor:
    """Exercise 4.4's table before training: ``(6, 4)``, N(0, 1) from ``DECAY_EXERCISE_SEED``."""
    return torch.randn(6, 4, generator=torch.Generator().manual_seed(DECAY_EXERCISE_SEED))


def _never_seen_row_distance(optimizer_name: str, steps: int = DECAY_EXERCISE_STEPS) -> float:
    """How far ``steps`` steps of ``"Adam"`` (L2 weight decay) or ``"AdamW"`` move row 0, never looked up."""
    start = _decay_exercise_start()
    table = torch.nn.Embedding.from_pretrained(start.clone(), freeze=False)
    optimizer_class = {"Adam": torch.optim.Adam, "AdamW": torch.optim.AdamW}[optimizer_name]
    optimizer = optimizer_class(table.parameters(), lr=DECAY_EXERCISE_LR, weight_decay=DECAY_EXERCISE_WEIGHT_DECAY)
    ids = torch.tensor(DECAY_EXERCISE_IDS)
    for _ in range(steps):
        optimizer.zero_grad()
        table(ids).pow(2).sum().backward()
        optimizer.step()
    return float((table.weight.detach()[0] - start[0]).norm())


def _distance(name: str, value: object) -> float:
    value = _number(name, value, "a distance, e.g. from `.norm().item()`")
    if not value >= 0 or value == float("inf"):
        raise ValueError(f"{name} must be a finite distance >= 0, got {value}")
    return float(value)


def check_decay_distances(adam_l2_distance: float, adamw_distance: float) -> bool:
    """Exercise 4.4: how far row 0, never looked up, moves in 10 steps of Adam with ``weight_decay`` and of AdamW.

    Both distances are Euclidean, between row 0 before and after the 10 steps; the checker runs the
    experiment itself. ``TypeError``/``ValueError`` for something that is not a distance.
    """
    adam_l2_distance = _distance("adam_l2_distance", adam_l2_distance)
    adamw_distance = _distance("adamw_distance", adamw_distance)
    expected_adam, expected_adamw = _never_seen_row_distance("Adam"), _never_seen_row_distance("AdamW")

    def near(got: float, expected: float) -> bool:
        return abs(got - expected) <= 1e-3 * expected

    if near(adam_l2_distance, expected_adam) and near(adamw_distance, expected_adamw):
        return _correct(f"Adam + L2 moved row 0 by {expected_adam:.4f}, AdamW by {expected_adamw:.6f}: "
                        f"{expected_adam / expected_adamw:.0f} times less. Adam normalises even the tiny decay "
                        "gradient to steps of about lr; AdamW's decoupled decay moves each weight by lr * wd * w")
    if near(adam_l2_distance, expected_adamw) and near(adamw_distance, expected_adam):
        raise ExerciseError("the two distances are swapped: the larger one is Adam's (L2), the smaller AdamW's")
    one_step = {"Adam": _never_seen_row_distance("Adam", 1), "AdamW": _never_seen_row_distance("AdamW", 1)}
    if near(adam_l2_distance, one_step["Adam"]) or near(adamw_distance, one_step["AdamW"]):
        raise ExerciseError(f"that is how far row 0 moves in one step; take {DECAY_EXERCISE_STEPS} steps, starting "
                            "each optimizer from the same table")
    if adam_l2_distance == 0 or adamw_distance == 0:
        raise ExerciseError("a distance of 0: row 0 has no gradient of its own, so only weight decay moves it. Hint: "
                            f"pass weight_decay={DECAY_EXERCISE_WEIGHT_DECAY} to both optimizers, and measure row 0")
    name, got, expected = next(
        (name, got, expected) for name, got, expected in (("Adam", adam_l2_distance, expected_adam),
                                                          ("AdamW", adamw_distance, expected_adamw))
        if not near(got, expected)
    )
    raise ExerciseError(
        f"{name}: you found {got:.6g}, expected {expected:.6g}. Hint: start from decay_start.clone(), take "
        f"{DECAY_EXERCISE_STEPS} steps of sum(E(decay_ids)**2) with lr={DECAY_EXERCISE_LR} and "
        f"weight_decay={DECAY_EXERCISE_WEIGHT_DECAY}, then (weight[0] - decay_start[0]).norm()"
    )


# --- Notebook 5: initialisation, in histograms ----------------------------------------


#: Exercise 5.1: the in_features (fan_in) of Llama's feed-forward up-projection, nn.Linear(4096, 11008)
LLAMA_UP_PROJECTION_IN = 4096


def _observed(name: str, value: object) -> float:
    value = _number(name, value, "measured from layer.weight, e.g. with `.item()`")
    if not 0 < value < float("inf"):
        raise ValueError(f"{name} must be a positive, finite number, got {value}")
    return float(value)


def check_linear_init_draw(layer: torch.nn.Module, observed_std: float, observed_max: float) -> bool:
    """Exercise 5.1: a drawn ``nn.Linear`` with the scale of ``nn.Linear(4096, 11008)``, and its measured statistics.

    ``observed_std``: the std of ``layer.weight``; ``observed_max``: its largest ``|w|``. The layer must keep
    the up-projection's ``in_features`` (its fan_in) and PyTorch's default initialisation.
    ``TypeError``/``ValueError`` for arguments of the wrong kind.
    """
    from .init_stats import compare, linear_bound, linear_init, linear_std

    if not isinstance(layer, torch.nn.Linear):
        raise TypeError(f"layer must be the torch.nn.Linear you drew, got {type(layer).__name__}")
    observed_std = _observed("observed_std", observed_std)
    observed_max = _observed("observed_max", observed_max)
    fan_in = LLAMA_UP_PROJECTION_IN
    bound, std = linear_bound(fan_in), linear_std(fan_in)
    if layer.in_features != fan_in:
        raise ExerciseError(
            f"your layer has in_features = {layer.in_features}: its weights are drawn with bound "
            f"1/sqrt({layer.in_features}), not Llama's. Hint: nn.Linear's fan_in is in_features; keep "
            f"in_features = {fan_in} and make out_features small, e.g. nn.Linear({fan_in}, 256)"
        )
    weight = layer.weight.detach()
    result = compare(weight, linear_init(fan_in))
    if not result.ok:
        largest = max(-result.min, result.max)
        raise ExerciseError(f"layer.weight has std {result.std:.6f} and largest |w| {largest:.6f}, not PyTorch's "
                            "default initialisation. Hint: draw a fresh nn.Linear and do not re-initialise it")
    actual_std, actual_max = float(weight.double().std()), float(weight.abs().max())
    if abs(observed_std - actual_std) > 1e-5 * actual_std:
        formula = " (that is the formula's value)" if abs(observed_std - std) < 1e-9 else ""
        raise ExerciseError(f"observed_std = {observed_std:.6f}{formula}, but your layer's weights have std "
                            f"{actual_std:.6f}. Hint: measure it, layer.weight.std().item()")
    if abs(observed_max - actual_max) > 1e-5 * actual_max:
        raise ExerciseError(f"observed_max = {observed_max:.6f}, but the largest |w| of your layer is "
                            f"{actual_max:.6f}. Hint: layer.weight.abs().max().item()")
    return _correct(f"std {actual_std:.6f} (1/sqrt(3 * {fan_in}) = {std:.6f}), largest |w| {actual_max:.6f} "
                    f"(bound 1/sqrt({fan_in}) = {bound:.6f}): nn.Linear({fan_in}, 11008) draws from the same "
                    f"U(-{bound:.6f}, {bound:.6f})")


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


# --- Notebook 6: what the lookup saves, measured ---------------------------------------

_LLAMA3_V = 128_256
#: Exercise 6.1: the smallest vocabulary to time, and how far apart the two sizes must be.
_TIMED_V_MIN, _TIMED_V_FACTOR = 1_000, 10


def check_lookup_timings(timings: dict[int, dict[str, float]]) -> bool:
    """Exercise 6.1: ``{V: {"lookup": seconds, "dense": seconds}}``, measured at two vocabulary sizes.

    Checks the structure and the sign (at ``V >= 1,000`` the lookup is the faster), never a
    speed: timings differ from machine to machine and from run to run.
    """
    import math

    if not isinstance(timings, dict):
        raise TypeError("timings must be a dict {V: {'lookup': seconds, 'dense': seconds}}, "
                        f"got {type(timings).__name__}")
    for vocab_size, entry in timings.items():
        if not isinstance(vocab_size, int) or isinstance(vocab_size, bool):
            raise TypeError(f"the keys of timings must be vocabulary sizes (ints), got {vocab_size!r}")
        if not isinstance(entry, dict):
            raise TypeError(f"timings[{vocab_size}] must be a dict {{'lookup': seconds, 'dense': seconds}}, "
                            f"got {type(entry).__name__}")
        for name, seconds in entry.items():
            if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
                raise TypeError(f"timings[{vocab_size}][{name!r}] must be a number of seconds, "
                                f"got {type(seconds).__name__}")
    sizes = sorted(timings)
    if len(sizes) != 2:
        raise ExerciseError(f"timings has {len(sizes)} vocabulary size(s), {sizes}; time both methods at two "
                            "sizes, to see how the gap changes with V")
    if sizes[0] < _TIMED_V_MIN:
        raise ExerciseError(f"V = {sizes[0]:,} is below {_TIMED_V_MIN:,}: choose sizes from {_TIMED_V_MIN:,} up, "
                            "the range of section 4")
    if sizes[1] < _TIMED_V_FACTOR * sizes[0]:
        raise ExerciseError(f"V = {sizes[0]:,} and {sizes[1]:,} are less than {_TIMED_V_FACTOR}x apart: choose "
                            f"sizes further apart (for example 1,000 and 50,257), so that the difference shows")
    for vocab_size in sizes:
        entry = timings[vocab_size]
        if set(entry) != {"lookup", "dense"}:
            raise ExerciseError(f"timings[{vocab_size}] has keys {sorted(entry)}; expected 'lookup' and 'dense'")
        if not all(math.isfinite(s) and s > 0 for s in entry.values()):
            raise ExerciseError(f"timings[{vocab_size}] = {entry}: each time must be a positive number of "
                                "seconds per call (the median of blocked_autorange, for example)")
        if entry["dense"] <= entry["lookup"]:
            raise ExerciseError(
                f"at V = {vocab_size:,} the dense product ({entry['dense']:.3g} s) was not slower than the lookup "
                f"({entry['lookup']:.3g} s). Hint: are the two swapped? Time F.embedding(ids, W) "
                "and F.one_hot(ids, V).float() @ W, each after a warm-up and over many calls, and keep the median "
                "(bench.blocked_autorange does all three)")
    return _correct(f"the lookup and the dense product timed at V = {sizes[0]:,} and V = {sizes[1]:,}: "
                    "the lookup was the faster at both")


def check_sparse_one_hot(x: torch.Tensor, ids: torch.Tensor, num_classes: int) -> bool:
    """Exercise 6.2: a sparse one-hot ``x`` of ``ids`` with ``torch.sparse.mm(x, W) == W[ids]`` exactly."""
    if not isinstance(x, torch.Tensor):
        raise ExerciseError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.layout not in (torch.sparse_coo, torch.sparse_csr):
        raise ExerciseError(
            f"x has layout {x.layout}: it is dense. Hint: build it with torch.sparse_coo_tensor(indices, values, size)"
        )
    expected_shape = (len(ids), num_classes)
    if tuple(x.shape) != expected_shape:
        raise ExerciseError(f"x has shape {tuple(x.shape)}, expected {expected_shape}: one row per id, V columns")
    nnz = x._nnz() if x.layout == torch.sparse_coo else x.values().numel()
    if nnz != len(ids):
        raise ExerciseError(f"x stores {nnz} values, expected {len(ids)}: a single nonzero per row")
    weight = torch.randn(num_classes, 3, generator=torch.Generator().manual_seed(6), dtype=x.dtype)
    got = torch.sparse.mm(x.cpu(), weight)
    expected = weight[ids.cpu()]
    if not torch.equal(got, expected):
        raise ExerciseError(
            "torch.sparse.mm(x, W) does not return W[ids]. Hint: the indices are a (2, n) tensor whose first row "
            "is the row number 0..n-1 and whose second row is the id (the column); every value is 1."
        )
    return _correct(f"a {expected_shape[0]} x {num_classes:,} one-hot stored as {nnz} nonzeros selects W[ids]")


def check_largest_batch(num_tokens: int) -> bool:
    """Exercise 6.3: the most tokens whose ``F.one_hot(ids, 128256).float()`` fits 1 GiB (int64 and float32 at once)."""
    per_token = _LLAMA3_V * (8 + 4)
    expected = 2**30 // per_token
    if not isinstance(num_tokens, int) or isinstance(num_tokens, bool):
        raise ExerciseError(f"num_tokens must be an int (a whole number of tokens), got {type(num_tokens).__name__}")
    if num_tokens == 2**30 // (_LLAMA3_V * 4):
        raise ExerciseError(
            f"num_tokens = {num_tokens:,} counts only the float32 one-hot. Hint: F.one_hot first returns int64 "
            "(8 bytes an entry); while .float() copies it, both exist: 12 bytes an entry."
        )
    if num_tokens == expected + 1:
        raise ExerciseError(f"num_tokens = {num_tokens:,} is one too many: round down, or the last token overflows")
    if num_tokens != expected:
        raise ExerciseError(
            f"num_tokens = {num_tokens:,}, expected {expected:,}. Hint: each token needs V·(8 + 4) bytes at the peak; "
            "divide 2**30 by that and round down."
        )
    return _correct(f"{expected:,} tokens: {expected * per_token / 2**30:.3f} GiB at the peak of the cast")


# --- Notebook 7: beyond the single lookup --------------------------------------------


def check_bag_mean_matrix(matrix: torch.Tensor, ids: torch.Tensor, offsets: torch.Tensor, vocab_size: int) -> bool:
    """Exercise 7.1: ``A`` ``(num_bags, V)`` with ``A @ W`` = ``EmbeddingBag(mode="mean")(ids, offsets)``.

    Row ``b`` holds the counts of bag ``b`` divided by its length; an empty bag is a row of zeros.
    """
    if not isinstance(matrix, torch.Tensor):
        raise ExerciseError(f"the matrix must be a torch.Tensor, got {type(matrix).__name__}")
    ids, offsets = ids.detach().cpu().long(), offsets.detach().cpu().long()
    expected_shape = (len(offsets), vocab_size)
    if tuple(matrix.shape) != expected_shape:
        raise ExerciseError(f"the matrix has shape {tuple(matrix.shape)}, expected {expected_shape}: one row per "
                            "bag, one column per vocabulary entry")
    if not matrix.is_floating_point():
        raise ExerciseError(f"the matrix has dtype {matrix.dtype}; it holds fractions, so it must be a float tensor")
    ends = torch.cat([offsets[1:], torch.tensor([len(ids)])])
    expected = torch.zeros(expected_shape, dtype=torch.float64)
    for bag, (start, end) in enumerate(zip(offsets.tolist(), ends.tolist(), strict=True)):
        if end > start:
            expected[bag] = torch.bincount(ids[start:end], minlength=vocab_size).double() / (end - start)
    got = matrix.detach().cpu().double()
    if got.isnan().any():
        raise ExerciseError("the matrix holds NaN: an empty bag has length 0, and EmbeddingBag returns zeros for it "
                            "(do not divide by zero)")
    if not torch.allclose(got, expected, rtol=0, atol=1e-6):
        bag = int((~torch.isclose(got, expected, rtol=0, atol=1e-6)).any(dim=1).nonzero()[0])
        start, end = offsets[bag].item(), ends[bag].item()
        counts = torch.bincount(ids[start:end], minlength=vocab_size).double()
        if torch.allclose(got[bag], counts):
            hint = "these are the counts (mode='sum'); the mean divides them by the bag's length"
        else:
            hint = ("bag b holds ids[offsets[b]:offsets[b + 1]] (the last bag runs to the end), and a repeated id "
                    "counts once per occurrence")
        raise ExerciseError(f"row {bag} (ids {ids[start:end].tolist()}) is off. Hint: {hint}")
    return _correct(f"A @ W is the mean of each of the {len(offsets)} bags, empty bags included")


#: Exercise 7.2: the vocabulary size, the widths and the seed of the tied and untied models
TYING_EXERCISE_VOCAB = 1_000
TYING_EXERCISE_DIMS = (16, 64, 256)
TYING_EXERCISE_SEED = 0


def _initial_lm_loss(model_class: Callable[..., torch.nn.Module], dim: int, tie: bool, ids: torch.Tensor,
                     context_length: int) -> float:
    """The next-token cross-entropy of ``model_class(V, dim, context_length, tie=tie)`` as built after the seed."""
    with torch.random.fork_rng(devices=[]):  # the learner's global generator is left as it was
        torch.manual_seed(TYING_EXERCISE_SEED)
        model = model_class(TYING_EXERCISE_VOCAB, dim, context_length, tie=tie)
    with torch.no_grad():
        logits = model(ids[:, :-1])  # (B, T - 1, V)
        return torch.nn.functional.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten()).item()


def check_tying_initial_loss(initial_loss: dict[tuple[int, bool], float], model_class: Callable[..., torch.nn.Module],
                             ids: torch.Tensor, context_length: int) -> bool:
    """Exercise 7.2: the loss at initialisation of a tied and an untied ``model_class``, for each width.

    ``initial_loss[(d, tie)]``: the next-token cross-entropy of
    ``model_class(TYING_EXERCISE_VOCAB, d, context_length, tie=tie)``, built right after
    ``torch.manual_seed(TYING_EXERCISE_SEED)``, on ``ids`` ``(B, T + 1)`` (inputs
    ``ids[:, :-1]``, targets ``ids[:, 1:]``), for every ``d`` in :data:`TYING_EXERCISE_DIMS`.
    The checker builds the same models on the CPU and measures the losses itself.
    """
    import math

    if not isinstance(initial_loss, dict):
        raise TypeError(f"initial_loss must be a dict from (d, tie) to a loss, got {type(initial_loss).__name__}")
    keys = {(dim, tie) for dim in TYING_EXERCISE_DIMS for tie in (True, False)}
    if set(initial_loss) != keys:
        missing, extra = sorted(keys - set(initial_loss)), sorted(set(initial_loss) - keys, key=repr)
        raise ValueError(f"initial_loss needs one entry per (d, tie), d in {TYING_EXERCISE_DIMS} and tie True or "
                         f"False: missing {missing}, unexpected {extra}")
    got = {key: _number(f"initial_loss[{key}]", value, "a loss, e.g. loss.item()")
           for key, value in initial_loss.items()}
    if not callable(model_class):
        raise TypeError(f"model_class must be the model's class (TinyLM), got {type(model_class).__name__}")
    if not isinstance(ids, torch.Tensor) or ids.dim() != 2 or ids.shape[1] < 2 or ids.is_floating_point():
        shape = tuple(ids.shape) if isinstance(ids, torch.Tensor) else type(ids).__name__
        raise ValueError(f"ids must be a 2-D tensor of token ids (B, T + 1), got {shape}")
    ids = ids.detach().cpu().long()
    expected = {(dim, tie): _initial_lm_loss(model_class, dim, tie, ids, context_length) for dim, tie in keys}
    uniform = math.log(TYING_EXERCISE_VOCAB)
    for dim, tie in sorted(keys):
        value, right = got[(dim, tie)], expected[(dim, tie)]
        if math.isclose(value, right, rel_tol=1e-3):
            continue
        if math.isclose(value, uniform, rel_tol=1e-6):
            hint = "that is ln V, the uniform guess; measure the model's own loss"
        elif math.isclose(value, expected[(dim, not tie)], rel_tol=1e-3):
            hint = (f"that is the loss of the {'untied' if tie else 'tied'} model: the key (d, tie) = ({dim}, {tie}) "
                    f"holds the model built with tie={tie}")
        else:
            hint = ("build each model right after torch.manual_seed(0), then measure "
                    "F.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten()) with logits = model(ids[:, :-1])")
        raise ExerciseError(f"initial_loss[({dim}, {tie})] = {value:.3f}, expected {right:.3f}. Hint: {hint}")
    tied = [expected[(dim, True)] for dim in TYING_EXERCISE_DIMS]
    untied = [expected[(dim, False)] for dim in TYING_EXERCISE_DIMS]
    near_uniform = all(abs(loss - uniform) < 0.5 for loss in untied)
    growing = all(a + 1 < b for a, b in zip(tied, tied[1:], strict=False)) and tied[0] > untied[0] + 1
    if not (near_uniform and growing):
        raise ExerciseError("these losses do not show what the exercise is about (untied near ln V, tied far above "
                            "and growing with d): pass the notebook's TinyLM, unchanged")
    listed = ", ".join(f"{d}" for d in TYING_EXERCISE_DIMS)
    return _correct(
        f"at d = {listed}, untied {', '.join(f'{x:.2f}' for x in untied)}, all near ln V = {uniform:.2f}: a "
        f"default nn.Linear head has std 1/sqrt(3d), small logits, a near-uniform guess. Tied "
        f"{', '.join(f'{x:.2f}' for x in tied)}, growing with d: the N(0, 1) table makes logits about sqrt(3d) "
        "times larger, a confident guess that is wrong before any training")


def check_sinusoidal_function(fn: Callable[[int, int], torch.Tensor]) -> bool:
    """Exercise 7.3: ``fn(num_positions, dim)`` -> the sinusoidal position table ``(num_positions, dim)``."""
    from .positions import sinusoidal_positions

    if not callable(fn):
        raise ExerciseError(f"pass your function itself (my_sinusoidal, not my_sinusoidal(...)); "
                            f"got {type(fn).__name__}")
    for num_positions, dim in ((1, 2), (10, 8), (50, 16)):
        expected = sinusoidal_positions(num_positions, dim)
        got = fn(num_positions, dim)
        if not isinstance(got, torch.Tensor):
            raise ExerciseError(f"fn({num_positions}, {dim}) returned {type(got).__name__}; return a torch.Tensor")
        if tuple(got.shape) != tuple(expected.shape):
            raise ExerciseError(f"fn({num_positions}, {dim}) has shape {tuple(got.shape)}, "
                                f"expected {tuple(expected.shape)}")
        got = got.detach().cpu().double()
        if not torch.allclose(got, expected.double(), rtol=0, atol=1e-4):
            if torch.allclose(got[:, 0::2], expected[:, 1::2].double(), atol=1e-4):
                hint = "the sine goes in the even columns (0, 2, ...) and the cosine in the odd ones"
            else:
                hint = "omega_i = 10000 ** (-2i / dim) for column pair i; PE[p, 2i] = sin(p * omega_i)"
            raise ExerciseError(f"fn({num_positions}, {dim}) differs from the sinusoidal table. Hint: {hint}")
    return _correct("your table matches sin/cos of position times 10000^(-2i/d)")


# --- Notebook 8: when the table does not fit one device ------------------------------


def check_shard_bounds_function(fn: Callable[[int, int], list[tuple[int, int]]]) -> bool:
    """Exercise 8.1: ``fn(vocab_size, world_size)`` -> contiguous ``(start, end)`` blocks, sizes differing by <= 1."""
    if not callable(fn):
        raise ExerciseError(f"pass your function itself, not its result; got {type(fn).__name__}")
    for vocab_size, world_size in ((10, 1), (10, 2), (11, 2), (11, 3), (50_257, 8), (7, 7)):
        bounds = [tuple(b) for b in fn(vocab_size, world_size)]
        where = f"fn({vocab_size}, {world_size}) = {bounds if len(bounds) <= 4 else str(bounds[:4]) + '...'}"
        if len(bounds) != world_size:
            raise ExerciseError(f"{where}: expected {world_size} blocks, one per process")
        if bounds[0][0] != 0 or bounds[-1][1] != vocab_size:
            raise ExerciseError(f"{where}: the blocks must start at 0 and end at {vocab_size} (end is exclusive)")
        if any(a[1] != b[0] for a, b in zip(bounds, bounds[1:], strict=False)):
            raise ExerciseError(f"{where}: each block must start where the previous one ends")
        sizes = [end - start for start, end in bounds]
        if max(sizes) - min(sizes) > 1:
            raise ExerciseError(f"{where}: block sizes {sizes} differ by more than one row. Hint: divmod(V, P) "
                                "gives the base size and how many blocks get one extra row")
    return _correct("contiguous blocks that cover the vocabulary, sizes differing by at most one")


def check_owner_function(fn: Callable[[int, int, int], tuple[int, int]]) -> bool:
    """Exercise 8.2: ``fn(token_id, vocab_size, world_size)`` -> ``(rank, local_row)`` under ``shard_bounds``."""
    from .distributed import shard_bounds

    if not callable(fn):
        raise ExerciseError(f"pass your function itself, not its result; got {type(fn).__name__}")
    for vocab_size, world_size in ((11, 2), (11, 3), (12, 5), (9, 1)):
        for rank, (start, end) in enumerate(shard_bounds(vocab_size, world_size)):
            for token_id in range(start, end):
                got = tuple(fn(token_id, vocab_size, world_size))
                if got != (rank, token_id - start):
                    raise ExerciseError(
                        f"fn({token_id}, {vocab_size}, {world_size}) = {got}, expected {(rank, token_id - start)}: "
                        f"rank {rank} holds rows [{start}, {end}), and the local row is token_id - start")
    return _correct("every id maps to the rank that holds its row, at row id - start")


#: Exercise 8.3: ``(world_size, bags)`` over an 11-row table. Every bag has ids in every shard, in unequal
#: numbers, so averaging the shards' own means gives another answer than the bag mean.
_BAG_CASES = (
    (2, ((0, 1, 2, 7), (6, 8, 9, 3), (5, 10, 5, 10))),  # shards [0, 6), [6, 11): 3 + 1, 1 + 3, 2 + 2 ids
    (3, ((0, 1, 2, 3, 5, 9), (4, 8, 9, 10, 0, 6))),  # shards [0, 4), [4, 8), [8, 11): 4 + 1 + 1, 1 + 2 + 3
)


def _shard_bag_results(bags: torch.Tensor, weight: torch.Tensor, world_size: int) -> dict[str, torch.Tensor]:
    """The right bag means and the tempting wrong ones, from each shard's rows (``(B, L)`` -> ``(B, d)``)."""
    from .distributed import local_lookup, shard_bounds

    sums, own_means = [], []
    for start, end in shard_bounds(weight.shape[0], world_size):
        rows = local_lookup(bags, weight[start:end], start)  # (B, L, d), zeros where the shard lacks the row
        owned = ((bags >= start) & (bags < end)).sum(dim=1, keepdim=True)  # (B, 1)
        sums.append(rows.sum(dim=1))
        own_means.append(rows.sum(dim=1) / owned)
    total, length = sum(sums), bags.shape[1]
    return {"right": total / length, "mean of means": sum(own_means) / world_size,
            "sum of means": sum(own_means), "divided by P": total / (length * world_size), "not divided": total}


def check_parallel_bag_mean(fn: Callable[[torch.Tensor, torch.Tensor, int], torch.Tensor]) -> bool:
    """Exercise 8.3: ``fn(bags (B, L), weight [V, d], world_size)`` -> the ``(B, d)`` bag means of a split table.

    Compared with ``F.embedding_bag(bags, weight, mode="mean")`` on the whole table; the
    tempting wrong combinations of the shards' results get a hint of their own.
    """
    import torch.nn.functional as F

    if not callable(fn):
        raise TypeError(f"pass your function itself (parallel_bag_mean, not parallel_bag_mean(...)); "
                        f"got {type(fn).__name__}")
    weight = torch.randn(11, 4, generator=torch.Generator().manual_seed(83))
    hints = {
        "mean of means": "that averages the shards' own means: a shard holding one of a bag's ids counts as much "
                         "as one holding all the others",
        "sum of means": "that adds up the shards' own means, each divided by how many ids that shard holds",
        "divided by P": "that divides by the number of processes too: the all-reduce adds the partial sums, "
                        "it does not average them",
        "not divided": "these are the bag sums: divide them by the bag length L, once, after adding the shards' sums",
    }
    off_by = 0.0
    for world_size, bag_lists in _BAG_CASES:
        bags = torch.tensor(bag_lists)
        expected = F.embedding_bag(bags, weight, mode="mean")
        candidates = _shard_bag_results(bags, weight, world_size)
        off_by = max(off_by, float((candidates["mean of means"] - expected).abs().max()))
        where = f"fn(bags of shape {tuple(bags.shape)}, weight [11, 4], world_size={world_size})"
        got = fn(bags.clone(), weight.clone(), world_size)
        if not isinstance(got, torch.Tensor):
            raise ExerciseError(f"{where} returned {type(got).__name__}; return a torch.Tensor")
        if tuple(got.shape) != tuple(expected.shape):
            raise ExerciseError(f"{where} has shape {tuple(got.shape)}, expected {tuple(expected.shape)}: "
                                "one d-vector per bag")
        got = got.detach().cpu().to(expected.dtype)
        if got.isnan().any():
            raise ExerciseError(f"{where} holds NaN: a shard that holds none of a bag's ids divides 0 by 0. Hint: "
                                "add up the shards' partial sums first, then divide by the bag length")
        if torch.allclose(got, expected, rtol=1e-5, atol=1e-6):
            continue
        wrong = next((name for name in hints if torch.allclose(got, candidates[name], rtol=1e-5, atol=1e-6)), None)
        hint = hints[wrong] if wrong else ("each shard sums the rows it holds (local_lookup gives zeros for the "
                                           "others), the partial sums are added, and the total is divided by L")
        raise ExerciseError(f"{where} is not the bag mean of F.embedding_bag(bags, weight, mode='mean'). "
                            f"Hint: {hint}")
    sizes = " and ".join(f"P = {world_size}" for world_size, _ in _BAG_CASES)
    return _correct(f"the bag means equal F.embedding_bag(mode='mean') on the whole table, for {sizes}; "
                    f"averaging the shards' own means would be off by up to {off_by:.2f}")


# --- Notebook 9: what the table learns ------------------------------------------------

#: Exercise 9.1: the word, and the words whose rows may end closest to its row after training
CLOSEST_EXERCISE_WORD = "cat"
CLOSEST_EXERCISE_CANDIDATES = ("dog", "bread", "park", "eats", "zebra")


def _cosines_to(table: torch.Tensor, vocab: Vocab, word: str, others: tuple[str, ...]) -> dict[str, float]:
    unit = torch.nn.functional.normalize(table.detach().cpu().float(), dim=1)
    return {other: float(unit[vocab.stoi[other]] @ unit[vocab.stoi[word]]) for other in others}


def check_closest_to_cat(answer: str, trained: torch.Tensor, vocab: Vocab) -> bool:
    """Exercise 9.1: which of :data:`CLOSEST_EXERCISE_CANDIDATES` has the row closest to ``cat``'s in ``trained``.

    ``trained``: the table ``[V, d]`` after training; ``vocab``: the corpus's vocabulary.
    """
    from .corpus import HELD_OUT, category_of

    word, candidates = CLOSEST_EXERCISE_WORD, CLOSEST_EXERCISE_CANDIDATES
    if not isinstance(answer, str) or answer not in candidates:
        raise ExerciseError(f"answer must be one of the words {list(candidates)}, got {answer!r}")
    cosines = _cosines_to(trained, vocab, word, candidates)
    best = max(cosines, key=cosines.get)
    if answer != best:
        if answer in HELD_OUT:
            hint = (f"{answer} is in the category {category_of(answer)!r}, but no sentence mentions it: its row was "
                    "never looked up, so it is as random as at the start")
        else:
            hint = (f"{answer} is in the category {category_of(answer)!r}, {word} in {category_of(word)!r}: "
                    "they fill different slots of the sentences, so they have different neighbours")
        raise ExerciseError(f"{answer}: cosine similarity {cosines[answer]:+.2f} with {word}, but {best} has "
                            f"{cosines[best]:+.2f}. Hint: {hint}")
    unseen = [w for w in candidates if w in HELD_OUT]
    also = (f"; {unseen[0]} ({cosines[unseen[0]]:+.2f}) is in the category {category_of(unseen[0])!r} too, but its "
            "row never moved") if unseen else ""
    return _correct(f"{best} ({cosines[best]:+.2f}) fills the same slots as {word}, so training pulled their rows "
                    f"together{also}")


def check_unmoved_rows(unmoved_rows: Callable[[torch.Tensor, torch.Tensor], list[int]], before: torch.Tensor,
                       after: torch.Tensor, vocab: Vocab) -> bool:
    """Exercise 9.2: ``unmoved_rows(before, after)`` -> sorted ids of the rows that are exactly equal.

    Tried on a small table first (one row changed only in its last bit), then on the
    notebook's table ``before`` and ``after`` training (``[V, d]`` each).
    """
    if not callable(unmoved_rows):
        raise ExerciseError(f"pass your function itself, not its result; got {type(unmoved_rows).__name__}")

    def call(a: torch.Tensor, b: torch.Tensor) -> list[int]:
        got = unmoved_rows(a, b)
        got = got.tolist() if isinstance(got, torch.Tensor) else got
        if not isinstance(got, (list, tuple)) or not all(isinstance(v, int) and not isinstance(v, bool) for v in got):
            raise ExerciseError(f"return a list of row ids (ints), got {got!r}")
        return list(got)

    small = torch.randn(6, 3, generator=torch.Generator().manual_seed(9))
    moved = small.clone()
    moved[1] += 1.0
    moved[3, 2] = torch.nextafter(moved[3, 2], torch.tensor(float("inf")))  # one bit of one number
    got = call(small, moved)
    if got != [0, 2, 4, 5]:
        hint = ("row 3 changed in its last bit only: it moved. Compare with == or torch.equal, not torch.allclose"
                if 3 in got else "a row is unmoved when every one of its numbers is exactly as before")
        raise ExerciseError(f"on a 6-row table where rows 1 and 3 changed, you returned {got}, expected [0, 2, 4, 5]. "
                            f"Hint: {hint}")
    before, after = before.detach().cpu(), after.detach().cpu()
    expected = [v for v in range(before.shape[0]) if torch.equal(before[v], after[v])]
    got = call(before, after)
    if got != expected:
        raise ExerciseError(f"on the notebook's table you returned {got}, expected {expected} (sorted row ids)")
    tokens = [vocab.itos[v] for v in expected]
    return _correct(f"rows {expected}: {', '.join(tokens)}. All were never looked up except <pad>, which fills "
                    "many contexts: padding_idx keeps its gradient at zero")


def check_narrow_tables(models: dict[int, torch.nn.Module], contexts: torch.Tensor, targets: torch.Tensor) -> bool:
    """Exercise 9.3: trained models with tables of width ``d = 1`` and ``d = 2`` (and a wider one), keyed by ``d``.

    The checker measures each model's loss on ``contexts`` ``(N, 2w)`` -> ``targets`` ``(N,)``
    itself: it must fall as ``d`` grows, and stay below the uniform guess's ``ln V``.
    """
    import math

    if not isinstance(models, dict) or not all(isinstance(d, int) for d in models):
        raise ExerciseError(f"models must be a dict from the width d (an int) to a trained model, got {models!r}")
    if not {1, 2} <= set(models) or max(models) <= 2:
        raise ExerciseError(f"models has the widths {sorted(models)}; expected 1, 2 and the notebook's wider model")
    losses = {}
    for dim in sorted(models):
        model = models[dim]
        tables = [m for m in model.modules() if isinstance(m, torch.nn.Embedding)] \
            if isinstance(model, torch.nn.Module) else []
        if len(tables) != 1:
            raise ExerciseError(f"models[{dim}] must be a model with one nn.Embedding (the CBOW of the notebook), "
                                f"got {type(model).__name__}")
        if tables[0].embedding_dim != dim:
            raise ExerciseError(f"models[{dim}] has a table of width {tables[0].embedding_dim}, not {dim}: "
                                f"build it as CBOW(V, {dim})")
        with torch.no_grad():
            losses[dim] = torch.nn.functional.cross_entropy(model(contexts), targets).item()
        uniform = math.log(tables[0].num_embeddings)
        if not losses[dim] < 0.75 * uniform:
            raise ExerciseError(f"models[{dim}] has a loss of {losses[dim]:.3f}, close to the uniform guess "
                                f"ln V = {uniform:.3f}: has it been trained (train(model, optimizer, steps))?")
    dims = sorted(losses)
    if not all(losses[a] > losses[b] for a, b in zip(dims, dims[1:], strict=False)):
        raise ExerciseError(f"the losses {', '.join(f'{losses[d]:.3f} (d={d})' for d in dims)} do not fall as d "
                            "grows. Hint: train every model for the same number of steps, from the same seed")
    listed = ", ".join(f"{losses[d]:.3f} (d={d})" for d in dims)
    return _correct(f"final loss {listed}: a narrower table fits the corpus less well. With d = 1 a row is one "
                    "number, so any two rows have cosine similarity +1 or -1: the sign is all that is left")
