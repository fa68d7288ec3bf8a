"""Notebook 2, nn.Embedding is a lookup table: the checkers of its exercises."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence

from ..language import _
from ..vocab import build_vocab
from .checking import (
    ExerciseError,
    answered,
    as_number,
    correct,
    hint,
    prediction,
    require,
    require_function,
    returned_tensor,
    writes,
)

#: Exercise 2.1: the checker's own corpus, and its batches: sentences of 2, 5 and 4 tokens ("zebra" is unknown),
#: then a single sentence ("a" is unknown)
_CORPUS = "The cat sat on the mat. The dog sat on the log."
_BATCHES = (["the cat", "the zebra sat on the", "the dog sat ."], ["a dog sat on the mat ."])


def _layers_for_the_mean(vocab_size: int, pad_id: int) -> dict[str, nn.Embedding]:
    """Exercise 2.1's layers, by what they are: with ``padding_idx`` (a zero pad row), without (a pad row like any
    other), and two loaded tables whose pad row holds an ``inf`` and a ``NaN``, as ``from_pretrained`` keeps it."""
    torch.manual_seed(0)
    layers = {_("with padding_idx"): nn.Embedding(vocab_size, 6, padding_idx=pad_id),
              _("without padding_idx"): nn.Embedding(vocab_size, 6)}
    for bad in (float("inf"), float("nan")):
        table = torch.randn(vocab_size, 6, generator=torch.Generator().manual_seed(1))
        table[pad_id, 2] = bad
        layers[_("whose pad row holds {bad}").format(bad=bad)] = nn.Embedding.from_pretrained(table, padding_idx=pad_id)
    return layers


@writes("mean_of_real_tokens")
def check_mean_of_real_tokens(mean_of_real_tokens: Callable) -> None:
    """Exercise 2.1: ``mean_of_real_tokens(padded, embedding, pad_id)`` -> ``(B, d)``, the mean of each sentence's
    vectors over its real tokens only.

    The checker pads batches of its own and calls it with four embeddings (:func:`_layers_for_the_mean`), comparing
    with its own mean over the real tokens (to float rounding): the pad positions are left out, whatever they hold.
    """
    require_function("mean_of_real_tokens", mean_of_real_tokens)
    vocab = build_vocab(_CORPUS)
    pad_id = vocab.stoi["<pad>"]
    layers = _layers_for_the_mean(len(vocab), pad_id)
    for layer_name, embedding in layers.items():
        for sentences in _BATCHES:
            padded = pad_sequence([vocab.encode(s) for s in sentences], batch_first=True, padding_value=pad_id)
            with torch.no_grad():
                vectors = embedding(padded)  # (B, T, d)
                real = (padded != pad_id).unsqueeze(-1)  # (B, T, 1)
                expected = vectors.masked_fill(~real, 0.0).sum(dim=1) / real.sum(dim=1)  # the pads left out
                got = mean_of_real_tokens(padded, embedding, pad_id)
            got = returned_tensor("mean_of_real_tokens(padded, embedding, pad_id)", got, tuple(expected.shape),
                                  _(" for a (B, T) = {shape} batch: one vector per sentence, (B, d)").format(
                                      shape=tuple(padded.shape)))
            why = hint([
                (torch.allclose(got, vectors.mean(dim=1)),
                 _("that is the mean over all T positions: the pad positions were counted. Divide by the real ones")),
                (torch.allclose(got, vectors.sum(dim=1) / real.sum(dim=1)),
                 _("the pad rows were added: they are zero only with padding_idx. The checker's second embedding "
                    "has none, so leave the pad positions out of the sum")),
                (torch.allclose(got, (vectors * real).sum(dim=1)),
                 _("that is the sum over the real tokens: divide it by their number")),
                (bool(got.isnan().any()) and not expected.isnan().any(),
                 _("NaN where the real tokens are finite: 0 · inf and 0 · NaN are both NaN, so a pad row that "
                    "holds one still counts when multiplied by 0 (notebook 0). Leave the pad positions "
                    "out without multiplying")),
            ], _("mask the pad positions (padded != pad_id), sum the rest, and divide by how many there are"))
            require(torch.allclose(got, expected),
                    _("mean_of_real_tokens differs from the mean over the real tokens, for an embedding "
                       "{layer_name}. Hint: {why}").format(layer_name=layer_name, why=why))
    return correct(_("mean_of_real_tokens matched the checker's mean over the real tokens on 2 batches and 4 "
                      "embeddings of its own"))


#: Exercise 2.4: a 6-row table and a batch of two sentences padded with -1s, whose rows are summed
_PAD_MINUS_ONE_ROWS, _PAD_MINUS_ONE_IDS = 6, ((3, 5, 1, 5), (2, 0, -1, -1))


#: Section 5's batch, as the notebook pads it: two sentences of the corpus above, filled up with <pad> (id 0)
_PADDED_SENTENCES = ("the cat sat", "the dog sat on the log")


def _rows_left_by_the_step() -> tuple[set[int], set[int]]:
    """Section 5's prediction, run as the notebook runs it: the padded batch through ``nn.Embedding(V, 4,
    padding_idx=0)``, the vectors' sum, backward, one SGD step with weight decay. The rows that the step left exactly
    as they were, and the rows that no id of the batch looks up."""
    vocab = build_vocab(_CORPUS)
    pad_id = vocab.stoi["<pad>"]
    padded = pad_sequence([vocab.encode(s) for s in _PADDED_SENTENCES], batch_first=True, padding_value=pad_id)
    torch.manual_seed(0)
    embedding = nn.Embedding(len(vocab), 4, padding_idx=pad_id)
    before = embedding.weight.detach().clone()
    embedding(padded).sum().backward()
    torch.optim.SGD(embedding.parameters(), lr=0.5, weight_decay=0.1).step()
    left = {row for row in range(len(vocab)) if torch.equal(embedding.weight[row], before[row])}
    return left, set(range(len(vocab))) - set(padded.flatten().tolist())


def check_unchanged_rows(unchanged_rows: object) -> None:
    """Section 5's prediction: which rows of ``emb_pad.weight`` does one SGD step with weight decay leave exactly as
    they were? A set of row numbers. Judges nothing while the guess is None."""
    if not answered(unchanged_rows=unchanged_rows):
        return
    guess = set(prediction("unchanged_rows", unchanged_rows, (set, frozenset), "{1, 3}"))
    left, not_looked_up = _rows_left_by_the_step()
    why = hint([
        (bool(guess & not_looked_up), _("rows {rows} are looked up by no id, so their gradient is zero, yet weight "
                                        "decay adds 0.1 times each weight to it: does a row of nonzero numbers "
                                        "stay put?").format(rows=sorted(guess & not_looked_up))),
        (bool(guess - left), _("a row that an id looks up gets a gradient, and the step moves it")),
    ], _("what gradient does the padding row get, and where does weight decay pull a weight that is 0?"))
    require(guess == left, _("not what the step does. Hint: {why}").format(why=why))
    return correct(_("unchanged_rows is the set of rows that the checker's own step, on the same batch and table, "
                     "left exactly as they were"))


def _shared_step(vectors: torch.Tensor) -> tuple[set[int], float]:
    """Exercise 2.2, run: ``a`` and ``b`` loaded from a copy of the learner's ``ex_vectors``, both trainable, ``b``
    with padding row 0; one backward through both, then one SGD step (lr 1) on ``a`` and one on ``b``, each with
    its own optimizer; the rows of ``a.weight`` that changed, and the change of row 2's entries."""
    vectors = vectors.detach().cpu().clone()  # the learner's ex_vectors stay as they were
    a = nn.Embedding.from_pretrained(vectors, freeze=False)
    b = nn.Embedding.from_pretrained(vectors, freeze=False, padding_idx=0)
    before = a.weight.detach().clone()
    ids = torch.tensor([0, 2, 2])
    (a(ids) + b(ids)).sum().backward()
    torch.optim.SGD(a.parameters(), lr=1.0).step()
    torch.optim.SGD(b.parameters(), lr=1.0).step()
    changed = {row for row in range(5) if not torch.equal(a.weight[row], before[row])}
    return changed, (a.weight[2] - before[2]).mean().item()


def check_shared_step_prediction(changed_rows: object, row_2_change: object, ex_vectors: torch.Tensor) -> None:
    """Exercise 2.2: the predicted rows of ``a.weight`` that the steps on ``a`` and ``b`` change, and row 2's
    change. Judges nothing while a guess is None."""
    if not answered(changed_rows=changed_rows, row_2_change=row_2_change):
        return
    rows = prediction("changed_rows", changed_rows, (set, frozenset), "{1, 3}")
    change = as_number("row_2_change", prediction("row_2_change", row_2_change, (int, float), "-1.5"),
                       _("the number added to each entry of row 2"))
    actual_rows, actual_change = _shared_step(ex_vectors)
    why = hint([(0 not in rows, _("padding_idx=0 is b's option, not a's: what gradient does a give row 0?"))],
               _("a row changes only where a step writes: which rows did a and b look up?"))
    require(set(rows) == actual_rows,
            _("changed_rows = {rows} is not what the steps changed in a.weight. Hint: {why}").format(
                rows=sorted(rows), why=why))
    # the tolerance: two float32 subtractions in turn, against one exact number
    why = hint([(change == -actual_change, _("SGD subtracts lr × gradient")),
                (change == actual_change / 2, _("a and b were loaded from one tensor: does from_pretrained copy it?")),
                (change == actual_change / 4,
                 _("id 2 is looked up twice: each lookup adds its gradient to the row"))],
               _("the gradient of a sum is 1 for every entry of every looked-up row"))
    require(abs(change - actual_change) <= 1e-5, _("row_2_change = {change} is not the change of row 2. "
                                                    "Hint: {why}").format(change=change, why=why))
    return correct(_("both predictions match what the steps on a and b did to a.weight"))


class _Watched(nn.Embedding):
    """An embedding that records the ids it is asked to look up (to tell whether a bad id reached it)."""

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        self.seen = ids
        return super().forward(ids)


@writes("checked_lookup")
def check_checked_lookup(checked_lookup: Callable) -> None:
    """Exercise 2.3: ``checked_lookup(embedding, ids)`` for a ``(B, T)`` batch: the rows for valid ids; a
    ``ValueError`` naming every bad id (negative, or not below ``num_embeddings``) and its position ``(b, t)``,
    before the layer sees them."""
    require_function("checked_lookup", checked_lookup)
    torch.manual_seed(0)
    embedding = _Watched(5, 3)
    for dtype in (torch.int64, torch.int32):
        ids = torch.tensor([[0, 4], [4, 1]], dtype=dtype)
        got = checked_lookup(embedding, ids)
        require(isinstance(got, torch.Tensor) and torch.equal(got, embedding.weight[ids.long()]),
                _("for the valid {dtype} ids {ids}, return embedding(ids), the rows").format(
                    dtype=dtype, ids=ids.tolist()))
    for bad, found in (([[0, 4, 1], [2, 7, 9]], {7: (1, 1), 9: (1, 2)}),  # each bad id and its (b, t)
                       ([[3, -1], [-2, 8]], {-1: (0, 1), -2: (1, 0), 8: (1, 1)})):
        call, embedding.seen = f"checked_lookup(embedding, tensor({bad}))", None
        try:
            checked_lookup(embedding, torch.tensor(bad))
        except IndexError:
            raise ExerciseError(_("{call} raised the layer's IndexError: check before the layer sees the "
                                   "ids, and raise a ValueError that names every bad id").format(call=call)) from None
        except ValueError as error:
            message = str(error)
        else:
            raise ExerciseError(_("{call} raised nothing: {first} is not a row of a 5-row table; raise a "
                                   "ValueError").format(call=call, first=next(iter(found))))
        raised = _("{call} raised ValueError({message!r})").format(call=call, message=message)
        require(all(str(id_) in message for id_ in found), _("{raised}: name every bad id, {ids}").format(
                                                               raised=raised, ids=", ".join(map(str, found))))
        require(all("{}, {}".format(*position) in message for position in found.values()),
                _("{raised}: name every bad id's position (b, t) too, so each sentence can be found. Hint: "
                  "nonzero() lists the positions of the True entries").format(raised=raised))
        require(embedding.seen is None, _("for ids {bad} the layer was called before the ValueError: check "
                                           "the ids first, so that a bad id never reaches the layer").format(bad=bad))
    return correct(_("checked_lookup returned the rows for valid int64 and int32 ids, and for batches with several "
                      "bad ids raised a ValueError naming each and its position before the layer saw them"))


def check_pad_gradient(row_gradients: object) -> None:
    """Exercise 2.4: the gradient each entry of each row of a 6-row table gets when the rows of the batch
    ``[[3, 5, 1, 5], [2, 0, -1, -1]]``, read through ``weight[ids]``, are summed ([1, 1, 1, 1, 0, 4]: plain indexing
    counts -1 from the end, so the two pads read row 5, not row 4). Nothing while it is None."""
    if not answered(row_gradients=row_gradients):
        return None
    numbers = isinstance(row_gradients, (list, tuple)) and all(
        isinstance(n, (int, float)) and not isinstance(n, bool) for n in row_gradients)
    require(numbers and len(row_gradients) == _PAD_MINUS_ONE_ROWS,
            _("row_gradients must be a list of {rows} numbers, one per row, got {got!r}").format(
                rows=_PAD_MINUS_ONE_ROWS, got=row_gradients))
    table = torch.zeros(_PAD_MINUS_ONE_ROWS, 3, requires_grad=True)
    table[torch.tensor(_PAD_MINUS_ONE_IDS)].sum().backward()
    require(list(row_gradients) == table.grad[:, 0].tolist(), _(
        "row_gradients = {row_gradients} is not the gradient each row gets. Hint: {why}").format(
        row_gradients=list(row_gradients), why=hint([
            (row_gradients[4] != 0, _("-1 counts from the end of this table: which row is last in a table of 6 "
                                      "rows?")),
            (row_gradients[5] == 2, _("2 is what the two uses of id 5 send its row: which row does each -1 pad "
                                      "read?")),
        ], _("plain indexing counts a negative index from the end, as Python's lists do (section 4), and a "
             "repeated row's gradients add up (section 2)"))))
    return correct(_("row_gradients matches the gradient each row got in the checker's own backward through "
                     "weight[ids]"))
