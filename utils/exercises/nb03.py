"""Notebook 3, nn.Embedding vs nn.Linear: the checkers of its exercises."""

from __future__ import annotations

import copy
from collections.abc import Callable

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

from .checking import ExerciseError, correct, require_function


def check_vectors_from_linear(vectors_from_linear: Callable) -> bool:
    """Exercise 3.1: ``vectors_from_linear(linear, ids)`` -> ``linear(one_hot(ids))`` for an ``nn.Linear(V, d,
    bias=False)``, for ids of any shape, read out of ``linear.weight`` (``weight.T[ids]``): no FLOPs spent.

    The checker calls it on layers of its own (a ``[3, 7]`` weight, and a square ``[4, 4]`` one, where the rows
    of the weight have the right shape and the wrong numbers), with ids of shapes ``(4,)`` and ``(2, 2)``.
    """
    require_function("vectors_from_linear", vectors_from_linear)
    generator = torch.Generator().manual_seed(3)
    cases = [((7, 3), torch.tensor([2, 0, 6, 2])), ((7, 3), torch.tensor([[1, 5, 0], [5, 3, 3]])),
             ((4, 4), torch.tensor([0, 3, 1, 3]))]
    for (vocab_size, dim), ids in cases:
        linear = nn.Linear(vocab_size, dim, bias=False)
        with torch.no_grad():
            linear.weight.copy_(torch.randint(-8, 9, (dim, vocab_size), generator=generator) / 8)
            expected = linear(F.one_hot(ids, vocab_size).float())
        with FlopCounterMode(display=False) as counter:
            try:
                got = vectors_from_linear(linear, ids.clone())
            except IndexError as error:
                raise ExerciseError(
                    f"vectors_from_linear raised IndexError ({error}) on nn.Linear({vocab_size}, {dim}), whose weight "
                    f"has {dim} rows. Hint: linear.weight is [out_features, in_features] = [d, V]; token i's vector "
                    "is its column i"
                ) from None
        flops = counter.get_total_flops()
        if flops:
            raise ExerciseError(f"vectors_from_linear spent {flops} FLOPs for {ids.numel()} ids: it multiplies (a "
                                "one-hot product, or the layer itself). Hint: a token's vector is already stored "
                                "in linear.weight; index it")
        if not isinstance(got, torch.Tensor):
            raise ExerciseError(f"vectors_from_linear returned {type(got).__name__}; return a tensor")
        got = got.detach()
        if got.shape != expected.shape and got.shape == (dim,) + ids.shape:
            raise ExerciseError(
                f"for ids of shape {tuple(ids.shape)} the result has shape {tuple(got.shape)}: the right numbers, "
                "with d first. Hint: linear.weight[:, ids] puts the weight's first axis (d) before the ids' axes; "
                "move it last, or index the rows of linear.weight.T"
            )
        if got.shape != expected.shape:
            rows = got.shape == ids.shape + (vocab_size,)
            raise ExerciseError(
                f"for ids of shape {tuple(ids.shape)} on nn.Linear({vocab_size}, {dim}) the result has shape "
                f"{tuple(got.shape)}" + (": those are rows of linear.weight, each as long as the vocabulary. Hint: "
                                         "linear.weight is [out_features, in_features] = [d, V]; token i's vector is "
                                         "its column i" if rows else "; it should be the ids' shape plus d")
            )
        if not torch.equal(got, expected):
            raise ExerciseError(
                f"for ids {ids.tolist()} on nn.Linear({vocab_size}, {dim}) the vectors differ from "
                "linear(one_hot(ids)). Hint: token i's vector is column i of linear.weight, not row i (on a square "
                "layer both have the right shape)"
            )
    return correct("vectors_from_linear returned linear(one_hot(ids)) for the checker's layers and ids of 2 shapes, "
                   "bit for bit, and spent no FLOPs")


def check_tied_output_layer(head: object, embedding: object) -> bool:
    """Exercise 3.2: ``head``, an ``nn.Linear(d, V, bias=False)`` tied to ``embedding``: both layers use one
    ``[V, d]`` Parameter (either way round: ``head.weight = embedding.weight``, or the reverse, as GPT-2 does).

    The checker runs a backward pass through both layers, on deep copies (so the layers passed in keep their
    numbers and have no gradient), and checks that the table's gradient holds both uses' parts.
    """
    if not isinstance(embedding, nn.Embedding):
        raise TypeError(f"embedding must be an nn.Embedding, got {type(embedding).__name__}")
    if not isinstance(head, nn.Linear):
        raise ExerciseError(f"expected an nn.Linear, got {type(head).__name__}")
    vocab_size, dim = embedding.weight.shape
    if (head.in_features, head.out_features) != (dim, vocab_size):
        raise ExerciseError(
            f"nn.Linear({head.in_features}, {head.out_features}): an output layer maps the embedding's width d to "
            "one logit per token, so in_features is d and out_features the vocabulary size V"
        )
    if head.bias is not None:
        raise ExerciseError("the layer has a bias, which is added to every logit. Hint: bias=False")
    if tuple(head.weight.shape) != (vocab_size, dim):
        raise ExerciseError(
            f"head_ex.weight has shape {tuple(head.weight.shape)}: nn.Linear(d, V) stores [out_features, "
            "in_features] = [V, d], the embedding's own shape, so no transpose"
        )
    table = embedding.weight.detach()
    h = torch.randn(3, dim, generator=torch.Generator().manual_seed(0)).to(table.device)
    with torch.no_grad():
        logits = head(h)
    if not torch.allclose(logits, h @ table.T, rtol=1e-5, atol=1e-6):
        raise ExerciseError("head_ex(h) differs from h @ emb_ex.weight.T: logit v must be the dot product of h with "
                            "row v of emb_ex's table")
    own_embedding, own_head = copy.deepcopy((embedding, head))  # one Parameter in both stays one in the copies
    ids = torch.tensor([1, vocab_size - 1, 1], device=table.device)
    (own_embedding(ids).sum() + own_head(h).sum()).backward()
    lookup_part = torch.bincount(ids.cpu(), minlength=vocab_size).to(table)[:, None].expand(vocab_size, dim)
    head_part = h.sum(dim=0).expand(vocab_size, dim)  # d(sum of h @ W.T)/dW: every row gets the sum of the h's
    grad = own_embedding.weight.grad
    if grad is None or not torch.allclose(grad, lookup_part + head_part, rtol=1e-5, atol=1e-6):
        if head.weight.data_ptr() == embedding.weight.data_ptr():
            raise ExerciseError(
                "head_ex and emb_ex share their numbers, but as two Parameters: each gets only its own layer's part "
                "of the gradient, and an optimizer would see the table twice. nn.Parameter(...) makes a new leaf "
                "(section 5). Hint: assign the embedding's Parameter itself"
            )
        raise ExerciseError(
            "head_ex holds a copy of emb_ex's numbers, not the same table: a training step on one would not move "
            "the other. Hint: give head_ex the embedding's weight Parameter itself"
        )
    return correct("head_ex gives emb_ex's logits, and the gradients of both layers' uses add up in one table")


#: Exercise 3.3: the layers the checker builds from the learner's class
_SMALL, _WIDE, _PADDING = (7, 3), (1000, 16), 2


def check_parameter_embedding(cls: object) -> bool:
    """Exercise 3.3: a class ``MyEmbedding(num_embeddings, embedding_dim, padding_idx=None)``, without
    ``nn.Embedding`` or ``nn.Linear``: a registered ``weight`` ``[V, d]`` drawn from N(0, 1), its padding row (if
    any) zero; ``forward(ids)`` returns ``weight[ids]``, and the padding row gets no gradient.

    The checker builds layers of its own from the class, and leaves the random state as it found it.
    """
    if isinstance(cls, nn.Module):
        raise ExerciseError("pass the class itself (MyEmbedding, not MyEmbedding(...)): the checker builds layers "
                            "of its own sizes from it")
    if not (isinstance(cls, type) and issubclass(cls, nn.Module)):
        raise ExerciseError(f"expected your nn.Module subclass, got {type(cls).__name__}")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        module = cls(*_SMALL)
        wide = cls(*_WIDE)
        try:
            padded = cls(*_SMALL, padding_idx=_PADDING)
        except TypeError as error:
            raise ExerciseError(f"MyEmbedding(7, 3, padding_idx=2) raised TypeError ({error}). Hint: take a third "
                                "argument, padding_idx=None") from None
    if any(isinstance(part, (nn.Embedding, nn.Linear)) for part in module.modules()):
        raise ExerciseError("the module holds an nn.Embedding or nn.Linear: build the table yourself, as an "
                            "nn.Parameter")
    for layer, name in ((module, "MyEmbedding(7, 3)"), (padded, "MyEmbedding(7, 3, padding_idx=2)")):
        parameters = dict(layer.named_parameters())
        if "weight" not in parameters:
            raise ExerciseError(
                f"{name} has no parameter named 'weight' (its parameters: {sorted(parameters)}). Hint: a plain "
                "tensor attribute is not registered; wrap it: self.weight = nn.Parameter(...)"
            )
        if tuple(parameters["weight"].shape) != _SMALL:
            raise ExerciseError(f"{name}.weight has shape {tuple(parameters['weight'].shape)}: "
                                "[num_embeddings, embedding_dim] is one row per id")
    std = wide.weight.detach().std().item()
    if not 0.9 < std < 1.1:
        raise ExerciseError(f"MyEmbedding(1000, 16).weight has std {std:.3f}: draw it from N(0, 1), "
                            "as nn.Embedding does (torch.randn)")
    weight, padded_weight = module.weight, padded.weight
    if not torch.equal(padded_weight.detach()[_PADDING], torch.zeros(_SMALL[1])):
        raise ExerciseError("MyEmbedding(7, 3, padding_idx=2).weight[2] is not zero: set the padding row to zero "
                            "when the layer is built")
    if not bool((padded_weight.detach()[torch.arange(_SMALL[0]) != _PADDING] != 0).any(dim=1).all()):
        raise ExerciseError("MyEmbedding(7, 3, padding_idx=2) has zero rows besides row 2: zero only the padding row")
    ids = torch.tensor([[1, 0, 2], [_SMALL[0] - 1, 2, 1]])
    counts = torch.bincount(ids.flatten(), minlength=_SMALL[0]).to(weight.dtype)[:, None].expand(_SMALL)
    for layer, table, name in ((module, weight, "MyEmbedding(7, 3)"),
                               (padded, padded_weight, "MyEmbedding(7, 3, padding_idx=2)")):
        out = layer(ids)
        if not isinstance(out, torch.Tensor) or tuple(out.shape) != (2, 3, _SMALL[1]):
            raise ExerciseError(f"{name}(ids) for ids of shape (2, 3) returned shape "
                                f"{tuple(getattr(out, 'shape', ()))}: the ids' shape plus embedding_dim")
        if not torch.equal(out, table[ids]):
            raise ExerciseError(f"{name}(ids) differs from weight[ids]. Hint: forward(ids) returns the rows at ids")
        out.sum().backward()
        expected = counts.clone()
        if layer is padded:
            expected[_PADDING] = 0
        if table.grad is None:
            raise ExerciseError(f"no gradient reached {name}.weight. Hint: index the Parameter itself")
        if layer is padded and not torch.equal(table.grad[_PADDING], expected[_PADDING]):
            raise ExerciseError("a gradient reached the padding row of MyEmbedding(7, 3, padding_idx=2): training "
                                "would move it. Hint: F.embedding takes a padding_idx, as nn.Embedding.forward shows")
        if not torch.equal(table.grad, expected):
            raise ExerciseError(f"the gradient of {name}.weight is not one row of ones per lookup. Hint: index the "
                                "Parameter itself, without changing the rows")
    return correct("MyEmbedding registers a trainable weight drawn from N(0, 1), returns weight[ids] for ids of shape "
                   "(2, 3), and its gradient reaches every row looked up except the padding row, which starts at zero")
