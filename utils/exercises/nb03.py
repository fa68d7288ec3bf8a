"""Notebook 3, nn.Embedding vs nn.Linear: the checkers of its exercises."""

from __future__ import annotations

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

from ..language import N_, _
from .checking import (
    AnswerTypeError,
    ExerciseError,
    answered,
    as_number,
    correct,
    hint,
    letters_prediction,
    looked_up_rows,
    prediction,
    require,
    returned_tensor,
    writes,
)


def _square_without_transpose() -> tuple[int, int]:
    """Where ``nn.Linear(4, 4)``'s output ``[0, 1]`` on the one-hot rows of ids ``[2, 3, 1]`` sits in the table of an
    ``nn.Embedding(4, 4)`` copied into its weight without the transpose: ``(row, column)``, found by value."""
    generator = torch.Generator().manual_seed(5)
    table, ids = torch.randn(4, 4, generator=generator), torch.tensor([2, 3, 1])
    linear = nn.Linear(4, 4, bias=False)
    with torch.no_grad():
        linear.weight.copy_(table)
        got = linear(F.one_hot(ids, 4).float())
    (where,) = (table == got[0, 1]).nonzero().tolist()  # the draw's 16 numbers differ: exactly one entry
    return tuple(where)


def check_square_guess(square_guess: object) -> None:
    """Section 1's prediction: what ``L_square(one_hot(ids))[0, 1]`` is, once a square ``nn.Linear``'s weight is
    copied from the embedding's table without the transpose: ``"error"``, ``"other"`` (a number not in the table) or
    the entry ``(row, column)`` of the table it equals. Judged on the checker's own layers; nothing while it is None."""
    if not answered(square_guess=square_guess):
        return
    if isinstance(square_guess, str):  # the two answers that are no entry: an error, or numbers not in the table
        require(square_guess in ("error", "other"), _(
            'square_guess must be "error", "other" or (row, column), got {guess!r}').format(guess=square_guess))
        require(False, _("nothing raises: with V = d the copy and the product both find the shapes they need") if
                square_guess == "error" else _(
                "a one-hot row times a matrix picks one of its rows exactly (notebook 1), so each output is a number "
                "of the weight, and the weight now holds the table: which entry?"))
    guess = tuple(prediction("square_guess", square_guess, (tuple, list), "(0, 0)"))
    require(len(guess) == 2 and all(isinstance(i, int) and 0 <= i < 4 for i in guess),
            _("square_guess must be (row, column), two ids from 0 to 3, got {guess}").format(guess=guess))
    require(guess == _square_without_transpose(), hint([
        (guess == (2, 1), _("that is E_square(ids)[0, 1], row 2 of the table. nn.Linear computes x @ weight.T, and "
                            "weight now holds the table untransposed: which entry of table.T does output 1 of "
                            "id 2's one-hot row read?"))],
        _("id 2's one-hot row picks row 2 of weight.T, and weight now holds the table: output 1 is which entry?")))
    return correct(_("square_guess is the entry that a square nn.Linear returns at [0, 1] with the embedding's table "
                      "copied in untransposed. It multiplies by weight.T, so the one-hot row of id i picks column i "
                      "of the table. With V ≠ d the shapes stop this mistake; with V = d nothing does"))


def _sharing_candidates() -> set[int]:
    """The numbers of section 5's four candidates that share memory with the embedding's weight, measured."""
    weight = nn.Embedding(4, 5).weight
    candidates = [weight.T, nn.Parameter(weight.T), nn.Parameter(weight.T.detach()),
                  nn.Parameter(weight.T.detach().clone())]
    return {number for number, t in enumerate(candidates, start=1) if t.data_ptr() == weight.data_ptr()}


def _flags_2_and_3() -> tuple[tuple[bool, bool], tuple[bool, bool]]:
    """``(is_leaf, requires_grad)`` of ``nn.Parameter(w.T)`` and of ``nn.Parameter(w.T.detach())``, measured on an
    embedding's weight ``w``."""
    weight = nn.Embedding(4, 5).weight
    return tuple((t.is_leaf, t.requires_grad) for t in (nn.Parameter(weight.T), nn.Parameter(weight.T.detach())))


def check_detach_guesses(flags_2_and_3: object, shares_guess: object) -> None:
    """Section 5's two predictions, judged on the checker's own embedding; nothing while one is None.
    ``flags_2_and_3``, the question of Raschka's reader: the ``(is_leaf, requires_grad)`` pairs of candidates 2,
    ``nn.Parameter(emb.weight.T)``, and 3, ``nn.Parameter(emb.weight.T.detach())``.
    ``shares_guess``: the numbers (1 to 4) of the candidates that share memory with ``emb.weight``."""
    if not answered(flags_2_and_3=flags_2_and_3, shares_guess=shares_guess):
        return
    flags = prediction("flags_2_and_3", flags_2_and_3, (tuple, list), "((False, False), (False, False))")
    require(len(flags) == 2 and all(isinstance(pair, (tuple, list)) and len(pair) == 2
                                    and all(isinstance(flag, bool) for flag in pair) for pair in flags),
            _("flags_2_and_3 must be two (is_leaf, requires_grad) pairs of True or False, candidate 2's then "
              "candidate 3's; got {guess!r}").format(guess=flags_2_and_3))
    flags = tuple(tuple(pair) for pair in flags)
    require(flags == _flags_2_and_3(), hint([
        (flags[0] != flags[1], _("the two differ only by a .detach() inside nn.Parameter(...): does "
                                 "nn.Parameter(t) look at whether t was detached?")),
        (not all(is_leaf for is_leaf, _requires_grad in flags),
         _("a leaf is a tensor that no recorded operation produced: is a new nn.Parameter one?"))],
        _("nn.Parameter makes a weight for an optimizer to train: does a trainable weight require grad?")))
    guess = prediction("shares_guess", shares_guess, (set, frozenset, list, tuple), "{...}")
    guess = set(guess)
    require(guess <= set(range(1, 5)), _("shares_guess holds {guess}: the candidates are numbered 1 to 4").format(
                                           guess=sorted(guess - set(range(1, 5)))))
    actual = _sharing_candidates()
    require(guess == actual, hint([
        (2 in guess and 3 in actual - guess, _("does .detach() copy the numbers, or only leave the graph?")),
        (bool((actual - guess) & {2, 3}), _("does nn.Parameter(t) copy t's numbers, or wrap the same memory?")),
        (bool(guess - actual), _("one of the four makes its own copy of the numbers: which operation copies?"))],
        _("a transpose is a view: the same memory, read in another order")))
    return correct(_("flags_2_and_3 and shares_guess match the flags and the memory sharing that the checker "
                      "measured on its own embedding"))




#: Exercise 3.1: the four expressions whose result the learner predicts, by letter (``linear`` an ``nn.Linear(V, d,
#: bias=False)``, ``i`` a token id): does each return token ``i``'s vector, ``linear.weight[:, i]``?
TOKEN_VECTOR_EXPRESSIONS = {
    "a": lambda linear, i: linear.weight.T[i],
    "b": lambda linear, i: linear.weight.reshape(linear.in_features, linear.out_features)[i],
    "c": lambda linear, i: linear.weight.flatten()[i::linear.in_features],
    "d": lambda linear, i: linear(F.one_hot(torch.tensor([i]), linear.in_features).float())[0],
}
#: the hint for a letter predicted wrongly, by letter: a reason to look at, never the verdict
TOKEN_VECTOR_HINTS = {
    "a": N_("L_big.weight.T has the embedding's shape [V, d]: what is its row i?"),
    "b": N_("reshape reads L_big.weight row after row: which of its numbers land in row i of the new shape?"),
    "c": N_("read row after row, at which position of flatten() does L_big.weight[j, i] come?"),
    "d": N_("nn.Linear computes x @ weight.T, and a one-hot row times a matrix only selects (notebook 1)"),
}


def check_token_vector(token_vector: object) -> None:
    """Exercise 3.1: the set of letters of :data:`TOKEN_VECTOR_EXPRESSIONS` that return token ``i``'s vector, column
    ``i`` of an ``nn.Linear(V, d, bias=False)``'s weight, equal (``torch.equal``) for every ``i``; computed here on
    the CPU, on a layer of the checker's own. Judges nothing while the guess is None."""
    if not answered(token_vector=token_vector):
        return
    guess = letters_prediction("token_vector", token_vector, TOKEN_VECTOR_EXPRESSIONS)
    vocab_size, dim = 50, 7
    linear = nn.Linear(vocab_size, dim, bias=False)
    with torch.no_grad():
        linear.weight.copy_(torch.randn(dim, vocab_size, generator=torch.Generator().manual_seed(3)))
        measured = {letter for letter, expression in TOKEN_VECTOR_EXPRESSIONS.items()
                    if all(torch.equal(expression(linear, i), linear.weight[:, i]) for i in range(vocab_size))}
    wrong = sorted(set(guess) ^ measured)
    require(not wrong, _("token_vector is not right about {count} of the four expressions. Hint for {wrong}: "
                          "{hint}").format(
                           count=len(wrong), wrong=wrong[0], hint=_(TOKEN_VECTOR_HINTS[wrong[0]])) if wrong else "")
    return correct(_("your set names exactly the expressions that return token i's vector, column i of the weight, "
                      "for every i of a layer of the checker's own, computed on the CPU"))


def check_tied_output_layer(head: object, table: object) -> None:
    """Exercise 3.2: ``head``, an ``nn.Module`` output layer tied to ``table``, an ``nn.Linear(V, d, bias=False)``
    used on one-hot rows: ``head(h)`` is ``h @ table.weight`` (logit ``v`` = ``h`` · column ``v``), and both layers
    use one Parameter, ``table.weight`` (``[d, V]``), so the gradients of both uses add up in it.

    The checker runs a backward pass through both layers, on deep copies (so the layers passed in keep their
    numbers and have no gradient), and checks that the table's gradient holds both uses' parts.
    """
    if not answered(head_ex=head):
        return
    if not isinstance(table, nn.Linear):
        raise AnswerTypeError(_("table must be an nn.Linear, got {type}").format(type=type(table).__name__))
    require(isinstance(head, nn.Module), _("head_ex must be an nn.Module (a layer), got {type}").format(
                                             type=type(head).__name__))
    dim, vocab_size = table.weight.shape
    weight = table.weight.detach()
    h = torch.randn(3, dim, generator=torch.Generator().manual_seed(0)).to(weight.device)
    with torch.no_grad():
        try:
            logits = head(h)
        except RuntimeError as error:
            raise ExerciseError(_("head_ex(h) for h of shape (3, {dim}) raised RuntimeError "
                                   "({error}). Hint: ").format(dim=dim, error=str(error).splitlines()[0]) + hint([
                                    (isinstance(head, nn.Linear) and tuple(head.weight.shape) == (dim, vocab_size),
                                     _("head_ex.weight is lin_ex's weight, [d, V] = [{dim}, {vocab_size}], "
                                        "but nn.Linear({dim}, {vocab_size}) computes h @ weight.T and needs "
                                        "[V, d]").format(dim=dim, vocab_size=vocab_size))],
                                    _("an output layer maps a d-vector to V logits"))) from None
    logits = returned_tensor("head_ex(h)", logits, (3, vocab_size), _(": one logit per token for each of the 3 h's"))
    require(torch.allclose(logits, (h @ weight).cpu(), rtol=1e-5, atol=1e-6), _("head_ex(h) differs from h @ "
                                                                                 "lin_ex.weight: logit v must be the "
                                                                                 "dot product of h with token v's "
                                                                                 "vector, column v of lin_ex.weight"))
    own_table, own_head = copy.deepcopy((table, head))  # one Parameter in both stays one in the copies
    ids = torch.tensor([1, vocab_size - 1, 1], device=weight.device)
    (own_table(F.one_hot(ids, vocab_size).to(weight.dtype)).sum() + own_head(h).sum()).backward()
    lookup_part = torch.bincount(ids.cpu(), minlength=vocab_size).to(weight)[None, :].expand(dim, vocab_size)
    head_part = h.sum(dim=0)[:, None].expand(dim, vocab_size)  # d(sum of h @ W)/dW: every column gets the sum of h
    grad = own_table.weight.grad
    shares_numbers = any(p.data_ptr() == table.weight.data_ptr() for p in head.parameters())
    require(grad is not None and torch.allclose(grad, lookup_part + head_part, rtol=1e-5, atol=1e-6), hint([
        (shares_numbers, _("head_ex and lin_ex share their numbers, but as two Parameters: each gets only its own "
                            "layer's part of the gradient, and an optimizer would see the table twice. "
                            "nn.Parameter(...) makes a new leaf, even of a view (section 5). Hint: a layer can use "
                            "lin_ex.weight itself in its forward"))],
        _("head_ex holds a copy of lin_ex's numbers, not the same table: a training step on one would not move the "
           "other. Hint: use lin_ex's own weight Parameter, not a copy of it")))
    extra = [name for name, p in own_head.named_parameters() if p is not own_table.weight]
    require(not extra, _("head_ex has parameters of its own ({names}) besides lin_ex's table: an optimizer "
                          "would train them too. Hint: the output layer needs no parameter but the table").format(
                           names=', '.join(extra)))
    return correct(_("head_ex gives lin_ex's logits, has no parameter of its own, and the gradients of both layers' "
                      "uses add up in lin_ex's table"))


#: Exercise 3.3: the layers the checker builds from the learner's class, the ids it looks up (the padding id, 2,
#: three times) and the learning rate of its SGD step
_SMALL, _WIDE, _PADDING = (7, 3), (1000, 16), 2
_IDS = ((1, 0, 2), (6, 2, 2))
_LR = 0.5


@writes("MyEmbedding")
def check_parameter_embedding(cls: object, pad_row_after_step: object = None) -> None:
    """Exercise 3.3: a class ``MyEmbedding(num_embeddings, embedding_dim, padding_idx=None)``, without
    ``nn.Embedding``, ``nn.Linear`` or ``F.embedding``: a registered ``weight`` ``[V, d]`` drawn from N(0, 1), its
    padding row (if any) zero; ``forward(ids)`` returns ``weight[ids]`` (any lookup of rows: indexing, or
    ``index_select`` on the flattened ids, reshaped), so the gradient reaches the rows looked up, the padding row
    included (no gradient masking).
    ``pad_row_after_step``: the learner's prediction, a number: each entry of the padding row after the backward of
    the sum of the vectors of :data:`_IDS` (row 2 looked up three times) and one SGD step with lr :data:`_LR`, 0.5;
    judged against that step through their own class, once it has passed the gradient check: with plain indexing
    the one right answer is -1.5 (a class that masks the padding row's gradient, whose step would leave 0, fails
    that check first; notebook 4's exercise 4.2 keeps the row at zero).

    The checker builds layers of its own from the class, and leaves the random state as it found it.
    """
    require(not isinstance(cls, nn.Module), _("pass the class itself (MyEmbedding, not MyEmbedding(...)): the "
                                               "checker builds layers of its own sizes from it"))
    require(isinstance(cls, type) and issubclass(cls, nn.Module),
            _("expected your nn.Module subclass, got {type}").format(type=type(cls).__name__))
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        plain, wide = cls(*_SMALL), cls(*_WIDE)
        try:
            padded = cls(*_SMALL, padding_idx=_PADDING)
        except TypeError as error:
            raise ExerciseError(_("MyEmbedding(7, 3, padding_idx=2) raised TypeError ({error}). Hint: take "
                                   "a third argument, padding_idx=None").format(error=error)) from None
    require(not any(isinstance(part, (nn.Embedding, nn.Linear)) for part in plain.modules()),
            _("the module holds an nn.Embedding or nn.Linear: build the table yourself, as an nn.Parameter"))
    layers = {"MyEmbedding(7, 3)": plain, "MyEmbedding(7, 3, padding_idx=2)": padded}
    for name, layer in layers.items():
        parameters = dict(layer.named_parameters())
        require("weight" in parameters, _("{name} has no parameter named 'weight' (its parameters: "
                                           "{parameters}). Hint: a plain tensor attribute is not "
                                           "registered; wrap it: self.weight = nn.Parameter(...)").format(
                                            name=name, parameters=sorted(parameters)))
        require(tuple(parameters["weight"].shape) == _SMALL, _("{name}.weight has shape {shape}: "
                                                                "[num_embeddings, embedding_dim] is one row "
                                                                "per id").format(
                                                                 name=name, shape=tuple(parameters['weight'].shape)))
    std = wide.weight.detach().std().item()
    require(0.9 < std < 1.1, _("MyEmbedding(1000, 16).weight has std {std:.3f}: draw it from N(0, 1), as "
                                "nn.Embedding does (torch.randn)").format(std=std))
    padded_rows = padded.weight.detach()
    require(torch.equal(padded_rows[_PADDING], torch.zeros(_SMALL[1])), _("MyEmbedding(7, 3, "
                                                                           "padding_idx=2).weight[2] is not zero: "
                                                                           "set the padding row to zero when the "
                                                                           "layer is built (under torch.no_grad(), "
                                                                           "section 5)"))
    require(bool((padded_rows[torch.arange(_SMALL[0]) != _PADDING] != 0).any(dim=1).all()),
            _("MyEmbedding(7, 3, padding_idx=2) has zero rows besides row 2: zero only the padding row"))
    ids = torch.tensor(_IDS)
    pad_after = None
    for name, layer in layers.items():
        grad = looked_up_rows(name, layer, ids, _("MyEmbedding's forward calls F.embedding (or torch.embedding): "
                                                   "index the weight Parameter with the ids yourself, "
                                                   "self.weight[ids]"))
        expected = torch.bincount(ids.flatten(), minlength=_SMALL[0]).to(grad.dtype)[:, None].expand(_SMALL)
        require(torch.equal(grad, expected), _("the gradient of {name}.weight is not one row of ones per lookup. "
                                               "Hint: forward is plain indexing, self.weight[ids], and nothing "
                                               "else: no masking of any gradient").format(name=name))
        if layer is padded:
            pad_after = padded_rows[_PADDING] - _LR * grad[_PADDING]  # one SGD step
    if not answered(pad_row_after_step=pad_row_after_step):
        return None
    guess = as_number("pad_row_after_step", pad_row_after_step, _("each entry of row 2 after the step"))
    require(torch.allclose(pad_after, torch.full_like(pad_after, guess)), _(
        "pad_row_after_step = {guess} is not what the step leaves in row 2 of your MyEmbedding(7, 3, "
        "padding_idx=2). Hint: {why}").format(guess=guess, why=hint([
            (guess == 0, _("does weight[ids], plain indexing, know which row is the padding row?")),
            (guess in (-0.5, -1, -2), _("how many times do the ids look row 2 up?")),
            (guess > 0 or guess == -3, _("SGD subtracts lr × gradient"))],
            _("row 2 starts at zero: what gradient does the sum send it?"))))
    return correct(_("MyEmbedding registers a trainable weight drawn from N(0, 1) with its padding row at zero, "
                      "returns the rows at ids of shape (2, 3) and passes the checker's backward through it; "
                      "your prediction matches one SGD step through your class"))
