"""Notebook 0, the answer: the checkers of its exercises."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn as nn
import torch.nn.functional as F

from .checking import correct, require, require_function


def check_embedding_from_linear(embedding: object, linear: object) -> bool:
    """Exercise 0.1: an ``nn.Embedding`` whose lookup equals ``linear`` on one-hot rows, for every id, exactly."""
    if not isinstance(linear, nn.Linear):
        raise TypeError(f"linear must be an nn.Linear, got {type(linear).__name__}")
    require(isinstance(embedding, nn.Embedding), f"expected an nn.Embedding, got {type(embedding).__name__}")
    vocab_size, dim = linear.in_features, linear.out_features
    shape = tuple(embedding.weight.shape)
    require(shape != (dim, vocab_size), f"embedding.weight has shape {shape}, the linear layer's own [out_features, "
            "in_features]. Hint: an embedding stores a row per id, [num_embeddings, embedding_dim]: transpose the "
            "linear weight.")
    require(shape == (vocab_size, dim), f"embedding.weight has shape {shape}, expected {(vocab_size, dim)}: one row "
            "per id (the linear layer's in_features), as wide as its outputs (out_features)")
    ids = torch.arange(vocab_size)
    with torch.no_grad():
        got = embedding(ids.to(embedding.weight.device)).cpu()
        expected = linear(F.one_hot(ids, vocab_size).to(linear.weight)).cpu()
    require(torch.equal(got, expected), "embedding(ids) differs from linear(one_hot(ids)). Hint: row i of the table "
            "must be column i of linear.weight; build the layer from the linear weight, transposed "
            "(nn.Embedding.from_pretrained).")
    return correct("embedding_ex(ids) == linear_ex(one_hot(ids)) for every id, bit for bit")


#: the checker's own layers: an embedding of 7 rows of 3 numbers, and the linear layer that holds its transpose
_VOCAB, _DIM = 7, 3
#: three batches of ids: a repeated id in each, and id 6 in none
_BATCHES = ([2, 0, 2, 5], [1, 1, 1], [4, 3, 0, 3, 1])
_LOSSES = {"embedding": "(embedding(ids) * grad_out).sum()", "linear": "(linear(one_hot) * grad_out).sum()"}


def _layers(seed: int) -> tuple[nn.Embedding, nn.Linear]:
    weight = torch.randint(-8, 9, (_VOCAB, _DIM), generator=torch.Generator().manual_seed(seed)) / 8
    linear = nn.Linear(_VOCAB, _DIM, bias=False)
    linear.weight = nn.Parameter(weight.T.clone())
    return nn.Embedding.from_pretrained(weight, freeze=False), linear


def _own_grads(ids: torch.Tensor, grad_out: torch.Tensor, seed: int) -> dict[str, torch.Tensor]:
    """The two weight gradients, from fresh layers and the checker's own backward passes."""
    embedding, linear = _layers(seed)
    (embedding(ids) * grad_out).sum().backward()
    (linear(F.one_hot(ids, _VOCAB).float()) * grad_out).sum().backward()
    return {"embedding": embedding.weight.grad, "linear": linear.weight.grad}


def check_weight_grads(weight_grads: Callable, related: Callable) -> bool:
    """Exercise 0.2: ``weight_grads(embedding, linear, ids, grad_out)`` returns the two weight gradients, and
    ``related(g_embedding, g_linear)`` tells whether two gradients are the same numbers, transposed,
    up to float rounding.

    The checker calls ``weight_grads`` on layers of its own, three times on the same two layers (so a
    function that lets ``.grad`` accumulate fails), with ``grad_out`` of multiples of 1/8 (so
    every sum is exact and the gradients compare bit for bit). It then calls ``related`` on its own
    gradient pairs (:func:`_related_cases`): the true pairs, one of them a rounding apart (ids repeat up to
    three times), and pairs that are not transposes.
    """
    require_function("weight_grads", weight_grads)
    require_function("related", related)
    embedding, linear = _layers(0)
    generator = torch.Generator().manual_seed(1)
    earlier = {"embedding": torch.zeros(_VOCAB, _DIM), "linear": torch.zeros(_DIM, _VOCAB)}
    for batch in _BATCHES:
        ids = torch.tensor(batch)
        grad_out = torch.randint(-8, 9, (len(batch), _DIM), generator=generator) / 8
        result = weight_grads(embedding, linear, ids, grad_out)
        require(isinstance(result, (tuple, list)) and len(result) == 2
                and all(isinstance(g, torch.Tensor) for g in result),
                "return two tensors: embedding.weight.grad, linear.weight.grad")
        got = dict(zip(earlier, (g.detach().cpu().clone() for g in result), strict=True))
        expected = _own_grads(ids, grad_out, 0)
        require((got["embedding"].shape, got["linear"].shape) != (expected["linear"].shape,
                                                                  expected["embedding"].shape),
                "the two gradients come in the other order: return the embedding's first, then the linear layer's")
        for name in earlier:
            require(got[name].shape == expected[name].shape, f"the {name} gradient has shape "
                    f"{tuple(got[name].shape)}, expected {tuple(expected[name].shape)}: the shape of {name}.weight")
            require(not torch.equal(got[name], earlier[name] + expected[name]) or torch.equal(got[name],
                                                                                            expected[name]),
                    f"the {name} gradient holds this call's gradient plus the earlier calls': .backward() adds to "
                    ".grad. Hint: set embedding.weight.grad and linear.weight.grad to None before the backward passes.")
            require(torch.equal(got[name], expected[name]), f"the {name} gradient differs from the checker's "
                    f"backward pass of {_LOSSES[name]} for ids {batch}. Hint: run that backward pass, then return "
                    f"{name}.weight.grad.")
            earlier[name] += expected[name]
    for g_embedding, g_linear, truth, case in _related_cases():
        answer = related(g_embedding.clone(), g_linear.clone())
        if isinstance(answer, torch.Tensor) and answer.numel() == 1 and answer.dtype == torch.bool:
            answer = bool(answer.item())
        require(isinstance(answer, bool), f"related returned {type(answer).__name__}; return one bool, True or False "
                "(torch.equal gives one; a == b gives a tensor of them)")
        require(answer == truth, f"related(g_embedding, g_linear) returned {answer} for {case}")
    return correct("both gradients match the checker's own backward passes for 3 batches of ids, and related tells "
                   "the checker's related pairs, one of them a rounding apart, from its unrelated ones")


def _related_cases() -> list[tuple[torch.Tensor, torch.Tensor, bool, str]]:
    """Gradient pairs for ``related``: ``(g_embedding, g_linear, the right answer, a hint if it is missed)``."""
    cases = []
    for seed, batch in enumerate(_BATCHES):
        ids = torch.tensor(batch)
        grad_out = torch.randint(-8, 9, (len(batch), _DIM), generator=torch.Generator().manual_seed(seed)) / 8
        grads = _own_grads(ids, grad_out, seed)
        changed = grads["linear"].clone()
        changed[0, ids[0]] += 1
        cases += [(grads["embedding"], grads["linear"], True,
                   f"the two gradients of one backward pass (ids {batch}): they are related as the table says. "
                   "Hint: the embedding's gradient is [V, d], the linear layer's [d, V]"),
                  (grads["embedding"], changed, False,
                   "a pair whose numbers differ in one entry. Hint: compare every number, not only the shapes")]
    square = torch.arange(9.0).reshape(3, 3)  # V = d: an untransposed pair has the right shapes
    cases += [(square, square.T, True, "a 3 x 3 pair related as the table says"),
              (square, square.clone(), False,
               "a 3 x 3 pair that holds the same numbers in the same places, not transposed")]
    # an id repeated three times: the two layers may add its rows in different orders, one rounding apart
    rounded = grads["linear"].clone()
    rounded[0, ids[0]] = torch.nextafter(rounded[0, ids[0]], torch.tensor(float("inf")))
    return cases + [(grads["embedding"], rounded, True,
                     "a related pair that differs in one entry by float rounding, as when an id repeats three times "
                     "and the two layers add its rows in different orders. Hint: the table says bit for bit only "
                     "while no id repeats more than twice")]
